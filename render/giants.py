"""The Giants board image (rules spec sections 4 and 7): a view -> PNG bytes.

The island, its grid, hex labels, special hexes and the ahus with their names and values never
change, so they are drawn once per language and seat count (supersampled for smooth edges) and
cached; a render copies that picture and pastes only the pieces (cached sprites from
``render.giants_art``), the rings that mark what changed since the table's previous state, the
headline and the legend values. Everything comes from a view, so the public image shows only
what the public view holds: an erected moai's base stays grey unless the view names its owner.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from PIL import Image, ImageDraw

from render import frames, giants_screen
from render import giants_art as art
from render.common import (
    BLACK,
    CHANGED,
    HIGHLIGHT,
    INK,
    PAPER,
    RGB,
    SEAT_NAMES,
    carry_labels,
    changed_box,
    changed_hex,
    fit_text,
    font,
    key_line,
    known,
    labelling,
    pairs,
    paste_centred,
    seat_colour,
    seat_colours,
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
from render.palette import Design, Palette, build, encode
from rules.data import load

S = 47
"""Hex radius in pixels: the 16.5 hex widths of the island fill about 1380 px."""
ROOT3 = math.sqrt(3)
HW = ROOT3 * S
MX, MY = 20, 64
"""Side margin; top margin (room for the names of the northern ahus)."""
WIDTH = round(16.5 * HW + 2 * MX)
BOARD_HEIGHT = round(21.5 * S + MY + 24)
SUPER = 2

SEA: RGB = (36, 74, 104)
SEA_TEXT: RGB = (255, 255, 255)
LAND: RGB = (216, 214, 186)
FOREST: RGB = (150, 196, 130)
QUARRY: RGB = (170, 162, 150)
HAT_QUARRY: RGB = (214, 150, 120)
VILLAGE: RGB = (232, 206, 140)
HUT: RGB = (200, 184, 214)
GRID: RGB = (60, 54, 46)
MUTED: RGB = (96, 96, 104)
ROW_TINT: RGB = (238, 234, 224)
ACTIVE_ROW: RGB = (255, 236, 170)
WHITE: RGB = (255, 255, 255)
LEADER: RGB = (112, 146, 172)

KIND_FILL: dict[str, RGB] = {"plain": LAND, "forest": FOREST, "moai-quarry": QUARRY,
                             "headdress-quarry": HAT_QUARRY, "village": VILLAGE, "hut": HUT}

GROUNDS = (SEA, *KIND_FILL.values(), PAPER, ROW_TINT, ACTIVE_ROW)
"""What text, lines and pieces are drawn over."""
DESIGN = Design(
    colours=(INK, PAPER, WHITE, HIGHLIGHT, CHANGED, SEA, *KIND_FILL.values(), GRID, MUTED,
             ROW_TINT, ACTIVE_ROW, LEADER, art.STONE, art.STONE_DARK, art.SCORIA, art.WOOD,
             art.WOOD_LIGHT, art.LEAF, art.ASH, art.BLACK_VALUE, art.RED_VALUE, art.TREE,
             art.RIM, art.HIDDEN_BASE, art.PUKAO_TOP, *seat_colours()),
    ramps=(pairs((WHITE,), (SEA,), 16) + pairs((INK,), (PAPER, LAND, ROW_TINT, ACTIVE_ROW), 16)
           + pairs((INK,), (BLACK, WHITE), 8) + pairs((MUTED,), (PAPER,), 8)
           + pairs((INK, WHITE, GRID), GROUNDS)
           + pairs((CHANGED,), (WHITE, INK, LAND))
           + pairs((INK, WHITE), [seat_colour(c).fill for c in SEAT_NAMES])
           + pairs((WHITE,), (art.STONE, art.STONE_DARK, art.SCORIA, art.WOOD, art.LEAF, art.ASH,
                              art.BLACK_VALUE, art.RED_VALUE))
           + pairs((INK,), (art.STONE, art.SCORIA, art.WOOD, art.WOOD_LIGHT, art.LEAF, art.ASH,
                            CHANGED))
           + pairs((art.STONE_DARK, art.STONE, LEADER, art.RIM), (SEA,))))
"""The Giants board's colours (see ``render.palette``)."""


@cache
def palette() -> Palette:
    """The Giants board's palette, built once per process."""
    return build(DESIGN)

_BOARD = load("giants_board.json")
HEX_CR: dict[str, tuple[int, int]] = {h["label"]: (h["col"], h["row"]) for h in _BOARD["hexes"]}
HEX_KIND: dict[str, str] = {h["label"]: h["kind"] for h in _BOARD["hexes"]}
AHU_DATA: dict[str, dict[str, Any]] = {a["id"]: a for a in _BOARD["ahus"]}
MOAI_QUARRY: str = _BOARD["moai_quarry"]
HEADDRESS_QUARRY: str = _BOARD["headdress_quarry"]


def cell_centre(col: int, row: int, scale: int = 1) -> tuple[float, float]:
    """Pixel centre of an odd-r cell (land or sea), optionally on a ``scale`` times larger
    picture."""
    x = MX + HW * (col + 0.5 + 0.5 * (row % 2))
    y = MY + S + 1.5 * S * row
    return x * scale, y * scale


def hex_centre(label: str) -> tuple[float, float]:
    return cell_centre(*HEX_CR[label])


def corners(centre: tuple[float, float], radius: float) -> list[tuple[float, float]]:
    """The six corners of a pointy-top hex, clockwise from the top."""
    cx, cy = centre
    return [(cx + radius * math.cos(math.radians(-90 + 60 * k)),
             cy + radius * math.sin(math.radians(-90 + 60 * k))) for k in range(6)]


@dataclass(frozen=True)
class AhuSpot:
    """Where an ahu is drawn: its platform on the coast, its text block and its statue."""

    anchor: tuple[float, float]
    """The edge (one hex) or corner (two hexes) the ahu sits on (spec 4.5)."""
    block: tuple[float, float]
    """Centre of the name and values."""
    slot: tuple[float, float]
    """Centre of the statue or reservation."""
    lines: tuple[str, ...]


AHU_FONT = 22
"""An ahu's name's size: its small letters (all it has) are 12 px tall, like the hexes'
labels."""
AHU_LINE = 21


def _name_lines(name: str, width: float) -> tuple[str, ...]:
    """An ahu id broken after hyphens so that each line fits ``width`` pixels."""
    face = font(AHU_FONT)
    parts = [p + "-" for p in name.split("-")]
    parts[-1] = parts[-1][:-1]
    lines: list[str] = []
    for part in parts:
        if lines and face.getlength(lines[-1] + part) <= width:
            lines[-1] += part
        else:
            lines.append(part)
    return tuple(lines)


# --- where each ahu's statue goes --------------------------------------------------------------

Box = tuple[float, float, float, float]
HEADER_BOX: Box = (0, 0, 440, 156)
"""Top left, on the sea: round, phase, dice and first player."""
QUARRY_BOX: Box = (1128, 640, WIDTH - 8, 752)
"""On the sea south-east of the moai quarry: the tray for the statues lying in the quarry when
more lie there than its hex can hold (up to three rows of five)."""
OFFER_BOX: Box = (1060, 756, WIDTH - 8, 886)
"""Bottom right, on the sea, below the quarry's tray: the statues on offer."""
SUPPLY_BOX: Box = (1060, 900, WIDTH - 8, BOARD_HEIGHT - 6)
"""Bottom right corner, on the sea: what is left in the supplies."""
PANELS = (HEADER_BOX, SUPPLY_BOX, OFFER_BOX, QUARRY_BOX)
SLOT_W, SLOT_H = 26, 58
"""The statue slot: wide enough for a moai sprite, tall enough for a crowned size 3."""


def _in_land(x: float, y: float) -> bool:
    """Whether a pixel lies on a land hex (only the nearby cells are tried)."""
    row0 = round((y - MY - S) / (1.5 * S))
    for row in (row0 - 1, row0, row0 + 1):
        col0 = round((x - MX) / HW - 0.5 - 0.5 * (row % 2))
        for col in (col0 - 1, col0, col0 + 1):
            if (col, row) in _LAND:
                cx, cy = cell_centre(col, row)
                dx, dy = abs(x - cx), abs(y - cy)
                if dx <= HW / 2 and dy <= S - dx / ROOT3:
                    return True
    return False


_LAND = frozenset(HEX_CR.values())


def _block_box(centre: tuple[float, float], lines: tuple[str, ...]) -> Box:
    face = font(AHU_FONT)
    width = max([face.getlength(line) for line in lines] + [46.0])
    height = AHU_LINE * len(lines) + 24
    x, y = centre
    return (x - width / 2, y - height / 2, x + width / 2, y + height / 2)


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0) * max(h, 0)


def _box_at(centre: tuple[float, float], width: float, height: float) -> Box:
    x, y = centre
    return (x - width / 2, y - height / 2, x + width / 2, y + height / 2)


def _on_land(box: Box) -> bool:
    x0, y0, x1, y1 = box
    return any(_in_land(x0 + (x1 - x0) * i / 4, y0 + (y1 - y0) * j / 6)
               for i in range(5) for j in range(7))


def _search(start: tuple[float, float], u: tuple[float, float], width: float, height: float,
            clear: list[Box]) -> tuple[float, float]:
    """The nearest free place for a box, out to sea from ``start``: off the land, clear of the
    boxes in ``clear`` and inside the picture; straight out along ``u`` is preferred."""
    perp = (-u[1], u[0])
    tries = sorted(((step, side) for step in range(0, 300, 3) for side in range(-150, 151, 6)),
                   key=lambda p: math.hypot(p[0], 1.3 * p[1]))
    for step, side in tries:
        centre = (start[0] + u[0] * step + perp[0] * side,
                  start[1] + u[1] * step + perp[1] * side)
        box = _box_at(centre, width, height)
        if box[0] < 4 or box[1] < 4 or box[2] > WIDTH - 4 or box[3] > BOARD_HEIGHT - 4:
            continue
        if not any(_overlap(box, c) for c in clear) and not _on_land(box):
            return centre
    return start


@cache
def ahu_spots() -> dict[str, AhuSpot]:
    """Positions of every ahu's parts: the statue just off the coast where the ahu touches it,
    the name and values beyond it, out at sea, clear of the other ahus and the panels."""
    taken: list[Box] = list(PANELS)
    found = {}
    for ahu_id, data in AHU_DATA.items():
        sea = cell_centre(*data["sea"])
        points = [hex_centre(h) for h in data["hexes"]] + [sea]
        anchor = (sum(p[0] for p in points) / len(points),
                  sum(p[1] for p in points) / len(points))
        dx, dy = sea[0] - anchor[0], sea[1] - anchor[1]
        norm = math.hypot(dx, dy) or 1.0
        u = (dx / norm, dy / norm)
        slot = _search(anchor, u, SLOT_W, SLOT_H, taken)
        taken.append(_box_at(slot, SLOT_W + 4, SLOT_H + 2))
        found[ahu_id] = (anchor, u, slot)
    spots = {}
    for ahu_id, (anchor, u, slot) in found.items():
        lines = _name_lines(ahu_id, 2 * HW * 0.47)
        x0, y0, x1, y1 = _block_box((0, 0), lines)
        block = _search(slot, u, x1 - x0 + 6, y1 - y0 + 2, taken)
        taken.append(_box_at(block, x1 - x0 + 6, y1 - y0 + 2))
        spots[ahu_id] = AhuSpot(anchor, block, slot, lines)
    return spots


# --- the static layers -------------------------------------------------------------------------

STATUS_Y = BOARD_HEIGHT + 30
TABLE_Y = BOARD_HEIGHT + 72
ROW_H = 46
KEY_GAP = 30
KEY_LINE = 38
COLUMNS = {"prestige": 250, "rongo": 360, "bases": 460, "committed": 570, "front": 800,
           "status": 1040}
"""Left edge of each legend column during play; the seat's name sits left of them all."""
FINAL_COLUMNS = {"prestige": 250, "moai": 400, "headdresses": 550, "rongo": 720, "total": 860,
                 "status": 1040}
"""The legend's columns once the game is over: the points from each source."""


def canvas_height(seats: int) -> int:
    """The picture's height: the board, the status line, one legend row per seat, the key."""
    return TABLE_Y + 22 + seats * ROW_H + KEY_GAP + 3 * KEY_LINE + 10


@dataclass(frozen=True)
class Layers:
    """What every render of one language, seat count and stage starts from."""

    base: Image.Image


@cache
def static_layers(lang: str, seats: int, final: bool = False) -> Layers:
    """The cached static picture: the island with its ahus, the legend frame and the key."""
    base = Image.new("RGB", (WIDTH, canvas_height(seats)), PAPER)
    island = _island()
    base.paste(island, (0, 0))
    carry_labels(base, island, (0, 0))
    _draw_legend_frame(base, lang, seats, final)
    return Layers(base)


@cache
def _island() -> Image.Image:
    """Sea, land hexes by kind, grid, labels, and the ahus' platforms, names and values."""
    big = Image.new("RGB", (WIDTH * SUPER, BOARD_HEIGHT * SUPER), SEA)
    draw = traced(big, "hex")
    label_font = font(16 * SUPER, True)
    for label, (col, row) in HEX_CR.items():
        centre = cell_centre(col, row, SUPER)
        draw.polygon(corners(centre, S * SUPER), fill=KIND_FILL[HEX_KIND[label]],
                     outline=GRID, width=2 * SUPER)
        draw.text((centre[0], centre[1] - LABEL_DY * SUPER), label, font=label_font, fill=INK,
                  anchor="mm")
    for spot in ahu_spots().values():
        ax, ay = spot.anchor
        sx, sy = spot.slot
        draw.line([(ax * SUPER, ay * SUPER), (sx * SUPER, sy * SUPER)], fill=art.STONE,
                  width=3 * SUPER)
        draw.ellipse(((ax - 5) * SUPER, (ay - 5) * SUPER, (ax + 5) * SUPER, (ay + 5) * SUPER),
                     fill=art.STONE_DARK, outline=WHITE, width=2 * SUPER)
        end = _leader_end(spot)
        if end is not None:
            draw.line([(sx * SUPER, sy * SUPER), (end[0] * SUPER, end[1] * SUPER)],
                      fill=LEADER, width=2 * SUPER)
        bottom = sy + SLOT_H / 2
        draw.rounded_rectangle(((sx - 16) * SUPER, (bottom - 5) * SUPER,
                                (sx + 16) * SUPER, (bottom + 1) * SUPER),
                               radius=2 * SUPER, fill=art.STONE_DARK, outline=WHITE,
                               width=SUPER)
    island = shrink(big, (WIDTH, BOARD_HEIGHT))
    draw = traced(island, "ahu")
    for ahu_id, spot in ahu_spots().items():
        _draw_ahu_text(island, draw, ahu_id, spot)
    return island


def _leader_end(spot: AhuSpot) -> tuple[float, float] | None:
    """Where a line from a statue to its ahu's text stops (at the text's edge), when the text
    was pushed far enough away to need one."""
    (sx, sy), (bx, by) = spot.slot, spot.block
    if math.dist((sx, sy), (bx, by)) <= 64:
        return None
    box = _block_box(spot.block, spot.lines)
    for i in range(41):
        x, y = sx + (bx - sx) * i / 40, sy + (by - sy) * i / 40
        if box[0] - 3 <= x <= box[2] + 3 and box[1] - 3 <= y <= box[3] + 3:
            return x, y
    return None


def _draw_ahu_text(image: Image.Image, draw: ImageDraw.ImageDraw, ahu_id: str,
                   spot: AhuSpot) -> None:
    """An ahu's name (its id, as typed in commands) over its black and red values."""
    face = font(AHU_FONT)
    x, y = spot.block
    height = AHU_LINE * len(spot.lines) + 24
    top = y - height / 2
    for i, line in enumerate(spot.lines):
        draw.text((x, top + AHU_LINE / 2 + AHU_LINE * i), line, font=face, fill=SEA_TEXT,
                  anchor="mm")
    badges_y = top + AHU_LINE * len(spot.lines) + 13
    data = AHU_DATA[ahu_id]
    for value, red, dx in ((data["black"], False, -12), (data["red"], True, 12)):
        badge = art.value_badge(value, red)
        paste_centred(image, badge, (x + dx, badges_y))
        carry_labels(image, badge, (round(x + dx - badge.width / 2),
                                    round(badges_y - badge.height / 2)))


def _draw_legend_frame(base: Image.Image, lang: str, seats: int, final: bool) -> None:
    """Column titles, row stripes and the symbol key: everything in the legend but the values."""
    draw = traced(base, "field")
    head = font(16, True, lang)
    columns = FINAL_COLUMNS if final else COLUMNS
    for key, x in columns.items():
        if key != "status":
            draw.text((x, TABLE_Y), t(f"render.giants.col.{key}", lang), font=head, fill=MUTED,
                      anchor="lm")
    for i in range(seats):
        top = TABLE_Y + 20 + i * ROW_H
        if i % 2 == 0:
            draw.rectangle((16, top, WIDTH - 16, top + ROW_H), fill=ROW_TINT)
    _draw_key(base, draw, lang, TABLE_Y + 20 + seats * ROW_H + KEY_GAP)


@lru_cache(maxsize=16)
def _key_hex(fill: RGB) -> Image.Image:
    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.polygon(corners((14 * k, 15 * k), 14 * k), fill=fill, outline=GRID, width=2 * k)
    return sprite(28, 30, paint)


def _draw_key(base: Image.Image, draw: ImageDraw.ImageDraw, lang: str, y: int) -> None:
    """The symbol key: what each kind of piece, mark and special hex means."""
    lines: list[list[tuple[Image.Image, str]]] = [
        [(art.figures("grey", 2, False, False), "workers"),
         (art.figures("grey", 0, True, False), "sorcerer"),
         (art.figures("grey", 0, False, True), "chief"),
         (art.marker("grey", 18), "marker"),
         (art.logs(2), "logs"),
         (art.forest_tile(4, False), "forest"),
         (art.forest_tile(4, True), "harvested")],
        [(art.item_tag("moai", 7, 2, None), "moai"),
         (art.item_tag("headdress", 3, 1, None), "headdress"),
         (art.item_tag("moai", 7, 2, "grey"), "marked"),
         (art.item_tag("moai", 7, 2, None, True), "abandoned"),
         (art.value_badge(5, False), "black"),
         (art.value_badge(2, True), "red"),
         (changed_hex(15, 3, 2), "changed")],
        [(art.statue(2, True), "erected"),
         (art.reservation("grey"), "reserved"),
         (_key_hex(QUARRY), "moai_quarry"),
         (_key_hex(HAT_QUARRY), "headdress_quarry"),
         (_key_hex(VILLAGE), "village"),
         (_key_hex(HUT), "hut")],
    ]
    face = font(16, lang=lang)
    with labelling(base, "text"):
        for n, entries in enumerate(lines):
            key_line(base, draw, entries, "render.giants.key.", lang, 24, y + n * KEY_LINE,
                     face, icon_gap=6)


# --- a render ----------------------------------------------------------------------------------

def canvas(view: dict[str, Any], lang: str = "en", names: dict[str, str] | None = None, *,
           highlight: frozenset[str] = frozenset()) -> Image.Image:
    """The finished board picture of a Giants view (the view is only read).

    ``highlight``: hex labels and ahu names that changed since the table's previous state. A
    changed hex gets a bright ring just inside its edge (under its chips, which must stay
    readable where a crowded hex's chips reach over the edge); a changed ahu's slot lights up
    behind its statue. Labels that are not on this board are ignored."""
    image = _base(view, lang).copy()
    _paint(image, view, lang, names, highlight)
    return image


def _base(view: dict[str, Any], lang: str) -> Image.Image:
    return static_layers(lang, len(view["seats"]), bool(view["finished"])).base


def _paint(image: Image.Image, view: dict[str, Any], lang: str, names: dict[str, str] | None,
           highlight: frozenset[str]) -> None:
    """Everything of the view on the board's static layer (``image`` starts as it)."""
    draw = draw_on(image)
    shown = seat_names(view["seats"], lang, names)
    _draw_changed_hexes(image, highlight)
    tray = _draw_hexes(image, view, lang)
    if tray and MOAI_QUARRY in highlight:
        _ring_tray(image, tray)
    _draw_ahus(image, view, highlight)
    _draw_header(image, draw, view, lang, shown)
    frames.part(image, _draw_supply, view["supply"], lang)
    _draw_offer(image, draw, view, lang)
    status_line(draw, status_text(view, lang, shown), lang, STATUS_Y, WIDTH, INK)
    _draw_legend(image, view, lang, shown)


def board(view: dict[str, Any], lang: str = "en", names: dict[str, str] | None = None, *,
          highlight: frozenset[str] = frozenset(), frame: Hashable = None,
          legend: bool = True) -> bytes:
    """PNG bytes of the public board (or of the board as the view's seat sees it), with what
    changed (``highlight``) ringed; ``frame`` names the stream of boards it follows (see
    :mod:`render.frames`). Without ``legend``, the island alone: the status line, the
    players' table and the key are left to the message's text."""
    base = _base(view, lang)
    if not legend:
        base = top_of(base, BOARD_HEIGHT)
    return frames.picture(frame, base, palette(),
                          lambda image: _paint(image, view, lang, names, highlight))


def focus(view: dict[str, Any], places: Iterable[str], lang: str = "en",
          names: dict[str, str] | None = None, *,
          highlight: frozenset[str] = frozenset()) -> bytes:
    """PNG bytes of the part of the board around ``places`` (labels of its hexes and ahus: what a
    decision is about), large enough to read on a phone; a few places far apart each on a
    tile of their own (see :mod:`render.focus`)."""
    image = canvas(view, lang, names, highlight=highlight)
    parts = focus_parts(view, places)
    if len(parts) == 1:
        return encode(palette(), image.crop(parts[0][0]))
    return encode(palette(), tiled(image, parts))


def focus_parts(view: dict[str, Any], places: Iterable[str]) -> list[Part]:
    """The parts of the board :func:`focus` shows for ``places`` and where: one part
    (:func:`place_box`), or a tile a place when they are a few spread far apart."""
    chosen = [p for p in places if p in HEX_CR or p in ahu_spots()]
    spread = tiles([_place_points(p)[0] for p in chosen], (WIDTH, BOARD_HEIGHT))
    if spread is not None:
        return spread
    left, top, right, bottom = place_box(view, chosen)
    return [((round(left), round(top), round(right), round(bottom)), (0, 0))]


def _place_points(place: str) -> list[tuple[float, float]]:
    """Where a hex or an ahu is on the board (an ahu: its slot, then its block)."""
    if place in HEX_CR:
        return [hex_centre(place)]
    spot = ahu_spots()[place]
    return [spot.slot, spot.block]


def place_box(view: dict[str, Any], places: Iterable[str]) -> Box:
    """The part of the board :func:`focus` shows for ``places`` close together (hexes and
    ahus; others are ignored), whatever the view."""
    points = [point for place in places if place in HEX_CR or place in ahu_spots()
              for point in _place_points(place)]
    return focus_box(points, (WIDTH, BOARD_HEIGHT))


def item_number(item_id: str) -> int:
    """The number in an item id: ``moai12`` -> 12, ``hat3`` -> 3."""
    return int(item_id.lstrip("abcdefghijklmnopqrstuvwxyz"))


def item_sprite(item_id: str, item: dict[str, Any]) -> Image.Image:
    return art.item_tag(item["kind"], item_number(item_id), item["size"], item["marker"],
                        bool(item["abandoned"]))


def hex_chips(view: dict[str, Any], label: str,
              with_items: bool = True) -> list[Image.Image]:
    """What stands on a hex, in drawing order: forest tile, figures by seat, logs, items."""
    return _chips(view["seats"], view["forest"].get(label), view["hexes"].get(label),
                  items_at(view, label) if with_items else [])


def _chips(seats: list[str], forest: dict[str, Any] | None, spot: dict[str, Any] | None,
           items: list[tuple[str, dict[str, Any]]]) -> list[Image.Image]:
    """:func:`hex_chips` from the hex's forest tile, figures and logs, and the items on it."""
    chips: list[Image.Image] = []
    if forest is not None:
        chips.append(art.forest_tile(forest["logs"], bool(forest["harvested"])))
    if spot:
        for colour in seats:
            kinds = [f["type"] for f in spot["figures"] if f["colour"] == colour]
            if kinds:
                chips.append(art.figures(colour, kinds.count("worker"), "sorcerer" in kinds,
                                         "chief" in kinds))
        if spot["logs"]:
            chips.append(art.logs(spot["logs"]))
    chips += [item_sprite(i, item) for i, item in items]
    return chips


def items_at(view: dict[str, Any], label: str) -> list[tuple[str, dict[str, Any]]]:
    """The items lying on a hex, in item order."""
    return [(i, item) for i, item in view["items"].items() if item["at"] == label]


ROW_OFFSETS = (-9.0, 17.0, 43.0)
"""Chip rows on a hex: where each row's middle lies below the centre (the label is above)."""
ROOM = ((84.0, 80.0, 44.0), (100.0, 96.0, 44.0), (118.0, 112.0, 60.0))
"""Room for chips in each row, tried in turn: the hex itself (the second row may reach over
the slanted lower edges, since the neighbours' labels sit lower; the third must fit between
those labels), then wider rows that lean on the neighbours' sides for a crowded hex."""


def _rows(chips: list[Image.Image], room: tuple[float, ...]) -> list[list[Image.Image]]:
    rows: list[list[Image.Image]] = [[]]
    for chip in chips:
        row = rows[-1]
        width = room[min(len(rows), len(room)) - 1]
        used = sum(c.width for c in row) + 2 * len(row)
        if row and used + chip.width > width:
            rows.append([chip])
        else:
            row.append(chip)
    return rows


def flow(chips: list[Image.Image],
         centre: tuple[float, float]) -> list[tuple[Image.Image, float, float]]:
    """Chips laid out in centred rows inside a hex, below its label; a crowded hex first
    widens its rows, then spills downwards."""
    for room in ROOM:
        rows = _rows(chips, room)
        if len(rows) <= len(ROW_OFFSETS):
            break
    placed = []
    cx, cy = centre
    for n, row in enumerate(rows):
        offset = ROW_OFFSETS[min(n, 2)] + 26 * max(0, n - 2)
        width = sum(c.width for c in row) + 2 * (len(row) - 1)
        x = cx - width / 2
        for chip in row:
            placed.append((chip, x + chip.width / 2, cy + offset))
            x += chip.width + 2
    return placed


def in_tray(view: dict[str, Any]) -> bool:
    """Whether the statues in the moai quarry go to its tray: they do when the quarry's hex
    cannot hold all it carries in the two rows inside its edges."""
    chips = hex_chips(view, MOAI_QUARRY)
    return bool(items_at(view, MOAI_QUARRY)) and len(_rows(chips, ROOM[0][:2])) > 2


def _draw_hexes(image: Image.Image, view: dict[str, Any], lang: str) -> Box | None:
    """The chips on every hex, each hex a part of the picture (:func:`render.frames.part`);
    the tray's box when the quarry's statues were put in it."""
    lying: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for item_id, item in view["items"].items():
        if item["at"] in HEX_CR:
            lying.setdefault(item["at"], []).append((item_id, item))
    labels = set(view["hexes"]) | set(view["forest"]) | set(lying)
    tray = in_tray(view)
    for label in sorted(labels, key=lambda h: HEX_CR[h][::-1]):
        frames.part(image, _hex_part, label, view["seats"], view["forest"].get(label),
                    view["hexes"].get(label), lying.get(label, []),
                    tray and label == MOAI_QUARRY)
    return _draw_tray(image, view, lang) if tray else None


def _hex_part(image: Image.Image, label: str, seats: list[str], forest: dict[str, Any] | None,
              spot: dict[str, Any] | None, items: list[tuple[str, dict[str, Any]]],
              pointer: bool) -> None:
    """One hex's chips; with ``pointer``, its statues are in the tray and a pointer to it
    stands for them."""
    if pointer:
        chips = [*_chips(seats, forest, spot, []), art.tray_pointer(len(items))]
    else:
        chips = _chips(seats, forest, spot, items)
    for chip, x, y in flow(chips, hex_centre(label)):
        paste_centred(image, chip, (x, y))


TRAY_PAD = 8
TRAY_HEAD = 24
TRAY_ROW = 27


def tray_layout(view: dict[str, Any]) -> tuple[Box, list[tuple[Image.Image, float, float]]]:
    """The quarry's tray: its box (as tall as its rows need) and each statue's chip with its
    centre, in rows inside the box; what does not fit ends the last row as ``+n``."""
    x0, y0, x1, y1 = (round(v) for v in QUARRY_BOX)
    width = x1 - x0 - 2 * TRAY_PAD
    most = (y1 - y0 - TRAY_HEAD - TRAY_PAD // 2) // TRAY_ROW
    chips = [item_sprite(i, item) for i, item in items_at(view, MOAI_QUARRY)]
    rows = _rows(chips, (width,))
    if len(rows) > most:
        kept = [c for row in rows[:most] for c in row]
        rest = len(chips) - len(kept)
        while kept and len(_rows([*kept, art.more(rest)], (width,))) > most:
            kept.pop()
            rest += 1
        rows = _rows([*kept, art.more(rest)], (width,))
    placed = []
    for n, row in enumerate(rows):
        x, y = x0 + TRAY_PAD, y0 + TRAY_HEAD + TRAY_ROW * n + TRAY_ROW / 2
        for chip in row:
            placed.append((chip, x + chip.width / 2, y))
            x += chip.width + 2
    box = (x0, y0, x1, y0 + TRAY_HEAD + TRAY_ROW * len(rows) + TRAY_PAD // 2)
    return box, placed


def _draw_tray(image: Image.Image, view: dict[str, Any], lang: str) -> Box:
    """The tray on the sea: the quarry's stone, its label, and the statues lying there."""
    box, placed = tray_layout(view)
    draw = draw_on(image)
    draw.rounded_rectangle(box, radius=8, fill=QUARRY, outline=WHITE, width=2)
    y = box[1] + TRAY_HEAD / 2 + 2
    paste_centred(image, _key_hex(QUARRY), (box[0] + 20, y))
    label = font(18, True)
    draw.text((box[0] + 38, y), MOAI_QUARRY, font=label, fill=INK, anchor="lm")
    words = t("render.giants.key.moai_quarry", lang)
    face = font(16, lang=lang)
    x = box[0] + 46 + text_length(label, MOAI_QUARRY)
    draw.text((x, y), fit_text(words, face, box[2] - 8 - x), font=face, fill=INK, anchor="lm")
    for chip, x, y in placed:
        paste_centred(image, chip, (x, y))
    return box


def _draw_changed_hexes(image: Image.Image, highlight: frozenset[str]) -> None:
    """A ring just inside each changed hex's edge. It goes under the chips: a crowded hex's
    chips reach over its edge (and a neighbour's over it), and they must stay readable."""
    for label in known(highlight, HEX_CR):
        paste_centred(image, _changed_ring(), hex_centre(label))


LABEL_DY = 31
"""How far above a hex's centre its label's middle lies."""


@cache
def _changed_ring() -> Image.Image:
    """The ring of a changed hex, open at the top where the hex's label is (a ring closed
    there crossed the label's ends), and kept off the hex's edge (the labels of the hexes
    below it reach up to that edge)."""
    ring = changed_hex(S - 3, 4, 2).copy()
    cx, cy = ring.width / 2, ring.height / 2 - LABEL_DY
    widest = max(text_length(font(16, True), label) for label in HEX_CR) / 2 + 4
    ring.paste((0, 0, 0, 0), (math.floor(cx - widest), math.floor(cy - 10),
                              math.ceil(cx + widest), math.ceil(cy + 10)))
    return ring


def _ring_tray(image: Image.Image, tray: Box) -> None:
    """The quarry's tray changes with its hex: a ring astride the tray's rim."""
    x0, y0, x1, y1 = (round(v) for v in tray)
    ring = changed_box(x1 - x0 - 8, y1 - y0 - 8, 4, 4, 2)
    paste_centred(image, ring, ((x0 + x1) / 2, (y0 + y1) / 2))


def _draw_ahus(image: Image.Image, view: dict[str, Any],
               highlight: frozenset[str] = frozenset()) -> None:
    """Erected moai (with headdress; base coloured only when the owner is known) and
    reservations, each on its ahu's platform; a changed ahu's slot is lit up behind them."""
    spots = ahu_spots()
    changed = set(known(highlight, spots))
    for ahu_id, ahu in view["ahus"].items():
        sx, sy = spots[ahu_id].slot
        bottom = sy + SLOT_H / 2 - 2
        if ahu_id in changed:
            paste_centred(image, art.lit_slot(SLOT_W + 4, SLOT_H + 2), (sx, sy))
        if ahu["moai"]:
            size = view["items"][ahu["moai"]]["size"]
            pic = art.statue(size, ahu["headdress"] is not None, ahu["owner"])
            image.paste(pic, (round(sx - pic.width / 2), round(bottom - pic.height)), pic)
        elif ahu["reserved"]:
            pic = art.reservation(ahu["reserved"])
            image.paste(pic, (round(sx - pic.width / 2), round(bottom - pic.height)), pic)


def _draw_header(image: Image.Image, draw: ImageDraw.ImageDraw, view: dict[str, Any],
                 lang: str, shown: dict[str, str]) -> None:
    """Round and phase top left, with this round's dice and first player."""
    draw.text((24, 20), t("render.round", lang, round=view["round"]),
              font=font(30, True, lang), fill=WHITE, anchor="lt")
    draw.text((24, 60), t(f"render.giants.phase.{view['phase']}", lang),
              font=font(20, lang=lang), fill=WHITE, anchor="lt")
    first = view["order"][0] if view["order"] else None
    if first and not view["finished"]:
        text = t("render.giants.first", lang, name=shown[first])
        face = font(18, lang=text_lang(text, lang))
        draw.text((24, 140), fit_text(text, face, HEADER_BOX[2] - 30), font=face, fill=WHITE,
                  anchor="lm")
    if view["dice"]:
        face = font(18, lang=lang)
        draw.text((24, 106), t("render.giants.dice", lang), font=face, fill=WHITE, anchor="lm")
        x = 34 + text_length(face, t("render.giants.dice", lang))
        for face in view["dice"]:
            paste_centred(image, art.die(face), (x + 14, 106))
            x += 34


def _draw_supply(image: Image.Image, supply: dict[str, Any], lang: str) -> None:
    """The supplies bottom right: moai by size, headdresses, logs and rongo halves (a part of
    the picture: :func:`render.frames.part`)."""
    draw = draw_on(image)
    x0, y0, _, _ = SUPPLY_BOX
    draw.text((x0 + 4, y0 + 4), t("render.giants.supply", lang), font=font(18, True, lang),
              fill=WHITE, anchor="lt")
    face = font(18, True)
    x, base = x0 + 8, y0 + 88
    for size in (1, 2, 3):
        pic = art.statue(size, False, None, dark=False)
        image.paste(pic, (round(x), round(base - pic.height)), pic)
        text = f"×{supply['moai'][str(size)]}"
        draw.text((x + pic.width + 4, base - 4), text, font=face, fill=WHITE, anchor="ls")
        x += pic.width + 14 + text_length(face, text)
    x, y = x0 + 8, y0 + 118
    for pic, count in ((art.pukao(), supply["headdresses"]), (art.logs(supply["logs"]), None),
                       (art.rongo(), supply["rongo"])):
        image.paste(pic, (round(x), round(y - pic.height / 2)), pic)
        x += pic.width + 4
        if count is not None:
            text = f"×{count}"
            draw.text((x, y), text, font=face, fill=WHITE, anchor="lm")
            x += text_length(face, text)
        x += 18


def _draw_offer(image: Image.Image, draw: ImageDraw.ImageDraw, view: dict[str, Any],
                lang: str) -> None:
    """The statues waiting in the moai quarry during the draw and the auction."""
    if not view["offer"]:
        return
    x0, y0, x1, _ = OFFER_BOX
    draw.text((x0 + 4, y0 + 4), t("render.giants.offer", lang, hex=MOAI_QUARRY),
              font=font(18, True, lang), fill=WHITE, anchor="lt")
    x, base = x0 + 8, y0 + 112
    face = font(18, True)
    for size in view["offer"]:
        pic = art.statue(size, False, None, dark=False, scale=1.4)
        if x + pic.width > x1:
            break
        image.paste(pic, (round(x), round(base - pic.height)), pic)
        draw.text((x + pic.width / 2, base + 14), str(size), font=face, fill=WHITE, anchor="mm")
        x += pic.width + 14


def status_text(view: dict[str, Any], lang: str, shown: dict[str, str]) -> str:
    """The status line in words."""
    if view["finished"]:
        winners = [shown[w] for w in view["winners"]]
        key = "render.winner" if len(winners) == 1 else "render.winners"
        return t(key, lang, names=winners)
    pending = [shown[p] for p in view["pending"] if p in shown]
    phase = view["phase"]
    if not pending:
        return t("render.giants.status.chance", lang)
    if phase in ("bid", "endround"):
        return t(f"render.giants.status.{phase}", lang, names=pending)
    if phase == "choose":
        return t("render.giants.status.choose", lang, name=pending[0],
                 offer=view["offer"])
    return t("render.to_act", lang, name=pending[0])


def _draw_legend(image: Image.Image, view: dict[str, Any], lang: str,
                 shown: dict[str, str]) -> None:
    """A row per seat: swatch, name, then the public holdings (or the final points); each row
    a part of the picture (:func:`render.frames.part`) drawn from what it shows."""
    final = bool(view["finished"])
    for i, seat in enumerate(view["seats"]):
        row = (_final_values(view, seat) if final else _play_values(view, seat))
        frames.part(image, _legend_row, i, seat, shown[seat], lang, final,
                    seat in view["pending"] or seat in view["winners"], row,
                    seat_badge(view, seat, lang))


def _legend_row(image: Image.Image, i: int, seat: str, name: str, lang: str, final: bool,
                active: bool, row: dict[str, Any], badge: str) -> None:
    draw = draw_on(image)
    bold = font(20, True, lang)
    columns = FINAL_COLUMNS if final else COLUMNS
    y = TABLE_Y + 20 + i * ROW_H + ROW_H // 2
    seat_row_head(draw, y, ROW_H, WIDTH, seat, name, lang, ACTIVE_ROW if active else None, 20,
                  columns["prestige"] - 80)
    if final:
        _final_row(draw, row, y)
    else:
        _play_row(image, draw, seat, row, y)
    if badge:
        draw.text((columns["status"], y), fit_text(badge, bold, WIDTH - 40 - columns["status"]),
                  font=bold, fill=INK, anchor="lm")


def _final_values(view: dict[str, Any], seat: str) -> dict[str, Any]:
    """What a seat's row of the final table shows: its result, or its score until there is
    one."""
    return {"result": view.get("result", {}).get(seat), "score": view["scores"][seat]}


def _final_row(draw: ImageDraw.ImageDraw, row: dict[str, Any], y: int) -> None:
    result = row["result"]
    face = font(20)
    if result is None:
        draw.text((FINAL_COLUMNS["total"], y), str(row["score"]), font=font(20, True),
                  fill=INK, anchor="lm")
        return
    for key in ("prestige", "moai", "headdresses", "rongo"):
        draw.text((FINAL_COLUMNS[key], y), str(result[key]), font=face, fill=INK, anchor="lm")
    draw.text((FINAL_COLUMNS["total"], y), str(result["total"]), font=font(20, True), fill=INK,
              anchor="lm")


def bases_left(view: dict[str, Any], seat: str) -> int | None:
    """Bases still behind a seat's screen, when the view lets anyone know it."""
    if view.get("me") == seat and "screen" in view:
        return int(view["screen"]["bases"])
    if "screens" in view:
        return int(view["screens"][seat]["bases"])
    if any(a["moai"] and a["owner"] is None for a in view["ahus"].values()):
        return None
    owned = sum(1 for a in view["ahus"].values() if a["owner"] == seat)
    player = view["players"][seat]
    return int(player["bases"]) - len(player["reserved"]) - owned


def _play_values(view: dict[str, Any], seat: str) -> dict[str, Any]:
    """What a seat's row of the table shows while the game runs: prestige, rongo, bases,
    reservations, what it committed and the items in front of it."""
    player = view["players"][seat]
    return {"score": view["scores"][seat], "rongo": player["rongo"],
            "left": bases_left(view, seat), "bases": player["bases"],
            "reserved": len(player["reserved"][:2]), "committed": player["committed"],
            "front": [(item_id, view["items"][item_id]) for item_id in player["front"]]}


def _play_row(image: Image.Image, draw: ImageDraw.ImageDraw, seat: str, row: dict[str, Any],
              y: int) -> None:
    face = font(20)
    draw.text((COLUMNS["prestige"], y), str(row["score"]), font=font(20, True),
              fill=INK, anchor="lm")
    paste_centred(image, art.rongo(), (COLUMNS["rongo"] + 6, y))
    draw.text((COLUMNS["rongo"] + 18, y), str(row["rongo"]), font=face, fill=INK,
              anchor="lm")
    left = row["left"]
    draw.text((COLUMNS["bases"], y), f"{'?' if left is None else left}/{row['bases']}",
              font=face, fill=INK, anchor="lm")
    x = COLUMNS["bases"] + 62
    for _ in range(row["reserved"]):
        paste_centred(image, art.reservation(seat), (x + 15, y))
        x += 34
    committed = row["committed"]
    chips: list[Image.Image] = []
    if committed["markers"]:
        chips.append(art.counted("marker", seat, committed["markers"]))
    if committed["workers"] or committed["chief"] or committed["sorcerer"]:
        chips.append(art.figures(seat, committed["workers"], committed["sorcerer"],
                                 committed["chief"]))
    x = COLUMNS["committed"]
    for chip in chips:
        paste_centred(image, chip, (x + chip.width / 2, y))
        x += chip.width + 8
    x = COLUMNS["front"]
    for item_id, item in row["front"]:
        chip = item_sprite(item_id, item)
        if x + chip.width > COLUMNS["status"] - 8:
            break
        paste_centred(image, chip, (x + chip.width / 2, y))
        x += chip.width + 5


def seat_badge(view: dict[str, Any], seat: str, lang: str) -> str:
    """A seat's state in the current step: winner, bid sealed, chooser, passed, to act."""
    if seat in view["winners"]:
        return "★ " + t("render.badge.winner", lang)
    phase = view["phase"]
    if phase == "bid" and isinstance(view["bids"].get(seat), str):
        if view["bids"][seat] == "submitted":
            return "✓ " + t("render.giants.badge.bid_in", lang)
        return "▶ " + t("render.giants.badge.bidding", lang)
    if phase == "endround" and seat in view["endround"]:
        return ("✓ " + t("render.giants.badge.answered", lang)
                if view["endround"][seat] == "submitted"
                else "▶ " + t("render.giants.badge.answering", lang))
    choosing = view.get("choosing")
    if phase == "choose" and choosing:
        rank = choosing["order"].index(seat) + 1 if seat in choosing["order"] else 0
        taken = choosing["taken"].get(seat, [])
        text = t("render.giants.badge.rank", lang, rank=rank)
        if taken:
            text += " · " + t("render.giants.badge.took", lang, sizes=taken)
        if seat in view["pending"]:
            return "▶ " + text
        if seat in choosing["done"]:
            text += " · " + t("render.giants.badge.done", lang)
        return text
    if seat in view["pending"]:
        return "▶ " + t("render.badge.to_act", lang)
    if view["players"][seat]["passed"]:
        return t("render.giants.badge.passed", lang)
    return ""


def screen(view: dict[str, Any], seat: str, lang: str = "en", *,
           frame: Hashable = None) -> bytes:
    """PNG bytes of ``seat``'s private screen (a direct message), from that seat's own view;
    ``frame`` names the stream of screens it follows (see :mod:`render.frames`)."""
    return giants_screen.screen(view, seat, lang, frame=frame)
