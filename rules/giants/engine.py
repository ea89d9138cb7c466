"""Giants rules (``../shared/rules/giants.md``): pending seats, apply, result.

``apply`` checks the actor first (spec 9.4: ``game_over``, ``already_submitted``,
``not_pending``, ``wrong_phase``), then hands a deep copy to the phase module, which checks
the arguments and conditions in the spec's order before it changes anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.core import CHANCE, Event, IllegalAction, Pending, Result
from rules.giants import auction, placement, roundend, transport
from rules.giants.actions import (
    Action,
    Bid,
    Dice,
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
)
from rules.giants.state import State, turn_order

PHASE_VERBS: dict[str, tuple[type, ...]] = {
    "draw": (Dice,),
    "bid": (Bid,),
    "choose": (Take, Done),
    "place": (Place, Special, Rongo, Pass),
    "transport": (Move, Mark, Peek, Pass),
    "endround": (EndRound,),
}


def pending(state: State) -> Pending:
    phase = state.phase
    if phase == "over":
        return Pending((), "over")
    if phase == "draw":
        return Pending((CHANCE,), "dice")
    if phase == "bid":
        return Pending(tuple(p for p in turn_order(state) if p not in state.bids), "bid")
    if phase == "endround":
        return Pending(tuple(p for p in turn_order(state)
                             if p in state.endround and state.endround[p] is None), "endround")
    assert state.current is not None
    return Pending((state.current,), phase)


def _submitted(state: State, actor: str) -> bool:
    if state.phase == "bid":
        return actor in state.bids
    if state.phase == "endround":
        return state.endround.get(actor) is not None
    return False


def check_actor(state: State, actor: str, action: Action) -> None:
    if state.phase == "over":
        raise IllegalAction("game_over")
    if _submitted(state, actor):
        raise IllegalAction("already_submitted")
    seats = pending(state).seats
    if actor not in seats:
        raise IllegalAction("not_pending", actor=actor, pending=", ".join(seats))
    if not isinstance(action, PHASE_VERBS[state.phase]):
        raise IllegalAction("wrong_phase", verb=str(action).split()[0], phase=state.phase)


def canonical(state: State, actor: str, action: Action) -> Action:
    """Giants actions print one way already: parsing puts every token in its order."""
    return action


def apply(state: State, actor: str, action: Action) -> tuple[State, list[Event]]:
    """Apply one action; the state passed in is never changed."""
    check_actor(state, actor, action)
    s = state.copy()
    events: list[Event] = []
    _HANDLERS[type(action)](s, actor, action, events)
    return s, events


def _pass(s: State, seat: str, action: Pass, events: list[Event]) -> None:
    s.players[seat]["passed"] = True
    events.append({"kind": "passed", "seat": seat, "phase": s.phase})
    if placement.next_turn(s, seat):
        return
    if s.phase == "place":
        transport.start_transport(s)
    else:
        roundend.end_transport(s, events)


_HANDLERS: dict[type, Callable[[State, str, Any, list[Event]], None]] = {
    Dice: lambda s, _a, act, ev: auction.apply_dice(s, act, ev),
    Bid: auction.apply_bid,
    Take: auction.apply_take,
    Done: lambda s, seat, _act, ev: auction.apply_done(s, seat, ev),
    Place: placement.apply_place,
    Special: placement.apply_special,
    Rongo: placement.apply_rongo,
    Pass: _pass,
    Move: transport.apply_move,
    Mark: transport.apply_mark,
    Peek: transport.apply_peek,
    EndRound: roundend.apply_endround,
}


def result(state: State) -> Result | None:
    if state.phase != "over" or state.final is None:
        return None
    return Result({p: r["total"] for p, r in state.final.items()}, list(state.winners),
                  str(state.end))
