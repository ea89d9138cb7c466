"""Every worked example of giganten.md (sections 6 and 10), replayed with its expectations.

Records live in ``tests/records/giganten``. A line marked ``#! reject <key>`` must be rejected
with that key and leave the state alone; a line marked ``#! legal`` must be accepted, but the
record goes on from the state before it (it shows an alternative the example mentions).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import rules.giganten as g
from rules.core import CHANCE, IllegalAction
from rules.giganten.state import State
from rules.record import Game, parse_header, parse_line, replay

RECORDS = Path(__file__).parent / "records" / "giganten"
MARK = re.compile(r"#!\s*(reject\s+(?P<key>[a-z_.]+)|legal)")


def lines_of(name: str) -> list[str]:
    return (RECORDS / name).read_text(encoding="utf-8").splitlines()


def run(name: str, stop: str | None = None) -> tuple[Game, list[tuple[int, str, str]]]:
    """Play a record; stop before the first line that is ``stop`` (or starts with it, for a
    comment).

    Returns the game and, for every marked line, (line number, expected, outcome).
    """
    game: Game | None = None
    checks: list[tuple[int, str, str]] = []
    for number, raw in enumerate(lines_of(name), start=1):
        code = raw.split("#", 1)[0].strip()
        if stop is not None and (code == stop or (stop.startswith("#") and raw.startswith(stop))):
            break
        if not raw.split("#", 1)[0].strip():
            continue
        if game is None:
            game = Game.start(parse_header(raw))
            continue
        mark = MARK.search(raw)
        if mark is None:
            game.apply_text(raw)
            continue
        actor, action = parse_line(game.module, raw)
        before = g.to_json(game.state)
        try:
            g.apply(game.state, actor, action)
            outcome = "legal"
        except IllegalAction as exc:
            outcome = exc.key
        assert g.to_json(game.state) == before
        checks.append((number, mark.group("key") or "legal", outcome))
    assert game is not None
    return game, checks


def pub(game: Game, seat: str | None = None) -> dict[str, Any]:
    return g.view(game.state, seat)


def money(game: Game) -> dict[str, int]:
    return {c: p["money"] for c, p in pub(game)["players"].items()}


# --- 10.1 example A ------------------------------------------------------------------------------

def test_example_a_replays_to_its_end_table() -> None:
    game, _ = run("example_a.txt")
    v = pub(game)
    assert v["round"] == 3 and v["pending"] == [CHANCE] and v["decision"] == "prices"
    assert money(game) == {"red": 2000, "grey": 22500, "blue": 20000}
    players = v["players"]
    assert {c: p["loco"] for c, p in players.items()} == {"red": 3, "grey": 9, "blue": 10}
    assert {c: p["truck"] for c, p in players.items()} == {"red": "C4", "grey": None,
                                                           "blue": "B4"}
    hands = {c: pub(game, c)["you"]["licences"] for c in ("red", "grey", "blue")}
    assert hands == {"red": [1, 1, 1, 2, 2, 2, 2], "grey": [2, 2], "blue": [1, 1, 2, 2, 2]}
    derricks = {label: (s["owner"], s["chips"]) for label, s in v["spaces"].items()
                if s["state"] == "derrick"}
    assert derricks == {"D3": ("red", 1), "C5": ("red", 3), "A4": ("blue", 1)}
    assert {c: p["derricks_in_hand"] for c, p in players.items()} == {
        "red": 3, "grey": 5, "blue": 4}
    assert players["red"]["storage"] == {"hudson": 2, "jet": 0, "standard": 0}
    assert sum(players["blue"]["storage"].values()) == sum(
        players["grey"]["storage"].values()) == 0
    assert v["prices"] == {"hudson": 7500, "jet": 4500, "standard": 8000}
    assert v["black_loco"] == 5 and v["supply"] == 53
    assert v["decks"] == {"beige_draw": 24,
                          "beige_discard": ["b1", "b2", "b9", "b15", "b22", "b26"],
                          "red_draw": 10, "red_discard": ["r5", "r10"], "licence_draw": 56,
                          "licence_discard": {"1": 5, "2": 3}}
    assert game.state.licence_draw == {"1": 29, "2": 27}


def test_example_a_checkpoint_2_split_fee() -> None:
    game, _ = run("example_a.txt", stop="red bid 3")
    assert money(game) == {"red": 8000, "grey": 16500, "blue": 16500}
    assert game.state.spaces["D3"]["chips"] == 2
    assert pub(game)["players"]["red"]["storage"]["hudson"] == 1


def test_example_a_split_fee_may_name_any_tied_rival() -> None:
    game, _ = run("example_a.txt", stop="red produce D3=hudson:grey")
    grey, _ = g.apply(game.state, "red", g.parse("produce D3=hudson:grey"))
    blue, _ = g.apply(game.state, "red", g.parse("produce D3=hudson:blue"))
    assert g.to_json(grey) == g.to_json(blue)
    assert [str(a) for a in g.legal(game.state, "red")].count("produce D3=hudson:grey") == 1
    assert "produce D3=hudson:blue" not in [str(a) for a in g.legal(game.state, "red")]


def test_a_split_fee_typed_with_another_tied_rival_prints_the_first() -> None:
    """Spec checkpoint [2]: ``D3=hudson:blue`` is the same action and prints as ``:grey``."""
    text = (RECORDS / "example_a.txt").read_text(encoding="utf-8")
    typed = text.replace("red produce D3=hudson:grey", "red produce D3=hudson:blue")
    assert typed != text
    game, rejections = replay(typed)
    original, _ = replay(text)
    assert rejections == [] and "red produce D3=hudson:grey" in game.lines
    assert "red produce D3=hudson:blue" not in game.record()
    assert g.to_json(game.state) == g.to_json(original.state)


def test_example_a_checkpoint_3_bluff() -> None:
    game, _ = run("example_a.txt", stop="* forfeit grey 1 2")
    v = pub(game)
    assert v["pending"] == [CHANCE] and v["decision"] == "forfeit" and v["subject"] == "grey"
    assert v["auction"]["eligible"] == ["red", "grey"]
    assert v["auction"]["high_bid"] == 6 and v["auction"]["winner"] == "grey"
    game, _ = run("example_a.txt", stop="red bid 1")
    assert pub(game, "grey")["you"]["licences"] == [1, 1]
    assert pub(game)["auction"]["high_bid"] == 0 and pub(game)["pending"] == ["red"]
    game, _ = run("example_a.txt", stop="# ---- round 2")
    assert pub(game, "grey")["you"]["licences"] == []


def test_example_a_checkpoint_4_sale() -> None:
    game, _ = run("example_a.txt", stop="# ---- round 2")
    assert money(game)["grey"] == 22500
    v = pub(game)
    assert v["players"]["red"]["storage"]["hudson"] == 1
    assert v["round"] == 2 and v["decision"] == "prices"


def test_example_a_peeks_are_private() -> None:
    game, _ = run("example_a.txt", stop="red loco 1")
    assert pub(game, "red")["spaces"]["D3"]["value"] == 3
    assert pub(game, "grey")["spaces"]["D3"]["value"] is None
    assert pub(game)["spaces"]["D3"]["value"] is None
    assert pub(game)["players"]["red"]["peeked"] == ["D3"]


# --- 10.2 price die ------------------------------------------------------------------------------

def test_price_die_through_the_zones() -> None:
    expected = [("* prices 2b 3r 4b", (6000, 3500, 7000)),
                ("* prices 3b 2r 2b", (7500, 4500, 6000)),
                ("red price standard +4", (7500, 4500, 8000))]
    for line, prices in expected:
        game, _ = run("example_a.txt", stop=line)
        game.apply_text(line)
        assert tuple(pub(game)["prices"].values()) == prices
    game, _ = run("example_a.txt")
    game.apply_text("* prices 4b 2r 3r")
    assert tuple(pub(game)["prices"].values()) == (5500, 3500, 6500)


# --- 10.3 rejections -----------------------------------------------------------------------------

def test_rejections_at_the_checkpoints() -> None:
    game, checks = run("example_a_rejections.txt")
    assert len(checks) == 25
    for number, expected, outcome in checks:
        assert outcome == expected, f"line {number}"
    assert money(game) == {"red": 2000, "grey": 22500, "blue": 20000}


def test_automatic_payment_at_checkpoint_7() -> None:
    game, _ = run("example_a.txt", stop="blue pay 1 1 2 2")
    after, events = g.apply(game.state, "blue", g.parse("sell 1"))
    assert g.view(after, "blue")["you"]["licences"] == [1, 1, 1, 1, 2, 2]
    assert {"kind": "pay", "seat": "blue", "values": [2, 2, 2], "automatic": True} in events


# --- 10.4 reshuffles and running out -------------------------------------------------------------

def test_beige_reshuffle_in_round_8() -> None:
    game, checks = run("beige_reshuffle.txt")
    assert checks and all(expected == outcome for _, expected, outcome in checks)
    decks = pub(game)["decks"]
    assert decks["beige_draw"] == 26 and decks["beige_discard"] == []
    assert pub(game)["display"] == ["r3", "b7", "b12", "b14", "b30"]


def _licence_position(discard: dict[str, int]) -> State:
    game, _ = run("example_a.txt", stop="* licences blue 1 1 2")
    data = g.to_json(game.state)
    data["players"]["blue"].update(card="b4", hand=[])  # a card that deals 4, empty hand
    data["licence_draw"], data["licence_discard"] = {"1": 1, "2": 1}, discard
    return g.from_json(data)


def test_licence_reshuffle() -> None:
    state = _licence_position({"1": 0, "2": 3})
    after, _ = g.apply(state, CHANCE, g.parse("licences blue 1 2 2 2"))
    assert g.view(after, "blue")["you"]["licences"] == [1, 2, 2, 2]
    assert after.licence_draw == {"1": 0, "2": 1} and after.licence_discard == {"1": 0, "2": 0}
    with pytest.raises(IllegalAction) as exc:
        g.apply(state, CHANCE, g.parse("licences blue 2 2 2 2"))
    assert exc.value.key == "licences.unavailable"


def test_licences_run_out() -> None:
    state = _licence_position({"1": 0, "2": 0})
    with pytest.raises(IllegalAction) as exc:
        g.apply(state, CHANCE, g.parse("licences blue 1 2 2"))
    assert exc.value.key == "licences.count"
    after, _ = g.apply(state, CHANCE, g.parse("licences blue 1 2"))
    assert g.pending(after).subject == "red"
    with pytest.raises(IllegalAction) as exc:
        g.apply(after, CHANCE, g.parse("licences red 1"))
    assert exc.value.key == "licences.count"
    last, _ = g.apply(after, CHANCE, g.parse("licences red"))
    assert last.phase == "move"


def test_eligible_without_licences_is_no_participant() -> None:
    game, _ = run("example_a.txt", stop="red produce D3=hudson:grey")
    data = g.to_json(game.state)
    data["players"]["grey"]["hand"] = []
    state = g.from_json(data)
    state, _ = g.apply(state, "red", g.parse("produce D3=hudson:grey"))
    v = g.view(state, None)
    assert v["auction"]["eligible"] == ["red", "grey"] and v["auction"]["active"] == ["red"]
    assert v["pending"] == ["red"]
    state, _ = g.apply(state, "red", g.parse("bid 1"))
    assert g.pending(state).seats == ("red",) and state.decision == "sell"
    state, _ = g.apply(state, "red", g.parse("sell 1"))
    assert state.round == 2 and state.players["grey"]["storage"]["hudson"] == 1


# --- 10.5 export of a running game ---------------------------------------------------------------

SPEC_EXPORT = """\
game giganten red grey blue
* tiles A4=? A6=? A12=? A18=? B10=? C5=? C13=? C15=? C19=? D3=3 D9=? D17=? E14=? E19=? F7=? G3=? \
G16=? H7=? H9=? H11=? H14=? I5=? I17=? J14=? J19=? K3=? L5=? L9=? L11=? L18=?
* prices 2b 3r 4b
* reveal r5 b1 b9 b15
red take b1
grey take r5
blue take b15
* licences red ? ? ?
* licences grey ? ? ? ?
* licences blue ? ? ? ? ? ?"""


def test_export_of_a_running_game() -> None:
    game, _ = run("example_a.txt", stop="# ---- round 2")
    text = g.public_record(game.state, game.header.line(), game.lines)
    assert text.splitlines()[:10] == SPEC_EXPORT.splitlines()
    assert "* forfeit grey 1 2" in text.splitlines()
    assert [x for x in game.lines if x.startswith("red ")] == [
        x for x in text.splitlines() if x.startswith("red ")]
    own = g.public_record(game.state, game.header.line(), game.lines, seat="grey")
    assert "* licences grey 1 1 1 2" in own.splitlines()


# --- section 6: final accounting -----------------------------------------------------------------

SECTION_6 = {
    "red": (14, [1, 2, 2], [1, 3], {"hudson": 2, "jet": 1}, 21500),
    "grey": (14, [1, 1, 1, 2], [2], {"standard": 2}, 30000),
    "blue": (9, [1, 1, 2], [1, 1, 2], {}, 18000),
    "green": (9, [1, 1, 2], [4], {"jet": 2, "standard": 1}, 26000),
}


def _final_position(grey_cash: int) -> State:
    state = g.new(["red", "grey", "blue", "green"])
    data = g.to_json(state)
    data.update(round=8, phase="cards", decision="reveal", black=19)
    free = iter(label for label in data["spaces"])
    for seat, (loco, hand, chips, storage, cash) in SECTION_6.items():
        p = data["players"][seat]
        p.update(loco=loco, hand=hand, money=grey_cash if seat == "grey" else cash,
                 derricks=5 - len(chips))
        p["storage"].update(storage)
        for n in chips:
            data["spaces"][next(free)].update(state="derrick", owner=seat, chips=n, value=n)
    return g.from_json(data)


def test_final_accounting_example() -> None:
    state, _ = g.apply(_final_position(30000), CHANCE, g.parse("reveal r1"))
    res = g.result(state)
    assert res is not None and res.winners == ["grey"]
    assert res.scores == {"red": 36500, "grey": 39000, "blue": 28000, "green": 36000}
    assert {c: (a["rank"], a["derrick_bonus"], a["chips"]) for c, a in res.accounts.items()} == {
        "grey": (1, 5000, 4), "red": (2, 8000, 7), "green": (3, 3000, 7), "blue": (4, 6000, 4)}
    v = g.view(state, None)
    assert v["finished"] and v["phase"] == "over" and v["pending"] == [] and v["round"] == 8
    assert v["scores"] == res.scores and v["result"]["grey"]["total"] == 39000
    assert v["order"] == ["green", "red", "grey", "blue"]


def test_final_tie_is_shared() -> None:
    state, _ = g.apply(_final_position(27500), CHANCE, g.parse("reveal r1"))
    res = g.result(state)
    assert res is not None and res.winners == ["red", "grey"]
