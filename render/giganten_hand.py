"""A Giganten player's private image: licence hand, tiles looked at, action card (for a DM).

It is drawn from that seat's own view only, so it can never show another seat's secrets.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from PIL import Image

from render.common import (
    BLACK,
    INK,
    PAPER,
    RGB,
    SEAT_NAMES,
    blank,
    fit_text,
    font,
    pairs,
    paste_centred,
    seat_colour,
    seat_colours,
    seat_names,
    swatch,
    text_lang,
    text_length,
)
from render.frames import draw_on
from render.giganten_art import (
    CARD_BEIGE,
    CARD_H,
    CARD_RED,
    CARD_W,
    CELL,
    DISPLAY_STRIP,
    GOLD,
    LICENCE_FILL,
    MUTED,
    TILE_FILL,
    WHITE,
    action_card,
    card_lines,
    hidden_tile,
    licence_card,
)
from render.i18n import t
from render.palette import Design, Palette, build

MARGIN = 24
HAND_WIDTH = 500
"""The hand's width: its content's, narrow enough that a phone shows its smallest text (15 px)
at least 7 px tall at 340 px across."""
TILE_STEP = 96
SECTION_GAP = 22

_FILLS = [seat_colour(c).fill for c in SEAT_NAMES]
_CARDS: tuple[RGB, ...] = (CARD_BEIGE, CARD_RED, *LICENCE_FILL.values())
DESIGN = Design(
    colours=(INK, PAPER, WHITE, MUTED, GOLD, DISPLAY_STRIP, *TILE_FILL.values(), *_CARDS,
             *seat_colours()),
    ramps=(pairs((INK,), (PAPER, *_CARDS), 16) + pairs((MUTED,), (PAPER,), 16)
           + pairs((INK, WHITE), _FILLS, 8) + pairs((INK,), (BLACK, WHITE, GOLD), 8)
           + pairs((WHITE,), (*TILE_FILL.values(), DISPLAY_STRIP), 8)
           + pairs((INK,), (*TILE_FILL.values(),)) + pairs(_FILLS, (PAPER, WHITE))))
"""A Giganten hand's colours (see ``render.palette``)."""


@cache
def hand_palette() -> Palette:
    """A Giganten hand's palette, built once per process."""
    return build(DESIGN)


def hand_canvas(view: dict[str, Any], seat: str, lang: str = "en",
                names: dict[str, str] | None = None) -> Image.Image:
    """The private picture of ``seat``; ``view`` must be that seat's own view."""
    image = hand_base(view, seat).copy()
    paint_hand(image, view, seat, lang, names)
    return image


def hand_base(view: dict[str, Any], seat: str) -> Image.Image:
    """The bare paper ``seat``'s hand is drawn on (its height is what the hand holds);
    ``view`` must be that seat's own view."""
    you = view.get("you")
    if not you or you["seat"] != seat:
        raise ValueError(f"the view is not {seat}'s own view")
    peeked: list[str] = view["players"][seat]["peeked"]
    per_row = (HAND_WIDTH - 2 * MARGIN) // TILE_STEP
    tile_rows = max(1, -(-len(peeked) // per_row))
    return blank(HAND_WIDTH, 70 + 40 + 90 + SECTION_GAP + 40 + tile_rows * 90 + SECTION_GAP + 40
                 + CARD_H + 30)


def paint_hand(image: Image.Image, view: dict[str, Any], seat: str, lang: str,
               names: dict[str, str] | None) -> None:
    """Everything of ``seat``'s hand on its paper (``image`` starts as it)."""
    you = view["you"]
    shown = seat_names(view["seats"], lang, names)
    licences: list[int] = you["licences"]
    peeked: list[str] = view["players"][seat]["peeked"]
    per_row = (HAND_WIDTH - 2 * MARGIN) // TILE_STEP
    tile_rows = max(1, -(-len(peeked) // per_row))
    draw = draw_on(image)
    head, plain = font(20, True, lang), font(17, lang=lang)

    swatch(draw, (MARGIN, 20, MARGIN + 30, 50), seat)
    title = t("render.giganten.hand.title", lang, name=shown[seat])
    bold = font(24, True, text_lang(title, lang))
    when = t("render.round", lang, round=view["round"])  # no phase: the hand is redrawn only
    # when what it holds changes, and the round (the table says the phase)
    when = fit_text(when, plain, 140)
    room = HAND_WIDTH - 2 * MARGIN - 44 - 12 - plain.getlength(when)
    draw.text((MARGIN + 44, 35), fit_text(title, bold, room), font=bold, fill=INK, anchor="lm")
    draw.text((HAND_WIDTH - MARGIN, 35), when, font=plain, fill=MUTED, anchor="rm")

    y = 90
    text = (t("render.giganten.hand.licences", lang, count=len(licences),
              ones=licences.count(1), twos=licences.count(2), total=sum(licences))
            if licences else t("render.giganten.hand.no_licences", lang))
    draw.text((MARGIN, y), fit_text(text, head, HAND_WIDTH - 2 * MARGIN), font=head, fill=INK,
              anchor="lm")
    y += 24
    # one card of each value with how many: cards laid over each other covered their numbers
    left = MARGIN
    for value in sorted(set(licences)):
        paste_centred(image, licence_card(value), (left + 27, y + 40))
        count = f"× {licences.count(value)}"
        draw.text((left + 64, y + 40), count, font=font(26, True), fill=INK, anchor="lm")
        left += 64 + round(text_length(font(26, True), count)) + 30
    y += 90 + SECTION_GAP

    draw.text((MARGIN, y), t("render.giganten.hand.peeked", lang), font=head, fill=INK,
              anchor="lm")
    y += 24
    if not peeked:
        draw.text((MARGIN, y + 20), t("render.giganten.hand.no_peeked", lang), font=plain,
                  fill=MUTED, anchor="lm")
    for i, label in enumerate(peeked):
        space = view["spaces"][label]
        x = MARGIN + CELL / 2 + (i % per_row) * TILE_STEP
        top = y + (i // per_row) * 90
        paste_centred(image, _tile_picture(label, space), (x, top + 30))
        caption = t(f"render.giganten.hand.state.{space['state']}", lang)
        draw.text((x, top + 72), fit_text(caption, font(15, lang=lang), TILE_STEP - 6),
                  font=font(15, lang=lang), fill=MUTED, anchor="mm")
    y += tile_rows * 90 + SECTION_GAP

    draw.text((MARGIN, y), t("render.giganten.hand.card", lang), font=head, fill=INK,
              anchor="lm")
    y += 24
    card = view["players"][seat]["card"]
    if card:
        picture = action_card(card_lines(card, lang), card.startswith("r"), seat, shown[seat],
                              lang)
        paste_centred(image, picture, (MARGIN + CARD_W / 2, y + CARD_H / 2))
    else:
        draw.text((MARGIN, y + 20), t("render.giganten.hand.no_card", lang), font=plain,
                  fill=MUTED, anchor="lm")


def _tile_picture(label: str, space: dict[str, Any]) -> Image.Image:
    """A tile as the seat saw it: face down with the value it learned, whatever became of it."""
    return hidden_tile(label, space["type"], space["value"], ())
