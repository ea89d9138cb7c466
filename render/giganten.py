"""The Giganten board image (rules spec 4 and 7): a view -> PNG bytes, and a player's private hand.

The landscape with its labels, the rail with its cost bands, the companies' price tables and the
legend's titles never change, so they are drawn once (supersampled where shapes need smooth
edges) and cached per language and seat count; a render copies that picture and adds only the
pieces and values, and rings what changed since the table's previous state. Everything drawn
comes from the view, so a public image cannot show a secret.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from PIL import Image, ImageDraw

from render import frames
from render.common import (
    BLACK,
    CHANGED,
    INK,
    PAPER,
    RGB,
    SEAT_NAMES,
    carry_labels,
    changed_box,
    fit_text,
    font,
    key_line,
    known,
    legend_row,
    pairs,
    paste_centred,
    seat_colour,
    seat_colours,
    seat_names,
    shrink,
    swatch,
    text_lang,
    traced,
)
from render.focus import (
    COLUMN_BAND,
    FOCUS_HEIGHT,
    FOCUS_WIDTH,
    ROW_BAND,
    Part,
    focus_box,
    framed,
    tiles,
    top_of,
)
from render.frames import draw_on
from render.giganten_art import (
    BLACK_LOCO,
    CARD_BEIGE,
    CARD_H,
    CARD_RED,
    CARD_W,
    CELL,
    DISPLAY_STRIP,
    GOLD,
    LICENCE_FILL,
    MUTED,
    OIL,
    TILE,
    TILE_FILL,
    WHITE,
    WIDTH,
    action_card,
    card_lines,
    chip_disc,
    derrick,
    faded_fill,
    hidden_tile,
    locomotive,
    price_marker,
    ranking_card,
    spent_mark,
    truck,
)
from render.giganten_hand import hand_base, hand_palette, paint_hand
from render.i18n import number, t
from render.palette import Design, Palette, build, encode
from rules.data import load

DATA = load("giganten_data.json")
ROWS: list[str] = DATA["rows"]
COLUMNS: int = DATA["columns"]
GRID: dict[str, str] = DATA["grid"]
HARBOUR: int = DATA["rail"]["harbour"]
ENTER_COST: dict[int, int] = {int(p): c for p, c in DATA["rail"]["enter_cost"].items()}
PRICE_TABLE: list[int] = DATA["prices"]["table"]
ZONES: dict[str, list[int]] = DATA["prices"]["zones"]
COMPANIES: list[str] = [c["id"] for c in DATA["companies"]]

SUPER = 2
GRID_X = 44
HEADER_H = 108
GRID_Y = HEADER_H + 26
GRID_W = COLUMNS * CELL
GRID_H = len(ROWS) * CELL
RAIL_Y = GRID_Y + GRID_H + 8
TRACKS_Y = RAIL_Y + 52
TRACK_H = 38
ROW_H = 44
CHIP_STEP = 62

TERRAIN: dict[str, RGB] = {"flat": (240, 230, 196), "hill": (184, 200, 124),
                           "mountain": (156, 138, 126)}
BAND: dict[int, RGB] = {1: (228, 222, 206), 2: (206, 196, 172), 3: (180, 166, 138)}
ZONE_FILL: dict[str, RGB] = {"red": (242, 184, 178), "white": WHITE,
                             "blue": (184, 206, 240)}
STRIPE: RGB = (238, 234, 224)
LIT: RGB = (255, 236, 170)
RULE: RGB = (90, 80, 70)
"""The grid lines of the landscape and the rails."""
HILL_INK: RGB = (110, 126, 60)
PEAK_INK: RGB = (92, 76, 66)
BAND_EDGE: RGB = (150, 140, 120)
SLEEPER: RGB = (150, 130, 110)
CELL_EDGE: RGB = (120, 110, 100)
LEGEND = {"money": 290, "licences": 420, "derricks": 580, "loco": 720, "truck": 860,
          "card": 970}
FINAL = {"place": 280, "total": 370, "cash": 530, "chips": 680, "loco": 780, "bonus": 930}
"""The legend's columns once the game is over: the place by final money, the money and where it
came from; the rail order (the locomotives' ranking) stands beside the derrick bonus it sets."""
BADGE_X = 1060

_FILLS = [seat_colour(c).fill for c in SEAT_NAMES]
_FADED = [faded_fill(c) for c in SEAT_NAMES]
GROUNDS = (PAPER, STRIPE, LIT, *TERRAIN.values(), *BAND.values(), *ZONE_FILL.values(), CARD_BEIGE,
           CARD_RED)
"""What text, lines and pieces are drawn over."""
DESIGN = Design(
    colours=(INK, PAPER, WHITE, CHANGED, MUTED, STRIPE, LIT, *TERRAIN.values(), *BAND.values(),
             *ZONE_FILL.values(), RULE, HILL_INK, PEAK_INK, BAND_EDGE, SLEEPER, CELL_EDGE, OIL,
             GOLD, *TILE_FILL.values(), CARD_BEIGE, CARD_RED, DISPLAY_STRIP, *LICENCE_FILL.values(),
             *seat_colours(), *_FADED),
    ramps=(pairs((INK,), (PAPER, STRIPE, LIT, TERRAIN["flat"]), 16)
           + pairs((INK,), (BLACK, WHITE), 8)
           + pairs((MUTED,), (PAPER, STRIPE), 8) + pairs((INK, WHITE), _FILLS, 8)
           + pairs((WHITE,), (*TILE_FILL.values(), OIL, DISPLAY_STRIP, INK), 8)
           + pairs((INK, RULE, WHITE), GROUNDS) + pairs((OIL, GOLD), GROUNDS[:6])
           + pairs((CHANGED,), (INK, WHITE), 8) + pairs((MUTED,), _FADED)
           + pairs((HILL_INK, PEAK_INK), (TERRAIN["hill"], TERRAIN["mountain"]))
           + pairs(_FILLS, (*TERRAIN.values(), PAPER, STRIPE)) + pairs((INK,), (*TILE_FILL.values(),
                                                                        GOLD, OIL))))
"""The Giganten board's colours (see ``render.palette``)."""


@cache
def palette() -> Palette:
    """The Giganten board's palette, built once per process."""
    return build(DESIGN)
PRICE_X, PRICE_W = 248, 46
STORE_X = 1000


def cell_xy(label: str) -> tuple[int, int]:
    """The top-left pixel of a space."""
    return GRID_X + (int(label[1:]) - 1) * CELL, GRID_Y + ROWS.index(label[0]) * CELL


def cell_centre(label: str) -> tuple[float, float]:
    """The centre pixel of a space, where its piece is pasted."""
    x, y = cell_xy(label)
    return x + CELL / 2, y + CELL / 2


def rail_x(position: int) -> float:
    """Centre x of a rail position: level with its column; the harbour one step past column 20."""
    return GRID_X + (position - 0.5) * CELL


@dataclass(frozen=True)
class Layout:
    """Where the parts below the landscape start, for a number of seats."""

    seats: int

    @property
    def companies_y(self) -> int:
        return TRACKS_Y + (self.seats + 1) * TRACK_H + 14

    @property
    def cards_y(self) -> int:
        return self.companies_y + 24 + 3 * 48 + 14

    @property
    def legend_y(self) -> int:
        return self.cards_y + 26 + CARD_H + 18

    @property
    def key_y(self) -> int:
        return self.legend_y + 24 + self.seats * ROW_H + 16

    @property
    def height(self) -> int:
        return self.key_y + 2 * 58 + 8

    def company_row(self, i: int) -> int:
        """Top of company i's row."""
        return self.companies_y + 24 + i * 48


def money(amount: float, lang: str) -> str:
    """Dollars with thousands separators, in the language's money format."""
    return t("render.giganten.money", lang, amount=number(amount, lang))


# --- the static layers -------------------------------------------------------------------------

@cache
def static_base(lang: str, seats: int, finished: bool) -> Image.Image:
    """Everything that never changes for a language, seat count and stage of the game."""
    layout = Layout(seats)
    base = Image.new("RGB", (WIDTH, layout.height), PAPER)
    landscape = _landscape()
    base.paste(landscape, (0, GRID_Y - 26))
    carry_labels(base, landscape, (0, GRID_Y - 26))
    draw = ImageDraw.Draw(base)
    _draw_rail_frame(draw, lang, seats)
    _draw_company_frame(draw, layout, lang)
    _draw_legend_frame(draw, layout, lang, finished)
    _draw_key(base, draw, layout, lang)
    return base


@cache
def _landscape() -> Image.Image:
    """Terrain, grid and row/column labels, supersampled once."""
    top = 26
    w, h = WIDTH, GRID_H + top + 2
    big = Image.new("RGB", (w * SUPER, h * SUPER), PAPER)
    draw = traced(big, "space")
    k = SUPER
    label = font(16 * k, True)
    for r, row in enumerate(ROWS):
        y0 = (top + r * CELL) * k
        draw.text((GRID_X / 2 * k, y0 + CELL / 2 * k), row, font=label, fill=INK, anchor="mm")
        draw.text(((GRID_X + GRID_W + 20) * k, y0 + CELL / 2 * k), row, font=label, fill=INK,
                  anchor="mm")
        for c in range(1, COLUMNS + 1):
            terrain = GRID[f"{row}{c}"]
            x0 = (GRID_X + (c - 1) * CELL) * k
            draw.rectangle((x0, y0, x0 + CELL * k, y0 + CELL * k), fill=TERRAIN[terrain])
            _terrain_mark(draw, terrain, x0, y0, k)
    for c in range(1, COLUMNS + 1):
        draw.text(((GRID_X + (c - 0.5) * CELL) * k, top / 2 * k), str(c), font=label, fill=INK,
                  anchor="mm")
    for i in range(len(ROWS) + 1):
        y = (top + i * CELL) * k
        draw.line([(GRID_X * k, y), ((GRID_X + GRID_W) * k, y)], fill=RULE, width=k)
    for i in range(COLUMNS + 1):
        x = (GRID_X + i * CELL) * k
        draw.line([(x, top * k), (x, (top + GRID_H) * k)], fill=RULE, width=k)
    draw.rectangle((GRID_X * k, top * k, (GRID_X + GRID_W) * k, (top + GRID_H) * k),
                   outline=INK, width=2 * k)
    return shrink(big, (w, h))


def _terrain_mark(draw: ImageDraw.ImageDraw, terrain: str, x0: float, y0: float, k: int) -> None:
    """Hill humps and mountain peaks in a space's corners, so the terrain reads without colour."""
    ink = HILL_INK if terrain == "hill" else PEAK_INK
    if terrain == "hill":
        for dx in (5, 37):
            draw.arc((x0 + dx * k, y0 + 44 * k, x0 + (dx + 16) * k, y0 + 60 * k), 180, 360,
                     fill=ink, width=2 * k)
    elif terrain == "mountain":
        for dx in (4, 38):
            draw.polygon([(x0 + dx * k, y0 + 55 * k), (x0 + (dx + 8) * k, y0 + 43 * k),
                          (x0 + (dx + 16) * k, y0 + 55 * k)], fill=ink)


def _draw_rail_frame(draw: ImageDraw.ImageDraw, lang: str, seats: int) -> None:
    """Position numbers on their cost bands, the band captions and the empty tracks."""
    small, bold = font(15, lang=lang), font(15, True)
    for p in range(1, HARBOUR + 1):
        x0 = GRID_X + (p - 1) * CELL
        fill = BAND.get(ENTER_COST.get(p, 0), PAPER)
        draw.rectangle((x0, RAIL_Y, x0 + CELL, RAIL_Y + 24), fill=fill, outline=BAND_EDGE)
        draw.text((x0 + CELL / 2, RAIL_Y + 12), "⚓" if p == HARBOUR else str(p), font=bold,
                  fill=INK, anchor="mm")
    bands: dict[int, list[int]] = {}
    for p, cost in ENTER_COST.items():
        bands.setdefault(cost, []).append(p)
    for cost, positions in bands.items():
        left = GRID_X + (min(positions) - 1) * CELL
        right = GRID_X + max(positions) * CELL
        draw.line([(left + 4, RAIL_Y + 30), (right - 4, RAIL_Y + 30)], fill=MUTED, width=2)
        draw.text(((left + right) / 2, RAIL_Y + 40), t("render.giganten.rail.band", lang,
                                                        mp=cost),
                  font=small, fill=INK, anchor="mm")
    draw.text((GRID_X + CELL / 2, RAIL_Y + 40), t("render.giganten.rail.start", lang),
              font=small, fill=INK, anchor="mm")
    for i in range(seats + 1):
        y = TRACKS_Y + i * TRACK_H + TRACK_H / 2
        end = rail_x(HARBOUR if i == 0 else COLUMNS) + CELL / 2
        if i % 2 == 0:
            draw.rectangle((16, y - TRACK_H / 2, end, y + TRACK_H / 2), fill=STRIPE)
        for p in range(1, (HARBOUR if i == 0 else COLUMNS) + 1):
            x = rail_x(p)
            draw.line([(x - 20, y + 13), (x + 20, y + 13)], fill=SLEEPER, width=3)
        draw.line([(GRID_X + 2, y + 12), (end - 2, y + 12)], fill=RULE, width=2)


def _draw_company_frame(draw: ImageDraw.ImageDraw, layout: Layout, lang: str) -> None:
    """Column titles, company names and the three price tables coloured by zone."""
    head, name, cell = font(16, True, lang), font(16, True), font(16)
    y = layout.companies_y + 12
    legend_row(draw, y, [(16, t("render.giganten.col.company", lang)),
                         (PRICE_X, t("render.giganten.col.price", lang)),
                         (STORE_X, t("render.giganten.col.storage", lang))], head, MUTED)
    for i, company in enumerate(COMPANIES):
        top = layout.company_row(i)
        if i % 2 == 0:
            draw.rectangle((16, top, WIDTH - 16, top + 48), fill=STRIPE)
        draw.text((22, top + 14), fit_text(t(f"render.giganten.company.{company}", lang), name,
                                           PRICE_X - 30),
                  font=name, fill=INK, anchor="lm")
        for j, price in enumerate(PRICE_TABLE):
            x0 = PRICE_X + j * PRICE_W
            draw.rectangle((x0, top + 6, x0 + PRICE_W, top + 42), fill=ZONE_FILL[_zone(price)],
                           outline=CELL_EDGE)
            draw.text((x0 + PRICE_W / 2, top + 24), thousands(price), font=cell, fill=INK,
                      anchor="mm")


def thousands(price: int) -> str:
    """A price in thousands of dollars, short enough for a cell of the price table."""
    return f"{price / 1000:g}"


def _zone(price: int) -> str:
    """The price table's zone of a price: it colours the cell (and steers the die)."""
    return next(z for z, (low, high) in ZONES.items() if low <= price <= high)


def _draw_legend_frame(draw: ImageDraw.ImageDraw, layout: Layout, lang: str,
                       finished: bool) -> None:
    """Column titles and row stripes of the player legend (final accounting once finished)."""
    columns = FINAL if finished else LEGEND
    group = "final" if finished else "col"
    legend_row(draw, layout.legend_y + 12,
               [(x, t(f"render.giganten.{group}.{key}", lang)) for key, x in columns.items()],
               font(16, True, lang), MUTED)
    for i in range(layout.seats):
        top = layout.legend_y + 24 + i * ROW_H
        if i % 2 == 0:
            draw.rectangle((16, top, WIDTH - 16, top + ROW_H), fill=STRIPE)
    title = "render.giganten.final.ranking" if finished else "render.giganten.cards.title"
    draw.text((16, layout.cards_y + 12), t(title, lang), font=font(16, True, lang), fill=MUTED,
              anchor="lm")


def _draw_key(base: Image.Image, draw: ImageDraw.ImageDraw, layout: Layout, lang: str) -> None:
    """What each colour, piece and mark means, on two lines."""
    face = font(16, lang=lang)
    lines: list[list[tuple[Image.Image, str]]] = [
        [(_terrain_swatch(name), f"terrain.{name}") for name in TERRAIN]
        + [(hidden_tile("", kind, None, ()), f"tile{kind}") for kind in (1, 2, 3)]
        + [(changed_box(26, 26, 4, 3, 2), "changed")],
        [(hidden_tile("", 3, 4, ("red", "blue")), "peeked"), (derrick("", "grey", 3), "derrick"),
         (spent_mark(), "spent"), (truck("grey"), "truck"), (locomotive("grey", 7), "loco"),
         (locomotive(BLACK_LOCO, None), "black")],
    ]
    for n, line in enumerate(lines):
        key_line(base, draw, line, "render.giganten.key.", lang, 20, layout.key_y + 29 + n * 58,
                 face)


@cache
def _terrain_swatch(terrain: str) -> Image.Image:
    """A small space of one terrain for the key."""
    big = Image.new("RGB", (CELL * SUPER, CELL * SUPER), TERRAIN[terrain])
    draw = ImageDraw.Draw(big)
    _terrain_mark(draw, terrain, 0, 0, SUPER)
    draw.rectangle((0, 0, CELL * SUPER - 1, CELL * SUPER - 1), outline=INK, width=SUPER)
    return big.resize((40, 40), Image.Resampling.LANCZOS).convert("RGBA")


# --- a render ----------------------------------------------------------------------------------

def canvas(view: dict[str, Any], lang: str = "en", names: dict[str, str] | None = None, *,
           highlight: frozenset[str] = frozenset()) -> Image.Image:
    """The finished board picture of a Giganten view (the view is only read).

    ``highlight``: space labels (and company names, for a changed price) that changed since the
    table's previous state; they get a bright ring on top of the pieces. Labels that are not
    on this board are ignored."""
    image = _base(view, lang).copy()
    _paint(image, view, lang, names, highlight)
    return image


def _base(view: dict[str, Any], lang: str) -> Image.Image:
    return static_base(lang, len(view["seats"]), bool(view["finished"]))


def _paint(image: Image.Image, view: dict[str, Any], lang: str, names: dict[str, str] | None,
           highlight: frozenset[str]) -> None:
    """Everything of the view on the board's static layer (``image`` starts as it)."""
    seats = view["seats"]
    layout = Layout(len(seats))
    draw = draw_on(image)
    shown = seat_names(seats, lang, names)
    _draw_spaces(image, view)
    _draw_trucks(image, view)
    frames.part(image, _draw_locomotives, view["black_loco"],
                [view["players"][s]["loco"] for s in seats], seats)
    _draw_companies(image, view, layout, lang)
    _draw_changes(image, view, layout, highlight)
    if view["finished"] and view.get("result"):
        _draw_ranking(image, view, layout, lang, shown)
    else:
        _draw_cards(image, draw, view, layout, lang, shown)
    _draw_header(draw, view, lang, shown)
    _draw_legend(image, view, layout, lang, shown)


def board(view: dict[str, Any], lang: str = "en", names: dict[str, str] | None = None, *,
          highlight: frozenset[str] = frozenset(), frame: Hashable = None,
          legend: bool = True) -> bytes:
    """PNG bytes of the board as ``view`` shows it (a spectator's view: the public board), with
    what changed (``highlight``) ringed; ``frame`` names the stream of boards it follows (see
    :mod:`render.frames`). Without ``legend``, the landscape, the rail and the companies
    alone: the players' table and the key are left to the message's text."""
    base = _base(view, lang)
    if not legend:
        base = top_of(base, Layout(len(view["seats"])).legend_y - 8)
    return frames.picture(frame, base, palette(),
                          lambda image: _paint(image, view, lang, names, highlight))


def focus(view: dict[str, Any], places: Iterable[str], lang: str = "en",
          names: dict[str, str] | None = None, *,
          highlight: frozenset[str] = frozenset()) -> bytes:
    """PNG bytes of the part of the board around ``places`` (labels of its spaces: what a
    decision is about), large enough to read on a phone, its rows and columns named beside
    it; a few spaces far apart each on a tile of their own, named the same way (see
    :mod:`render.focus`)."""
    image = canvas(view, lang, names, highlight=highlight)
    parts = focus_parts(view, places)
    if len(parts) == 1:
        box = parts[0][0]
        return encode(palette(), framed(image.crop(box), *_names_in(box)))
    out = Image.new("RGB", (FOCUS_WIDTH, FOCUS_HEIGHT), PAPER)
    for box, (x, y) in parts:
        out.paste(framed(image.crop(box), *_names_in(box)), (x - ROW_BAND, y - COLUMN_BAND))
    return encode(palette(), out)


def focus_parts(view: dict[str, Any], places: Iterable[str]) -> list[Part]:
    """The parts of the board :func:`focus` shows for ``places`` and where, right of and
    below the bands that name their rows and columns: one part (:func:`place_box`), or a
    tile a space when they are a few spread far apart."""
    chosen = [p for p in places if p in GRID]
    spread = tiles([cell_centre(p) for p in chosen], (WIDTH, GRID_Y + GRID_H + 8),
                   (ROW_BAND, COLUMN_BAND))
    return spread if spread is not None else [(place_box(view, chosen),
                                               (ROW_BAND, COLUMN_BAND))]


def place_box(view: dict[str, Any], places: Iterable[str]) -> tuple[int, int, int, int]:
    """The part of the board :func:`focus` shows for ``places`` close together (spaces;
    others are ignored): within the landscape, leaving room for the bands that name its rows
    and columns (:func:`render.focus.framed`)."""
    points = [cell_centre(p) for p in places if p in GRID]
    return focus_box(points, (WIDTH, GRID_Y + GRID_H + 8), FOCUS_WIDTH - ROW_BAND,
                     FOCUS_HEIGHT - COLUMN_BAND)


def focus_bands(view: dict[str, Any], places: Iterable[str]) -> Image.Image:
    """The bands :func:`focus` draws around its parts, on bare paper the focus picture's
    size (their labels noted)."""
    parts = focus_parts(view, places)
    if len(parts) == 1:
        box = parts[0][0]
        return framed(Image.new("RGB", (box[2] - box[0], box[3] - box[1]), PAPER),
                      *_names_in(box))
    out = Image.new("RGB", (FOCUS_WIDTH, FOCUS_HEIGHT), PAPER)
    for box, (x, y) in parts:
        bands = framed(Image.new("RGB", (box[2] - box[0], box[3] - box[1]), PAPER),
                       *_names_in(box))
        out.paste(bands, (x - ROW_BAND, y - COLUMN_BAND))
        carry_labels(out, bands, (x - ROW_BAND, y - COLUMN_BAND))
    return out


def _names_in(box: tuple[int, int, int, int]) -> tuple[list[tuple[float, str]],
                                                       list[tuple[float, str]]]:
    """The columns and rows whose middle a part of the board shows, where in it."""
    width, height = box[2] - box[0], box[3] - box[1]
    columns = [(x, str(c)) for c in range(1, COLUMNS + 1)
               if 12 <= (x := cell_centre(f"{ROWS[0]}{c}")[0] - box[0]) <= width - 12]
    rows = [(y, row) for row in ROWS
            if 12 <= (y := cell_centre(f"{row}1")[1] - box[1]) <= height - 12]
    return columns, rows


def hand(view: dict[str, Any], seat: str, lang: str = "en",
         names: dict[str, str] | None = None, *, frame: Hashable = None) -> bytes:
    """PNG bytes of ``seat``'s private hand, for a direct message: drawn from its own view;
    ``frame`` names the stream of hands it follows (see :mod:`render.frames`)."""
    return frames.picture(frame, hand_base(view, seat), hand_palette(),
                          lambda image: paint_hand(image, view, seat, lang, names))


def peekers(view: dict[str, Any], label: str) -> tuple[str, ...]:
    """The seats that have looked at a tile, in seat order (public: spec 7.1)."""
    return tuple(s for s in view["seats"] if label in view["players"][s]["peeked"])


def _draw_spaces(image: Image.Image, view: dict[str, Any]) -> None:
    """Face-down tiles, derricks and dry wells; unused spaces stay bare terrain. Each row of
    the grid is a part of the picture (:func:`render.frames.part`): a move changes a space or
    two."""
    rows: dict[str, list[tuple[str, dict[str, Any], tuple[str, ...]]]] = {}
    for label, space in view["spaces"].items():
        rows.setdefault(label[0], []).append(
            (label, space, peekers(view, label) if space["state"] == "hidden" else ()))
    for row in rows.values():
        frames.part(image, _spaces_row, row)


def _spaces_row(image: Image.Image,
                row: list[tuple[str, dict[str, Any], tuple[str, ...]]]) -> None:
    for label, space, peeked in row:
        centre = cell_centre(label)
        if space["state"] == "hidden":
            paste_centred(image, hidden_tile(label, space["type"], space["value"], peeked),
                          centre)
        elif space["state"] == "derrick":
            paste_centred(image, derrick(label, space["owner"], space["chips"]), centre)
        elif space["state"] == "spent":
            paste_centred(image, spent_mark(), centre)


def _draw_trucks(image: Image.Image, view: dict[str, Any]) -> None:
    """Trucks on the board; a truck off the board shows only in the legend."""
    for seat in view["seats"]:
        label = view["players"][seat]["truck"]
        if label:
            paste_centred(image, truck(seat), cell_centre(label))


def _draw_locomotives(image: Image.Image, black: int, locos: list[int],
                      seats: list[str]) -> None:
    """The black train on the top track, then each seat's locomotive on its own track."""
    draw = draw_on(image)
    for i, (colour, position) in enumerate([(BLACK_LOCO, black), *zip(seats, locos,
                                                                       strict=True)]):
        y = TRACKS_Y + i * TRACK_H + TRACK_H / 2
        swatch(draw, (20, round(y) - 12, 40, round(y) + 8), colour)
        paste_centred(image, locomotive(colour, position), (rail_x(position), y - 2))


def _draw_companies(image: Image.Image, view: dict[str, Any], layout: Layout,
                    lang: str) -> None:
    """Price markers, each seat's stored chips, and a frame round the company being auctioned:
    each company's row a part of the picture (:func:`render.frames.part`)."""
    auction = view.get("auction")
    for i, company in enumerate(COMPANIES):
        frames.part(image, _company_row, layout.company_row(i), view["prices"][company],
                    [(seat, view["players"][seat]["storage"][company]) for seat in view["seats"]],
                    bool(auction and auction["company"] == company), lang)


def _company_row(image: Image.Image, top: int, price: int, stored: list[tuple[str, int]],
                 auctioned: bool, lang: str) -> None:
    draw = draw_on(image)
    bold = font(16, True)
    j = PRICE_TABLE.index(price)
    x0 = PRICE_X + j * PRICE_W
    draw.rectangle((x0 + 1, top + 7, x0 + PRICE_W - 1, top + 41), fill=INK)
    draw.text((x0 + PRICE_W / 2, top + 24), thousands(price), font=bold, fill=WHITE,
              anchor="mm")
    paste_centred(image, price_marker(), (x0 + PRICE_W / 2, top + 24))
    draw.text((22, top + 35), money(price, lang), font=bold, fill=INK, anchor="lm")
    for n, (seat, count) in enumerate(stored):
        paste_centred(image, chip_disc(seat, count, faded=count == 0),
                      (STORE_X + 17 + n * CHIP_STEP, top + 24))
    if auctioned:
        draw.rectangle((12, top - 2, WIDTH - 12, top + 50), outline=INK, width=3)


def _draw_changes(image: Image.Image, view: dict[str, Any], layout: Layout,
                  highlight: frozenset[str]) -> None:
    """A ring round each changed space, over its tile and truck, and round a changed company's
    current price."""
    for label in known(highlight, GRID):
        paste_centred(image, changed_box(TILE, TILE, 6, 4, 2), cell_centre(label))
    for company in known(highlight, COMPANIES):
        row = COMPANIES.index(company)
        x = PRICE_X + PRICE_TABLE.index(view["prices"][company]) * PRICE_W + PRICE_W / 2
        paste_centred(image, changed_box(54, 44, 7, 4, 2), (x, layout.company_row(row) + 24))


def places(view: dict[str, Any]) -> dict[str, int]:
    """Each seat's place by final money (the winner 1; equal money, equal place)."""
    totals = {seat: row["total"] for seat, row in view["result"].items()}
    return {seat: 1 + sum(1 for other in totals.values() if other > total)
            for seat, total in totals.items()}


def _draw_ranking(image: Image.Image, view: dict[str, Any], layout: Layout, lang: str,
                  shown: dict[str, str]) -> None:
    """Once the game is over, in place of the action cards: the final ranking by money, one
    card per seat from first to last."""
    place = places(view)
    order = sorted(view["seats"], key=lambda s: (place[s], view["seats"].index(s)))
    y = layout.cards_y + 26 + CARD_H / 2
    for i, seat in enumerate(order):
        head = t("render.giganten.final.place_name", lang, place=place[seat], name=shown[seat])
        total = money(view["result"][seat]["total"], lang)
        picture = ranking_card(seat, head, total, seat in view["winners"], lang)
        paste_centred(image, picture, (16 + CARD_W / 2 + i * (CARD_W + 18), y))


def _draw_cards(image: Image.Image, draw: ImageDraw.ImageDraw, view: dict[str, Any],
                layout: Layout, lang: str, shown: dict[str, str]) -> None:
    """The cards on display, then each seat's taken card in round order, with its holder."""
    cards: list[tuple[str, str | None, str]] = [
        (card, None, t("render.giganten.cards.display", lang)) for card in view["display"]]
    cards += [(view["players"][s]["card"], s, shown[s]) for s in view["order"]
              if view["players"][s]["card"]]
    y = layout.cards_y + 26 + CARD_H / 2
    if not cards:
        draw.text((16, y), t("render.giganten.cards.none", lang), font=font(17, lang=lang),
                  fill=MUTED, anchor="lm")
    for i, (card, holder, strip) in enumerate(cards):
        picture = action_card(card_lines(card, lang), card.startswith("r"), holder, strip,
                              lang)
        paste_centred(image, picture, (16 + CARD_W / 2 + i * (CARD_W + 18), y))


def _draw_header(draw: ImageDraw.ImageDraw, view: dict[str, Any], lang: str,
                 shown: dict[str, str]) -> None:
    """Round and action; the status line (who acts, the auction); supply and draw piles."""
    title = t("render.round", lang, round=view["round"]) + " · " + \
        t(f"render.giganten.phase.{view['phase']}", lang)
    face = font(26, True, lang)
    draw.text((20, 26), fit_text(title, face, 760), font=face, fill=INK, anchor="lm")
    supply = (t("render.giganten.supply_unlimited", lang) if view["supply"] is None
              else t("render.giganten.supply", lang, n=view["supply"]))
    face = font(18, True, lang)
    draw.text((WIDTH - 20, 26), fit_text(supply, face, 440), font=face, fill=INK, anchor="rm")
    status = status_text(view, lang, shown)
    face = font(20, True, text_lang(status, lang))
    draw.text((20, 60), fit_text(status, face, WIDTH - 40), font=face, fill=INK, anchor="lm")
    decks = view["decks"]
    piles = t("render.giganten.piles", lang, beige=decks["beige_draw"], red=decks["red_draw"],
              licences=decks["licence_draw"], ones=decks["licence_discard"].get("1", 0),
              twos=decks["licence_discard"].get("2", 0))
    face = font(16, lang=lang)
    draw.text((20, 90), fit_text(piles, face, WIDTH - 40), font=face, fill=MUTED, anchor="lm")


def status_text(view: dict[str, Any], lang: str, shown: dict[str, str]) -> str:
    """Who must act now and on what, or how the game ended, in words."""
    if view["finished"]:
        winners = [shown[w] for w in view["winners"]]
        key = "render.winner" if len(winners) == 1 else "render.winners"
        return f"{t(key, lang, names=winners)} · {t('render.giganten.end', lang)}"
    decision = view["decision"]
    pending = view["pending"]
    if pending == ["*"]:
        subject = view.get("subject")
        return t(f"render.giganten.chance.{decision}", lang,
                 name=shown.get(subject, "") if subject else "",
                 **_auction_params(view, lang, shown))
    name = shown[pending[0]] if pending else ""
    params: dict[str, Any] = {"name": name, **_auction_params(view, lang, shown)}
    if view.get("turn"):
        params["mp"] = view["turn"]["mp_left"]
    return t(f"render.giganten.status.{decision}", lang, **params)


def _auction_params(view: dict[str, Any], lang: str, shown: dict[str, str]) -> dict[str, Any]:
    """The running auction's company and high bid, for the status templates."""
    auction = view.get("auction")
    if not auction:
        return {}
    return {"company": t(f"render.giganten.company.{auction['company']}", lang),
            "bid": auction["high_bid"],
            "high": (t("render.giganten.auction.high", lang, bid=auction["high_bid"],
                       name=shown[auction["high_bidder"]])
                     if auction["high_bidder"] else t("render.giganten.auction.no_bid", lang))}


def _draw_legend(image: Image.Image, view: dict[str, Any], layout: Layout, lang: str,
                 shown: dict[str, str]) -> None:
    """A row per seat: name, then its public holdings (or its final accounting), then a badge;
    each row a part of the picture (:func:`render.frames.part`) drawn from what it shows."""
    for i, seat in enumerate(view["seats"]):
        frames.part(image, _legend_row, layout.legend_y + 24 + i * ROW_H, seat, shown[seat],
                    lang, seat in view["pending"] or seat in view["winners"],
                    _legend_values(view, seat, lang), _badge(view, seat, lang))


def _legend_row(image: Image.Image, top: int, seat: str, name: str, lang: str, active: bool,
                values: list[tuple[int, str]], badge: str) -> None:
    """Numbers, money and labels keep the label font in every language; words use the
    language's."""
    draw = draw_on(image)
    y = top + ROW_H // 2
    if active:
        draw.rectangle((16, top, WIDTH - 16, top + ROW_H), fill=LIT, outline=INK, width=2)
    swatch(draw, (24, y - 13, 50, y + 13), seat)
    face = font(20, True, text_lang(name, lang))
    draw.text((62, y), fit_text(name, face, 220), font=face, fill=INK, anchor="lm")
    for x, text in values:
        draw.text((x, y), text, font=font(20, lang=text_lang(text, "en")), fill=INK,
                  anchor="lm")
    if badge:
        bold = font(20, True, lang)
        draw.text((BADGE_X, y), fit_text(badge, bold, WIDTH - 24 - BADGE_X), font=bold,
                  fill=INK, anchor="lm")


def _legend_values(view: dict[str, Any], seat: str, lang: str) -> list[tuple[int, str]]:
    """A seat's public holdings, or its final accounting once the game is over."""
    result = view.get("result")
    if view["finished"] and result:
        row = result[seat]
        return [(FINAL["place"], t("render.giganten.final.place_n", lang,
                                   place=places(view)[seat])),
                (FINAL["total"], money(row["total"], lang)),
                (FINAL["cash"], money(row["cash"], lang)),
                (FINAL["chips"], str(row["chips"])),
                (FINAL["loco"], t("render.giganten.final.loco_at", lang, rank=row["rank"],
                                  position=view["players"][seat]["loco"])),
                (FINAL["bonus"], money(row["derrick_bonus"], lang))]
    p = view["players"][seat]
    return [(LEGEND["money"], money(p["money"], lang)),
            (LEGEND["licences"], str(p["licence_cards"])),
            (LEGEND["derricks"], str(p["derricks_in_hand"])),
            (LEGEND["loco"], str(p["loco"])),
            (LEGEND["truck"], p["truck"] or t("render.giganten.truck_off", lang)),
            (LEGEND["card"], p["card"] or "–")]


def _badge(view: dict[str, Any], seat: str, lang: str) -> str:
    """Winner, to act, or the seat's standing in the running auction."""
    if seat in view["winners"]:
        return "★ " + t("render.badge.winner", lang)
    if seat in view["pending"]:
        return "▶ " + t("render.badge.to_act", lang)
    auction = view.get("auction")
    if auction and seat in auction["eligible"]:
        if auction["high_bidder"] == seat:
            return t("render.giganten.badge.high", lang, bid=auction["high_bid"])
        if seat in auction["active"]:
            return t("render.giganten.badge.bidding", lang)
        return t("render.giganten.badge.out", lang)
    return ""
