"""A greedy Make Make player: tries each sensible action on the board it sees and keeps the best.

Make Make has no secrets, so the view holds the whole position and can be played forward.
"""

from __future__ import annotations

import random

from rules.core import JSON
from rules.makemake.actions import Action, Place
from rules.makemake.board import SACRED, SITE_TERRITORIES, SITES, TERRITORIES
from rules.makemake.engine import (
    MANU_PER_SEAT,
    SCHEMA,
    State,
    apply,
    from_json,
)


def greedy(view: JSON, seat: str, actions: list[Action], rng: random.Random) -> Action:
    return best(from_view(view), seat, actions, rng)


def from_view(view: JSON) -> State:
    """The position a view shows, as a state (the view is the whole position, bar the history
    of positions that only the optional repetition rule reads)."""
    active = view["seats"].index(view["active"])
    return from_json({**view, "schema": SCHEMA, "active_index": active, "positions": {}})


def best(state: State, seat: str, actions: list[Action], rng: random.Random) -> Action:
    """The greedy choice in ``state``: the action whose outcome :func:`evaluate` likes most
    (ties broken by ``rng``)."""
    top: list[Action] = []
    top_score = float("-inf")
    for action in sensible(actions):
        after, _ = apply(state, seat, action)
        score = evaluate(after, seat)
        if score > top_score:
            top, top_score = [action], score
        elif score == top_score:
            top.append(action)
    return rng.choice(top)


def sensible(actions: list[Action]) -> list[Action]:
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
    of = strengths(state)
    return of[seat] - 0.8 * max(v for other, v in of.items() if other != seat)


_SITES_BY_TERRITORY: dict[str, tuple[str, ...]] = {
    t: tuple(site for site in SITES for u in SITE_TERRITORIES[site] if u == t)
    for t in TERRITORIES}
"""The sites around each territory (a site as often as it lists the territory)."""


def strengths(state: State) -> dict[str, float]:
    """:func:`strength` of every seat, from one pass over the board (the greedy seat asks for
    all of them after every move it tries)."""
    seats = state.seats
    around: dict[str, dict[str, int]] = {p: {} for p in seats}
    territories = dict.fromkeys(seats, 0)
    sacred = dict.fromkeys(seats, 0)
    board = state.board
    for t in TERRITORIES:
        cell = board[t]
        if cell.moai:
            owners: tuple[str, ...] = seats
        elif cell.owner is not None:
            owners = (cell.owner,)
            territories[cell.owner] += 1
        else:
            continue
        for p in owners:
            if t in SACRED:
                sacred[p] += 1
            near = around[p]
            for site in _SITES_BY_TERRITORY[t]:
                near[site] = near.get(site, 0) + 1
    sites = state.sites
    out: dict[str, float] = {}
    for p in seats:
        near_sites = sum(1 for site, count in around[p].items()
                         if count == 2 and sites[site] is None)
        reserve = state.reserves[p]
        out[p] = (100 * (MANU_PER_SEAT - reserve.manu) + 120 * (state.makemake == p)
                  + 15 * sacred[p] + 4 * territories[p] + 3 * near_sites + 0.5 * reserve.tokens)
    return out


def strength(state: State, seat: str) -> float:
    """One seat's measure of a position: 100 a Tangata Manu on the board, 120 for being Make
    Make, 15 a sacred territory and 4 any territory it controls, 3 a free site with exactly two
    of its territories controlled, half a point a token in reserve (see :func:`strengths`)."""
    return strengths(state)[seat]
