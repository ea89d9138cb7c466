"""Make Make rules one by one (makemake.md sections 5, 6, 8, 9) and the options."""

from __future__ import annotations

import random

import pytest

from rules import makemake as mm
from rules.core import IllegalAction
from rules.makemake.board import TERRITORIES
from rules.makemake.engine import TOKENS, Cell, State
from rules.record import RecordError, parse_header, replay


def start(*lines: str, header: str = "game makemake red blue green") -> State:
    game, rejections = replay("\n".join([header, *lines]))
    assert rejections == [], rejections
    return game.state


def reject(state: State, seat: str, text: str) -> str:
    before = mm.to_json(state)
    with pytest.raises(IllegalAction) as caught:
        mm.apply(state, seat, mm.parse(text))
    assert mm.to_json(state) == before
    return caught.value.key


# --- notation ----------------------------------------------------------------------------------

@pytest.mark.parametrize("typed, printed", [
    ("Place b2 3", "place B2 3"), ("place B2 03 CHIEF", "place B2 3 chief"),
    ("withdraw d7", "withdraw D7"), ("PASS", "pass"), ("moai e1", "moai E1"),
    ("manu S07 s03", "manu S03 S07"), ("place C4 1  # a comment", "place C4 1"),
])
def test_notation_reads_aliases_and_prints_the_contract_form(typed: str, printed: str) -> None:
    action = mm.parse(typed)
    assert str(action) == printed
    assert mm.parse(printed) == action


@pytest.mark.parametrize("text", [
    "place A6 1", "place F1 1", "manu S43", "place B2", "place B2 x", "place B2 1 chef",
    "withdraw", "pass now", "moai", "manu", "jump B2", "place B2 ١",
])
def test_malformed_lines_are_syntax_errors(text: str) -> None:
    with pytest.raises(IllegalAction) as caught:
        mm.parse(text)
    assert caught.value.key == "syntax"


def test_header_prints_non_default_options_in_table_order() -> None:
    header = parse_header("GAME makemake yellow red blue green repetition=yes round_limit=60")
    assert header.line() == "game makemake yellow red blue green round_limit=60 repetition=yes"


@pytest.mark.parametrize("line", [
    "game makemake red blue", "game makemake red blue green yellow red",
    "game makemake red red blue", "game makemake red blue purple",
    "game makemake red blue green colour=1", "game makemake red blue green round_limit=0",
    "game makemake red blue green edge_strict=maybe",
    "game makemake red blue green round_limit=5 round_limit=6", "game chess red blue green",
])
def test_unreadable_game_lines(line: str) -> None:
    with pytest.raises(RecordError):
        parse_header(line)


# --- domination --------------------------------------------------------------------------------

def test_a_claim_takes_pieces_from_the_reserve() -> None:
    s = start("red place B2 4 chief")
    assert s.board["B2"] == Cell("red", 4, True)
    assert s.reserves["red"].tokens == 7 and not s.reserves["red"].chief


def test_a_stack_of_eleven_with_the_chief_cannot_be_captured() -> None:
    s = start("red place B2 11 chief")
    assert not any(isinstance(a, mm.Place) and a.hex == "B2" for a in mm.legal(s, "blue"))


def test_chief_alone_only_with_the_option() -> None:
    s = start()
    assert reject(s, "red", "place A1 0 chief") == "no_tokens"
    s = start("red place A1 0 chief", header="game makemake red blue green chief_alone=yes")
    assert s.board["A1"] == Cell("red", 0, True)
    assert reject(start("red place A1 0 chief", "blue place E1 1", "green place E9 1",
                        header="game makemake red blue green chief_alone=yes"),
                  "red", "withdraw A1") == "nothing_to_withdraw"


def test_pass_only_when_nothing_else_is_legal() -> None:
    s = start()
    for t in mm.engine.TERRITORIES:
        s.board[t] = Cell("blue", 11, True) if t != "A1" else Cell("red", 1)
    s.reserves["red"] = mm.engine.Reserve(tokens=0, chief=True, manu=5)
    assert mm.legal(s, "red") == [mm.Pass()]
    after, events = mm.apply(s, "red", mm.Pass())
    assert events[0] == {"kind": "pass", "seat": "red"} and after.player == "blue"


def test_legal_order_places_by_hex_then_count_chief_after_then_withdraws() -> None:
    s = start("red place B2 2")
    acts = [str(a) for a in mm.legal(s, "blue")]
    assert acts[:4] == ["place A1 1", "place A1 1 chief", "place A1 2", "place A1 2 chief"]
    b2 = [a for a in acts if " B2 " in a]
    assert b2[:4] == ["place B2 1 chief", "place B2 2 chief", "place B2 3", "place B2 3 chief"]
    s = start("red place B2 2", "blue place E1 3")
    acts = [str(a) for a in mm.legal(s, "green")]
    assert all(not a.startswith("withdraw") for a in acts)
    s = start("red place B2 2", "blue place E1 3", "green place E9 1")
    assert [str(a) for a in mm.legal(s, "red")][-1] == "withdraw B2"


def test_only_the_pending_seat_has_legal_actions() -> None:
    s = start()
    assert mm.legal(s, "blue") == [] and mm.legal(s, "yellow") == []
    assert reject(s, "yellow", "place A1 1") == "not_pending"
    assert reject(s, "*", "place A1 1") == "not_pending"


# --- ceremony options ----------------------------------------------------------------------------

def test_sacred_territories_never_get_a_moai_by_default() -> None:
    s = start()
    for t in ("B3", "A2", "A3", "B2", "B4", "C3"):
        s.board[t] = Cell("red", 1)
    s.board["B3"] = Cell("red", 1, True)
    s.sites["S02"] = "red"
    assert not mm.engine.qualifies_for_moai(s, "red", "B3")
    s.options = {**s.options, "sacred_surroundable": True}
    assert mm.engine.qualifies_for_moai(s, "red", "B3")


def test_moai_counts_as_controlled_by_everyone_in_the_sacred_count() -> None:
    s = start()
    s.board["B3"] = mm.engine.MOAI_CELL
    assert all(mm.engine.sacred_count(s, p) == 1 for p in s.seats)


def test_no_moai_once_the_supply_is_empty() -> None:
    s = start()
    s.moai_left = 0
    s.board.update({"E1": Cell("red", 1), "D1": Cell("red", 1), "E2": Cell("red", 1, True)})
    s.sites["S35"] = "red"
    assert mm.engine.moai_candidates(s, "red") == ()
    s.moai_left = 1
    assert mm.engine.moai_candidates(s, "red") == ("E1",)


def _blocked(header: str) -> State:
    """Every token of every seat alone on a territory, dealt round the table so that nobody
    controls a whole site: nobody can do anything but pass."""
    s = start(header=header)
    for i, territory in enumerate(mm.engine.TERRITORIES[:33]):
        s.board[territory] = Cell(s.seats[i % 3], 1)
    for seat in s.seats:
        s.reserves[seat] = mm.engine.Reserve(tokens=0)
    return s


def _pass_round(s: State) -> State:
    for _ in s.seats:
        if s.phase != "over":
            assert mm.legal(s, s.player) == [mm.Pass()]
            s, _ = mm.apply(s, s.player, mm.Pass())
    return s


def test_repetition_ends_the_game_on_the_third_position() -> None:
    s = _blocked("game makemake red blue green repetition=yes")
    for _ in range(3):
        s = _pass_round(s)
    assert s.phase == "over" and s.end == "repetition"
    assert (s.round, s.player) == (3, "blue")
    assert mm.result(s) is not None


def test_without_repetition_passing_goes_on_to_the_round_limit() -> None:
    s = _blocked("game makemake red blue green round_limit=5")
    for _ in range(4):
        s = _pass_round(s)
    assert s.phase == "domination" and s.round == 5
    s = _pass_round(s)
    assert s.end == "round_limit"
    assert s.makemake == "green" and s.winners == ["green"]  # green's 3 sacred (B4 C5 D4)


def test_json_round_trip_keeps_repetition_counts() -> None:
    s = start("red place A1 1", header="game makemake red blue green repetition=yes")
    again = mm.from_json(mm.to_json(s))
    assert again == s and again.positions == s.positions and len(s.positions) == 2


def test_view_has_the_common_keys_and_is_the_same_for_everyone() -> None:
    s = start("red place A1 1")
    v = mm.view(s, None)
    for key in ("game", "round", "phase", "pending", "finished", "scores", "winners"):
        assert key in v
    assert all(mm.view(s, p) == v for p in s.seats)
    assert len(v["board"]) == 34 and len(v["sites"]) == 42


@pytest.mark.parametrize("seed, options", [(1, {}), (2, {"chief_alone": True})])
def test_the_places_listed_are_exactly_those_the_rules_accept(seed: int,
                                                              options: dict[str, bool]) -> None:
    """Every place is listed once, as it is typed, and only the places that apply (a turn
    lists the same places again: they are made once and shared)."""
    s = mm.new(["red", "blue", "green", "yellow"], options)
    rng = random.Random(seed)
    for _ in range(25):  # positions of the first rounds
        seat = s.player
        legal = mm.legal(s, seat)
        if s.phase == "domination":
            listed = [a for a in legal if isinstance(a, mm.Place)]
            assert len(set(listed)) == len(listed)
            accepted = set()
            for t in TERRITORIES:
                for n in range(TOKENS + 1):
                    for chief in (False, True):
                        try:
                            mm.apply(s, seat, mm.Place(t, n, chief))
                        except IllegalAction:
                            continue
                        accepted.add(mm.Place(t, n, chief))
            assert set(listed) == accepted
            for place in listed:
                assert str(place) == str(mm.Place(place.hex, place.count, place.chief))
                assert mm.parse(str(place)) == place
        s, _ = mm.apply(s, seat, rng.choice(legal))
