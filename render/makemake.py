"""The Make Make board image (rules spec 4.6 and 7): a view -> PNG bytes.

The island, its grid, labels, sacred marks and empty sites never change, so they are drawn once
(supersampled for smooth edges) and cached; a render starts from that picture and adds only the
territories' tints, the pieces, the headline and the legend values. Pieces are small cached
sprites, and so are the rings that mark what changed since the table's previous state
(``highlight``). A tint lies under the grid and the labels: each territory's tinted look, grid
and labels on it, is made once and pasted through the tint's edge (``_territory_patch``), so a
board is a list of pastes, and :mod:`render.frames` draws again only the rows a move changed.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from PIL import Image, ImageDraw

from render import frames
from render.common import (
    BLACK,
    CHANGED,
    HIGHLIGHT,
    INK,
    PAPER,
    RGB,
    SEAT_NAMES,
    Drawn,
    carry_labels,
    changed_box,
    changed_hex,
    drawn_labels,
    fit_text,
    font,
    key_line,
    known,
    legend_row,
    marked,
    note_labels,
    pairs,
    paste_centred,
    seat_colour,
    seat_colours,
    seat_mark,
    seat_names,
    seat_row_head,
    shrink,
    sprite,
    status_line,
    text_lang,
    text_length,
    traced,
)
from render.focus import Part, focus_box, tiled, tiles, top_of
from render.frames import draw_on
from render.i18n import t
from render.palette import Design, Palette, blend, build, encode
from rules.data import load

S = 80
"""Hex radius in pixels (spec 4.6 uses 72; a little larger reads better on a phone)."""
M = 40
ROOT3 = math.sqrt(3)
WIDTH = round(9 * ROOT3 * S + 2 * M)
BOARD_HEIGHT = 8 * S + 2 * M
SUPER = 2
"""The static board is drawn this many times larger, then shrunk, to smooth its edges."""

SEA: RGB = (36, 74, 104)
LAND: RGB = (214, 216, 196)
STONE: RGB = (168, 164, 152)
CENTRE_FILL: RGB = (96, 70, 58)
GOLD: RGB = (180, 118, 8)
GRID: RGB = (48, 44, 40)
WHITE: RGB = (255, 255, 255)
MUTED: RGB = (96, 96, 104)
MOAI_STONE: RGB = (70, 64, 60)
MOAI_LINE: RGB = (40, 36, 34)
FACE: RGB = (236, 196, 120)
FACE_INK: RGB = (40, 24, 16)
FADED_INK: RGB = (60, 40, 30)
"""The Make Make figure: its face and ink, and the ink once it is taken (drawn faint)."""
ROW_TINT: RGB = (238, 234, 224)
ACTIVE_ROW: RGB = (255, 236, 170)

_FILLS = [seat_colour(c).fill for c in SEAT_NAMES]
_TINTS = [seat_colour(c).tint for c in SEAT_NAMES]
FADED_FACE = blend(CENTRE_FILL, FACE, 90 / 255)
FADED_LINE = blend(CENTRE_FILL, FADED_INK, 90 / 255)
"""The taken Make Make figure as it shows on the centre: its face and ink at 90/255."""
GROUNDS = (SEA, LAND, STONE, CENTRE_FILL, PAPER, ROW_TINT, ACTIVE_ROW, *_TINTS)
"""What text, lines and pieces are drawn over."""
DESIGN = Design(
    colours=(INK, PAPER, WHITE, HIGHLIGHT, CHANGED, SEA, LAND, STONE, CENTRE_FILL, GOLD, GRID,
             MUTED, ROW_TINT, ACTIVE_ROW, MOAI_STONE, MOAI_LINE, FACE, FACE_INK, FADED_FACE,
             FADED_LINE, *seat_colours()),
    ramps=(pairs((WHITE,), (SEA, CENTRE_FILL), 16) + pairs((INK,), (PAPER, LAND, ROW_TINT), 16)
           + pairs((INK,), (BLACK, WHITE, ACTIVE_ROW), 8) + pairs((MUTED,), (PAPER,), 8)
           + pairs((INK, WHITE), _FILLS, 8) + pairs((GRID, GOLD, HIGHLIGHT), GROUNDS, 8)
           + pairs((INK,), GROUNDS) + pairs((CHANGED,), (INK, WHITE), 8)
           + pairs((WHITE, HIGHLIGHT), (INK, *_FILLS))
           + pairs((MOAI_STONE, FACE_INK), (STONE, FACE, SEA, PAPER))
           + pairs((FADED_LINE,), (FADED_FACE, CENTRE_FILL)) + pairs((FACE,), (CENTRE_FILL,))))
"""The Make Make board's colours (see ``render.palette``)."""


@cache
def palette() -> Palette:
    """The Make Make board's palette, built once per process."""
    return build(DESIGN)


STATUS_Y = BOARD_HEIGHT + 30
TABLE_Y = BOARD_HEIGHT + 72
ROW_H = 48
KEY_GAP = 34
KEY_LINE = 44
"""From one line of the symbol key to the next: the pieces, then the marks on the board."""
COLUMNS = {"progress": 350, "tokens": 490, "chief": 620, "manu": 790, "sacred": 930,
           "makemake": 1040, "badge": 1180}
"""Left edge of each legend column; the seat's name sits left of them all."""

_BOARD = load("makemake_board.json")
HEX_XY: dict[str, tuple[float, float]] = {h["id"]: tuple(h["xy"]) for h in _BOARD["hexes"]}
SITE_XY: dict[str, tuple[float, float]] = {s["id"]: tuple(s["xy"]) for s in _BOARD["sites"]}
SACRED = frozenset(_BOARD["sacred"])
CENTRE = _BOARD["centre"]


def point(xy: tuple[float, float], scale: int = 1) -> tuple[float, float]:
    """Board units -> pixels (spec 4.6), optionally on a ``scale`` times larger picture."""
    x, y = xy
    return (M + S * (x + 2.5 * ROOT3)) * scale, (M + S * (y + 1)) * scale


def corners(centre: tuple[float, float], radius: float) -> list[tuple[float, float]]:
    """The six corners of a pointy-top hex, clockwise from the top."""
    cx, cy = centre
    return [(cx + radius * math.cos(math.radians(-90 + 60 * k)),
             cy + radius * math.sin(math.radians(-90 + 60 * k))) for k in range(6)]


def canvas_height(seats: int) -> int:
    return TABLE_Y + 40 + seats * ROW_H + KEY_GAP + KEY_LINE + 44


# --- sprites: small antialiased pictures, cached by what they show -----------------------------

@cache
def hex_tile(fill: RGB) -> Image.Image:
    """A hex filled with ``fill``: a held territory's tint or a Moai's stone."""
    w, h = math.ceil(ROOT3 * S) + 2, 2 * S + 2

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.polygon(corners((w * k / 2, h * k / 2), S * k), fill=fill)
    return sprite(w, h, paint)


@cache
def hex_ring(colour: RGB, radius: int, width: int) -> Image.Image:
    """A hex outline: the sacred mark and the highlight of an offered territory."""
    size = 2 * radius + 2 * width

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.polygon(corners((size * k / 2, size * k / 2), radius * k), outline=colour,
                     width=width * k)
    return sprite(size, size, paint)


LABEL_SIZE = 38
"""The hexes' labels' size: 28 px capitals, 7 px on a phone showing the island 340 px
across (see :mod:`render.labels`)."""
LABEL_DY = 36
"""How far above a hex's centre its label's middle lies (clear of the sacred ring)."""
NUMBER_SIZE = 38
"""The size of the numbers on the pieces and sites: as tall as the hexes' labels."""
DISC = 58
"""A stack's width, enough for two digits."""
MARK = 14
"""The side of a seat's mark on its pieces (render.common.seat_mark): its least tall shape
(a square, 0.85 of it) 11.9 px tall, 7 px on a phone showing a focus (render.focus)."""
STACK_H = 62
"""A stack's height: a disc drawn out below its number, for the seat's mark."""
DISC_DY = 32
"""How far below a hex's centre its stack's middle lies: its foot clear of the site's
label below (which its pill's rim leaves room for)."""
CHIEF_W = 30
CHIEF_DY = -5
"""A territory's pieces stand in the column below its label, between the sites on its
corners: the chief's crown (its middle this far below the hex's centre) over the stack."""
CHIEF_UP = round(DISC_DY - STACK_H / 2 - CHIEF_DY + 40 * CHIEF_W / 44 / 2)
"""How far a chief's crown rises over its stack's top: the stack is drawn over the crown's
foot, as one piece with one mark."""


def site_label(site: str) -> str:
    """A site's short label: its number (``S07``: 7), which the key and the text explain;
    the full name does not fit between the hexes at a readable size."""
    return str(int(site[1:])) if site[1:].isdigit() else site


@cache
def token_disc(colour: str, count: int, crowned: bool = False) -> Image.Image:
    """A seat's stack: a disc drawn out tall in its colour, the number of tokens, the seat's
    mark below it; ``crowned``: with the chief's crown rising behind its top (one piece, one
    mark: a mark of its own would not fit the crown at a size a phone shows)."""
    pal = seat_colour(colour)
    top = CHIEF_UP if crowned else 0

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        if crowned:
            _crown(draw, (DISC - CHIEF_W) / 2 * k, 0, CHIEF_W / 44 * k, pal.fill, 2 * k)
        draw.rounded_rectangle((k, (top + 1) * k, (DISC - 1) * k, (top + STACK_H - 1) * k),
                               radius=(DISC / 2 - 1) * k, fill=pal.fill, outline=INK,
                               width=2 * k)
        draw.text((DISC / 2 * k, (top + DISC / 2 - 4) * k), str(count),
                  font=font(NUMBER_SIZE * k, True), fill=pal.ink, anchor="mm")
        seat_mark(draw, (DISC / 2 * k, (top + STACK_H - 7 - MARK / 2) * k), MARK * k,
                  colour)  # below the number
    return marked(sprite(DISC, top + STACK_H, paint), colour)


def _crown(draw: ImageDraw.ImageDraw, x: float, y: float, f: float, fill: RGB,
           line: int) -> None:
    """The chief's crown, 44 x 40 units of ``f`` pixels, its top left at (x, y), its rim
    ``line`` wide."""
    shape = [(4, 34), (4, 10), (14, 20), (22, 4), (30, 20), (40, 10), (40, 34)]
    draw.polygon([(x + px * f, y + py * f) for px, py in shape], fill=fill, outline=INK,
                 width=line)
    for px, py in ((4, 8), (22, 4), (40, 8)):
        draw.ellipse((x + (px - 3) * f, y + (py - 3) * f, x + (px + 3) * f, y + (py + 3) * f),
                     fill=INK)


@cache
def chief(colour: str, width: int = 44) -> Image.Image:
    """The chief alone (the key's): a crown in the seat's colour, ``width`` pixels wide;
    on the board it stands behind its stack (:func:`token_disc`)."""
    pal = seat_colour(colour)
    f = width / 44

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        _crown(draw, 0, 0, f * k, pal.fill, 2 * k)
        seat_mark(draw, (22 * f * k, 27 * f * k), 11 * f * k, colour)
    return marked(sprite(width, round(40 * f), paint), colour)


@cache
def moai(height: int) -> Image.Image:
    """A moai: long head, heavy brow, long nose and chin, on a small ahu."""
    outline = [(10, 6), (28, 2), (34, 8), (34, 60), (30, 70), (8, 70), (8, 50), (2, 44), (8, 38),
               (4, 30), (10, 24), (6, 16)]

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        f = height * k / 84
        draw.polygon([(x * f + 4 * f, y * f) for x, y in outline], fill=MOAI_STONE)
        draw.rectangle((0, 72 * f, 44 * f, 82 * f), fill=MOAI_STONE)
        draw.line([(12 * f, 20 * f), (30 * f, 20 * f)], fill=MOAI_LINE, width=round(3 * f))
        draw.line([(14 * f, 54 * f), (28 * f, 54 * f)], fill=MOAI_LINE, width=round(2 * f))
    return sprite(round(height * 44 / 84), height, paint)


@cache
def makemake_figure(size: int, faded: bool = False) -> Image.Image:
    """The Make Make figure: the petroglyph face with large round eyes."""
    ink = (*FADED_INK, 90) if faded else (*FACE_INK, 255)
    face = (*FACE, 90) if faded else (*FACE, 255)

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        f = size * k / 64
        draw.ellipse((6 * f, 2 * f, 58 * f, 62 * f), fill=face, outline=ink, width=round(3 * f))
        for ex in (20, 44):
            draw.ellipse(((ex - 9) * f, 14 * f, (ex + 9) * f, 32 * f), outline=ink,
                         width=round(3 * f))
            draw.ellipse(((ex - 3) * f, 20 * f, (ex + 3) * f, 26 * f), fill=ink)
        draw.line([(32 * f, 28 * f), (32 * f, 42 * f)], fill=ink, width=round(3 * f))
        draw.ellipse((22 * f, 44 * f, 42 * f, 54 * f), outline=ink, width=round(3 * f))
    return sprite(size, size, paint)


@cache
def site_pill(label: str, colour: str | None, offered: bool = False) -> Image.Image:
    """A site's label in a pill: white while empty, else the Tangata Manu's colour in a halo,
    its seat's mark on a badge hanging off the pill's middle. The label stays where the
    empty pill of the static layer has it (the same box: drawn again, not covered); the
    badge hangs between the two hexes on one side of the site, clear of their labels and
    stacks: above it when the site is a hex's top corner (that hex's label lies below), else
    below (off the pill's end it would reach a hex's label beside it)."""
    w, h = SITE_W, SITE_H
    rim = 4 if offered else 3 if colour else 0
    halo = HIGHLIGHT if offered else WHITE
    down = BADGE - 3 - rim if colour else 0  # the badge's overhang, above too: centred

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        fill, ink = (WHITE, INK) if colour is None else (seat_colour(colour).fill,
                                                         seat_colour(colour).ink)
        if rim:
            draw.rounded_rectangle((0, down * k, (w + 2 * rim) * k, (down + h + 2 * rim) * k),
                                   radius=(h / 2 + rim) * k, fill=halo)
        top = down + rim
        box = (rim * k, top * k, (rim + w) * k, (top + h) * k)
        draw.rounded_rectangle(box, radius=h / 2 * k, fill=fill, outline=INK, width=2 * k)
        draw.text(((rim + w / 2) * k, (top + h / 2 + 0.5) * k), site_label(label),
                  font=font(NUMBER_SIZE * k, True), fill=ink, anchor="mm")
        if colour is not None:
            cx = rim + w / 2
            cy = top + 3 - BADGE / 2 if _tops_a_hex(label) else top + h - 3 + BADGE / 2
            draw.ellipse(((cx - BADGE / 2) * k, (cy - BADGE / 2) * k, (cx + BADGE / 2) * k,
                          (cy + BADGE / 2) * k), fill=seat_colour(colour).fill, outline=INK,
                         width=2 * k)
            seat_mark(draw, (cx * k, cy * k), MARK * k, colour)
    picture = sprite(w + 2 * rim, h + 2 * rim + 2 * down, paint, kind="space")
    return marked(picture, colour) if colour is not None else picture


def _tops_a_hex(site: str) -> bool:
    """Whether ``site`` is a territory's top corner (the corner one board unit above its
    centre)."""
    x, y = SITE_XY.get(site, (0.0, 0.0))
    return any(abs(hx - x) < 0.01 and abs(hy - 1 - y) < 0.01 for hx, hy in HEX_XY.values())


BADGE = MARK + 10
"""Diameter of the badge that carries a Tangata Manu's seat mark (the seat's fill round
it)."""


# --- the static layers -------------------------------------------------------------------------

@dataclass(frozen=True)
class Layers:
    """What every render of one language and seat count starts from."""

    base: Image.Image
    """Sea, bare land and the centre, the grid, labels, sacred marks and empty sites over them,
    and the legend's fixed text."""


@cache
def static_layers(lang: str, seats: int) -> Layers:
    """The cached static picture for a language and a number of seats."""
    base = Image.new("RGB", (WIDTH, canvas_height(seats)), PAPER)
    base.paste(_island(), (0, 0))
    overlay = _overlay()
    base.paste(overlay, (0, 0), overlay)
    carry_labels(base, overlay, (0, 0))
    _draw_legend_frame(base, lang, seats)
    return Layers(base)


@cache
def _island() -> Image.Image:
    """Sea, bare territories and the centre, supersampled."""
    big = Image.new("RGB", (WIDTH * SUPER, BOARD_HEIGHT * SUPER), SEA)
    draw = ImageDraw.Draw(big)
    for hex_id, xy in HEX_XY.items():
        fill = CENTRE_FILL if hex_id == CENTRE else LAND
        draw.polygon(corners(point(xy, SUPER), S * SUPER), fill=fill)
    return big.resize((WIDTH, BOARD_HEIGHT), Image.Resampling.LANCZOS)


@cache
def _overlay() -> Image.Image:
    """Grid lines, sacred rings, hex labels and empty site pills on a transparent board."""
    big = Image.new("RGBA", (WIDTH * SUPER, BOARD_HEIGHT * SUPER), (0, 0, 0, 0))
    draw = traced(big, "hex")
    label_font = font(LABEL_SIZE * SUPER, True)
    for hex_id, xy in HEX_XY.items():
        cx, cy = point(xy, SUPER)
        if hex_id in SACRED:
            draw.polygon(corners((cx, cy), (S - 9) * SUPER), outline=GOLD, width=5 * SUPER)
        draw.polygon(corners((cx, cy), S * SUPER), outline=GRID, width=2 * SUPER)
        ink = WHITE if hex_id == CENTRE else INK
        draw.text((cx, cy - LABEL_DY * SUPER), hex_id, font=label_font, fill=ink, anchor="mm")
    overlay = shrink(big, (WIDTH, BOARD_HEIGHT))
    for site, xy in SITE_XY.items():
        pill = site_pill(site, None)
        paste_centred(overlay, pill, point(xy))
        x, y = point(xy)
        carry_labels(overlay, pill, (round(x - pill.width / 2), round(y - pill.height / 2)))
    return overlay


def _draw_legend_frame(base: Image.Image, lang: str, seats: int) -> None:
    """Column titles, row stripes and the symbol key: everything in the legend but the values."""
    draw = ImageDraw.Draw(base)
    head = font(16, True, lang)
    legend_row(draw, TABLE_Y, [(x, t(f"render.makemake.col.{key}", lang))
                               for key, x in COLUMNS.items() if key != "badge"], head, MUTED)
    for i in range(seats):
        top = TABLE_Y + 20 + i * ROW_H
        if i % 2 == 0:
            draw.rectangle((16, top, WIDTH - 16, top + ROW_H), fill=ROW_TINT)
    _draw_key(base, draw, lang, TABLE_Y + 20 + seats * ROW_H + KEY_GAP)


def _draw_key(base: Image.Image, draw: ImageDraw.ImageDraw, lang: str, y: int) -> None:
    """The symbol key: what each kind of piece means, then the marks of the moment (what to
    choose, what changed)."""
    pieces: list[tuple[Image.Image, str]] = [
        (token_disc("grey", 2), "tokens"), (chief("grey"), "chief"), (moai(40), "moai"),
        (hex_ring(GOLD, 16, 4), "sacred"), (makemake_figure(36), "makemake"),
        (site_pill("S01", None), "site")]
    marks: list[tuple[Image.Image, str]] = [
        (hex_ring(HIGHLIGHT, 16, 4), "choice"), (changed_hex(19, 4, 2), "changed")]
    face = font(18, lang=lang)
    for n, icons in enumerate((pieces, marks)):
        key_line(base, draw, icons, "render.makemake.key.", lang, 24, y + n * KEY_LINE, face,
                 entry_gap=28)


# --- a render ----------------------------------------------------------------------------------

def canvas(view: dict[str, Any], lang: str = "en", names: dict[str, str] | None = None, *,
           highlight: frozenset[str] = frozenset()) -> Image.Image:
    """The finished board picture of a Make Make view (the view is only read).

    ``highlight``: hex and site labels that changed since the table's previous state; they get
    a bright ring on top of the pieces. Labels that are not on this board are ignored."""
    image = _base(view, lang).copy()
    _paint(image, view, lang, names, highlight)
    return image


def _base(view: dict[str, Any], lang: str) -> Image.Image:
    return static_layers(lang, len(view["seats"])).base


def _paint(image: Image.Image, view: dict[str, Any], lang: str, names: dict[str, str] | None,
           highlight: frozenset[str]) -> None:
    """Everything of the view on the board's static layer (``image`` starts as it)."""
    _draw_territories(image, view)
    _draw_pieces(image, view)
    _draw_offered_sites(image, view)
    _draw_changes(image, highlight)
    shown = seat_names(view["seats"], lang, names)
    draw = draw_on(image)
    holder = view["makemake"]
    frames.part(image, _draw_corners, view["round"], view["phase"], view["moai_left"],
                shown[holder] if holder else None, lang)
    status_line(draw, status_text(view, lang, shown), lang, STATUS_Y, WIDTH, INK)
    _draw_legend(image, view, lang, shown)


def board(view: dict[str, Any], lang: str = "en", names: dict[str, str] | None = None, *,
          highlight: frozenset[str] = frozenset(), frame: Hashable = None,
          legend: bool = True) -> bytes:
    """PNG bytes of the public board, with what changed (``highlight``) ringed; ``frame``
    names the stream of boards it follows (see :mod:`render.frames`). Without ``legend``,
    the island alone: the status line, the players' table and the key are left to the
    message's text."""
    base = _base(view, lang)
    if not legend:
        base = top_of(base, BOARD_HEIGHT)
    return frames.picture(frame, base, palette(),
                          lambda image: _paint(image, view, lang, names, highlight))


def focus(view: dict[str, Any], places: Iterable[str], lang: str = "en",
          names: dict[str, str] | None = None, *,
          highlight: frozenset[str] = frozenset()) -> bytes:
    """PNG bytes of the part of the board around ``places`` (labels of its territories and
    sites: what a decision is about), large enough to read on a phone; a few places far
    apart each on a tile of their own (see :mod:`render.focus`)."""
    image = canvas(view, lang, names, highlight=highlight)
    parts = focus_parts(view, places)
    if len(parts) == 1:
        return encode(palette(), image.crop(parts[0][0]))
    return encode(palette(), tiled(image, parts))


def _place_point(place: str) -> tuple[float, float]:
    return point(HEX_XY[place]) if place in HEX_XY else point(SITE_XY[place])


def focus_parts(view: dict[str, Any], places: Iterable[str]) -> list[Part]:
    """The parts of the board :func:`focus` shows for ``places`` and where: one part
    (:func:`place_box`), or a tile a place when they are a few spread far apart."""
    chosen = [p for p in places if p in HEX_XY or p in SITE_XY]
    spread = tiles([_place_point(p) for p in chosen], (WIDTH, BOARD_HEIGHT))
    return spread if spread is not None else [(place_box(view, chosen), (0, 0))]


def place_box(view: dict[str, Any], places: Iterable[str]) -> tuple[int, int, int, int]:
    """The part of the board :func:`focus` shows for ``places`` close together (territories
    and sites; others are ignored), whatever the view."""
    return focus_box([_place_point(p) for p in places if p in HEX_XY or p in SITE_XY],
                     (WIDTH, BOARD_HEIGHT))


def _cells(view: dict[str, Any]) -> Iterator[tuple[tuple[float, float], dict[str, Any]]]:
    """Each territory's pixel centre with its cell."""
    for hex_id, cell in view["board"].items():
        yield point(HEX_XY[hex_id]), cell


TERRITORY_PATCHES = 256
"""Territories' tinted looks kept (a few tens of KiB each; a board has 45 territories, each
seen in a few tints)."""


def _draw_territories(image: Image.Image, view: dict[str, Any]) -> None:
    """Each held territory's tint (a Moai's stone) and each offered territory's ring, under
    the grid and the labels."""
    offered = set(_offers(view, "moai"))
    for hex_id, cell in view["board"].items():
        fill = STONE if cell["moai"] else seat_colour(cell["owner"]).tint if cell["owner"] \
            else None
        if fill is not None or hex_id in offered:
            patch, mask, corner = _territory_patch(hex_id, fill, hex_id in offered)
            image.paste(patch, corner, mask)


@lru_cache(maxsize=TERRITORY_PATCHES)
def _territory_patch(hex_id: str, fill: RGB | None,
                     offered: bool) -> tuple[Image.Image, Image.Image, tuple[int, int]]:
    """A territory in its tint (``fill``; None: bare) and with the offered ring or not, as a
    picture, the mask to paste it through and where.

    The picture is the territory's look in full: its tint and ring with the grid, label,
    sacred mark and sites over them, as if the tint were wholly opaque; the mask is the tint's
    own coverage. Pasting the picture through the mask on the static layer gives every pixel
    what laying the tint under the grid there gives, edges included: laying the grid over a
    colour is linear in that colour, so the blend can come before the grid or after it. So
    neighbouring territories can be pasted one after the other, as the pieces are."""
    centre = point(HEX_XY[hex_id])
    sprites = ([hex_tile(fill)] if fill is not None else []) + (
        [hex_ring(HIGHLIGHT, S - 6, 6)] if offered else [])
    corners_at = [_corner_at(sprite_, centre) for sprite_ in sprites]
    left = min(x for x, _ in corners_at)
    top = min(y for _, y in corners_at)
    right = max(x + p.width for (x, _), p in zip(corners_at, sprites, strict=True))
    bottom = max(y + p.height for (_, y), p in zip(corners_at, sprites, strict=True))
    layer = Image.new("RGBA", (right - left, bottom - top), (0, 0, 0, 0))
    for (x, y), sprite_ in zip(corners_at, sprites, strict=True):
        layer.alpha_composite(sprite_, (x - left, y - top))
    patch = layer.convert("RGB")
    cover = _overlay().crop((left, top, right, bottom))
    patch.paste(cover, (0, 0), cover)
    note_labels(patch, (Drawn(d.text, d.kind, (d.box[0] - left, d.box[1] - top,
                                               d.box[2] - left, d.box[3] - top))
                        for d in drawn_labels(_overlay()) if left < d.box[2]
                        and d.box[0] < right and top < d.box[3] and d.box[1] < bottom))
    return patch, layer.getchannel("A"), (left, top)


def _corner_at(picture: Image.Image, centre: tuple[float, float]) -> tuple[int, int]:
    """Where ``paste_centred`` puts the top left corner of ``picture``."""
    return round(centre[0] - picture.width / 2), round(centre[1] - picture.height / 2)


def _draw_pieces(image: Image.Image, view: dict[str, Any]) -> None:
    """Stacks, chiefs, Moai, Tangata Manu and the Make Make figure."""
    for (cx, cy), cell in _cells(view):
        if cell["moai"]:
            paste_centred(image, moai(70), (cx, cy + 14))
        elif cell["owner"] and cell["chief"]:
            paste_centred(image, token_disc(cell["owner"], cell["tokens"], True),
                          (cx, cy + DISC_DY - CHIEF_UP / 2))
        elif cell["owner"]:
            paste_centred(image, token_disc(cell["owner"], cell["tokens"]), (cx, cy + DISC_DY))
    for site, colour in view["sites"].items():
        if colour:
            paste_centred(image, site_pill(site, colour), point(SITE_XY[site]))
    cx, cy = point(HEX_XY[CENTRE])
    paste_centred(image, makemake_figure(64, faded=view["makemake"] is not None), (cx, cy + 14))


def _offers(view: dict[str, Any], kind: str) -> list[str]:
    """The hexes (``moai``) or sites (``manu``) the acting player must choose from now."""
    choice = view.get("choice")
    return list(choice["from"]) if choice and choice["kind"] == kind else []


def _draw_offered_sites(image: Image.Image, view: dict[str, Any]) -> None:
    for site in _offers(view, "manu"):
        paste_centred(image, site_pill(site, view["sites"][site], True), point(SITE_XY[site]))


CHANGED_RING = S - 3
"""Outer radius of the ring round a changed territory: just inside the grid line."""
SITE_W, SITE_H = 66, 40
"""A site pill without its halo."""


@cache
def changed_territory(hex_id: str) -> Image.Image:
    """The ring round a changed territory, open where a site sits on one of its corners and
    where its label is: the ring lies over the pieces, but never over a label."""
    ring = changed_hex(CHANGED_RING, 6, 2).copy()
    draw = ImageDraw.Draw(ring)
    cx, cy = HEX_XY[hex_id]
    for x, y in SITE_XY.values():
        if math.dist((x, y), (cx, cy)) < 1.2:
            px, py = ring.width / 2 + (x - cx) * S, ring.height / 2 + (y - cy) * S
            draw.rounded_rectangle((px - SITE_W / 2 - 3, py - SITE_H / 2 - 3,
                                    px + SITE_W / 2 + 3, py + SITE_H / 2 + 3),
                                   radius=SITE_H / 2 + 3, fill=(0, 0, 0, 0))
    half = text_length(font(LABEL_SIZE, True), hex_id) / 2 + 4
    px, py = ring.width / 2, ring.height / 2 - LABEL_DY
    draw.rectangle((px - half, py - LABEL_SIZE / 2 - 2, px + half, py + LABEL_SIZE / 2 + 2),
                   fill=(0, 0, 0, 0))
    return ring


def _draw_changes(image: Image.Image, highlight: frozenset[str]) -> None:
    """Rings round the changed territories (over their pieces) and the changed sites."""
    for hex_id in known(highlight, HEX_XY):
        paste_centred(image, changed_territory(hex_id), point(HEX_XY[hex_id]))
    for site in known(highlight, SITE_XY):
        paste_centred(image, changed_box(SITE_W + 4, SITE_H + 4, SITE_H // 2 + 2, 4, 1),
                      point(SITE_XY[site]))


def _draw_corners(image: Image.Image, round_: int, phase: str, moai_left: int,
                  holder: str | None, lang: str) -> None:
    """Round and phase top left; Moai supply and Make Make's holder (its name) top right (on
    the sea)."""
    draw = draw_on(image)
    draw.text((24, 22), t("render.round", lang, round=round_),
              font=font(30, True, lang), fill=WHITE, anchor="lt")
    draw.text((24, 64), t(f"render.makemake.phase.{phase}", lang),
              font=font(22, lang=lang), fill=WHITE, anchor="lt")
    right = WIDTH - 24
    draw.ellipse((right - 52, 16, right + 12, 80), fill=STONE)
    paste_centred(image, moai(52), (right - 20, 48))
    draw.text((right - 62, 40), t("render.makemake.moai_supply", lang),
              font=font(18, lang=lang), fill=WHITE, anchor="rm")
    draw.text((right - 62, 66), str(moai_left), font=font(26, True), fill=WHITE,
              anchor="rm")
    text = (t("render.makemake.holder", lang, name=holder) if holder is not None
            else t("render.makemake.on_centre", lang))
    face = font(18, lang=text_lang(text, lang))
    draw.text((right, 110), fit_text(text, face, 280), font=face, fill=WHITE, anchor="rm")


def status_text(view: dict[str, Any], lang: str, shown: dict[str, str]) -> str:
    """The status line in words."""
    if view["finished"]:
        winners = [shown[w] for w in view["winners"]]
        key = "render.winner" if len(winners) == 1 else "render.winners"
        reason = t(f"render.makemake.end.{view['end']}", lang)
        return f"{t(key, lang, names=winners)} · {reason}"
    name = shown[view["active"]]
    choice = view.get("choice")
    if choice:
        return t(f"render.makemake.choose.{choice['kind']}", lang, name=name,
                 count=choice["count"], options=choice["from"])
    return t("render.to_act", lang, name=name)


def _draw_legend(image: Image.Image, view: dict[str, Any], lang: str,
                 shown: dict[str, str]) -> None:
    """A row per seat: swatch, name, progress, reserve, sacred count, Make Make, badge; each
    row a part of the picture (:func:`render.frames.part`) drawn from what it shows."""
    for i, seat in enumerate(view["seats"]):
        frames.part(image, _legend_row, i, seat, shown[seat], lang,
                    seat in view["pending"] or seat in view["winners"],
                    _legend_values(view, seat), _chief_place(view, seat, lang),
                    view["makemake"] == seat, _badge(view, seat, lang))


def _legend_row(image: Image.Image, i: int, seat: str, name: str, lang: str, active: bool,
                values: list[tuple[int, str]], chief_place: str, holder: bool,
                badge: str) -> None:
    """Numbers keep the label font in every language; words use the language's font."""
    draw = draw_on(image)
    y = TABLE_Y + 20 + i * ROW_H + ROW_H // 2
    seat_row_head(draw, y, ROW_H, WIDTH, seat, name, lang, ACTIVE_ROW if active else None, 22,
                  COLUMNS["progress"] - 80)
    legend_row(draw, y, values, font(22))
    legend_row(draw, y, [(COLUMNS["chief"], chief_place)], font(22, lang=lang))
    if holder:
        paste_centred(image, makemake_figure(36), (COLUMNS["makemake"] + 18, y))
    if badge:
        draw.text((COLUMNS["badge"], y), badge, font=font(22, True, lang), fill=INK,
                  anchor="lm")


def _legend_values(view: dict[str, Any], seat: str) -> list[tuple[int, str]]:
    """A seat's counts (its chief's place is in words, see ``_chief_place``)."""
    reserve = view["reserves"][seat]
    return [
        (COLUMNS["progress"], f"{view['scores'][seat]} / 6"),
        (COLUMNS["tokens"], str(reserve["tokens"])),
        (COLUMNS["manu"], str(reserve["manu"])),
        (COLUMNS["sacred"], str(view["holdings"][seat]["sacred"])),
    ]


def _chief_place(view: dict[str, Any], seat: str, lang: str) -> str:
    """Where a seat's chief is: in the reserve or on a named territory."""
    if view["reserves"][seat]["chief"]:
        return t("render.makemake.chief.reserve", lang)
    for hex_id, cell in view["board"].items():
        if cell["owner"] == seat and cell["chief"]:
            return t("render.makemake.chief.on", lang, hex=hex_id)
    return ""


def _badge(view: dict[str, Any], seat: str, lang: str) -> str:
    if seat in view["winners"]:
        return "★ " + t("render.badge.winner", lang)
    if seat in view["pending"]:
        return "▶ " + t("render.badge.to_act", lang)
    return ""
