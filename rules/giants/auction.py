"""Phases 1 and 2: the moai draw and the auction (spec sections 5.1 and 5.2)."""

from __future__ import annotations

import random
from typing import Any

from rules.core import REVEALS, SEALED, Event, IllegalAction
from rules.giants.actions import Bid, Dice, Take
from rules.giants.state import State, after, new_committed, turn_order


def roll(seed: int, round_no: int, n: int, faces: str) -> list[int]:
    """The dice of spec section 8, the same in every implementation."""
    rng = random.Random(f"giants:{seed}:{round_no}")
    values = [int(c) for c in faces]
    return [rng.choice(values) for _ in range(n)]


def chance(state: State, rng: random.Random) -> Dice:
    """The dice for a record that leaves them out: a function of the seed and the round, so every
    implementation draws the same (spec section 8); ``rng`` is not needed."""
    return Dice(tuple(roll(state.seed, state.round, len(state.seats), state.options["faces"])))


def apply_dice(s: State, action: Dice, events: list[Event]) -> None:
    need = len(s.seats)
    if len(action.faces) != need:
        raise IllegalAction("dice_count", need=need)
    for face in action.faces:
        if face not in [int(c) for c in s.options["faces"]]:
            raise IllegalAction("bad_face", face=face)
    s.dice = list(action.faces)
    s.bids, s.revealed = {}, False
    added: list[int] = []
    for face in action.faces:
        size = face
        if s.round == 1:
            size = {0: 1, 3: 2}.get(face, face)
        if size and s.supply["moai"][str(size)] > 0:
            s.supply["moai"][str(size)] -= 1
            added.append(size)
    s.offer = sorted(added)
    events.append({"kind": "rolled", "faces": list(action.faces), "sizes": sorted(added)})
    if s.offer:
        s.phase = "bid"
    else:
        start_placement(s)


def apply_bid(s: State, seat: str, bid: Bid, events: list[Event]) -> None:
    screen = s.players[seat]["screen"]
    for piece in ("chief", "sorcerer"):
        if getattr(bid, piece) and not screen[piece]:
            raise IllegalAction("not_behind_screen", piece=piece)
    for piece, count in (("markers", bid.markers), ("workers", bid.workers)):
        if count > screen[piece]:
            raise IllegalAction("too_many", piece=piece, have=screen[piece])
    s.bids[seat] = {"markers": bid.markers, "workers": bid.workers, "chief": bid.chief,
                    "sorcerer": bid.sorcerer}
    events.append({"kind": "bid_submitted", "seat": seat, SEALED: seat})
    if len(s.bids) == len(s.seats):
        _reveal(s, events)


def _reveal(s: State, events: list[Event]) -> None:
    """Every bid piece is committed, used or not; then the choosing order."""
    order = turn_order(s)
    for seat, bid in s.bids.items():
        screen, committed = s.players[seat]["screen"], s.players[seat]["committed"]
        for piece in ("markers", "workers"):
            screen[piece] -= bid[piece]
            committed[piece] += bid[piece]
        for piece in ("chief", "sorcerer"):
            if bid[piece]:
                screen[piece], committed[piece] = False, True
    s.revealed = True
    choosing = sorted(order, key=lambda p: (-s.bids[p]["markers"], -s.players[p]["rongo"],
                                            order.index(p)))
    s.choosing = {"order": choosing, "taken": {p: [] for p in choosing}, "done": []}
    events.append({"kind": "bids_revealed", "bids": {p: dict(s.bids[p]) for p in order},
                   "order": choosing, REVEALS: True})
    _next_chooser(s, None, events)


def allowed(s: State, seat: str, size: int) -> bool:
    """Whether ``seat`` may take one more statue of ``size`` (spec 5.2, option chief_split)."""
    assert s.choosing is not None
    bid = s.bids[seat]
    sizes = [*s.choosing["taken"][seat], size]
    plain = bid["workers"] + (1 if bid["sorcerer"] else 0)
    if s.options["chief_split"]:
        return sum(sizes) <= plain + (3 if bid["chief"] else 0)
    return sum(sizes) <= plain or (bid["chief"] and sum(sizes) - max(sizes) <= plain)


def can_choose(s: State, seat: str) -> bool:
    assert s.choosing is not None
    return seat not in s.choosing["done"] and any(allowed(s, seat, z) for z in set(s.offer))


def _next_chooser(s: State, previous: str | None, events: list[Event]) -> None:
    assert s.choosing is not None
    order = s.choosing["order"]
    scan = order if previous is None else after(order, previous)
    chooser = next((p for p in scan if can_choose(s, p)), None) if s.offer else None
    if chooser is not None:
        s.phase, s.current = "choose", chooser
        return
    events.append({"kind": "auction_closed", "returned": list(s.offer)})
    for size in s.offer:
        s.supply["moai"][str(size)] += 1
    s.offer = []
    s.choosing = None
    start_placement(s)


def apply_take(s: State, seat: str, take: Take, events: list[Event]) -> None:
    assert s.choosing is not None
    if take.size not in s.offer:
        raise IllegalAction("not_in_offer", size=take.size)
    if not allowed(s, seat, take.size):
        raise IllegalAction("cannot_sculpt", size=take.size)
    s.offer.remove(take.size)
    s.choosing["taken"][seat].append(take.size)
    item = f"moai{s.next_moai}"
    s.next_moai += 1
    s.items[item] = new_item("moai", take.size, f"front:{seat}")
    events.append({"kind": "statue_taken", "seat": seat, "item": item, "size": take.size})
    _next_chooser(s, seat, events)


def apply_done(s: State, seat: str, events: list[Event]) -> None:
    assert s.choosing is not None
    s.choosing["done"].append(seat)
    events.append({"kind": "done", "seat": seat})
    _next_chooser(s, seat, events)


def new_item(kind: str, size: int, at: str) -> dict[str, Any]:
    return {"kind": kind, "size": size, "at": at, "marker": None, "abandoned": False,
            "mover": None}


def start_placement(s: State) -> None:
    s.phase = "place"
    s.current = turn_order(s)[0]
    for p in s.players.values():
        p["passed"] = False


def clear_committed(s: State, seat: str) -> None:
    """Committed pieces go back behind the screen (phase 5)."""
    player = s.players[seat]
    screen, committed = player["screen"], player["committed"]
    screen["workers"] += committed["workers"]
    screen["markers"] += committed["markers"]
    screen["chief"] = screen["chief"] or committed["chief"]
    screen["sorcerer"] = screen["sorcerer"] or committed["sorcerer"]
    player["committed"] = new_committed()
