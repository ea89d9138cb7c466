"""What a seat may know (spec section 7): the public view plus the seat's own secrets.

Screens, urns, unrevealed bids, unresolved end-of-round answers and the owners of erected moai
stay out of every view that may not see them; an owner appears for the owner, for a seat that
peeked, with ``running_score=yes``, and for everyone once the game is over.
"""

from __future__ import annotations

from typing import Any

from rules.core import JSON
from rules.giants.actions import item_key
from rules.giants.board import AHUS, FOREST, FOREST_LOGS, ORDER
from rules.giants.engine import pending
from rules.giants.state import NAME, State, bases_allotted, turn_order


def view(state: State, seat: str | None = None) -> JSON:
    finished = state.phase == "over"
    me = seat if seat in state.seats else None
    out: JSON = {
        "game": NAME,
        "round": state.round,
        "phase": state.phase,
        "pending": list(pending(state).seats),
        "finished": finished,
        "scores": _scores(state),
        "winners": list(state.winners),
        "options": dict(state.options),
        "seats": list(state.seats),
        "order": turn_order(state),
        "dice": None if state.dice is None else list(state.dice),
        "offer": sorted(state.offer),
        "supply": {"moai": dict(state.supply["moai"]),
                   "headdresses": state.supply["headdresses"], "logs": state.supply["logs"],
                   "rongo": state.supply["rongo"]},
        "bids": _bids(state),
        "choosing": _choosing(state),
        "endround": {p: ("waiting" if a is None else "submitted")
                     for p, a in state.endround.items()} if state.phase == "endround" else {},
        "players": {p: _player(state, p) for p in state.seats},
        "hexes": _hexes(state),
        "forest": {h: {"logs": FOREST_LOGS[h], "harvested": h in state.harvested}
                   for h in FOREST},
        "ahus": {a: _ahu(state, a, me) for a in AHUS},
        "items": _items(state),
    }
    if finished and state.final is not None:
        out["result"] = {p: dict(r) for p, r in state.final.items()}
        out["screens"] = {p: dict(state.players[p]["screen"]) for p in state.seats}
    if me is not None:
        player = state.players[me]
        out["me"] = me
        out["screen"] = dict(player["screen"])
        out["urn"] = dict(player["urn"])
        out["my_bid"] = dict(state.bids[me]) if me in state.bids and not state.revealed \
            else None
        answer = state.endround.get(me) if state.phase == "endround" else None
        out["my_endround"] = None if answer is None else \
            {"mark": list(answer["mark"]), "recall": list(answer["recall"])}
    return out


def _scores(state: State) -> dict[str, int]:
    if state.phase == "over" and state.final is not None:
        return {p: state.final[p]["total"] for p in state.seats}
    return {p: state.players[p]["prestige"] for p in state.seats}


def _bids(state: State) -> dict[str, Any]:
    if state.revealed:
        return {p: dict(state.bids[p]) for p in turn_order(state)}
    if state.phase == "bid":
        return {p: ("submitted" if p in state.bids else "waiting") for p in turn_order(state)}
    return {}


def _choosing(state: State) -> dict[str, Any] | None:
    c = state.choosing
    if c is None:
        return None
    return {"order": list(c["order"]), "taken": {p: list(v) for p, v in c["taken"].items()},
            "done": list(c["done"])}


def _player(state: State, seat: str) -> dict[str, Any]:
    p = state.players[seat]
    passed = p["passed"] if state.phase in ("place", "transport") else False
    return {
        "prestige": p["prestige"],
        "rongo": p["rongo"],
        "bases": bases_allotted(state),
        "reserved": [a for a in AHUS if state.ahus[a]["reserved"] == seat],
        "committed": dict(p["committed"]),
        "front": sorted((i for i, it in state.items.items() if it["at"] == f"front:{seat}"),
                        key=item_key),
        "passed": passed,
    }


def _hexes(state: State) -> dict[str, Any]:
    return {h: {"figures": [{"colour": c, "type": t} for c, t in spot["figures"]],
                "logs": spot["logs"]}
            for h, spot in sorted(state.hexes.items(), key=lambda kv: ORDER[kv[0]])
            if spot["figures"] or spot["logs"]}


def owner_known(state: State, ahu: str, seat: str | None) -> bool:
    owner = state.ahus[ahu]["owner"]
    if owner is None:
        return False
    if state.phase == "over" or state.options["running_score"]:
        return True
    return seat is not None and (seat == owner or ahu in state.players[seat]["peeked"])


def _ahu(state: State, ahu: str, seat: str | None) -> dict[str, Any]:
    spot = state.ahus[ahu]
    return {"reserved": spot["reserved"], "moai": spot["moai"], "headdress": spot["headdress"],
            "owner": spot["owner"] if owner_known(state, ahu, seat) else None}


def _items(state: State) -> dict[str, Any]:
    return {label: {"kind": it["kind"], "size": it["size"], "at": it["at"],
                    "marker": it["marker"],
                    "abandoned": bool(it["abandoned"]) and state.phase == "transport"}
            for label, it in sorted(state.items.items(), key=lambda kv: item_key(kv[0]))}
