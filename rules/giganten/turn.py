"""Action 4 (spec 5.4): the truck, peeking, the locomotive and the specials, from one MP pool."""

from __future__ import annotations

import heapq

from rules.core import Event, IllegalAction
from rules.giganten.actions import Drive, Loco, Oil, Peek, Price
from rules.giganten.board import (
    CARDS,
    COMPANIES,
    COST,
    ORDER,
    PEEKABLE,
    PRICE_TABLE,
    RAIL_FIRST,
    RAIL_LAST,
    ROWS,
    adjacent,
    column,
    neighbours,
    rail_cost,
)
from rules.giganten.state import State


def special(s: State, seat: str) -> tuple[str | None, int]:
    card = s.players[seat]["card"]
    sp = CARDS[card]["special"] if card else None
    return (sp["kind"], sp["value"]) if sp else (None, 0)


def begin_turn(s: State, seat: str, events: list[Event]) -> None:
    """Start a seat's Action-4 turn; "locos back" acts at once, without a line (5.4a)."""
    s.turn = {"seat": seat, "mp_left": CARDS[s.players[seat]["card"]]["mp"],
              "price_used": False, "oil_used": False}
    kind, value = special(s, seat)
    if kind == "locos_back":
        moved = {}
        for other in s.seats:
            if other != seat:
                p = s.players[other]
                before, p["loco"] = p["loco"], max(RAIL_FIRST, p["loco"] - value)
                moved[other] = [before, p["loco"]]
        events.append({"kind": "locos_back", "seat": seat, "back": value, "moved": moved})
    events.append({"kind": "turn", "seat": seat, "mp": s.turn["mp_left"]})


def _other_trucks(s: State, seat: str) -> set[str]:
    return {p["truck"] for c, p in s.players.items() if c != seat and p["truck"]}


def _stoppable(s: State, label: str, trucks: set[str]) -> bool:
    space = s.spaces.get(label)
    return label not in trucks and not (space and space["state"] == "hidden")


def _blocked(s: State, label: str) -> bool:
    space = s.spaces.get(label)
    return bool(space and space["state"] == "derrick")


def drive(s: State, seat: str, action: Drive, events: list[Event]) -> None:
    p, trucks = s.players[seat], _other_trucks(s, seat)
    assert s.turn is not None
    pos, steps = p["truck"], list(action.path)
    if pos is None:
        first = steps.pop(0)
        if column(first) != 1:
            raise IllegalAction("drive.placement", label=first)
        if first in trucks:
            raise IllegalAction("drive.placement_occupied", label=first)
        pos = first
    cost = 0
    for label in steps:
        if not adjacent(pos, label):
            raise IllegalAction("drive.not_adjacent", start=pos, label=label)
        if _blocked(s, label):
            raise IllegalAction("drive.derrick", label=label)
        cost += COST[label]
        pos = label
    if cost > s.turn["mp_left"]:
        raise IllegalAction("drive.mp", cost=cost, mp=s.turn["mp_left"])
    if not _stoppable(s, pos, trucks):
        raise IllegalAction("drive.stop", label=pos)
    p["truck"] = pos
    s.turn["mp_left"] -= cost
    events.append({"kind": "drive", "seat": seat, "path": list(action.path), "cost": cost})


def drives(s: State, seat: str) -> list[Drive]:
    """One cheapest path to every space the truck can end on (Dijkstra over terrain costs)."""
    assert s.turn is not None
    mp, trucks, start = s.turn["mp_left"], _other_trucks(s, seat), s.players[seat]["truck"]
    sources = [start] if start else [f"{r}1" for r in ROWS if f"{r}1" not in trucks]
    best: dict[str, int] = {}
    prev: dict[str, str | None] = {}
    heap: list[tuple[int, int, str, str | None]] = [(0, ORDER[src], src, None) for src in sources]
    heapq.heapify(heap)
    while heap:
        cost, _, label, before = heapq.heappop(heap)
        if label in best:
            continue
        best[label], prev[label] = cost, before
        for nxt in neighbours(label):
            step = cost + COST[nxt]
            if nxt not in best and step <= mp and not _blocked(s, nxt):
                heapq.heappush(heap, (step, ORDER[nxt], nxt, label))
    out = []
    for label in sorted(best, key=ORDER.__getitem__):
        if label == start or not _stoppable(s, label, trucks):
            continue
        path: list[str] = []
        at: str | None = label
        while at is not None and at != start:
            path.append(at)
            at = prev[at]
        out.append(Drive(tuple(reversed(path))))
    return out


def peek(s: State, seat: str, action: Peek, events: list[Event]) -> None:
    truck, label = s.players[seat]["truck"], action.label
    if truck is None:
        raise IllegalAction("peek.no_truck")
    if not adjacent(truck, label):
        raise IllegalAction("peek.not_adjacent", label=label, truck=truck)
    space = s.spaces.get(label)
    if space is None or space["state"] != "hidden":
        raise IllegalAction("peek.no_tile", label=label)
    if not PEEKABLE[space["type"]]:
        raise IllegalAction("peek.forbidden", label=label)
    if label in s.peeks[seat]:
        raise IllegalAction("peek.known", label=label)
    s.peeks[seat].append(label)
    events.append({"kind": "peek", "seat": seat, "label": label,
                   "private": {"seat": seat, "value": space["value"]}})


def peeks(s: State, seat: str) -> list[Peek]:
    truck = s.players[seat]["truck"]
    if truck is None:
        return []
    return [Peek(label) for label in neighbours(truck)
            if label in s.spaces and s.spaces[label]["state"] == "hidden"
            and PEEKABLE[s.spaces[label]["type"]] and label not in s.peeks[seat]]


def loco(s: State, seat: str, action: Loco, events: list[Event]) -> None:
    p = s.players[seat]
    assert s.turn is not None
    if p["loco"] + action.steps > RAIL_LAST:
        raise IllegalAction("loco.end", position=p["loco"], steps=action.steps, last=RAIL_LAST)
    cost = rail_cost(p["loco"], action.steps)
    if cost > s.turn["mp_left"]:
        raise IllegalAction("loco.mp", cost=cost, mp=s.turn["mp_left"])
    p["loco"] += action.steps
    s.turn["mp_left"] -= cost
    events.append({"kind": "loco", "seat": seat, "to": p["loco"], "cost": cost})


def locos(s: State, seat: str) -> list[Loco]:
    assert s.turn is not None
    at, mp = s.players[seat]["loco"], s.turn["mp_left"]
    return [Loco(n) for n in range(1, RAIL_LAST - at + 1) if rail_cost(at, n) <= mp]


def price(s: State, seat: str, action: Price, events: list[Event]) -> None:
    kind, most = special(s, seat)
    assert s.turn is not None
    if kind != "price":
        raise IllegalAction("price.no_special")
    if s.turn["price_used"]:
        raise IllegalAction("price.used")
    if abs(action.change) > most:
        raise IllegalAction("price.range", change=abs(action.change), most=most)
    after = s.prices[action.company] + action.change
    if not 0 <= after < len(PRICE_TABLE):
        raise IllegalAction("price.off_table", company=action.company, change=action.change)
    s.prices[action.company] = after
    s.turn["price_used"] = True
    events.append({"kind": "price", "seat": seat, "company": action.company,
                   "price": PRICE_TABLE[after]})


def prices(s: State, seat: str) -> list[Price]:
    kind, most = special(s, seat)
    assert s.turn is not None
    if kind != "price" or s.turn["price_used"]:
        return []
    return [Price(c, j) for c in COMPANIES for j in [*range(-most, 0), *range(1, most + 1)]
            if 0 <= s.prices[c] + j < len(PRICE_TABLE)]


def oil(s: State, seat: str, action: Oil, events: list[Event]) -> None:
    kind, _ = special(s, seat)
    assert s.turn is not None
    if kind != "oil":
        raise IllegalAction("oil.no_special")
    if s.turn["oil_used"]:
        raise IllegalAction("oil.used")
    if s.supply < 1 and not s.unlimited():
        raise IllegalAction("oil.supply")
    if not s.unlimited():
        s.supply -= 1
    s.players[seat]["storage"][action.company] += 1
    s.turn["oil_used"] = True
    events.append({"kind": "oil", "seat": seat, "company": action.company})


def oils(s: State, seat: str) -> list[Oil]:
    kind, _ = special(s, seat)
    assert s.turn is not None
    if kind != "oil" or s.turn["oil_used"] or (s.supply < 1 and not s.unlimited()):
        return []
    return [Oil(c) for c in COMPANIES]
