"""A board drawn again only where it changed (``render.frames``) is the same PNG, byte for
byte, as the board drawn and encoded whole: along whole games, when a stream jumps to another
game or language, and when the band cache has lost the previous picture's bands."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image

from render import frames, palette
from render.i18n import LANGUAGES
from tests.helpers import canvas_cases

GAMES = [("giants", 4, 11, "greedy"), ("giganten", 4, 3, "greedy"), ("makemake", 4, 5, "greedy")]
"""A game of each kind (every board is drawn by its changes)."""


def _boards(game: str, seats: int, seed: int, level: str,
            every: int = 1) -> list[tuple[dict[str, Any], frozenset[str]]]:
    module = canvas_cases.MODULES[game]
    steps = canvas_cases._played(game, seats, seed, level)
    return [(module.view(state, None), frozenset(canvas_cases.CHANGED[game](events)))
            for state, events in steps[::every]] + [(module.view(steps[-1][0], None),
                                                     frozenset())]


@pytest.mark.parametrize("play", GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_drawn_by_its_changes_is_the_game_drawn_whole(
        play: tuple[str, int, int, str]) -> None:
    game, seats, seed, level = play
    board = canvas_cases.BOARDS[game].board
    frames.forget()
    before = frames.Counts(**vars(frames.COUNTS))
    positions = _boards(game, seats, seed, level, every=2)
    for n, (view, highlight) in enumerate(positions):
        lang = "en" if n < len(positions) // 2 else "ru"
        names = canvas_cases.NAMES if n % 5 == 0 else None
        whole = board(view, lang, names, highlight=highlight)
        assert board(view, lang, names, highlight=highlight, frame="stream") == whole, n
    counts = frames.COUNTS
    # most pictures followed the previous one, and drew far fewer bands than a whole board
    assert counts.followed - before.followed >= len(positions) - 3
    changed = (counts.changed - before.changed) / (counts.bands - before.bands)
    assert changed < 0.6, changed
    assert counts.replayed - before.replayed < counts.ops - before.ops


def test_a_stream_that_jumps_between_games_languages_and_seat_counts_stays_exact() -> None:
    frames.forget()
    mixed = []
    for play in [*GAMES, ("giganten", 3, 8, "random"), ("giants", 5, 3, "random"),
                 ("makemake", 3, 2, "random")]:
        mixed.append([(play[0], view, highlight)
                      for view, highlight in _boards(*play, every=25)])
    langs = sorted(LANGUAGES)
    for n in range(max(len(m) for m in mixed)):
        for k, stream in enumerate(mixed):
            if n >= len(stream):
                continue
            game, view, highlight = stream[n]
            board = canvas_cases.BOARDS[game].board
            lang = langs[(n + k) % len(langs)]
            # one stream name for everything: each picture follows one of another game
            assert board(view, lang, highlight=highlight, frame="one") \
                == board(view, lang, highlight=highlight), (game, n, lang)


def test_bands_lost_from_the_cache_are_drawn_again() -> None:
    frames.forget()
    positions = _boards("giants", 4, 11, "greedy", every=7)
    board = canvas_cases.BOARDS["giants"].board
    for n, (view, highlight) in enumerate(positions):
        if n % 2:
            palette.BANDS.clear()
        assert board(view, highlight=highlight, frame=("g", 1)) == board(view, highlight=highlight)


def test_an_unchanged_position_draws_nothing_again() -> None:
    frames.forget()
    view, highlight = _boards("giganten", 4, 3, "greedy", every=40)[1]
    board = canvas_cases.BOARDS["giganten"].board
    first = board(view, highlight=highlight, frame="same")
    before = frames.Counts(**vars(frames.COUNTS))
    assert board(view, highlight=highlight, frame="same") == first
    assert frames.COUNTS.changed == before.changed
    assert frames.COUNTS.replayed == before.replayed


def test_a_drawing_counts_every_row_and_column_it_reaches() -> None:
    sheet = frames.Sheet(Image.new("RGB", (100, 100)))
    draw = frames.draw_on(sheet)
    draw.line([(10, 40), (90, 40)], fill=(0, 0, 0), width=6)
    draw.rectangle((5, 5, 20, 20), outline=(0, 0, 0), width=3)
    draw.text((-5, 50), "x", fill=(0, 0, 0))  # not from a mask: it may reach anywhere
    sheet.paste(Image.new("RGB", (7, 3)), (30, 60))
    sheet.paste((1, 2, 3), (95, 10, 120, 12))
    (line, rect, text, sprite, fill) = sheet.ops
    assert line.top <= 40 - 3 and line.bottom >= 41 + 3
    assert line.left <= 10 - 3 and line.right >= 91 + 3
    assert rect.top <= 5 and rect.bottom >= 21 and rect.left <= 5 and rect.right >= 21
    assert (text.left, text.top, text.right, text.bottom) == (0, 0, 100, 100)
    assert (sprite.left, sprite.top, sprite.right, sprite.bottom) == (30, 60, 37, 63)
    assert (fill.left, fill.right) == (95, 100)


def test_only_the_columns_drawn_on_are_mapped_again() -> None:
    """A band's indices are the static layer's, with the columns its operations reach mapped
    again: a picture drawn after another is the picture drawn whole, wherever its pieces
    went, and a band left alone keeps the static layer's indices."""
    base = Image.new("RGB", (64, 48), (200, 180, 120))
    for x in range(0, 64, 4):
        base.paste((20, 40, 160), (x, 0, x + 1, 48))  # columns the mapping must keep
    dot = Image.new("RGB", (5, 5), (240, 20, 20))
    design = palette.build(palette.Design(
        ((200, 180, 120), (20, 40, 160), (240, 20, 20), (0, 0, 0)),
        (((0, 0, 0), (200, 180, 120), 4),)))
    mapped: list[tuple[int, int]] = []
    quantize = design.quantize

    def counted(picture: Image.Image) -> Image.Image:
        mapped.append(picture.size)
        return quantize(picture)

    design.quantize = counted  # type: ignore[method-assign]
    frames.forget()
    for n, (x, y) in enumerate([(3, 2), (50, 2), (20, 30), (58, 44), (3, 2)]):
        def paint(image: Image.Image, x: int = x, y: int = y) -> None:
            image.paste(dot, (x, y))
            frames.draw_on(image).line([(x, 20), (x + 9, 21)], fill=(0, 0, 0), width=2)
        whole = base.copy()
        paint(whole)
        mapped.clear()
        assert frames.drawn("s", base, design, paint) == quantize_free(design, whole), n
        if n == 4:  # back as the first picture drew it: its bands are taken as they were
            assert not mapped
        elif n:  # after the first picture: the static layer is not mapped again, and of the
            # changed bands only the columns of the dot and the line are
            assert mapped and all(w < base.width for w, _ in mapped), (n, mapped)
            assert sum(w * h for w, h in mapped) <= 3 * 8 * 24, (n, mapped)


def quantize_free(design: palette.Palette, picture: Image.Image) -> bytes:
    """``picture`` encoded whole with ``design``'s own mapping (not a counted one)."""
    plain = palette.Palette(design.entries, design.exact, design.image, design.plte)
    return palette.encode(plain, picture, palette.Bands())


SCREENS = [("giants", 4, 11, "greedy"), ("giganten", 4, 3, "greedy"), ("giganten", 3, 8, "random")]
"""Games whose seats have a private picture (a Giants screen, a Giganten hand)."""


@pytest.mark.parametrize("play", SCREENS, ids=[f"{g[0]}-{g[1]}" for g in SCREENS])
def test_a_seats_screen_drawn_by_its_changes_is_the_screen_drawn_whole(
        play: tuple[str, int, int, str]) -> None:
    game, seats, seed, level = play
    module = canvas_cases.MODULES[game]
    art = canvas_cases.BOARDS[game]
    draw = art.screen if game == "giants" else art.hand
    frames.forget()
    before = frames.Counts(**vars(frames.COUNTS))
    steps = canvas_cases._played(game, seats, seed, level)[::3]
    drawn = 0
    for n, (state, _) in enumerate(steps):
        lang = sorted(LANGUAGES)[n % len(LANGUAGES)] if n > len(steps) // 2 else "en"
        for seat in module.view(state, None)["seats"]:
            view = module.view(state, seat)
            whole = draw(view, seat, lang)
            assert draw(view, seat, lang, frame=("screen", seat)) == whole, (n, seat, lang)
            drawn += 1
    counts = frames.COUNTS
    assert counts.pictures - before.pictures == drawn
    assert counts.followed - before.followed >= drawn // 2  # a seat's screens follow each other
    assert counts.changed - before.changed < counts.bands - before.bands


def test_a_paste_one_row_up_is_a_change() -> None:
    """Operations are told apart by their keys, not by Python's hash of them (which takes -1
    and -2 for the same number)."""
    base = Image.new("RGB", (40, 40), (255, 255, 255))
    dot = Image.new("RGB", (4, 4), (0, 0, 0))
    design = palette.build(palette.Design(((0, 0, 0), (255, 255, 255)), ()))
    frames.forget()
    for y in (-1, -2, -1):
        def paint(image: Image.Image, y: int = y) -> None:
            image.paste(dot, (10, y))
        whole = base.copy()
        whole.paste(dot, (10, y))
        assert frames.drawn("dot", base, design, paint) == palette.encode(design, whole), y


@pytest.mark.parametrize("play", GAMES, ids=[g[0] for g in GAMES])
def test_every_part_of_a_board_is_drawn_from_its_arguments_alone(
        play: tuple[str, int, int, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each part found again (:func:`render.frames.part`) is painted again and compared: none
    reads anything its arguments do not hold, so taking its drawings again is exact."""
    monkeypatch.setattr(frames, "CHECK_PARTS", True)
    game, seats, seed, level = play
    board = canvas_cases.BOARDS[game].board
    frames.forget()
    before = frames.COUNTS.parts
    positions = _boards(game, seats, seed, level)
    for n, (view, highlight) in enumerate(positions):
        lang = ("en", "zh-TW", "ru")[n % 3]
        board(view, lang, canvas_cases.NAMES if n % 4 == 0 else None, highlight=highlight,
              frame=("checked", n % 2))
    # many parts were found, each painted again and compared
    assert frames.COUNTS.parts - before >= len(positions) // 2, frames.COUNTS.parts - before


def test_a_part_is_painted_once_for_its_arguments() -> None:
    base = Image.new("RGB", (40, 40))
    painted: list[int] = []

    def square(image: Image.Image, x: int) -> int:
        painted.append(x)
        image.paste((255, 0, 0), (x, 0, x + 4, 4))
        return x + 4

    frames.forget()
    before = frames.COUNTS.parts
    first, again, other = frames.Sheet(base), frames.Sheet(base), frames.Sheet(base)
    assert frames.part(first, square, 3) == frames.part(again, square, 3) == 7
    assert frames.part(other, square, 9) == 13
    assert painted == [3, 9] and frames.COUNTS.parts == before + 1
    assert [op.key for op in first.ops] == [op.key for op in again.ops]
    whole = base.copy()
    assert frames.part(whole, square, 3) == 7 and whole.getpixel((3, 0)) == (255, 0, 0)


def test_a_part_that_reads_more_than_its_arguments_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frames, "CHECK_PARTS", True)
    base = Image.new("RGB", (40, 40))
    outside = {"x": 2}

    def square(image: Image.Image, size: int) -> None:
        image.paste((255, 0, 0), (outside["x"], 0, outside["x"] + size, size))

    frames.forget()
    frames.part(frames.Sheet(base), square, 4)
    outside["x"] = 5
    with pytest.raises(frames.PartError):
        frames.part(frames.Sheet(base), square, 4)


def test_a_band_drawn_so_before_is_not_drawn_again() -> None:
    """A picture whose bands are back as an earlier picture (not the previous one) drew them
    takes them from the band cache: nothing is replayed or encoded again."""
    frames.forget()
    positions = _boards("giganten", 4, 3, "greedy", every=30)
    board = canvas_cases.BOARDS["giganten"].board
    first, second = positions[1], positions[2]
    for view, highlight in (first, second):
        board(view, highlight=highlight, frame="back")
    before = frames.Counts(**vars(frames.COUNTS))
    again = board(first[0], highlight=first[1], frame="back")
    assert again == board(first[0], highlight=first[1])
    assert frames.COUNTS.seen - before.seen > 0
    assert frames.COUNTS.changed == before.changed
    assert frames.COUNTS.replayed == before.replayed
