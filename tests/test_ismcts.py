"""The strong AI's search on a toy game small enough to know the right move.

Nim with a secret: a pile of counters, each turn the seat to move takes one or two, and whoever
takes the last counter wins. Each seat also holds a secret number that changes nothing, so that
determinisation is exercised: the search must decide the same whatever the other seat holds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, cast

from rules.core import JSON, GameModule, Pending, Result
from rules.ismcts import Budget, search


@dataclass(frozen=True)
class Nim:
    pile: int
    turn: str
    secrets: tuple[tuple[str, int], ...]


class NimGame:
    NAME = "nim"
    SEATS = ("red", "blue")

    def pending(self, state: Nim) -> Pending:
        return Pending(() if state.pile == 0 else (state.turn,), "take")

    def legal(self, state: Nim, seat: str) -> list[int]:
        return [n for n in (1, 2) if n <= state.pile] if seat == state.turn else []

    def apply(self, state: Nim, actor: str, action: int) -> tuple[Nim, list[Any]]:
        other = "blue" if actor == "red" else "red"
        return replace(state, pile=state.pile - action, turn=other), []

    def view(self, state: Nim, seat: str | None) -> JSON:
        mine = dict(state.secrets).get(seat or "")
        return {"pile": state.pile, "turn": state.turn, "me": seat, "secret": mine}

    def result(self, state: Nim) -> Result | None:
        if state.pile:
            return None
        winner = "blue" if state.turn == "red" else "red"  # who took the last counter
        return Result({winner: 1}, [winner], "last")

    def seats_of(self, state: Nim) -> tuple[str, ...]:
        return self.SEATS

    def chance(self, state: Nim, rng: random.Random) -> Any:
        raise AssertionError("no chance in nim")


class NimStrong:
    HORIZON = 50

    def __init__(self) -> None:
        self.determinized = 0

    def determinize(self, view: JSON, seat: str, rng: random.Random) -> Nim:
        self.determinized += 1
        other = "blue" if seat == "red" else "red"
        return Nim(view["pile"], view["turn"], ((seat, view["secret"]), (other, rng.randrange(9))))

    def evaluate(self, state: Nim) -> dict[str, float]:
        return {"red": 0.5, "blue": 0.5}

    def policy(self, state: Nim, seat: str, rng: random.Random) -> int:
        return rng.choice(NIM.legal(state, seat))

    def candidates(self, state: Nim, seat: str, actions: list[int]) -> list[int]:
        return actions


NIM = NimGame()
NIM_MODULE = cast(GameModule, NIM)


def decide(state: Nim, seed: int, budget: Budget) -> Any:
    return search(NIM_MODULE, NIM.view(state, state.turn), state.turn,
                  NIM.legal(state, state.turn), random.Random(seed), budget, NimStrong())


def test_it_finds_the_winning_take() -> None:
    # from 4 the winning take leaves a multiple of three; from 5 it is 2
    for pile, right in ((4, 1), (5, 2), (7, 1), (8, 2)):
        state = Nim(pile, "red", (("red", 3), ("blue", 4)))
        outcome = decide(state, 1, Budget(iterations=400))
        assert outcome.action == right, (pile, outcome.visits)


def test_the_same_seed_and_iterations_decide_the_same() -> None:
    state = Nim(10, "red", (("red", 3), ("blue", 4)))
    first = decide(state, 7, Budget(iterations=150))
    again = decide(state, 7, Budget(iterations=150))
    assert (first.action, first.visits) == (again.action, again.visits)


def test_another_seats_secret_changes_nothing() -> None:
    one = Nim(10, "red", (("red", 3), ("blue", 4)))
    twin = Nim(10, "red", (("red", 3), ("blue", 8)))
    a, b = decide(one, 5, Budget(iterations=120)), decide(twin, 5, Budget(iterations=120))
    assert (a.action, a.visits) == (b.action, b.visits)


def test_a_time_budget_reads_only_the_injected_clock() -> None:
    now = [0.0]

    def clock() -> float:
        now[0] += 0.01  # every reading is 10 ms later
        return now[0]

    outcome = decide(Nim(20, "red", (("red", 1), ("blue", 2))), 3,
                     Budget(seconds=0.1, clock=clock))
    assert 9 <= outcome.iterations <= 11


def test_iterations_and_seconds_stop_at_the_first_reached() -> None:
    outcome = decide(Nim(20, "red", (("red", 1), ("blue", 2))), 3,
                     Budget(iterations=4, seconds=100.0, clock=lambda: 0.0))
    assert outcome.iterations == 4


def test_a_single_legal_action_is_taken_without_search() -> None:
    strong = NimStrong()
    state = Nim(1, "red", (("red", 1), ("blue", 2)))
    outcome = search(NIM_MODULE, NIM.view(state, "red"), "red", [1],
                     random.Random(0), Budget(iterations=50), strong)
    assert outcome.action == 1 and outcome.iterations == 0 and strong.determinized == 0
