"""Properties of Giants over random play (hypothesis picks the options and the seed of a
random player; the player draws from Python's ``random`` so that long games stay cheap)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import giants as g
from rules.core import IllegalAction
from rules.giants.board import AHU_HEXES, AHUS, FOREST, HEADDRESS_QUARRY, HEXES, NEIGHBOURS

HEADDRESS_QUARRY_NEIGHBOUR = NEIGHBOURS[HEADDRESS_QUARRY][0]

games = st.tuples(
    st.integers(3, 5),                      # seats
    st.integers(1, 4),                      # round limit
    st.booleans(), st.booleans(), st.booleans(),  # quick, running_score, chief_split
    st.sampled_from(["011223", "0123", "3", "12", "000111222333"]),
    st.integers(0, 2**32),                  # seed of the random player
)


def start(params: tuple[Any, ...]) -> tuple[g.State, random.Random]:
    seats, limit, quick, running, split, faces, seed = params
    options = {"round_limit": limit, "quick": quick, "running_score": running,
               "chief_split": split, "faces": faces}
    return g.new(list(g.COLOURS[:seats]), options), random.Random(seed)


def step(s: g.State, rng: random.Random, carve: bool = False) -> g.State:
    """One random legal action of one pending seat (or the dice); with ``carve``, a seat that
    can carve a headdress mostly does."""
    pending = g.pending(s).seats
    if pending == ("*",):
        return g.apply(s, "*", g.chance(s, rng))[0]
    seat = rng.choice(pending)
    actions = g.legal(s, seat)
    assert actions, f"{seat} is pending in {s.phase} without a legal action"
    carving = [a for a in actions if isinstance(a, g.Special) and a.action == "headdress"]
    if carve and carving and rng.random() < 0.8:
        return g.apply(s, seat, rng.choice(carving))[0]
    return g.apply(s, seat, rng.choice(actions))[0]


@settings(max_examples=25)
@given(games)
def test_random_legal_play_always_ends(params: tuple[Any, ...]) -> None:
    s, rng = start(params)
    limit = s.options["round_limit"]
    steps = 0
    while s.phase != "over":
        s = step(s, rng)
        steps += 1
        assert s.round <= limit and steps < 4000 * limit
    result = g.result(s)
    assert result is not None and result.winners and set(result.winners) <= set(s.seats)
    v = g.view(s, None)
    assert v["finished"] and v["pending"] == [] and v["phase"] == "over"
    assert v["scores"] == result.scores and v["winners"] == result.winners


@settings(max_examples=10)
@given(games)
def test_every_listed_choice_move_and_answer_applies(params: tuple[Any, ...]) -> None:
    s, rng = start(params)
    while s.phase != "over":
        if s.phase in ("transport", "endround", "choose"):
            for seat in g.pending(s).seats:
                for action in g.legal(s, seat):
                    g.apply(s, seat, action)
                    assert g.apply(s, seat, g.parse(str(action)))[0] == g.apply(
                        s, seat, action)[0]
        s = step(s, rng)


@settings(max_examples=15)
@given(games)
def test_a_headdress_sculpted_this_round_is_never_listed_to_move(params: tuple[Any, ...]
                                                                 ) -> None:
    """In phase 4 no legal move or mark names a headdress still in a front, and moving one is
    refused with ``headdress_fresh`` for its sculptor; at the end of the phase it is on D8."""
    s, rng = start(params)
    while s.phase != "over":
        fresh = {label: i["at"][6:] for label, i in s.items.items()
                 if i["kind"] == "headdress" and i["at"].startswith("front:")}
        if s.phase == "transport":
            for seat in g.pending(s).seats:
                listed = [a for a in g.legal(s, seat) if isinstance(a, (g.Move, g.Mark))]
                assert not [a for a in listed if a.item in fresh], seat
                for label in (h for h, owner in fresh.items() if owner == seat):
                    with pytest.raises(IllegalAction) as info:
                        g.apply(s, seat, g.Move(label, (HEADDRESS_QUARRY_NEIGHBOUR,)))
                    assert info.value.key == "headdress_fresh"
        elif s.phase in ("endround", "draw"):
            assert not fresh
        s = step(s, rng, carve=True)


@settings(max_examples=15)
@given(games)
def test_state_round_trips_through_json_text(params: tuple[Any, ...]) -> None:
    s, rng = start(params)
    while True:
        data = json.loads(json.dumps(g.to_json(s)))
        back = g.from_json(data)
        assert back == s and g.to_json(back) == g.to_json(s)
        if s.phase == "over":
            break
        s = step(s, rng)


def random_action(s: g.State, rng: random.Random) -> g.Action:
    """Something that may or may not be legal: a legal action of some seat, or made up."""
    pending = [p for p in g.pending(s).seats if p != "*"]
    legal = g.legal(s, rng.choice(pending)) if pending and rng.random() < 0.3 else []
    items = [*s.items, "moai99", "hat7"]
    made_up: list[g.Action] = [
        g.Dice(tuple(rng.randint(0, 4) for _ in range(rng.randint(2, 6)))),
        g.Bid(rng.randint(0, 6), rng.randint(0, 6), rng.random() < 0.5, rng.random() < 0.5),
        g.Take(rng.randint(1, 3)), g.Done(), g.Rongo(), g.Pass(),
        g.Place(rng.choice(["worker", "sorcerer", "chief"]), rng.choice([*HEXES, "Z9"]),
                rng.randint(0, 2)),
        g.Special(rng.choice(["sorcerer", "chief"]), "reserve", rng.choice(HEXES),
                  rng.choice([*AHUS, "nowhere"]), rng.randint(0, 2)),
        g.Special(rng.choice(["sorcerer", "chief"]), "logs", rng.choice(HEXES)),
        g.Move(rng.choice(items), tuple(rng.choice(HEXES) for _ in range(rng.randint(0, 3))),
               rng.choice([None, "erect", "crown"]), rng.choice(AHUS), rng.random() < 0.3,
               rng.choice([None, *g.COLOURS])),
        g.Mark(rng.choice(items)), g.Peek(rng.choice(AHUS)),
        g.EndRound(tuple(rng.sample(items, rng.randint(0, 2))),
                   tuple(rng.sample(items, rng.randint(0, 1)))),
    ]
    if legal:
        return rng.choice(legal)
    return rng.choice(made_up)


@settings(max_examples=15)
@given(games)
def test_illegal_actions_never_change_the_state(params: tuple[Any, ...]) -> None:
    s, rng = start(params)
    while s.phase != "over":
        actor = rng.choice([*s.seats, "*", "purple", "yellow"])
        action = random_action(s, rng)
        before = g.to_json(s)
        try:
            g.apply(s, actor, action)
        except IllegalAction as exc:
            pending = actor in g.pending(s).seats and actor != "*"
            assert not pending or action not in g.legal(s, actor), (actor, str(action), exc)
        assert g.to_json(s) == before, "apply must never change the state it is given"
        s = step(s, rng)
    for actor in s.seats:
        try:
            g.apply(s, actor, g.Pass())
        except IllegalAction as exc:
            assert exc.key == "game_over"


def hidden_from(s: g.State, seat: str | None) -> g.State:
    """A copy whose secrets unknown to ``seat`` are all changed: its view must not change."""
    t = copy.deepcopy(s)
    for other in t.seats:
        if other == seat:
            continue
        p = t.players[other]
        p["screen"] = {k: (not v if isinstance(v, bool) else v + 3)
                       for k, v in p["screen"].items()}
        p["urn"] = {k: v + 2 for k, v in p["urn"].items()}
        p["peeked"] = [*p["peeked"], "secret"]
        if not t.revealed and other in t.bids:
            t.bids[other] = {"markers": 6, "workers": 6, "chief": True, "sorcerer": True}
        if t.endround.get(other) is not None:
            t.endround[other] = {"mark": ["moai999"], "recall": ["hat999"]}
    known = set(t.players[seat]["peeked"]) if seat else set()
    if t.phase != "over" and not t.options["running_score"]:
        for ahu, spot in t.ahus.items():
            if spot["owner"] and spot["owner"] != seat and ahu not in known:
                spot["owner"] = next(c for c in t.seats if c != spot["owner"] and c != seat)
    return t


@settings(max_examples=15)
@given(games)
def test_views_hide_other_seats_secrets(params: tuple[Any, ...]) -> None:
    s, rng = start(params)
    while True:
        for seat in [None, *s.seats]:
            v = g.view(s, seat)
            if s.phase != "over":
                assert g.view(hidden_from(s, seat), seat) == v, (seat, s.phase)
                assert "screens" not in v and "result" not in v
            for other in s.seats:
                if other != seat and s.phase == "bid":
                    assert v["bids"][other] in ("waiting", "submitted")
            for ahu, spot in v["ahus"].items():
                owner = s.ahus[ahu]["owner"]
                if spot["owner"] is not None:
                    assert spot["owner"] == owner and (
                        s.phase == "over" or s.options["running_score"] or owner == seat
                        or (seat is not None and ahu in s.players[seat]["peeked"]))
            if seat is not None:
                assert v["screen"] == s.players[seat]["screen"]
        if s.phase == "over":
            assert all(v["ahus"][a]["owner"] == s.ahus[a]["owner"] for a in AHUS)
            break
        s = step(s, rng)


@settings(max_examples=10)
@given(games)
def test_placement_lists_exactly_the_sorcerer_and_chief_actions_that_apply(
        params: tuple[Any, ...]) -> None:
    """Every sorcerer or chief action the rules accept is listed, and only those."""
    s, rng = start(params)
    checked = 0
    while s.phase != "over" and checked < 40:
        if s.phase == "place":
            for seat in g.pending(s).seats:
                listed = {a for a in g.legal(s, seat) if isinstance(a, g.Special)}
                for figure in ("sorcerer", "chief"):
                    for logs in range(3):
                        for special in [
                                *(g.Special(figure, a, logs=logs)
                                  for a in ("recruit", "marker", "headdress")),
                                *(g.Special(figure, "logs", hex=h, logs=logs) for h in FOREST),
                                *(g.Special(figure, "reserve", hex=h, ahu=a, logs=logs)
                                  for a in AHUS for h in AHU_HEXES[a])]:
                            try:
                                g.apply(s, seat, special)
                            except IllegalAction:
                                assert special not in listed, special
                            else:
                                assert special in listed, special
                checked += 1
        s = step(s, rng)
