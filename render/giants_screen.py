"""A seat's private Giants picture: what stands behind its screen, for a direct message.

Made only from that seat's own view (``view(state, seat)``), so it can show nothing the seat may
not know: its screen and urn, its sealed bid or end-of-round answer until they resolve, the items
in front of it (a headdress carved this round waits there for the next round), the moai it owns
and the owners it has learnt by peeking.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from typing import Any

from PIL import Image, ImageDraw

from render import frames
from render import giants_art as art
from render.common import (
    BLACK,
    INK,
    PAPER,
    RGB,
    SEAT_NAMES,
    blank,
    colour_name,
    fit_text,
    font,
    pairs,
    paste_centred,
    seat_colour,
    seat_colours,
    seat_mark,
    text_length,
    traced,
)
from render.frames import draw_on
from render.i18n import t
from render.palette import Design, Palette, build
from rules.data import load

WIDTH = 480
"""The screen's width: its content's, narrow enough that a phone shows the numbers on its
pieces (16 px digits) at least 7 px tall at 340 px across."""
PIECE_W = (WIDTH - 48) // 2
"""A piece with its word takes half a line: two to a line, in every language."""
PIECE_H = 40
BEHIND_H = 72 + 3 * PIECE_H
"""The panel behind the screen: its title, the urn, and three lines of two pieces."""
MUTED: RGB = (96, 96, 104)
PANEL: RGB = (238, 234, 224)
LINE_H = 40
FRONT_H = 48
_AHUS = {a["id"]: a for a in load("giants_board.json")["ahus"]}
WHITE: RGB = (255, 255, 255)
_FILLS = [seat_colour(c).fill for c in SEAT_NAMES]
DESIGN = Design(
    colours=(INK, PAPER, WHITE, MUTED, PANEL, art.STONE, art.STONE_DARK, art.SCORIA, art.WOOD,
             art.WOOD_LIGHT, art.LEAF, art.ASH, art.TREE, art.RIM, art.HIDDEN_BASE,
             art.PUKAO_TOP, *seat_colours()),
    ramps=(pairs((INK,), (PAPER, PANEL), 16) + pairs((MUTED,), (PAPER, PANEL), 8)
           + pairs((INK, WHITE), _FILLS, 8) + pairs((INK,), (BLACK, WHITE), 8)
           + pairs((INK, WHITE, art.RIM), (art.STONE, art.STONE_DARK, art.SCORIA, art.WOOD,
                                          art.WOOD_LIGHT, art.LEAF, PAPER, PANEL))
           + pairs(_FILLS, (PAPER, PANEL))))
"""A Giants screen's colours (see ``render.palette``)."""


@cache
def palette() -> Palette:
    """A Giants screen's palette, built once per process."""
    return build(DESIGN)


def screen_canvas(view: dict[str, Any], seat: str, lang: str = "en") -> Image.Image:
    """The picture of ``seat``'s screen; ``view`` must be that seat's own view."""
    image = screen_base(view, seat).copy()
    paint_screen(image, view, seat, lang)
    return image


def screen_base(view: dict[str, Any], seat: str) -> Image.Image:
    """The bare paper ``seat``'s screen is drawn on (its height is what the screen holds);
    ``view`` must be that seat's own view."""
    if view.get("me") != seat or "screen" not in view:
        raise ValueError(f"the view is not {seat}'s own view")
    owned, peeked = _known_moai(view, seat)
    front = view["players"][seat]["front"]
    return blank(WIDTH, 84 + BEHIND_H + _secrets_height(view) + (FRONT_H if front else 0)
                 + _list_height(owned, True) + (_list_height(peeked, False) if peeked else 0))


def _secrets_height(view: dict[str, Any]) -> int:
    """The sealed bid takes a line and two lines of pieces; an answer or the score a line."""
    return 50 + (2 * PIECE_H if view.get("my_bid") else 0)


def paint_screen(image: Image.Image, view: dict[str, Any], seat: str, lang: str) -> None:
    """Everything of ``seat``'s screen on its paper (``image`` starts as it)."""
    owned, peeked = _known_moai(view, seat)
    front = view["players"][seat]["front"]
    draw = draw_on(image)
    pal = seat_colour(seat)
    draw.rectangle((0, 0, WIDTH, 64), fill=pal.fill)
    title = t("render.giants.screen.title", lang, name=colour_name(seat, lang))
    sub = t("render.round", lang, round=view["round"])  # no phase: a screen is redrawn only
    # when what it holds changes (the table says the phase)
    sub = fit_text(sub, font(20, lang=lang), 120)
    paste_centred(image, _header_mark(seat), (11, 32))  # the seat's mark, as on its pieces
    room = WIDTH - 60 - text_length(font(20, lang=lang), sub)
    draw.text((24, 32), fit_text(title, font(22, True, lang), room), font=font(22, True, lang),
              fill=pal.ink, anchor="lm")
    draw.text((WIDTH - 24, 32), sub, font=font(20, lang=lang), fill=pal.ink, anchor="rm")
    _behind_screen(image, draw, view, seat, lang, 84)
    _secrets(image, draw, view, seat, lang, 84 + BEHIND_H + 12)
    y = 84 + BEHIND_H + _secrets_height(view)
    if front:
        _front(image, draw, view, front, lang, y)
        y += FRONT_H
    y = _moai_list(image, draw, view, lang, owned, True, y)
    if peeked:
        _moai_list(image, draw, view, lang, peeked, False, y)


HEADER_MARK = 12
"""The seat's mark before its name in the screen's header (7 points tall on a phone)."""


def _header_mark(seat: str) -> Image.Image:
    """The seat's mark as a sprite (its box noted, as on a piece), drawn in the seat's ink."""
    sprite = Image.new("RGBA", (HEADER_MARK, HEADER_MARK), (0, 0, 0, 0))
    seat_mark(traced(sprite), (HEADER_MARK / 2, HEADER_MARK / 2), HEADER_MARK, seat)
    return sprite


def screen(view: dict[str, Any], seat: str, lang: str = "en", *,
           frame: Hashable = None) -> bytes:
    """PNG bytes of ``seat``'s screen, from that seat's view; ``frame`` names the stream of
    screens it follows (see :mod:`render.frames`)."""
    return frames.picture(frame, screen_base(view, seat), palette(),
                          lambda image: paint_screen(image, view, seat, lang))


def _known_moai(view: dict[str, Any], seat: str) -> tuple[list[str], list[str]]:
    """Ahus with the seat's own moai, and ahus whose other owner the seat knows (a peek, or a
    public owner)."""
    owned = [a for a, spot in view["ahus"].items() if spot["moai"] and spot["owner"] == seat]
    peeked = [a for a, spot in view["ahus"].items()
              if spot["moai"] and spot["owner"] not in (None, seat)]
    return owned, peeked


def _piece(image: Image.Image, draw: ImageDraw.ImageDraw, x: float, y: float,
           picture: Image.Image, text: str, lang: str = "en",
           room: float = WIDTH) -> float:
    """A picture with its count or word beside it (cut to ``room`` pixels with the
    picture); returns where the next one starts."""
    image.paste(picture, (round(x), round(y - picture.height / 2)), picture)
    x += picture.width + 6
    face = font(20, True, lang)
    text = fit_text(text, face, room - picture.width - 14)
    draw.text((x, y), text, font=face, fill=INK, anchor="lm")
    return x + text_length(face, text) + 28


def _pieces(image: Image.Image, draw: ImageDraw.ImageDraw, top: float,
            pieces: list[tuple[Image.Image, str]], lang: str) -> None:
    """Pieces with their words, two to a line from ``top`` (the first line's middle)."""
    for n, (picture, text) in enumerate(pieces):
        _piece(image, draw, 32 + (n % 2) * PIECE_W, top + (n // 2) * PIECE_H, picture, text,
               lang, PIECE_W - 12)


COLUMNS = 1
ENTRY_W = (WIDTH - 48) // COLUMNS
ENTRY_H = 62


def _list_height(ahus: list[str], always: bool) -> int:
    """Height of a titled list of moai, one to a line."""
    entries = len(ahus) or (1 if always else 0)
    return 40 + -(-entries // COLUMNS) * ENTRY_H


def _behind_screen(image: Image.Image, draw: ImageDraw.ImageDraw, view: dict[str, Any],
                   seat: str, lang: str, top: int) -> None:
    """Figures, markers, logs and bases behind the screen, then what is left in the urn."""
    box = view["screen"]
    draw.rounded_rectangle((16, top, WIDTH - 16, top + BEHIND_H - 8), radius=10, fill=PANEL)
    draw.text((32, top + 20), t("render.giants.screen.behind", lang),
              font=font(18, True, lang), fill=MUTED, anchor="lm")
    urn = view["urn"]
    face = font(18, lang=lang)
    draw.text((32, top + 46), fit_text(t("render.giants.screen.urn", lang,
                                         workers=urn["workers"], markers=urn["markers"]),
                                       face, WIDTH - 64), font=face, fill=INK, anchor="lm")
    word = "render.giants.screen.{}"
    _pieces(image, draw, top + 72 + PIECE_H / 2 - 4, [
        (art.counted("worker", seat, box["workers"]), t("render.giants.screen.workers", lang)),
        (art.figures(seat, 0, True, False),
         t(word.format("here" if box["sorcerer"] else "away"), lang)),
        (art.figures(seat, 0, False, True),
         t(word.format("here" if box["chief"] else "away"), lang)),
        (art.counted("marker", seat, box["markers"]), t("render.giants.screen.markers", lang)),
        (art.logs(box["logs"]), t("render.giants.key.logs", lang)),
        (art.reservation(seat), t("render.giants.screen.bases", lang, count=box["bases"]))],
        lang)


def _secrets(image: Image.Image, draw: ImageDraw.ImageDraw, view: dict[str, Any], seat: str,
             lang: str, top: int) -> None:
    """The sealed bid or end-of-round answer while only this seat knows it, else the public
    prestige and rongo."""
    face = font(20, lang=lang)
    y = top + 16
    bid, answer = view.get("my_bid"), view.get("my_endround")
    if bid:
        text = t("render.giants.screen.bid", lang)
        draw.text((32, y), fit_text(text, face, WIDTH - 64), font=face, fill=INK, anchor="lm")
        pieces = [(art.counted("marker", seat, bid["markers"]),
                   t("render.giants.screen.markers", lang)),
                  (art.counted("worker", seat, bid["workers"]),
                   t("render.giants.screen.workers", lang))]
        if bid["chief"] or bid["sorcerer"]:
            pieces.append((art.figures(seat, 0, bool(bid["sorcerer"]), bool(bid["chief"])), ""))
        _pieces(image, draw, y + PIECE_H, pieces, lang)
    elif answer is not None:
        text = t("render.giants.screen.answer", lang, mark=answer["mark"] or "-",
                 recall=answer["recall"] or "-")
        draw.text((32, y), fit_text(text, face, WIDTH - 64), font=face, fill=INK, anchor="lm")
    else:
        text = t("render.giants.screen.prestige", lang, prestige=view["scores"][seat],
                 rongo=view["players"][seat]["rongo"])
        draw.text((32, y), fit_text(text, face, WIDTH - 64), font=face, fill=INK, anchor="lm")


def _front(image: Image.Image, draw: ImageDraw.ImageDraw, view: dict[str, Any],
           front: list[str], lang: str, top: int) -> None:
    """The items in front of the screen: a moai taken this round moves from the moai quarry in
    this transport; a headdress carved this round waits for the next round."""
    bold = font(20, True, lang)
    y = top + FRONT_H / 2
    title = t("render.giants.screen.front", lang)
    draw.text((32, y), title, font=font(18, True, lang), fill=MUTED, anchor="lm")
    x = 44 + text_length(font(18, True, lang), title)
    for item_id in front:
        item = view["items"][item_id]
        number = int(item_id.lstrip("abcdefghijklmnopqrstuvwxyz"))
        chip = art.item_tag(item["kind"], number, item["size"], item["marker"])
        if item["kind"] == "moai":
            text = t("render.giants.screen.front_moai", lang, item=item_id, size=item["size"])
        else:
            text = t("render.giants.screen.front_headdress", lang, item=item_id)
        text = fit_text(text, bold, WIDTH - 32 - (x + chip.width + 6))
        if not text.strip("…"):
            break
        x = _piece(image, draw, x, y, chip, text, lang)


def _moai_list(image: Image.Image, draw: ImageDraw.ImageDraw, view: dict[str, Any],
               lang: str, ahus: list[str], own: bool, top: int) -> int:
    """The seat's own moai (ahu, size, points) or the owners it knows of others' moai, one to a
    line; returns where the next part starts."""
    title = "render.giants.screen.mine" if own else "render.giants.screen.known"
    draw.text((32, top + 14), t(title, lang), font=font(18, True, lang), fill=MUTED,
              anchor="lm")
    y = top + 40
    face = font(20, lang=lang)
    if not ahus:
        draw.text((48, y + ENTRY_H / 2), t("render.giants.screen.none", lang), font=face,
                  fill=INK, anchor="lm")
    for n, ahu_id in enumerate(ahus):
        x = 32 + (n % COLUMNS) * ENTRY_W
        row_y = y + (n // COLUMNS) * ENTRY_H
        spot = view["ahus"][ahu_id]
        size = view["items"][spot["moai"]]["size"]
        pic = art.statue(size, spot["headdress"] is not None, spot["owner"])
        image.paste(pic, (x + 8, round(row_y + ENTRY_H - 4 - pic.height)), pic)
        if own:
            data = _AHUS[ahu_id]
            points = data["black"] * size + (data["red"] if spot["headdress"] else 0)
            text = t("render.giants.screen.moai", lang, ahu=ahu_id, points=points)
        else:
            text = t("render.giants.screen.owner", lang, ahu=ahu_id,
                     name=colour_name(spot["owner"], lang))
        draw.text((x + 44, row_y + ENTRY_H / 2), fit_text(text, face, ENTRY_W - 52), font=face,
                  fill=INK, anchor="lm")
    return y + -(-max(len(ahus), 1) // COLUMNS) * ENTRY_H
