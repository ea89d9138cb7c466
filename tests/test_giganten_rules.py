"""Unit tests, one rule at a time, for the Giganten engine (giganten.md)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

import rules.giganten as g
from rules.__main__ import main as cli
from rules.core import CHANCE, IllegalAction
from rules.giganten import auction, board, works
from rules.giganten.actions import Entry
from rules.giganten.board import COST, TILE_SPACES, rail_cost
from rules.giganten.chance import price_move
from rules.giganten.state import State
from rules.record import RecordError, parse_header, replay
from tests.helpers.words import forms

RECORD = Path(__file__).parent / "records" / "giganten" / "example_a.txt"
ROOT = Path(__file__).parent.parent
SPEC = Path(__file__).parent / "specs" / "giganten.md"
"""The Giganten rules specification: a copy kept with the tests (see the test reading it)."""


def before(line: str) -> State:
    """Example A's state just before its first line whose action part is ``line``."""
    kept = []
    for raw in RECORD.read_text(encoding="utf-8").splitlines():
        if raw.split("#", 1)[0].strip() == line:
            break
        kept.append(raw)
    else:
        raise AssertionError(f"{line!r} is not in example A")
    game, rejections = replay("\n".join(kept))
    assert not rejections
    return game.state


def edit(state: State, change: Any) -> State:
    data = g.to_json(state)
    change(data)
    return g.from_json(data)


def ok(state: State, actor: str, text: str) -> State:
    after, _ = g.apply(state, actor, g.parse(text))
    return after


def key_of(state: State, actor: str, text: str) -> str:
    snapshot = g.to_json(state)
    with pytest.raises(IllegalAction) as exc:
        g.apply(state, actor, g.parse(text))
    assert g.to_json(state) == snapshot
    return exc.value.key


# --- setup ---------------------------------------------------------------------------------------

def test_setup_three_players() -> None:
    s = g.new(["red", "grey", "blue"])
    v = g.view(s, None)
    assert v["round"] == 0 and v["phase"] == "setup" and v["pending"] == [CHANCE]
    assert v["decision"] == "tiles"
    unused = sorted(label for label, sp in v["spaces"].items() if sp["state"] == "unused")
    assert unused == sorted(["E5", "J6", "D11", "G18", "A16", "L14"])
    assert len(v["spaces"]) == 36 and "I5" in v["spaces"]
    assert all(p["money"] == 15000 and p["loco"] == 1 and p["truck"] is None
               and p["derricks_in_hand"] == 5 for p in v["players"].values())
    assert v["prices"] == {"hudson": 5000, "jet": 5000, "standard": 5000}
    assert v["black_loco"] == 1 and v["supply"] == 60
    assert v["decks"]["beige_draw"] == 30 and v["decks"]["red_draw"] == 12
    assert v["decks"]["licence_draw"] == 78


def test_setup_four_players_uses_every_space() -> None:
    s = g.new(["red", "grey", "blue", "green"])
    assert all(sp["state"] == "hidden" for sp in s.spaces.values())
    tiles = g.chance(s, random.Random(1))
    assert len(tiles.tiles) == 36
    s = ok(s, CHANCE, str(tiles))
    assert s.round == 1 and s.decision == "prices"


@pytest.mark.parametrize("seats", [["red", "grey"], ["red", "grey", "blue", "green", "red"],
                                   ["red", "red", "blue"], ["red", "grey", "pink"]])
def test_setup_rejects_bad_seats(seats: list[str]) -> None:
    with pytest.raises(IllegalAction) as exc:
        g.new(seats)
    assert exc.value.key == "game.seats"


def test_setup_rejects_bad_options() -> None:
    with pytest.raises(ValueError):
        g.new(["red", "grey", "blue"], {"unlimited_chips": "maybe"})
    for header in ("game giganten red grey", "game giganten red grey blue colour=1",
                   "game giganten red grey blue unlimited_chips=1"):
        with pytest.raises(RecordError):
            parse_header(header)
    h = parse_header("game giganten red grey blue green unlimited_chips=YES seed=42")
    assert h.line() == "game giganten red grey blue green unlimited_chips=yes seed=42"


# --- notation ------------------------------------------------------------------------------------

CANONICAL = [
    "tiles A4=2 A6=4", "prices 3b 2r 4r", "reveal r7 b3 b11 b18 b25", "reveal r12",
    "licences red 1 2 2", "licences blue", "take r7", "drive F1 F2 F3", "peek G3", "loco 4",
    "price jet -2", "price hudson +4", "oil standard", "done", "build G3", "skip",
    "produce D9=jet:black G3=hudson H7=drop", "produce C5=standard:grey", "bid 4", "pass",
    "pay 2 2", "sell 0", "sell 2", "forfeit grey 1 2 2",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_notation_round_trips(text: str) -> None:
    assert str(g.parse(text)) == text
    assert str(g.parse(text.upper())) == text


def test_notation_canonical_order() -> None:
    assert str(g.parse("tiles a6=4 A4=2")) == "tiles A4=2 A6=4"
    assert str(g.parse("reveal r3 b26 b2 b22")) == "reveal r3 b2 b22 b26"
    assert str(g.parse("licences red 2 1 2")) == "licences red 1 2 2"
    assert str(g.parse("pay 2 1")) == "pay 1 2"
    assert str(g.parse("produce H7=drop d9=JET:Black g3=hudson")) == \
        "produce D9=jet:black G3=hudson H7=drop"
    assert str(g.parse("drive f3 f2\tf1  # comment")) == "drive F3 F2 F1"


@pytest.mark.parametrize("text", [
    "", "fly A1", "price jet +0", "price jet 2", "bid 0", "loco 0", "drive", "drive M1",
    "drive A21", "drive A0", "peek A4 A5", "oil shell", "take b31", "take r13", "prices 5b 2r 2r",
    "prices 2b 2r", "tiles A4=1", "tiles A4=7", "licences red 3", "licences purple 1",
    "produce A4=hudson:pink", "produce A4", "pay 3", "sell -1", "forfeit grey", "done now",
    "produce A4=hudson:black:red", "tiles A4=?",
])
def test_notation_syntax_errors(text: str) -> None:
    with pytest.raises(IllegalAction) as exc:
        g.parse(text)
    assert exc.value.key == "syntax"


# --- shared checks -------------------------------------------------------------------------------

def test_shared_keys() -> None:
    s = before("red take b1")
    assert key_of(s, "grey", "take b9") == "not_pending"
    assert key_of(s, "green", "take b9") == "not_pending"
    assert key_of(s, CHANCE, "prices 2b 2b 2b") == "not_pending"
    assert key_of(s, "red", "drive C1") == "wrong_phase"
    assert key_of(s, "red", "take b2") == "take.not_displayed"
    assert g.legal(s, "grey") == [] and g.legal(s, CHANCE) == []
    assert [str(a) for a in g.legal(s, "red")] == ["take r5", "take b1", "take b9", "take b15"]


def test_game_over_key() -> None:
    s = edit(before("* reveal r10 b2 b22 b26"), lambda d: d.update(black=18))
    s = ok(s, CHANCE, "reveal r10")
    assert s.phase == "over" and key_of(s, "red", "done") == "game_over"
    assert g.pending(s).seats == () and g.legal(s, "red") == []


# --- tiles, prices, reveal, take, licences -------------------------------------------------------

def _tiles_line(state: State) -> str:
    return str(g.chance(state, random.Random(5)))


def test_tiles_checks() -> None:
    s = g.new(["red", "grey", "blue"])
    line = _tiles_line(s)
    words = line.split()
    assert key_of(s, CHANCE, " ".join(words[:-1])) == "tiles.spaces"
    assert key_of(s, CHANCE, " ".join([*words, words[-1]])) == "tiles.spaces"
    assert key_of(s, CHANCE, " ".join([*words, "E5=2"])) == "tiles.spaces"
    assert key_of(s, CHANCE, line + " A1=2") == "tiles.spaces"
    type3 = [w for w in words[1:] if g.new(["red", "grey", "blue"]).spaces[w.split("=")[0]]
             ["type"] == 3]
    sixes = " ".join(w.split("=")[0] + "=6" for w in type3)
    rest = " ".join(w for w in words[1:] if w not in type3)
    assert key_of(s, CHANCE, f"tiles {rest} {sixes}") == "tiles.values"
    ones = [w for w in words[1:] if s.spaces[w.split("=")[0]]["type"] == 1]
    bad = " ".join(w if w != ones[0] else ones[0].split("=")[0] + "=6" for w in words[1:])
    assert key_of(s, CHANCE, f"tiles {bad}") == "tiles.values"
    assert ok(s, CHANCE, line).decision == "prices"


def test_price_die_zones() -> None:
    assert price_move(7, "2b") == 9 and price_move(7, "3r") == 4
    assert price_move(11, "2b") == 9 and price_move(11, "4r") == 7
    assert price_move(4, "3r") == 7 and price_move(0, "4b") == 4 and price_move(15, "4b") == 11
    assert all(1 <= price_move(i, f) <= 14 for i in range(16) for f in ("2r", "4r", "2b", "4b"))


def test_reveal_checks() -> None:
    s = before("* reveal r5 b1 b9 b15")
    assert key_of(s, CHANCE, "reveal b1 b9 b15 b16") == "reveal.unavailable"
    assert key_of(s, CHANCE, "reveal r5 b1 b9") == "reveal.count"
    assert key_of(s, CHANCE, "reveal r5 b1 b9 b9") == "reveal.count"
    assert key_of(s, CHANCE, "reveal r5 b1 b9 r6") == "reveal.unavailable"
    s2 = before("* reveal r10 b2 b22 b26")
    assert key_of(s2, CHANCE, "reveal r5 b2 b22 b26") == "reveal.unavailable"
    assert key_of(s2, CHANCE, "reveal r10 b1 b22 b26") == "reveal.unavailable"
    end = edit(s2, lambda d: d.update(black=18))
    assert key_of(end, CHANCE, "reveal r10 b2 b22 b26") == "reveal.count"
    assert ok(end, CHANCE, "reveal r10").black == 21


def test_take_leftover_is_discarded() -> None:
    s = before("blue take b15")
    s = ok(s, "blue", "take b15")
    assert s.beige_discard == ["b9"] and s.display == [] and s.decision == "licences"
    assert g.pending(s).subject == "red"


def test_licences_seat_and_count() -> None:
    s = before("* licences red 1 2 2")
    assert key_of(s, CHANCE, "licences grey 1 2 2") == "licences.seat"
    assert key_of(s, CHANCE, "licences red 1 2") == "licences.count"
    assert key_of(s, CHANCE, "licences red 1 2 2 2") == "licences.count"
    drawn = g.chance(s, random.Random(0))
    assert isinstance(drawn, g.Licences) and drawn.seat == "red" and len(drawn.values) == 3


# --- Action 4 ------------------------------------------------------------------------------------

def test_drive_placement_occupied_and_passing_through() -> None:
    s = before("blue drive B1 B2")
    t = edit(s, lambda d: d["players"]["red"].update(truck="B1"))
    assert key_of(t, "blue", "drive B1 B2") == "drive.placement_occupied"
    s = ok(s, "blue", "drive C1 C2 C3 C4")
    assert s.players["blue"]["truck"] == "C4" and s.turn["mp_left"] == 0


def test_drive_through_a_hidden_tile() -> None:
    s = edit(before("blue drive B1 B2"),
             lambda d: d["turn"].update(mp_left=20))
    s = ok(s, "blue", "drive D1 D2 D3 D4")
    assert s.players["blue"]["truck"] == "D4" and s.turn["mp_left"] == 20 - 2 - 1 - 1


def test_legal_drives_are_cheapest_and_end_everywhere() -> None:
    s = before("red drive C1 C2 C3")
    drives = [a for a in g.legal(s, "red") if isinstance(a, g.Drive)]
    ends = [a.path[-1] for a in drives]
    assert len(ends) == len(set(ends)) and "C3" in ends and "D3" not in ends
    assert all(a.path[0].endswith("1") and len(a.path[0]) == 2 for a in drives)
    for a in drives:
        assert sum(COST[x] for x in a.path[1:]) <= 12
        ok(s, "red", str(a))
    c3 = next(a for a in drives if a.path[-1] == "C3")
    assert sum(COST[x] for x in c3.path[1:]) == 2


def test_peek_checks_and_privacy() -> None:
    s = before("red peek D3")
    assert key_of(s, "red", "peek C5") == "peek.not_adjacent"
    assert key_of(s, "red", "peek C4") == "peek.no_tile"
    s2 = edit(s, lambda d: d["players"]["red"].update(truck="C14"))
    assert key_of(s2, "red", "peek C13") == "peek.forbidden"
    after, events = g.apply(s, "red", g.parse("peek D3"))
    assert key_of(after, "red", "peek D3") == "peek.known"
    assert events[-1]["private"] == {"seat": "red", "value": 3}
    assert g.view(after, "red")["spaces"]["D3"]["value"] == 3
    assert g.view(after, "grey")["spaces"]["D3"]["value"] is None


def test_rail_costs() -> None:
    assert [rail_cost(1, n) for n in (1, 9, 10, 16, 17, 19)] == [1, 9, 11, 23, 26, 32]
    s = before("red loco 1")
    locos = [a.steps for a in g.legal(s, "red") if isinstance(a, g.Loco)]
    assert locos == list(range(1, 10))  # 10 MP left: 1->10 costs 9, 1->11 costs 11


def test_locos_back_clamps_and_spares_black() -> None:
    s = edit(before("grey take r10"), lambda d: d["players"]["blue"].update(loco=14))
    s = ok(s, "grey", "take r10")
    for line in ("blue take b2", "red take b26", "* licences grey 2 2", "* licences blue 1 1 2"):
        s = ok(s, line.split()[0], " ".join(line.split()[1:]))
    s = ok(s, CHANCE, "licences red 1 1 2 2")
    assert s.players["red"]["loco"] == 1 and s.players["blue"]["loco"] == 10
    assert s.players["grey"]["loco"] == 3 and s.black == 5


def test_specials() -> None:
    s = before("red price standard +4")
    assert key_of(s, "red", "price standard -6") == "price.range"
    s = ok(s, "red", "price jet -1")
    assert key_of(s, "red", "price jet -1") == "price.used"
    s = before("grey oil hudson")
    assert key_of(s, "grey", "price jet +1") == "price.no_special"
    assert key_of(edit(s, lambda d: d.update(supply=0)), "grey", "oil jet") == "oil.supply"
    unlimited = edit(s, lambda d: d.update(supply=0, options={"unlimited_chips": True}))
    assert ok(unlimited, "grey", "oil jet").players["grey"]["storage"]["jet"] == 1
    s = ok(s, "grey", "oil jet")
    assert key_of(s, "grey", "oil jet") == "oil.used" and s.supply == 59


def test_move_legal_lists_each_kind() -> None:
    s = before("red price standard +4")
    kinds = {type(a).__name__ for a in g.legal(s, "red")}
    assert kinds == {"Drive", "Loco", "Price", "Done"}  # C5 is already peeked
    prices = [str(a) for a in g.legal(s, "red") if isinstance(a, g.Price)]
    assert "price hudson +3" in prices and "price hudson +4" not in prices
    assert "price standard +4" in prices and "price jet -4" in prices


# --- Action 5 ------------------------------------------------------------------------------------

def test_build_checks_and_skipping() -> None:
    s = before("red build D3")
    assert g.pending(s).seats == ("red",) and s.decision == "build"
    assert [str(a) for a in g.legal(s, "red")] == ["build D3", "skip"]
    assert key_of(s, "red", "build C5") == "build.not_adjacent"
    assert key_of(s, "red", "build A4") == "build.not_adjacent"
    assert key_of(s, "red", "build C4") == "build.no_tile"
    poor = edit(s, lambda d: d["players"]["red"].update(money=3999))
    assert g.legal(poor, "red") == [g.Skip()]  # an edited position: red is still asked
    assert key_of(poor, "red", "build D3") == "build.money"
    after = ok(s, "red", "build D3")
    assert after.decision == "produce"  # grey and blue had no legal build
    assert after.spaces["D3"] == {"type": 1, "state": "derrick", "value": 3, "owner": "red",
                                  "chips": 3}
    assert after.players["red"]["money"] == 11000 and after.supply == 60 - 1 - 3


def test_build_takes_what_the_supply_holds() -> None:
    s = edit(before("red build D3"), lambda d: d.update(supply=2))
    assert ok(s, "red", "build D3").spaces["D3"]["chips"] == 2
    empty = edit(before("red produce D3=hudson:grey"), lambda d: None)
    assert empty.decision == "produce"
    s = edit(before("blue build A4"), lambda d: d.update(supply=0))
    assert works.builds(s, "blue") == []


def test_build_with_no_tile() -> None:
    s = edit(before("red build D3"), lambda d: d["players"]["red"].update(truck="B3"))
    assert key_of(s, "red", "build A3") == "build.no_tile"


# --- Action 6 ------------------------------------------------------------------------------------

def test_produce_lines_cover_every_outcome_once() -> None:
    s = before("red produce C5=hudson:black D3=hudson")
    lines = g.legal(s, "red")
    assert all(isinstance(a, g.Produce) for a in lines)
    assert "produce C5=jet:grey D3=hudson" not in [str(a) for a in lines]
    same = {"produce C5=jet:blue D3=hudson", "produce C5=hudson:blue D3=jet"}
    assert len(same & {str(a) for a in lines}) == 1  # one outcome, listed once
    assert len(lines) == 22
    assert len(lines) == len({str(a) for a in lines})
    # C5: 3 black + 3 blue + drop; D3: 3 free + drop. Outcomes: red has $4,000, so one fee at most
    for a in lines:
        ok(s, "red", str(a))


def test_produce_money_and_dry_derricks() -> None:
    s = edit(before("red produce C5=hudson:black D3=hudson"),
             lambda d: d["players"]["red"].update(money=5000))
    assert key_of(s, "red", "produce C5=hudson:black D3=jet:black") == "produce.route"
    far = edit(s, lambda d: d["players"]["red"].update(loco=1))
    assert key_of(far, "red", "produce C5=hudson:black D3=jet:blue") == "produce.money"
    assert key_of(far, "red", "produce C5=hudson D3=drop") == "produce.route"
    assert key_of(s, "red", "produce C5=hudson:red D3=drop") == "produce.rival"
    assert key_of(s, "red", "produce C5=drop C5=drop D3=drop") == "produce.entries"
    assert key_of(s, "red", "produce C5=drop D3=drop A4=drop") == "produce.entries"
    dry = edit(s, lambda d: d["spaces"]["D3"].update(chips=1))
    after = ok(dry, "red", "produce C5=drop D3=hudson")
    assert after.spaces["D3"]["state"] == "spent" and after.players["red"]["derricks"] == 4
    assert g.view(after, None)["spaces"]["D3"]["value"] == 3


def test_produce_split_three_ways() -> None:
    s = g.new(["red", "grey", "blue", "green"])
    s = edit(s, lambda d: None)
    s = ok(s, CHANCE, _tiles_line(s))
    data = g.to_json(s)
    data.update(phase="produce", decision="produce", index=0)
    data["spaces"]["C13"].update(state="derrick", owner="red", chips=3)
    for seat, pos in (("grey", 15), ("blue", 15), ("green", 15)):
        data["players"][seat]["loco"] = pos
    s = g.from_json(data)
    lines = [str(a) for a in g.legal(s, "red")]
    assert lines == ["produce C13=hudson:grey", "produce C13=jet:grey",
                     "produce C13=standard:grey", "produce C13=drop"]
    after = ok(s, "red", "produce C13=jet:green")
    assert [after.players[c]["money"] for c in ("red", "grey", "blue", "green")] == [
        12000, 16000, 16000, 16000]


def test_production_without_choice_is_automatic() -> None:
    s = edit(before("red build D3"), lambda d: d["players"]["grey"].update(loco=1))
    s = edit(s, lambda d: d["players"]["blue"].update(loco=1))
    after = ok(s, "red", "build D3")
    # nothing is level with D3 (column 3): red's chip is dropped without a line
    assert after.spaces["D3"]["chips"] == 2 and after.supply == 60 - 1 - 2
    assert after.decision == "bid" and after.auction["company"] == "hudson"


# --- Action 7 ------------------------------------------------------------------------------------

def test_bid_checks_and_turns() -> None:
    s = before("red bid 3")
    assert key_of(s, "red", "bid 118") == "bid.high"
    s = ok(s, "red", "bid 3")
    assert key_of(s, "grey", "bid 3") == "bid.low"
    bids = [a for a in g.legal(s, "grey")]
    assert str(bids[0]) == "bid 4" and str(bids[-2]) == "bid 117" and str(bids[-1]) == "pass"
    assert g.view(s, None)["auction"]["high_bidder"] == "red"


def test_no_bid_means_no_sale() -> None:
    s = before("red bid 3")
    s = ok(s, "red", "pass")
    s = ok(s, "grey", "pass")
    assert s.round == 2 and s.players["grey"]["storage"]["hudson"] == 1


def test_second_pay_is_wrong_phase() -> None:
    s = before("blue pay 1 1 2 2")
    assert [str(a) for a in g.legal(s, "blue")][:3] == ["pay 2 2 2", "pay 1 1 2 2",
                                                       "pay 1 1 1 1 2"]
    s = ok(s, "blue", "pay 1 1 1 1 2")
    assert key_of(s, "blue", "pay 2") == "wrong_phase"
    assert [str(a) for a in g.legal(s, "blue")] == ["sell 0", "sell 1"]


def test_payments() -> None:
    assert auction.auto_payment([2, 2, 2], 3) == (2, 2)
    assert auction.auto_payment([1, 2, 2], 3) == (1, 2)
    assert auction.auto_payment([1, 1, 1, 2], 4) == (1, 1, 2)
    assert (2, 2) in auction.payments([1, 2, 2], 3) and (1, 2) in auction.payments([1, 2, 2], 3)
    assert (1, 2, 2) not in auction.payments([1, 2, 2], 3)


def test_forfeit_checks_and_restart() -> None:
    s = before("* forfeit grey 1 2")
    assert key_of(s, CHANCE, "forfeit red 1 2") == "forfeit.seat"
    assert key_of(s, CHANCE, "forfeit grey 1") == "forfeit.count"
    assert key_of(s, CHANCE, "forfeit grey 2 2") == "forfeit.not_held"
    drawn = g.chance(s, random.Random(3))
    assert isinstance(drawn, g.Forfeit) and len(drawn.values) == 2
    after = ok(s, CHANCE, "forfeit grey 1 1")
    assert after.auction["participants"] == ["red", "grey"] and after.auction["high_bid"] == 0
    assert after.licence_discard == {"1": 2, "2": 0}


def test_sell_and_overfill() -> None:
    s = before("blue sell 1")
    after = ok(s, "blue", "sell 0")
    assert after.players["blue"]["money"] == 12500
    assert after.players["red"]["storage"]["hudson"] == 2
    assert after.players["red"]["money"] == 2000
    assert after.players["blue"]["storage"]["hudson"] == 1 and after.round == 3


# --- end of round and end of game ----------------------------------------------------------------

def test_end_of_round_rotates_and_discards() -> None:
    s = before("* prices 3b 2r 2b")
    assert s.round == 2 and s.order == ["grey", "blue", "red"]
    assert all(p["card"] is None for p in s.players.values())
    assert sorted(s.beige_discard) == ["b1", "b15", "b9"] and s.red_discard == ["r5"]


def test_result_before_the_end_is_none() -> None:
    assert g.result(before("red bid 3")) is None


# --- views and JSON ------------------------------------------------------------------------------

VIEW_KEYS = {"game", "round", "phase", "decision", "pending", "subject", "finished", "scores",
             "winners", "seats", "start_player", "order", "options", "prices", "black_loco",
             "supply", "display", "decks", "players", "spaces", "turn", "auction", "you",
             "result"}


def test_view_keys_and_secrets() -> None:
    s = before("red drive C1 C2 C3")
    spectator, red = g.view(s, None), g.view(s, "red")
    assert set(spectator) == VIEW_KEYS and set(red) == VIEW_KEYS
    assert spectator["you"] is None and red["you"] == {"seat": "red", "licences": [1, 2, 2]}
    assert red["turn"] == {"seat": "red", "mp_left": 12, "price_used": False, "oil_used": False}
    text = json.dumps(spectator)
    assert '"licences"' not in text
    assert all(sp["value"] is None for sp in spectator["spaces"].values())
    assert set(spectator["players"]["red"]) == {"money", "loco", "truck", "derricks_in_hand",
                                               "licence_cards", "card", "storage", "peeked"}
    unlimited = edit(s, lambda d: d.update(options={"unlimited_chips": True}))
    assert g.view(unlimited, None)["supply"] is None


def test_json_round_trip_and_schema() -> None:
    s = before("blue pay 1 1 2 2")
    data = json.loads(json.dumps(g.to_json(s)))
    assert g.to_json(g.from_json(data)) == g.to_json(s) and data["schema"] == 1
    with pytest.raises(ValueError):
        g.from_json({**data, "schema": 99})


def test_json_with_sorted_keys_gives_the_same_game() -> None:
    s = before("red produce C5=hudson:black D3=hudson")
    again = g.from_json(json.loads(json.dumps(g.to_json(s), sort_keys=True)))
    assert [str(a) for a in g.legal(again, "red")] == [str(a) for a in g.legal(s, "red")]
    assert json.dumps(g.view(again, "red")) == json.dumps(g.view(s, "red"))
    ok(again, "red", "produce C5=hudson:black D3=hudson")


def test_tile_spaces_are_in_board_order() -> None:
    assert TILE_SPACES[0] == "A4" and TILE_SPACES[-1] == "L18" and len(TILE_SPACES) == 36


def test_entry_printing() -> None:
    assert str(Entry("A4", None)) == "A4=drop" and str(Entry("A4", "jet", "grey")) == \
        "A4=jet:grey"


# --- messages and the CLI ------------------------------------------------------------------------

def test_every_rejection_key_has_an_english_message() -> None:
    catalogue = json.loads((ROOT / "data/i18n/en/giganten.json").read_text(encoding="utf-8"))
    source = "\n".join(p.read_text(encoding="utf-8")
                       for p in (ROOT / "rules/giganten").glob("*.py"))
    raised = set(re.findall(r'IllegalAction\("([a-z_]+\.[a-z_.]+)"', source))
    raised |= set(re.findall(r'SetupError\("([a-z_]+\.[a-z_.]+)"', source))
    assert raised and all(f"rules.giganten.{k}" in catalogue for k in raised)
    assert len(raised) >= 44
    call = r'(?:IllegalAction|SetupError)\("([a-z_]+\.[a-z_.]+)"((?:[^()]|\([^()]*\))*)\)'
    calls = re.findall(call, source)
    for key, args in calls:
        holes = set(re.findall(r"\{(\w+)\}", "".join(forms(catalogue[f"rules.giganten.{key}"]))))
        assert holes <= set(re.findall(r"(\w+)=", args)), key
    listed = set(re.findall(r"`([a-z]+\.[a-z_]+)`", SPEC.read_text(encoding="utf-8")))
    assert {k for k in listed if k.split(".")[0] in {
        "tiles", "reveal", "take", "licences", "drive", "peek", "loco", "price", "oil",
        "build", "produce", "bid", "pay", "sell", "forfeit", "game"}} <= raised


def test_the_spec_read_here_is_the_copy_kept_beside_the_tests() -> None:
    """``tests/specs/giganten.md`` is a copy, word for word, of the Giganten rules
    specification the engine was written from (``rules/giganten.md`` of the project's design
    notes, which live outside this repository). It is kept here so that every checkout checks
    the engine's rejection keys against the keys the specification names; when the
    specification changes, the copy is replaced by the new text."""
    text = SPEC.read_text(encoding="utf-8")
    assert SPEC.is_relative_to(ROOT / "tests")
    assert text.startswith("# Giganten: rules specification")
    assert "This file is the authority for the engine `rules/giganten`." in text
    assert len(set(re.findall(r"`([a-z]+\.[a-z_]+)`", text))) >= 44


@pytest.mark.parametrize(("seats", "level"), [(3, "greedy"), (4, "greedy"), (3, "random"),
                                              (4, "random")])
def test_cli_play_then_replay(seats: int, level: str, capsys: pytest.CaptureFixture[str],
                              tmp_path: Path) -> None:
    assert cli(["play", "giganten", "--seats", str(seats), "--seed", "7", "--ai", level]) == 0
    record = capsys.readouterr().out
    path = tmp_path / "game.txt"
    path.write_text(record, encoding="utf-8")
    assert cli(["replay", str(path), "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["finished"] and view["winners"] and view["black_loco"] == 21


def test_each_space_has_its_orthogonal_neighbours_in_board_order() -> None:
    labels = [f"{r}{c}" for r in board.ROWS for c in range(1, board.COLUMNS + 1)]
    for label in labels:
        row, col = board.ROWS.index(label[0]), board.column(label)
        expected = [f"{board.ROWS[r]}{c}" for r, c in ((row - 1, col), (row, col - 1),
                                                        (row, col + 1), (row + 1, col))
                    if 0 <= r < len(board.ROWS) and 1 <= c <= board.COLUMNS]
        assert list(board.neighbours(label)) == expected
        assert all(board.adjacent(n, label) for n in expected)
