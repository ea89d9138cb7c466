"""Action 7 (spec 5.7): open ascending auctions, payment, bluffs, selling; Action 8 overfill."""

from __future__ import annotations

from collections import Counter

from rules.core import Event, IllegalAction
from rules.giganten.actions import Bid, Pay, Sell
from rules.giganten.board import COMPANIES, MAX_BID, OVERFILL, PRICE_TABLE, STORAGE_LIMIT
from rules.giganten.state import State
from rules.giganten.works import return_chips


def open_auction(s: State, company: str, events: list[Event]) -> bool:
    """Set up the auction at ``company``; False when nobody takes part (no sale)."""
    eligible = [c for c in s.order if s.players[c]["storage"][company] > 0]
    participants = [c for c in eligible if s.players[c]["hand"]]
    if not participants:
        s.auction = None
        if eligible:
            events.append({"kind": "no_sale", "company": company})
        return False
    s.phase, s.decision = "auction", "bid"
    s.auction = {"company": company, "eligible": eligible, "participants": participants,
                 "passed": [], "high_bid": 0, "high_bidder": None, "to_act": participants[0],
                 "winner": None, "paid": False}
    events.append({"kind": "auction", "company": company, "participants": participants})
    return True


def _still_in(a: dict) -> list[str]:
    return [c for c in a["participants"] if c not in a["passed"]]


def _next(a: dict) -> str | None:
    """The next participant to act after the one who just did, or None when it is decided."""
    waiting = [c for c in _still_in(a) if c != a["high_bidder"]]
    if not waiting:
        return None
    ring = a["participants"]
    start = ring.index(a["to_act"])
    for step in range(1, len(ring) + 1):
        cand = ring[(start + step) % len(ring)]
        if cand in waiting:
            return cand
    return None


def bid(s: State, seat: str, action: Bid, events: list[Event]) -> str:
    a = s.auction
    assert a is not None
    if action.amount <= a["high_bid"]:
        raise IllegalAction("bid.low", amount=action.amount, high=a["high_bid"])
    if action.amount > MAX_BID:
        raise IllegalAction("bid.high", amount=action.amount, most=MAX_BID)
    a["high_bid"], a["high_bidder"] = action.amount, seat
    events.append({"kind": "bid", "seat": seat, "amount": action.amount})
    return _after_turn(s, events)


def pass_(s: State, seat: str, events: list[Event]) -> str:
    a = s.auction
    assert a is not None
    a["passed"].append(seat)
    events.append({"kind": "pass", "seat": seat})
    return _after_turn(s, events)


def _after_turn(s: State, events: list[Event]) -> str:
    """``"bid"`` (go on), ``"sell"``, ``"forfeit"`` or ``"closed"`` (no sale)."""
    a = s.auction
    assert a is not None
    nxt = _next(a)
    if nxt is not None:
        a["to_act"] = nxt
        return "bid"
    a["to_act"] = None
    winner = a["high_bidder"]
    if winner is None:
        events.append({"kind": "no_sale", "company": a["company"]})
        return "closed"
    a["winner"] = winner
    can_pay = sum(s.players[winner]["hand"]) >= a["high_bid"]
    events.append({"kind": "won", "seat": winner, "company": a["company"], "bid": a["high_bid"],
                   "bluff": not can_pay})
    s.decision = "sell" if can_pay else "forfeit"
    return s.decision


def auto_payment(hand: list[int], amount: int) -> tuple[int, ...]:
    """Smallest total, then fewest cards (spec 5.7)."""
    ones, twos = hand.count(1), hand.count(2)
    pay_twos = min(twos, amount // 2)
    pay_ones = amount - 2 * pay_twos
    if pay_ones > ones:
        return (2,) * ((amount + 1) // 2)
    return (1,) * pay_ones + (2,) * pay_twos


def payments(hand: list[int], amount: int) -> list[tuple[int, ...]]:
    """Every payment without a card that could be left out, smallest total first."""
    out = []
    for twos in range(hand.count(2) + 1):
        for ones in range(hand.count(1) + 1):
            total = ones + 2 * twos
            smallest = 1 if ones else 2
            if total >= amount and total - smallest < amount:
                out.append((1,) * ones + (2,) * twos)
    return sorted(out, key=lambda v: (sum(v), len(v), v))


def pay(s: State, seat: str, action: Pay, events: list[Event]) -> None:
    a, hand = s.auction, s.players[seat]["hand"]
    assert a is not None
    given, held = Counter(action.values), Counter(hand)
    if any(given[v] > held[v] for v in given):
        raise IllegalAction("pay.not_held", values=list(action.values))
    if sum(action.values) < a["high_bid"]:
        raise IllegalAction("pay.short", total=sum(action.values), bid=a["high_bid"])
    if sum(action.values) - min(action.values) >= a["high_bid"]:
        raise IllegalAction("pay.excess", total=sum(action.values), bid=a["high_bid"])
    _discard(s, seat, action.values)
    a["paid"] = True
    events.append({"kind": "pay", "seat": seat, "values": list(action.values)})


def _discard(s: State, seat: str, values: tuple[int, ...]) -> None:
    hand = s.players[seat]["hand"]
    for v in values:
        hand.remove(v)
        s.licence_discard[str(v)] += 1


def sell(s: State, seat: str, action: Sell, events: list[Event]) -> None:
    a, p = s.auction, s.players[seat]
    assert a is not None
    company = a["company"]
    if action.count > p["storage"][company]:
        raise IllegalAction("sell.range", count=action.count, stored=p["storage"][company])
    if not a["paid"]:
        values = auto_payment(p["hand"], a["high_bid"])
        _discard(s, seat, values)
        a["paid"] = True
        events.append({"kind": "pay", "seat": seat, "values": list(values), "automatic": True})
    price = PRICE_TABLE[s.prices[company]]
    p["storage"][company] -= action.count
    p["money"] += action.count * price
    return_chips(s, action.count)
    events.append({"kind": "sell", "seat": seat, "company": company, "count": action.count,
                   "price": price})


def overfill(s: State, events: list[Event]) -> None:
    """Action 8: excess chips go back; $1,000 each in compensation."""
    for seat in s.order:
        p = s.players[seat]
        for company in COMPANIES:
            extra = p["storage"][company] - STORAGE_LIMIT
            if extra > 0:
                p["storage"][company] = STORAGE_LIMIT
                p["money"] += extra * OVERFILL
                return_chips(s, extra)
                events.append({"kind": "overfill", "seat": seat, "company": company,
                               "chips": extra})
