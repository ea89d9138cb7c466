"""Sealed Nim, the toy fourth game: its engine, on the contract of DESIGN.md ("The engine
contract"), and its greedy AI.

A pile of stones (option ``stones``, 15 by default); each round every seat secretly takes 1 to 3
(``take N``, a sealed submission); when the last one is in, the takes are revealed together and
taken from the pile in seat order, each as much as is left. The game ends when the pile is empty;
most stones wins (ties share). No chance, so no chance lines.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rules.core import (
    JSON,
    REVEALS,
    SEALED,
    Event,
    IllegalAction,
    Option,
    Options,
    Pending,
    Result,
    every_line_public,
    split_words,
)

NAME = "nim"
COLOURS = ("red", "blue", "green")
MIN_SEATS = 3
MAX_SEATS = 3
OPTIONS = (Option("stones", "int", 15, minimum=3),)
MOST = 3
"""The most stones a seat may take in one round."""
SCHEMA = 1
public_line = every_line_public


@dataclass(frozen=True)
class Take:
    count: int

    def __str__(self) -> str:
        return f"take {self.count}"


@dataclass(frozen=True)
class State:
    seats: tuple[str, ...]
    options: dict[str, Any]
    pile: int
    round: int = 1
    taken: dict[str, int] = field(default_factory=dict)
    """Stones each seat holds."""
    sealed: dict[str, int] = field(default_factory=dict)
    """This round's submissions, secret until the last one is in."""

    @property
    def over(self) -> bool:
        return self.pile == 0


def new(seats: list[str], options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    if not MIN_SEATS <= len(seats) <= MAX_SEATS or len(set(seats)) != len(seats) \
            or any(s not in COLOURS for s in seats):
        raise ValueError(f"nim is for {MIN_SEATS} seats of {COLOURS}")
    values = Options.build(OPTIONS, options).values
    return State(tuple(seats), values, values["stones"], taken={s: 0 for s in seats})


def pending(state: State) -> Pending:
    if state.over:
        return Pending((), "over")
    return Pending(tuple(s for s in state.seats if s not in state.sealed), "take")


def legal(state: State, seat: str) -> list[Take]:
    if seat not in pending(state).seats:
        return []
    return [Take(n) for n in range(1, MOST + 1)]


def parse(text: str) -> Take:
    words = [w.lower() for w in split_words(text)]
    if len(words) != 2 or words[0] != "take" or not words[1].isdecimal():
        raise IllegalAction("syntax")
    return Take(int(words[1]))


def canonical(state: State, actor: str, action: Take) -> Take:
    return action


def chance(state: State, rng: random.Random) -> Any:
    raise ValueError("nim has no chance actions")


def apply(state: State, actor: str, action: Take) -> tuple[State, list[Event]]:
    if state.over:
        raise IllegalAction("game_over")
    if actor not in pending(state).seats:
        raise IllegalAction("not_pending", colour=actor)
    if not 1 <= action.count <= MOST:
        raise IllegalAction("take_range", most=MOST)
    sealed = {**state.sealed, actor: action.count}
    events: list[Event] = [{"kind": "handed_in", "seat": actor, SEALED: actor}]
    if len(sealed) < len(state.seats):
        return replace(state, sealed=sealed), events
    pile, taken = state.pile, dict(state.taken)
    events.append({"kind": "revealed", "takes": dict(sealed), REVEALS: True})
    for seat in state.seats:
        got = min(sealed[seat], pile)
        pile -= got
        taken[seat] += got
        events.append({"kind": "took", "seat": seat, "count": got, "left": pile})
    after = replace(state, pile=pile, taken=taken, sealed={},
                    round=state.round + (0 if pile == 0 else 1))
    if after.over:
        events.append({"kind": "game_over"})
    return after, events


def winners(state: State) -> list[str]:
    if not state.over:
        return []
    best = max(state.taken.values())
    return [s for s in state.seats if state.taken[s] == best]


def result(state: State) -> Result | None:
    if not state.over:
        return None
    return Result(dict(state.taken), winners(state), "empty")


def view(state: State, seat: str | None = None) -> JSON:
    """Everything is public but this round's takes: a seat sees its own, others only that it
    is in."""
    return {
        "game": NAME,
        "round": state.round,
        "phase": "over" if state.over else "take",
        "pending": list(pending(state).seats),
        "finished": state.over,
        "scores": dict(state.taken),
        "winners": winners(state),
        "seats": list(state.seats),
        "pile": state.pile,
        "submitted": [s for s in state.seats if s in state.sealed],
        "mine": state.sealed.get(seat) if seat is not None else None,
    }


def to_json(state: State) -> JSON:
    return {"schema": SCHEMA, "seats": list(state.seats), "options": dict(state.options),
            "pile": state.pile, "round": state.round, "taken": dict(state.taken),
            "sealed": dict(state.sealed)}


def from_json(data: JSON) -> State:
    if data.get("schema") != SCHEMA:
        raise ValueError(f"nim state schema {data.get('schema')!r}")
    return State(tuple(data["seats"]), Options.build(OPTIONS, data["options"]).values,
                 data["pile"], data["round"], dict(data["taken"]), dict(data["sealed"]))


def options_of(state: State) -> Options:
    return Options.build(OPTIONS, state.options)


def seats_of(state: State) -> tuple[str, ...]:
    return state.seats


def greedy(view: JSON, seat: str, actions: list[Take], rng: random.Random) -> Take:
    """Take as much as the rules allow."""
    return max(actions, key=lambda a: a.count)
