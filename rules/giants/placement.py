"""Phase 3: placing figures, the sorcerer's and chief's hex actions, rongo (spec 5.3)."""

from __future__ import annotations

from rules.core import Event, IllegalAction
from rules.giants.actions import Place, Rongo, Special
from rules.giants.auction import new_item
from rules.giants.board import (
    AHU_HEXES,
    FOREST_LOGS,
    HEADDRESS_QUARRY,
    HEXES,
    HUT,
    VILLAGE,
)
from rules.giants.state import State, after, turn_order

ACTION_HEX = {"recruit": VILLAGE, "marker": HUT, "headdress": HEADDRESS_QUARRY}
_HEXES = frozenset(HEXES)


def check_hex(label: str | None) -> None:
    if label is not None and label not in _HEXES:
        raise IllegalAction("unknown_hex", hex=label)


def check_ahu(s: State, ahu: str | None) -> None:
    if ahu is not None and ahu not in s.ahus:
        raise IllegalAction("unknown_ahu", ahu=ahu)


def check_figure(s: State, seat: str, figure: str, logs: int) -> None:
    screen = s.players[seat]["screen"]
    have = screen["workers"] > 0 if figure == "worker" else screen[figure]
    if not have:
        raise IllegalAction("not_behind_screen", piece=figure)
    if figure == "chief" and logs:
        raise IllegalAction("chief_no_logs")
    if logs > screen["logs"]:
        raise IllegalAction("too_many", piece="logs", have=screen["logs"])


def _put(s: State, seat: str, figure: str, label: str, logs: int) -> None:
    screen = s.players[seat]["screen"]
    if figure == "worker":
        screen["workers"] -= 1
    else:
        screen[figure] = False
    screen["logs"] -= logs
    spot = s.hexes.setdefault(label, {"figures": [], "logs": 0})
    spot["figures"].append([seat, figure])
    spot["logs"] += logs


def apply_place(s: State, seat: str, action: Place, events: list[Event]) -> None:
    check_hex(action.hex)
    check_figure(s, seat, action.figure, action.logs)
    _put(s, seat, action.figure, action.hex, action.logs)
    events.append({"kind": "placed", "seat": seat, "figure": action.figure, "hex": action.hex,
                   "logs": action.logs})
    next_turn(s, seat)


def special_hex(action: Special) -> str | None:
    """Where the figure goes for a hex action."""
    return ACTION_HEX.get(action.action, action.hex)


def check_special(s: State, seat: str, action: Special) -> None:
    """Raise the first rejection of a sorcerer or chief action, in the spec's order."""
    check_ahu(s, action.ahu)
    check_hex(action.hex)
    check_figure(s, seat, action.figure, action.logs)
    player = s.players[seat]
    if action.figure == "chief" and player["rongo"] < 2:
        raise IllegalAction("no_rongo", need=2)
    if action.action == "logs":
        assert action.hex is not None
        if action.hex not in FOREST_LOGS:
            raise IllegalAction("wrong_hex_for_action", hex=action.hex, action="logs")
        if action.hex in s.harvested:
            raise IllegalAction("forest_harvested", hex=action.hex)
    if action.action == "reserve":
        assert action.ahu is not None and action.hex is not None
        if action.hex not in AHU_HEXES[action.ahu]:
            raise IllegalAction("not_ahu_hex", ahu=action.ahu, hex=action.hex)
        spot = s.ahus[action.ahu]
        if spot["moai"] or spot["reserved"]:
            raise IllegalAction("ahu_taken", ahu=action.ahu)
        if player["screen"]["bases"] < 1:
            raise IllegalAction("no_base")


def apply_special(s: State, seat: str, action: Special, events: list[Event]) -> None:
    check_special(s, seat, action)
    label = special_hex(action)
    assert label is not None
    player = s.players[seat]
    _put(s, seat, action.figure, label, action.logs)
    if action.figure == "chief":
        player["rongo"] -= 2
        s.supply["rongo"] += 2
    screen, urn = player["screen"], player["urn"]
    gained: dict[str, object] = {}
    if action.action in ("recruit", "marker"):
        piece = "workers" if action.action == "recruit" else "markers"
        if urn[piece]:
            urn[piece] -= 1
            screen[piece] += 1
            gained = {piece: 1}
    elif action.action == "headdress":
        if s.supply["headdresses"]:
            s.supply["headdresses"] -= 1
            item = f"hat{s.next_hat}"
            s.next_hat += 1
            s.items[item] = new_item("headdress", 1, f"front:{seat}")
            gained = {"item": item}
    elif action.action == "logs":
        assert action.hex is not None
        n = min(FOREST_LOGS[action.hex], s.supply["logs"])
        s.supply["logs"] -= n
        screen["logs"] += n
        s.harvested.append(action.hex)
        gained = {"logs": n}
    else:
        assert action.ahu is not None
        screen["bases"] -= 1
        s.ahus[action.ahu]["reserved"] = seat
        gained = {"reserved": action.ahu}
    event: Event = {"kind": "hex_action", "seat": seat, "by": action.figure,
                    "action": action.action, "hex": label, "logs": action.logs}
    if action.action in ("recruit", "marker"):
        # Whether the urn still held a piece is the owner's secret (spec 7.1).
        events.append(event)
        events.append({**event, "gained": gained, "private": seat})
    else:
        events.append({**event, "gained": gained})
    next_turn(s, seat)


def apply_rongo(s: State, seat: str, action: Rongo, events: list[Event]) -> None:
    player = s.players[seat]
    if player["screen"]["markers"] < 1:
        raise IllegalAction("no_marker")
    if s.supply["rongo"] < 1:
        raise IllegalAction("rongo_supply_empty")
    player["screen"]["markers"] -= 1
    player["committed"]["markers"] += 1
    player["rongo"] += 1
    s.supply["rongo"] -= 1
    events.append({"kind": "rongo_taken", "seat": seat, "rongo": player["rongo"]})
    next_turn(s, seat)


def next_turn(s: State, seat: str) -> bool:
    """The next seat in turn order that has not passed; False when every seat has passed."""
    nxt = next((p for p in after(turn_order(s), seat) if not s.players[p]["passed"]), None)
    s.current = nxt
    return nxt is not None
