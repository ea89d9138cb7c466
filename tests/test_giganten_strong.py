"""Giganten's strong AI: determinisations agree with the view they come from and only with it,
they vary what the seat cannot see, and evaluate, policy and candidates keep to the contract."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import rules.giganten as g
from rules.ai import choose
from rules.core import CHANCE
from rules.giganten import strong
from rules.giganten.ai import greedy
from rules.giganten.board import COLOURS
from rules.giganten.state import State
from rules.ismcts import Budget
from rules.registry import game_module

MAX_STEPS = 3000


def step(state: State, rng: random.Random) -> State:
    """One line: chance, or the pending seat playing greedy (mostly) or random."""
    seat = g.pending(state).seats[0]
    if seat == CHANCE:
        action = g.chance(state, rng)
    elif rng.random() < 0.8:
        action = strong.policy(state, seat, rng)
    else:
        actions = g.legal(state, seat)
        action = rng.choice([a for a in actions if not isinstance(a, g.Bid)] or actions)
    return g.apply(state, seat, action)[0]


def states(seed: int, seats: int, every: int = 25) -> list[State]:
    """Every ``every``-th state of one game, the end included."""
    rng = random.Random(seed)
    state = g.new(list(COLOURS[:seats]), {"unlimited_chips": seed % 5 == 0})
    out = []
    for n in range(MAX_STEPS):
        if n % every == 0:
            out.append(state)
        if not g.pending(state).seats:
            out.append(state)
            break
        state = step(state, rng)
    return out


def playout(state: State, rng: random.Random) -> State:
    for _ in range(MAX_STEPS):
        if not g.pending(state).seats:
            return state
        state = step(state, rng)
    raise AssertionError("the playout did not end")


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([3, 4]))
def test_determinize_agrees_with_the_view_and_plays_on(seed: int, seats: int) -> None:
    rng = random.Random(seed)
    for n, state in enumerate(states(seed, seats)):
        for seat in state.seats:
            seen = g.view(state, seat)
            drawn = strong.determinize(seen, seat, rng)
            assert g.view(drawn, seat) == seen
            assert g.from_json(g.to_json(drawn)) == drawn
            pending = g.pending(state).seats
            if seat in pending:
                real = [str(a) for a in g.legal(state, seat)]
                mine = [str(a) for a in g.legal(drawn, seat)]
                if state.decision == "sell":  # whether the winner already paid is not shown
                    real = [a for a in real if not a.startswith("pay")]
                    mine = [a for a in mine if not a.startswith("pay")]
                assert mine == real
            if n % 4 == 0 and pending:
                assert g.result(playout(drawn, rng)) is not None


def twins() -> tuple[State, State, str]:
    """Two states of a three-seat game in red's move turn that differ only in secrets red cannot
    see: grey's licence hand (one card swapped with the draw pile) and two unpeeked tiles."""
    rng = random.Random(7)
    state = g.new(["red", "grey", "blue"])
    while not (state.decision == "move" and g.pending(state).seats == ("red",)
               and state.round >= 2 and 1 in state.players["grey"]["hand"]
               and state.licence_draw["2"] > 0):
        state = step(state, rng)
    twin = state.copy()
    hand = twin.players["grey"]["hand"]
    hand.remove(1)
    hand[:] = sorted([*hand, 2])
    twin.licence_draw["1"] += 1
    twin.licence_draw["2"] -= 1
    hidden = [label for label, sp in twin.spaces.items() if sp["state"] == "hidden"
              and label not in twin.peeks["red"] and sp["type"] == 3]
    a, b = next((x, y) for x in hidden for y in hidden
                if twin.spaces[x]["value"] != twin.spaces[y]["value"])
    twin.spaces[a]["value"], twin.spaces[b]["value"] = (twin.spaces[b]["value"],
                                                        twin.spaces[a]["value"])
    return state, twin, "red"


def test_twins_give_equal_determinisations_and_decisions() -> None:
    state, twin, seat = twins()
    assert g.to_json(state) != g.to_json(twin)
    assert g.view(state, seat) == g.view(twin, seat)
    for seed in range(5):
        one = strong.determinize(g.view(state, seat), seat, random.Random(seed))
        two = strong.determinize(g.view(twin, seat), seat, random.Random(seed))
        assert g.to_json(one) == g.to_json(two)
    budget = Budget(iterations=20)
    assert (str(choose(game_module("giganten"), state, seat, "strong", random.Random(3), budget))
            == str(choose(game_module("giganten"), twin, seat, "strong", random.Random(3), budget)))


def hidden_part(state: State, seat: str) -> tuple[object, ...]:
    values = tuple(sp["value"] for label, sp in state.spaces.items()
                   if sp["state"] == "hidden" and label not in state.peeks[seat])
    hands = tuple(tuple(state.players[c]["hand"]) for c in state.seats if c != seat)
    return values, hands


def test_determinize_varies_what_the_seat_cannot_see() -> None:
    state, _, seat = twins()
    seen = g.view(state, seat)
    drawn = [strong.determinize(seen, seat, random.Random(n)) for n in range(20)]
    assert len({hidden_part(d, seat) for d in drawn}) > 10
    assert all(d.players[seat]["hand"] == state.players[seat]["hand"] for d in drawn)
    tiles = {tuple(sp["value"] for sp in d.spaces.values() if sp["state"] == "hidden")
             for d in drawn}
    assert len(tiles) > 10


def test_determinize_respects_what_a_sale_or_a_forfeit_tells() -> None:
    """A seat about to sell could pay its bid; a seat about to forfeit could not."""
    seen_any = set()
    for seed in range(40):
        rng = random.Random(seed)
        for state in states(seed, 3, every=1):
            if state.decision not in ("sell", "forfeit"):
                continue
            assert state.auction is not None
            winner, bid = state.auction["winner"], state.auction["high_bid"]
            seat = next(c for c in state.seats if c != winner)
            drawn = strong.determinize(g.view(state, seat), seat, rng)
            can_pay = sum(drawn.players[winner]["hand"]) >= bid
            assert can_pay == (state.decision == "sell") or drawn.auction["paid"]  # type: ignore[index]
            seen_any.add(state.decision)
        if seen_any == {"sell", "forfeit"}:
            break
    assert "sell" in seen_any


def test_evaluate_policy_and_candidates_keep_to_the_contract() -> None:
    rng = random.Random(11)
    for state in states(11, 4, every=7):
        pending = g.pending(state).seats
        if not pending:
            continue
        shares = strong.evaluate(state)
        assert set(shares) == set(state.seats)
        assert all(0.0 <= v <= 1.0 for v in shares.values())
        assert abs(sum(shares.values()) - 1.0) < 1e-9
        seat = pending[0]
        if seat == CHANCE:
            continue
        actions = g.legal(state, seat)
        offered = {str(a) for a in actions}
        assert str(strong.policy(state, seat, rng)) in offered
        kept = strong.candidates(state, seat, actions)
        assert kept and all(str(a) in offered for a in kept)
        pick = greedy(g.view(state, seat), seat, actions, random.Random(0))
        assert str(pick) in {str(a) for a in kept}
