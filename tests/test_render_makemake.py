"""The Make Make board image: format, size, what it shows, purity and the static cache."""

from __future__ import annotations

import copy
import io
import random
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from render import common, palette
from render import makemake as mm
from render.i18n import catalogue
from rules.ai import choose
from rules.record import Game, parse_header, replay
from tests.helpers.images import colour_count, difference_outside

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RECORDS = Path(__file__).parent / "records" / "makemake"

EXAMPLE_10_6 = """game makemake red blue green
red place E1 1
blue place B2 1
green place B4 1
red place E9 1
blue place C2 1
green place C5 1
red place A1 1
blue place D2 1
green place D5 1
red place A5 1
blue place D3 1
green place E7 1
red place C7 1
blue place B3 1
green place A3 1
red place C1 1
blue place C3 1
green place B6 1
red place E3 1
blue place D4 1
green place D7 1
red place B4 2
"""

EXAMPLE_10_8_CHOICE = """game makemake red blue green
red place E1 1
blue place A1 1
green place E9 1
red place D1 1
blue place A3 1
green place E7 1
red place D2 1
blue place A5 1
green place E5 1
red place E2 1 chief
blue place C7 1
green place B5 1
red place E3 1
"""

EXAMPLE_10_9_CHOICE = """game makemake red blue green
red place A1 1
blue place E1 1
green place E9 1
red place A2 1
blue place E2 1
green place E8 1
red place B1 1
blue place E3 1
green place E7 1
red place B3 1
blue place E4 1
green place E6 1
red place C2 1
blue place C1 1
green place A5 1
red place C3 1
blue place D8 1
green place C7 1
red place B2 1
"""


def view_of(record: str) -> dict[str, Any]:
    game, rejections = replay(record)
    assert not rejections
    return game.module.view(game.state, None)


def greedy_views(moves: int, every: int) -> list[dict[str, Any]]:
    """Views along a four-seat game of greedy AIs, one every ``every`` moves."""
    game = Game.start(parse_header("game makemake red blue green yellow"))
    rng = random.Random(3)
    views = []
    for n in range(1, moves + 1):
        seat = game.pending()[0]
        game.apply(seat, choose(game.module, game.state, seat, "greedy", rng))
        if n % every == 0:
            views.append(game.module.view(game.state, None))
    return views


@pytest.fixture(scope="module")
def greedy() -> list[dict[str, Any]]:
    return greedy_views(40, 8)


@pytest.fixture(scope="module")
def views(greedy: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        "start": view_of("game makemake red blue green yellow"),
        "mid": greedy[-1],
        "moai_choice": view_of(EXAMPLE_10_8_CHOICE),
        "manu_choice": view_of(EXAMPLE_10_9_CHOICE),
        "final": view_of(EXAMPLE_10_6),
    }


def pixel(image: Image.Image, xy: tuple[float, float]) -> tuple[int, ...]:
    return image.getpixel((round(xy[0]), round(xy[1])))


def near(a: tuple[int, ...], b: tuple[int, ...], tolerance: int = 12) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=False))


def hex_centre(hex_id: str) -> tuple[float, float]:
    return mm.point(mm.HEX_XY[hex_id])


def highlight_pixels(image: Image.Image) -> int:
    """Pixels of the choice colour on the board (the symbol key below it is left out)."""
    board = image.crop((0, 0, mm.WIDTH, mm.BOARD_HEIGHT))
    diff = ImageChops.difference(board, Image.new("RGB", board.size, common.HIGHLIGHT))
    close = [band.point(lambda v: 255 if v <= 20 else 0) for band in diff.split()]
    return ImageChops.multiply(ImageChops.multiply(close[0], close[1]), close[2]).histogram()[255]


@pytest.mark.parametrize("name", ["start", "mid", "moai_choice", "manu_choice", "final"])
def test_board_is_a_phone_sized_png(views: dict[str, dict[str, Any]], name: str) -> None:
    png = mm.board(views[name])
    assert png.startswith(PNG_SIGNATURE)
    assert 20_000 < len(png) < 1_500_000
    image = Image.open(io.BytesIO(png))
    assert image.width >= 1200
    assert 900 < image.height < 1300
    assert image.size == mm.canvas(views[name]).size


@pytest.mark.parametrize("name", ["start", "mid", "moai_choice", "final"])
def test_rendering_leaves_the_view_alone(views: dict[str, dict[str, Any]], name: str) -> None:
    before = copy.deepcopy(views[name])
    mm.board(views[name], names={"red": "Hotu"})
    assert views[name] == before


def test_held_territory_shows_its_owner_tint_and_stack(views: dict[str, dict[str, Any]]) -> None:
    image = mm.canvas(views["final"])
    cx, cy = hex_centre("B4")  # red, 2 tokens, no chief
    assert near(pixel(image, (cx - 50, cy + 10)), common.seat_colour("red").tint)
    assert near(pixel(image, (cx - 17, cy + mm.DISC_DY)), common.seat_colour("red").fill)
    cx, cy = hex_centre("A2")  # empty
    assert near(pixel(image, (cx - 50, cy + 10)), mm.LAND)


def test_chief_drawn_beside_its_stack(views: dict[str, dict[str, Any]]) -> None:
    image = mm.canvas(views["moai_choice"])
    cx, cy = hex_centre("E2")  # red with the chief: crown over the disc (left of its mark)
    assert near(pixel(image, (cx - 8, cy + mm.CHIEF_DY + 5)), common.seat_colour("red").fill)
    cx, cy = hex_centre("E3")  # red without the chief: nothing there
    assert near(pixel(image, (cx - 8, cy + mm.CHIEF_DY + 5)), common.seat_colour("red").tint)


def test_tangata_manu_fills_its_site(views: dict[str, dict[str, Any]]) -> None:
    image = mm.canvas(views["final"])
    x, y = mm.point(mm.SITE_XY["S11"])  # blue Tangata Manu
    assert near(pixel(image, (x - 19, y)), common.seat_colour("blue").fill)
    x, y = mm.point(mm.SITE_XY["S01"])  # empty
    assert near(pixel(image, (x - 19, y)), mm.WHITE)


def test_moai_territory_is_stone_with_a_moai(views: dict[str, dict[str, Any]]) -> None:
    view = view_of(EXAMPLE_10_8_CHOICE + "red moai E1\n")
    assert view["board"]["E1"]["moai"] and view["moai_left"] == 10
    image = mm.canvas(view)
    cx, cy = hex_centre("E1")
    assert near(pixel(image, (cx - 50, cy + 10)), mm.STONE)
    assert near(pixel(image, (cx, cy + 41)), (70, 64, 60), 20)  # the moai's ahu
    assert near(pixel(mm.canvas(views["start"]), (cx - 50, cy + 10)), mm.LAND)


def test_make_make_figure_fades_once_taken(views: dict[str, dict[str, Any]]) -> None:
    cx, cy = hex_centre(mm.CENTRE)
    cheek = (cx - 18, cy + 26)
    assert views["start"]["makemake"] is None and views["final"]["makemake"] == "blue"
    assert near(pixel(mm.canvas(views["start"]), cheek), (236, 196, 120))
    assert not near(pixel(mm.canvas(views["final"]), cheek), (236, 196, 120), 40)


@pytest.mark.parametrize("name", ["moai_choice", "manu_choice"])
def test_offered_choice_is_highlighted(views: dict[str, dict[str, Any]], name: str) -> None:
    assert views[name]["choice"] is not None
    assert highlight_pixels(mm.canvas(views[name])) > 500
    assert highlight_pixels(mm.canvas(views["final"])) == 0


def test_moai_choice_rings_the_offered_hexes(views: dict[str, dict[str, Any]]) -> None:
    image = mm.canvas(views["moai_choice"])
    for hex_id in ("E1", "E2"):
        cx, cy = hex_centre(hex_id)
        assert near(pixel(image, (cx, cy + mm.S - 9)), common.HIGHLIGHT, 30)
    cx, cy = hex_centre("E3")
    assert not near(pixel(image, (cx, cy + mm.S - 9)), common.HIGHLIGHT, 30)


def hex_box(hex_id: str, margin: float = 4) -> tuple[float, float, float, float]:
    cx, cy = hex_centre(hex_id)
    half = mm.ROOT3 * mm.S / 2
    return (cx - half - margin, cy - mm.S - margin, cx + half + margin, cy + mm.S + margin)


def site_box(site: str, margin: float = 4) -> tuple[float, float, float, float]:
    x, y = mm.point(mm.SITE_XY[site])
    half_w, half_h = mm.SITE_W / 2 + 8 + margin, mm.SITE_H / 2 + 8 + margin  # pill and ring
    return (x - half_w, y - half_h, x + half_w, y + half_h)


@pytest.mark.parametrize("name", ["mid", "manu_choice", "final"])
def test_highlight_changes_the_highlighted_places_only(views: dict[str, dict[str, Any]],
                                                       name: str) -> None:
    view = views[name]
    plain = mm.canvas(view)
    lit = mm.canvas(view, highlight=frozenset({"B2", "E9", "S03"}))
    assert difference_outside(plain, lit, [hex_box("B2"), hex_box("E9"), site_box("S03")]) is None
    for box in (hex_box("B2"), hex_box("E9"), site_box("S03")):
        assert colour_count(lit, common.CHANGED, box) > 150
        assert colour_count(plain, common.CHANGED, box) == 0
    cx, cy = hex_centre("B2")  # the ring lies just inside the grid line, over the tint
    assert near(pixel(lit, (cx - mm.ROOT3 * mm.S / 2 + 8, cy)), common.CHANGED, 30)


def test_highlight_keeps_the_corner_sites_readable(views: dict[str, dict[str, Any]]) -> None:
    view = views["final"]  # blue's Tangata Manu on S11, a corner of B4 and C4
    x, y = mm.point(mm.SITE_XY["S11"])
    lit = mm.canvas(view, highlight=frozenset({"C4"}))
    assert near(pixel(lit, (x - 19, y)), common.seat_colour("blue").fill)


def test_unknown_highlight_labels_are_ignored(views: dict[str, dict[str, Any]]) -> None:
    view = views["mid"]
    odd = frozenset({"Z9", "M7", "S99", "hanga-o-teo", "", "b2"})
    assert mm.board(view, highlight=odd) == mm.board(view)


def test_highlight_never_draws_on_the_cached_layers(views: dict[str, dict[str, Any]]) -> None:
    layers = mm.static_layers("en", 4)
    before = layers.base.tobytes(), mm._overlay().tobytes()
    mm.canvas(views["mid"], highlight=frozenset(mm.HEX_XY) | frozenset(mm.SITE_XY))
    assert mm.static_layers("en", 4) is layers
    assert (layers.base.tobytes(), mm._overlay().tobytes()) == before


def test_names_appear_in_the_legend(views: dict[str, dict[str, Any]]) -> None:
    legend = (0, mm.TABLE_Y, 330, mm.TABLE_Y + 4 * mm.ROW_H)
    plain = mm.canvas(views["start"]).crop(legend)
    named = mm.canvas(views["start"], names={"blue": "Tuki " * 20}).crop(legend)
    assert plain.tobytes() != named.tobytes()


def test_active_and_winning_rows_are_highlighted(views: dict[str, dict[str, Any]]) -> None:
    view = views["moai_choice"]  # red to act, blue not
    image = mm.canvas(view)
    rows = {seat: mm.TABLE_Y + 20 + i * mm.ROW_H + mm.ROW_H // 2
            for i, seat in enumerate(view["seats"])}
    assert pixel(image, (mm.COLUMNS["badge"] - 20, rows["red"])) == (255, 236, 170)
    assert pixel(image, (mm.COLUMNS["badge"] - 20, rows["blue"])) != (255, 236, 170)
    final = mm.canvas(views["final"])  # blue won, nobody is to act
    assert pixel(final, (mm.COLUMNS["badge"] - 20, rows["blue"])) == (255, 236, 170)
    assert pixel(final, (mm.COLUMNS["badge"] - 20, rows["red"])) != (255, 236, 170)


def test_status_line_names_the_winner_and_the_choice(views: dict[str, dict[str, Any]]) -> None:
    shown = common.seat_names(["red", "blue", "green"], "en", {"blue": "Hotu"})
    final = mm.status_text(views["final"], "en", shown)
    assert "Hotu" in final and "Make Make" in final
    choice = mm.status_text(views["manu_choice"], "en", shown)
    assert "S01, S05, S06, S10, S11, S15" in choice and "5" in choice
    assert mm.status_text(views["moai_choice"], "en", shown).endswith("E1, E2")
    assert "render." not in final + choice


def test_every_render_key_has_an_english_text() -> None:
    used = {"render.round", "render.to_act", "render.winner", "render.winners",
            *(f"render.makemake.phase.{p}" for p in ("domination", "moai", "manu", "over")),
            *(f"render.makemake.end.{e}" for e in ("victory", "round_limit", "repetition")),
            *(f"render.makemake.col.{c}" for c in mm.COLUMNS if c != "badge"),
            *(f"render.colour.{c}" for c in ("red", "blue", "green", "yellow"))}
    assert used <= catalogue("en").keys()


def test_static_layers_are_cached_and_never_drawn_on(views: dict[str, dict[str, Any]]) -> None:
    layers = mm.static_layers("en", 4)
    before = layers.base.tobytes()
    hits = mm.static_layers.cache_info().hits
    mm.canvas(views["mid"])
    assert mm.static_layers("en", 4) is layers
    assert mm.static_layers.cache_info().hits > hits
    assert layers.base.tobytes() == before


def test_a_render_is_quick(views: dict[str, dict[str, Any]]) -> None:
    mm.canvas(views["mid"])
    start = time.perf_counter()
    for _ in range(5):
        mm.canvas(views["mid"])
    assert (time.perf_counter() - start) / 5 < 0.1


def test_positions_along_a_greedy_game_render(greedy: list[dict[str, Any]]) -> None:
    for view in greedy:
        assert mm.board(view).startswith(PNG_SIGNATURE)


@pytest.mark.parametrize("path", sorted(RECORDS.glob("*.txt")), ids=lambda p: p.stem)
def test_every_example_record_renders(path: Path) -> None:
    game, _ = replay(path.read_text(encoding="utf-8"), keep_going=True)
    assert mm.board(game.module.view(game.state, None)).startswith(PNG_SIGNATURE)


def test_fonts_are_cached_and_never_too_small() -> None:
    assert common.font(20) is common.font(20)
    assert common.font(20, True) is not common.font(20)
    with pytest.raises(ValueError):
        common.font(common.MIN_FONT - 1)


def test_seat_colours_are_distinct_and_unknown_ones_grey() -> None:
    names = ["red", "blue", "green", "yellow", "purple", "grey", "black", "white"]
    fills = {common.seat_colour(n).fill for n in names}
    assert len(fills) == len(names)
    assert common.seat_colour("teal") == common.seat_colour("grey")


def test_fit_text_shortens_with_an_ellipsis() -> None:
    face = common.font(20)
    assert common.fit_text("Hotu", face, 200) == "Hotu"
    short = common.fit_text("Hotu Matu'a " * 10, face, 200)
    assert short.endswith("…") and face.getlength(short) <= 200


@pytest.mark.parametrize("lang", ["en", "ru", "zh-CN"])
def test_fit_text_cuts_where_cutting_a_character_at_a_time_cuts(lang: str) -> None:
    """Halving finds the longest beginning that fits with the ellipsis, as the plain way does
    (names, auctions and piles in each script, at many widths)."""
    letters = {"en": "Hotu Matu'a player 0123456789 WAVTy.,", "ru": "Хоту Матуа игрок 0123",
               "zh-CN": "霍图·玛图阿 玩家 0123 拍卖"}[lang]
    rng = random.Random(lang)
    for _ in range(60):
        face = common.font(rng.choice((15, 20, 22)), rng.random() < 0.5, lang)
        text = "".join(rng.choice(letters) for _ in range(rng.randint(1, 60)))
        width = rng.uniform(0, face.getlength(text) * 1.1)
        plain = text
        if face.getlength(plain) > width:
            while plain and face.getlength(plain + "…") > width:
                plain = plain[:-1]
            plain += "…"
        assert common.fit_text(text, face, width) == plain, (text, width)


def test_the_encoder_round_trips_the_picture() -> None:
    red = common.seat_colour("red").fill
    image = Image.new("RGB", (40, 30), red)
    decoded = Image.open(io.BytesIO(palette.encode(mm.palette(), image))).convert("RGB")
    assert decoded.size == (40, 30)
    assert decoded.getpixel((5, 5)) == red
