"""What a picture's labels are, read back from what was drawn (``render.labels``): their
text, kind and ink box, and what covers them."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PIL import Image, ImageChops, ImageDraw

from render import frames, giants, giganten, labels, makemake, palette
from render.common import INK, PAPER, blank, font, labelling, sprite, traced
from render.frames import draw_on
from rules import giants as giants_rules
from rules import giganten as giganten_rules
from rules import makemake as makemake_rules
from rules.data import load
from tests.helpers import canvas_cases

DESIGN = palette.build(palette.Design(colours=(INK, PAPER, (214, 40, 40), (255, 255, 255)),
                                      ramps=((INK, PAPER, 16),)))


def _piece(label: str) -> Image.Image:
    """A red disc with ``label`` on it, 40 px wide."""
    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        draw.ellipse((0, 0, 40 * k - 1, 40 * k - 1), fill=(214, 40, 40))
        draw.text((20 * k, 20 * k), label, font=font(18 * k, True), fill=(255, 255, 255),
                  anchor="mm")
    return sprite(40, 40, paint)


def _draw(paint: Callable[[Image.Image], None]) -> labels.Picture:
    base = blank(200, 120)
    return labels.read_one(frames.picture, None, base, DESIGN, paint)


def test_a_text_drawn_is_read_back_with_the_box_of_its_ink() -> None:
    def paint(image: Image.Image) -> None:
        with labelling(image, "hex"):
            draw_on(image).text((30.5, 40), "M7", font=font(20, True), fill=INK, anchor="lm")
        draw_on(image).text((100, 80), "Prestige", font=font(16), fill=INK, anchor="lm")

    picture = _draw(paint)
    assert [(label.text, label.kind) for label in picture.labels] == [("M7", "hex"),
                                                                        ("Prestige", "text")]
    whole = blank(200, 120).copy()
    paint(whole)
    hexes = blank(200, 120).copy()
    draw_on(hexes).text((30.5, 40), "M7", font=font(20, True), fill=INK, anchor="lm")
    ink = ImageChops.difference(hexes, blank(200, 120)).getbbox()
    assert picture.labels[0].box == ink
    assert picture.labels[0].height == ink[3] - ink[1] and picture.labels[0].width == \
        ink[2] - ink[0]
    assert picture.smallest() == picture.labels[0]
    assert picture.smallest(["text"]) == picture.labels[1]


def test_a_piece_pasted_over_a_label_covers_it_and_one_beside_it_does_not() -> None:
    piece = _piece("12")

    def paint(image: Image.Image) -> None:
        with labelling(image, "hex"):
            draw_on(image).text((20, 30), "M7", font=font(20, True), fill=INK, anchor="lm")
            draw_on(image).text((120, 30), "M8", font=font(20, True), fill=INK, anchor="lm")
        image.paste(piece, (30, 15), piece)  # over M7
        image.paste(piece, (150, 60), piece)  # below M8's right end, clear of it

    picture = _draw(paint)
    found = {label.text: label for label in picture.labels}
    assert found["M7"].covered_by is not None
    assert found["M7"].covered_by.index == 2 and found["M7"].covered_by.method == "paste"
    assert found["M8"].covered_by is None
    assert [label.text for label in picture.covered()] == ["M7"]
    # the numbers on the pieces are labels too, where the pieces were pasted
    numbers = [label for label in picture.labels if label.kind == "number"]
    assert [label.text for label in numbers] == ["12", "12"]
    assert numbers[0].box[0] >= 30 and numbers[0].box[2] <= 70
    assert numbers[1].box[0] >= 150 and numbers[1].box[1] >= 60


def test_an_outline_around_a_label_does_not_cover_it_and_a_fill_does() -> None:
    def paint(image: Image.Image) -> None:
        with labelling(image, "space"):
            draw_on(image).text((20, 30), "A1", font=font(20, True), fill=INK, anchor="lm")
            draw_on(image).text((120, 30), "A2", font=font(20, True), fill=INK, anchor="lm")
        draw = draw_on(image)
        draw.rectangle((10, 10, 80, 50), outline=INK, width=2)
        draw.rectangle((110, 25, 150, 35), fill=PAPER)

    found = {label.text: label for label in _draw(paint).labels}
    assert found["A1"].covered_by is None
    cover = found["A2"].covered_by
    assert cover is not None and cover.method == "rectangle"


def test_the_static_layer_labels_are_read_with_the_picture() -> None:
    base = Image.new("RGB", (200, 120), PAPER)
    draw = traced(base, "ahu")
    draw.text((10, 10), "vinapu", font=font(16), fill=INK)

    def paint(image: Image.Image) -> None:
        image.paste(_piece("3"), (5, 0), _piece("3"))

    picture = labels.read_one(frames.picture, None, base, DESIGN, paint)
    assert [(label.text, label.kind, label.index) for label in picture.labels] == [
        ("vinapu", "ahu", -1), ("3", "number", 0)]
    assert picture.labels[0].covered_by is not None  # the piece is pasted over it


def test_recording_changes_no_picture() -> None:
    view = giants_rules.view(giants_rules.new(["red", "blue", "green"], seed=1), None)
    plain = giants.board(view)
    with frames.recording() as found:
        assert giants.board(view) == plain
        assert giants.board(view, frame="labels") == plain
    assert len(found) == 2 and found[0][0] is found[1][0]


def test_every_hex_ahu_and_space_of_each_board_is_a_label_of_its_kind() -> None:
    board = load("giants_board.json")
    picture = labels.read_one(giants.board, giants_rules.view(
        giants_rules.new(["red", "blue", "green"], seed=1), None))
    hexes = sorted(label.text for label in picture.of(["hex"]))
    assert hexes == sorted(h["label"] for h in board["hexes"])
    ahu_lines = "".join(label.text for label in picture.of(["ahu"]))
    for ahu in board["ahus"]:
        assert ahu["id"] in ahu_lines
    assert not picture.covered()

    picture = labels.read_one(makemake.board, makemake_rules.view(
        makemake_rules.new(["red", "blue", "green"], seed=1), None))
    assert sorted(label.text for label in picture.of(["hex"])) == sorted(makemake.HEX_XY)
    assert sorted(label.text for label in picture.of(["space"])) == sorted(
        makemake.site_label(site) for site in makemake.SITE_XY)  # short: S07 is 7

    picture = labels.read_one(giganten.board, giganten_rules.view(
        giganten_rules.new(["red", "blue", "green"], seed=1), None))
    spaces = {label.text for label in picture.of(["space"])}
    assert set(giganten.ROWS) <= spaces
    assert {str(c) for c in range(1, giganten.COLUMNS + 1)} <= spaces


COVER_PLAYS = [("giants", 4, 11, "greedy", 4), ("giganten", 4, 3, "greedy", 8),
               ("makemake", 4, 5, "greedy", 3)]
"""(game, seats, seed, AI level, every how many positions a board is read) of the games
read for covered labels: a whole game each, its boards lit up with what changed since the
previous board read, its seats' screens and hands every other board (where every text must
also read on a phone)."""


@pytest.mark.parametrize("play", COVER_PLAYS, ids=[p[0] for p in COVER_PLAYS])
def test_nothing_drawn_covers_a_label_along_a_whole_game(
        play: tuple[str, int, int, str, int]) -> None:
    game, seats, seed, level, every = play
    module = canvas_cases.MODULES[game]
    board = canvas_cases.BOARDS[game].board
    private = {"giants": giants.screen, "giganten": giganten.hand}.get(game)
    steps = canvas_cases._played(game, seats, seed, level)
    covered: list[tuple[int, str, labels.Label]] = []
    small: list[tuple[int, str, labels.Label]] = []
    changed: set[str] = set()
    for n, (state, events) in enumerate(steps):
        changed |= canvas_cases.CHANGED[game](events)
        if n % every and n != len(steps) - 1:
            continue
        view = module.view(state, None)
        found = labels.read_one(board, view, "en", highlight=frozenset(changed), frame="cover")
        covered += [(n, "board", label) for label in found.covered()]
        changed = set()
        if private is not None and n % (2 * every) == 0:
            for seat in view["seats"]:
                found = labels.read_one(private, module.view(state, seat), seat, "en",
                                        frame=("cover", seat))
                covered += [(n, seat, label) for label in found.covered()]
                # a private picture is as narrow as its content: all of it reads on a phone
                small += [(n, seat, label) for label in found.unreadable(labels.ALL)]
    assert not covered, covered[:5]
    assert not small, small[:5]
