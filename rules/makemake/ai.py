"""A greedy Make Make player: tries each sensible action on the board it sees and keeps the best.

Make Make has no secrets, so the view holds the whole position and can be played forward.
"""

from __future__ import annotations

import random

from rules.core import JSON
from rules.makemake.actions import Action, Place
from rules.makemake.board import SITE_TERRITORIES, SITES, TERRITORIES
from rules.makemake.engine import (
    SCHEMA,
    State,
    apply,
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


_SITES_BY_TERRITORY: dict[str, tuple[str, ...]] = {
    t: tuple(site for site in SITES for u in SITE_TERRITORIES[site] if u == t)
    for t in TERRITORIES}
"""The sites around each territory (a site as often as it lists the territory)."""


def _strength(state: State, seat: str) -> float:
    # sites with exactly two of their territories controlled by the seat, counted from the
    # territories it controls (this runs for every seat after every candidate action: looking
    # at every site's territories in turn was most of the AI's time)
    around: dict[str, int] = {}
    board = state.board
    for t in TERRITORIES:
        cell = board[t]
        if cell.moai or cell.owner == seat:  # controls(state, seat, t), inlined
            for site in _SITES_BY_TERRITORY[t]:
                around[site] = around.get(site, 0) + 1
    near_sites = sum(1 for site, count in around.items()
                     if count == 2 and state.sites[site] is None)
    reserve = state.reserves[seat]
    return (100 * manu_on_board(state, seat) + 120 * (state.makemake == seat)
            + 15 * sacred_count(state, seat) + 4 * len(held(state, seat)) + 3 * near_sites
            + 0.5 * reserve.tokens)
