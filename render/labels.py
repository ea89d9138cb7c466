"""Every label a picture shows, where, how tall, and whether anything covers it.

A board is read on a phone only if its labels are tall enough where Discord shows it and
nothing is drawn over them. Both are measured here from what the renderers really drew, not
from guesses: a picture drawn while :func:`render.frames.recording` is on leaves its static
layer and the operations recorded on its :class:`render.frames.Sheet`. A label is

- a text noted on the static layer when it was drawn (``render.common.TracingDraw``: hex,
  ahu and space names, column titles, the key);
- a text the picture drew itself: a paste of its ink through the text's coverage mask, which
  names its text (``render.common.TEXT``);
- a text on a sprite the picture pasted (a number on a piece), noted on the sprite;
- a seat's mark on a piece (kind :data:`MARK`), noted on the piece's sprite as its texts are.

Its kind (:data:`render.common.KINDS`) is what the renderer said it is
(:func:`render.common.labelling`). A later operation *covers* a label when it may put a
pixel inside the label's box: a paste through a mask where the mask is not clear there, a
paste without one or a shape where its box meets the label's.

Use :func:`read` around any call that draws (``read(giants.board, view)``),
:func:`read_focus` for a focus picture (``read_focus(giants, view, ["M7"])``), or
:func:`of_picture` on a static layer and its recorded operations.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from render import frames
from render.common import TEXT, drawn_labels

Box = tuple[int, int, int, int]
"""Left, top, right, bottom in a picture's pixels (right and bottom excluded)."""

NAMED = frozenset({"hex", "ahu", "space", "number"})
"""The kinds a player must read to decide: the labels they name in moves (hexes, ahus,
spaces) and the numbers on pieces."""

PHONE_WIDTH = 340
"""CSS pixels across that a phone (390 points wide) shows a picture at the message's full
width."""
MIN_SHOWN = 7
"""The least height, in CSS pixels, that a label must have there to be read."""
ATTACHMENT_WIDTH = 302
"""CSS pixels across that a 390-point phone shows a message's picture in the chat (a board, a
focus, a seat's screen or hand): narrower than the message, within its margins."""
MARK = "mark"
"""The kind of a seat's mark on a piece (:func:`render.common.seat_mark`), read back as a
label (its text the seat) so that its size where a phone shows it is measured as a label's.
Not in :data:`ALL`: it is not a text."""
ALL = frozenset({"hex", "ahu", "space", "field", "number", "text"})
"""Every kind of label."""

BAND = 64
"""Rows per bucket when operations are looked up by the rows they reach."""


@dataclass(frozen=True, slots=True)
class Cover:
    """An operation drawn after a label, over its box."""

    index: int
    """Its place in the picture's recorded operations."""
    method: str
    """``paste`` (a sprite, a text, a colour) or a shape's name (``rectangle``, ...)."""
    box: Box
    text: str = ""
    """The text it draws, when it is one."""


@dataclass(frozen=True, slots=True)
class Label:
    """One label as drawn: its text, its kind, the box of its ink in the picture's pixels,
    and the first later operation that covers it (None: nothing does)."""

    text: str
    kind: str
    box: Box
    covered_by: Cover | None = None
    index: int = -1
    """The operation that drew it (-1: the static layer)."""

    @property
    def height(self) -> int:
        """Its ink's height in the picture's pixels."""
        return self.box[3] - self.box[1]

    @property
    def width(self) -> int:
        """Its ink's width in the picture's pixels."""
        return self.box[2] - self.box[0]


@dataclass(frozen=True, slots=True)
class Picture:
    """A picture's size and its labels, in the order they were drawn."""

    size: tuple[int, int]
    labels: tuple[Label, ...]

    def of(self, kinds: Iterable[str] = NAMED) -> list[Label]:
        """Its labels of ``kinds`` (by default those a player names, and numbers)."""
        wanted = frozenset(kinds)
        return [label for label in self.labels if label.kind in wanted]

    def smallest(self, kinds: Iterable[str] = NAMED) -> Label | None:
        """Its least tall label of ``kinds`` (None: it has none)."""
        found = self.of(kinds)
        return min(found, key=lambda label: (label.height, label.index)) if found else None

    def covered(self, kinds: Iterable[str] = NAMED) -> list[Label]:
        """Its labels of ``kinds`` that something drawn later covers."""
        return [label for label in self.of(kinds) if label.covered_by is not None]

    def shown_height(self, label: Label, shown_width: float = PHONE_WIDTH) -> float:
        """``label``'s height when the picture is shown ``shown_width`` pixels wide (a picture
        narrower than that is shown as it is)."""
        return label.height * min(1.0, shown_width / self.size[0])

    def cropped(self, box: Box) -> Picture:
        """The labels of the part ``box`` of the picture (a focus: see :mod:`render.focus`),
        in its pixels: those wholly inside it."""
        x, y = box[0], box[1]
        return Picture((box[2] - box[0], box[3] - box[1]), tuple(
            Label(label.text, label.kind, (label.box[0] - x, label.box[1] - y,
                                           label.box[2] - x, label.box[3] - y),
                  label.covered_by, label.index)
            for label in self.labels if box[0] <= label.box[0] and box[1] <= label.box[1]
            and label.box[2] <= box[2] and label.box[3] <= box[3]))

    def unreadable(self, kinds: Iterable[str] = NAMED,
                   shown_width: float = PHONE_WIDTH) -> list[Label]:
        """Its labels of ``kinds`` less than :data:`MIN_SHOWN` tall when it is shown
        ``shown_width`` pixels wide."""
        return [label for label in self.of(kinds)
                if self.shown_height(label, shown_width) < MIN_SHOWN]


def read(draw: Callable[..., Any], *args: Any, **kwargs: Any) -> list[Picture]:
    """The labels of each picture ``draw(*args, **kwargs)`` draws (a board, a screen, a hand:
    any renderer's public function), in order."""
    with frames.recording() as found:
        draw(*args, **kwargs)
    return [of_picture(base, ops) for base, ops in found]


def read_one(draw: Callable[..., Any], *args: Any, **kwargs: Any) -> Picture:
    """The labels of the one picture ``draw(*args, **kwargs)`` draws."""
    found = read(draw, *args, **kwargs)
    if len(found) != 1:
        raise ValueError(f"{len(found)} pictures drawn, not one")
    return found[0]


def read_focus(renderer: ModuleType, view: dict[str, Any], places: Iterable[str],
               lang: str = "en", names: dict[str, str] | None = None, *,
               highlight: frozenset[str] = frozenset()) -> Picture:
    """The labels of the focus picture ``renderer.focus(view, places, ...)`` draws: the
    board's, in the parts of it the focus shows (``renderer.focus_parts``: one part, or a
    tile a place far from the others), where it shows them; and, where the renderer frames
    its parts (``focus_bands``: Giganten names their rows and columns beside them), the
    frames'."""
    chosen = list(places)
    parts = (renderer.focus_parts(view, chosen) if hasattr(renderer, "focus_parts")
             else [(renderer.place_box(view, chosen), (0, 0))])
    board = read_one(renderer.board, view, lang, names, highlight=highlight)
    shown: list[Label] = []
    right, bottom = 0, 0
    for box, (dx, dy) in parts:
        part = board.cropped(box)
        shown += [Label(label.text, label.kind, (label.box[0] + dx, label.box[1] + dy,
                                                 label.box[2] + dx, label.box[3] + dy),
                        label.covered_by, label.index) for label in part.labels]
        right, bottom = max(right, dx + part.size[0]), max(bottom, dy + part.size[1])
    if not hasattr(renderer, "focus_bands"):
        return Picture((right, bottom), tuple(shown))
    bands = renderer.focus_bands(view, chosen)
    return Picture(bands.size, tuple(
        [Label(d.text, d.kind, _whole(d.box)) for d in drawn_labels(bands)] + shown))


def of_picture(base: Image.Image, ops: list[frames.Op]) -> Picture:
    """The labels of ``base`` with ``ops`` drawn on it, each with what covers it."""
    found: list[Label] = [Label(d.text, d.kind, _whole(d.box), None, -1)
                          for d in drawn_labels(base)]
    for index, op in enumerate(ops):
        found.extend(_op_labels(op, index))
    size = base.size
    # a label drawn again where it was (a territory's patch holds the hex's label) is the
    # last of them
    last = {(label.text, label.box): n for n, label in enumerate(found)}
    found = [label for n, label in enumerate(found)
             if _inside(label.box, size) and last[(label.text, label.box)] == n]
    buckets = _buckets(ops)
    return Picture(size, tuple(_with_cover(label, ops, buckets) for label in found))


def _whole(box: tuple[float, float, float, float]) -> Box:
    return (math.floor(box[0]), math.floor(box[1]), math.ceil(box[2]), math.ceil(box[3]))


def _inside(box: Box, size: tuple[int, int]) -> bool:
    return box[0] < size[0] and box[1] < size[1] and box[2] > 0 and box[3] > 0


def _op_labels(op: frames.Op, index: int) -> list[Label]:
    """The labels an operation draws: its text, or the labels noted on the sprite it
    pastes."""
    kind = op.kind or "text"
    if op.method == "text":
        xy, text, _fill, face, anchor = op.args[:5]
        if not isinstance(text, str) or not text.strip():
            return []
        probe = ImageDraw.Draw(Image.new("1", (1, 1)))
        box = probe.textbbox(xy, text, face if isinstance(face, ImageFont.FreeTypeFont)
                             else None, anchor)
        return [Label(text, kind, _whole(box), None, index)]
    if op.method != "paste":
        return []
    source, corner, mask = op.args
    if len(corner) != 2:
        return []
    x, y = corner
    if isinstance(mask, Image.Image) and TEXT in mask.info and not isinstance(source,
                                                                               Image.Image):
        return [Label(mask.info[TEXT], kind, (x, y, x + mask.width, y + mask.height), None,
                      index)]
    if isinstance(source, Image.Image):
        return [Label(d.text, d.kind, _whole((d.box[0] + x, d.box[1] + y, d.box[2] + x,
                                              d.box[3] + y)), None, index)
                for d in drawn_labels(source)]
    return []


def _buckets(ops: list[frames.Op]) -> dict[int, list[int]]:
    """Each band of rows -> the operations that reach it, in order."""
    found: dict[int, list[int]] = {}
    for index, op in enumerate(ops):
        for band in range(op.top // BAND, (op.bottom - 1) // BAND + 1):
            found.setdefault(band, []).append(index)
    return found


def _with_cover(label: Label, ops: list[frames.Op], buckets: dict[int, list[int]]) -> Label:
    candidates = sorted({index for band in range(label.box[1] // BAND,
                                                 (label.box[3] - 1) // BAND + 1)
                         for index in buckets.get(band, ()) if index > label.index})
    for index in candidates:
        cover = _covers(ops[index], index, label.box)
        if cover is not None:
            return Label(label.text, label.kind, label.box, cover, label.index)
    return label


def _covers(op: frames.Op, index: int, box: Box) -> Cover | None:
    """Whether ``op`` may put a pixel inside ``box``; what it is if so."""
    left, top = max(op.left, box[0]), max(op.top, box[1])
    right, bottom = min(op.right, box[2]), min(op.bottom, box[3])
    if left >= right or top >= bottom:
        return None
    if op.method == "text":
        return None  # drawn by Pillow whole; its own label is checked instead
    text = ""
    if op.method != "paste" and not _shape_meets(op, (left, top, right, bottom)):
        return None  # an outline around the label, say
    if op.method == "paste":
        source, corner, mask = op.args
        through = mask if isinstance(mask, Image.Image) else None
        if through is None and isinstance(source, Image.Image) and source.mode in ("RGBA",
                                                                                   "LA"):
            through = source.getchannel("A")
        if through is not None and len(corner) == 2:
            x, y = corner
            part = through.crop((left - x, top - y, right - x, bottom - y))
            if part.mode not in ("L", "1"):
                part = part.getchannel("A") if "A" in part.getbands() else part.convert("L")
            if part.getbbox() is None:
                return None  # clear over the label
        if isinstance(mask, Image.Image):
            text = str(mask.info.get(TEXT, ""))
    return Cover(index, op.method, (op.left, op.top, op.right, op.bottom), text)


def _ink(value: Any) -> Any:
    """A colour argument as full coverage (None stays None: not drawn)."""
    if isinstance(value, str) or (isinstance(value, tuple) and 3 <= len(value) <= 4
                                  and all(isinstance(v, int) for v in value)):
        return 255
    return value


def _shape_meets(op: frames.Op, box: Box) -> bool:
    """Whether a recorded shape puts a pixel inside ``box`` (drawn again as a coverage mask
    as far as the box reaches)."""
    xy, *rest = op.args
    mask = Image.new("L", (box[2], box[3]), 0)
    kwargs = {key: _ink(value) for key, value in op.kwargs.items()}
    getattr(ImageDraw.Draw(mask), op.method)(xy, *(_ink(v) for v in rest), **kwargs)
    return mask.crop(box).getbbox() is not None
