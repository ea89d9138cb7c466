"""Small pictures for the Giganten images: tiles, derricks, trucks, locomotives, cards, chips.

Each is drawn once per distinct look (supersampled by ``render.common.sprite``) and cached, so a
render only pastes finished pictures. Everything here is drawn from what a view shows.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from PIL import Image, ImageDraw

from render.common import (
    INK,
    RGB,
    fit_text,
    font,
    labelling,
    marked,
    mix,
    seat_colour,
    seat_mark,
    sprite,
    text_lang,
)
from render.i18n import t
from render.marks import SEAT_MARKS
from rules.data import load

WIDTH = 1280
"""The width of every Giganten picture: a little over the 1200 px minimum; fonts are 15 px or
more, so >= 14 px at 1200 px wide."""
_DATA = load("giganten_data.json")
CARDS: dict[str, dict[str, Any]] = {c["id"]: c for c in _DATA["beige_cards"] + _DATA["red_cards"]}

CELL = 58
"""Side of a landscape space in pixels."""
TILE = 46
"""Side of a tile or derrick on its space."""
MARK = 19.5
"""The side of a seat's mark on a derrick or a truck (render.common.seat_mark): its least
tall shape (the grey seat's bar, 0.6 of it) 11.7 px tall, 7 px on a phone showing a focus
(render.focus, 504 px wide) 302 px across."""

WHITE: RGB = (255, 255, 255)
MUTED: RGB = (96, 96, 104)
OIL: RGB = (30, 26, 24)
GOLD: RGB = (250, 204, 60)
TILE_FILL: dict[int, RGB] = {1: (92, 70, 54), 2: (150, 36, 36), 3: (56, 52, 78)}
"""Face-down tiles by type: brown, red (the two-derrick tiles), slate."""
BLACK_LOCO = "black"
CARD_BEIGE: RGB = (240, 226, 196)
CARD_RED: RGB = (236, 176, 168)
CARD_W, CARD_H = 232, 88
LICENCE_FILL: dict[int, RGB] = {1: (226, 236, 214), 2: (204, 224, 240)}
DISPLAY_STRIP: RGB = (120, 110, 96)
"""The strip of an action card on display (no holder yet)."""


def _derrick_shape(draw: ImageDraw.ImageDraw, x: float, y: float, h: float,
                   fill: RGB | tuple[int, int, int, int], outline: RGB, k: int) -> None:
    """A derrick tower, ``h`` tall, with its foot centred at (x, y + h): a lattice triangle
    (``fill`` may be a transparent RGBA colour: an outline only)."""
    w = h * 0.62
    top = (x, y)
    left, right = (x - w / 2, y + h), (x + w / 2, y + h)
    draw.polygon([top, right, left], fill=fill, outline=outline, width=max(1, round(k * 1.5)))
    for share in (0.45, 0.75):
        yy = y + h * share
        half = w / 2 * share
        draw.line([(x - half, yy), (x + half, yy)], fill=outline, width=max(1, k))
    draw.line([(x - w * 0.2, y + h * 0.45), (x + w * 0.37, y + h)], fill=outline,
              width=max(1, k))


@cache
def hidden_tile(label: str, kind: int, value: int | None, peekers: tuple[str, ...]) -> Image.Image:
    """A face-down tile: its label, one small derrick per derrick it gives (or, only if the view
    knows it, its value in a gold disc) and, along its foot, the marks of those who have looked
    at it, each in its seat's fill in a white halo (:func:`peek_marks`): a seat is told by
    its mark's shape, not by its colour alone. It leaves a frame of the space free, so the
    terrain (its entry cost) still shows."""
    size = TILE
    up = 5 if peekers else 0  # the value's disc higher and smaller: the marks' room below

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rounded_rectangle((0, 0, size * k - 1, size * k - 1), radius=6 * k,
                               fill=TILE_FILL[kind], outline=INK, width=2 * k)
        if value is not None:
            cx, cy, r = size / 2, 27 - up, 9 - up / 5
            draw.ellipse(((cx - r) * k, (cy - r) * k, (cx + r) * k, (cy + r) * k),
                         fill=GOLD, outline=INK, width=k)
            draw.text((cx * k, (cy + 0.5) * k), str(value), font=font(15 * k, True), fill=INK,
                      anchor="mm")
        else:
            step = 13
            x0 = size / 2 - (kind - 1) * step / 2
            for i in range(kind):
                _derrick_shape(draw, (x0 + i * step) * k, 18 * k, 15 * k, WHITE, INK, k)
        with labelling(draw, "space"):  # over the disc's rim, which may reach up to it
            draw.text((size / 2 * k, 10 * k), label, font=font(15 * k, True), fill=WHITE,
                      anchor="mm")
        for seat, (mx, my), side in peek_marks(peekers):
            seat_mark(draw, (mx * k, my * k), (side + 2 * PEEK_HALO) * k, seat, WHITE,
                      note=False)
            seat_mark(draw, (mx * k, my * k), side * k, seat, seat_colour(seat).fill)
    return sprite(size, size, paint)


PEEK_TALL = 12.0
"""How tall a peeker's mark on a face-down tile is where the tile leaves room: 7 px on a phone
showing a focus (render.focus, 504 px wide) 302 px across, as a derrick's."""
PEEK_HALO = 1.0
"""The white halo round a peeker's mark: its shape reads on every tile's dark fill."""
PEEK_ROOM = (1.0, TILE - 1.0)
"""The foot of a tile, left to right, where the peekers' marks (with their halos) go."""
_MARK_EXTENT: dict[str, tuple[float, float]] = {"bar": (1.0, 0.6), "square": (0.85, 0.85),
                                                "triangle": (1.0, 0.9)}
"""How wide and tall a mark's shape is, as shares of its side (render.common.seat_mark);
the others fill it."""


def peek_marks(peekers: tuple[str, ...]) -> list[tuple[str, tuple[float, float], float]]:
    """Where each peeker's mark goes on a face-down tile: its seat, its centre and its side.
    Each is PEEK_TALL tall, in one row along the tile's foot, if the row fits its room; else
    all are shrunk alike until it does (four seats, the grey's wide bar among them): as
    large as the tile allows."""
    extents = [_MARK_EXTENT.get(SEAT_MARKS.get(seat, "ring"), (1.0, 1.0)) for seat in peekers]
    sides = [PEEK_TALL / tall for _, tall in extents]
    widths = [side * wide + 2 * PEEK_HALO for side, (wide, _) in zip(sides, extents, strict=True)]
    gap = 0.5
    room = PEEK_ROOM[1] - PEEK_ROOM[0]
    need = sum(widths) + gap * max(0, len(widths) - 1)
    scale = min(1.0, (room - gap * max(0, len(widths) - 1)) / sum(widths)) if widths else 1.0
    x = PEEK_ROOM[0] + max(0.0, room - need) / 2 if scale == 1.0 else PEEK_ROOM[0]
    cy = TILE - 2.5 - (PEEK_TALL / 2 + PEEK_HALO) * scale
    placed = []
    for seat, side, width in zip(peekers, sides, widths, strict=True):
        placed.append((seat, (x + width * scale / 2, cy), side * scale))
        x += width * scale + gap
    return placed


@cache
def derrick(label: str, owner: str, chips: int) -> Image.Image:
    """A built derrick on its space: the owner's tint and rim, the label, the owner's mark
    (dark on the tint: large enough to read on a phone, where the tower it replaces was) and
    the chips still in it on a black oil drop."""
    pal = seat_colour(owner)
    size = TILE

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rounded_rectangle((0, 0, size * k - 1, size * k - 1), radius=6 * k, fill=pal.tint,
                               outline=pal.fill, width=3 * k)
        # centred in the top row: a change ring (render.common.changed_box) pasted round
        # the space leaves it clear; the seat's mark goes on the tower instead
        with labelling(draw, "space"):
            draw.text((size / 2 * k, 10 * k), label, font=font(15 * k, True), fill=INK,
                      anchor="mm")
        seat_mark(draw, (13.5 * k, 31 * k), MARK * k, owner, INK)
        draw.ellipse((24 * k, 21 * k, 43 * k, 40 * k), fill=OIL, outline=WHITE, width=k)
        draw.text((33.5 * k, 31 * k), str(chips), font=font(15 * k, True), fill=WHITE,
                  anchor="mm")
    return marked(sprite(size, size, paint), owner)


@cache
def spent_mark() -> Image.Image:
    """A dry well: a faint tower outline where a derrick has run out."""
    size = CELL - 16

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        _derrick_shape(draw, size / 2 * k, 4 * k, (size - 8) * k, (0, 0, 0, 0), MUTED, k)
    return sprite(size, size, paint)


@cache
def truck(colour: str) -> Image.Image:
    """A seat's truck: body and cab in its colour, dark wheels, a white rim to lift it off the
    terrain; the body tall enough for the seat's mark at a size a phone shows."""
    pal = seat_colour(colour)
    w, h = 54, 40

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rounded_rectangle((1 * k, 3 * k, 35 * k, 31 * k), radius=3 * k, fill=pal.fill,
                               outline=WHITE, width=3 * k)
        draw.rounded_rectangle((33 * k, 12 * k, 53 * k, 31 * k), radius=4 * k, fill=pal.fill,
                               outline=WHITE, width=3 * k)
        draw.rectangle((39 * k, 15 * k, 47 * k, 21 * k), fill=WHITE)
        draw.rounded_rectangle((3 * k, 5 * k, 33 * k, 29 * k), radius=2 * k, outline=INK,
                               width=k)
        for cx in (12, 44):
            draw.ellipse(((cx - 6) * k, 27 * k, (cx + 6) * k, 39 * k), fill=INK,
                         outline=WHITE, width=k)
        seat_mark(draw, (18 * k, 17 * k), MARK * k, colour)
    return marked(sprite(w, h, paint), colour)


@cache
def locomotive(colour: str, position: int | None) -> Image.Image:
    """A locomotive in the seat's colour (black for the black train) with its position on the
    boiler, so the position reads without counting columns."""
    pal = seat_colour(colour)
    w, h = 58, 34

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rectangle((4 * k, 9 * k, 12 * k, 14 * k), fill=pal.fill, outline=WHITE, width=k)
        draw.rounded_rectangle((1 * k, 12 * k, 41 * k, 31 * k), radius=3 * k, fill=pal.fill,
                               outline=WHITE, width=2 * k)
        draw.rectangle((39 * k, 3 * k, 57 * k, 31 * k), fill=pal.fill, outline=WHITE,
                       width=2 * k)
        draw.rectangle((44 * k, 8 * k, 52 * k, 15 * k), fill=WHITE)
        for cx in (48,):
            draw.ellipse(((cx - 4) * k, 25 * k, (cx + 4) * k, 33 * k), fill=INK, outline=WHITE,
                         width=k)
        if colour != "black":
            seat_mark(draw, (10 * k, 22 * k), 13 * k, colour)
        if position is not None:
            draw.text((27 * k if colour != "black" else 21 * k, 22 * k), str(position),
                      font=font(16 * k, True), fill=pal.ink, anchor="mm")
    picture = sprite(w, h, paint)
    return marked(picture, colour) if colour != "black" else picture


def faded_fill(colour: str) -> RGB:
    """A seat's colour faded: its chip disc where it stores no chips. The white seat's is white
    (faded, it would be a hair off white: the same to the eye, and to the palette's cells)."""
    faded = mix(seat_colour(colour).fill, WHITE, 0.6)
    return WHITE if min(faded) >= 248 else faded


@cache
def chip_disc(colour: str, count: int, faded: bool = False) -> Image.Image:
    """A seat's chips in one storage area: a disc in its colour with the number of chips."""
    pal = seat_colour(colour)
    fill = faded_fill(colour) if faded else pal.fill
    ink = MUTED if faded else pal.ink

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.ellipse((k, k, 33 * k, 33 * k), fill=fill, outline=OIL, width=2 * k)
        seat_mark(draw, (17 * k, 9.5 * k), 9.5 * k, colour, ink)
        draw.text((17 * k, 22 * k), str(count), font=font(16 * k, True), fill=ink, anchor="mm")
    return marked(sprite(34, 34, paint), colour)


@cache
def price_marker() -> Image.Image:
    """The price marker: a gold ring with a dark rim around the current price."""
    w, h = 54, 44

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rounded_rectangle((k, k, (w - 1) * k, (h - 1) * k), radius=7 * k, outline=OIL,
                               width=6 * k)
        draw.rounded_rectangle((2 * k, 2 * k, (w - 2) * k, (h - 2) * k), radius=6 * k,
                               outline=GOLD, width=3 * k)
    return sprite(w, h, paint)


@cache
def licence_card(value: int) -> Image.Image:
    """A sales licence card, face up, with its value."""
    w, h = 54, 78

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        fill = LICENCE_FILL[value]
        draw.rounded_rectangle((k, k, (w - 1) * k, (h - 1) * k), radius=6 * k, fill=fill,
                               outline=INK, width=2 * k)
        draw.text((w / 2 * k, h / 2 * k), str(value), font=font(36 * k, True), fill=INK,
                  anchor="mm")
    return sprite(w, h, paint)


HOLDER_CARDS = 512
"""Action cards kept with their holder's name on: a game brings its own names, so these are
kept by use (the faces without the name, a few hundred in all, are kept for good)."""


@lru_cache(maxsize=HOLDER_CARDS)
def action_card(lines: tuple[str, str, str], red: bool, strip: str | None,
                strip_text: str, lang: str = "en") -> Image.Image:
    """An action card: a strip on top in its holder's colour (neutral while on display), the card
    id, its licences and MP, and its special; the words in ``lang``'s font.

    The face is drawn once per card, colour and language (:func:`_card_face`); the strip's
    words (a holder's name) are laid on a copy, at the picture's own size."""
    top = seat_colour(strip) if strip else None
    card = _card_face(lines, red, strip, lang).copy()
    head = font(15, True, text_lang(strip_text, lang))
    room = CARD_W - 20 - (STRIP_MARK + 6 if strip else 0)  # the holder's mark at its end
    ImageDraw.Draw(card).text((10, 13), fit_text(strip_text, head, room), font=head,
                              fill=top.ink if top else WHITE, anchor="lm")
    return marked(card, strip) if strip else card


@cache
def _card_face(lines: tuple[str, str, str], red: bool, strip: str | None,
               lang: str) -> Image.Image:
    """An action card without the words on its strip: its blank card (drawn large and shrunk,
    :func:`_blank_card`) with its three lines written on at the picture's own size (Pillow's
    text is smooth at any size: only the card's edges need drawing large)."""
    w = CARD_W
    card = _blank_card(red, strip).copy()
    draw = ImageDraw.Draw(card)
    bold = font(15, True, text_lang(lines[0], "en"))
    plain = font(15, lang=lang)
    draw.text((10, 40), fit_text(lines[0], bold, w - 20), font=bold, fill=INK, anchor="lm")
    draw.text((10, 58), fit_text(lines[1], plain, w - 20), font=plain, fill=INK, anchor="lm")
    draw.text((10, 76), fit_text(lines[2], plain, w - 20), font=plain, fill=INK, anchor="lm")
    return card


@cache
def _blank_card(red: bool, strip: str | None) -> Image.Image:
    """An action card's shape: beige or red, with its strip in the holder's colour (neutral
    while on display)."""
    w, h = CARD_W, CARD_H
    top = seat_colour(strip) if strip else None

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rounded_rectangle((k, k, (w - 1) * k, (h - 1) * k), radius=8 * k,
                               fill=CARD_RED if red else CARD_BEIGE, outline=INK, width=2 * k)
        fill = top.fill if top else DISPLAY_STRIP
        draw.rounded_rectangle((k, k, (w - 1) * k, 24 * k), radius=8 * k, fill=fill)
        draw.rectangle((k, 14 * k, (w - 1) * k, 24 * k), fill=fill)
        if strip:  # the holder told by its mark as well as by the strip's colour
            seat_mark(draw, ((w - 8 - STRIP_MARK / 2) * k, 13 * k), STRIP_MARK * k, strip)
    return sprite(w, h, paint)


STRIP_MARK = 19.5
"""The side of the holder's mark at the end of a card's strip: as a derrick's (:data:`MARK`),
the grey seat's bar 11.7 px tall, inside the strip's 24."""


@cache
def ranking_card(colour: str, head: str, total: str, winner: bool,
                 lang: str = "en") -> Image.Image:
    """A seat's card in the final ranking: its place and name on a strip in its colour with
    its mark at the end, then its final money in large figures, and a star for a winner."""
    w, h = CARD_W, CARD_H
    pal = seat_colour(colour)

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.rounded_rectangle((k, k, (w - 1) * k, (h - 1) * k), radius=8 * k,
                               fill=GOLD if winner else CARD_BEIGE, outline=INK,
                               width=(3 if winner else 2) * k)
        draw.rounded_rectangle((k, k, (w - 1) * k, 30 * k), radius=8 * k, fill=pal.fill)
        draw.rectangle((k, 18 * k, (w - 1) * k, 30 * k), fill=pal.fill)
        face = font(18 * k, True, text_lang(head, lang))
        end = w - (34 if winner else 8)  # the seat's mark at the strip's end, left of a star
        room = end - STRIP_MARK - 16
        draw.text((10 * k, 16 * k), fit_text(head, face, room * k), font=face, fill=pal.ink,
                  anchor="lm")
        seat_mark(draw, ((end - STRIP_MARK / 2) * k, 16 * k), STRIP_MARK * k, colour)
        if winner:
            draw.text(((w - 20) * k, 16 * k), "★", font=font(22 * k, True), fill=pal.ink,
                      anchor="mm")
        draw.text((w / 2 * k, 60 * k), total, font=font(30 * k, True), fill=INK, anchor="mm")
    return marked(sprite(w, h, paint), colour)


def card_lines(card: str, lang: str) -> tuple[str, str, str]:
    """An action card in words: id (and the black train's advance), licences and MP, special."""
    data = CARDS[card]
    first = card
    if "black" in data:
        first = t("render.giganten.card.red", lang, card=card, black=data["black"])
    second = t("render.giganten.card.numbers", lang, licences=data["licences"], mp=data["mp"])
    special = data["special"]
    third = (t(f"render.giganten.special.{special['kind']}", lang, n=special["value"])
             if special else t("render.giganten.special.none", lang))
    return first, second, third
