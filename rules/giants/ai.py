"""A greedy Giants player that works from its own view only.

It plans "projects" (an item it may move, headed for the best free ahu it can reach soon),
places figures on the first hexes of each project's path that cannot carry the item yet, then
in phase 4 makes the move that delivers the most points or brings an item closest to its
target (marking it so that it stays its own). Spare markers become rongo halves.

Headdresses score an ahu's red value for the owner of the moai they crown, so the sorcerer
fetches one for each of its bare (or soon erected) moai, and stays out of the auction while one
is wanted. A headdress carved this round cannot move before the next round: it waits in front
of the screen and goes onto the headdress quarry at the end of the round. So it is fetched a
round ahead, when a marker can keep it ours there (the seat keeps one for it rather than trading
it for rongo, and marks it at the end of the round) or when next round's chains can reach its
moai; from the next round on it travels as a project like any moai.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager
from functools import cache, lru_cache
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
    HEXES,
    MOAI_QUARRY,
    NEIGHBOURS,
    RED,
    distances,
)
from rules.giants.carry import helpers, preference, prestige_of

STRENGTH = {"worker": 1, "sorcerer": 1, "chief": 3}
FEW_WORKERS = 3
"""Owning fewer workers than this, recruiting beats every other sorcerer action."""
HAT_BID = 0.5
"""How much of a wanted headdress's red value keeps the sorcerer out of the auction."""
ALL_WORKERS = 6
"""Workers of one colour: those not in the urn are ours."""


def greedy(view: JSON, seat: str, actions: Sequence[Action], rng: random.Random) -> Action:
    """The greedy move among ``actions`` (a list, or any sequence that answers ``in`` as the
    list of legal actions would)."""
    with memo(view):
        return _greedy(view, seat, actions, rng)


def _greedy(view: JSON, seat: str, actions: Sequence[Action], rng: random.Random) -> Action:
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
        choice = _endround(view, seat, actions)
    if choice is not None and choice in actions:
        return choice
    return rng.choice(actions)


# --- memo -----------------------------------------------------------------------------------------

_active: tuple[JSON | None, dict[tuple[Any, ...], Any]] = (None, {})
"""The open memo: its view and what was worked out from it (one pair, read at once, so that
a memo opened elsewhere meanwhile is never mistaken for this one)."""


@contextmanager
def memo(view: JSON) -> Iterator[None]:
    """Within this block, what the helpers below work out from ``view`` is worked out once.

    A decision asks the same questions many times (every move and every headdress asks for the
    best targets of the same items), and the view does not change while it is being decided.
    The memo is tied to this view object alone, and the view must not be changed inside."""
    global _active
    saved = _active
    _active = (view, {})
    try:
        yield
    finally:
        _active = saved


def _memoised(view: JSON, key: tuple[Any, ...], work: Callable[[], Any]) -> Any:
    """``work()``, remembered under ``key`` while a memo of ``view`` is open."""
    opened, known = _active
    if view is not opened:
        return work()
    try:
        return known[key]
    except KeyError:
        value = known[key] = work()
        return value


# --- board knowledge ---------------------------------------------------------------------------

@cache
def _dist(start: str) -> dict[str, int]:
    return distances(start)


_AHU_DIST: dict[str, dict[str, int]] = {
    pos: {ahu: min(_dist(pos).get(h, 99) for h in AHU_HEXES[ahu]) for ahu in AHUS}
    for pos in HEXES}
"""Steps from every hex to the nearest hex of every ahu (99 when none can be reached)."""


def _ahu_dist(pos: str, ahu: str) -> int:
    row = _AHU_DIST.get(pos)
    if row is None:
        return min(_dist(pos).get(h, 99) for h in AHU_HEXES[ahu])
    return row[ahu]


def _spots(view: JSON) -> dict[str, dict[str, Any]]:
    """View hexes in the engine's form, so the carrying rules can be reused (callers only
    read them: under a memo they are shared)."""
    return _memoised(view, ("spots",), lambda: {
        h: {"figures": [[f["colour"], f["type"]] for f in spot["figures"]],
            "logs": spot["logs"]} for h, spot in view["hexes"].items()})


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


def _fresh(item: dict[str, Any]) -> bool:
    """A headdress carved this round: it cannot move before the next round."""
    return item["kind"] == "headdress" and item["at"].startswith("front:")


def _fresh_hats(view: JSON, seat: str) -> list[str]:
    """Our headdresses carved this round, each wanting a marker at the end of the round."""
    return sorted(label for label, item in view["items"].items()
                  if item["at"] == f"front:{seat}" and _fresh(item))


def _mine(view: JSON, seat: str, claims: bool) -> list[tuple[str, dict[str, Any]]]:
    """Undelivered items the seat may move now or next phase 4."""
    return _memoised(view, ("mine", seat, claims), lambda: _find_mine(view, seat, claims))


def _find_mine(view: JSON, seat: str, claims: bool) -> list[tuple[str, dict[str, Any]]]:
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
    return _memoised(view, ("targets", seat, item["kind"]),
                     lambda: _find_targets(view, seat, item))


def _find_targets(view: JSON, seat: str, item: dict[str, Any]) -> list[str]:
    screen = view.get("screen", {})
    if item["kind"] == "moai":
        return [a for a in AHUS if view["ahus"][a]["moai"] is None and (
            view["ahus"][a]["reserved"] == seat
            or (view["ahus"][a]["reserved"] is None and screen.get("bases", 0) > 0))]
    return _crownable(view, seat) + [a for a in _planned(view, seat)
                                     if view["ahus"][a]["moai"] is None]


def _crownable(view: JSON, seat: str) -> list[str]:
    """Own erected moai without a headdress: a headdress there scores its red value for us."""
    return [a for a in AHUS if view["ahus"][a]["owner"] == seat
            and view["ahus"][a]["headdress"] is None]


def _planned(view: JSON, seat: str) -> list[str]:
    """Ahus our own moai are headed for, so that a headdress may set out before its moai stands."""
    return _memoised(view, ("planned", seat), lambda: _find_planned(view, seat))


def _find_planned(view: JSON, seat: str) -> list[str]:
    taken: set[str] = set()
    for _, item in _mine(view, seat, claims=False):
        if item["kind"] == "moai":
            ahu = _best_target(view, seat, item, taken)[1]
            if ahu is not None:
                taken.add(ahu)
    return sorted(taken)


def _hat_wanted(view: JSON, seat: str) -> int:
    """The red value a new headdress would earn us, or 0 when none is worth fetching.

    The headdresses we hold or could claim (free ones lying loose) are given their ahus
    first; a new one would go to the best of the rest, weighing red value against the haul.
    A new headdress waits at the quarry until the next round, so it is worth fetching only if
    a marker (one behind the screen not kept for another new headdress) can keep it ours
    there, or else for a moai that next round's chains can reach in one move: one left
    unmarked at the quarry is anybody's, which mostly helps the others.
    """
    return _memoised(view, ("hat", seat), lambda: _find_hat_wanted(view, seat))


def _find_hat_wanted(view: JSON, seat: str) -> int:
    if not view["supply"]["headdresses"]:
        return 0
    taken: set[str] = set()
    for _, item in _mine(view, seat, claims=True):
        if item["kind"] == "headdress":
            ahu = _best_target(view, seat, item, taken)[1]
            if ahu is not None:
                taken.add(ahu)
    new = {"kind": "headdress", "at": f"front:{seat}"}
    marked = view["screen"]["markers"] > len(_fresh_hats(view, seat))
    ahu = _best_target(view, seat, new, taken, None if marked else _next_reach(view))[1]
    return 0 if ahu is None else RED[ahu]


def _next_reach(view: JSON) -> int:
    """About how many hexes of a headdress's path our figures cover next round: every worker
    we own and the chief (the sorcerer is usually busy with an action)."""
    return ALL_WORKERS - view["urn"]["workers"] + 1


def _capacity(view: JSON, seat: str, q: int) -> int:
    """About how many hexes of a path of requirement ``q`` the seat can cover in one round.

    Figures already placed this round count too, so that a project's target stays put while
    its chain is being laid instead of drifting as the screen empties.
    """
    return _memoised(view, ("capacity", seat, q), lambda: _find_capacity(view, seat, q))


def _find_capacity(view: JSON, seat: str, q: int) -> int:
    screen = view.get("screen", {})
    small = screen.get("workers", 0) + (1 if screen.get("sorcerer") else 0)
    logs = screen.get("logs", 0)
    chief = bool(screen.get("chief"))
    for spot in view["hexes"].values():
        for figure in spot["figures"]:
            if figure["colour"] == seat:
                chief = chief or figure["type"] == "chief"
                small += figure["type"] != "chief"
                logs += spot["logs"] if figure["type"] != "chief" else 0
    cap = 1 if chief else 0
    if q == 1:
        cap += small
    else:
        cap += min(small, logs // (q - 1))
    return max(cap, 1)


def _best_target(view: JSON, seat: str, item: dict[str, Any], taken: set[str],
                 reach: int | None = None) -> tuple[float, str | None]:
    """The best ahu for the item, and its score: the points it earns there per round of
    hauling (a headdress carved this round waits one round more), less a little per hex.
    With ``reach``, only ahus at most that many hexes away count."""
    for score, ahu in _ranked(view, seat, item, reach):
        if ahu not in taken:
            return score, ahu
    return 0.0, None


def _ranked(view: JSON, seat: str, item: dict[str, Any],
            reach: int | None) -> list[tuple[float, str]]:
    """The item's targets worth a positive score, best first (ties in board order): the best
    target outside any ``taken`` set is the first of them not taken, so a decision that asks
    with many sets scores the targets once."""
    key = ("ranked", seat, item["kind"], item["at"], _need(item), reach)
    return _memoised(view, key, lambda: _rank_targets(view, seat, item, reach))


def _rank_targets(view: JSON, seat: str, item: dict[str, Any],
                  reach: int | None) -> list[tuple[float, str]]:
    q = _need(item)
    return list(_score_targets(_position(item), q, item["kind"] == "moai", _fresh(item),
                               tuple(_targets(view, seat, item)), _capacity(view, seat, q),
                               reach))


@lru_cache(maxsize=1 << 16)
def _score_targets(pos: str, q: int, moai: bool, fresh: bool, targets: tuple[str, ...],
                   cap: int, reach: int | None) -> tuple[tuple[float, str], ...]:
    """``_ranked`` worked out from what it depends on alone, so that the many views of one
    position (a rollout builds one a step) score its items' targets once."""
    scored: list[tuple[float, str]] = []
    for ahu in targets:
        d = _ahu_dist(pos, ahu)
        if reach is not None and d > reach:
            continue
        value = BLACK[ahu] * q if moai else RED[ahu]
        rounds = 1 + max(0, d - cap) / cap + (1 if fresh else 0)
        score = value / rounds - 0.05 * d
        if score > 0.0:
            scored.append((score, ahu))
    scored.sort(key=lambda t: -t[0])
    return tuple(scored)


def _path(spots: dict[str, dict[str, Any]], start: str, ahu: str, q: int) -> list[str]:
    """A cheap path to the ahu: each hex that cannot carry yet costs extra."""
    carrying = frozenset(h for h, spot in spots.items() if _strength(spot) >= q)
    return list(_cheap_path(start, ahu, carrying))


@lru_cache(maxsize=1 << 16)
def _cheap_path(start: str, ahu: str, carrying: frozenset[str]) -> tuple[str, ...]:
    """``_path`` from what it depends on alone: which hexes carry the item already."""
    goal = set(AHU_HEXES[ahu])
    if start in goal:
        return ()
    heap: list[tuple[float, str, list[str]]] = [(0.0, start, [])]
    seen = {start}
    while heap:
        cost, h, path = heapq.heappop(heap)
        if h in goal:
            return tuple(path)
        for n in NEIGHBOURS[h]:
            if n in seen:
                continue
            seen.add(n)
            extra = 0.0 if n in carrying else 2.0
            heapq.heappush(heap, (cost + 1 + extra, n, [*path, n]))
    return ()


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
    sorcerer_loss = _sorcerer_worth(view, seat)
    for w in range(screen["workers"] + 1):
        for chief in (False, True) if screen["chief"] else (False,):
            for sorc in (False, True) if screen["sorcerer"] else (False,):
                if w + sorc + 3 * chief < t:
                    continue
                loss = w * 1.0 + sorcerer_loss * sorc + 2.6 * chief
                if best is None or loss < best[0]:
                    best = (loss, Bid(0, w, chief, sorc))
    if best is None:
        return Bid(0)
    markers = min(screen["markers"], 2 if screen["markers"] >= 3 else 1)
    b = best[1]
    return Bid(markers, b.workers, b.chief, b.sorcerer)


def _sorcerer_worth(view: JSON, seat: str) -> float:
    """What bidding the sorcerer away costs, in workers: his action is lost for the round.

    Recruiting is worth a little more than a worker; fetching a headdress for a bare moai is
    worth much more (its red value at the end), so then workers or the chief sculpt instead.
    """
    red = _hat_wanted(view, seat)
    if red:
        return 1.0 + HAT_BID * red
    return 1.3 if view["urn"]["workers"] else 0.9


# --- phase 3 -----------------------------------------------------------------------------------

def _place(view: JSON, seat: str, actions: Sequence[Action]) -> Action | None:
    screen = view["screen"]
    legal: Container[Action] = set(actions) if isinstance(actions, list) else actions
    if screen["sorcerer"]:
        for wish in _sorcerer_wishes(view, seat):
            if wish in legal:
                return wish
    placement = _next_placement(view, seat)
    if placement is not None and placement in legal:
        return placement
    fresh = _fresh_hats(view, seat)
    others = len(_mine(view, seat, claims=False)) > len(fresh)
    keep = (1 if others else 0) + len(fresh)  # a new headdress is marked at the end of the round
    if screen["markers"] > keep and Rongo() in legal:
        return Rongo()
    return Pass()


def _sorcerer_wishes(view: JSON, seat: str) -> list[Special]:
    """The sorcerer's worthwhile actions, best first.

    A worker recruited early carries every round, so the first few come before anything
    else. Then a headdress, worth its red value at the end once hauled and crowned, if one
    can be (see ``_hat_wanted``); only then more recruits and logs.
    """
    screen = view["screen"]
    recruit = Special("sorcerer", "recruit")
    red = _hat_wanted(view, seat)
    left = view["urn"]["workers"]
    owned = ALL_WORKERS - left
    wishes: list[Special] = []
    if left and owned < FEW_WORKERS:
        wishes.append(recruit)
    if red:
        wishes.append(Special("sorcerer", "headdress"))
    if left:
        wishes.append(recruit)
    harvest = _harvest(view)
    if harvest is not None and screen["logs"] < 2:
        wishes.append(harvest)
    return wishes


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
            if _fresh(item):
                continue  # it cannot move this round: no chain for it yet
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


def _placing(figure: str, logs: int) -> Callable[[str], Place]:
    """A placement of ``figure`` with ``logs`` logs on whichever hex it is given."""
    return lambda h: Place(figure, h, logs)


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
            return _placing(figure, n)
    if screen["chief"]:
        return lambda h: Place("chief", h)
    for figure in ("worker", "sorcerer"):
        has = screen["workers"] > 0 if figure == "worker" else screen["sorcerer"]
        if has:
            n = min(2, screen["logs"])
            return _placing(figure, n)
    return None


# --- phase 4 -----------------------------------------------------------------------------------

def _transport(view: JSON, seat: str, actions: Sequence[Action]) -> Action:
    spots = _spots(view)
    best: tuple[float, Action] = (0.0, Pass())
    targets: dict[str, str | None] = {}
    markers = view["screen"]["markers"]
    kept = _kept_for_fresh(view, seat)
    for action in actions:
        score = 0.0
        if isinstance(action, Move):
            item = view["items"][action.item]
            if action.item not in targets:
                targets[action.item] = _best_target(view, seat, item, set())[1]
            target = targets[action.item]
            score = _move_score(view, seat, spots, action, item, target,
                                _may_mark(markers, kept, item, target))
        elif isinstance(action, Mark):
            item = view["items"][action.item]
            target = _best_target(view, seat, item, set())[1]
            if item["kind"] == "moai" and markers > 0 and _may_mark(markers, kept, item, target):
                score = 1.0 + item["size"]
        if score > best[0]:
            best = (score, action)
    return best[1]


def _kept_for_fresh(view: JSON, seat: str) -> list[int]:
    """The red values of our headdresses carved this round: a marker is kept for each, to
    mark it at the end of the round."""
    out = []
    for label in _fresh_hats(view, seat):
        ahu = _best_target(view, seat, view["items"][label], set())[1]
        if ahu is not None:
            out.append(RED[ahu])
    return out


def _may_mark(markers: int, kept: list[int], item: dict[str, Any], target: str | None) -> bool:
    """Whether a marker may go on ``item`` now: a spare one, or one kept for a new headdress
    that is worth less than this moai."""
    if markers > len(kept) or not kept:
        return True
    if item["kind"] != "moai" or target is None:
        return False
    return BLACK[target] * item["size"] > min(kept)


def _move_score(view: JSON, seat: str, spots: dict[str, Any], mv: Move,
                item: dict[str, Any], target: str | None, may_mark: bool = True) -> float:
    q = _need(item)
    cost = sum(_helper_cost(view, seat, spots, h, q) for h in mv.path)
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
    bonus = (2.0 if may_mark else -2.0) if mv.mark else 0.0
    return 5.0 * progress - 0.5 * cost + bonus


def _helper_cost(view: JSON, seat: str, spots: dict[str, Any], h: str, q: int) -> int:
    """The prestige a move of requirement ``q`` across hex ``h`` gives the other seats."""
    def work() -> int:
        prefs = preference(view["seats"], seat, None)
        return sum(prestige_of(helpers(spots[h], seat, q, prefs), q).values())
    return int(_memoised(view, ("cost", seat, h, q), work))


# --- end of round ------------------------------------------------------------------------------

def _endround(view: JSON, seat: str, actions: Sequence[Action]) -> Action | None:
    """Mark the items just put on a quarry that are worth most to us (a moai for its ahu, a new
    headdress for the moai it will crown), as many as the markers allow."""
    answers = [a for a in actions if isinstance(a, EndRound) and not a.recall]
    if not answers:
        return None
    marks = {label for a in answers for label in a.mark}
    value = {label: _best_target(view, seat, view["items"][label], set())[0] for label in marks}

    def worth(a: EndRound) -> tuple[float, int]:
        return sum(value[label] for label in a.mark), -len(a.mark)
    return max(answers, key=worth)
