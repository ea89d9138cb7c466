"""Carrying strength and the engine's choice of helpers on one hex (spec section 5.4).

The published rule lets the mover pick helpers; the engine picks them so that a move is one
line and replays the same way. The procedure below is the spec's, which yields the set that
gives the least prestige to others, then uses the fewest other figures, then follows the
preference order.
"""

from __future__ import annotations

from typing import Any

from rules.giants.state import STRENGTH

Figure = list[str]
"""``[colour, type]``: how a figure is kept on a hex."""


def strength(spot: dict[str, Any] | None) -> int:
    """What a hex can carry: figures plus logs, nothing without a figure."""
    if not spot or not spot["figures"]:
        return 0
    return sum(STRENGTH[t] for _, t in spot["figures"]) + spot["logs"]


def preference(seats: list[str], mover: str, favour: str | None) -> list[str]:
    """The favoured colour first, then the others in seat order from the mover's left."""
    i = seats.index(mover)
    others = [seats[(i + k) % len(seats)] for k in range(1, len(seats))]
    if favour in others:
        others.remove(favour)
        others.insert(0, favour)
    return others


def helpers(spot: dict[str, Any], mover: str, q: int, prefs: list[str]) -> list[tuple[str, str]]:
    """The other players' figures a move of requirement ``q`` uses on this hex.

    The hex must be able to carry the item (checked before).
    """
    figures = spot["figures"]
    logs = spot["logs"]
    own = sum(STRENGTH[t] for c, t in figures if c == mover)
    has_own = any(c == mover for c, _ in figures)
    workers = [(c, t) for p in prefs for c, t in figures if c == p and t != "chief"]
    chiefs = [(c, t) for p in prefs for c, t in figures if c == p and t == "chief"]
    if has_own:
        short = q - own - logs
        if short <= 0:
            return []
        if len(workers) >= short:
            return workers[:short]
        return chiefs[:1]
    k = max(1, q - logs)
    if k < q and len(workers) >= k:
        return workers[:k]
    if chiefs:
        if k == q == 1 and workers:
            first = next(p for p in prefs if any(c == p for c, _ in figures))
            return [next((c, t) for c, t in figures if c == first)]
        return chiefs[:1]
    return workers[:k]


def prestige_of(used: list[tuple[str, str]], q: int) -> dict[str, int]:
    """Worker or sorcerer +1, chief +q, per figure used."""
    points: dict[str, int] = {}
    for colour, kind in used:
        points[colour] = points.get(colour, 0) + (q if kind == "chief" else 1)
    return points
