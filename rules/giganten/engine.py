"""Giganten rules (``giganten.md``): pending, legal actions, apply, view, result, chance.

``apply`` copies the state and runs the action on the copy, so a rejection (raised part-way
through) never touches the caller's state. The step modules hold the rules themselves.

Events are for messages and logs. An event with a ``private`` entry (dealt licence values, a
peeked tile value) carries a secret for the seat it names: only that seat may be shown it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from rules.core import CHANCE, JSON, Event, IllegalAction, Pending, Result
from rules.giganten import auction, flow, turn, works
from rules.giganten import chance as chance_lines
from rules.giganten.accounting import finish
from rules.giganten.actions import (
    Action,
    Bid,
    Build,
    Done,
    Drive,
    Forfeit,
    Licences,
    Loco,
    Oil,
    Pass,
    Pay,
    Peek,
    Price,
    Prices,
    Produce,
    Reveal,
    Sell,
    Skip,
    Take,
    Tiles,
    verb,
)
from rules.giganten.board import (
    COLOURS,
    COMPANIES,
    MAX_BID,
    MAX_SEATS,
    MIN_SEATS,
    PRICE_TABLE,
    card_number,
)
from rules.giganten.state import NAME, OPTIONS, State, from_json, new, options_of, seats_of, to_json

__all__ = [
    "COLOURS", "MAX_SEATS", "MIN_SEATS", "NAME", "OPTIONS", "GigantenPending", "GigantenResult",
    "State", "apply", "chance", "from_json", "legal", "new", "options_of", "pending", "result",
    "seats_of", "to_json", "view",
]


@dataclass(frozen=True)
class GigantenPending(Pending):
    """Adds the seat a ``licences`` or ``forfeit`` chance line concerns."""

    subject: str | None = None


@dataclass(frozen=True)
class GigantenResult(Result):
    """Adds the final accounting per seat: rank, cash, derrick bonus, chips, total."""

    accounts: dict[str, dict[str, int]] = field(default_factory=dict)


ACCEPTS: dict[str, tuple[type, ...]] = {
    "tiles": (Tiles,), "prices": (Prices,), "reveal": (Reveal,), "take": (Take,),
    "licences": (Licences,), "move": (Drive, Peek, Loco, Price, Oil, Done),
    "build": (Build, Skip), "produce": (Produce,), "bid": (Bid, Pass), "sell": (Pay, Sell),
    "forfeit": (Forfeit,),
}
_CHANCE_DECISIONS = ("tiles", "prices", "reveal", "licences", "forfeit")


def pending(state: State) -> GigantenPending:
    d = state.decision
    if state.phase == "over":
        return GigantenPending((), "over")
    if d in _CHANCE_DECISIONS:
        subject = None
        if d == "licences":
            subject = state.current
        elif d == "forfeit":
            assert state.auction is not None
            subject = state.auction["winner"]
        return GigantenPending((CHANCE,), d, subject)
    if d in ("bid", "sell"):
        assert state.auction is not None
        return GigantenPending((state.auction["to_act" if d == "bid" else "winner"],), d)
    return GigantenPending((state.current,), d)


def legal(state: State, seat: str) -> list[Action]:
    """Every legal action of the pending seat; none for chance or a seat that is not pending.

    Order: drives (by end space, board order), peeks, locomotive moves, price changes, oil,
    ``done``; builds then ``skip``; one produce line per distinct outcome; bids ascending then
    ``pass``; payments (smallest total first) then ``sell 0`` .. ``sell n``.
    """
    p = pending(state)
    if seat == CHANCE or seat not in p.seats:
        return []
    s, d = state, state.decision
    if d == "take":
        return [Take(c) for c in s.display]
    if d == "move":
        return [*turn.drives(s, seat), *turn.peeks(s, seat), *turn.locos(s, seat),
                *turn.prices(s, seat), *turn.oils(s, seat), Done()]
    if d == "build":
        return [*works.builds(s, seat), Skip()]
    if d == "produce":
        return list(works.productions(s, seat))
    a = s.auction
    assert a is not None
    if d == "bid":
        return [*(Bid(n) for n in range(a["high_bid"] + 1, MAX_BID + 1)), Pass()]
    pays: list[Action] = [] if a["paid"] else [
        Pay(v) for v in auction.payments(s.players[seat]["hand"], a["high_bid"])]
    stored = s.players[seat]["storage"][a["company"]]
    return [*pays, *(Sell(n) for n in range(stored + 1))]


def canonical(state: State, actor: str, action: Action) -> Action:
    """The one printed form of an action with several spellings: a split fee names the first
    tied rival in seat order (spec: ``D3=hudson:blue`` prints as ``:grey``). Anything else, an
    illegal action included, is returned as it is."""
    if not isinstance(action, Produce) or actor not in state.players:
        return action
    _, rivals = works.furthest_rivals(state, actor)
    entries = tuple(replace(e, via=rivals[0]) if e.via in rivals else e
                    for e in action.entries)
    return replace(action, entries=entries)


def apply(state: State, actor: str, action: Action) -> tuple[State, list[Event]]:
    """Apply one line; the state passed in is never changed."""
    if state.phase == "over":
        raise IllegalAction("game_over")
    p = pending(state)
    if actor not in p.seats:
        raise IllegalAction("not_pending", actor=actor, pending=list(p.seats))
    paid_twice = isinstance(action, Pay) and state.auction is not None and state.auction["paid"]
    if not isinstance(action, ACCEPTS[state.decision]) or paid_twice:
        raise IllegalAction("wrong_phase", verb=verb(action), phase=state.phase)
    s = state.copy()
    events: list[Event] = []
    _dispatch(s, actor, p.subject, action, events)
    return s, events


def _dispatch(s: State, actor: str, subject: str | None, action: Action,
              events: list[Event]) -> None:
    if isinstance(action, Tiles):
        chance_lines.apply_tiles(s, action)
        events.append({"kind": "tiles", "count": len(action.tiles)})
        flow.begin_round(s, events)
    elif isinstance(action, Prices):
        chance_lines.apply_prices(s, action)
        events.append({"kind": "prices", "faces": list(action.faces),
                       "prices": {c: PRICE_TABLE[i] for c, i in s.prices.items()}})
        flow.begin_cards(s)
    elif isinstance(action, Reveal):
        ended = chance_lines.apply_reveal(s, action)
        events.append({"kind": "reveal", "cards": [action.red, *action.beige],
                       "black_loco": s.black})
        if ended:
            finish(s, events)
        else:
            flow.begin_takes(s)
    elif isinstance(action, Take):
        if action.card not in s.display:
            raise IllegalAction("take.not_displayed", card=action.card)
        s.display.remove(action.card)
        s.players[actor]["card"] = action.card
        events.append({"kind": "take", "seat": actor, "card": action.card})
        flow.after_take(s, events)
    elif isinstance(action, Licences):
        assert subject is not None
        chance_lines.apply_licences(s, action, subject)
        events.append({"kind": "licences", "seat": subject, "count": len(action.values),
                       "private": {"seat": subject, "values": list(action.values)}})
        flow.after_licences(s, events)
    elif isinstance(action, Forfeit):
        assert subject is not None
        chance_lines.apply_forfeit(s, action, subject)
        events.append({"kind": "forfeit", "seat": subject, "values": list(action.values)})
        flow.restart_auction(s, events)
    else:
        _seat_action(s, actor, action, events)


def _seat_action(s: State, seat: str, action: Action, events: list[Event]) -> None:
    if isinstance(action, Drive):
        turn.drive(s, seat, action, events)
    elif isinstance(action, Peek):
        turn.peek(s, seat, action, events)
    elif isinstance(action, Loco):
        turn.loco(s, seat, action, events)
    elif isinstance(action, Price):
        turn.price(s, seat, action, events)
    elif isinstance(action, Oil):
        turn.oil(s, seat, action, events)
    elif isinstance(action, Done):
        events.append({"kind": "done", "seat": seat})
        flow.begin_move(s, s.index + 1, events)
    elif isinstance(action, Build | Skip):
        if isinstance(action, Build):
            works.build(s, seat, action, events)
        else:
            events.append({"kind": "skip", "seat": seat})
        flow.begin_build(s, s.index + 1, events)
    elif isinstance(action, Produce):
        works.produce(s, seat, action, events)
        flow.begin_produce(s, s.index + 1, events)
    elif isinstance(action, Bid | Pass):
        outcome = (auction.bid(s, seat, action, events) if isinstance(action, Bid)
                   else auction.pass_(s, seat, events))
        if outcome == "closed":
            flow.next_company(s, events)
    elif isinstance(action, Pay):
        auction.pay(s, seat, action, events)
    elif isinstance(action, Sell):
        auction.sell(s, seat, action, events)
        flow.next_company(s, events)


def chance(state: State, rng: random.Random) -> Action:
    """The pending chance line, drawn from ``rng``."""
    return chance_lines.draw(state, pending(state).subject, rng)


# --- view and result -----------------------------------------------------------------------------

def _spaces_view(state: State, seat: str | None) -> JSON:
    """Every space as ``seat`` sees it: a tile's value once built, or peeked by the seat."""
    peeked = state.peeks.get(seat, ()) if seat is not None else ()
    out = {}
    for label, sp in state.spaces.items():
        now = sp["state"]
        derrick = now == "derrick"
        shown = derrick or now == "spent" or (now == "hidden" and label in peeked)
        out[label] = {"type": sp["type"], "state": now,
                      "owner": sp["owner"] if derrick else None,
                      "chips": sp["chips"] if derrick else None,
                      "value": sp["value"] if shown else None}
    return out


def _player_view(state: State, seat: str) -> JSON:
    p = state.players[seat]
    return {"money": p["money"], "loco": p["loco"], "truck": p["truck"],
            "derricks_in_hand": p["derricks"], "licence_cards": len(p["hand"]),
            "card": p["card"], "storage": dict(p["storage"]), "peeked": list(state.peeks[seat])}


def _auction_view(state: State) -> JSON | None:
    a = state.auction
    if a is None or state.phase != "auction":
        return None
    return {"company": a["company"], "eligible": list(a["eligible"]),
            "active": [c for c in a["participants"] if c not in a["passed"]],
            "high_bid": a["high_bid"], "high_bidder": a["high_bidder"], "winner": a["winner"]}


def view(state: State, seat: str | None = None) -> JSON:
    """Everything ``seat`` may know (spec 7.2); ``None`` is a spectator."""
    over = state.phase == "over"
    me = seat if seat in state.players else None
    p = pending(state)
    t = state.turn
    return {
        "game": NAME,
        "round": state.round,
        "phase": state.phase,
        "decision": None if over else state.decision,
        "pending": list(p.seats),
        "subject": p.subject,
        "finished": over,
        "scores": ({c: a["total"] for c, a in state.final.items()} if over and state.final
                   else {c: state.players[c]["money"] for c in state.seats}),
        "winners": list(state.winners),
        "seats": list(state.seats),
        "start_player": state.order[0],
        "order": list(state.order),
        "options": {"unlimited_chips": bool(state.options["unlimited_chips"])},
        "prices": {c: PRICE_TABLE[state.prices[c]] for c in COMPANIES},
        "black_loco": state.black,
        "supply": None if state.unlimited() else state.supply,
        "display": list(state.display),
        "decks": {"beige_draw": len(state.beige_draw),
                  "beige_discard": sorted(state.beige_discard, key=card_number),
                  "red_draw": len(state.red_draw),
                  "red_discard": sorted(state.red_discard, key=card_number),
                  "licence_draw": sum(state.licence_draw.values()),
                  "licence_discard": dict(state.licence_discard)},
        "players": {c: _player_view(state, c) for c in state.seats},
        "spaces": _spaces_view(state, me),
        "turn": None if t is None or state.phase != "move" else
        {"seat": t["seat"], "mp_left": t["mp_left"], "price_used": t["price_used"],
         "oil_used": t["oil_used"]},
        "auction": _auction_view(state),
        "you": None if me is None else
        {"seat": me, "licences": sorted(state.players[me]["hand"])},
        "result": None if not over or state.final is None else
        {c: dict(a) for c, a in state.final.items()},
    }


def result(state: State) -> GigantenResult | None:
    if state.phase != "over" or state.final is None:
        return None
    return GigantenResult({c: a["total"] for c, a in state.final.items()}, list(state.winners),
                          "harbour", {c: dict(a) for c, a in state.final.items()})

