"""Every seat's pieces carry the seat's mark (issue: readable for colour-blind players).

A mid-game board of each game is painted on a :class:`render.frames.Sheet`, which records
every drawing: each pasted picture in which a seat's fill covers much of what is drawn (a
piece, a disc, a truck, a swatch at the head of a table row) must be named as carrying that
seat's mark (``render.common.marked``), and its pixels must hold the mark: the seat's ink
inside its fill. Every seat at the table has its row's swatch, and every seat with pieces on
the board has them marked.

The marks are read back from the same records (each noted on its piece as a label of kind
``mark``, :mod:`render.labels`) and measured where a phone shows them: at least
``render.labels.MIN_SHOWN`` (7 CSS px) tall on a focus and on a seat's screen or hand.
"""

from __future__ import annotations

import copy
import itertools
import math
from typing import Any

import pytest
from PIL import Image, ImageDraw

from render import common, focus, frames, giants_screen, giganten_art, labels, palette
from render import giants as giants_board
from render import giganten as giganten_board
from render import makemake as makemake_board
from rules.registry import game_module
from tests.helpers import canvas_cases

BOARDS = {"giants": giants_board, "giganten": giganten_board, "makemake": makemake_board}
PLAYS = {"giants": (4, 11), "giganten": (4, 3), "makemake": (4, 5)}
"""Seats and seed of one greedy game of each kind (the games ``test_render_frames`` plays)."""
SHARE = 0.25
"""A picture is a seat's piece when that seat's fill covers at least this share of it."""


def _mid_game(game: str) -> dict[str, Any]:
    seats, seed = PLAYS[game]
    steps = canvas_cases._played(game, seats, seed, "greedy")
    state, _ = steps[len(steps) // 2]
    return canvas_cases.MODULES[game].view(state, None)  # type: ignore[no-any-return]


def _pastes(game: str, view: dict[str, Any]) -> list[Image.Image]:
    board = BOARDS[game]
    base = board._base(view, "en")
    sheet = frames.Sheet(base)
    board._paint(sheet, view, "en", None, frozenset())
    return [op.args[0] for op in sheet.ops
            if op.method == "paste" and isinstance(op.args[0], Image.Image)]


def _near(a: tuple[int, ...], b: common.RGB, levels: int) -> bool:
    return all(abs(x - y) <= levels for x, y in zip(a[:3], b, strict=True))


def _share(picture: Image.Image, colour: common.RGB) -> float:
    """How much of the picture's drawn (opaque) pixels are ``colour`` (within a few levels:
    a sprite is shrunk from a larger drawing)."""
    rgba = picture.convert("RGBA")
    opaque = [p for p in rgba.get_flattened_data() if p[3] == 255]
    return sum(_near(p, colour, 8) for p in opaque) / len(opaque) if opaque else 0.0


def _inked(picture: Image.Image, seat: str) -> int:
    """Pixels of the seat's ink (within a few levels) inside the box of the seat's fill: the
    mark drawn on the piece. A faded piece (a store without chips) is drawn in a paler fill
    and ink: then the box is its most common colour's, and the ink any colour far from it."""
    pal = common.seat_colour(seat)
    rgba = picture.convert("RGBA")
    pixels = list(rgba.get_flattened_data())
    fill_colour: tuple[int, ...] = pal.fill
    if _share(picture, pal.fill) < 0.1:
        opaque = [tuple(c // 16 * 16 + 8 for c in p[:3]) for p in pixels if p[3] == 255]
        fill_colour = max(set(opaque), key=opaque.count)
    fill = Image.new("1", rgba.size)
    fill.putdata([p[3] == 255 and _near(p, fill_colour[:3], 16) for p in pixels])  # type: ignore
    box = fill.getbbox()
    if box is None:
        return 0
    inside = rgba.crop(box).get_flattened_data()
    if fill_colour == pal.fill:
        return sum(p[3] == 255 and _near(p, pal.ink, 24) for p in inside)
    return sum(p[3] == 255 and not _near(p, fill_colour[:3], 60) for p in inside)


@pytest.mark.parametrize("game", sorted(BOARDS))
def test_every_seats_pieces_carry_their_mark(game: str) -> None:
    view = _mid_game(game)
    seats = list(view["seats"])
    marked: dict[str, int] = dict.fromkeys(seats, 0)
    for picture in _pastes(game, view):
        for seat in seats:
            if _share(picture, common.seat_colour(seat).fill) >= SHARE:
                assert picture.info.get(common.MARK_KEY) == seat, (seat, picture.size)
        seat = picture.info.get(common.MARK_KEY)
        if seat is not None:
            assert _inked(picture, seat) >= 4, (seat, picture.size)
            marked[seat] = marked.get(seat, 0) + 1
    # each seat's row swatch at least, and pieces on the board mid-game
    assert all(marked[seat] >= 2 for seat in seats), marked


@pytest.mark.parametrize("seat", sorted(common.SEAT_MARKS))
def test_each_mark_is_drawn_inside_its_box(seat: str) -> None:
    picture = Image.new("RGB", (40, 40), (255, 255, 255))
    common.seat_mark(ImageDraw.Draw(picture), (20, 20), 20, seat, (0, 0, 0))
    box = picture.convert("L").point(lambda v: 255 - v).getbbox()
    assert box is not None
    assert box[0] >= 9 and box[1] >= 9 and box[2] <= 31 and box[3] <= 31, box


def test_the_seats_at_one_table_have_different_marks() -> None:
    for game in BOARDS:
        colours = canvas_cases.MODULES[game].COLOURS
        marks = [common.SEAT_MARKS[c] for c in colours]
        assert len(set(marks)) == len(marks), game


@pytest.mark.parametrize("seat", sorted(common.SEAT_MARKS))
def test_a_mark_drawn_on_a_piece_is_read_back_with_the_box_of_its_shape(seat: str) -> None:
    """The renderers' records hold each mark's box where the piece was pasted (what the
    sizes below are measured on): the box of the pixels it covers half or more, within the one pixel
    that antialiasing spreads."""
    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        common.seat_mark(draw, (20 * k, 20 * k), 16 * k, seat, (0, 0, 0))
    piece = common.sprite(40, 40, paint)
    design = palette.build(palette.Design(colours=(common.INK, common.PAPER), ramps=()))

    def board(image: Image.Image) -> None:
        image.paste(piece, (30, 20), piece)
        common.swatch(frames.draw_on(image), (100, 20, 128, 48), seat)

    picture = labels.read_one(frames.picture, None, common.blank(200, 80), design, board)
    on_piece, on_swatch = picture.of([labels.MARK])
    assert on_piece.text == on_swatch.text == seat
    ink = piece.getchannel("A").point(lambda a: 255 if a >= 128 else 0).getbbox()
    assert ink is not None
    drawn = (ink[0] + 30, ink[1] + 20, ink[2] + 30, ink[3] + 20)
    assert all(abs(a - b) <= 1 for a, b in zip(on_piece.box, drawn, strict=True)), (
        on_piece.box, drawn)
    assert on_swatch.box[0] >= 100 and on_swatch.box[2] <= 128
    assert not picture.of()  # not a label a player names


FOCUS_PLACES = {
    "giants": lambda: [*giants_board.HEX_CR, *giants_board.ahu_spots()],
    "giganten": lambda: list(giganten_board.GRID),
    "makemake": lambda: [*makemake_board.HEX_XY, *makemake_board.SITE_XY],
}
"""Every place a focus may be about (render.focus): hexes and ahus, spaces, territories and
sites."""
PRIVATE = {"giants": giants_board.screen, "giganten": giganten_board.hand}
"""The pictures a seat gets in its DMs: a screen, a hand (some 480 px wide)."""
BOARD_LEAST = {"giants": 12, "giganten": 7, "makemake": 12}
"""The least height, in the board's pixels, of every mark on a whole board (shown some
1300 px wide in 302 CSS px: a quarter of it): as large as the pieces allow. Giganten's are
smaller only off the landscape, on the stored chips' discs (a bar under the number) and the
locomotives (beside their position), which no focus shows."""


def _positions(game: str) -> list[tuple[Any, dict[str, Any]]]:
    """The state and public view of one greedy game of each kind, at its middle and end."""
    seats, seed = PLAYS[game]
    steps = canvas_cases._played(game, seats, seed, "greedy")
    module = canvas_cases.MODULES[game]
    return [(steps[n][0], module.view(steps[n][0], None))
            for n in (len(steps) // 2, len(steps) - 1)]


def _shown(mark: labels.Label, width: int) -> float:
    """A mark's height in CSS pixels on a phone showing a picture ``width`` px wide."""
    return mark.height * min(1.0, labels.ATTACHMENT_WIDTH / width)


@pytest.mark.parametrize("game", sorted(BOARDS))
def test_every_mark_a_focus_shows_is_tall_enough_on_a_phone(game: str) -> None:
    """A focus is the board cut at its own size, 504 px wide, shown 302 px across: every
    mark inside any place's focus is MIN_SHOWN (7 CSS px) tall there."""
    board = BOARDS[game]
    for _, view in _positions(game):
        whole = labels.read_one(board.board, view)
        seen: set[tuple[str, labels.Box]] = set()
        for box in {board.place_box(view, [place]) for place in FOCUS_PLACES[game]()}:
            for mark in whole.cropped(box).of([labels.MARK]):
                seen.add((mark.text, mark.box))
                shown = _shown(mark, focus.FOCUS_WIDTH)
                assert shown >= labels.MIN_SHOWN, (game, mark, round(shown, 1))
        assert {seat for seat, _ in seen} == set(view["seats"]), seen  # every seat's pieces
        # and on the whole board, as large as the pieces allow
        least = min(whole.of([labels.MARK]), key=lambda mark: mark.height)
        assert least.height >= BOARD_LEAST[game], (game, least)


@pytest.mark.parametrize("game", sorted(PRIVATE))
def test_every_mark_on_a_seats_private_picture_is_tall_enough_on_a_phone(game: str) -> None:
    module = canvas_cases.MODULES[game]
    for state, view in _positions(game):
        for seat in view["seats"]:
            picture = labels.read_one(PRIVATE[game], module.view(state, seat), seat, "en")
            marks = picture.of([labels.MARK])
            assert marks, (game, seat)
            for mark in marks:
                shown = _shown(mark, picture.size[0])
                assert shown >= labels.MIN_SHOWN, (game, seat, mark, round(shown, 1))


def _peeker_sets() -> list[tuple[str, ...]]:
    """Every set of seats that may have looked at one tile, in seat order."""
    colours = canvas_cases.MODULES["giganten"].COLOURS
    return [seats for count in range(1, len(colours) + 1)
            for seats in itertools.combinations(colours, count)]


@pytest.mark.parametrize("peekers", _peeker_sets())
def test_each_seat_that_looked_at_a_tile_is_shown_by_its_mark(peekers: tuple[str, ...]) -> None:
    """A face-down tile shows who has looked at it by each seat's mark, not by a dot of its
    colour: a mark per seat, inside the tile and apart from the others; tall enough to read
    on a focus where the tile leaves room (up to two seats, three without the grey's wide
    bar), else as large as the tile allows (four seats: a third smaller)."""
    tile = giganten_art.hidden_tile("B7", 3, None, peekers)
    marks = [d for d in common.drawn_labels(tile) if d.kind == labels.MARK]
    assert [d.text for d in marks] == list(peekers)
    for d in marks:
        assert d.box[0] >= 0 and d.box[2] <= tile.width and d.box[3] <= tile.height, d
    for a, b in itertools.pairwise(marks):
        assert a.box[2] <= b.box[0], (a, b)
    space = next(d for d in common.drawn_labels(tile) if d.kind == "space")
    assert all(d.box[1] >= space.box[3] for d in marks), (space, marks)
    least = min(d.box[3] - d.box[1] for d in marks)
    roomy = len(peekers) <= 2 or (len(peekers) == 3 and "grey" not in peekers)
    tall = labels.MIN_SHOWN * focus.FOCUS_WIDTH / labels.ATTACHMENT_WIDTH
    assert least >= (tall if roomy else 0.65 * tall), (peekers, round(least, 1))


def test_every_looked_at_tile_on_a_board_carries_its_seats_marks() -> None:
    """On a whole Giganten board, each face-down tile that seats have looked at holds a
    mark of each of them, read back from the renderers' records."""
    _, view = _positions("giganten")[-1]
    view = copy.deepcopy(view)
    hidden = [label for label, space in view["spaces"].items() if space["state"] == "hidden"]
    looked = {hidden[0]: list(view["seats"]), hidden[1]: list(view["seats"][:1])}
    for seat in view["seats"]:
        view["players"][seat]["peeked"] = [label for label, seats in looked.items()
                                           if seat in seats]
    whole = labels.read_one(giganten_board.board, view)
    for label, seats in looked.items():
        x, y = giganten_board.cell_centre(label)
        half = giganten_art.TILE / 2
        inside = [m.text for m in whole.of([labels.MARK])
                  if x - half <= m.box[0] and m.box[2] <= x + half
                  and y - half <= m.box[1] and m.box[3] <= y + half]
        assert sorted(inside) == sorted(seats), (label, inside)


@pytest.mark.parametrize("position", [0, 1])
def test_every_owned_territory_carries_its_owners_mark(position: int) -> None:
    """A Make Make territory is tinted with its owner's colour, and a pale green tint is
    hardly told from bare land under deuteranopia (tests/test_render_colour.py): so each
    held territory (not a Moai's: its stone is no seat's) has its owner's marked stack pasted
    on it, read from the renderers' records, the mark inside the territory's hex."""
    _, view = _positions("makemake")[position]
    sheet = frames.Sheet(makemake_board._base(view, "en"))
    makemake_board._paint(sheet, view, "en", None, frozenset())
    pieces = [(op.args[0].info[common.MARK_KEY], (op.args[1][0] + op.args[0].width / 2,
                                                   op.args[1][1] + op.args[0].height / 2))
              for op in sheet.ops if op.method == "paste" and isinstance(op.args[0], Image.Image)
              and common.MARK_KEY in op.args[0].info]  # each marked piece's seat and centre
    held = {hex_id: cell["owner"] for hex_id, cell in view["board"].items()
            if cell["owner"] and not cell["moai"]}
    assert held
    for hex_id, owner in held.items():
        cx, cy = makemake_board.point(makemake_board.HEX_XY[hex_id])
        on_it = [seat for seat, (x, y) in pieces
                 if math.dist((x, y), (cx, cy)) < makemake_board.S * 0.8]
        assert on_it == [owner], (hex_id, owner, on_it)


@pytest.mark.parametrize("seat", canvas_cases.MODULES["giganten"].COLOURS)
def test_a_held_cards_strip_carries_its_holders_mark(seat: str) -> None:
    """A Giganten action card's strip is its holder's colour: the holder's mark sits at its
    end (the name beside it may be cut short), as tall as a derrick's; a card on display has
    none."""
    lines = ("B12", "1, 2", "4")
    card = giganten_art.action_card(lines, False, seat, "a name")
    assert card.info.get(common.MARK_KEY) == seat
    marks = [d for d in common.drawn_labels(card) if d.kind == labels.MARK]
    assert [d.text for d in marks] == [seat]
    tall = labels.MIN_SHOWN * focus.FOCUS_WIDTH / labels.ATTACHMENT_WIDTH
    assert marks[0].box[3] - marks[0].box[1] >= tall, marks
    assert _inked(card, seat) >= 4
    shown = giganten_art.action_card(lines, False, None, "on display")
    assert not [d for d in common.drawn_labels(shown) if d.kind == labels.MARK]


@pytest.mark.parametrize("winner", [False, True])
@pytest.mark.parametrize("seat", canvas_cases.MODULES["giganten"].COLOURS)
def test_a_ranking_card_carries_its_seats_mark(seat: str, winner: bool) -> None:
    """A Giganten ranking card's strip is its seat's colour: the seat's mark sits at its end
    (left of a winner's star), as tall as a derrick's."""
    card = giganten_art.ranking_card(seat, "#1 a name", "$1,000", winner)
    assert card.info.get(common.MARK_KEY) == seat
    marks = [d for d in common.drawn_labels(card) if d.kind == labels.MARK]
    assert [d.text for d in marks] == [seat]
    tall = labels.MIN_SHOWN * focus.FOCUS_WIDTH / labels.ATTACHMENT_WIDTH
    assert marks[0].box[3] - marks[0].box[1] >= tall, marks
    assert _inked(card, seat) >= 4


@pytest.mark.parametrize("seat", ["red", "blue", "green", "yellow"])
def test_a_giants_screen_names_its_seat_with_its_mark(seat: str) -> None:
    """The screen's header says whose it is by colour and name, and by the seat's mark."""
    module = game_module("giants")
    view = module.view(module.new(["red", "blue", "green", "yellow"], {}, seed=1), seat)
    picture = labels.read_one(giants_screen.screen, view, seat)
    header = [label for label in picture.of([labels.MARK]) if label.box[3] <= 64]
    assert [label.text for label in header] == [seat]
    assert header[0].height * 302 / picture.size[0] >= labels.MIN_SHOWN
