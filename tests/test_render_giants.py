"""The Giants board and screen images: format, size, every phase, hidden information, purity."""

from __future__ import annotations

import contextlib
import copy
import io
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import render.__main__ as render_cli
import rules.__main__ as rules_cli
from render import giants as gi
from render import giants_art as art
from render import giants_screen
from render.common import CHANGED, seat_colour
from render.i18n import catalogue
from rules import giants
from rules.record import Game, parse_header, replay
from tests.helpers.images import colour_count, difference_outside, differs_inside

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RECORDS = Path(__file__).parent / "records" / "giants"
PHASES = ("draw", "bid", "choose", "place", "transport", "endround", "over")
GAMES = {
    "3-running": (3, 2, ["running_score=yes"]),
    "4": (4, 11, []),
    "5": (5, 3, []),
}
"""Greedy games: seats, seed, options."""


def greedy_record(seats: int, seed: int, options: list[str]) -> str:
    """The record ``python -m rules play giants`` prints for greedy AIs."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = rules_cli.main(["play", "giants", "--seats", str(seats), "--seed", str(seed),
                               "--ai", "greedy", *options])
    assert code == 0
    return out.getvalue()


@dataclass(frozen=True)
class Position:
    """A game position: the engine is pure, so a state can be kept as it is."""

    seats: tuple[str, ...]
    state: Any

    def view(self, seat: str | None = None) -> dict[str, Any]:
        return giants.view(self.state, seat)


def game_after(record: str, lines: int | None = None) -> Position:
    """The position after the record's first ``lines`` lines (all of them by default)."""
    text = record.splitlines()
    game, rejections = replay("\n".join(text if lines is None else text[:lines]))
    assert not rejections
    return Position(tuple(game.header.seats), game.state)


def positions(record: str) -> dict[str, Position]:
    """The position at the first line of each phase, plus the last transport position."""
    lines = [line for line in record.splitlines() if line.strip()]
    game = Game.start(parse_header(lines[0]))
    seats = tuple(game.header.seats)
    found = {"draw": Position(seats, game.state)}
    for line in lines[1:]:
        game.apply_text(line)
        phase = giants.view(game.state, None)["phase"]
        found.setdefault(phase, Position(seats, game.state))
        if phase == "transport":
            found["late_transport"] = Position(seats, game.state)
    return found


@pytest.fixture(scope="module")
def games() -> dict[str, dict[str, Position]]:
    return {name: positions(greedy_record(*spec)) for name, spec in GAMES.items()}


def public(game: Position) -> dict[str, Any]:
    return game.view(None)


def png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(PNG_SIGNATURE)
    return Image.open(io.BytesIO(png)).size


@pytest.mark.parametrize("name", GAMES)
def test_every_phase_renders_a_phone_sized_png(games: dict[str, dict[str, Position]],
                                               name: str) -> None:
    found = games[name]
    assert set(PHASES) <= set(found)
    for phase, game in found.items():
        view = public(game)
        png = gi.board(view)
        width, height = png_size(png)
        assert width >= 1200, phase
        assert (width, height) == gi.canvas(view).size
        assert 20_000 < len(png) < 1_500_000


@pytest.mark.parametrize("name", GAMES)
def test_every_seat_view_renders_as_board_and_screen(games: dict[str, dict[str, Position]],
                                                     name: str) -> None:
    for phase in ("bid", "transport", "endround", "over"):
        game = games[name][phase]
        for seat in game.seats:
            view = game.view(seat)
            width, _ = png_size(gi.screen(view, seat))
            assert width == giants_screen.WIDTH  # as wide as what it shows (a phone's column)
        seat = game.seats[-1]
        assert png_size(gi.board(game.view(seat)))[0] >= 1200


def test_screen_needs_the_seats_own_view(games: dict[str, dict[str, Position]]) -> None:
    game = games["4"]["place"]
    with pytest.raises(ValueError):
        gi.screen(public(game), "red")
    with pytest.raises(ValueError):
        gi.screen(game.view("blue"), "red")


@pytest.mark.parametrize("path", sorted(RECORDS.glob("*.txt")), ids=lambda p: p.stem)
def test_every_example_record_renders(path: Path) -> None:
    played, _ = replay(path.read_text(encoding="utf-8"), keep_going=True)
    game = Position(tuple(played.header.seats), played.state)
    assert png_size(gi.board(public(game)))[0] >= 1200
    for seat in game.seats:
        assert gi.screen(game.view(seat), seat).startswith(PNG_SIGNATURE)


def test_screen_says_a_fresh_headdress_waits_for_next_round(monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    lines = (RECORDS / "fresh_headdress.txt").read_text(encoding="utf-8").splitlines()
    cut = next(n for n, line in enumerate(lines) if "round 1, phase 4" in line)
    game, _ = replay("\n".join(lines[:cut]))
    red, blue = giants.view(game.state, "red"), giants.view(game.state, "blue")
    assert red["phase"] == "transport" and red["players"]["red"]["front"] == ["hat1"]
    taller = giants_screen.screen_canvas(red, "red").height
    assert taller > giants_screen.screen_canvas(blue, "blue").height
    used: list[tuple[str, dict[str, Any]]] = []

    def spy(key: str, lang: str = "en", /, **params: Any) -> str:
        used.append((key, params))
        return key

    monkeypatch.setattr(giants_screen, "t", spy)
    giants_screen.screen_canvas(red, "red")
    assert ("render.giants.screen.front_headdress", {"item": "hat1"}) in used
    assert "waits for next round" in catalogue("en")["render.giants.screen.front_headdress"]


BIDDING = "game giants red blue green yellow purple seed=1\n* dice 0 1 2 3 3\nblue bid 0m\n"


@pytest.mark.parametrize("secret", ["red bid 2m 1w chief", "red bid 0m", "red bid 1m sorcerer"])
def test_public_image_is_the_same_whatever_the_sealed_bid(secret: str) -> None:
    plain = game_after(BIDDING + "red bid 0m 1w\n")
    other = game_after(BIDDING + secret + "\n")
    assert public(plain) == public(other)
    assert gi.board(public(plain)) == gi.board(public(other))
    if secret != "red bid 0m":
        mine = plain.view("red"), other.view("red")
        assert gi.screen(mine[0], "red") != gi.screen(mine[1], "red")


def test_public_image_is_the_same_whatever_the_end_of_round_answer() -> None:
    record = greedy_record(4, 11, []).splitlines()
    cut = next(n for n, line in enumerate(record) if line.startswith("blue endround"))
    head = "\n".join(record[:cut])
    kept = game_after(head + "\nblue endround\n")
    marked = game_after(head + "\n" + record[cut] + "\n")
    assert record[cut] != "blue endround"
    assert gi.board(public(kept)) == gi.board(public(marked))


def test_rendering_leaves_the_views_alone(games: dict[str, dict[str, Position]]) -> None:
    for phase in ("bid", "choose", "transport", "over"):
        game = games["5"][phase]
        view = public(game)
        before = copy.deepcopy(view)
        gi.board(view, names={"red": "Hotu Matu'a"})
        assert view == before
        mine = game.view("red")
        before = copy.deepcopy(mine)
        gi.screen(mine, "red")
        gi.board(mine)
        assert mine == before


def slot_base(image: Image.Image, ahu: str) -> tuple[int, ...]:
    """The colour of the base under the statue on ``ahu``."""
    x, y = gi.ahu_spots()[ahu].slot
    return image.getpixel((round(x), round(y + gi.SLOT_H / 2 - 5)))


def erected(view: dict[str, Any]) -> list[str]:
    return [a for a, spot in view["ahus"].items() if spot["moai"]]


def test_owner_shows_only_when_the_view_names_it(games: dict[str, dict[str, Position]]) -> None:
    game = games["5"]["late_transport"]
    view = public(game)
    ahu = erected(view)[0]
    assert view["ahus"][ahu]["owner"] is None
    grey = slot_base(gi.canvas(view), ahu)
    seat = next(s for s in game.seats
                if game.view(s)["ahus"][ahu]["owner"] == s)
    coloured = slot_base(gi.canvas(game.view(seat)), ahu)
    assert grey != coloured
    assert all(abs(a - b) < 40 for a, b in zip(coloured, seat_colour(seat).fill, strict=False))


def test_running_score_shows_every_owner(games: dict[str, dict[str, Position]]) -> None:
    view = public(games["3-running"]["late_transport"])
    assert view["options"]["running_score"]
    image = gi.canvas(view)
    for ahu in erected(view):
        owner = view["ahus"][ahu]["owner"]
        assert owner is not None
        base = slot_base(image, ahu)
        assert all(abs(a - b) < 40 for a, b in zip(base, seat_colour(owner).fill, strict=False))


def test_offer_is_drawn_only_while_statues_wait(games: dict[str, dict[str, Position]]) -> None:
    x0, y0, x1, y1 = (round(v) for v in gi.OFFER_BOX)
    bid = public(games["4"]["bid"])
    place = public(games["4"]["place"])
    assert bid["offer"] and not place["offer"]
    empty = Image.new("RGB", (x1 - x0, y1 - y0), gi.SEA).tobytes()
    assert gi.canvas(bid).crop((x0, y0, x1, y1)).tobytes() != empty
    assert gi.canvas(place).crop((x0, y0, x1, y1)).tobytes() == empty


def test_every_word_has_an_english_text(games: dict[str, dict[str, Position]],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    used: set[str] = set()

    def spy(key: str, lang: str = "en", /, **params: Any) -> str:
        used.add(key)
        return key

    for module in (gi, giants_screen):
        monkeypatch.setattr(module, "t", spy)
    gi.static_layers.cache_clear()
    try:
        for found in games.values():
            for phase, game in found.items():
                gi.canvas(public(game))
                if phase in ("bid", "endround", "over"):
                    seat = game.seats[0]
                    giants_screen.screen_canvas(game.view(seat), seat)
    finally:
        gi.static_layers.cache_clear()
    assert any(k.startswith("render.giants.") for k in used)
    assert used <= catalogue("en").keys(), used - catalogue("en").keys()


def test_status_line_names_who_acts(games: dict[str, dict[str, Position]]) -> None:
    shown = {"red": "Hotu", "blue": "Blue", "green": "Green", "yellow": "Yellow",
             "purple": "Purple"}
    bid = public(games["5"]["bid"])
    assert "Hotu" in gi.status_text(bid, "en", shown)
    over = public(games["5"]["over"])
    text = gi.status_text(over, "en", shown)
    assert all(shown[w] in text for w in over["winners"])
    assert "render." not in text


def test_bid_phase_tells_who_has_bid_never_what() -> None:
    game = game_after(BIDDING + "red bid 2m 1w chief\n")
    view = public(game)
    assert gi.seat_badge(view, "red", "en").endswith("Bid sealed")
    assert gi.seat_badge(view, "green", "en").endswith("Bidding")
    assert view["players"]["red"]["committed"] == {"workers": 0, "chief": False,
                                                   "sorcerer": False, "markers": 0}


def test_names_appear_in_the_legend(games: dict[str, dict[str, Position]]) -> None:
    view = public(games["4"]["place"])
    legend = (0, gi.TABLE_Y, 240, gi.TABLE_Y + 4 * gi.ROW_H)
    plain = gi.canvas(view).crop(legend)
    named = gi.canvas(view, names={"blue": "Tuki " * 20}).crop(legend)
    assert plain.tobytes() != named.tobytes()


def test_static_layers_are_cached_and_never_drawn_on(games: dict[str, dict[str, Position]]) -> None:
    view = public(games["5"]["late_transport"])
    layers = gi.static_layers("en", 5)
    before = layers.base.tobytes()
    hits = gi.static_layers.cache_info().hits
    gi.canvas(view)
    assert gi.static_layers("en", 5) is layers
    assert gi.static_layers.cache_info().hits > hits
    assert layers.base.tobytes() == before


def test_a_render_is_quick(games: dict[str, dict[str, Position]]) -> None:
    view = public(games["5"]["over"])
    gi.canvas(view)
    start = time.perf_counter()
    for _ in range(5):
        gi.canvas(view)
    assert (time.perf_counter() - start) / 5 < 0.1


def test_every_ahu_has_its_own_place_on_the_sea() -> None:
    spots = gi.ahu_spots()
    assert len(spots) == 29
    boxes = [gi._box_at(s.slot, gi.SLOT_W, gi.SLOT_H) for s in spots.values()]
    boxes += [gi._block_box(s.block, s.lines) for s in spots.values()]
    for i, a in enumerate(boxes):
        assert min(a[0], a[1]) >= 0 and a[2] <= gi.WIDTH and a[3] <= gi.BOARD_HEIGHT
        assert not gi._on_land(a)
        for b in boxes[i + 1:]:
            assert gi._overlap(a, b) == 0


def test_crowded_hex_keeps_its_chips_near_it() -> None:
    chips = [art.item_tag("moai", n, 2, "red") for n in range(10, 16)]
    placed = gi.flow(chips, (500.0, 500.0))
    assert len(placed) == 6
    assert all(abs(x - 500) < 60 and -20 < y - 500 < 70 for _, x, y in placed)


def hex_box(label: str, margin: float = 3) -> tuple[float, float, float, float]:
    cx, cy = gi.hex_centre(label)
    return (cx - gi.HW / 2 - margin, cy - gi.S - margin, cx + gi.HW / 2 + margin,
            cy + gi.S + margin)


def slot_box(ahu: str, margin: float = 3) -> tuple[float, float, float, float]:
    x, y = gi.ahu_spots()[ahu].slot
    return (x - gi.SLOT_W / 2 - 2 - margin, y - gi.SLOT_H / 2 - 1 - margin,
            x + gi.SLOT_W / 2 + 2 + margin, y + gi.SLOT_H / 2 + 1 + margin)


def test_highlight_changes_the_highlighted_places_only(
        games: dict[str, dict[str, Position]]) -> None:
    view = public(games["5"]["late_transport"])
    ahu = erected(view)[0]
    crowded = max(view["hexes"], key=lambda h: len(view["hexes"][h]["figures"]))
    marked = {"F5", crowded, ahu, "hanga-o-teo"}
    plain = gi.canvas(view)
    lit = gi.canvas(view, highlight=frozenset(marked))
    boxes = [hex_box("F5"), hex_box(crowded), slot_box(ahu), slot_box("hanga-o-teo")]
    assert difference_outside(plain, lit, boxes) is None
    for box in boxes:
        assert colour_count(lit, CHANGED, box) > 100
        assert colour_count(plain, CHANGED, box) == 0


def test_unknown_highlight_labels_are_ignored(games: dict[str, dict[str, Position]]) -> None:
    view = public(games["4"]["transport"])
    odd = frozenset({"Z99", "S03", "moai1", "", "f5", "C5 "})
    assert gi.board(view, highlight=odd) == gi.board(view)


def test_highlight_never_draws_on_the_cached_layers(
        games: dict[str, dict[str, Position]]) -> None:
    layers = gi.static_layers("en", 5)
    before = layers.base.tobytes()
    gi.canvas(public(games["5"]["late_transport"]),
              highlight=frozenset(gi.HEX_CR) | frozenset(gi.AHU_DATA))
    assert gi.static_layers("en", 5) is layers
    assert layers.base.tobytes() == before


def crowded_quarry(view: dict[str, Any], count: int) -> dict[str, Any]:
    """The view with ``count`` statues lying in the moai quarry (some with a marker)."""
    crowded = copy.deepcopy(view)
    for n in range(count):
        crowded["items"][f"moai{60 + n}"] = {
            "kind": "moai", "size": 1 + n % 3, "at": gi.MOAI_QUARRY,
            "marker": view["seats"][n % 2] if n % 3 == 0 else None, "abandoned": False}
    return crowded


def chip_boxes(placed: list[tuple[Image.Image, float, float]]) -> list[tuple[float, ...]]:
    return [(x - c.width / 2, y - c.height / 2, x + c.width / 2, y + c.height / 2)
            for c, x, y in placed]


def inside(box: tuple[float, ...], frame: tuple[float, ...]) -> bool:
    return frame[0] <= box[0] and frame[1] <= box[1] and box[2] <= frame[2] and box[3] <= frame[3]


@pytest.mark.parametrize("count", [5, 8, 15, 22])
def test_statues_in_the_quarry_stay_in_its_hex_or_tray(games: dict[str, dict[str, Position]],
                                                       count: int) -> None:
    view = crowded_quarry(public(games["4"]["place"]), count)
    assert gi.in_tray(view)
    tray, placed = gi.tray_layout(view)
    assert inside(tray, gi.QUARRY_BOX)
    assert all(inside(box, tray) for box in chip_boxes(placed))
    numbers = [c for c, _, _ in placed]
    assert len(numbers) == min(count, 15)  # a fuller quarry ends its last row with "+n"
    empty = copy.deepcopy(view)
    empty["items"] = {i: item for i, item in view["items"].items()
                      if item["at"] != gi.MOAI_QUARRY}
    image, bare = gi.canvas(view), gi.canvas(empty)
    # Only the quarry's own hex and the tray change: L8, M8 and the other neighbours do not.
    assert difference_outside(image, bare, [hex_box(gi.MOAI_QUARRY, 0), gi.QUARRY_BOX]) is None
    lit = gi.canvas(view, highlight=frozenset({gi.MOAI_QUARRY}))
    assert colour_count(lit, CHANGED, tray) > 100
    for neighbour in ("L8", "M8", "N7"):
        x, y = gi.hex_centre(neighbour)
        assert not differs_inside(lit, image, (x - 28, y - 20, x + 28, y + 40))


def test_a_few_statues_in_the_quarry_stay_on_its_hex(
        games: dict[str, dict[str, Position]]) -> None:
    view = crowded_quarry(public(games["4"]["place"]), 3)
    view["items"] = {i: it for i, it in view["items"].items()
                     if it["at"] != gi.MOAI_QUARRY or i in ("moai61", "moai62")}
    assert not gi.in_tray(view)
    x0, y0, x1, y1 = (round(v) for v in gi.QUARRY_BOX)
    empty = Image.new("RGB", (x1 - x0, y1 - y0), gi.SEA).tobytes()
    assert gi.canvas(view).crop((x0, y0, x1, y1)).tobytes() == empty


def test_item_numbers_come_from_the_ids() -> None:
    assert gi.item_number("moai12") == 12
    assert gi.item_number("hat3") == 3


def test_python_m_render_draws_a_giants_record(tmp_path: Path) -> None:
    record = tmp_path / "giants.txt"
    record.write_text(greedy_record(3, 5, []), encoding="utf-8")
    out = tmp_path / "board.png"
    assert render_cli.main([str(record), "-o", str(out)]) == 0
    assert png_size(out.read_bytes())[0] >= 1200
    assert render_cli.main([str(record), "--seat", "green", "-o", str(out)]) == 0
    assert out.read_bytes().startswith(PNG_SIGNATURE)
