"""Phase 4: moving items, erecting, crowning, marking and peeking (spec section 5.4)."""

from __future__ import annotations

from typing import Any

from rules.core import Event, IllegalAction
from rules.giants.actions import Mark, Move, Peek
from rules.giants.board import AHU_HEXES, BLACK, NEIGHBOURS, RED
from rules.giants.carry import helpers, preference, prestige_of, strength
from rules.giants.placement import check_ahu, check_hex, next_turn
from rules.giants.state import State, quarry_of, turn_order


def start_transport(s: State) -> None:
    """Abandoned items are fixed once, now: every loose item without a marker."""
    s.phase = "transport"
    s.current = turn_order(s)[0]
    for p in s.players.values():
        p["passed"] = False
    for item in s.items.values():
        item["mover"] = None
        item["abandoned"] = is_loose(item) and item["marker"] is None


def is_loose(item: dict[str, Any]) -> bool:
    return not item["at"].startswith(("front:", "ahu:"))


def may_act(s: State, seat: str, item: dict[str, Any]) -> bool:
    """Cases (a)-(d) of spec 5.4."""
    if item["at"].startswith("ahu:"):
        return False
    if item["at"] == f"front:{seat}" or item["marker"] == seat:
        return True
    if not is_loose(item) or item["marker"] is not None:
        return False
    return item["mover"] == seat or item["abandoned"]


def is_fresh_headdress(item: dict[str, Any]) -> bool:
    """A headdress sculpted this round: it waits in its sculptor's front until the end of the
    phase and cannot move before the next round (spec 5.4)."""
    return item["kind"] == "headdress" and item["at"].startswith("front:")


def start_hex(item: dict[str, Any]) -> str:
    return quarry_of(item) if item["at"].startswith("front:") else item["at"]


def requirement(item: dict[str, Any]) -> int:
    return item["size"] if item["kind"] == "moai" else 1


def check_item(s: State, label: str) -> dict[str, Any]:
    if label not in s.items:
        raise IllegalAction("unknown_item", item=label)
    return s.items[label]


def has_own_figure(s: State, seat: str, ahu: str) -> bool:
    return any(c == seat for h in AHU_HEXES[ahu] for c, _ in s.hexes.get(h, {"figures": []})
               ["figures"])


def check_move(s: State, seat: str, mv: Move) -> None:
    """Raise the first rejection of a move, in the order of spec 9.4."""
    item = check_item(s, mv.item)
    for h in mv.path:
        check_hex(h)
    check_ahu(s, mv.ahu)
    check_movable(s, seat, mv.item)
    q = requirement(item)
    prev = start_hex(item)
    seen = {prev}
    for h in mv.path:
        if h not in NEIGHBOURS[prev]:
            raise IllegalAction("not_adjacent", **{"from": prev, "to": h})
        if h in seen:
            raise IllegalAction("hex_repeated", hex=h)
        have = strength(s.hexes.get(h))
        if have < q:
            raise IllegalAction("cannot_carry", hex=h, need=q, have=have)
        seen.add(h)
        prev = h
    if not mv.path and not mv.deliver:
        raise IllegalAction("empty_move")
    if mv.deliver and mv.mark:
        raise IllegalAction("mark_after_delivery")
    if mv.deliver:
        assert mv.ahu is not None
        _check_delivery(s, seat, mv, item, prev)
    if mv.mark:
        if item["marker"] is not None:
            raise IllegalAction("already_marked", item=mv.item)
        if s.players[seat]["screen"]["markers"] < 1:
            raise IllegalAction("no_marker")
    if item["abandoned"] and not mv.deliver and not mv.mark:
        raise IllegalAction("claim_unfinished", item=mv.item)
    if mv.favour is not None and (mv.favour == seat or mv.favour not in s.seats):
        raise IllegalAction("bad_favour", colour=mv.favour)


def check_movable(s: State, seat: str, label: str) -> None:
    """The checks of a move that concern only its item (``item_delivered``, ``not_your_item``,
    ``headdress_fresh``): when one fails, no path or ending of that item is legal."""
    item = s.items[label]
    if item["at"].startswith("ahu:"):
        raise IllegalAction("item_delivered", item=label)
    if not may_act(s, seat, item):
        raise IllegalAction("not_your_item", item=label)
    if is_fresh_headdress(item):
        raise IllegalAction("headdress_fresh", item=label)


def _check_delivery(s: State, seat: str, mv: Move, item: dict[str, Any], end: str) -> None:
    ahu = str(mv.ahu)
    spot = s.ahus[ahu]
    if mv.deliver == "erect":
        if item["kind"] != "moai":
            raise IllegalAction("not_a_moai", item=mv.item)
        if end not in AHU_HEXES[ahu]:
            raise IllegalAction("not_ahu_hex", ahu=ahu, hex=end)
        if spot["moai"]:
            raise IllegalAction("ahu_not_free", ahu=ahu)
        if spot["reserved"] not in (None, seat):
            raise IllegalAction("reserved_by_other", ahu=ahu)
        if spot["reserved"] is None and s.players[seat]["screen"]["bases"] < 1:
            raise IllegalAction("no_base")
    else:
        if item["kind"] != "headdress":
            raise IllegalAction("not_a_headdress", item=mv.item)
        if end not in AHU_HEXES[ahu]:
            raise IllegalAction("not_ahu_hex", ahu=ahu, hex=end)
        if not spot["moai"]:
            raise IllegalAction("no_moai_to_crown", ahu=ahu)
        if spot["headdress"]:
            raise IllegalAction("already_crowned", ahu=ahu)
    if not has_own_figure(s, seat, ahu):
        raise IllegalAction("no_own_figure", ahu=ahu)


def apply_move(s: State, seat: str, mv: Move, events: list[Event]) -> None:
    check_move(s, seat, mv)
    item = s.items[mv.item]
    q = requirement(item)
    prefs = preference(s.seats, seat, mv.favour)
    used: list[dict[str, Any]] = []
    for h in mv.path:
        points = prestige_of(helpers(s.hexes[h], seat, q, prefs), q)
        for colour, n in points.items():
            s.players[colour]["prestige"] += n
            events.append({"kind": "prestige", "seat": colour, "points": n, "reason": "helper"})
        used.append({"hex": h, "points": points})
    start = start_hex(item)
    end = mv.path[-1] if mv.path else start
    item["at"] = end
    item["abandoned"] = False
    events.append({"kind": "moved", "seat": seat, "item": mv.item, "path": [start, *mv.path],
                   "helpers": used})
    if mv.deliver:
        _deliver(s, seat, mv, item, events)
    elif mv.mark:
        _put_marker(s, seat, mv.item, item, events)
    elif item["marker"] is None:
        item["mover"] = seat
    next_turn(s, seat)


def _deliver(s: State, seat: str, mv: Move, item: dict[str, Any], events: list[Event]) -> None:
    ahu = str(mv.ahu)
    spot = s.ahus[ahu]
    item["at"] = f"ahu:{ahu}"
    item["mover"] = None
    if item["marker"] is not None:
        s.players[item["marker"]]["screen"]["markers"] += 1
        item["marker"] = None
    running = s.options["running_score"]
    if mv.deliver == "erect":
        if spot["reserved"] is None:
            s.players[seat]["screen"]["bases"] -= 1
        spot["reserved"], spot["moai"], spot["owner"] = None, mv.item, seat
        events.append({"kind": "erected", "item": mv.item, "ahu": ahu})
        if running:
            _score(s, seat, BLACK[ahu] * item["size"], "erected", events)
    else:
        spot["headdress"] = mv.item
        events.append({"kind": "crowned", "item": mv.item, "ahu": ahu})
        if running:
            _score(s, spot["owner"], RED[ahu], "crowned", events)


def _score(s: State, seat: str, points: int, reason: str, events: list[Event]) -> None:
    s.players[seat]["prestige"] += points
    events.append({"kind": "prestige", "seat": seat, "points": points, "reason": reason})


def _put_marker(s: State, seat: str, label: str, item: dict[str, Any],
                events: list[Event]) -> None:
    s.players[seat]["screen"]["markers"] -= 1
    item["marker"] = seat
    item["mover"] = None
    item["abandoned"] = False
    events.append({"kind": "marked", "seat": seat, "item": label})


def check_mark(s: State, seat: str, action: Mark) -> None:
    item = check_item(s, action.item)
    if item["at"].startswith("ahu:"):
        raise IllegalAction("item_delivered", item=action.item)
    if not may_act(s, seat, item):
        raise IllegalAction("not_your_item", item=action.item)
    if item["at"].startswith("front:"):
        raise IllegalAction("item_in_front", item=action.item)
    if item["marker"] is not None:
        raise IllegalAction("already_marked", item=action.item)
    if s.players[seat]["screen"]["markers"] < 1:
        raise IllegalAction("no_marker")


def apply_mark(s: State, seat: str, action: Mark, events: list[Event]) -> None:
    check_mark(s, seat, action)
    _put_marker(s, seat, action.item, s.items[action.item], events)
    next_turn(s, seat)


def check_peek(s: State, seat: str, action: Peek) -> None:
    check_ahu(s, action.ahu)
    if s.options["running_score"]:
        raise IllegalAction("peek_disabled")
    spot = s.ahus[action.ahu]
    if not spot["moai"]:
        raise IllegalAction("peek_no_moai", ahu=action.ahu)
    if spot["owner"] == seat:
        raise IllegalAction("peek_own", ahu=action.ahu)
    if s.players[seat]["rongo"] < 1:
        raise IllegalAction("no_rongo", need=1)


def apply_peek(s: State, seat: str, action: Peek, events: list[Event]) -> None:
    """The seat stays pending; only the peeker's copy of the event names the owner."""
    check_peek(s, seat, action)
    player = s.players[seat]
    player["rongo"] -= 1
    s.supply["rongo"] += 1
    if action.ahu not in player["peeked"]:
        player["peeked"].append(action.ahu)
    events.append({"kind": "peeked", "seat": seat, "ahu": action.ahu})
    events.append({"kind": "peeked", "seat": seat, "ahu": action.ahu,
                   "owner": s.ahus[action.ahu]["owner"], "private": seat})
