"""Every worked example of giants.md section 10, replayed from tests/records/giants/.

A record line carrying ``# expect <key>`` must be refused with that key; every other line must
apply.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules import giants as g
from rules.core import IllegalAction
from rules.giants.roundend import breakdown
from rules.record import Game, replay

RECORDS = Path(__file__).parent / "records" / "giants"
EXPECT = re.compile(r"#\s*expect\s+([a-z_]+)")


def text(name: str) -> str:
    return (RECORDS / f"{name}.txt").read_text(encoding="utf-8")


def play(name: str, header: str | None = None, upto: str | None = None) -> tuple[Game, dict]:
    """Replay a record (up to and including the last line starting with ``upto``)."""
    lines = text(name).splitlines()
    if header is not None:
        lines = [header if line.startswith("game ") else line for line in lines]
    if upto is not None:
        lines = lines[: max(i for i, line in enumerate(lines) if line.startswith(upto)) + 1]
    game, _ = replay("\n".join(lines), keep_going=True)
    return game, g.view(game.state, None)


@pytest.mark.parametrize("path", sorted(RECORDS.glob("*.txt")), ids=lambda p: p.stem)
def test_records_refuse_exactly_the_expected_lines(path: Path) -> None:
    body = path.read_text(encoding="utf-8")
    expected = {n: m.group(1) for n, line in enumerate(body.splitlines(), 1)
                if (m := EXPECT.search(line))}
    _, rejections = replay(body, keep_going=True)
    assert {r.number: r.error.key for r in rejections} == expected


# --- 10.1 -----------------------------------------------------------------------------------------

def test_10_1_reveal_and_choosing_order() -> None:
    _, v = play("auction_10_1", upto="purple bid 0m")
    assert v["choosing"]["order"] == ["blue", "green", "red", "yellow", "purple"]
    assert v["pending"] == ["blue"] and v["offer"] == [1, 2, 2, 3]
    assert v["players"]["blue"]["rongo"] == 3
    _, v = play("auction_10_1", upto="red take 2")
    assert v["pending"] == ["green"]  # yellow and purple skipped, blue has no strength left


def test_10_1_fronts_committed_and_supplies() -> None:
    game, v = play("auction_10_1")
    assert v["phase"] == "place" and v["pending"] == ["blue"] and v["choosing"] is None
    fronts = {p: v["players"][p]["front"] for p in v["seats"]}
    assert fronts == {"purple": [], "blue": ["moai1"], "green": ["moai2", "moai4"],
                      "red": ["moai3"], "yellow": []}
    sizes = {i: v["items"][i]["size"] for i in v["items"]}
    assert sizes == {"moai1": 3, "moai2": 1, "moai3": 2, "moai4": 2}
    committed = {p: v["players"][p]["committed"] for p in v["seats"]}
    assert committed["blue"] == {"workers": 0, "chief": True, "sorcerer": False, "markers": 3}
    assert committed["green"] == {"workers": 0, "chief": True, "sorcerer": False, "markers": 3}
    assert committed["red"] == {"workers": 1, "chief": False, "sorcerer": True, "markers": 1}
    assert committed["yellow"] == {"workers": 1, "chief": False, "sorcerer": False,
                                   "markers": 1}
    assert committed["purple"] == {"workers": 0, "chief": False, "sorcerer": False,
                                   "markers": 0}
    assert v["supply"]["moai"] == {"1": 16, "2": 10, "3": 5} and v["supply"]["rongo"] == 27
    assert g.view(game.state, "blue")["screen"]["markers"] == 0


def test_10_1_with_chief_split_no() -> None:
    header = "game giants purple blue green red yellow chief_split=no seed=1"
    body = text("auction_10_1").replace(
        "game giants purple blue green red yellow seed=1", header)
    game, rejections = replay(body, keep_going=True)
    assert [(r.number, r.error.key) for r in rejections] == [
        (len(body.splitlines()), "not_pending")]
    v = g.view(game.state, None)
    assert v["phase"] == "place" and v["pending"] == ["blue"]
    assert v["players"]["green"]["front"] == ["moai2"]
    assert v["supply"]["moai"] == {"1": 16, "2": 11, "3": 5}


# --- 10.2 -----------------------------------------------------------------------------------------

def test_10_2_prestige_and_erected_moai() -> None:
    game, v = play("transport_10_2", upto="green move moai4")
    assert v["scores"] == {"purple": 0, "blue": 1, "green": 0, "red": 2, "yellow": 0}
    assert v["ahus"]["oroi"] == {"reserved": None, "moai": "moai4", "headdress": None,
                                 "owner": None}
    assert g.view(game.state, "green")["screen"]["bases"] == 4
    body = text("transport_10_2").replace(" favour=blue", "")
    game, _ = replay(body.split("red move moai3")[0])
    assert g.view(game.state, None)["scores"]["yellow"] == 1


def test_10_2_end_of_round_and_round_3() -> None:
    _, v = play("transport_10_2", upto="red pass")
    assert v["phase"] == "endround" and v["pending"] == ["red"]
    assert v["endround"] == {"red": "waiting"}
    game, v = play("transport_10_2")
    assert v["round"] == 3 and v["order"][0] == "green" and v["phase"] == "draw"
    assert v["scores"] == {"purple": 0, "blue": 1, "green": 0, "red": 2, "yellow": 0}
    assert v["ahus"]["oroi"] == {"reserved": None, "moai": "moai4", "headdress": None,
                                 "owner": None}
    assert g.view(game.state, "green")["ahus"]["oroi"]["owner"] == "green"
    assert g.view(game.state, "blue")["ahus"]["oroi"]["owner"] is None
    items = {i: (it["at"], it["marker"]) for i, it in v["items"].items()}
    assert items == {"moai1": ("M7", None), "moai2": ("M7", None), "moai3": ("L7", "red"),
                     "moai4": ("ahu:oroi", None)}
    assert v["supply"] == {"moai": {"1": 16, "2": 10, "3": 5}, "headdresses": 14, "logs": 27,
                           "rongo": 27}
    assert v["hexes"] == {} and v["dice"] is None and v["offer"] == []
    assert v["bids"]["red"] == {"markers": 1, "workers": 1, "chief": False, "sorcerer": True}


# --- 10.3 -----------------------------------------------------------------------------------------

def test_10_3_illegal_moves_leave_red_pending_and_the_state_unchanged() -> None:
    body = _before_pass(text("illegal_10_3"))
    game, rejections = replay(body, keep_going=True)
    params = {r.error.key: r.error.params for r in rejections}
    assert params["cannot_carry"] == {"hex": "K9", "need": 2, "have": 0}
    assert params["hex_repeated"] == {"hex": "L7"}
    assert params["ahu_not_free"] == {"ahu": "oroi"}
    assert params["not_your_item"] == {"item": "moai1"}
    assert params["already_marked"] == {"item": "moai3"}
    assert len(rejections) == 6 and game.pending() == ("red",)
    clean = "\n".join(line for line in body.splitlines() if not EXPECT.search(line))
    assert g.to_json(replay(clean)[0].state) == g.to_json(game.state)


def _before_pass(body: str) -> str:
    lines = body.splitlines()
    return "\n".join(lines[: max(i for i, line in enumerate(lines) if line == "red pass")])


# --- 10.4 -----------------------------------------------------------------------------------------

ROWS_10_4 = {
    "01": {}, "02": {}, "03": {"blue": 1}, "04": {"yellow": 2}, "05": {"purple": 2},
    "06": {"yellow": 3}, "07": {"purple": 1, "blue": 1}, "08": {"green": 1, "purple": 1},
    "09": {"yellow": 1}, "10": {"green": 1}, "11": {"blue": 1},
}


@pytest.mark.parametrize(("row", "prestige"), ROWS_10_4.items())
def test_10_4_helper_choice(row: str, prestige: dict[str, int]) -> None:
    _, v = play(f"helpers_10_4_{row}")
    assert {p: n for p, n in v["scores"].items() if n} == prestige
    assert v["pending"] == ["yellow"]


def test_10_4_logs_without_a_figure_cannot_carry() -> None:
    """Row 12 cannot arise in play (logs only arrive with a figure): set it up directly."""
    lines = text("helpers_10_4_02").splitlines()
    game, _ = replay("\n".join(lines[:-1]))
    state = game.state
    state.hexes["L7"] = {"figures": [], "logs": 2}
    with pytest.raises(IllegalAction) as info:
        g.apply(state, "red", g.parse("move moai1 L7"))
    assert info.value.key == "cannot_carry" and info.value.params["have"] == 0


# --- 10.5 -----------------------------------------------------------------------------------------

def test_10_5_claim_by_marking() -> None:
    _, v = play("claim_mark_10_5")
    assert v["items"]["moai2"] == {"kind": "moai", "size": 1, "at": "N7", "marker": "purple",
                                   "abandoned": False}
    assert v["items"]["moai1"]["abandoned"] and v["pending"] == ["blue"]


def test_10_5_claim_by_erecting() -> None:
    game, v = play("claim_erect_10_5")
    assert v["ahus"]["tongariki"]["moai"] == "moai2" and v["ahus"]["tongariki"]["owner"] is None
    assert g.view(game.state, "purple")["ahus"]["tongariki"]["owner"] == "purple"
    assert breakdown(game.state)["purple"]["moai"] == 1


def test_10_5_items_are_abandoned_when_phase_4_begins() -> None:
    lines = text("claim_erect_10_5").splitlines()
    cut = next(i for i, line in enumerate(lines) if line.startswith("purple move"))
    game, _ = replay("\n".join(lines[:cut]))
    v = g.view(game.state, None)
    assert v["phase"] == "transport" and v["pending"] == ["purple"]
    assert v["items"]["moai1"]["abandoned"] and v["items"]["moai2"]["abandoned"]
    assert not v["items"]["moai3"]["abandoned"]
    assert v["round"] == 3 and v["order"] == ["green", "red", "yellow", "purple", "blue"]


# --- 10.6 -----------------------------------------------------------------------------------------

def test_10_6_dice_from_the_seed() -> None:
    game, rejections = replay(text("dice_seed_10_6"))
    assert rejections == []
    dice = [line for line in game.lines if line.startswith("*")]
    assert dice == ["* dice 2 0 2 2", "* dice 2 1 2 0"]
    assert g.view(game.state, None)["offer"] == [1, 2, 2]
