"""A greedy Make Make player: tries each sensible action on the board it sees and keeps the best.

Make Make has no secrets, so the view holds the whole position and can be played forward.
"""

from __future__ import annotations

import random

from rules.core import JSON
from rules.makemake.actions import Action, Place
from rules.makemake.board import SITE_TERRITORIES, SITES
from rules.makemake.engine import (
    SCHEMA,
    State,
    apply,
    controls,
    from_json,
    held,
    manu_on_board,
    sacred_count,
)


def greedy(view: JSON, seat: str, actions: list[Action], rng: random.Random) -> Action:
    active = view["seats"].index(view["active"])
    state = from_json({**view, "schema": SCHEMA, "active_index": active, "positions": {}})
    best: list[Action] = []
    best_score = float("-inf")
    for action in _candidates(actions):
        after, _ = apply(state, seat, action)
        score = evaluate(after, seat)
        if score > best_score:
            best, best_score = [action], score
        elif score == best_score:
            best.append(action)
    return rng.choice(best)


def _candidates(actions: list[Action]) -> list[Action]:
    """Of several places on one hex with or without the chief, only the cheapest matters."""
    seen: set[tuple[str, bool]] = set()
    kept: list[Action] = []
    for action in actions:  # legal() lists places by hex, then ascending count
        if isinstance(action, Place):
            key = (action.hex, action.chief)
            if key in seen:
                continue
            seen.add(key)
        kept.append(action)
    return kept


def evaluate(state: State, seat: str) -> float:
    if state.phase == "over":
        return 1e6 if seat in state.winners else -1e6
    return _strength(state, seat) - 0.8 * max(
        _strength(state, other) for other in state.seats if other != seat)


def _strength(state: State, seat: str) -> float:
    near_sites = sum(
        1 for site in SITES if state.sites[site] is None
        and sum(controls(state, seat, t) for t in SITE_TERRITORIES[site]) == 2)
    reserve = state.reserves[seat]
    return (100 * manu_on_board(state, seat) + 120 * (state.makemake == seat)
            + 15 * sacred_count(state, seat) + 4 * len(held(state, seat)) + 3 * near_sites
            + 0.5 * reserve.tokens)
