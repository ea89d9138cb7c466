"""Parts of a board: the map alone, and a focus on the places a decision is about.

A phone shows a picture at the message's full width, some 340 px across. A whole board's
labels come out 3 px tall there; the places one decision is about, cut out of the board, come
out large enough to read (:data:`FOCUS_WIDTH`). And what text says better (the players'
holdings, the key, the status line) can leave the picture for the message's text: the map
alone is the board's top, down to where that text began.

Both are the board as it is drawn, cut: the map is drawn on its own static layer, the top of
the board's (so :mod:`render.frames` draws it by its changes, as it draws the board); a focus
is a part of the whole picture.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable

from PIL import Image

from render.common import INK, PAPER, drawn_labels, font, note_labels, traced

Box = tuple[int, int, int, int]

FOCUS_WIDTH = 504
"""A focus picture's width: the board's labels (12 px) are 7 px tall on a phone showing it
302 px across (a 390-point phone shows a message's attachment that wide)."""
FOCUS_HEIGHT = 378
"""A focus picture's height (4:3: it and the buttons fit one phone screen)."""
FOCUS_MARGIN = 70
"""Room kept around the places focused on (their labels and pieces)."""

_TOPS: dict[tuple[int, int], tuple[weakref.ref[Image.Image], Image.Image]] = {}


def top_of(base: Image.Image, height: int) -> Image.Image:
    """The top ``height`` rows of a static layer, made once for it, with its labels there."""
    found = _TOPS.get((id(base), height))
    if found is not None and found[0]() is base:
        return found[1]
    top = base.crop((0, 0, base.width, height))
    top.info.clear()
    note_labels(top, (d for d in drawn_labels(base) if d.box[1] < height))
    for key in [k for k, (ref, _) in _TOPS.items() if ref() is None]:
        del _TOPS[key]
    _TOPS[(id(base), height)] = (weakref.ref(base), top)
    return top


def focus_box(points: Iterable[tuple[float, float]], size: tuple[int, int],
              width: int = FOCUS_WIDTH, height: int = FOCUS_HEIGHT) -> Box:
    """The part of a picture of ``size`` around ``points``: ``width`` x ``height`` (4:3) at
    least, wider (and as much taller) when the points with their margins need it, inside the
    picture as far as it can be."""
    found = list(points)
    if not found:
        return (0, 0, size[0], size[1])
    left = min(x for x, _ in found) - FOCUS_MARGIN
    right = max(x for x, _ in found) + FOCUS_MARGIN
    top = min(y for _, y in found) - FOCUS_MARGIN
    bottom = max(y for _, y in found) + FOCUS_MARGIN
    scale = max(1.0, (right - left) / width, (bottom - top) / height)
    w, h = min(size[0], round(width * scale)), min(size[1], round(height * scale))
    cx, cy = (left + right) / 2, (top + bottom) / 2
    x0 = max(0, min(size[0] - w, round(cx - w / 2)))
    y0 = max(0, min(size[1] - h, round(cy - h / 2)))
    return (x0, y0, x0 + w, y0 + h)


COLUMN_BAND = 28
"""A framed focus's band of column names, above the part of the board."""
ROW_BAND = 34
"""A framed focus's band of row names, left of the part of the board."""


def framed(part: Image.Image, columns: list[tuple[float, str]],
           rows: list[tuple[float, str]]) -> Image.Image:
    """``part`` of a board of spaces in rows and columns, with the names of its columns
    (``x`` in the part, name) in a band above it and of its rows at its left: a part cut
    from the middle of the board would name none of its spaces."""
    out = Image.new("RGB", (part.width + ROW_BAND, part.height + COLUMN_BAND), PAPER)
    out.paste(part, (ROW_BAND, COLUMN_BAND))
    draw = traced(out, "space")
    face = font(16, True)
    for x, name in columns:
        draw.text((ROW_BAND + x, COLUMN_BAND / 2), name, font=face, fill=INK, anchor="mm")
    for y, name in rows:
        draw.text((ROW_BAND / 2, COLUMN_BAND + y), name, font=face, fill=INK, anchor="mm")
    return out


# --- places spread over the board: one tile each ------------------------------------------------

Part = tuple[Box, tuple[int, int]]
"""A part of the board (its box) and where the focus picture shows it (the top left)."""

MOST_TILES = 4
"""At most this many places spread over the board are shown each on a tile of their own."""
TILE_GAP = 6
"""Paper between two tiles."""


def tile_size(count: int) -> tuple[int, int]:
    """A tile's size when ``count`` tiles share a focus picture: two side by side, three or
    four two by two."""
    across = (FOCUS_WIDTH - TILE_GAP) // 2
    return (across, FOCUS_HEIGHT) if count <= 2 else (across, (FOCUS_HEIGHT - TILE_GAP) // 2)


def fits(points: list[tuple[float, float]], size: tuple[int, int]) -> bool:
    """Whether ``points`` with their margins fit one focus picture at the board's own scale."""
    box = focus_box(points, size)
    return (box[2] - box[0], box[3] - box[1]) == (min(size[0], FOCUS_WIDTH),
                                                  min(size[1], FOCUS_HEIGHT))


def tiles(points: list[tuple[float, float]], size: tuple[int, int],
          band: tuple[int, int] = (0, 0)) -> list[Part] | None:
    """The parts of a board of ``size`` a focus shows for places at ``points`` (one point a
    place) spread wider than one focus: one tile each, centred on it, at the board's own
    scale, so that its labels read as on a focus (``band``: room a tile keeps at its left and
    top for the names of its rows and columns). None: the points fit one focus, or are more
    than :data:`MOST_TILES`, or fewer than two."""
    if not 2 <= len(points) <= MOST_TILES or fits(points, size):
        return None
    width, height = tile_size(len(points))
    inner = (width - band[0], height - band[1])
    out: list[Part] = []
    for number, (x, y) in enumerate(points):
        x0 = max(0, min(size[0] - inner[0], round(x - inner[0] / 2)))
        y0 = max(0, min(size[1] - inner[1], round(y - inner[1] / 2)))
        at = ((number % 2) * (width + TILE_GAP) + band[0],
              (number // 2) * (height + TILE_GAP) + band[1])
        out.append(((x0, y0, x0 + inner[0], y0 + inner[1]), at))
    return out


def tiled(image: Image.Image, parts: list[Part]) -> Image.Image:
    """The focus picture of ``parts`` of ``image``: each pasted where it goes, on paper."""
    out = Image.new("RGB", (FOCUS_WIDTH, FOCUS_HEIGHT), PAPER)
    for box, at in parts:
        out.paste(image.crop(box), at)
    return out
