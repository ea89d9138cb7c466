"""Boards drawn again only where they changed.

The invariant every renderer keeps: a picture drawn by its changes (``frame="stream"``) is
byte-identical to the same picture drawn whole. It is enforced by
``tests/test_render_frames.py::test_a_whole_game_drawn_by_its_changes_is_the_game_drawn_whole``
(a whole game of each kind, every board drawn both ways and compared byte for byte), with the
seats' screens, streams that jump between games and a band cache that lost its bands checked
in the same file. A renderer that breaks it shows a stale or torn board, so a new game's
renderer joins ``GAMES`` there. Keeping it is worth it: a move costs 1.75x less CPU
than drawing the board whole.

A board is its static layer with a few hundred things drawn on it in order: sprites and texts
pasted, a few shapes. A move changes a handful of them. So a render first *records* what it
would draw, on a :class:`Sheet` (a stand-in for the picture that keeps each paste and shape
with its key and the rows and columns it reaches), and sums up, for each band of rows (the
encoder's unit, :data:`render.palette.BAND`), the keys of the operations that reach it, in
order, in one hash. The stream's previous picture (the same game's board, kept by
:func:`drawn` under the stream's name) left its own band hashes.

A band whose hash is the previous picture's is the same as it was, pixel for pixel: the same
operations reach it, in the same order, over the same static layer. Its compressed bytes are
taken from the band cache. So are those of a band drawn so by any earlier picture on that
static layer (a row of the table back as it was two moves ago, a ring gone from a hex): each
band drawn is remembered by its static layer, palette, place and hash with the content it
gave (:data:`SEEN_KEPT` of them). Only the operations that reach a changed band are drawn
(a paste only over the changed rows), on this thread's kept copy of the static layer, which
is put back where they drew afterwards; and only the changed bands are mapped to the palette
(only between the columns their operations reach: elsewhere a band holds the static layer's
own indices), hashed and deflated.

Recording is cheap only if painting is: most of a board (a seat's row of the table, a row of
spaces, a hex and what stands on it) is the same after a move. A renderer paints such a
*part* through :func:`part`, from plain arguments alone; the drawings a part recorded are kept
by those arguments and taken again, without painting, the next time they are equal.

The result is the same PNG, byte for byte, as drawing and encoding the whole picture
(``tests/test_render_frames.py`` plays whole games both ways). What makes that hold:

- an operation's key holds everything its pixels depend on (arguments, a picture's content,
  a font's identity), and its rows and columns hold all it can touch (a shape's are widened
  by its line width and a margin; a text that is not drawn from its mask counts as touching
  the whole picture);
- pictures drawn from are not changed afterwards (the renderers' sprites are cached, and a
  cached picture is never drawn on);
- a part reads nothing but its arguments and constants (tests paint every part again that
  is found and compare, :data:`CHECK_PARTS`).
"""

from __future__ import annotations

import contextlib
import marshal
import math
import struct
import threading
import weakref
from array import array
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import xxhash
from PIL import Image, ImageFont

from render import palette as pal
from render.common import KIND, Draw, text_mask_of

FRAMES_KEPT = 2048
"""Streams whose previous picture a process remembers (its bands' hashes, some 8 KiB a
board): a board and a screen per seat for each of a few hundred games; a stream beyond them is
drawn whole."""
SHAPE_MARGIN = 2
"""Rows beyond a shape's coordinates and line width that it may still touch."""
SEEN_KEPT = 1 << 17
"""Bands' drawings a process remembers with the content they gave (see :func:`drawn`), the
latest used: some 150 bytes each, the changed bands of some thousands of pictures."""
PARTS_KEPT = 8192
"""Parts of pictures (see :func:`part`) whose drawings a process remembers, the latest used:
a board has a few tens (a table row a seat, say), a few KiB each."""
CHECK_PARTS = False
"""Set by tests: a part found is painted again all the same, and a part whose drawings differ
from those found for its arguments is an error (:class:`PartError`): it read more than them."""
PART_PIXELS = 8192
"""Pixels mapped again for nothing that are worth one part fewer (see :func:`_reached`): a
part costs a crop, a mapping and a paste, some 20 microseconds, about as much as mapping
this many pixels."""


@dataclass(slots=True)
class Op:
    """One recorded drawing: what it is (``key``), the rows and columns it may touch, how to
    draw it (not frozen, which makes one several times slower: a board records a few hundred;
    nothing changes one once recorded)."""

    key: Hashable
    top: int
    bottom: int
    left: int
    right: int
    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    number: int = 0
    """Its key's number (:func:`_number`) once worked out: an operation taken again with a
    part (:func:`part`) is not looked up again. A number its key has since lost only makes
    its bands look changed (they are drawn again): numbers are never given twice."""
    kind: str = ""
    """What a text it draws is (:func:`render.common.labelling`; empty: any text), for
    :mod:`render.labels`. Not in the key: it changes no pixel."""


_IMAGE_KEYS: dict[int, tuple[weakref.ref[Image.Image], Hashable]] = {}
_FONTS: dict[int, ImageFont.FreeTypeFont] = {}
"""Fonts seen in keys, kept alive so that their identity stays theirs."""
_LOCK = threading.Lock()


def _image_key(image: Image.Image) -> Hashable:
    """A picture's content as a key (its mode, size and a 128-bit hash of its bytes),
    worked out once per picture object."""
    found = _IMAGE_KEYS.get(id(image))
    if found is not None and found[0]() is image:
        return found[1]
    key = ("image", image.mode, image.size, xxhash.xxh3_128_intdigest(image.tobytes()))
    with _LOCK:
        if len(_IMAGE_KEYS) > 8192:
            for ident in [i for i, (ref, _) in _IMAGE_KEYS.items() if ref() is None]:
                del _IMAGE_KEYS[ident]
        _IMAGE_KEYS[id(image)] = (weakref.ref(image), key)
    return key


def keyed(value: Any) -> Hashable:
    """``value`` as a hashable key of what it draws."""
    if isinstance(value, (int, float, str, bytes)) or value is None:
        return value
    if isinstance(value, (tuple, list)):
        return tuple(keyed(v) for v in value)
    if isinstance(value, Image.Image):
        return _image_key(value)
    if isinstance(value, ImageFont.FreeTypeFont):
        _FONTS.setdefault(id(value), value)
        return ("font", id(value))
    if isinstance(value, dict):
        return tuple(sorted((k, keyed(v)) for k, v in value.items()))
    hash(value)  # anything else must be a plain value
    return value


def _numbers(value: Any) -> Iterator[float]:
    if isinstance(value, (int, float)):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _numbers(v)


class Sheet(Image.Image):
    """Stands in for a board's picture while it is painted: it records each paste (and, through
    :class:`SheetDraw`, each shape) instead of drawing it."""

    def __init__(self, base: Image.Image) -> None:
        super().__init__()
        self._mode = base.mode
        self._size = base.size
        self.ops: list[Op] = []

    def _rows(self, top: float, bottom: float) -> tuple[int, int]:
        return max(0, math.floor(top)), min(self.height, math.ceil(bottom))

    def _columns(self, left: float, right: float) -> tuple[int, int]:
        return max(0, math.floor(left)), min(self.width, math.ceil(right))

    def record(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any],
               box: tuple[float, float, float, float]) -> None:
        """Keep a drawing that may touch ``box`` (left, top, right, bottom)."""
        rows = self._rows(box[1], box[3])
        columns = self._columns(box[0], box[2])
        if rows[0] >= rows[1] or columns[0] >= columns[1]:
            return  # outside the picture: it draws nothing
        self.ops.append(Op((method, keyed(args), keyed(kwargs)), *rows, *columns, method, args,
                           kwargs, 0, self.info.get(KIND, "")))

    def paste(self, im: Any, box: Any = None, mask: Any = None) -> None:
        box = (0, 0) if box is None else tuple(box)
        if len(box) == 2:
            source = im if isinstance(im, Image.Image) else mask
            if source is None:
                raise ValueError("a colour pasted without a box or a mask")
            top, bottom = box[1], box[1] + source.height
            left, right = box[0], box[0] + source.width
        else:
            left, top, right, bottom = box
        # clamped here, not by _rows and _columns: pastes are most of a board
        top, bottom = max(0, math.floor(top)), min(self._size[1], math.ceil(bottom))
        left, right = max(0, math.floor(left)), min(self._size[0], math.ceil(right))
        if top >= bottom or left >= right:
            return
        # the common case keyed without the general walk: pastes are most of a board; what
        # they paste is a picture or a colour (numbers or a name), and where is numbers
        key = ("paste", _image_key(im) if isinstance(im, Image.Image)
               else tuple(im) if isinstance(im, list) else im, box,
               None if mask is None else _image_key(mask))
        self.ops.append(Op(key, top, bottom, left, right, "paste", (im, box, mask), {}, 0,
                           self.info.get(KIND, "")))


def _recorded(method: str) -> Any:
    """A shape method of :class:`SheetDraw`: it records the shape (see ``SheetDraw._shape``)."""
    def record(self: SheetDraw, xy: Any, *args: Any, **kwargs: Any) -> None:
        self._shape(method, xy, args, kwargs)
    record.__name__ = method
    return record


class SheetDraw(Draw):
    """``Draw`` on a :class:`Sheet`: texts become pastes of their masks (as ``Draw`` draws
    them), shapes are recorded with the rows they may touch."""

    def __init__(self, sheet: Sheet) -> None:  # no drawing core: nothing is drawn here
        self.image = sheet
        self.sheet = sheet

    def text(self, xy: tuple[float, float], text: Any, fill: Any = None, font: Any = None,
             anchor: str | None = None, *args: Any, **kwargs: Any) -> None:
        found = text_mask_of(self.sheet, xy, text, fill, font, anchor, args, kwargs)
        if found is False:  # drawn by Pillow's own text: it may reach any row
            self.sheet.record("text", (xy, text, fill, font, anchor, *args), kwargs,
                              (0, 0, self.sheet.width, self.sheet.height))
        elif found is not None:
            mask, corner = found
            self.sheet.paste(fill, corner, mask)

    def _shape(self, method: str, xy: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        numbers = list(_numbers(xy))
        xs, ys = numbers[0::2], numbers[1::2]
        reach = SHAPE_MARGIN + max([0, *(v for v in (*args, *kwargs.values())
                                         if isinstance(v, (int, float)))])
        self.sheet.record(method, (xy, *args), kwargs, (min(xs) - reach, min(ys) - reach,
                                                       max(xs) + reach + 1, max(ys) + reach + 1))

    rectangle = _recorded("rectangle")
    rounded_rectangle = _recorded("rounded_rectangle")
    polygon = _recorded("polygon")
    ellipse = _recorded("ellipse")
    line = _recorded("line")
    arc = _recorded("arc")
    pieslice = _recorded("pieslice")


T = TypeVar("T")


class PartError(AssertionError):
    """A part of a picture drew otherwise than before with the same arguments."""


_PARTS: OrderedDict[Hashable, tuple[tuple[Op, ...], Any]] = OrderedDict()


def part(image: Image.Image, paint: Callable[..., T], *args: Any) -> T:
    """``paint(image, *args)``: a part of a picture drawn from nothing but ``args`` (plain
    values: numbers, strings, lists, dicts) and its module's constants, such as one seat's
    row of a table. On a :class:`Sheet`, the drawings it recorded when it was last painted
    with equal arguments (and what it returned then) are taken again instead: a move changes
    a few parts of a board, and painting the others again would record the same drawings.

    The arguments are compared as their ``marshal`` bytes (format 2, without references, so
    that equal values give equal bytes, and only equal values do); ``paint`` by identity (a
    function made anew, such as a closure, is never found again)."""
    if not isinstance(image, Sheet):
        return paint(image, *args)
    key = (paint, image.mode, image.size, marshal.dumps(args, 2))
    found = _PARTS.get(key)
    if found is not None:
        COUNTS.parts += 1
    if found is not None and not CHECK_PARTS:
        with contextlib.suppress(KeyError):  # another thread forgot it just now
            _PARTS.move_to_end(key)
        image.ops.extend(found[0])
        return found[1]
    start = len(image.ops)
    result = paint(image, *args)
    ops = tuple(image.ops[start:])
    if found is not None and (found[1] != result or [_drawing(op) for op in found[0]]
                              != [_drawing(op) for op in ops]):
        raise PartError(f"{paint.__qualname__} drew otherwise with the same arguments: "
                        "it reads something they do not hold")
    with _LOCK:
        _PARTS[key] = (ops, result)
        while len(_PARTS) > PARTS_KEPT:
            _PARTS.popitem(last=False)
    return result


def _drawing(op: Op) -> tuple[Hashable, int, int, int, int]:
    return op.key, op.top, op.bottom, op.left, op.right


def draw_on(image: Image.Image) -> Draw:
    """The ``Draw`` for a picture being painted: a recording one for a :class:`Sheet`."""
    return SheetDraw(image) if isinstance(image, Sheet) else Draw(image)


Box = tuple[int, int, int, int]
"""Left, top, right and bottom of a part of a picture."""


def replay(image: Image.Image, ops: list[Op],
           runs: list[tuple[int, int]] | None = None) -> list[Box]:
    """Draw ``ops`` on ``image``, in order, and say where they drew.

    ``runs``: the rows wanted (sorted spans, top and bottom); a paste is then drawn only over
    those rows, which gives them the same pixels (a paste puts each pixel on its own), while
    a shape is drawn whole."""
    draw = Draw(image)
    drawn: list[Box] = []
    for op in ops:
        if op.method == "paste":
            parts = _clipped(op, runs) if runs is not None else None
            if parts is None:
                image.paste(*op.args)
                drawn.append((op.left, op.top, op.right, op.bottom))
            else:
                for source, box, mask, (top, bottom) in parts:
                    image.paste(source, box, mask)
                    drawn.append((op.left, top, op.right, bottom))
        elif op.method == "text":
            draw.text(*op.args, **op.kwargs)
            drawn.append((op.left, op.top, op.right, op.bottom))
        else:
            getattr(draw, op.method)(*op.args, **op.kwargs)
            drawn.append((op.left, op.top, op.right, op.bottom))
    return drawn


_Part = tuple[Any, tuple[int, int], Image.Image | None, tuple[int, int]]
"""A piece of a paste: what is pasted, where, through what mask, and the rows it covers."""


def _clipped(op: Op, runs: list[tuple[int, int]]) -> list[_Part] | None:
    """A paste cut to the rows of ``runs`` it reaches (None: drawn whole)."""
    source, box, mask = op.args
    if len(box) != 2 or (mask is not None and not isinstance(mask, Image.Image)):
        return None
    picture = source if isinstance(source, Image.Image) else None
    if picture is None and mask is None:
        return None
    width = picture.width if picture is not None else mask.width if mask is not None else 0
    parts: list[_Part] = []
    x, y = box
    for top, bottom in runs:
        top, bottom = max(top, op.top), min(bottom, op.bottom)
        if top >= bottom:
            continue
        if top == op.top and bottom == op.bottom:
            return None  # the whole of it
        cut = (0, top - y, width, bottom - y)
        piece = picture.crop(cut) if picture is not None else source
        # a sprite is most often its own mask: one crop serves both
        through = piece if mask is picture else mask.crop(cut) if mask is not None else None
        parts.append((piece, (x, top), through, (top, bottom)))
    return parts


@dataclass(frozen=True, slots=True)
class _Frame:
    base: weakref.ref[Image.Image]
    palette: int
    drawing: array[int]
    """Each band's hash of the operations that reach it (:func:`_band_hashes`)."""
    bands: list[int]
    """Each band's content hash, the last part of its key in the band cache (the palette and
    the width are the frame's)."""


_KEPT: OrderedDict[Hashable, _Frame] = OrderedDict()


_SEEN: OrderedDict[int, int] = OrderedDict()
"""A band's drawing (its static layer, palette, place and drawing hash, in one 128-bit key)
-> the hash of the palette indices it gave, the last part of its key in the band cache."""
_SERIALS: dict[int, tuple[weakref.ref[Image.Image], int]] = {}
_SERIAL = iter(range(1, 1 << 62))


def _serial(base: Image.Image) -> int:
    """A number of a static layer's own, never given to another (an ``id`` may be)."""
    found = _SERIALS.get(id(base))
    if found is not None and found[0]() is base:
        return found[1]
    with _LOCK:
        for ident in [i for i, (ref, _) in _SERIALS.items() if ref() is None]:
            del _SERIALS[ident]
        serial = next(_SERIAL)
        _SERIALS[id(base)] = (weakref.ref(base), serial)
    return serial


_SEEN_KEY = struct.Struct("<QQqq")


def _seen_key(serial: int, palette: int, band: int, drawing: int) -> int:
    return xxhash.xxh3_128_intdigest(_SEEN_KEY.pack(serial, palette, band, drawing))


@dataclass
class Counts:
    """What :func:`drawn` did in this process (benchmarks and tests read it)."""

    pictures: int = 0
    followed: int = 0
    """Pictures drawn after a previous picture of their stream."""
    bands: int = 0
    seen: int = 0
    """Bands not the same as in the stream's previous picture but drawn so before, by an
    earlier picture: taken from the band cache too."""
    changed: int = 0
    """Bands drawn and encoded again (of ``bands``)."""
    ops: int = 0
    replayed: int = 0
    """Operations drawn (of ``ops`` recorded)."""
    parts: int = 0
    """Parts found drawn before with the same arguments (:func:`part`)."""


COUNTS = Counts()


def forget() -> None:
    """Drop every stream's previous picture and every part's drawings (tests)."""
    with _LOCK:
        _KEPT.clear()
        _PARTS.clear()
        _SEEN.clear()


class _Recording(threading.local):
    found: list[tuple[Image.Image, list[Op]]] | None = None


_RECORDING = _Recording()


@contextlib.contextmanager
def recording() -> Iterator[list[tuple[Image.Image, list[Op]]]]:
    """Meanwhile, each picture drawn on this thread (:func:`picture`) is also painted on a
    :class:`Sheet`, and its static layer and recorded operations are listed, in order (what
    :mod:`render.labels` reads). Outside it a picture costs nothing more."""
    before = _RECORDING.found
    found: list[tuple[Image.Image, list[Op]]] = []
    _RECORDING.found = found
    try:
        yield found
    finally:
        _RECORDING.found = before


def picture(stream: Hashable, base: Image.Image, design: pal.Palette,
            paint: Callable[[Image.Image], None]) -> bytes:
    """The PNG of ``base`` with what ``paint`` draws on it: drawn by its changes after the
    stream's previous picture (:func:`drawn`), or drawn whole on a copy when ``stream`` is
    None (no stream to follow)."""
    if _RECORDING.found is not None:
        sheet = Sheet(base)
        paint(sheet)
        _RECORDING.found.append((base, sheet.ops))
    if stream is None:
        image = base.copy()
        paint(image)
        return pal.encode(design, image)
    return drawn(stream, base, design, paint)


def drawn(stream: Hashable, base: Image.Image, design: pal.Palette,
          paint: Callable[[Image.Image], None], bands: pal.Bands = pal.BANDS) -> bytes:
    """The PNG of ``base`` with what ``paint`` draws on it: only the bands that differ from
    the stream's previous picture drawn and encoded (see the module's docstring)."""
    sheet = Sheet(base)
    paint(sheet)
    ops = sheet.ops
    count = -(-base.height // pal.BAND)
    drawing = _band_hashes(ops, count)
    with _LOCK:
        before = _KEPT.get(stream)
    known: list[tuple[pal.BandKey, pal.Band] | None] = [None] * count
    follows = (before is not None and before.base() is base
               and before.palette == design.ident and len(before.bands) == count)
    if follows:
        assert before is not None
        ident, width = design.ident, base.width
        same: list[pal.BandKey | None] = [
            None if a != b else (ident, width, band)
            for a, b, band in zip(before.drawing, drawing, before.bands, strict=True)]
        known = [None if key is None or band is None else (key, band)
                 for key, band in zip(same, bands.get_all(same), strict=True)]
    serial = _serial(base)
    seen = [0] * count  # the changed bands' keys in _SEEN
    found = 0
    for n in range(count):
        if known[n] is None:
            seen[n] = key = _seen_key(serial, design.ident, n, drawing[n])
            content = _SEEN.get(key)
            if content is not None:
                band_key = (design.ident, base.width, content)
                band = bands.get(band_key)
                if band is not None:
                    known[n] = (band_key, band)
                    found += 1
                    with contextlib.suppress(KeyError):  # forgotten by another thread
                        _SEEN.move_to_end(key)
    dirty = bytearray(band is None for band in known)  # a band that left the cache too
    reach = _prefix(dirty)
    wanted = [op for op in ops if reach[-(-op.bottom // pal.BAND)] > reach[op.top // pal.BAND]]
    image = _scratch(base)
    try:
        drawn_boxes = replay(image, wanted, _spans(dirty))
        png, keys = pal.encode_known(design, image, known, bands,
                                     _indices(image, base, design, wanted))
        _clean(image, base, drawn_boxes)
    except BaseException:
        _SCRATCH.pictures.pop(id(base), None)  # half drawn: made again from the base
        raise
    COUNTS.pictures += 1
    COUNTS.followed += follows
    COUNTS.bands += count
    COUNTS.changed += reach[-1]
    COUNTS.seen += found
    COUNTS.ops += len(ops)
    COUNTS.replayed += len(wanted)
    with _LOCK:
        _KEPT[stream] = _Frame(weakref.ref(base), design.ident, array("q", drawing),
                               [key[2] for key in keys])
        for n in range(count):
            if dirty[n]:
                _SEEN[seen[n]] = keys[n][2]
        while len(_SEEN) > SEEN_KEPT:
            _SEEN.popitem(last=False)
        _KEPT.move_to_end(stream)
        while len(_KEPT) > FRAMES_KEPT:
            _KEPT.popitem(last=False)
    return png


class _Scratch(threading.local):
    """Each thread's copies of the static layers it draws on, kept between pictures (a copy
    of a whole board costs more than putting back the rows a move drew on)."""

    def __init__(self) -> None:
        self.pictures: dict[int, tuple[weakref.ref[Image.Image], Image.Image]] = {}


_SCRATCH = _Scratch()


def _scratch(base: Image.Image) -> Image.Image:
    """This thread's copy of ``base``, as ``base`` is."""
    found = _SCRATCH.pictures.get(id(base))
    if found is not None and found[0]() is base:
        return found[1]
    image = base.copy()
    _SCRATCH.pictures[id(base)] = (weakref.ref(base), image)
    return image


def _spans(dirty: bytearray) -> list[tuple[int, int]]:
    """The rows of the changed bands, as sorted spans."""
    spans = []
    n = 0
    while n < len(dirty):
        if not dirty[n]:
            n += 1
            continue
        end = n
        while end < len(dirty) and dirty[end]:
            end += 1
        spans.append((n * pal.BAND, end * pal.BAND))
        n = end
    return spans


def _clean(image: Image.Image, base: Image.Image, drawn: list[Box]) -> None:
    """Put back ``base`` where ``drawn`` (boxes) drew on ``image``: boxes whose rows meet are
    put back as one, from the leftmost to the rightmost column of them (a few large pastes
    cost less than many small ones)."""
    spans: list[list[int]] = []
    for left, top, right, bottom in sorted(drawn, key=lambda box: box[1]):
        if spans and top <= spans[-1][3]:
            last = spans[-1]
            last[0], last[2], last[3] = min(last[0], left), max(last[2], right), \
                max(last[3], bottom)
        else:
            spans.append([left, top, right, bottom])
    if sum((r - left) * (b - t) for left, t, r, b in spans) > image.width * image.height // 2:
        image.paste(base)
        return
    for left, top, right, bottom in spans:
        image.paste(base.crop((left, top, right, bottom)), (left, top))


_INDEXED: dict[tuple[int, int], tuple[weakref.ref[Image.Image], Image.Image]] = {}
"""Each static layer mapped to each palette it is drawn with, made once."""


def _indexed(base: Image.Image, design: pal.Palette) -> Image.Image:
    """``base`` mapped to ``design``'s palette, as scanlines: a first column of zeros (each
    row's filter byte, :func:`render.palette.scanlines`), then the row's indices."""
    found = _INDEXED.get((id(base), design.ident))
    if found is not None and found[0]() is base:
        return found[1]
    indexed = Image.new("P", (base.width + 1, base.height), 0)
    indexed.paste(design.quantize(base), (1, 0))
    with _LOCK:
        for key in [k for k, (ref, _) in _INDEXED.items() if ref() is None]:
            del _INDEXED[key]
        _INDEXED[(id(base), design.ident)] = (weakref.ref(base), indexed)
    return indexed


def _indices(image: Image.Image, base: Image.Image, design: pal.Palette,
             ops: list[Op]) -> Callable[[int, int], bytes]:
    """How the encoder gets the scanlines of rows of ``image`` (``base`` with ``ops`` drawn on
    it): the static layer's own, with only the columns that the operations reaching those
    rows may have drawn on mapped again (mapping is pixel by pixel, so a pixel left as in the
    static layer has the static layer's index)."""
    indexed = _indexed(base, design)

    def indices(top: int, bottom: int) -> bytes:
        out = indexed.crop((0, top, indexed.width, bottom))
        for left, upper, right, lower in _reached(ops, top, bottom):
            part = design.quantize(image.crop((left, upper, right, lower)))
            out.paste(part, (left + 1, upper - top))
        return out.tobytes()

    return indices


def _reached(ops: list[Op], top: int, bottom: int) -> list[Box]:
    """The parts of rows ``top``..``bottom`` (whole bands) that ``ops`` may have drawn on:
    band by band, from the leftmost to the rightmost column any of them reaches there,
    consecutive bands with the same columns as one part."""
    first, count = top // pal.BAND, -(-(bottom - top) // pal.BAND)
    lefts, rights = [1 << 30] * count, [-1] * count
    for op in ops:
        for n in range(max(op.top // pal.BAND - first, 0),
                       min(-(-op.bottom // pal.BAND) - first, count)):
            if op.left < lefts[n]:
                lefts[n] = op.left
            if op.right > rights[n]:
                rights[n] = op.right
    parts: list[list[int]] = []
    for n in range(count):
        if rights[n] < 0:
            continue
        left, right = lefts[n], rights[n]
        start, end = top + n * pal.BAND, min(top + (n + 1) * pal.BAND, bottom)
        if parts and parts[-1][3] == start:
            last = parts[-1]
            wide = max(last[2], right) - min(last[0], left)
            added = wide * (end - last[1]) - (last[2] - last[0]) * (last[3] - last[1]) \
                - (right - left) * (end - start)
            if added <= PART_PIXELS:
                last[0], last[2], last[3] = min(last[0], left), max(last[2], right), end
                continue
        parts.append([left, start, right, end])
    return [(p[0], p[1], p[2], p[3]) for p in parts]


def _prefix(dirty: bytearray) -> list[int]:
    """Changed bands before each band index (one more entry than bands)."""
    out = [0]
    for flag in dirty:
        out.append(out[-1] + flag)
    return out


KEY_NUMBERS = 1 << 15
"""Operations' keys given a number (see :func:`_number`) that a process remembers, the
latest used (a few hundred bytes each)."""
_NUMBERS: OrderedDict[Hashable, int] = OrderedDict()
_NEXT = iter(range(1, 1 << 62))


def _number(key: Hashable) -> int:
    """An operation's key as a number of its own: equal keys get the same number, and a
    number is never given to another key (one that was forgotten gets a new number, so that
    what it draws is only drawn again). Python's own hash would not do: it maps -1 and -2 to
    the same value, so a paste one row up would look the same."""
    number = _NUMBERS.get(key)
    if number is None:
        with _LOCK:
            number = _NUMBERS[key] = next(_NEXT)
            if len(_NUMBERS) > KEY_NUMBERS:
                _NUMBERS.popitem(last=False)
    else:
        with contextlib.suppress(KeyError):  # another thread forgot it just now
            _NUMBERS.move_to_end(key)
    return number


def _band_hashes(ops: list[Op], count: int) -> list[int]:
    """For each band, a hash of the numbers of the operations that reach it, in their order
    (64 bits: two different drawings of a band share one about once in 10^19 comparisons)."""
    hashes = [0] * count
    for op in ops:
        number = op.number
        if not number:
            number = op.number = _number(op.key)
        for n in range(op.top // pal.BAND, -(-op.bottom // pal.BAND)):
            hashes[n] = hash((hashes[n], number))
    return hashes
