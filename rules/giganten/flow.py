"""How a round moves from one decision to the next (spec 5.0), automatic steps included.

Each ``begin_*`` function either stops at the next decision someone must make or runs the
automatic steps and hands over to the following step.
"""

from __future__ import annotations

from rules.core import Event
from rules.giganten.auction import open_auction, overfill
from rules.giganten.board import CARDS, COMPANIES, card_number
from rules.giganten.state import State
from rules.giganten.turn import begin_turn
from rules.giganten.works import auto_drop, builds, derricks_of, must_decide


def begin_round(s: State, events: list[Event]) -> None:
    s.round += 1
    s.phase, s.decision, s.index = "prices", "prices", 0
    events.append({"kind": "round", "round": s.round, "start_player": s.order[0]})


def begin_cards(s: State) -> None:
    s.phase, s.decision = "cards", "reveal"


def begin_takes(s: State) -> None:
    s.decision, s.index = "take", 0


def after_take(s: State, events: list[Event]) -> None:
    s.index += 1
    if s.index < s.n:
        return
    for card in s.display:
        deck = s.red_discard if CARDS[card]["deck"] == "red" else s.beige_discard
        deck.append(card)
        deck.sort(key=card_number)
        events.append({"kind": "discard", "card": card})
    s.display = []
    s.phase, s.decision, s.index = "licences", "licences", 0


def after_licences(s: State, events: list[Event]) -> None:
    s.index += 1
    if s.index == s.n:
        begin_move(s, 0, events)


def begin_move(s: State, index: int, events: list[Event]) -> None:
    if index < s.n:
        s.phase, s.decision, s.index = "move", "move", index
        begin_turn(s, s.order[index], events)
        return
    s.turn = None
    begin_build(s, 0, events)


def begin_build(s: State, index: int, events: list[Event]) -> None:
    for i in range(index, s.n):
        if builds(s, s.order[i]):
            s.phase, s.decision, s.index = "build", "build", i
            return
    begin_produce(s, 0, events)


def begin_produce(s: State, index: int, events: list[Event]) -> None:
    for i in range(index, s.n):
        seat = s.order[i]
        if not derricks_of(s, seat):
            continue
        if must_decide(s, seat):
            s.phase, s.decision, s.index = "produce", "produce", i
            return
        auto_drop(s, seat, events)
    begin_auctions(s, 0, events)


def begin_auctions(s: State, company: int, events: list[Event]) -> None:
    s.phase = "auction"
    for i in range(company, len(COMPANIES)):
        if open_auction(s, COMPANIES[i], events):
            return
    s.auction = None
    overfill(s, events)
    end_round(s, events)


def next_company(s: State, events: list[Event]) -> None:
    assert s.auction is not None
    begin_auctions(s, COMPANIES.index(s.auction["company"]) + 1, events)


def restart_auction(s: State, events: list[Event]) -> None:
    assert s.auction is not None
    events.append({"kind": "auction_repeat", "company": s.auction["company"]})
    begin_auctions(s, COMPANIES.index(s.auction["company"]), events)


def end_round(s: State, events: list[Event]) -> None:
    """Action 9: held cards go to their discard piles and the next round begins."""
    for seat in s.seats:
        p = s.players[seat]
        if p["card"]:
            deck = s.red_discard if CARDS[p["card"]]["deck"] == "red" else s.beige_discard
            deck.append(p["card"])
            deck.sort(key=card_number)
            p["card"] = None
    begin_round(s, events)
