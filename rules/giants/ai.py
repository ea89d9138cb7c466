"""A greedy Giants player that works from its own view only.

It plans "projects" (an item it may move, headed for the best free ahu it can reach soon),
places figures on the first hexes of each project's path that cannot carry the item yet, then
in phase 4 makes the move that delivers the most points or brings an item closest to its
target (marking it so that it stays its own). Spare markers become rongo halves.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from functools import cache
from typing import Any

from rules.core import JSON
from rules.giants.actions import (
    Action,
    Bid,
    Done,
    EndRound,
    Mark,
    Move,
    Pass,
    Place,
    Rongo,
    Special,
    Take,
)
from rules.giants.board import (
    AHU_HEXES,
    AHUS,
    BLACK,
    FOREST,
    FOREST_LOGS,
    HEADDRESS_QUARRY,
    MOAI_QUARRY,
    NEIGHBOURS,
    RED,
    distances,
)
from rules.giants.carry import helpers, preference, prestige_of

STRENGTH = {"worker": 1, "sorcerer": 1, "chief": 3}


def greedy(view: JSON, seat: str, actions: list[Action], rng: random.Random) -> Action:
    phase = view["phase"]
    if phase == "bid":
        choice: Action | None = _bid(view, seat)
    elif phase == "choose":
        takes = [a for a in actions if isinstance(a, Take)]
        choice = max(takes, key=lambda a: a.size) if takes else Done()
    elif phase == "place":
        choice = _place(view, seat, actions)
    elif phase == "transport":
        choice = _transport(view, seat, actions)
    else:
        choice = _endround(view, actions)
    return choice if choice in actions else rng.choice(actions)


# --- board knowledge ---------------------------------------------------------------------------

@cache
def _dist(start: str) -> dict[str, int]:
    return distances(start)


def _ahu_dist(pos: str, ahu: str) -> int:
    d = _dist(pos)
    return min(d.get(h, 99) for h in AHU_HEXES[ahu])


def _spots(view: JSON) -> dict[str, dict[str, Any]]:
    """View hexes in the engine's form, so the carrying rules can be reused."""
    return {h: {"figures": [[f["colour"], f["type"]] for f in spot["figures"]],
                "logs": spot["logs"]} for h, spot in view["hexes"].items()}


def _strength(spot: dict[str, Any] | None) -> int:
    if not spot or not spot["figures"]:
        return 0
    return sum(STRENGTH[t] for _, t in spot["figures"]) + spot["logs"]


def _position(item: dict[str, Any]) -> str:
    if item["at"].startswith("front:"):
        return MOAI_QUARRY if item["kind"] == "moai" else HEADDRESS_QUARRY
    return item["at"]


def _need(item: dict[str, Any]) -> int:
    return item["size"] if item["kind"] == "moai" else 1


def _mine(view: JSON, seat: str, claims: bool) -> list[tuple[str, dict[str, Any]]]:
    """Undelivered items the seat may move now or next phase 4."""
    out = []
    for label, item in view["items"].items():
        if item["at"].startswith("ahu:"):
            continue
        own = item["at"] == f"front:{seat}" or item["marker"] == seat
        free = item["marker"] is None and not item["at"].startswith("front:")
        if own or (claims and free):
            out.append((label, item))
    return out


def _targets(view: JSON, seat: str, item: dict[str, Any]) -> list[str]:
    screen = view.get("screen", {})
    if item["kind"] == "moai":
        return [a for a in AHUS if view["ahus"][a]["moai"] is None and (
            view["ahus"][a]["reserved"] == seat
            or (view["ahus"][a]["reserved"] is None and screen.get("bases", 0) > 0))]
    return [a for a in AHUS if view["ahus"][a]["owner"] == seat
            and view["ahus"][a]["headdress"] is None]


def _capacity(view: JSON, seat: str, q: int) -> int:
    """About how many hexes of a path of requirement ``q`` the seat can cover in one round."""
    screen = view.get("screen", {})
    small = screen.get("workers", 0) + (1 if screen.get("sorcerer") else 0)
    logs = screen.get("logs", 0)
    cap = 1 if screen.get("chief") else 0
    if q == 1:
        cap += small
    else:
        cap += min(small, logs // (q - 1))
    return max(cap, 1)


def _best_target(view: JSON, seat: str, item: dict[str, Any], taken: set[str]
                 ) -> tuple[float, str | None]:
    pos, q = _position(item), _need(item)
    cap = _capacity(view, seat, q)
    best: tuple[float, str | None] = (0.0, None)
    for ahu in _targets(view, seat, item):
        if ahu in taken:
            continue
        d = _ahu_dist(pos, ahu)
        value = BLACK[ahu] * q if item["kind"] == "moai" else RED[ahu]
        rounds = 1 + max(0, d - cap) / cap
        score = value / rounds - 0.05 * d
        if score > best[0]:
            best = (score, ahu)
    return best


def _path(spots: dict[str, dict[str, Any]], start: str, ahu: str, q: int) -> list[str]:
    """A cheap path to the ahu: each hex that cannot carry yet costs extra."""
    goal = set(AHU_HEXES[ahu])
    if start in goal:
        return []
    heap: list[tuple[float, str, list[str]]] = [(0.0, start, [])]
    seen = {start}
    while heap:
        cost, h, path = heapq.heappop(heap)
        if h in goal:
            return path
        for n in NEIGHBOURS[h]:
            if n in seen:
                continue
            seen.add(n)
            extra = 0.0 if _strength(spots.get(n)) >= q else 2.0
            heapq.heappush(heap, (cost + 1 + extra, n, [*path, n]))
    return []


# --- phase 2 -----------------------------------------------------------------------------------

def _bid(view: JSON, seat: str) -> Action:
    screen = view["screen"]
    held = [i for _, i in _mine(view, seat, claims=False) if i["kind"] == "moai"]
    needed = screen["bases"] + sum(1 for a in AHUS if view["ahus"][a]["reserved"] == seat)
    if not view["offer"] or needed - len(held) <= 0 or len(held) >= 2:
        return Bid(0)
    t = max(z for z in view["offer"] if z <= (3 if screen["workers"] >= 3 else 2)) \
        if min(view["offer"]) <= 2 else min(view["offer"])
    best: tuple[float, Bid] | None = None
    urn_workers = view["urn"]["workers"]
    for w in range(screen["workers"] + 1):
        for chief in (False, True) if screen["chief"] else (False,):
            for sorc in (False, True) if screen["sorcerer"] else (False,):
                if w + sorc + 3 * chief < t:
                    continue
                loss = w * 1.0 + (1.3 if urn_workers else 0.9) * sorc + 2.6 * chief
                if best is None or loss < best[0]:
                    best = (loss, Bid(0, w, chief, sorc))
    if best is None:
        return Bid(0)
    markers = min(screen["markers"], 2 if screen["markers"] >= 3 else 1)
    b = best[1]
    return Bid(markers, b.workers, b.chief, b.sorcerer)


# --- phase 3 -----------------------------------------------------------------------------------

def _place(view: JSON, seat: str, actions: list[Action]) -> Action | None:
    screen = view["screen"]
    legal = set(actions)
    uncrowned = [a for a in AHUS if view["ahus"][a]["owner"] == seat
                 and view["ahus"][a]["headdress"] is None]
    hats = [i for _, i in _mine(view, seat, claims=False) if i["kind"] == "headdress"]
    if screen["sorcerer"]:
        for wish, ok in ((Special("sorcerer", "recruit"),
                          view["urn"]["workers"] > 0 and screen["workers"] < 4),
                         (Special("sorcerer", "headdress"), bool(uncrowned) and not hats),
                         (_harvest(view), screen["logs"] < 2)):
            if ok and wish in legal:
                return wish
    placement = _next_placement(view, seat)
    if placement is not None and placement in legal:
        return placement
    keep = 1 if _mine(view, seat, claims=False) else 0
    if screen["markers"] > keep and Rongo() in legal:
        return Rongo()
    return Pass()


def _harvest(view: JSON) -> Special | None:
    left = [h for h in FOREST if not view["forest"][h]["harvested"]]
    if not left:
        return None
    return Special("sorcerer", "logs", hex=max(left, key=lambda h: FOREST_LOGS[h]))


def _next_placement(view: JSON, seat: str) -> Place | None:
    """The first hex of the best projects' paths that cannot carry its item yet."""
    spots = _spots(view)
    projects = []
    taken: set[str] = set()
    for claims in (False, True):
        for _, item in _mine(view, seat, claims):
            if claims and (item["at"] == f"front:{seat}" or item["marker"] == seat):
                continue
            score, ahu = _best_target(view, seat, item, taken)
            if ahu is not None:
                projects.append((score * (0.6 if claims else 1.0), item, ahu))
                taken.add(ahu)
    projects.sort(key=lambda p: -p[0])
    for _, item, ahu in projects[:3]:
        q = _need(item)
        path = _path(spots, _position(item), ahu, q)
        for i, h in enumerate(path):
            spot = spots.get(h)
            have = _strength(spot)
            last = i == len(path) - 1
            own = spot is not None and any(c == seat for c, _ in spot["figures"])
            if have >= q and (own or not last):
                continue
            figure = _figure_for(view, q - have if have else q, spot)
            if figure is None:
                return None
            return figure(h)
    return None


def _figure_for(view: JSON, deficit: int, spot: dict[str, Any] | None
                ) -> Callable[[str], Place] | None:
    """The cheapest figure (with logs) that makes the hex carry; else any figure at all."""
    screen = view["screen"]
    logs_there = spot["logs"] if spot and not spot["figures"] else 0
    short = max(0, deficit - logs_there)
    for figure in ("worker", "sorcerer"):
        has = screen["workers"] > 0 if figure == "worker" else screen["sorcerer"]
        if has and 1 + min(2, screen["logs"]) >= short:
            n = min(2, screen["logs"], max(0, short - 1))
            return lambda h, f=figure, n=n: Place(f, h, n)
    if screen["chief"]:
        return lambda h: Place("chief", h)
    for figure in ("worker", "sorcerer"):
        has = screen["workers"] > 0 if figure == "worker" else screen["sorcerer"]
        if has:
            n = min(2, screen["logs"])
            return lambda h, f=figure, n=n: Place(f, h, n)
    return None


# --- phase 4 -----------------------------------------------------------------------------------

def _transport(view: JSON, seat: str, actions: list[Action]) -> Action:
    spots = _spots(view)
    best: tuple[float, Action] = (0.0, Pass())
    targets: dict[str, str | None] = {}
    markers = view["screen"]["markers"]
    for action in actions:
        score = 0.0
        if isinstance(action, Move):
            item = view["items"][action.item]
            if action.item not in targets:
                targets[action.item] = _best_target(view, seat, item, set())[1]
            score = _move_score(view, seat, spots, action, item, targets[action.item])
        elif isinstance(action, Mark):
            item = view["items"][action.item]
            if item["kind"] == "moai" and markers > 0:
                score = 1.0 + item["size"]
        if score > best[0]:
            best = (score, action)
    return best[1]


def _move_score(view: JSON, seat: str, spots: dict[str, Any], mv: Move,
                item: dict[str, Any], target: str | None) -> float:
    q = _need(item)
    prefs = preference(view["seats"], seat, None)
    cost = sum(sum(prestige_of(helpers(spots[h], seat, q, prefs), q).values())
               for h in mv.path)
    if mv.deliver == "erect":
        assert mv.ahu is not None
        return 100 + 10 * BLACK[mv.ahu] * q - cost
    if mv.deliver == "crown":
        assert mv.ahu is not None
        return 100 + 10 * RED[mv.ahu] - cost if view["ahus"][mv.ahu]["owner"] == seat else -1
    if target is None:
        return -1
    before = _ahu_dist(_position(item), target)
    after = _ahu_dist(mv.path[-1], target)
    progress = before - after
    if progress <= 0:
        return -1
    return 5.0 * progress - 0.5 * cost + (2.0 if mv.mark else 0.0)


# --- end of round ------------------------------------------------------------------------------

def _endround(view: JSON, actions: list[Action]) -> Action | None:
    answers = [a for a in actions if isinstance(a, EndRound) and not a.recall]
    if not answers:
        return None

    def worth(a: EndRound) -> int:
        return sum(view["items"][i]["size"] if view["items"][i]["kind"] == "moai" else 1
                   for i in a.mark)
    return max(answers, key=worth)
