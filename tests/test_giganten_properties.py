"""Property tests for Giganten: random games end, JSON round-trips, rejections change nothing,
and no view leaks a secret."""

from __future__ import annotations

import contextlib
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import rules.giganten as g
from rules.core import CHANCE, IllegalAction
from rules.giganten.board import COLOURS
from rules.giganten.state import State

MAX_STEPS = 4000
PROBES = [
    "take b1", "take r3", "drive A1", "drive C1 C2 C3", "drive D3", "peek A4", "peek C13",
    "loco 1", "loco 19", "price jet +2", "price hudson -4", "oil standard", "done",
    "build A4", "build D3", "skip", "produce A4=hudson", "produce D3=drop", "bid 1", "bid 117",
    "pass", "pay 1", "pay 2 2", "sell 0", "sell 3",
]
CHANCE_PROBES = ["prices 2b 3r 4b", "reveal r1 b1 b2 b3", "reveal r12", "licences red 1 2",
                 "licences grey", "forfeit blue 1"]


def check_views(state: State) -> None:
    """Each seat sees its own hand and only tile values that are public or that it peeked."""
    for seat in [None, *state.seats]:
        v = g.view(state, seat)
        json.dumps(v)
        if seat is None:
            assert v["you"] is None
        else:
            assert v["you"]["licences"] == sorted(state.players[seat]["hand"])
        for label, sp in v["spaces"].items():
            real = state.spaces[label]
            public = real["state"] in ("derrick", "spent")
            mine = seat is not None and label in state.peeks[seat] and real["state"] == "hidden"
            assert sp["value"] == (real["value"] if public or mine else None)
        for p in v["players"].values():
            assert set(p) == {"money", "loco", "truck", "derricks_in_hand", "licence_cards",
                              "card", "storage", "peeked"}


def probe(state: State, rng: random.Random) -> None:
    """Apply a few arbitrary lines by arbitrary actors: the state passed in never changes."""
    before = g.to_json(state)
    for _ in range(2):
        actor = rng.choice([CHANCE, *COLOURS])
        text = rng.choice(CHANCE_PROBES if actor == CHANCE else PROBES)
        with contextlib.suppress(IllegalAction):
            g.apply(state, actor, g.parse(text))
    assert g.to_json(state) == before


def play(seed: int, seats: int, unlimited: bool, checks: bool) -> State:
    state = g.new(list(COLOURS[:seats]), {"unlimited_chips": unlimited})
    rng = random.Random(seed)
    for step in range(MAX_STEPS):
        pend = g.pending(state).seats
        if not pend:
            return state
        if pend == (CHANCE,):
            action = g.chance(state, rng)
        else:
            legal = g.legal(state, pend[0])
            assert legal, f"{pend[0]} has no legal action in {state.decision}"
            action = rng.choice(legal)
            assert g.parse(str(action)) == action
        if checks and step % 7 == 0:
            check_views(state)
            probe(state, rng)
            data = json.loads(json.dumps(g.to_json(state)))
            assert g.to_json(g.from_json(data)) == g.to_json(state)
        state, _ = g.apply(state, pend[0] if pend != (CHANCE,) else CHANCE, action)
    raise AssertionError("the game did not end")


@settings(max_examples=6)
@given(st.integers(0, 10**6), st.sampled_from([3, 4]), st.booleans())
def test_random_play_ends_and_keeps_secrets(seed: int, seats: int, unlimited: bool) -> None:
    state = play(seed, seats, unlimited, checks=True)
    res = g.result(state)
    assert res is not None and res.winners and state.black == 21
    assert set(res.scores) == set(state.seats)
    check_views(state)
    assert 7 <= state.round <= 10


@settings(max_examples=10)
@given(st.integers(0, 10**6), st.sampled_from([3, 4]))
def test_random_play_ends(seed: int, seats: int) -> None:
    state = play(seed, seats, False, checks=False)
    assert g.pending(state).seats == () and g.view(state, None)["finished"]
    totals = {c: a["total"] for c, a in state.final.items()}
    assert g.view(state, None)["scores"] == totals
    chips_out = sum(sp["chips"] for sp in state.spaces.values() if sp["state"] == "derrick")
    stored = sum(sum(p["storage"].values()) for p in state.players.values())
    assert state.supply + chips_out + stored == 60


@settings(max_examples=15)
@given(st.integers(0, 10**6), st.integers(0, 400))
def test_json_round_trip_at_any_point(seed: int, steps: int) -> None:
    state = g.new(["red", "grey", "blue", "green"])
    rng = random.Random(seed)
    for _ in range(steps):
        pend = g.pending(state).seats
        if not pend:
            break
        actor = pend[0]
        action = g.chance(state, rng) if actor == CHANCE else rng.choice(g.legal(state, actor))
        state, _ = g.apply(state, actor, action)
    data = json.loads(json.dumps(g.to_json(state)))
    again = g.from_json(data)
    assert g.to_json(again) == g.to_json(state)
    assert g.view(again, "red") == g.view(state, "red")
