"""Properties of Make Make over random play (hypothesis)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from rules import makemake as mm
from rules.core import IllegalAction
from rules.makemake.board import HEXES, SITES

seat_counts = st.sampled_from([3, 4])
limits = st.integers(min_value=1, max_value=12)

any_action = st.one_of(
    st.builds(mm.Place, st.sampled_from(HEXES), st.integers(0, 13), st.booleans()),
    st.builds(mm.Withdraw, st.sampled_from(HEXES)),
    st.just(mm.Pass()),
    st.builds(mm.Moai, st.sampled_from(HEXES)),
    st.builds(lambda s: mm.Manu(tuple(sorted(s))),
              st.lists(st.sampled_from(SITES), min_size=1, max_size=6)),
)


def _new(seats: int, limit: int, **options: bool) -> mm.State:
    return mm.new(list(mm.COLOURS[:seats]), {"round_limit": limit, **options})


@given(seat_counts, limits, st.booleans(), st.booleans(), st.data())
def test_random_play_ends_within_the_round_limit(seats: int, limit: int, alone: bool,
                                                 strict: bool, data: st.DataObject) -> None:
    s = _new(seats, limit, chief_alone=alone, edge_strict=strict)
    steps = 0
    while s.phase != "over":
        seat = s.player
        actions = mm.legal(s, seat)
        assert actions, "a running game always offers its pending seat an action"
        s, _ = mm.apply(s, seat, data.draw(st.sampled_from(actions)))
        steps += 1
        assert s.round <= limit
        assert steps <= limit * seats * 20
    assert s.end in ("victory", "round_limit")
    result = mm.result(s)
    assert result is not None and result.winners and set(result.winners) <= set(s.seats)


@given(seat_counts, st.data())
def test_state_round_trips_through_json_text(seats: int, data: st.DataObject) -> None:
    s = _new(seats, 6, repetition=True)
    while s.phase != "over":
        assert mm.from_json(json.loads(json.dumps(mm.to_json(s)))) == s
        seat = s.player
        s, _ = mm.apply(s, seat, data.draw(st.sampled_from(mm.legal(s, seat))))
    assert mm.from_json(json.loads(json.dumps(mm.to_json(s)))) == s


@given(seat_counts, st.data())
def test_illegal_actions_never_change_the_state(seats: int, data: st.DataObject) -> None:
    s = _new(seats, 5)
    while s.phase != "over":
        seat = s.player
        legal = mm.legal(s, seat)
        before = mm.to_json(s)
        actor = data.draw(st.sampled_from([*s.seats, "*", "yellow"]))
        action = data.draw(any_action)
        try:
            mm.apply(s, actor, action)
        except IllegalAction:
            assert actor != seat or action not in legal
        else:
            assert actor == seat and action in legal
        assert mm.to_json(s) == before, "apply must never change the state it is given"
        s, _ = mm.apply(s, seat, data.draw(st.sampled_from(legal)))
