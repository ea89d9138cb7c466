"""Make Make's part of the strong level: the position it searches is the one the view shows,
what the view leaves out changes nothing, candidates, evaluation and policy keep to the
contract, and the search looks past its own move as the greedy seat does not."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rules import makemake as mm
from rules.ai import choose
from rules.ismcts import Budget
from rules.makemake import ai, strong
from rules.makemake.actions import Place
from rules.makemake.engine import State
from rules.registry import game_module

MODULE = game_module("makemake")


def positions(seed: int, seats: int, options: dict[str, object] | None = None,
              greedy_share: float = 0.7) -> list[State]:
    """Every position of one game of mostly greedy, partly random play."""
    s = mm.new(list(mm.COLOURS[:seats]), {"round_limit": 30, **(options or {})})
    rng = random.Random(seed)
    out = [s]
    while s.phase != "over":
        seat = s.player
        actions = mm.legal(s, seat)
        action = ai.best(s, seat, actions, rng) if rng.random() < greedy_share \
            else rng.choice(actions)
        s, _ = mm.apply(s, seat, action)
        out.append(s)
    return out


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([3, 4]), st.booleans())
def test_the_searched_position_is_the_one_the_view_shows(seed: int, seats: int,
                                                         one_manu: bool) -> None:
    for s in positions(seed, seats, {"one_manu_per_ceremony": one_manu})[::7]:
        for seat in s.seats:
            seen = mm.view(s, seat)
            drawn = strong.determinize(seen, seat, random.Random(seed))
            assert mm.view(drawn, seat) == seen
            assert [str(a) for a in mm.legal(drawn, drawn.player)] \
                == [str(a) for a in mm.legal(s, s.player)]


def twins() -> tuple[State, State]:
    """Two states of one position that differ only in what no view shows: the history of
    positions that the repetition rule counts."""
    s = positions(3, 3, {"repetition": True})[20]
    twin = s.copy()
    twin.positions = {key: 1 for key in twin.positions}
    twin.positions["an earlier position"] = 2
    return s, twin


def test_what_no_view_shows_changes_no_decision() -> None:
    s, twin = twins()
    assert mm.to_json(s) != mm.to_json(twin)
    assert mm.view(s, s.player) == mm.view(twin, twin.player)
    budget = Budget(iterations=30)
    for seed in range(3):
        assert (str(choose(MODULE, s, s.player, "strong", random.Random(seed), budget))
                == str(choose(MODULE, twin, twin.player, "strong", random.Random(seed), budget)))


def test_a_budget_in_iterations_repeats_the_decision_for_a_seed() -> None:
    s = positions(5, 4)[30]
    budget = Budget(iterations=25)
    picks = {str(choose(MODULE, s, s.player, "strong", random.Random(9), budget))
             for _ in range(3)}
    assert len(picks) == 1


def test_candidates_are_legal_the_greedy_choice_first_and_a_guarded_place_among_them() -> None:
    guarded = 0
    for s in positions(11, 3)[::5]:
        if s.phase == "over":
            continue
        seat = s.player
        actions = mm.legal(s, seat)
        kept = strong.candidates(s, seat, actions)
        assert kept and all(a in actions for a in kept)
        assert len(set(kept)) == len(kept) <= strong.WIDTH + strong.GUARDED
        top = ai.evaluate(mm.apply(s, seat, kept[0])[0], seat)
        assert all(ai.evaluate(mm.apply(s, seat, a)[0], seat) <= top for a in actions)
        assert strong.candidates(s, seat, actions) == kept, "remembered, and the same"
        cheapest: dict[tuple[str, bool], int] = {}
        for a in kept:
            if isinstance(a, Place):
                cheapest[(a.hex, a.chief)] = min(a.count, cheapest.get((a.hex, a.chief), a.count))
        guarded += sum(1 for a in kept if isinstance(a, Place)
                       and a.count == cheapest[(a.hex, a.chief)] + 2)
    assert guarded, "some place is also searched with two tokens more"


def test_evaluate_gives_win_shares_that_follow_the_strength() -> None:
    for s in positions(2, 4)[::9]:
        shares = strong.evaluate(s)
        assert set(shares) == set(s.seats)
        assert abs(sum(shares.values()) - 1) < 1e-9
        of = ai.strengths(s)
        for p in s.seats:
            for q in s.seats:
                if of[p] > of[q]:
                    assert shares[p] > shares[q]


def test_the_policy_is_the_greedy_seat() -> None:
    for s in positions(4, 3)[::6]:
        if s.phase == "over":
            continue
        seat = s.player
        actions = mm.legal(s, seat)
        assert strong.policy(s, seat, random.Random(1)) \
            == ai.greedy(mm.view(s, seat), seat, actions, random.Random(1))


def later(s: State, seat: str, action: mm.Action) -> float:
    """The seat's win share by :func:`strong.evaluate` once the game has gone on from
    ``action`` for :data:`strong.HORIZON` steps of greedy play (three rounds)."""
    s, _ = mm.apply(s, seat, action)
    rng = random.Random(0)
    for _ in range(strong.HORIZON):
        if s.phase == "over":
            break
        s, _ = mm.apply(s, s.player, ai.best(s, s.player, mm.legal(s, s.player), rng))
    return strong.evaluate(s)[seat] if s.phase != "over" else float(seat in s.winners)


def test_the_search_sees_the_answers_to_its_move() -> None:
    """Judged a few rounds later, after greedy answers, the strong move is on the whole better
    than the greedy one: the greedy seat does not see the answers its move invites."""
    strong_total = greedy_total = 0.0
    differs = 0
    for s in positions(21, 3, greedy_share=1.0)[6:60:6]:
        if s.phase != "domination":
            continue
        seat = s.player
        actions = mm.legal(s, seat)
        mine = choose(MODULE, s, seat, "strong", random.Random(1), Budget(iterations=40))
        theirs = ai.best(s, seat, actions, random.Random(1))
        differs += mine != theirs
        strong_total += later(s, seat, mine)
        greedy_total += later(s, seat, theirs)
    assert differs, "the strong seat never chose otherwise than the greedy one"
    assert strong_total > greedy_total
