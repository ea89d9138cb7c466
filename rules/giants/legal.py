"""The legal actions of a pending seat, in the order of spec 9.4.

Finite choices are listed completely; a move lists one shortest path for every hex an item can
end on, each with its legal endings. Candidates that need a detailed check are run through the
same check functions ``apply`` uses, so the list and the rules cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from rules.core import IllegalAction
from rules.giants.actions import (
    Action,
    Bid,
    Done,
    EndRound,
    Mark,
    Move,
    Pass,
    Peek,
    Place,
    Rongo,
    Special,
    Take,
    item_key,
)
from rules.giants.auction import allowed
from rules.giants.board import AHU_HEXES, AHUS, AHUS_AT, FOREST, HEXES, NEIGHBOURS
from rules.giants.carry import strength
from rules.giants.engine import pending
from rules.giants.placement import check_figure, check_special
from rules.giants.roundend import check_endround
from rules.giants.state import State
from rules.giants.transport import (
    check_mark,
    check_movable,
    check_move,
    check_peek,
    is_loose,
    requirement,
    start_hex,
)


def legal(state: State, seat: str) -> list[Action]:
    if seat not in pending(state).seats or seat not in state.seats:
        return []
    return {"bid": _bids, "choose": _choices, "place": _placements, "transport": _transport,
            "endround": _endround}[state.phase](state, seat)


def _bids(s: State, seat: str) -> list[Action]:
    screen = s.players[seat]["screen"]
    return [Bid(k, w, chief, sorcerer)
            for k in range(screen["markers"] + 1)
            for w in range(screen["workers"] + 1)
            for chief in ((False, True) if screen["chief"] else (False,))
            for sorcerer in ((False, True) if screen["sorcerer"] else (False,))]


def _choices(s: State, seat: str) -> list[Action]:
    sizes = sorted(z for z in set(s.offer) if allowed(s, seat, z))
    return [*(Take(z) for z in sizes), Done()]


def _ok(check: Callable[..., object], *args: object) -> bool:
    try:
        check(*args)
    except IllegalAction:
        return False
    return True


def _placements(s: State, seat: str) -> list[Action]:
    player = s.players[seat]
    screen = player["screen"]
    out: list[Action] = []
    top = min(2, screen["logs"])
    for figure in ("worker", "sorcerer", "chief"):
        if not (screen["workers"] if figure == "worker" else screen[figure]):
            continue
        counts = range(1) if figure == "chief" else range(top + 1)
        out += [Place(figure, h, n) for h in HEXES for n in counts]
    for figure in ("sorcerer", "chief"):
        counts = range(1) if figure == "chief" else range(top + 1)
        candidates: list[Special] = []
        for n in counts:
            if not _ok(check_figure, s, seat, figure, n):
                continue  # not behind the screen (or too few logs): no action of it is legal
            candidates += [Special(figure, a, logs=n) for a in ("recruit", "marker", "headdress")]
            candidates += [Special(figure, "logs", hex=h, logs=n) for h in FOREST]
            candidates += [Special(figure, "reserve", hex=h, ahu=a, logs=n)
                           for a in AHUS for h in AHU_HEXES[a]]
        out += [c for c in candidates if _ok(check_special, s, seat, c)]
    if screen["markers"] and s.supply["rongo"]:
        out.append(Rongo())
    out.append(Pass())
    return out


def _transport(s: State, seat: str) -> list[Action]:
    out: list[Action] = []
    for label in sorted(s.items, key=item_key):
        item = s.items[label]
        if not _ok(check_movable, s, seat, label):
            continue  # nor can it be marked: delivered, not ours, or a fresh headdress
        paths = shortest_paths(s, start_hex(item), requirement(item))
        for end in HEXES:
            if end in paths:
                out += _endings(s, seat, label, paths[end], end, claim=item["abandoned"])
        out += [m for m in _deliveries(label, (), start_hex(item)) if _ok(check_move, s, seat, m)]
        if _ok(check_mark, s, seat, Mark(label)):
            out.append(Mark(label))
    out += [Peek(a) for a in AHUS if _ok(check_peek, s, seat, Peek(a))]
    out.append(Pass())
    return out


def shortest_paths(s: State, start: str, q: int) -> dict[str, tuple[str, ...]]:
    """One shortest path to every hex an item of requirement ``q`` can reach from ``start``."""
    paths: dict[str, tuple[str, ...]] = {start: ()}
    frontier = [start]
    while frontier:
        nxt: list[str] = []
        for h in frontier:
            for n in NEIGHBOURS[h]:
                if n not in paths and strength(s.hexes.get(n)) >= q:
                    paths[n] = (*paths[h], n)
                    nxt.append(n)
        frontier = nxt
    del paths[start]
    return paths


def _deliveries(label: str, path: tuple[str, ...], end: str) -> list[Move]:
    return [Move(label, path, verb, a) for a in AHUS_AT.get(end, ()) for verb in ("erect", "crown")]


def _endings(s: State, seat: str, label: str, path: tuple[str, ...], end: str,
             claim: bool) -> list[Action]:
    candidates = [Move(label, path, mark=True), *_deliveries(label, path, end)]
    if not claim:
        candidates.insert(0, Move(label, path))
    return [m for m in candidates if _ok(check_move, s, seat, m)]


def _endround(s: State, seat: str) -> list[Action]:
    markable = s.quarried.get(seat, [])
    have = s.players[seat]["screen"]["markers"]
    mine = sorted((label for label, i in s.items.items() if is_loose(i) and i["marker"] == seat),
                  key=item_key)
    out: list[Action] = []
    for k in range(min(have, len(markable)) + 1):
        for marks in combinations(sorted(markable, key=item_key), k):
            for r in range(len(mine) + 1):
                for recalls in combinations(mine, r):
                    action = EndRound(marks, recalls)
                    if _ok(check_endround, s, seat, action):
                        out.append(action)
    return out
