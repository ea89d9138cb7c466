"""The Giganten board and hand images: format, size, every phase, hidden information, purity."""

from __future__ import annotations

import contextlib
import copy
import io
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import render.__main__ as render_cli
import rules.__main__ as rules_cli
from render import giganten as gg
from render import giganten_art, giganten_hand
from render.common import CHANGED, seat_colour
from render.i18n import catalogue
from rules import giganten
from rules.record import Game, parse_header, replay
from tests.helpers.images import colour_count, difference_outside

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RECORDS = Path(__file__).parent / "records" / "giganten"
GAMES = {"3": (3, 8), "4": (4, 3)}
"""Greedy games: seats, seed."""


def greedy_record(seats: int, seed: int) -> str:
    """The record ``python -m rules play giganten`` prints for greedy AIs."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = rules_cli.main(["play", "giganten", "--seats", str(seats), "--seed", str(seed),
                               "--ai", "greedy"])
    assert code == 0
    return out.getvalue()


def positions(record: str) -> dict[str, Any]:
    """The state at the first line of each decision, the last auction before the end (the black
    train next to the harbour) and the final state."""
    lines = [line for line in record.splitlines() if line.strip()]
    game = Game.start(parse_header(lines[0]))
    found: dict[str, Any] = {"start": game.state}
    for line in lines[1:]:
        game.apply_text(line)
        decision = game.state.decision if game.state.phase != "over" else "over"
        found.setdefault(decision, game.state)
        if decision == "bid":
            found["late_bid"] = game.state
    return found


@pytest.fixture(scope="module")
def records() -> dict[str, str]:
    return {name: greedy_record(*args) for name, args in GAMES.items()}


@pytest.fixture(scope="module")
def games(records: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {name: positions(text) for name, text in records.items()}


def png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(PNG_SIGNATURE)
    return Image.open(io.BytesIO(png)).size


def cut(record: str, lines: int) -> Any:
    """The state after the first ``lines`` lines of a record."""
    game, rejections = replay("\n".join(record.splitlines()[:lines]))
    assert not rejections
    return game.state


# --- format and coverage -----------------------------------------------------------------------

def test_every_decision_renders_a_phone_sized_png(games: dict[str, dict[str, Any]]) -> None:
    for name, found in games.items():
        assert {"take", "move", "build", "produce", "bid", "sell", "over"} <= found.keys(), name
        for state in found.values():
            view = giganten.view(state, None)
            png = gg.board(view)
            width, height = png_size(png)
            assert width >= 1200
            assert (width, height) == gg.canvas(view).size
            assert 10_000 < len(png) < 1_500_000


@pytest.mark.parametrize("fraction", [0.1, 0.3, 0.5, 0.7, 0.9])
def test_records_cut_anywhere_render(records: dict[str, str], fraction: float) -> None:
    for record in records.values():
        state = cut(record, round(len(record.splitlines()) * fraction))
        assert png_size(gg.board(giganten.view(state, None)))[0] >= 1200


@pytest.mark.parametrize("path", sorted(RECORDS.glob("*.txt")), ids=lambda p: p.stem)
def test_every_example_record_renders(path: Path) -> None:
    game, _ = replay(path.read_text(encoding="utf-8"), keep_going=True)
    assert png_size(gg.board(game.module.view(game.state, None)))[0] >= 1200
    for seat in game.header.seats:
        view = game.module.view(game.state, seat)
        assert png_size(gg.board(view))[0] >= 1200
        assert png_size(gg.hand(view, seat))[0] == giganten_hand.HAND_WIDTH


def test_hand_renders_for_every_seat(games: dict[str, dict[str, Any]]) -> None:
    for found in games.values():
        for decision in ("move", "bid", "over"):
            state = found[decision]
            for seat in state.seats:
                hand = gg.hand(giganten.view(state, seat), seat)
                assert png_size(hand)[0] == giganten_hand.HAND_WIDTH


def test_hand_needs_the_seats_own_view(games: dict[str, dict[str, Any]]) -> None:
    state = games["4"]["move"]
    with pytest.raises(ValueError):
        gg.hand(giganten.view(state, None), "red")
    with pytest.raises(ValueError):
        gg.hand(giganten.view(state, "grey"), "red")


# --- hidden information ------------------------------------------------------------------------

def unpeeked_hidden(state: Any, seat: str | None) -> str:
    """A face-down tile that ``seat`` has not looked at."""
    known = state.peeks.get(seat, []) if seat else []
    return next(label for label, sp in state.spaces.items()
                if sp["state"] == "hidden" and label not in known)


def with_secrets_changed(state: Any, hand_of: str, tile: str) -> Any:
    """The same position with another licence hand of the same size and another tile value."""
    other = state.copy()
    hand = other.players[hand_of]["hand"]
    other.players[hand_of]["hand"] = sorted(3 - v for v in hand) if hand else hand
    other.spaces[tile]["value"] = 6 if other.spaces[tile]["value"] != 6 else 2
    return other


@pytest.mark.parametrize("decision", ["move", "bid", "late_bid"])
def test_public_image_is_the_same_whatever_the_secrets(games: dict[str, dict[str, Any]],
                                                      decision: str) -> None:
    state = games["4"][decision]
    seat = next(s for s in state.seats if state.players[s]["hand"])
    other = with_secrets_changed(state, seat, unpeeked_hidden(state, None))
    assert state.players[seat]["hand"] != other.players[seat]["hand"]
    assert gg.board(giganten.view(state, None)) == gg.board(giganten.view(other, None))


def test_seat_images_are_the_same_whatever_another_seats_secrets(
        games: dict[str, dict[str, Any]]) -> None:
    state = games["4"]["bid"]
    me = "red"
    rival = next(s for s in state.seats if s != me and state.players[s]["hand"])
    other = with_secrets_changed(state, rival, unpeeked_hidden(state, me))
    for draw in (gg.board, lambda v: gg.hand(v, me)):
        assert draw(giganten.view(state, me)) == draw(giganten.view(other, me))


def test_a_seat_sees_its_own_secrets(games: dict[str, dict[str, Any]]) -> None:
    """The control for the two tests above: a change the viewer may know does show."""
    state, me = next((st, s) for st in games["4"].values() for s in st.seats
                     if st.players[s]["hand"] and any(st.spaces[lb]["state"] == "hidden"
                                                      for lb in st.peeks[s]))
    peeked = next(lb for lb in state.peeks[me] if state.spaces[lb]["state"] == "hidden")
    other = with_secrets_changed(state, me, peeked)
    assert gg.board(giganten.view(state, me)) != gg.board(giganten.view(other, me))
    assert gg.hand(giganten.view(state, me), me) != gg.hand(giganten.view(other, me), me)
    assert gg.board(giganten.view(state, None)) == gg.board(giganten.view(other, None))


def test_public_tiles_carry_no_values(games: dict[str, dict[str, Any]]) -> None:
    view = giganten.view(games["4"]["late_bid"], None)
    assert all(sp["value"] is None for sp in view["spaces"].values() if sp["state"] == "hidden")


# --- purity, words, cache, speed ---------------------------------------------------------------

def test_rendering_leaves_the_views_alone(games: dict[str, dict[str, Any]]) -> None:
    for decision in ("take", "bid", "over"):
        state = games["4"][decision]
        for seat in (None, "red"):
            view = giganten.view(state, seat)
            before = copy.deepcopy(view)
            gg.board(view, names={"red": "Howard"})
            if seat:
                gg.hand(view, seat, names={"red": "Howard"})
            assert view == before


def test_every_word_has_an_english_text(games: dict[str, dict[str, Any]],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    used: set[str] = set()

    def spy(key: str, lang: str = "en", /, **params: Any) -> str:
        used.add(key)
        return key

    for module in (gg, giganten_hand):
        monkeypatch.setattr(module, "t", spy)
    gg.static_base.cache_clear()
    try:
        for found in games.values():
            for state in found.values():
                gg.canvas(giganten.view(state, None))
                seat = state.seats[0]
                giganten_hand.hand_canvas(giganten.view(state, seat), seat)
    finally:
        gg.static_base.cache_clear()
    assert any(k.startswith("render.giganten.") for k in used)
    assert used <= catalogue("en").keys(), used - catalogue("en").keys()


def test_catalogue_keys_are_prefixed() -> None:
    path = Path(__file__).parent.parent / "data" / "i18n" / "en" / "render_giganten.json"
    import json

    keys = json.loads(path.read_text(encoding="utf-8")).keys()
    assert keys and all(k.startswith("render.giganten.") for k in keys)


def test_status_line_names_who_acts_and_the_auction(games: dict[str, dict[str, Any]]) -> None:
    shown = {"red": "Howard", "grey": "Grey", "blue": "Blue", "green": "Green"}
    bid = giganten.view(games["4"]["late_bid"], None)
    text = gg.status_text(bid, "en", shown)
    assert shown[bid["pending"][0]] in text
    assert str(bid["auction"]["high_bid"]) in text
    over = giganten.view(games["4"]["over"], None)
    text = gg.status_text(over, "en", shown)
    assert all(shown[w] in text for w in over["winners"])
    for found in games.values():
        for state in found.values():
            assert "render." not in gg.status_text(giganten.view(state, None), "en", shown)


def test_badges_follow_the_auction(games: dict[str, dict[str, Any]]) -> None:
    view = giganten.view(games["4"]["late_bid"], None)
    auction = view["auction"]
    assert gg._badge(view, view["pending"][0], "en").startswith("▶")
    if auction["high_bidder"]:
        assert str(auction["high_bid"]) in gg._badge(view, auction["high_bidder"], "en")


def test_static_base_is_cached_and_never_drawn_on(games: dict[str, dict[str, Any]]) -> None:
    view = giganten.view(games["4"]["bid"], None)
    base = gg.static_base("en", 4, False)
    before = base.tobytes()
    hits = gg.static_base.cache_info().hits
    gg.canvas(view)
    assert gg.static_base("en", 4, False) is base
    assert gg.static_base.cache_info().hits > hits
    assert base.tobytes() == before


def test_a_render_is_quick(games: dict[str, dict[str, Any]]) -> None:
    view = giganten.view(games["4"]["late_bid"], None)
    gg.canvas(view)
    start = time.perf_counter()
    for _ in range(5):
        gg.canvas(view)
    assert (time.perf_counter() - start) / 5 < 0.1


def test_names_and_prices_follow_the_view(games: dict[str, dict[str, Any]]) -> None:
    view = giganten.view(games["4"]["move"], None)
    assert gg.canvas(view, names={"red": "Howard"}).tobytes() != gg.canvas(view).tobytes()
    moved = copy.deepcopy(view)
    moved["prices"]["jet"] = 9000 if view["prices"]["jet"] != 9000 else 1500
    assert gg.canvas(moved).tobytes() != gg.canvas(view).tobytes()


def test_python_m_render_draws_a_giganten_record(tmp_path: Path,
                                                 records: dict[str, str]) -> None:
    record = tmp_path / "giganten.txt"
    record.write_text(records["4"], encoding="utf-8")
    out = tmp_path / "board.png"
    assert render_cli.main([str(record), "-o", str(out)]) == 0
    assert png_size(out.read_bytes())[0] >= 1200
    record.write_text("\n".join(records["3"].splitlines()[:150]), encoding="utf-8")
    assert render_cli.main([str(record), "--seat", "grey", "-o", str(out)]) == 0
    assert png_size(out.read_bytes())[0] >= 1200


# --- what changed, and the final ranking ---------------------------------------------------------

def space_box(label: str, margin: float = 4) -> tuple[float, float, float, float]:
    x, y = gg.cell_xy(label)
    return (x - margin, y - margin, x + gg.CELL + margin, y + gg.CELL + margin)


def price_box(view: dict[str, Any], company: str) -> tuple[float, float, float, float]:
    top = gg.Layout(len(view["seats"])).company_row(gg.COMPANIES.index(company))
    x = gg.PRICE_X + gg.PRICE_TABLE.index(view["prices"][company]) * gg.PRICE_W + gg.PRICE_W / 2
    return (x - 40, top - 10, x + 40, top + 58)


@pytest.mark.parametrize("decision", ["build", "produce", "late_bid"])
def test_highlight_changes_the_highlighted_places_only(games: dict[str, dict[str, Any]],
                                                       decision: str) -> None:
    view = giganten.view(games["4"][decision], None)
    truck = next(p["truck"] for p in view["players"].values() if p["truck"])
    tile = next(lb for lb, sp in view["spaces"].items() if sp["state"] == "hidden")
    marked = {"A1", truck, tile, "jet"}
    plain = gg.canvas(view)
    lit = gg.canvas(view, highlight=frozenset(marked))
    boxes = [space_box("A1"), space_box(truck), space_box(tile), price_box(view, "jet")]
    assert difference_outside(plain, lit, boxes) is None
    for box in boxes:
        assert colour_count(lit, CHANGED, box) > 100
        assert colour_count(plain, CHANGED, box) == 0


def test_unknown_highlight_labels_are_ignored(games: dict[str, dict[str, Any]]) -> None:
    view = giganten.view(games["4"]["move"], None)
    odd = frozenset({"Z9", "M7", "S03", "a1", "", "texaco", "hanga-o-teo"})
    assert gg.board(view, highlight=odd) == gg.board(view)


def test_highlight_never_draws_on_the_cached_base(games: dict[str, dict[str, Any]]) -> None:
    base = gg.static_base("en", 4, False)
    before = base.tobytes()
    gg.canvas(giganten.view(games["4"]["bid"], None),
              highlight=frozenset(gg.GRID) | frozenset(gg.COMPANIES))
    assert gg.static_base("en", 4, False) is base
    assert base.tobytes() == before


def test_final_board_ranks_by_money_and_names_the_rail_order(
        games: dict[str, dict[str, Any]]) -> None:
    view = giganten.view(games["4"]["over"], None)
    result = view["result"]
    places = gg.places(view)
    by_money = sorted(view["seats"], key=lambda s: -result[s]["total"])
    assert places[by_money[0]] == 1 and set(view["winners"]) == {
        s for s, p in places.items() if p == 1}
    assert [places[s] for s in by_money] == sorted(places.values())
    for seat in view["seats"]:
        values = dict(gg._legend_values(view, seat, "en"))
        assert values[gg.FINAL["place"]] == f"#{places[seat]}"
        assert values[gg.FINAL["loco"]] == \
            f"{result[seat]['rank']} · at {view['players'][seat]['loco']}"
    # The ranking cards take the place of the action cards, first place first.
    assert not view["display"]
    image = gg.canvas(view)
    strip_y = gg.Layout(4).cards_y + 26 + 10
    for i, seat in enumerate(sorted(view["seats"], key=lambda s: (places[s],
                                                                  view["seats"].index(s)))):
        x = 16 + i * (gg.CARD_W + 18) + gg.CARD_W / 2 + 30
        assert image.getpixel((round(x), strip_y)) == seat_colour(seat).fill
    assert "render.giganten.final.loco" in catalogue("en")
    assert "render.giganten.final.rank" not in catalogue("en")


def test_a_holders_card_shares_its_face_and_the_named_cards_are_bounded() -> None:
    lines = ("r07", "2 licences · 3 MP", "Sells at the higher price")
    giganten_art._card_face.cache_clear()
    first = giganten_art.action_card(lines, True, "red", "Hotu Matua")
    second = giganten_art.action_card(lines, True, "red", "Tuki")
    assert giganten_art._card_face.cache_info().misses == 1  # one face, two names on it
    assert first.size == second.size and first.tobytes() != second.tobytes()
    assert giganten_art.action_card.cache_info().maxsize == giganten_art.HOLDER_CARDS
