"""Every worked example of makemake.md section 10, replayed as a record with its expectations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rules.makemake.engine import TOKENS
from rules.record import Game, replay

RECORDS = Path(__file__).parent / "records" / "makemake"


def record(name: str) -> str:
    (path,) = RECORDS.glob(f"{name}_*.txt")
    return path.read_text(encoding="utf-8")


def play(name: str, upto: int | None = None, header: str | None = None) -> tuple[Game, dict]:
    """Replay the first ``upto`` lines (all by default), skipping rejected lines."""
    lines = record(name).splitlines()
    if header is not None:
        lines[0] = header
    game, _ = replay("\n".join(lines[:upto]), keep_going=True)
    return game, game.module.view(game.state, None)


def rejected(name: str, header: str | None = None) -> dict[int, str]:
    lines = record(name).splitlines()
    if header is not None:
        lines[0] = header
    _, rejections = replay("\n".join(lines), keep_going=True)
    return {r.number: r.error.key for r in rejections}


def cell(view: dict, hex_: str) -> tuple[Any, ...]:
    c = view["board"][hex_]
    return c["owner"], c["tokens"], c["chief"], c["moai"]


def reserve(view: dict, seat: str) -> tuple[int, bool, int]:
    r = view["reserves"][seat]
    return r["tokens"], r["chief"], r["manu"]


def test_10_1_captures_with_and_against_a_chief() -> None:
    _, v = play("10_1", 3)
    assert cell(v, "C2") == ("blue", 3, True, False)
    assert reserve(v, "red") == (11, True, 5)
    assert reserve(v, "blue") == (8, False, 5)
    _, v = play("10_1")
    assert cell(v, "C2") == ("green", 7, False, False)
    assert reserve(v, "blue") == (11, True, 5)
    assert reserve(v, "green") == (4, True, 5)
    assert v["round"] == 2 and v["pending"] == ["red"]
    assert v["scores"] == {"red": 0, "blue": 0, "green": 0}


def test_10_2_withdraw() -> None:
    _, v = play("10_2", 6)
    assert cell(v, "A1") == ("red", 1, False, False)
    assert reserve(v, "red") == (10, True, 5)
    assert cell(v, "E9") == ("blue", 1, False, False)
    assert reserve(v, "blue") == (10, True, 5)
    assert rejected("10_2") == {7: "nothing_to_withdraw"}
    _, v = play("10_2")
    assert v["pending"] == ["green"] and v["round"] == 2
    assert reserve(v, "green") == (10, True, 5)


def test_10_3_a_moai_on_an_edge_territory() -> None:
    _, v = play("10_3", 8)
    assert cell(v, "E2") == ("red", 1, True, False)
    assert v["sites"]["S35"] == "red"
    assert reserve(v, "red") == (8, False, 4)
    assert v["scores"]["red"] == 1
    _, v = play("10_3", 11)
    assert cell(v, "E1") == (None, 0, False, True)
    assert reserve(v, "red") == (8, False, 4)
    assert v["moai_left"] == 11 and v["sites"]["S35"] == "red"
    assert v["pending"] == ["blue"] and v["round"] == 4
    # the section 7 example view is this position
    assert v["holdings"] == {
        "red": {"territories": ["D1", "E2", "E9"], "sacred": 0, "manu": ["S35"]},
        "blue": {"territories": ["A4", "A5", "B6"], "sacred": 0, "manu": []},
        "green": {"territories": ["A1", "A2", "B1"], "sacred": 0, "manu": []},
    }
    assert v["reserves"]["blue"] == {"tokens": 8, "chief": True, "manu": 5}
    assert v["choice"] is None and v["end"] is None and v["makemake"] is None
    assert rejected("10_3") == {12: "moai_there"}


def test_10_3_variant_edge_strict() -> None:
    header = "game makemake red blue green edge_strict=yes"
    _, v = play("10_3", 11, header)
    assert cell(v, "E1") == ("red", 1, False, False)
    assert v["moai_left"] == 12
    assert reserve(v, "red") == (7, False, 4)
    assert rejected("10_3", header) == {}
    _, v = play("10_3", None, header)
    assert cell(v, "E1") == ("blue", 5, False, False)
    assert v["sites"]["S35"] is None
    assert reserve(v, "red")[2] == 5


def test_10_4_tangata_manu_placed_removed_and_placed_again() -> None:
    _, v = play("10_4", 8)
    assert v["sites"]["S01"] == "red" and v["scores"]["red"] == 1
    assert reserve(v, "red")[2] == 4
    _, v = play("10_4", 9)
    assert cell(v, "A2") == ("blue", 2, False, False)
    assert v["sites"]["S01"] is None
    assert reserve(v, "red") == (9, True, 5) and v["scores"]["red"] == 0
    _, v = play("10_4")
    assert cell(v, "A2") == ("red", 3, False, False)
    assert reserve(v, "blue")[0] == 9
    assert v["sites"]["S01"] == "red" and v["scores"]["red"] == 1
    assert reserve(v, "red") == (6, True, 4)
    assert v["pending"] == ["blue"] and v["round"] == 4


def test_10_5_make_make_changes_hands() -> None:
    _, v = play("10_5", 8)
    assert v["makemake"] == "red"
    assert v["scores"] == {"red": 1, "blue": 0, "green": 0}
    _, v = play("10_5", 9)
    assert v["holdings"]["red"]["sacred"] == 3 and v["holdings"]["blue"]["sacred"] == 3
    assert v["makemake"] == "red"
    _, v = play("10_5")
    assert cell(v, "B3") == ("blue", 2, False, False)
    sacred = {p: v["holdings"][p]["sacred"] for p in v["seats"]}
    assert sacred == {"red": 2, "blue": 4, "green": 0}
    assert v["makemake"] == "blue"
    assert v["scores"] == {"red": 0, "blue": 1, "green": 0}
    assert v["pending"] == ["green"] and v["round"] == 4


def test_10_6_a_win_during_another_players_turn() -> None:
    _, v = play("10_6", 10)
    assert v["makemake"] == "green"
    _, v = play("10_6", 21)
    assert v["holdings"]["blue"]["manu"] == ["S11", "S15", "S19", "S23", "S24"]
    assert reserve(v, "blue")[2] == 0
    sacred = {p: v["holdings"][p]["sacred"] for p in v["seats"]}
    assert sacred == {"red": 0, "blue": 3, "green": 3}
    assert v["makemake"] == "green"
    assert v["scores"] == {"red": 0, "blue": 5, "green": 1}
    assert not v["finished"]
    game, v = play("10_6")
    assert v["finished"] and v["phase"] == "over" and v["pending"] == []
    assert v["end"] == "victory" and v["winners"] == ["blue"]
    assert v["scores"] == {"red": 0, "blue": 6, "green": 0}
    assert v["round"] == 8 and v["active"] == "red"
    result = game.module.result(game.state)
    assert result is not None and result.reason == "victory" and result.winners == ["blue"]


def test_10_7_an_illegal_capture_at_equal_strength() -> None:
    assert rejected("10_7") == {3: "too_weak"}
    _, v = play("10_7")
    assert cell(v, "C2") == ("red", 2, True, False)
    assert v["pending"] == ["blue"] and reserve(v, "blue") == (TOKENS, True, 5)
    game, _ = play("10_7")
    for text, ok in [("blue place C2 2 chief", False), ("blue place C2 6", True),
                     ("blue place C2 3 chief", True)]:
        trial, _ = replay(game.record() + text + "\n")
        assert (trial.lines[-1] == text) is ok


def test_10_8_choosing_the_order_of_moai() -> None:
    _, v = play("10_8", 11)
    assert v["sites"]["S28"] == "red" and v["sites"]["S35"] == "red"
    game, v = play("10_8", 14)
    assert v["phase"] == "moai" and v["pending"] == ["red"]
    assert v["choice"] == {"kind": "moai", "from": ["E1", "E2"], "count": 1}
    assert [str(a) for a in game.module.legal(game.state, "red")] == ["moai E1", "moai E2"]
    assert rejected("10_8") == {15: "not_qualifying"}
    _, v = play("10_8")
    assert cell(v, "E1")[3] and cell(v, "E2")[3] and v["moai_left"] == 10
    assert reserve(v, "red") == (8, True, 2)
    assert v["holdings"]["red"]["manu"] == ["S28", "S35", "S36"]
    assert v["scores"]["red"] == 3
    assert v["pending"] == ["blue"] and v["round"] == 5


def test_10_8_other_order() -> None:
    lines = record("10_8").splitlines()
    game, _ = replay("\n".join([*lines[:14], "red moai E2"]))
    v = game.module.view(game.state, None)
    assert cell(v, "E2")[3] and cell(v, "E1") == ("red", 1, False, False)
    assert v["moai_left"] == 11
    assert reserve(v, "red") == (7, True, 2)
    assert v["holdings"]["red"]["manu"] == ["S28", "S35", "S36"]


def test_10_9_choosing_tangata_manu_sites() -> None:
    game, v = play("10_9", 20)
    assert v["phase"] == "manu"
    assert v["choice"] == {"kind": "manu", "from": ["S01", "S05", "S06", "S10", "S11", "S15"],
                           "count": 5}
    assert [str(a) for a in game.module.legal(game.state, "red")] == [
        "manu S01 S05 S06 S10 S11", "manu S01 S05 S06 S10 S15", "manu S01 S05 S06 S11 S15",
        "manu S01 S05 S10 S11 S15", "manu S01 S06 S10 S11 S15", "manu S05 S06 S10 S11 S15"]
    assert rejected("10_9") == {21: "wrong_count", 22: "duplicate_site", 23: "not_qualifying"}
    game, v = play("10_9")
    assert game.lines[-1] == "red manu S05 S06 S10 S11 S15"
    assert v["holdings"]["red"]["manu"] == ["S05", "S06", "S10", "S11", "S15"]
    assert v["sites"]["S01"] is None
    assert reserve(v, "red")[2] == 0 and v["scores"]["red"] == 5
    assert v["holdings"]["red"]["sacred"] == 2 and v["makemake"] is None
    assert not v["finished"] and v["pending"] == ["blue"] and v["round"] == 7


def test_10_9_variant_one_manu_per_ceremony() -> None:
    game, v = play("10_9", 20, "game makemake red blue green one_manu_per_ceremony=yes")
    assert v["choice"]["count"] == 1
    assert [str(a) for a in game.module.legal(game.state, "red")] == [
        f"manu {s}" for s in ("S01", "S05", "S06", "S10", "S11", "S15")]


def test_10_10_round_limit_and_tie_break() -> None:
    _game, v = play("10_10")
    assert v["finished"] and v["end"] == "round_limit"
    assert v["round"] == 2 and v["active"] == "green" and v["pending"] == []
    assert v["winners"] == ["blue"]
    assert v["scores"] == {"red": 0, "blue": 0, "green": 0}


def test_10_10_full_tie() -> None:
    game, _ = replay("game makemake red blue green round_limit=1\n"
                     "red place A1 1\nblue place A5 1\ngreen place E9 1\n")
    v = game.module.view(game.state, None)
    assert v["finished"] and v["winners"] == ["red", "blue", "green"]


def test_10_11_rejections() -> None:
    assert rejected("10_11") == {
        2: "pass_not_allowed", 3: "centre", 4: "not_enough_tokens", 5: "no_tokens",
        6: "not_pending", 7: "wrong_phase", 9: "too_weak", 10: "too_weak", 11: "not_yours",
        15: "own_territory", 17: "nothing_to_withdraw", 19: "chief_on_board", 23: "game_over"}
    _, v = play("10_11")
    assert cell(v, "A1") == ("blue", 1, False, False)
    assert cell(v, "A2") == ("blue", 5, False, False)
    assert cell(v, "A3") == ("red", 1, False, False)
    for h in ("E1", "E2", "E3"):
        assert cell(v, h) == ("green", 1, False, False)
    assert reserve(v, "red")[:2] == (10, True)
    assert reserve(v, "blue")[:2] == (5, True)
    assert reserve(v, "green")[:2] == (8, True)
    assert v["end"] == "round_limit" and v["winners"] == ["green"]


@pytest.mark.parametrize("path", sorted(RECORDS.glob("*.txt")), ids=lambda p: p.stem)
def test_every_example_reprints_its_accepted_lines(path: Path) -> None:
    """The printed form of every accepted line parses back to itself."""
    game, _ = replay(path.read_text(encoding="utf-8"), keep_going=True)
    again, rejections = replay(game.record())
    assert rejections == [] and again.record() == game.record()
