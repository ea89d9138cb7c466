"""Small pictures for the Giants board image: figures, items, logs, forest tiles, statues, dice.

Each is an antialiased RGBA sprite cached by what it shows, so a render only pastes ready
pictures. Sizes are chosen so that digits stay at 16 px or more on a board about 1380 px wide.
"""

from __future__ import annotations

from functools import cache

from PIL import Image, ImageDraw

from render.common import (
    CHANGED,
    HIGHLIGHT,
    INK,
    RGB,
    carry_labels,
    font,
    marked,
    seat_colour,
    seat_mark,
    sprite,
    text_length,
)

STONE: RGB = (138, 132, 122)
STONE_DARK: RGB = (74, 68, 62)
SCORIA: RGB = (176, 68, 40)
"""The red volcanic stone of the headdresses (pukao)."""
WOOD: RGB = (124, 78, 38)
WOOD_LIGHT: RGB = (222, 184, 128)
LEAF: RGB = (38, 112, 52)
ASH: RGB = (150, 148, 138)
WHITE: RGB = (255, 255, 255)
BLACK_VALUE: RGB = INK
"""An ahu's black value square: the ink colour (a near-black beside it would share its
palette entry)."""
RED_VALUE: RGB = (196, 36, 36)
TREE: RGB = (150, 210, 120)
RIM: RGB = (235, 235, 230)
"""The pale outline of a statue and of a base whose owner is hidden."""
HIDDEN_BASE: RGB = (96, 96, 100)
PUKAO_TOP: RGB = (212, 110, 80)

CHIP_H = 24
"""Height of every chip drawn on a hex (figures, logs, items, forest tiles)."""
DIGITS = 16
MARK = 14
"""The side of a seat's mark on its pieces (render.common.seat_mark): its least tall shape
(a square, 0.85 of it) 11.9 px tall, 7 px on a phone showing a focus (render.focus, 504 px
wide) or a screen 302 px across."""
FILL_RIM = 3
"""The seat's fill left round a mark on a token, inside its rim: the token still reads as
the seat's colour."""
BADGE = MARK + 2 * (2 + FILL_RIM)
"""The side of a tribe marker, and of the corner badge that carries one on an item."""
WORKER = BADGE + 2
"""A worker disc's diameter: a round token needs more fill round its mark than a square
one to read as the seat's colour."""
RESERVED_H = MARK + 8
"""A reservation's height: its mark with the seat's fill round it."""


def _digits_width(text: str) -> int:
    return round(text_length(font(DIGITS, True), text))


def _sorcerer_glyph(draw: ImageDraw.ImageDraw, x: float, k: int, ink: RGB) -> None:
    """A pointed hat: the sorcerer."""
    draw.polygon([((x + 1) * k, 19 * k), ((x + 6) * k, 4 * k), ((x + 11) * k, 19 * k)], fill=ink)


def _chief_glyph(draw: ImageDraw.ImageDraw, x: float, k: int, ink: RGB) -> None:
    """A crown: the chief."""
    shape = [(0, 18), (0, 7), (4, 12), (8, 5), (12, 12), (16, 7), (16, 18)]
    draw.polygon([((x + px) * k, py * k) for px, py in shape], fill=ink)


@cache
def figures(colour: str, workers: int, sorcerer: bool, chief: bool) -> Image.Image:
    """One seat's figures on a hex as a pill: the seat's mark, the worker count, then a hat and
    a crown."""
    pal = seat_colour(colour)
    count = str(workers) if workers else ""
    parts = [MARK] + ([_digits_width(count)] if count else [])
    parts += [12] * sorcerer + [16] * chief
    width = max(CHIP_H, sum(parts) + 3 * (len(parts) - 1) + 12)

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rounded_rectangle((k, k, (width - 1) * k, (CHIP_H - 1) * k), radius=11 * k,
                               fill=pal.fill, outline=INK, width=2 * k)
        x = (width - (sum(parts) + 3 * (len(parts) - 1))) / 2
        seat_mark(draw, ((x + MARK / 2) * k, 12.5 * k), MARK * k, colour)
        x += MARK + 3
        if count:
            draw.text((x * k, 12.5 * k), count, font=font(DIGITS * k, True), fill=pal.ink,
                      anchor="lm")
            x += _digits_width(count) + 3
        if sorcerer:
            _sorcerer_glyph(draw, x, k, pal.ink)
            x += 15
        if chief:
            _chief_glyph(draw, x, k, pal.ink)
    return marked(sprite(width, CHIP_H, paint), colour)


@cache
def marker(colour: str, size: int = BADGE) -> Image.Image:
    """A tribe marker: a square token in the seat's colour."""
    pal = seat_colour(colour)

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rounded_rectangle((k, k, (size - 1) * k, (size - 1) * k), radius=3 * k,
                               fill=pal.fill, outline=INK, width=2 * k)
        seat_mark(draw, (size / 2 * k, size / 2 * k), (size - 2 * (2 + FILL_RIM)) * k,
                  colour)
    return marked(sprite(size, size, paint), colour)


@cache
def worker(colour: str) -> Image.Image:
    """A single worker disc in the seat's colour, for counts written beside it."""
    pal = seat_colour(colour)

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.ellipse((k, k, (WORKER - 1) * k, (WORKER - 1) * k), fill=pal.fill, outline=INK,
                     width=2 * k)
        seat_mark(draw, (WORKER / 2 * k, WORKER / 2 * k), MARK * k, colour)
    return marked(sprite(WORKER, WORKER, paint), colour)



@cache
def counted(kind: str, colour: str, count: int) -> Image.Image:
    """A marker or a worker with its count (``×n``) beside it."""
    pic = marker(colour) if kind == "marker" else worker(colour)
    text = f"×{count}"
    width = pic.width + 4 + _digits_width(text)
    height = max(CHIP_H, pic.height)
    out = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    out.paste(pic, (0, (height - pic.height) // 2), pic)
    carry_labels(out, pic, (0, (height - pic.height) // 2))  # its mark
    ImageDraw.Draw(out).text((pic.width + 4, height / 2), text, font=font(DIGITS, True),
                             fill=INK, anchor="lm")
    return marked(out, colour)


@cache
def item_tag(kind: str, number: int, size: int, marker_colour: str | None,
             abandoned: bool = False) -> Image.Image:
    """An item on a hex: grey stone with size pips for a moai, red scoria for a headdress,
    its id number, the marker on it as a corner badge; a pink rim while anyone may claim it.
    Kept narrow so that two fit side by side on a hex."""
    text = str(number)
    pips = 7 if kind == "moai" else 0
    body = 4 + pips + _digits_width(text) + 4
    width = body + (BADGE - 6 if marker_colour else 0)
    fill = STONE if kind == "moai" else SCORIA

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        rim = HIGHLIGHT if abandoned else INK
        draw.rounded_rectangle((k, k, (body - 1) * k, (CHIP_H - 1) * k), radius=5 * k,
                               fill=fill, outline=rim, width=(3 if abandoned else 2) * k)
        if pips:
            top = 12 - (size * 6 - 1) / 2
            for i in range(size):
                y = top + i * 6
                draw.ellipse((4 * k, y * k, 9 * k, (y + 5) * k), fill=WHITE)
        draw.text(((4 + pips) * k, 12.5 * k), text, font=font(DIGITS * k, True), fill=WHITE,
                  anchor="lm")
        if marker_colour:
            pal = seat_colour(marker_colour)
            draw.rounded_rectangle(((width - BADGE) * k, 0, width * k, BADGE * k),
                                   radius=3 * k, fill=pal.fill, outline=INK, width=2 * k)
            seat_mark(draw, ((width - BADGE / 2) * k, BADGE / 2 * k), MARK * k, marker_colour)
    picture = sprite(width, CHIP_H, paint)
    return marked(picture, marker_colour) if marker_colour else picture


@cache
def logs(count: int) -> Image.Image:
    """Logs lying on a hex: a log end and their number on wood."""
    text = str(count)
    width = 26 + _digits_width(text)

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rounded_rectangle((k, k, (width - 1) * k, (CHIP_H - 1) * k), radius=5 * k,
                               fill=WOOD, outline=INK, width=2 * k)
        draw.ellipse((5 * k, 5 * k, 19 * k, 19 * k), fill=WOOD_LIGHT, outline=INK, width=k)
        draw.ellipse((10 * k, 10 * k, 14 * k, 14 * k), outline=WOOD, width=k)
        draw.text((22 * k, 12.5 * k), text, font=font(DIGITS * k, True), fill=WHITE,
                  anchor="lm")
    return sprite(width, CHIP_H, paint)


@cache
def forest_tile(count: int, harvested: bool) -> Image.Image:
    """A forest tile: a tree and its printed log count; grey and struck through once harvested."""
    text = str(count)
    width = 26 + _digits_width(text)

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        fill = ASH if harvested else LEAF
        draw.rounded_rectangle((k, k, (width - 1) * k, (CHIP_H - 1) * k), radius=5 * k,
                               fill=fill, outline=INK, width=2 * k)
        if harvested:
            draw.rectangle((9 * k, 12 * k, 15 * k, 19 * k), fill=WOOD)
            draw.ellipse((8 * k, 10 * k, 16 * k, 14 * k), fill=WOOD_LIGHT)
        else:
            draw.polygon([(12 * k, 3 * k), (20 * k, 17 * k), (4 * k, 17 * k)], fill=TREE)
            draw.rectangle((11 * k, 17 * k, 13 * k, 21 * k), fill=WOOD_LIGHT)
        draw.text((22 * k, 12.5 * k), text, font=font(DIGITS * k, True), fill=WHITE,
                  anchor="lm")
        if harvested:
            draw.line([(3 * k, 21 * k), ((width - 3) * k, 3 * k)], fill=INK, width=2 * k)
    return sprite(width, CHIP_H, paint)


_MOAI_OUTLINE = [(10, 6), (28, 2), (34, 8), (34, 60), (30, 70), (8, 70), (8, 50), (2, 44),
                 (8, 38), (4, 30), (10, 24), (6, 16)]


@cache
def statue(size: int, headdress: bool = False, base: str | None = None,
           dark: bool = True, scale: float = 1.0) -> Image.Image:
    """A moai whose height grows with its size, a red headdress if crowned, and the base under
    it: in the owner's colour when the viewer may know it, else face down (grey)."""
    height = round((16 + 9 * size) * scale)
    cap = round(7 * scale) if headdress else 0
    width = round(26 * scale)
    foot = round(7 * scale)
    total = height + cap + foot

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        f = height * k / 72
        body = STONE_DARK if dark else STONE
        ox = (width * k - 40 * f) / 2
        draw.polygon([(ox + x * f, (cap * k) + y * f) for x, y in _MOAI_OUTLINE], fill=body,
                     outline=RIM, width=max(1, k))
        if headdress:
            draw.rounded_rectangle((ox + 9 * f, 0, ox + 35 * f, (cap + 1) * k), radius=2 * k,
                                   fill=SCORIA, outline=INK, width=k)
        fill = seat_colour(base).fill if base else HIDDEN_BASE
        draw.rectangle((0, (total - foot) * k, (width - 1) * k, (total - 1) * k), fill=fill,
                       outline=INK if base else RIM, width=k)
        if base:  # the owner's mark on a disc of its colour, at the statue's foot
            r = (MARK / 2 + FILL_RIM) * scale
            cx, cy = width / 2 * k, (total - foot - r) * k
            draw.ellipse((cx - r * k, cy - r * k, cx + r * k, cy + r * k), fill=fill,
                         outline=INK, width=k)
            seat_mark(draw, (cx, cy), MARK * scale * k, base)
    picture = sprite(width, total, paint)
    return marked(picture, base) if base else picture


@cache
def pukao() -> Image.Image:
    """A headdress (pukao): a short cylinder of red scoria."""
    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rectangle((3 * k, 8 * k, 21 * k, 20 * k), fill=SCORIA)
        draw.ellipse((3 * k, 14 * k, 21 * k, 23 * k), fill=SCORIA, outline=INK, width=k)
        draw.ellipse((3 * k, 3 * k, 21 * k, 12 * k), fill=PUKAO_TOP, outline=INK, width=k)
        draw.line([(3 * k, 8 * k), (3 * k, 19 * k)], fill=INK, width=k)
        draw.line([(21 * k, 8 * k), (21 * k, 19 * k)], fill=INK, width=k)
    return sprite(24, 24, paint)


@cache
def reservation(colour: str) -> Image.Image:
    """A base standing colour up on an empty ahu: a reservation."""
    pal = seat_colour(colour)

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rectangle((k, k, 29 * k, (RESERVED_H - 1) * k), fill=pal.fill, outline=WHITE,
                       width=2 * k)
        seat_mark(draw, (15 * k, RESERVED_H / 2 * k), MARK * k, colour)
    return marked(sprite(30, RESERVED_H, paint), colour)



@cache
def value_badge(value: int, red: bool) -> Image.Image:
    """An ahu's value: black square (points per moai size) or red circle (headdress points)."""
    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        if red:
            draw.ellipse((k, k, 21 * k, 21 * k), fill=RED_VALUE, outline=WHITE, width=k)
        else:
            draw.rectangle((k, k, 21 * k, 21 * k), fill=BLACK_VALUE, outline=WHITE, width=k)
        draw.text((11 * k, 11.5 * k), str(value), font=font(DIGITS * k, True), fill=WHITE,
                  anchor="mm")
    return sprite(22, 22, paint)


@cache
def die(face: int) -> Image.Image:
    """A die showing its face as a digit (faces are 0-3)."""
    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rounded_rectangle((k, k, 27 * k, 27 * k), radius=5 * k, fill=WHITE, outline=INK,
                               width=2 * k)
        draw.text((14 * k, 14.5 * k), str(face), font=font(18 * k, True), fill=INK,
                  anchor="mm")
    return sprite(28, 28, paint)


@cache
def rongo() -> Image.Image:
    """A rongo half-tablet (a half disc of wood with glyph lines)."""
    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.pieslice((k, 3 * k, 21 * k, 23 * k), 90, 270, fill=WOOD_LIGHT, outline=INK, width=k)
        for y in (8, 12, 16):
            draw.line([(5 * k, y * k), (10 * k, y * k)], fill=WOOD, width=k)
    return sprite(12, 26, paint)


@cache
def tray_pointer(count: int) -> Image.Image:
    """In the moai quarry's hex when its statues lie in the tray: their number and an arrow
    towards the tray (south-east, out on the sea)."""
    text = f"{count}"
    width = 10 + _digits_width(text) + 4 + 14 + 6

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rounded_rectangle((k, k, (width - 1) * k, (CHIP_H - 1) * k), radius=5 * k,
                               fill=STONE, outline=INK, width=2 * k)
        draw.text((8 * k, 12.5 * k), text, font=font(DIGITS * k, True), fill=WHITE,
                  anchor="lm")
        x = width - 20
        draw.line([(x * k, 6 * k), ((x + 11) * k, 17 * k)], fill=WHITE, width=3 * k)
        draw.polygon([((x + 13) * k, 19 * k), ((x + 13) * k, 9 * k), ((x + 3) * k, 19 * k)],
                     fill=WHITE)
    return sprite(width, CHIP_H, paint)


@cache
def more(count: int) -> Image.Image:
    """``+n``: items left out of a full row."""
    text = f"+{count}"
    width = 8 + _digits_width(text)

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.text((4 * k, 12.5 * k), text, font=font(DIGITS * k, True), fill=INK, anchor="lm")
    return sprite(width, CHIP_H, paint)


@cache
def lit_slot(width: int, height: int) -> Image.Image:
    """The slot of a changed ahu lit up behind its statue: the change colour with a dark rim
    and the platform drawn again at its foot."""
    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rounded_rectangle((0, 0, width * k - 1, height * k - 1), radius=6 * k, fill=INK)
        draw.rounded_rectangle((2 * k, 2 * k, (width - 2) * k - 1, (height - 2) * k - 1),
                               radius=5 * k, fill=CHANGED)
        draw.rounded_rectangle((0, (height - 7) * k, width * k - 1, (height - 1) * k),
                               radius=2 * k, fill=STONE_DARK, outline=WHITE, width=k)
    return sprite(width, height, paint)
