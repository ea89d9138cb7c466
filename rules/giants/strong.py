"""What the ``strong`` level (:mod:`rules.ismcts`) needs to know about Giants.

``determinize`` turns one seat's view into a full state: the secrets behind the other screens
(workers, markers, logs and bases there, the urns), the owners of erected moai the seat has not
seen, unrevealed bids and end-of-round answers, who moved an unmarked statue this phase, which
statues just went back to a quarry from whose front, and the seed of the future dice. Everything
it draws agrees with the view, so the view of the drawn state is the view it started from.

``evaluate`` estimates each seat's final score (points banked, plus what its statues in hand,
its free bases and its workers should still bring) and turns each seat's lead over the others
into a chance of winning; ``policy`` is the greedy seat (:mod:`rules.giants.ai`), made cheap
enough to play most of a decision's time; ``candidates`` keeps the greedy choice
and the few alternatives worth comparing in each phase, since a placement or a transport turn
offers hundreds of legal actions and a decision affords only a few dozen iterations.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any, overload

from rules.core import JSON
from rules.giants import ai
from rules.giants.actions import (
    Action,
    Bid,
    EndRound,
    Mark,
    Move,
    Pass,
    Peek,
    Place,
    Rongo,
    Special,
    item_key,
)
from rules.giants.board import (
    AHU_HEXES,
    AHUS,
    AHUS_AT,
    BLACK,
    FOREST,
    FOREST_LOGS,
    HEADDRESS_QUARRY,
    HEXES,
    MOAI_QUARRY,
    RED,
)
from rules.giants.engine import pending
from rules.giants.legal import _ok, legal, shortest_paths
from rules.giants.placement import check_figure, check_special
from rules.giants.state import LOGS, MARKERS, WORKERS, State, bases_allotted, erected_by
from rules.giants.transport import (
    check_mark,
    check_movable,
    check_move,
    check_peek,
    requirement,
    start_hex,
)
from rules.giants.view import _ahu, _hexes, _items
from rules.giants.view import view as view_of

HORIZON = 8
"""Actor steps of greedy play after the tree: about a quarter of a round, so the moves just
searched have started to pay off (a chain laid, a statue hauled) before ``evaluate`` looks.
Twelve steps won no more games at equal time, and each iteration cost a third more."""

TEMPERATURE = 6.0
"""Points of estimated score that make a win e times likelier: the spread of a few rounds."""

RANDOM_SECRET = 0.2
"""How often a sealed answer of another seat is drawn at random among its legal ones rather
than as the greedy seat would give it: the search must not be certain of any secret choice."""


# --- determinize ----------------------------------------------------------------------------------

def determinize(view: JSON, seat: str, rng: random.Random) -> State:
    """A full state that ``seat`` cannot tell from the true one, drawn from ``view`` alone."""
    seats: list[str] = list(view["seats"])
    phase: str = view["phase"]
    allot = bases_allotted_for(len(seats))
    start_workers = 2 if view["options"]["quick"] else 1
    on_board = _figures_on_board(view)
    marked = {p: sum(1 for it in view["items"].values()
                     if it["marker"] == p and not it["at"].startswith(("front:", "ahu:")))
              for p in seats}
    owners = _owners(view, seat, seats, allot, phase, rng)
    needy = _endround_needy(view, seats, marked)
    players: dict[str, dict[str, Any]] = {}
    for p in seats:
        pv = view["players"][p]
        committed = dict(pv["committed"])
        if p == seat:
            screen, urn = dict(view["screen"]), dict(view["urn"])
        else:
            screen, urn = _screen(view, p, committed, on_board[p], marked[p], start_workers,
                                  allot - len(pv["reserved"]) - owners.count(p),
                                  p in needy, rng)
        players[p] = {
            "screen": screen, "urn": urn, "committed": committed,
            "rongo": pv["rongo"], "prestige": pv["prestige"],
            "passed": pv["passed"] if phase in ("place", "transport") else False,
            "peeked": _peeked(view) if p == seat else [],
        }
    _share_logs(view, seat, seats, players, rng)
    items = {label: {"kind": it["kind"], "size": it["size"], "at": it["at"],
                     "marker": it["marker"], "abandoned": bool(it["abandoned"]),
                     "mover": None}
             for label, it in view["items"].items()}
    if phase == "transport":
        _movers(view, seat, seats, items, rng)
    ahus = {a: {**view["ahus"][a]} for a in AHUS}
    unknown = [a for a in AHUS if ahus[a]["moai"] and ahus[a]["owner"] is None]
    for a, owner in zip(unknown, owners, strict=True):
        ahus[a]["owner"] = owner
    revealed = bool(view["bids"]) and all(isinstance(b, dict) for b in view["bids"].values())
    state = State(
        seats=seats, options=dict(view["options"]), seed=rng.randrange(1 << 30),
        round=view["round"], phase=phase, first=seats.index(view["order"][0]),
        current=view["pending"][0] if phase in ("choose", "place", "transport") else None,
        dice=None if view["dice"] is None else list(view["dice"]),
        offer=list(view["offer"]),
        supply={**view["supply"], "moai": dict(view["supply"]["moai"])},
        players=players,
        bids={p: dict(b) for p, b in view["bids"].items()} if revealed else {},
        revealed=revealed,
        choosing=None if view["choosing"] is None else {
            "order": list(view["choosing"]["order"]),
            "taken": {p: list(v) for p, v in view["choosing"]["taken"].items()},
            "done": list(view["choosing"]["done"])},
        hexes={h: {"figures": [[f["colour"], f["type"]] for f in spot["figures"]],
                   "logs": spot["logs"]} for h, spot in view["hexes"].items()},
        harvested=[h for h in FOREST if view["forest"][h]["harvested"]],
        ahus=ahus, items=items,
        next_moai=1 + sum(1 for it in items.values() if it["kind"] == "moai"),
        next_hat=1 + sum(1 for it in items.values() if it["kind"] == "headdress"),
    )
    if view["finished"]:
        _finished(view, state)
        return state
    if phase == "bid":
        _sealed_bids(view, seat, state, rng)
    if phase == "endround":
        _endround(view, seat, state, needy, rng)
    return state


def bases_allotted_for(n: int) -> int:
    return {3: 7, 4: 6, 5: 5}[n]


def _figures_on_board(view: JSON) -> dict[str, dict[str, int]]:
    out = {p: {"worker": 0, "sorcerer": 0, "chief": 0} for p in view["seats"]}
    for spot in view["hexes"].values():
        for f in spot["figures"]:
            out[f["colour"]][f["type"]] += 1
    return out


def _peeked(view: JSON) -> list[str]:
    """The moai of others whose owner the seat sees: only a peek shows them (unless every
    owner is public anyway, when peeks need not be remembered)."""
    if view["options"]["running_score"] or view["finished"]:
        return []
    me = view["me"]
    return [a for a in AHUS if view["ahus"][a]["owner"] not in (None, me)]


def _owners(view: JSON, seat: str, seats: list[str], allot: int, phase: str,
            rng: random.Random) -> list[str]:
    """An owner for every erected moai the seat cannot attribute, in board order.

    They are the other seats' (a seat always sees its own moai); nobody may own more than its
    bases allow, and outside phase 4 nobody has completed (the game would have ended)."""
    unknown = [a for a in AHUS if view["ahus"][a]["moai"] and view["ahus"][a]["owner"] is None]
    if not unknown:
        return []
    known = {p: sum(1 for a in AHUS if view["ahus"][a]["moai"]
                    and view["ahus"][a]["owner"] == p) for p in seats}
    room = {}
    for p in seats:
        if p == seat:
            continue
        cap = allot - len(view["players"][p]["reserved"])
        if phase != "transport":
            cap = min(cap, allot - 1)
        room[p] = cap - known[p]
    out: list[str] = []
    for _ in unknown:
        open_ = [p for p in room if room[p] > 0] or list(room)
        pick = rng.choice(open_)
        room[pick] -= 1
        out.append(pick)
    return out


def _endround_needy(view: JSON, seats: list[str], marked: dict[str, int]) -> set[str]:
    """Seats waiting in the end-of-round step only for statues just put on a quarry: they
    must have a marker behind the screen."""
    if view["phase"] != "endround":
        return set()
    return {p for p in view["endround"] if not marked[p]}


def _screen(view: JSON, p: str, committed: dict[str, Any], board: dict[str, int],
            marked: int, start_workers: int, bases: int, needs_marker: bool,
            rng: random.Random) -> tuple[dict[str, Any], dict[str, int]]:
    """Another seat's screen and urn: what is not on the board, committed or on items.

    Workers and markers owned are drawn between what is visibly in play and a ceiling that
    grows with the rounds played (recruits and the hut come one at a time)."""
    rounds = view["round"]
    low_w = max(start_workers, committed["workers"] + board["worker"])
    workers = rng.randint(low_w, max(low_w, min(WORKERS, start_workers + rounds)))
    low_m = max(2, committed["markers"] + marked + (1 if needs_marker else 0))
    markers = rng.randint(low_m, max(low_m, min(MARKERS, 2 + rounds // 3)))
    screen = {
        "workers": workers - committed["workers"] - board["worker"],
        "chief": not committed["chief"] and not board["chief"],
        "sorcerer": not committed["sorcerer"] and not board["sorcerer"],
        "markers": markers - committed["markers"] - marked,
        "logs": 0,
        "bases": max(0, bases),
    }
    return screen, {"workers": WORKERS - workers, "markers": MARKERS - markers}


def _share_logs(view: JSON, seat: str, seats: list[str], players: dict[str, dict[str, Any]],
                rng: random.Random) -> None:
    """Logs harvested and not on the board are behind some screen or burnt in an earlier
    round's clean-up: each goes to another seat or to the fire at random."""
    harvested = sum(FOREST_LOGS[h] for h in FOREST if view["forest"][h]["harvested"])
    taken = min(harvested, LOGS - view["supply"]["logs"])
    pool = taken - sum(s["logs"] for s in view["hexes"].values()) - view["screen"]["logs"]
    others = [p for p in seats if p != seat]
    for _ in range(max(0, pool)):
        k = rng.randrange(len(others) + 1)
        if k < len(others):
            players[others[k]]["screen"]["logs"] += 1


def _movers(view: JSON, seat: str, seats: list[str], items: dict[str, dict[str, Any]],
            rng: random.Random) -> None:
    """An unmarked statue on the board that is not abandoned in phase 4 left somebody's front
    this phase: its mover is the searching seat when its revealed bid could sculpt it (a seat
    remembers its own moves, which its view does not list; drawn wrongly, the seat could not
    move its own statue in that draw, and passing would look forced), else one of the seats
    whose bid could."""
    bids = view["bids"] if isinstance(view["bids"], dict) else {}
    for _, it in sorted(items.items(), key=lambda kv: item_key(kv[0])):
        if it["at"].startswith(("front:", "ahu:")) or it["marker"] or it["abandoned"]:
            continue
        able = [p for p in seats if isinstance(bids.get(p), dict)
                and Bid(0, bids[p]["workers"], bids[p]["chief"], bids[p]["sorcerer"]).strength
                >= it["size"]]
        it["mover"] = seat if seat in able else rng.choice(able or seats)


def _finished(view: JSON, state: State) -> None:
    state.final = {p: dict(r) for p, r in view.get("result", {}).items()} or None
    state.winners = list(view["winners"])
    for p, screen in view.get("screens", {}).items():
        state.players[p]["screen"] = dict(screen)


def _sealed(state: State, p: str, rng: random.Random) -> Action:
    """Another seat's secret answer: mostly what the greedy seat would say, now and then any."""
    actions = legal(state, p)
    if rng.random() < RANDOM_SECRET:
        return rng.choice(actions)
    return ai.greedy(view_of(state, p), p, actions, rng)


def _sealed_bids(view: JSON, seat: str, state: State, rng: random.Random) -> None:
    """The bids already submitted, all at once when the last would not reveal them."""
    submitted = [p for p, b in view["bids"].items() if b == "submitted"]
    drawn: dict[str, Action] = {p: _sealed(state, p, rng) for p in submitted if p != seat}
    for p in submitted:
        if p == seat:
            mine = view["my_bid"]
            state.bids[p] = dict(mine)
        else:
            b = drawn[p]
            assert isinstance(b, Bid)
            state.bids[p] = {"markers": b.markers, "workers": b.workers, "chief": b.chief,
                             "sorcerer": b.sorcerer}


def _endround(view: JSON, seat: str, state: State, needy: set[str],
              rng: random.Random) -> None:
    """Which unmarked statues on the quarries just came from whose front, then the answers
    already submitted. A seat waiting only for such statues has at least one; a seat with a
    marker that is not waiting has none."""
    state.quarried = {p: [] for p in state.seats}
    state.endround = {p: None for p in view["endround"]}
    loose = [label for label, it in state.items.items() if it["marker"] is None
             and it["at"] == (MOAI_QUARRY if it["kind"] == "moai" else HEADDRESS_QUARRY)]
    rng.shuffle(loose)
    may = [p for p in state.seats
           if p in view["endround"] or not state.players[p]["screen"]["markers"]]
    for p in sorted(needy):
        if loose:
            state.quarried[p].append(loose.pop())
    for label in loose:
        k = rng.randrange(len(may) + 1)
        if k < len(may):
            state.quarried[may[k]].append(label)
    for p in state.seats:
        state.quarried[p].sort(key=item_key)
    for p, status in view["endround"].items():
        if status != "submitted":
            continue
        if p == seat:
            mine = view["my_endround"]
            state.endround[p] = {"mark": list(mine["mark"]), "recall": list(mine["recall"])}
        else:
            answer = _sealed(state, p, rng)
            assert isinstance(answer, EndRound)
            state.endround[p] = {"mark": list(answer.mark), "recall": list(answer.recall)}


# --- evaluate ------------------------------------------------------------------------------------

def evaluate(state: State) -> dict[str, float]:
    """Each seat's chance of winning, from its estimated final score's lead over the mean of
    the others' (a logistic curve, in [0, 1] like a real result).

    The lead over the mean, not over each rival, because a determinisation deals the erected
    moai of unknown owner among the other seats at random: their sum is known, their split
    is not, and a split that changes with every iteration would drown what the searched move
    changes."""
    est = {p: estimate(state, p) for p in state.seats}
    total = sum(est.values())
    n = len(est)
    out = {}
    for p, v in est.items():
        lead = v - (total - v) / (n - 1)
        out[p] = 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, lead / TEMPERATURE))))
    return out


def estimate(state: State, seat: str) -> float:
    """Points banked (prestige, erected moai, crowns, rongo pairs) plus a share of what the
    statues in hand should still earn, by how close they are to a free ahu, and what the
    workers owned will carry in the rounds left."""
    p = state.players[seat]
    score = float(p["prestige"]) + 3 * (p["rongo"] // 2) + HALF * (p["rongo"] % 2)
    if not state.options["running_score"]:
        for a in erected_by(state, seat):
            score += BLACK[a] * state.items[state.ahus[a]["moai"]]["size"]
            if state.ahus[a]["headdress"]:
                score += RED[a]
    free = [a for a in AHUS if state.ahus[a]["moai"] is None
            and state.ahus[a]["reserved"] in (None, seat)]
    bases = p["screen"]["bases"] + sum(1 for a in free if state.ahus[a]["reserved"] == seat)
    crownable = [a for a in AHUS if state.ahus[a]["moai"] and state.ahus[a]["headdress"] is None
                 and state.ahus[a]["owner"] == seat]
    for it in state.items.values():
        at = it["at"]
        if at.startswith("ahu:"):
            continue
        if not (at == f"front:{seat}" or it["marker"] == seat or it["mover"] == seat):
            continue
        if it["kind"] == "moai":
            if bases <= 0:
                continue
            bases -= 1
            score += it["size"] * _reach_value(_at(it), free, BLACK)
        else:
            score += _reach_value(_at(it), crownable, RED) if crownable else HAT_HOPE
    owned_workers = WORKERS - p["urn"]["workers"]
    score += WORKER_ROUND * owned_workers * _rounds_left(state)
    return score


HALF = 1.0
"""An odd rongo half: worth a pair's 3 points only with another half, which is likely."""

HAT_HOPE = 1.0
"""A headdress for a moai not yet erected."""

WORKER_ROUND = 0.8
"""What one owned worker brings in one round: a helper point or a hex of a chain."""

HAUL = 0.6
"""The share of an item's value kept per round of hauling still ahead (about 4 hexes): the
helpers paid on the way are paid anyway, so progress is worth more than their points."""


def _at(item: dict[str, Any]) -> str:
    if item["at"].startswith("front:"):
        return MOAI_QUARRY if item["kind"] == "moai" else HEADDRESS_QUARRY
    return str(item["at"])


def _reach_value(pos: str, ahus: list[str], values: dict[str, int]) -> float:
    """The best ahu's value for an item at ``pos``, discounted by the rounds of hauling."""
    best = 0.0
    for a in ahus:
        best = max(best, values[a] * HAUL ** (ai._ahu_dist(pos, a) / 4))
    return best


def _rounds_left(state: State) -> float:
    """About how many rounds remain: the leader's missing moai at some two a round."""
    allot = bases_allotted(state)
    most = max(len(erected_by(state, p)) for p in state.seats)
    return max(0.0, min(state.options["round_limit"] - state.round, (allot - most) / 2.0))


# --- policy and candidates -----------------------------------------------------------------------

def policy(state: State, seat: str, rng: random.Random) -> Action:
    """The greedy seat's move, from the seat's own view of the state.

    Rollouts spend most of a decision here, so the seat sees only the part of its view the
    greedy seat reads (:func:`greedy_view`), and the legal actions are listed cheaply: in phase
    3 the greedy seat only asks whether its few wishes are legal (:class:`Placements`), in
    phase 4 the moves come from :func:`transport_actions`. Both give what ``legal`` gives, so
    the move is the greedy seat's own."""
    actions: Sequence[Action]
    if state.phase == "place":
        actions = Placements(state, seat)
    elif state.phase == "transport":
        actions = transport_actions(state, seat)
    else:
        actions = legal(state, seat)
    return ai.greedy(greedy_view(state, seat), seat, actions, rng)


GREEDY_KEYS = ("phase", "seats", "offer", "supply", "hexes", "forest", "ahus", "items",
               "screen", "urn")
"""The parts of a seat's view that the greedy seat reads."""


def greedy_view(state: State, seat: str) -> JSON:
    """The parts ``GREEDY_KEYS`` of ``seat``'s view, each exactly as the view gives it."""
    player = state.players[seat]
    return {
        "phase": state.phase,
        "seats": list(state.seats),
        "offer": sorted(state.offer),
        "supply": {"moai": dict(state.supply["moai"]),
                   "headdresses": state.supply["headdresses"], "logs": state.supply["logs"],
                   "rongo": state.supply["rongo"]},
        "hexes": _hexes(state),
        "forest": {h: {"logs": FOREST_LOGS[h], "harvested": h in state.harvested}
                   for h in FOREST},
        "ahus": {a: _ahu(state, a, seat) for a in AHUS},
        "items": _items(state),
        "screen": dict(player["screen"]),
        "urn": dict(player["urn"]),
    }


class Placements(Sequence[Action]):
    """The legal actions of a seat in phase 3, as ``legal`` lists them, answering ``in``
    without listing them: the greedy seat asks about a few, and a placement turn has hundreds.
    The full list is made only if something indexes it (a fallback to a random action)."""

    def __init__(self, state: State, seat: str) -> None:
        self.state, self.seat = state, seat
        self._listed: list[Action] | None = None

    def _all(self) -> list[Action]:
        if self._listed is None:
            self._listed = legal(self.state, self.seat)
        return self._listed

    def __len__(self) -> int:
        return len(self._all())

    @overload
    def __getitem__(self, i: int) -> Action: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Action]: ...

    def __getitem__(self, i: int | slice) -> Action | Sequence[Action]:
        return self._all()[i]

    def __contains__(self, action: object) -> bool:
        s, seat = self.state, self.seat
        if s.phase != "place" or seat not in pending(s).seats:
            return action in self._all()
        screen = s.players[seat]["screen"]
        if isinstance(action, Pass):
            return True
        if isinstance(action, Rongo):
            return bool(screen["markers"] and s.supply["rongo"])
        if isinstance(action, Place):
            figure, n = action.figure, action.logs
            if figure == "worker":
                has = bool(screen["workers"])
            elif figure in ("sorcerer", "chief"):
                has = bool(screen[figure])
            else:
                return False
            top = 0 if figure == "chief" else min(2, screen["logs"])
            return has and action.hex in HEX_SET and 0 <= n <= top
        if isinstance(action, Special):
            return action.figure in ("sorcerer", "chief") and _special_listed(action) \
                and 0 <= action.logs <= (0 if action.figure == "chief"
                                         else min(2, screen["logs"])) \
                and _ok(check_figure, s, seat, action.figure, action.logs) \
                and _ok(check_special, s, seat, action)
        return False


HEX_SET = frozenset(HEXES)


def _special_listed(action: Special) -> bool:
    """Whether ``legal`` would list a sorcerer or chief action of this shape at all."""
    if action.action in ("recruit", "marker", "headdress"):
        return action.hex is None and action.ahu is None
    if action.action == "logs":
        return action.hex in FOREST and action.ahu is None
    if action.action == "reserve":
        return action.ahu in AHU_HEXES and action.hex in AHU_HEXES[action.ahu]
    return False


def transport_actions(s: State, seat: str) -> list[Action]:
    """``legal(s, seat)`` in phase 4, listed faster: a move along a shortest path that the
    search itself found to carry is checked only for what its ending asks (a marker to spare,
    a claim that must end marked or delivered); deliveries go through the engine's check."""
    if s.phase != "transport" or seat not in pending(s).seats:
        return legal(s, seat)
    out: list[Action] = []
    markers = s.players[seat]["screen"]["markers"]
    for label in sorted(s.items, key=item_key):
        item = s.items[label]
        if not _ok(check_movable, s, seat, label):
            continue
        start = start_hex(item)
        paths = shortest_paths(s, start, requirement(item))
        markable = item["marker"] is None and markers >= 1
        for end in HEXES:
            path = paths.get(end)
            if path is None:
                continue
            if not item["abandoned"]:
                out.append(Move(label, path))
            if markable:
                out.append(Move(label, path, mark=True))
            out += _deliveries(s, seat, label, item, path, end)
        out += _deliveries(s, seat, label, item, (), start)
        if _ok(check_mark, s, seat, Mark(label)):
            out.append(Mark(label))
    out += [Peek(a) for a in AHUS if _ok(check_peek, s, seat, Peek(a))]
    out.append(Pass())
    return out


def _deliveries(s: State, seat: str, label: str, item: dict[str, Any], path: tuple[str, ...],
                end: str) -> list[Action]:
    """The legal deliveries at the end of ``path``: only those the item's kind and the ahu's
    state allow at all go through the engine's check."""
    verb = "erect" if item["kind"] == "moai" else "crown"
    out: list[Action] = []
    for ahu in AHUS_AT.get(end, ()):
        spot = s.ahus[ahu]
        if (spot["moai"] is None) != (verb == "erect") or (verb == "crown" and spot["headdress"]):
            continue
        m = Move(label, path, verb, ahu)
        if _ok(check_move, s, seat, m):
            out.append(m)
    return out


def candidates(state: State, seat: str, actions: list[Action]) -> list[Action]:
    """The greedy choice and the few alternatives worth a comparison, by phase.

    A search of a few dozen iterations tells apart only a handful of actions, and an
    alternative it cannot tell apart from the greedy one is picked by chance as often as not,
    so each phase offers the greedy choice and only those that decide most: how hard to bid,
    whether to trade a marker, which item to haul how far. A statue to take, a delivery and
    the markers of the end of the round have one right answer, the greedy one (with a
    fallback, see ``_fallback``)."""
    v = greedy_view(state, seat)
    with ai.memo(v):
        return _candidates(v, state, seat, actions)


def _candidates(v: JSON, state: State, seat: str, actions: list[Action]) -> list[Action]:
    greedy = ai.greedy(v, seat, actions, random.Random(0))
    keep: list[Action] = []
    if state.phase == "bid":
        keep = _bid_candidates(greedy, actions)
    elif state.phase == "place":
        keep = _place_candidates(greedy, actions)
    elif state.phase == "transport" and not (isinstance(greedy, Move) and greedy.deliver):
        keep = _transport_candidates(v, seat, actions)
    out = [greedy]
    for a in keep:
        if a not in out:
            out.append(a)
    fallback = _fallback(v, seat, state.phase, out)
    if fallback is not None and fallback not in out and fallback in actions:
        out.append(fallback)
    return out


def _fallback(v: JSON, seat: str, phase: str, kept: list[Action]) -> Action | None:
    """An action surely legal in the real game, when the kept ones may not all be.

    A determinisation draws what the view does not say: who moved an unmarked statue this
    phase, which statues just went from whose front to a quarry. What is legal in the drawn
    state may then not be legal at the table, and the search offers at its root only the kept
    actions that really are: a pass (or an end-of-round answer that changes nothing) keeps
    that set from ever being empty."""
    if phase == "endround":
        return EndRound()
    if phase != "transport":
        return None
    for a in kept:
        if isinstance(a, Move | Mark):
            item = v["items"][a.item]
            if not (item["at"] == f"front:{seat}" or item["marker"] == seat
                    or item["abandoned"]):
                return Pass()
    return None


def _bid_candidates(greedy: Action, actions: list[Action]) -> list[Action]:
    """No bid, and the greedy bid with one marker more or less (priority in the choosing)."""
    wanted = [Bid(0)]
    if isinstance(greedy, Bid):
        for k in (greedy.markers - 1, greedy.markers + 1):
            wanted.append(Bid(k, greedy.workers, greedy.chief, greedy.sorcerer))
    return [a for a in wanted if a in actions]


def _place_candidates(greedy: Action, actions: list[Action]) -> list[Action]:
    """Whether to trade a marker for a rongo half or keep it, when the greedy seat would do
    either. A figure placed for a chain pays off only in phase 4, past what a short rollout
    sees, so the greedy placement is not second-guessed."""
    if isinstance(greedy, Pass | Rongo):
        return [a for a in (Pass(), Rongo()) if a in actions]
    return []


def _transport_candidates(v: JSON, seat: str, actions: list[Action]) -> list[Action]:
    """The two moves that bring an item furthest to a target (when the greedy seat would not
    deliver: it delivers whenever it can). Passing ends the seat's phase 4, which the greedy
    seat does only when no move gains, so it is no alternative."""
    moves: list[tuple[float, Action]] = []
    spots = ai._spots(v)
    for a in actions:
        if isinstance(a, Move) and not a.deliver:
            item = v["items"][a.item]
            target = ai._best_target(v, seat, item, set())[1]
            moves.append((ai._move_score(v, seat, spots, a, item, target), a))
    moves.sort(key=lambda t: -t[0])
    return [a for score, a in moves[:2] if score > 0]


__all__ = ["HORIZON", "candidates", "determinize", "evaluate", "policy"]
