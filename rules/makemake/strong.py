"""What the ``strong`` AI's search (:mod:`rules.ismcts`) needs to know about Make Make.

Make Make has no secrets: a view shows the whole position (only the history of positions, which
the optional repetition rule reads, is left out), so :func:`determinize` rebuilds that position
and the search is a plain Monte Carlo tree search over it. What makes it stronger than the greedy
seat is that it looks past its own move: the tree answers "what will the others do to this?", so
it stops leaving a weak chain for the next seat to break, or a sacred hex for it to take. Each
iteration follows its move with three rounds of greedy play, which is how the greedy seats will
answer, so a few dozen iterations compare the best few moves by what they lead to.

:func:`evaluate` turns the greedy seat's measure of a position into win shares, :func:`policy`
is the greedy seat, and :func:`candidates` keeps the few moves the greedy seat likes best (a turn
offers hundreds of places, most of them the same place with more tokens).
"""

from __future__ import annotations

import math
import random
from typing import Any

from rules.core import JSON
from rules.makemake import ai
from rules.makemake.actions import Action, Place
from rules.makemake.engine import State, apply, legal

HORIZON = 9
"""Greedy steps after the tree before :func:`evaluate` looks: three rounds of three seats. The
greedy seats' answers are read off the rollout itself, and a line that long shows whether a
chain survives them and a Tangata Manu gets placed. (Measured against greedy seats, 3 seats:
win share 0.67 with 3 steps at 40 iterations, 0.83 with 9 at 17 and with 12 at 13, about the
same time a decision.)"""

TEMPERATURE = 40.0
"""Strength (a Tangata Manu on the board is 100) that makes a seat e times likelier to win."""

WIDENING = 0.5
"""Progressive widening (:mod:`rules.ismcts`): below the root a turn is searched first with
the greedy seat's favourite move, and others join slowly (the second after four visits), so a
search of a few dozen iterations reads the likely answers to a move a few turns deep."""

WIDTH = 8
"""How many of the greedy seat's favourite moves a turn searches."""

GUARDED = 3
"""Of the favourite places, how many are also searched with two tokens more, so that they are
harder to take back: a defence the greedy seat never values, since it only counts tokens kept."""

_MEMO_SIZE = 100_000
_memo: dict[tuple[Any, ...], list[Action]] = {}


def determinize(view: JSON, seat: str, rng: random.Random) -> State:
    """The position the view shows (there is nothing the seat cannot see)."""
    return ai.from_view(view)


def evaluate(state: State) -> dict[str, float]:
    """Win shares from the greedy seat's strength by a softmax (see :data:`TEMPERATURE`)."""
    strengths = ai.strengths(state)
    top = max(strengths.values())
    weights = {p: math.exp((v - top) / TEMPERATURE) for p, v in strengths.items()}
    total = sum(weights.values())
    return {p: w / total for p, w in weights.items()}


def policy(state: State, seat: str, rng: random.Random) -> Action:
    """The greedy seat's move."""
    return ai.best(state, seat, legal(state, seat), rng)


def candidates(state: State, seat: str, actions: list[Action]) -> list[Action]:
    """The :data:`WIDTH` moves the greedy seat scores highest, best first, and the best
    :data:`GUARDED` places again with two more tokens where the reserve allows.

    The same position comes up in many iterations, and scoring every move is most of the cost
    of a node, so the answer is remembered by position."""
    key = (seat, state.phase, state.choice, tuple(state.board.values()),
           tuple(state.sites.values()), state.makemake, tuple(state.options.values()))
    kept = _memo.get(key)
    if kept is None:
        kept = _rank(state, seat, actions)
        if len(_memo) >= _MEMO_SIZE:
            _memo.clear()
        _memo[key] = kept
    return kept


def _rank(state: State, seat: str, actions: list[Action]) -> list[Action]:
    scored = sorted(((ai.evaluate(apply(state, seat, a)[0], seat), i, a)
                     for i, a in enumerate(ai.sensible(actions))), key=lambda t: (-t[0], t[1]))
    kept = [a for _, _, a in scored[:WIDTH]]
    offered = set(actions)
    guarded = [Place(a.hex, a.count + 2, a.chief) for a in kept[:GUARDED]
               if isinstance(a, Place)]
    return kept + [a for a in guarded if a in offered]


__all__ = ["HORIZON", "candidates", "determinize", "evaluate", "policy"]
