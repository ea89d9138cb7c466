"""Unit tests for the Giants rules, one or a few per rule of giants.md."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from rules import giants as g
from rules.core import IllegalAction
from rules.giants import board
from rules.giants.carry import helpers, preference, prestige_of
from rules.giants.roundend import finish
from rules.record import Game, RecordError, parse_header, replay
from tests.helpers.words import forms

FIVE = "game giants purple blue green red yellow"
THREE = "game giants red blue green"
ROUND_OF_PASSES = ("red pass", "blue pass", "green pass") * 2


def play(*lines: str, header: str = THREE) -> Game:
    """Replay lines that must all be legal."""
    game, rejections = replay("\n".join([header, *lines]))
    assert not rejections, [str(r) for r in rejections]
    return game


def refused(state: g.State, actor: str, text: str) -> IllegalAction:
    before = g.to_json(state)
    with pytest.raises(IllegalAction) as info:
        g.apply(state, actor, g.parse(text))
    assert g.to_json(state) == before
    return info.value


def do(state: g.State, actor: str, *texts: str) -> g.State:
    for text in texts:
        state, _ = g.apply(state, actor, g.parse(text))
    return state


def transport_state(seats: int = 3, **options: Any) -> g.State:
    """Round 1, phase 4, first player pending, nothing on the board: tests add what they need."""
    s = g.new(list(g.COLOURS[:seats]), options)
    s.phase, s.current = "transport", s.seats[0]
    return s


def add_item(s: g.State, label: str, kind: str, size: int, at: str,
             marker: str | None = None, abandoned: bool = False) -> None:
    s.items[label] = {"kind": kind, "size": size, "at": at, "marker": marker,
                      "abandoned": abandoned, "mover": None}


def put(s: g.State, hex_: str, *figures: tuple[str, str], logs: int = 0) -> None:
    s.hexes[hex_] = {"figures": [list(f) for f in figures], "logs": logs}


# --- the board (spec 4.5) ----------------------------------------------------------------------

def test_board_labels_and_land() -> None:
    assert len(board.HEXES) == 104 == len(set(board.HEXES))
    for label, (col, row) in board.COORDS.items():
        assert board.label_of(col, row) == label
    assert board.label_of(12, 6) == "M7" and board.label_of(26, 0) == "AA1"
    for quarry in (board.MOAI_QUARRY, board.HEADDRESS_QUARRY):
        assert set(board.distances(quarry)) == set(board.HEXES)


def test_board_forest_and_specials() -> None:
    centre, *ring = board.FOREST
    assert tuple(ring) == board.NEIGHBOURS[centre]
    assert sum(board.FOREST_LOGS.values()) == 27
    assert all(len(board.NEIGHBOURS[h]) == 6 for h in board.FOREST)
    assert (board.MOAI_QUARRY, board.HEADDRESS_QUARRY, board.VILLAGE, board.HUT) == \
        ("M7", "D8", "B10", "A13")


def test_board_ahus_follow_the_formulas() -> None:
    dm, dh = board.distances("M7"), board.distances("D8")
    sea_cells = set()
    for ahu in board.AHUS:
        hexes = board.AHU_HEXES[ahu]
        assert all(board.KIND[h] == "plain" and len(board.NEIGHBOURS[h]) < 6 for h in hexes)
        if len(hexes) == 2:
            assert hexes[1] in board.NEIGHBOURS[hexes[0]]
        assert "M7" not in hexes
        assert board.BLACK[ahu] == min(7, math.ceil(min(dm[h] for h in hexes) / 2))
        assert board.RED[ahu] == min(5, 1 + min(dh[h] for h in hexes) // 3)
    data = board._BOARD["ahus"]
    for a in data:
        cell = tuple(a["sea"])
        assert cell not in board._AT and cell not in sea_cells
        sea_cells.add(cell)
        col, row = cell
        around = {board._AT.get((col + dc, row + dr)) for dc, dr in board._offsets(row)}
        assert set(a["hexes"]) <= around
    assert len(board.AHUS) == 29


# --- setup and options (spec 3, 8) ---------------------------------------------------------------

@pytest.mark.parametrize(("n", "bases"), [(3, 7), (4, 6), (5, 5)])
def test_setup_by_player_count(n: int, bases: int) -> None:
    s = g.new(list(g.COLOURS[:n]))
    v = g.view(s, "red")
    assert v["screen"] == {"workers": 1, "chief": True, "sorcerer": True, "markers": 2,
                           "logs": 0, "bases": bases}
    assert v["urn"] == {"workers": 5, "markers": 4}
    assert v["players"]["blue"]["bases"] == bases and v["players"]["blue"]["rongo"] == 0
    assert v["supply"] == {"moai": {"1": 17, "2": 12, "3": 6}, "headdresses": 14, "logs": 27,
                           "rongo": 30}
    assert v["phase"] == "draw" and v["pending"] == ["*"] and v["bids"] == {}
    quick = g.view(g.new(list(g.COLOURS[:n]), {"quick": True}), "red")
    assert quick["screen"]["workers"] == 2 and quick["urn"]["workers"] == 4


def test_seats_must_be_the_first_colours() -> None:
    with pytest.raises(ValueError):
        g.new(["red", "blue", "purple"])
    with pytest.raises(ValueError):
        g.new(["red", "blue"])
    assert g.new(["green", "red", "blue"]).seats == ["green", "red", "blue"]


def test_options_are_validated_and_printed_in_table_order() -> None:
    header = parse_header("game giants red blue green faces=0123 quick=yes round_limit=9 seed=3")
    assert header.line() == "game giants red blue green quick=yes round_limit=9 faces=0123 seed=3"
    for bad in ("round_limit=0", "round_limit=100", "faces=0124", "faces=", "quick=maybe",
                "faces=0000000000000", "color=red"):
        with pytest.raises(RecordError):
            parse_header(f"game giants red blue green {bad}")


# --- phase 1 (spec 5.1, 8) ---------------------------------------------------------------------

def test_round_one_converts_zero_and_three() -> None:
    v = g.view(play("* dice 0 3 3", header=THREE).state, None)
    assert v["offer"] == [1, 2, 2] and v["dice"] == [0, 3, 3] and v["phase"] == "bid"
    assert v["supply"]["moai"] == {"1": 16, "2": 10, "3": 6}


def test_later_rounds_break_zeros_and_empty_offer_skips_the_auction() -> None:
    s = play("* dice 0 0 0", "red bid 0m", "blue bid 0m", "green bid 0m", *ROUND_OF_PASSES).state
    assert s.round == 2 and s.phase == "draw" and s.supply["moai"]["1"] == 17
    s = do(s, "*", "dice 0 0 3")
    assert s.offer == [3]
    s = do(g.new(["red", "blue", "green"]), "*", "dice 1 1 1")
    s.round, s.phase, s.offer = 2, "draw", []
    s.supply["moai"]["3"] = 0
    s = do(s, "*", "dice 0 0 3")
    assert s.offer == [] and s.phase == "place" and g.view(s, None)["bids"] == {}


def test_dice_rejections() -> None:
    s = g.new(["red", "blue", "green"])
    assert refused(s, "*", "dice 1 2").key == "dice_count"
    assert refused(s, "*", "dice 1 2 2 1").params == {"need": 3}
    assert refused(s, "*", "dice 1 4 2").params == {"face": 4}
    s2 = g.new(["red", "blue", "green"], {"faces": "12"})
    assert refused(s2, "*", "dice 1 0 2").key == "bad_face"
    assert refused(s, "red", "dice 1 1 1").key == "not_pending"
    assert refused(s, "*", "pass").key == "wrong_phase"


def test_seeded_dice_follow_spec_10_6() -> None:
    assert g.roll(7, 1, 4, "011223") == [2, 0, 2, 2]
    assert g.roll(7, 2, 4, "011223") == [2, 1, 2, 0]
    s = g.new(["red", "blue", "green", "yellow"], seed=7)
    dice = g.chance(s, __import__("random").Random(0))
    assert str(dice) == "dice 2 0 2 2"
    s = do(s, "*", str(dice))
    assert s.offer == [1, 2, 2, 2]


# --- phase 2 (spec 5.2) ------------------------------------------------------------------------

def test_bids_are_sealed_until_the_last_one() -> None:
    s = play("* dice 1 2 2", "blue bid 1m sorcerer").state
    assert g.pending(s).seats == ("red", "green")
    pub, red, blue = g.view(s, None), g.view(s, "red"), g.view(s, "blue")
    assert pub["bids"] == {"red": "waiting", "blue": "submitted", "green": "waiting"}
    assert red["bids"] == pub["bids"] and red["my_bid"] is None
    assert blue["my_bid"] == {"markers": 1, "workers": 0, "chief": False, "sorcerer": True}
    assert pub["players"]["blue"]["committed"]["markers"] == 0
    assert "1m" not in str(pub) and "my_bid" not in pub
    assert refused(s, "blue", "bid 0m").key == "already_submitted"
    assert refused(s, "blue", "pass").key == "already_submitted"
    assert refused(s, "yellow", "bid 0m").key == "not_pending"
    assert refused(s, "red", "take 1").key == "wrong_phase"
    assert refused(s, "red", "bid 3m").params == {"piece": "markers", "have": 2}
    assert refused(s, "red", "bid 0m 2w").params == {"piece": "workers", "have": 1}
    s = do(s, "red", "bid 2m 1w chief")
    s = do(s, "green", "bid 0m")
    v = g.view(s, "green")
    assert v["bids"]["red"] == {"markers": 2, "workers": 1, "chief": True, "sorcerer": False}
    assert v["players"]["red"]["committed"] == {"workers": 1, "chief": True, "sorcerer": False,
                                                "markers": 2}
    assert g.view(s, "red")["screen"]["markers"] == 0 and v["my_bid"] is None
    assert v["choosing"]["order"] == ["red", "blue", "green"] and v["pending"] == ["red"]


def test_choosing_order_ties_break_on_rongo_then_turn_order() -> None:
    s = do(g.new(["red", "blue", "green"]), "*", "dice 1 1 1")
    s.players["green"]["rongo"] = 1
    s = do(s, "red", "bid 1m 1w")
    s = do(s, "blue", "bid 1m 1w")
    s = do(s, "green", "bid 1m 1w")
    assert s.choosing is not None and s.choosing["order"] == ["green", "red", "blue"]


def test_sculpting_strength_and_skipped_seats() -> None:
    s = play("* dice 1 2 3", "red bid 1m 1w", "blue bid 0m chief", "green bid 2m").state
    assert s.offer == [1, 2, 2] and s.choosing is not None
    assert s.choosing["order"] == ["green", "red", "blue"]
    assert g.pending(s).seats == ("red",)  # green bid no sculptor: skipped
    assert [str(a) for a in g.legal(s, "red")] == ["take 1", "done"]
    assert refused(s, "red", "take 2").params == {"size": 2}
    assert refused(s, "red", "take 3").key == "not_in_offer"
    assert refused(s, "blue", "take 1").key == "not_pending"
    s = do(s, "red", "take 1")
    s = do(s, "blue", "take 2")
    assert s.phase == "place" and s.offer == [] and s.supply["moai"]["2"] == 11
    assert [s.items[i]["size"] for i in ("moai1", "moai2")] == [1, 2]
    assert s.items["moai2"]["at"] == "front:blue"


def test_leftover_passes_and_done_is_final() -> None:
    s = play("* dice 1 1 2", "red bid 1m 1w sorcerer", "blue bid 0m chief",
             "green bid 0m").state
    s = do(s, "red", "take 1")
    s = do(s, "blue", "take 2")
    assert g.pending(s).seats == ("red",)  # second pass: red has 1 point left
    s = do(s, "red", "done")
    assert g.pending(s).seats == ("blue",)
    s = do(s, "blue", "take 1")
    assert s.phase == "place" and s.choosing is None


def test_chief_split_no_limits_the_chief_to_one_statue() -> None:
    header = THREE + " chief_split=no"
    s = play("* dice 1 1 2", "red bid 1m chief", "blue bid 0m", "green bid 0m",
             header=header).state
    s = do(s, "red", "take 2")
    assert s.phase == "place"  # the chief sculpted once; nobody else can choose
    assert s.supply["moai"] == {"1": 17, "2": 11, "3": 6}
    s = play("* dice 1 1 2", "red bid 1m 1w chief", "blue bid 0m", "green bid 0m",
             header=header).state
    s = do(s, "red", "take 2", "take 1")
    assert s.phase == "place"


# --- phase 3 (spec 5.3) ------------------------------------------------------------------------

def place_state(**options: Any) -> g.State:
    s = g.new(["red", "blue", "green"], options)
    s.phase, s.current = "place", "red"
    return s


def test_place_a_figure_with_logs() -> None:
    s = place_state()
    s.players["red"]["screen"]["logs"] = 3
    assert refused(s, "red", "place worker Z9").key == "unknown_hex"
    assert refused(s, "red", "place chief K8 1logs").key == "chief_no_logs"
    s2 = do(s, "red", "place worker K8 2logs")
    assert g.view(s2, None)["hexes"] == {"K8": {"figures": [{"colour": "red",
                                                             "type": "worker"}], "logs": 2}}
    assert g.pending(s2).seats == ("blue",)
    s2.current = "red"
    assert refused(s2, "red", "place worker K9").params == {"piece": "worker"}
    s2.players["red"]["screen"]["logs"] = 1
    assert refused(s2, "red", "place sorcerer K9 2logs").params == {"piece": "logs", "have": 1}


def test_recruit_marker_and_empty_urn() -> None:
    s = do(place_state(), "red", "sorcerer recruit 0logs")
    assert s.players["red"]["screen"]["workers"] == 2 and s.players["red"]["urn"]["workers"] == 4
    assert s.hexes["B10"]["figures"] == [["red", "sorcerer"]]
    s = place_state()
    s.players["red"]["urn"]["markers"] = 0
    s.players["red"]["rongo"] = 2
    s = do(s, "red", "chief marker")
    assert s.players["red"]["screen"]["markers"] == 2 and s.players["red"]["rongo"] == 0
    assert s.supply["rongo"] == 32 and s.hexes["A13"]["figures"] == [["red", "chief"]]


def test_headdress_ids_and_empty_supply() -> None:
    s = do(place_state(), "red", "sorcerer headdress")
    assert s.items["hat1"]["at"] == "front:red" and s.supply["headdresses"] == 13
    s.current = "blue"
    s.supply["headdresses"] = 0
    s = do(s, "blue", "sorcerer headdress")
    assert "hat2" not in s.items and s.next_hat == 2


def test_forest_logs_are_taken_before_the_action_and_once() -> None:
    s = place_state()
    s.players["red"]["screen"]["logs"] = 1
    s = do(s, "red", "sorcerer logs H5 1logs")
    assert s.players["red"]["screen"]["logs"] == 6 and s.hexes["H5"]["logs"] == 1
    assert s.supply["logs"] == 21 and g.view(s, None)["forest"]["H5"]["harvested"]
    assert refused(s, "blue", "sorcerer logs H5").key == "forest_harvested"
    assert refused(s, "blue", "sorcerer logs K8").params == {"hex": "K8", "action": "logs"}
    s.supply["logs"] = 2
    s = do(s, "blue", "sorcerer logs G6")
    assert s.players["blue"]["screen"]["logs"] == 2 and s.supply["logs"] == 0


def test_reserve_an_ahu() -> None:
    s = place_state()
    assert refused(s, "red", "sorcerer reserve nowhere D7").key == "unknown_ahu"
    assert refused(s, "red", "sorcerer reserve tahai K8").params == {"ahu": "tahai", "hex": "K8"}
    assert refused(s, "red", "chief reserve tahai D7").params == {"need": 2}
    s = do(s, "red", "sorcerer reserve tahai D7")
    assert s.ahus["tahai"]["reserved"] == "red" and s.players["red"]["screen"]["bases"] == 6
    assert g.view(s, None)["players"]["red"]["reserved"] == ["tahai"]
    assert refused(s, "blue", "sorcerer reserve tahai C8").key == "ahu_taken"
    s.players["blue"]["screen"]["bases"] = 0
    assert refused(s, "blue", "sorcerer reserve vinapu C13").key == "no_base"


def test_rongo_and_pass() -> None:
    s = do(place_state(), "red", "rongo")
    assert s.players["red"]["rongo"] == 1 and s.players["red"]["committed"]["markers"] == 1
    s = do(s, "blue", "pass")
    s = do(s, "green", "pass")
    assert g.pending(s).seats == ("red",)
    s = do(s, "red", "rongo")
    assert refused(s, "red", "rongo").key == "no_marker"
    s.players["red"]["screen"]["markers"] = 1
    s.supply["rongo"] = 0
    assert refused(s, "red", "rongo").key == "rongo_supply_empty"
    s = do(s, "red", "pass")
    assert s.phase == "transport" and g.pending(s).seats == ("red",)


def test_legal_placements_are_listed_in_spec_order() -> None:
    s = place_state()
    actions = [str(a) for a in g.legal(s, "red")]
    assert actions[0] == "place worker G1" and actions[-2:] == ["rongo", "pass"]
    assert "place chief K8" in actions and "sorcerer logs H5" in actions
    assert "chief recruit" not in actions  # no rongo halves
    assert len(actions) == len(set(actions))
    assert g.legal(s, "blue") == []


# --- phase 4 (spec 5.4) ------------------------------------------------------------------------

SEATS5 = ["purple", "blue", "green", "red", "yellow"]


@pytest.mark.parametrize(("q", "figures", "logs", "favour", "expected"), [
    (3, [("red", "worker")], 2, None, {}),
    (2, [("red", "chief"), ("blue", "worker")], 0, None, {}),
    (2, [("blue", "worker")], 1, None, {"blue": 1}),
    (2, [("red", "worker"), ("yellow", "chief")], 0, None, {"yellow": 2}),
    (2, [("blue", "worker"), ("green", "worker"), ("purple", "chief")], 0, None, {"purple": 2}),
    (3, [("blue", "worker"), ("green", "worker"), ("yellow", "chief")], 0, None, {"yellow": 3}),
    (3, [("red", "sorcerer"), ("purple", "worker"), ("blue", "worker"), ("green", "worker")], 0,
     None, {"purple": 1, "blue": 1}),
    (3, [("red", "sorcerer"), ("purple", "worker"), ("blue", "worker"), ("green", "worker")], 0,
     "green", {"green": 1, "purple": 1}),
    (1, [("green", "worker"), ("yellow", "chief")], 0, None, {"yellow": 1}),
    (1, [("green", "worker"), ("yellow", "chief")], 0, "green", {"green": 1}),
    (1, [("blue", "worker"), ("blue", "sorcerer")], 2, None, {"blue": 1}),
])
def test_helper_choice_of_spec_10_4(q: int, figures: list[tuple[str, str]], logs: int,
                                    favour: str | None, expected: dict[str, int]) -> None:
    assert preference(SEATS5, "red", None) == ["yellow", "purple", "blue", "green"]
    spot = {"figures": [list(f) for f in figures], "logs": logs}
    used = helpers(spot, "red", q, preference(SEATS5, "red", favour))
    assert prestige_of(used, q) == expected


def test_a_hex_with_logs_but_no_figure_cannot_carry() -> None:
    s = transport_state()
    add_item(s, "moai1", "moai", 2, "front:red")
    put(s, "L7", logs=2)
    e = refused(s, "red", "move moai1 L7")
    assert e.key == "cannot_carry" and e.params == {"hex": "L7", "need": 2, "have": 0}
    assert refused(s, "red", "move moai1 K8").params == {"from": "M7", "to": "K8"}
    assert refused(s, "red", "move moai9 L7").key == "unknown_item"
    assert refused(s, "red", "move moai1 Q1").key == "unknown_hex"


def test_a_move_scores_helpers_and_ends_the_turn() -> None:
    s = transport_state()
    add_item(s, "moai1", "moai", 2, "front:red")
    put(s, "L7", ("blue", "worker"), ("green", "worker"))
    put(s, "L8", ("green", "chief"))
    s, events = g.apply(s, "red", g.parse("move moai1 L7 L8 favour=green"))
    assert s.players["green"]["prestige"] == 1 + 2 and s.players["blue"]["prestige"] == 1
    assert s.items["moai1"]["at"] == "L8" and g.pending(s).seats == ("blue",)
    assert any(e["kind"] == "moved" for e in events)
    assert refused(transport_state(), "red", "move moai1 L7 favour=red").key == "unknown_item"


def test_bad_favour() -> None:
    s = transport_state()
    add_item(s, "moai1", "moai", 1, "front:red")
    put(s, "L7", ("blue", "worker"))
    assert refused(s, "red", "move moai1 L7 favour=red").params == {"colour": "red"}
    assert refused(s, "red", "move moai1 L7 favour=purple").key == "bad_favour"


def test_erect_rules() -> None:
    s = transport_state()
    add_item(s, "moai1", "moai", 1, "front:red")
    add_item(s, "hat1", "headdress", 1, "front:red")
    put(s, "L8", ("blue", "worker"))
    assert refused(s, "red", "move moai1 L8 erect runga-vae").params == {"ahu": "runga-vae"}
    assert refused(s, "red", "move moai1 L8 erect oroi").params == {"ahu": "oroi", "hex": "L8"}
    assert refused(s, "red", "move moai1 L8 erect runga-vae mark").key == "mark_after_delivery"
    put(s, "L8", ("blue", "worker"), ("red", "worker"))
    s.ahus["runga-vae"]["reserved"] = "blue"
    assert refused(s, "red", "move moai1 L8 erect runga-vae").key == "reserved_by_other"
    s.ahus["runga-vae"]["reserved"] = None
    s.players["red"]["screen"]["bases"] = 0
    assert refused(s, "red", "move moai1 L8 erect runga-vae").key == "no_base"
    s.players["red"]["screen"]["bases"] = 7
    s2 = do(s, "red", "move moai1 L8 erect runga-vae")
    assert s2.ahus["runga-vae"] == {"reserved": None, "moai": "moai1", "headdress": None,
                                    "owner": "red"}
    assert s2.players["red"]["screen"]["bases"] == 6 and s2.players["blue"]["prestige"] == 0
    assert g.view(s2, None)["ahus"]["runga-vae"]["owner"] is None
    assert g.view(s2, "red")["ahus"]["runga-vae"]["owner"] == "red"
    assert refused(s2, "blue", "move moai1 L7").key == "item_delivered"


def test_erect_on_own_reservation_uses_the_reserved_base() -> None:
    s = transport_state()
    add_item(s, "moai1", "moai", 1, "L8", marker="red")
    s.players["red"]["screen"]["markers"] = 1
    s.ahus["runga-vae"]["reserved"] = "red"
    s.players["red"]["screen"]["bases"] = 0
    assert refused(s, "red", "move moai1 erect runga-vae").key == "no_own_figure"
    put(s, "L8", ("red", "sorcerer"))
    s = do(s, "red", "move moai1 erect runga-vae")
    assert s.ahus["runga-vae"]["reserved"] is None and s.ahus["runga-vae"]["owner"] == "red"
    assert s.players["red"]["screen"]["markers"] == 2 and s.items["moai1"]["marker"] is None


def test_crown_rules_and_running_score() -> None:
    s = transport_state(running_score=True)
    add_item(s, "moai1", "moai", 2, "front:blue")
    add_item(s, "hat1", "headdress", 1, "D8", marker="red")  # sculpted in an earlier round
    add_item(s, "moai2", "moai", 1, "ahu:tahai")
    s.ahus["tahai"].update(moai="moai2", owner="blue")
    put(s, "D7", ("red", "worker"))
    assert refused(s, "red", "move hat1 D7 erect tahai").params == {"item": "hat1"}
    assert refused(s, "red", "move hat1 D7 crown ko-te-riku").params == {"ahu": "ko-te-riku"}
    s2 = do(s, "red", "move hat1 D7 crown tahai")
    assert s2.ahus["tahai"]["headdress"] == "hat1" and s2.players["blue"]["prestige"] == 1
    assert s2.players["red"]["prestige"] == 0
    assert g.view(s2, None)["ahus"]["tahai"]["owner"] == "blue"
    s2.current = "red"
    add_item(s2, "hat2", "headdress", 1, "D8", marker="red")
    assert refused(s2, "red", "move hat2 D7 crown tahai").key == "already_crowned"
    s3 = transport_state()
    add_item(s3, "moai1", "moai", 1, "front:red")
    assert refused(s3, "red", "move moai1 L8 crown runga-vae").key == "cannot_carry"
    put(s3, "L8", ("red", "worker"))
    assert refused(s3, "red", "move moai1 L8 crown runga-vae").key == "not_a_headdress"
    add_item(s3, "hat1", "headdress", 1, "D7")
    s3.items["hat1"]["marker"] = "red"
    put(s3, "D6", ("red", "worker"))
    assert refused(s3, "red", "move hat1 D6 crown ko-te-riku").key == "no_moai_to_crown"


def test_running_score_erect_points() -> None:
    s = transport_state(running_score=True)
    add_item(s, "moai1", "moai", 2, "front:red")
    put(s, "L8", ("red", "chief"))
    s = do(s, "red", "move moai1 L8 erect runga-vae")
    assert s.players["red"]["prestige"] == 2 and g.view(s, None)["scores"]["red"] == 2
    s.current = "blue"
    s.players["blue"]["rongo"] = 1
    assert refused(s, "blue", "peek runga-vae").key == "peek_disabled"


def test_who_may_act_and_claims() -> None:
    s = transport_state()
    add_item(s, "moai1", "moai", 1, "front:blue")
    add_item(s, "moai2", "moai", 1, "M7", abandoned=True)
    add_item(s, "moai3", "moai", 1, "L7", marker="green")
    put(s, "L8", ("red", "worker"))
    assert refused(s, "red", "move moai1 L8").key == "not_your_item"
    assert refused(s, "red", "move moai3 L8").key == "not_your_item"
    assert refused(s, "red", "mark moai1").key == "not_your_item"
    assert refused(s, "red", "move moai2 L8").key == "claim_unfinished"
    s.players["red"]["screen"]["markers"] = 0
    assert refused(s, "red", "move moai2 L8 mark").key == "no_marker"
    assert refused(s, "red", "mark moai2").key == "no_marker"
    s.players["red"]["screen"]["markers"] = 2
    s2 = do(s, "red", "mark moai2")
    assert s2.items["moai2"]["marker"] == "red" and not g.view(s2, None)["items"]["moai2"][
        "abandoned"]
    s3 = do(s, "red", "move moai2 L8 erect runga-vae")
    assert s3.ahus["runga-vae"]["owner"] == "red"


def test_an_item_moved_unmarked_stays_with_its_mover_for_the_phase() -> None:
    s = transport_state()
    add_item(s, "moai1", "moai", 1, "front:red")
    put(s, "L8", ("red", "worker"))
    put(s, "K8", ("blue", "worker"))
    s = do(s, "red", "move moai1 L8")
    assert refused(s, "blue", "move moai1 K8").key == "not_your_item"
    s = do(s, "blue", "pass")
    s = do(s, "green", "pass")
    s = do(s, "red", "move moai1 K8")
    assert s.items["moai1"]["at"] == "K8" and s.players["blue"]["prestige"] == 1


def test_mark_rules() -> None:
    s = transport_state()
    add_item(s, "moai1", "moai", 1, "front:red")
    add_item(s, "moai2", "moai", 1, "L7", marker="red")
    assert refused(s, "red", "mark moai1").key == "item_in_front"
    assert refused(s, "red", "mark moai2").key == "already_marked"


# --- a headdress sculpted this round (spec 5.4, decision 30) ------------------------------------

FRESH_HEADDRESS = Path(__file__).parent / "records" / "giants" / "fresh_headdress.txt"


def test_a_fresh_headdress_is_refused_before_its_path_is_looked_at() -> None:
    s = transport_state()
    add_item(s, "hat1", "headdress", 1, "front:red")
    add_item(s, "moai1", "moai", 1, "front:red")
    put(s, "D7", ("red", "worker"))
    e = refused(s, "red", "move hat1 D7")
    assert e.key == "headdress_fresh" and e.params == {"item": "hat1"}
    assert refused(s, "red", "move hat1 K8 K9").key == "headdress_fresh"  # not adjacent
    assert refused(s, "red", "move hat1").key == "headdress_fresh"  # empty
    assert refused(s, "red", "move hat1 D7 crown tahai").key == "headdress_fresh"
    assert refused(s, "red", "mark hat1").key == "item_in_front"
    s.current = "blue"
    assert refused(s, "blue", "move hat1 D7").key == "not_your_item"  # checked first
    s.current = "red"
    add_item(s, "moai2", "moai", 1, "ahu:tahai")
    s.ahus["tahai"].update(moai="moai2", owner="red")  # a moai to crown beside D7
    put(s, "L7", ("red", "worker"))
    listed = [str(a) for a in g.legal(s, "red")]
    assert not [a for a in listed if "hat1" in a]
    assert "move moai1 L7" in listed  # a moai taken this round moves from the front as usual


def test_a_fresh_headdress_goes_to_its_quarry_and_may_be_marked() -> None:
    s = transport_state()
    add_item(s, "hat1", "headdress", 1, "front:red")
    s = do(s, "red", "pass")
    s = do(s, "blue", "pass")
    s = do(s, "green", "pass")
    assert s.phase == "endround" and g.pending(s).seats == ("red",)
    assert s.items["hat1"]["at"] == "D8" and s.items["hat1"]["marker"] is None
    assert "endround mark=hat1" in [str(a) for a in g.legal(s, "red")]


def test_fresh_headdress_record() -> None:
    """Sculpted in round 1, refused in that phase 4, marked at the end of the round, moved in
    round 2."""
    body = FRESH_HEADDRESS.read_text(encoding="utf-8")
    lines = body.splitlines()
    cut = next(i for i, line in enumerate(lines) if line.startswith("red endround"))
    game, rejections = replay("\n".join(lines[:cut]), keep_going=True)
    assert [r.error.key for r in rejections] == [
        "headdress_fresh", "headdress_fresh", "item_in_front", "not_your_item"]
    v = g.view(game.state, None)
    assert v["phase"] == "endround" and v["pending"] == ["red"]
    assert v["items"]["hat1"] == {"kind": "headdress", "size": 1, "at": "D8", "marker": None,
                                  "abandoned": False}
    game, rejections = replay(body, keep_going=True)
    assert [r.error.key for r in rejections][-1] == "not_your_item"
    v = g.view(game.state, None)
    assert v["round"] == 2 and v["phase"] == "transport"
    assert v["items"]["hat1"] == {"kind": "headdress", "size": 1, "at": "D7", "marker": "red",
                                  "abandoned": False}


def test_an_unmarked_fresh_headdress_is_abandoned_next_round() -> None:
    s = transport_state()
    add_item(s, "hat1", "headdress", 1, "front:red")
    s.players["red"]["screen"]["markers"] = 0
    s = do(s, "red", "pass")
    s = do(s, "blue", "pass")
    s = do(s, "green", "pass")
    assert s.phase == "draw" and s.items["hat1"]["at"] == "D8"  # no choice: step skipped
    s = do(s, "*", "dice 0 0 0")
    for seat in ("blue", "green", "red"):
        s = do(s, seat, "pass")
    assert s.phase == "transport" and s.items["hat1"]["abandoned"]
    assert "mark hat1" in [str(a) for a in g.legal(s, "blue")]


def test_peek() -> None:
    s = transport_state()
    add_item(s, "moai1", "moai", 1, "ahu:oroi")
    s.ahus["oroi"].update(moai="moai1", owner="blue")
    assert refused(s, "red", "peek oroi").params == {"need": 1}
    assert refused(s, "red", "peek tahai").key == "peek_no_moai"
    assert refused(s, "red", "peek nowhere").key == "unknown_ahu"
    s.players["red"]["rongo"] = 1
    s.players["blue"]["rongo"] = 1
    s2, events = g.apply(s, "red", g.parse("peek oroi"))
    assert g.pending(s2).seats == ("red",) and s2.players["red"]["rongo"] == 0
    assert g.view(s2, "red")["ahus"]["oroi"]["owner"] == "blue"
    assert g.view(s2, "green")["ahus"]["oroi"]["owner"] is None
    assert g.view(s2, None)["ahus"]["oroi"]["owner"] is None
    assert [e.get("private") for e in events] == [None, "red"]
    s2 = do(s2, "red", "pass")
    assert refused(s2, "blue", "peek oroi").key == "peek_own"


def test_zero_step_and_empty_moves() -> None:
    s = transport_state()
    add_item(s, "moai1", "moai", 1, "N7", marker="red")
    assert refused(s, "red", "move moai1").key == "empty_move"
    assert refused(s, "red", "move moai1 erect tongariki").key == "no_own_figure"
    put(s, "M8", ("red", "worker"))
    assert "move moai1 erect tongariki" in [str(a) for a in g.legal(s, "red")]
    s = do(s, "red", "move moai1 erect tongariki")
    assert s.ahus["tongariki"]["moai"] == "moai1"


def test_legal_transport_moves_are_shortest_paths_with_endings() -> None:
    s = transport_state()
    add_item(s, "moai1", "moai", 1, "front:red")
    put(s, "L8", ("red", "worker"))
    put(s, "K8", ("blue", "worker"))
    put(s, "K9", ("blue", "worker"))
    actions = [str(a) for a in g.legal(s, "red")]
    assert actions == [
        "move moai1 L8 K8", "move moai1 L8 K8 mark",
        "move moai1 L8", "move moai1 L8 mark", "move moai1 L8 erect runga-vae",
        "move moai1 L8 K8 K9", "move moai1 L8 K8 K9 mark", "pass"]
    for text in actions:
        g.apply(s, "red", g.parse(text))


# --- end of phase 4, end-of-round step, phase 5 (spec 5.4-5.6) ----------------------------------

def end_of_round_state() -> g.State:
    """Red had moai1 in front and marks moai2 on L7; blue had moai3 in front, no markers."""
    s = transport_state()
    add_item(s, "moai1", "moai", 1, "front:red")
    add_item(s, "moai2", "moai", 2, "L7", marker="red")
    add_item(s, "moai3", "moai", 3, "front:blue")
    s.players["red"]["screen"]["markers"] = 1
    s.players["blue"]["screen"]["markers"] = 0
    put(s, "K8", ("red", "worker"), logs=2)
    s.players["red"]["screen"]["workers"] = 0
    s = do(s, "red", "pass")
    s = do(s, "blue", "pass")
    return do(s, "green", "pass")


def test_unmoved_items_go_to_their_quarries_and_the_step_asks_only_real_choices() -> None:
    s = end_of_round_state()
    assert s.phase == "endround" and g.pending(s).seats == ("red",)
    v = g.view(s, None)
    assert v["items"]["moai1"]["at"] == "M7" and v["items"]["moai3"]["at"] == "M7"
    assert v["endround"] == {"red": "waiting"}
    assert [str(a) for a in g.legal(s, "red")] == [
        "endround", "endround recall=moai2", "endround mark=moai1",
        "endround mark=moai1 recall=moai2"]
    assert refused(s, "red", "endround mark=moai3").key == "bad_mark_item"
    assert refused(s, "red", "endround mark=moai1,moai1").key == "bad_mark_item"
    assert refused(s, "red", "endround recall=moai1").key == "bad_recall_item"
    assert refused(s, "red", "endround recall=moai7").key == "unknown_item"
    s.players["red"]["screen"]["markers"] = 0
    assert refused(s, "red", "endround mark=moai1").params == {"have": 0}


def test_end_of_round_marks_before_recalls_then_clean_up() -> None:
    s = do(end_of_round_state(), "red", "endround mark=moai1 recall=moai2")
    assert s.items["moai1"]["marker"] == "red" and s.items["moai2"]["marker"] is None
    assert s.round == 2 and s.phase == "draw" and g.view(s, None)["order"][0] == "blue"
    assert s.hexes == {} and s.players["red"]["screen"]["workers"] == 1
    assert s.players["red"]["screen"]["markers"] == 1
    assert s.players["red"]["screen"]["logs"] == 0 and s.supply["logs"] == 27


def test_end_of_round_answers_are_sealed() -> None:
    s = end_of_round_state()
    s.endround["blue"] = None
    s = do(s, "red", "endround mark=moai1")
    assert g.view(s, None)["endround"] == {"red": "submitted", "blue": "waiting"}
    assert g.view(s, "red")["my_endround"] == {"mark": ["moai1"], "recall": []}
    assert g.view(s, "blue")["my_endround"] is None
    assert "moai1" not in str(g.view(s, "blue")["endround"])
    assert refused(s, "red", "endround").key == "already_submitted"
    s = do(s, "blue", "endround")
    assert s.phase == "draw" and s.items["moai1"]["marker"] == "red"


def test_abandoned_items_are_fixed_when_phase_4_begins() -> None:
    s = place_state()
    add_item(s, "moai1", "moai", 1, "M7")
    add_item(s, "moai2", "moai", 1, "L7", marker="blue")
    s = do(s, "red", "pass")
    s = do(s, "blue", "pass")
    s = do(s, "green", "pass")
    v = g.view(s, None)
    assert v["items"]["moai1"]["abandoned"] and not v["items"]["moai2"]["abandoned"]


# --- end of game and scoring (spec 6) -----------------------------------------------------------

def test_scoring_example_of_spec_6_3() -> None:
    s = g.new(["red", "blue", "green", "yellow"])
    yellow = s.players["yellow"]
    yellow["prestige"], yellow["rongo"] = 9, 5
    for n, (ahu, size, hat) in enumerate([("tautira", 3, True), ("akahanga", 2, False),
                                          ("raai", 1, True), ("oroi", 1, False),
                                          ("tahai", 2, False), ("vinapu", 1, False)], 1):
        add_item(s, f"moai{n}", "moai", size, f"ahu:{ahu}")
        s.ahus[ahu].update(moai=f"moai{n}", owner="yellow")
        if hat:
            add_item(s, f"hat{n}", "headdress", 1, f"ahu:{ahu}")
            s.ahus[ahu]["headdress"] = f"hat{n}"
    s.players["blue"]["prestige"], s.players["blue"]["rongo"] = 63, 4
    finish(s, "complete", [])
    result = g.result(s)
    assert result is not None and result.scores["yellow"] == 69 == result.scores["blue"]
    assert result.winners == ["yellow"]
    v = g.view(s, None)
    assert v["result"]["yellow"] == {"prestige": 9, "moai": 47, "headdresses": 7, "rongo": 6,
                                     "total": 69}
    assert v["ahus"]["oroi"]["owner"] == "yellow" and v["screens"]["red"]["bases"] == 6
    s.players["yellow"]["rongo"] = 4
    finish(s, "complete", [])
    assert s.winners == ["blue", "yellow"]


def test_the_game_ends_when_a_player_fills_every_base() -> None:
    s = transport_state()
    for n, ahu in enumerate(board.AHUS[:6], 1):
        add_item(s, f"moai{n}", "moai", 1, f"ahu:{ahu}")
        s.ahus[ahu].update(moai=f"moai{n}", owner="green")
    add_item(s, "moai7", "moai", 1, "front:green")
    put(s, "L8", ("green", "worker"))
    s.players["green"]["screen"]["bases"] = 1
    s = do(s, "red", "pass")
    s = do(s, "blue", "pass")
    s = do(s, "green", "move moai7 L8 erect runga-vae", "pass")
    assert s.phase == "over" and s.end == "complete" and s.round == 1
    v = g.view(s, None)
    assert v["pending"] == [] and v["finished"] and v["winners"] == ["green"]
    assert v["scores"]["green"] == sum(board.BLACK[a] for a in board.AHUS[:6]) + 1
    assert refused(s, "red", "pass").key == "game_over"
    assert g.legal(s, "red") == []


def test_round_limit_ends_the_game() -> None:
    s = play("* dice 0 0 0", "red bid 0m", "blue bid 0m", "green bid 0m", *ROUND_OF_PASSES,
             header=THREE + " round_limit=1").state
    assert s.phase == "over" and s.end == "round_limit" and g.view(s, None)["round"] == 1
    assert s.winners == ["red", "blue", "green"]


# --- notation (spec 9) -------------------------------------------------------------------------

EXAMPLES = """dice 0 1 2 3 3
bid 2m 1w chief
bid 0m
bid 1m sorcerer
take 2
done
place worker K8 2logs
place chief L7
sorcerer recruit 1logs
sorcerer logs H5
sorcerer reserve tahai D7
chief reserve vinapu C13
rongo
pass
move moai4 L7 K8 erect oroi favour=blue
move moai3 L7 mark
move hat1 D7 crown ko-te-riku
move moai2 erect tongariki
mark moai5
peek oroi
endround mark=moai6 recall=moai2,hat3
endround""".splitlines()


@pytest.mark.parametrize("text", EXAMPLES)
def test_notation_round_trips(text: str) -> None:
    assert str(g.parse(text)) == text
    assert str(g.parse(text.upper())) == text


@pytest.mark.parametrize(("given", "canonical"), [
    ("bid sorcerer 1m", "bid 1m sorcerer"),
    ("bid 0w chief 2M", "bid 2m chief"),
    ("place worker k8 0logs", "place worker K8"),
    ("move MOAI4 l7 favor=blue mark", "move moai4 L7 mark favour=blue"),
    ("move pukao2 D7 crown tahai", "move hat2 D7 crown tahai"),
    ("endround recall=hat3,moai2 mark=moai06", "endround mark=moai6 recall=moai2,hat3"),
    ("dice 0 1   2", "dice 0 1 2"),
])
def test_notation_aliases(given: str, canonical: str) -> None:
    assert str(g.parse(given)) == canonical


@pytest.mark.parametrize("text", [
    "", "bid", "bid 1w", "bid 1m 1m", "bid 7m", "take 4", "take", "place K8", "place worker",
    "place worker K8 3logs", "sorcerer", "sorcerer reserve tahai", "sorcerer fly", "move",
    "move K8", "move moai1 erect", "move moai1 mark mark", "move moai1 favour=pink",
    "mark K8", "peek", "peek 12", "endround mark=", "endround foo=moai1", "dice", "dice a",
    "hello", "pass now", "endround mark=moai1 mark=moai2",
])
def test_notation_syntax_errors(text: str) -> None:
    with pytest.raises(IllegalAction) as info:
        g.parse(text)
    assert info.value.key == "syntax"


def test_json_round_trip_and_schema() -> None:
    s = play("* dice 1 2 3", "red bid 1m 1w sorcerer").state
    data = g.to_json(s)
    assert data["schema"] == 1 and g.from_json(data) == s
    with pytest.raises(ValueError):
        g.from_json({**data, "schema": 99})


def test_module_metadata() -> None:
    assert g.NAME == "giants" and g.COLOURS == ("red", "blue", "green", "yellow", "purple")
    assert (g.MIN_SEATS, g.MAX_SEATS) == (3, 5)
    assert [o.name for o in g.OPTIONS] == ["quick", "running_score", "chief_split",
                                          "round_limit", "faces"]
    s = g.new(["red", "blue", "green"], {"quick": True})
    assert g.options_of(s).non_default() == ["quick=yes"] and g.seats_of(s) == (
        "red", "blue", "green")


# --- messages and the command line ---------------------------------------------------------------

PARAMS = {
    "syntax": {"text"}, "game_over": set(), "not_pending": {"actor", "pending"},
    "wrong_phase": {"verb", "phase"}, "already_submitted": set(), "unknown_hex": {"hex"},
    "unknown_ahu": {"ahu"}, "unknown_item": {"item"}, "not_behind_screen": {"piece"},
    "too_many": {"piece", "have"}, "chief_no_logs": set(), "not_in_offer": {"size"},
    "cannot_sculpt": {"size"}, "wrong_hex_for_action": {"hex", "action"},
    "forest_harvested": {"hex"}, "ahu_taken": {"ahu"}, "not_ahu_hex": {"ahu", "hex"},
    "no_base": set(), "no_rongo": {"need"}, "rongo_supply_empty": set(),
    "not_your_item": {"item"}, "item_delivered": {"item"}, "item_in_front": {"item"},
    "headdress_fresh": {"item"}, "not_adjacent": {"from", "to"}, "hex_repeated": {"hex"},
    "cannot_carry": {"hex", "need", "have"}, "empty_move": set(), "not_a_moai": {"item"},
    "not_a_headdress": {"item"}, "ahu_not_free": {"ahu"}, "reserved_by_other": {"ahu"},
    "no_moai_to_crown": {"ahu"}, "already_crowned": {"ahu"}, "no_own_figure": {"ahu"},
    "already_marked": {"item"}, "no_marker": set(), "claim_unfinished": {"item"},
    "mark_after_delivery": set(), "bad_favour": {"colour"}, "peek_own": {"ahu"},
    "peek_no_moai": {"ahu"}, "peek_disabled": set(), "dice_count": {"need"},
    "bad_face": {"face"}, "bad_mark_item": {"item"}, "bad_recall_item": {"item"},
    "too_many_marks": {"have"},
}


def test_every_rejection_key_has_an_english_message() -> None:
    import json
    import string
    from pathlib import Path

    path = Path(__file__).parent.parent / "data" / "i18n" / "en" / "giants.json"
    catalogue = json.loads(path.read_text(encoding="utf-8"))
    assert set(catalogue) == {f"rules.giants.{k}" for k in PARAMS}
    for key, params in PARAMS.items():
        for form in forms(catalogue[f"rules.giants.{key}"]):
            fields = {f for _, f, _, _ in string.Formatter().parse(form) if f}
            assert fields <= params, key
            form.format(**{p: "x" for p in params})


@pytest.mark.parametrize(("seats", "level"), [(3, "greedy"), (4, "greedy"), (5, "greedy"),
                                              (4, "random")])
def test_cli_play_finishes_and_replays(seats: int, level: str, tmp_path: Any,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from rules.__main__ import main

    assert main(["play", "giants", "--seats", str(seats), "--seed", "3", "--ai", level]) == 0
    record = capsys.readouterr().out
    assert record.startswith(f"game giants {' '.join(g.COLOURS[:seats])} seed=3\n")
    path = tmp_path / "game.txt"
    path.write_text(record, encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    assert 'finished: true' in capsys.readouterr().out


def test_private_events_are_marked_for_their_seat() -> None:
    _, events = g.apply(place_state(), "red", g.parse("sorcerer recruit"))
    public = [e for e in events if "private" not in e]
    assert public == [{"kind": "hex_action", "seat": "red", "by": "sorcerer",
                       "action": "recruit", "hex": "B10", "logs": 0}]
    assert [e["gained"] for e in events if e.get("private") == "red"] == [{"workers": 1}]
