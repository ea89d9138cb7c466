"""What the ``strong`` AI's search (:mod:`rules.ismcts`) needs to know about Giganten.

Giganten's secrets are the face-down tile values (a seat knows the ones it peeked), the licence
hands of the other seats and the mix of the licence draw pile. Everything else a state holds can
be read off a view: the card piles are public as sets (the view gives the draw piles' sizes and
every card that left them), and the order of a draw pile means nothing, because a chance line
draws any card of it. So :func:`determinize` rebuilds the public part exactly and samples only
those secrets, uniformly among the assignments the visible counts allow.

:func:`evaluate` turns a money estimate of the final accounting into win shares,
:func:`policy` is the greedy AI (cheap enough to play whole rounds in a rollout), and
:func:`candidates` cuts the long lists of legal actions (every drive, every bid up to 117, every
price step) down to the few a sensible player weighs.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import Counter
from typing import Any

from rules.core import JSON
from rules.giganten import turn
from rules.giganten.actions import (
    Action,
    Bid,
    Done,
    Drive,
    Loco,
    Pass,
    Pay,
    Price,
    Sell,
)
from rules.giganten.ai import MEAN_VALUE, MP_WORTH, greedy
from rules.giganten.board import (
    BEIGE,
    BUILD_COST,
    CARDS,
    CHIP_VALUE,
    CHIPS,
    COMPANIES,
    COST,
    DERRICK_BONUS,
    FEE,
    HARBOUR,
    LICENCES,
    MAX_BID,
    ORDER,
    PEEKABLE,
    PRICE_TABLE,
    RAIL_COST,
    RAIL_LAST,
    RED,
    ROWS,
    STORAGE_LIMIT,
    TILE_SPACES,
    TILE_VALUES,
    column,
    neighbours,
)
from rules.giganten.engine import legal, view
from rules.giganten.state import State

HORIZON = 40
"""Actor steps a rollout plays before :func:`evaluate`: about one round (a round is some
forty to fifty seat lines, most of them single bid steps), so a rollout sees the auctions and the
production that follow a move."""

TEMPERATURE = 6000.0
"""Dollars of estimated final score that make a factor e in the win-share odds."""

MEAN_BLACK_STEP = sum(c["black"] for c in CARDS.values() if c["deck"] == "red") / len(RED)
"""How far the black locomotive moves a round on average (26 / 12)."""

BID_RAISES = (1, 2)
"""The raises a search weighs besides passing. Against a seat that raises by one up to what
the chips are worth to it, raising by one is never worse than a jump; a second raise keeps a
cheap jump in reach."""

DRIVES_KEPT = 4
"""Drives a search weighs: the best ones by the greedy AI's score of the tiles they reach."""

LICENCE_WORTH = 450.0
"""Dollars a licence point held at the end of a rollout is worth: the right to sell later."""

_DECISIONS_WITH_INDEX = ("take", "licences", "move", "build", "produce")
"""The sequential decisions whose actor is ``state.order[state.index]``."""


# --- determinize ---------------------------------------------------------------------------------

def determinize(view: JSON, seat: str, rng: random.Random) -> State:
    """A full state agreeing with ``view``: hidden tile values and the other seats' licence hands
    drawn at random from what is left once everything visible is taken out."""
    seats = list(view["seats"])
    state = State(seats=seats, options=dict(view["options"]), round=view["round"],
                  phase=view["phase"], decision=view["decision"] or "over")
    state.prices = {c: PRICE_TABLE.index(view["prices"][c]) for c in COMPANIES}
    state.black = view["black_loco"]
    state.supply = CHIPS if view["supply"] is None else view["supply"]
    state.display = list(view["display"])
    _decks(state, view)
    state.peeks = {c: list(view["players"][c]["peeked"]) for c in seats}
    state.spaces = _spaces(view, rng)
    state.players, state.licence_draw = _players(view, seat, rng)
    state.index = _index(state, view)
    t = view["turn"]
    state.turn = None if t is None else {"seat": t["seat"], "mp_left": t["mp_left"],
                                         "price_used": t["price_used"],
                                         "oil_used": t["oil_used"]}
    state.auction = _auction(state, view)
    state.winners = list(view["winners"])
    state.final = None if view["result"] is None else {
        c: dict(a) for c, a in view["result"].items()}
    return state


def _decks(state: State, view: JSON) -> None:
    """The draw piles are every card of their deck that is in no other place."""
    decks = view["decks"]
    held = {p["card"] for p in view["players"].values() if p["card"]}
    gone = set(decks["beige_discard"]) | set(decks["red_discard"]) | set(view["display"]) | held
    state.beige_discard = list(decks["beige_discard"])
    state.red_discard = list(decks["red_discard"])
    state.beige_draw = [c for c in BEIGE if c not in gone]
    state.red_draw = [c for c in RED if c not in gone]
    state.licence_discard = {k: decks["licence_discard"][k] for k in LICENCES}


def _spaces(view: JSON, rng: random.Random) -> dict[str, dict[str, Any]]:
    """Shown values stay; each tile type's unshown values are shuffled onto its hidden spaces
    (in a three-seat game two of each type stay in the box, so the pool is larger)."""
    spaces = {label: {"type": sp["type"], "state": sp["state"], "value": sp["value"],
                      "owner": sp["owner"], "chips": sp["chips"] or 0}
              for label, sp in ((label, view["spaces"][label]) for label in TILE_SPACES)}
    if view["decision"] == "tiles":  # before the tiles line no tile has a value yet
        return spaces
    for tile_type, values in TILE_VALUES.items():
        pool = Counter(values)
        unknown = []
        for label, sp in spaces.items():
            if sp["type"] != tile_type or sp["state"] == "unused":
                continue
            if sp["value"] is None:
                unknown.append(label)
            else:
                pool[sp["value"]] -= 1
        rest = list(pool.elements())
        for label, value in zip(unknown, rng.sample(rest, len(unknown)), strict=True):
            spaces[label]["value"] = value
    return spaces


def _players(view: JSON, seat: str, rng: random.Random
             ) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    """The players, and the licence draw pile: what the dealt hands left of the unseen pool."""
    you = view["you"]
    me = seat if you and you["seat"] == seat else None
    hands, draw = _hands(view, me, sorted(you["licences"]) if me else [], rng)
    return {c: {"money": p["money"], "loco": p["loco"], "truck": p["truck"],
                "derricks": p["derricks_in_hand"], "hand": hands[c], "card": p["card"],
                "storage": {k: p["storage"][k] for k in COMPANIES}}
            for c, p in view["players"].items()}, draw


def _hands(view: JSON, me: str | None, mine: list[int], rng: random.Random
           ) -> tuple[dict[str, list[int]], dict[str, int]]:
    """The other seats' hands and the draw pile, dealt at random from the licences nobody sees.

    One constraint comes from the table: a seat that won an auction and must now sell could pay
    its bid (else it would be forfeiting), and a seat that must forfeit could not."""
    seen = Counter(mine)
    discard = view["decks"]["licence_discard"]
    pool = [1] * (LICENCES["1"] - seen[1] - discard["1"]) \
        + [2] * (LICENCES["2"] - seen[2] - discard["2"])
    others = [c for c in view["seats"] if c != me]
    sizes = {c: view["players"][c]["licence_cards"] for c in others}
    need = _winner_need(view, me)
    hands: dict[str, list[int]] = {}
    rest: list[int] = []
    for _ in range(30):
        rng.shuffle(pool)
        hands, rest = _deal(pool, others, sizes)
        if need is None or need[1] == (sum(hands[need[0]]) >= need[2]):
            break
    else:  # rare: deal the winner the hand that fits best, the rest at random
        assert need is not None
        winner, able, _ = need
        pool.sort(reverse=able)
        size = sizes[winner]
        tail = pool[size:]
        rng.shuffle(tail)
        hands, rest = _deal(pool[:size] + tail, [winner, *(c for c in others if c != winner)],
                            sizes)
    if me is not None:
        hands[me] = list(mine)
    return hands, {"1": rest.count(1), "2": rest.count(2)}


def _deal(pool: list[int], seats: list[str], sizes: dict[str, int]
          ) -> tuple[dict[str, list[int]], list[int]]:
    hands, at = {}, 0
    for c in seats:
        hands[c] = sorted(pool[at:at + sizes[c]])
        at += sizes[c]
    return hands, pool[at:]


def _winner_need(view: JSON, me: str | None) -> tuple[str, bool, int] | None:
    """(winner, must be able to pay, bid) while another seat's sell or forfeit is pending."""
    a = view["auction"]
    if a is None or a["winner"] is None or a["winner"] == me:
        return None
    if view["decision"] == "forfeit":
        return a["winner"], False, a["high_bid"]
    if view["decision"] == "sell":
        return a["winner"], True, a["high_bid"]
    return None


def _index(state: State, view: JSON) -> int:
    if view["decision"] not in _DECISIONS_WITH_INDEX:
        return 0
    actor = view["subject"] if view["decision"] == "licences" else view["pending"][0]
    return state.order.index(actor)


def _auction(state: State, view: JSON) -> dict[str, Any] | None:
    """The auction's bookkeeping: the participants are the eligible seats that held licences
    when it opened (hands change only when the winner pays), the others active ones passed."""
    a = view["auction"]
    if a is None:
        return None
    active = list(a["active"])
    participants = [c for c in a["eligible"]
                    if c in active or state.players[c]["hand"]]
    winner = a["winner"]
    paid = False
    if winner is not None and view["decision"] == "sell":
        paid = sum(state.players[winner]["hand"]) < a["high_bid"]
    return {"company": a["company"], "eligible": list(a["eligible"]),
            "participants": participants,
            "passed": [c for c in participants if c not in active],
            "high_bid": a["high_bid"], "high_bidder": a["high_bidder"],
            "to_act": view["pending"][0] if view["decision"] == "bid" else None,
            "winner": winner, "paid": paid}


# --- evaluate ------------------------------------------------------------------------------------

def rounds_left(state: State) -> float:
    """Complete rounds still to come, the current one excluded: the round whose red card takes
    the black locomotive to the harbour is never played."""
    return max(0.0, (HARBOUR - state.black) / MEAN_BLACK_STEP - 0.5)


def worth(state: State) -> dict[str, float]:
    """Each seat's estimated final total: cash, plus what its stored chips, derricks, locomotive
    rank and licences will still bring."""
    seats = state.seats
    rounds = rounds_left(state)
    live = state.phase in ("prices", "cards", "licences", "move", "build", "produce")
    produce_rounds = rounds + (1.0 if live else 0.0)
    ranked = sorted(seats, key=lambda c: -state.players[c]["loco"])
    rank = {c: i for i, c in enumerate(ranked)}
    best_price = max(PRICE_TABLE[i] for i in state.prices.values())
    out: dict[str, float] = {}
    for c in seats:
        p = state.players[c]
        total = float(p["money"])
        for company in COMPANIES:
            stored = p["storage"][company]
            price = PRICE_TABLE[state.prices[company]]
            sellable = min(stored, STORAGE_LIMIT)
            total += sellable * (CHIP_VALUE + 0.55 * (price - CHIP_VALUE))
            total += (stored - sellable) * CHIP_VALUE
        chip = _chip_worth(state, c, best_price)
        for label, sp in state.spaces.items():
            if sp["state"] != "derrick" or sp["owner"] != c:
                continue
            shipped = min(sp["chips"], produce_rounds)
            total += shipped * chip(column(label)) + (sp["chips"] - shipped) * CHIP_VALUE
            if sp["chips"] > produce_rounds:
                total += DERRICK_BONUS[rank[c]]
        total += LICENCE_WORTH * sum(p["hand"])
        out[c] = total
    return out


def _chip_worth(state: State, seat: str, best: int) -> Any:
    own = state.players[seat]["loco"]
    rival = max(state.players[c]["loco"] for c in state.seats if c != seat)
    value = CHIP_VALUE + 0.5 * (best - CHIP_VALUE)

    def at(col: int) -> float:
        if own >= col:
            return value
        if state.black >= col or rival >= col:
            return max(float(CHIP_VALUE) * 0.5, value - FEE)
        return max(0.0, value - FEE - 300.0 * (col - own))
    return at


def evaluate(state: State) -> dict[str, float]:
    """Win shares from :func:`worth` by a softmax: a lead of TEMPERATURE dollars makes the leader
    e times as likely to win as the other seat."""
    scores = worth(state)
    top = max(scores.values())
    weights = {c: math.exp((v - top) / TEMPERATURE) for c, v in scores.items()}
    total = sum(weights.values())
    return {c: w / total for c, w in weights.items()}


# --- policy and candidates -----------------------------------------------------------------------

def policy(state: State, seat: str, rng: random.Random) -> Action:
    """The greedy AI's choice, worked out from the state where that is much cheaper than the
    greedy AI itself: bids and sales (the greedy AI would read a list of 117 bids) and the
    movement turn (one shortest-path search instead of a scored line for every reachable
    space). The seat's estimates use only what it may know: a tile it has not peeked at counts
    at its type's mean value."""
    decision = state.decision
    if decision == "bid":
        return _policy_bid(state, seat)
    if decision == "sell":
        a = state.auction
        assert a is not None
        return Sell(state.players[seat]["storage"][a["company"]])
    if decision == "move":
        return _policy_move(state, seat)
    actions = legal(state, seat)
    if len(actions) == 1:
        return actions[0]
    return greedy(view(state, seat), seat, actions, rng)


def _policy_bid(state: State, seat: str) -> Action:
    a = state.auction
    assert a is not None
    chips = state.players[seat]["storage"][a["company"]]
    value = chips * PRICE_TABLE[state.prices[a["company"]]]
    willing = min(sum(state.players[seat]["hand"]), max(1, round(value / 1800)))
    amount = a["high_bid"] + 1
    return Bid(amount) if amount <= min(willing, MAX_BID) else Pass()


def _policy_move(state: State, seat: str) -> Action:
    peeks = turn.peeks(state, seat)
    if peeks:
        return peeks[0]
    p = state.players[seat]
    oils = turn.oils(state, seat)
    if oils:
        return max(oils, key=lambda a: (p["storage"][a.company] < 2,
                                        state.prices[a.company]))
    if any(p["storage"].values()):
        ups = [a for a in turn.prices(state, seat) if a.change > 0]
        if ups:
            return max(ups, key=lambda a: (p["storage"][a.company], a.change))
    if p["derricks"] > 0:
        drive = _policy_drive(state, seat)
        if drive is not None:
            return drive
    assert state.turn is not None
    mp, at, steps = state.turn["mp_left"], p["loco"], 0
    while at + steps < RAIL_LAST and RAIL_COST[at + steps + 1] <= mp:
        steps += 1
        mp -= RAIL_COST[at + steps]
    return Loco(steps) if steps else Done()


def _policy_drive(state: State, seat: str) -> Drive | None:
    """The greedy AI's drive: to the space whose best neighbouring tile, less 250 dollars a
    movement point, beats staying by more than 500 dollars; None to stay."""
    assert state.turn is not None
    near: dict[str, float] = {}
    for label, w in _tile_worths(state, seat).items():
        for n in neighbours(label):
            near[n] = max(near.get(n, 0.0), w)
    if not near:
        return None
    p = state.players[seat]
    here = near.get(p["truck"], 0.0) if p["truck"] else 0.0
    most = max(near.values())
    mp = state.turn["mp_left"]
    trucks = {q["truck"] for c, q in state.players.items() if c != seat and q["truck"]}
    start = p["truck"]
    sources = [start] if start else [f"{r}1" for r in ROWS if f"{r}1" not in trucks]
    best: dict[str, int] = {}
    prev: dict[str, str | None] = {}
    heap: list[tuple[int, int, str, str | None]] = [(0, ORDER[src], src, None) for src in sources]
    heapq.heapify(heap)
    spaces = state.spaces
    top, top_end = here + 500, None
    while heap:
        cost, _, label, before = heapq.heappop(heap)
        if label in best:
            continue
        if most - MP_WORTH * cost <= top:
            break  # no farther space can beat the best one found
        best[label], prev[label] = cost, before
        if label in near and label != start and label not in trucks and not (
                label in spaces and spaces[label]["state"] == "hidden"):
            gain = near[label] - MP_WORTH * cost
            if gain > top:
                top, top_end = gain, label
        for nxt in neighbours(label):
            step = cost + COST[nxt]
            if nxt not in best and step <= mp and not (
                    nxt in spaces and spaces[nxt]["state"] == "derrick"):
                heapq.heappush(heap, (step, ORDER[nxt], nxt, label))
    if top_end is None:
        return None
    path: list[str] = []
    at: str | None = top_end
    while at is not None and at != start:
        path.append(at)
        at = prev[at]
    return Drive(tuple(reversed(path)))


def _tile_worths(state: State, seat: str) -> dict[str, float]:
    """The greedy AI's worth of building each hidden tile this seat can afford (and only the
    ones worth more than nothing)."""
    p = state.players[seat]
    if p["derricks"] < 1:
        return {}
    rounds = max(1.0, (HARBOUR - state.black) / 2.2)
    best = max(PRICE_TABLE[i] for i in state.prices.values())
    rival = max(state.players[c]["loco"] for c in state.seats if c != seat)
    peeked = state.peeks[seat]
    out: dict[str, float] = {}
    for label, sp in state.spaces.items():
        if sp["state"] != "hidden" or p["money"] < BUILD_COST[sp["type"]]:
            continue
        col = column(label)
        if p["loco"] >= col:
            chip = 0.75 * best
        elif state.black >= col or rival >= col:
            chip = max(1000.0, 0.75 * best - FEE)
        else:
            chip = max(1000.0, 0.75 * best - 400 * (col - p["loco"]))
        value = sp["value"] if label in peeked else MEAN_VALUE[sp["type"]]
        shipped = min(value, rounds)
        w = shipped * chip + (value - shipped) * 1000 + 2500 - BUILD_COST[sp["type"]]
        if w > 0:
            out[label] = w
    return out


def candidates(state: State, seat: str, actions: list[Action]) -> list[Action]:
    """The actions worth a search: the greedy AI's choice plus the reasonable alternatives."""
    decision = state.decision
    if decision == "move":
        kept = _move_candidates(state, seat, actions)
    elif decision == "bid":
        kept = _bid_candidates(state, seat, actions)
    elif decision == "sell":
        sells = [a for a in actions if isinstance(a, Sell)]
        kept = [max(sells, key=lambda a: a.count)] if sells else actions
    else:
        return actions
    pick = greedy(view(state, seat), seat, actions, random.Random(0))
    if pick not in kept:
        kept.append(pick)
    return kept


def _bid_candidates(state: State, seat: str, actions: list[Action]) -> list[Action]:
    """Pass, or raise by BID_RAISES within the hand's value; bluffs beyond it cost half the
    hand when they win, so they are left out."""
    a = state.auction
    assert a is not None
    hand = sum(state.players[seat]["hand"])
    top = a["high_bid"]
    wanted = {top + n for n in BID_RAISES if top + n <= hand}
    return [x for x in actions
            if isinstance(x, Pass) or (isinstance(x, Bid) and x.amount in wanted)]


def _move_candidates(state: State, seat: str, actions: list[Action]) -> list[Action]:
    """Peeks, oil and ``done`` always; drives only to spaces next to a tile worth building or
    peeking; the longest locomotive run and the runs that just reach an own derrick's column;
    each company's largest price step up and down."""
    p = state.players[seat]
    locos = [a for a in actions if isinstance(a, Loco)]
    longest = max((a.steps for a in locos), default=0)
    targets = {column(label) - p["loco"] for label, sp in state.spaces.items()
               if sp["state"] == "derrick" and sp["owner"] == seat and column(label) > p["loco"]}
    price_ends: dict[str, tuple[int, int]] = {}
    for a in actions:
        if isinstance(a, Price):
            lo, hi = price_ends.get(a.company, (0, 0))
            price_ends[a.company] = (min(lo, a.change), max(hi, a.change))
    near: dict[str, float] = {}
    for label, w in _tile_worths(state, seat).items():
        for n in neighbours(label):
            near[n] = max(near.get(n, 0.0), w)
    placed = p["truck"] is not None

    def drive_score(a: Drive) -> float:
        steps = a.path if placed else a.path[1:]
        return near.get(a.path[-1], 0.0) - MP_WORTH * sum(COST[x] for x in steps)

    drives = sorted((a for a in actions
                     if isinstance(a, Drive) and _drive_target(state, seat, a.path[-1])),
                    key=drive_score, reverse=True)[:DRIVES_KEPT]
    kept: list[Action] = list(drives)
    for a in actions:
        if isinstance(a, Loco):
            if a.steps == longest or a.steps in targets:
                kept.append(a)
        elif isinstance(a, Price):
            if a.change in price_ends[a.company]:
                kept.append(a)
        elif not isinstance(a, Pay | Drive):
            kept.append(a)
    return kept


def _drive_target(state: State, seat: str, end: str) -> bool:
    """Does ending a drive on ``end`` put a tile within reach: one this seat could still build
    (it has a derrick and, by the build, the money) or peek at?"""
    p = state.players[seat]
    for label in neighbours(end):
        sp = state.spaces.get(label)
        if sp is None or sp["state"] != "hidden":
            continue
        if label not in state.peeks[seat] and PEEKABLE[sp["type"]]:
            return True
        known = sp["value"] if label in state.peeks[seat] else MEAN_VALUE[sp["type"]]
        if p["derricks"] > 0 and p["money"] >= BUILD_COST[sp["type"]] and known >= 3:
            return True
    return False
