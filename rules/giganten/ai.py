"""A greedy Giganten player that scores each legal action with simple money estimates.

It reads only its own view: tile values it has peeked at (or the average of the tile type),
locomotive positions, prices and its own licence hand. It explores and builds where a derrick
should pay for itself, ships chips where they sell best, and bids no more than it holds.
"""

from __future__ import annotations

import random
from typing import Any

from rules.core import JSON
from rules.giganten.actions import (
    Action,
    Bid,
    Build,
    Done,
    Drive,
    Loco,
    Oil,
    Pass,
    Peek,
    Price,
    Produce,
    Sell,
    Skip,
    Take,
)
from rules.giganten.board import (
    BUILD_COST,
    CARDS,
    COST,
    FEE,
    HARBOUR,
    TILE_VALUES,
    column,
    neighbours,
)

MEAN_VALUE = {t: sum(v) / len(v) for t, v in TILE_VALUES.items()}
MP_WORTH = 250
"""Dollars an unspent movement point could earn on the rail instead."""


def greedy(view: JSON, seat: str, actions: list[Action], rng: random.Random) -> Action:
    decision = view["decision"]
    chooser = {"take": _take, "move": _move, "build": _build, "produce": _produce,
               "bid": _bid, "sell": _sell}.get(decision)
    if chooser is None:
        return rng.choice(actions)
    return chooser(view, seat, actions)


def _rounds_left(view: JSON) -> float:
    return max(1.0, (HARBOUR - view["black_loco"]) / 2.2)


def _me(view: JSON, seat: str) -> dict[str, Any]:
    return view["players"][seat]


def _chip_worth(view: JSON, seat: str, col: int) -> float:
    """What one chip from a derrick in column ``col`` is likely worth to this seat."""
    best = max(view["prices"].values())
    loco = _me(view, seat)["loco"]
    if loco >= col:
        return 0.75 * best
    if view["black_loco"] >= col or any(
            p["loco"] >= col for c, p in view["players"].items() if c != seat):
        return max(1000.0, 0.75 * best - FEE)
    return max(1000.0, 0.75 * best - 400 * (col - loco))


def _tile_worth(view: JSON, seat: str, label: str) -> float:
    space = view["spaces"].get(label)
    if not space or space["state"] != "hidden":
        return float("-inf")
    cost = BUILD_COST[space["type"]]
    if _me(view, seat)["money"] < cost or _me(view, seat)["derricks_in_hand"] < 1:
        return float("-inf")
    value = space["value"] if space["value"] is not None else MEAN_VALUE[space["type"]]
    rounds = _rounds_left(view)
    shipped = min(value, rounds)
    return (shipped * _chip_worth(view, seat, column(label)) + (value - shipped) * 1000
            + 2500 - cost)


def _best_near(view: JSON, seat: str, where: str | None) -> float:
    if where is None:
        return 0.0
    return max([0.0, *(_tile_worth(view, seat, n) for n in neighbours(where))])


# --- Action 2c -----------------------------------------------------------------------------------

def _take(view: JSON, seat: str, actions: list[Action]) -> Action:
    me = _me(view, seat)
    holding = sum(me["storage"].values()) > 0 or any(
        s["owner"] == seat for s in view["spaces"].values())
    lic_worth = 1300 if holding else 900
    behind = any(s["owner"] == seat and column(label) > me["loco"]
                 for label, s in view["spaces"].items())
    mp_worth = 550 + (200 if behind else 0)

    def score(card_id: str) -> float:
        card = CARDS[card_id]
        special = card["special"] or {}
        extra = {"oil": 3500, "price": 400 * special.get("value", 0),
                 "locos_back": 250 * special.get("value", 0)}.get(special.get("kind", ""), 0)
        return card["licences"] * lic_worth + card["mp"] * mp_worth + extra

    takes = [a for a in actions if isinstance(a, Take)]
    return max(takes, key=lambda a: score(a.card))


# --- Action 4 ------------------------------------------------------------------------------------

def _path_cost(view: JSON, seat: str, action: Drive) -> int:
    steps = action.path if _me(view, seat)["truck"] else action.path[1:]
    return sum(COST[label] for label in steps)


def _move(view: JSON, seat: str, actions: list[Action]) -> Action:
    me = _me(view, seat)
    peeks = [a for a in actions if isinstance(a, Peek)]
    if peeks:
        return peeks[0]
    oils = [a for a in actions if isinstance(a, Oil)]
    if oils:
        return max(oils, key=lambda a: (me["storage"][a.company] < 2,
                                        view["prices"][a.company]))
    price = _price_change(view, seat, actions)
    if price is not None:
        return price
    drives = [a for a in actions if isinstance(a, Drive)]
    if drives and me["derricks_in_hand"] > 0:
        here = _best_near(view, seat, me["truck"])
        best = max(drives, key=lambda a: _best_near(view, seat, a.path[-1])
                   - MP_WORTH * _path_cost(view, seat, a))
        gain = _best_near(view, seat, best.path[-1]) - MP_WORTH * _path_cost(view, seat, best)
        if gain > here + 500:
            return best
    locos = [a for a in actions if isinstance(a, Loco)]
    if locos:
        return max(locos, key=lambda a: a.steps)
    return next(a for a in actions if isinstance(a, Done))


def _price_change(view: JSON, seat: str, actions: list[Action]) -> Action | None:
    """Raise the price where this seat keeps the most chips."""
    me = _me(view, seat)
    changes = [a for a in actions if isinstance(a, Price) and a.change > 0]
    if not changes or not any(me["storage"].values()):
        return None
    return max(changes, key=lambda a: (me["storage"][a.company], a.change))


# --- Actions 5 and 6 -----------------------------------------------------------------------------

def _build(view: JSON, seat: str, actions: list[Action]) -> Action:
    builds = [a for a in actions if isinstance(a, Build)]
    scored = [(_tile_worth(view, seat, a.label), a) for a in builds]
    worth, best = max(scored, key=lambda x: x[0], default=(0.0, None))
    if best is not None and worth > 0:
        return best
    return next(a for a in actions if isinstance(a, Skip))


def _stored_worth(view: JSON, seat: str, company: str, added: int) -> float:
    stored, price = _me(view, seat)["storage"][company], view["prices"][company]
    total = 0.0
    for k in range(stored + 1, stored + added + 1):
        total += 0.8 * price if k <= 2 else max(1000.0, 0.35 * price)
    return total


def _produce(view: JSON, seat: str, actions: list[Action]) -> Action:
    def score(action: Action) -> float:
        assert isinstance(action, Produce)
        added: dict[str, int] = {}
        fees = 0.0
        for e in action.entries:
            if e.company:
                added[e.company] = added.get(e.company, 0) + 1
            if e.via:
                fees += FEE + (800 if e.via != "black" else 0)
        return sum(_stored_worth(view, seat, c, n) for c, n in added.items()) - fees

    return max(actions, key=score)


# --- Action 7 ------------------------------------------------------------------------------------

def _bid(view: JSON, seat: str, actions: list[Action]) -> Action:
    auction = view["auction"]
    company = auction["company"]
    chips = _me(view, seat)["storage"][company]
    worth = chips * view["prices"][company]
    hand = sum(view["you"]["licences"]) if view["you"] else 0
    willing = min(hand, max(1, round(worth / 1800)))
    amount = auction["high_bid"] + 1
    if amount <= willing:
        bid = next((a for a in actions if isinstance(a, Bid) and a.amount == amount), None)
        if bid is not None:
            return bid
    return next(a for a in actions if isinstance(a, Pass))


def _sell(view: JSON, seat: str, actions: list[Action]) -> Action:
    sells = [a for a in actions if isinstance(a, Sell)]
    return max(sells, key=lambda a: a.count)
