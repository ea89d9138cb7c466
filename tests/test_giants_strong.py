"""The Giants part of the strong level: determinisations agree with the view they come from,
are playable engine states, depend on nothing the seat cannot see, and vary what it cannot see;
the evaluation gives win shares and the policy legal moves."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import giants
from rules.core import CHANCE
from rules.giants import strong
from rules.giants.actions import EndRound, Move, Pass, Place, Rongo, Special
from rules.giants.ai import greedy
from rules.giants.board import AHU_HEXES, AHUS, FOREST, HEXES
from rules.giants.state import State


def _played(seed: int, steps: int, seats: int = 3, greedy_share: float = 0.8) -> State:
    """The state after ``steps`` actor steps of mostly greedy, partly random play."""
    s = giants.new(list(giants.COLOURS[:seats]), seed=seed)
    rng = random.Random(seed)
    done = 0
    while giants.pending(s).seats and done < steps:
        pending = giants.pending(s).seats
        if pending == (CHANCE,):
            s, _ = giants.apply(s, CHANCE, giants.chance(s, rng))
            continue
        seat = pending[0]
        actions = giants.legal(s, seat)
        action = greedy(giants.view(s, seat), seat, actions, rng) \
            if rng.random() < greedy_share else rng.choice(actions)
        s, _ = giants.apply(s, seat, action)
        done += 1
    return s


def _play_out(s: State, rng: random.Random) -> State:
    """To the end, every seat half greedy, half random: every action must be legal."""
    while giants.pending(s).seats:
        pending = giants.pending(s).seats
        if pending == (CHANCE,):
            s, _ = giants.apply(s, CHANCE, giants.chance(s, rng))
            continue
        for seat in pending:
            actions = giants.legal(s, seat)
            assert actions, f"{seat} is pending with nothing to do in {s.phase}"
            action = greedy(giants.view(s, seat), seat, actions, rng) \
                if rng.random() < 0.5 else rng.choice(actions)
            s, _ = giants.apply(s, seat, action)
    return s


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 400), seats=st.integers(3, 5),
       draw=st.integers(0, 1_000))
def test_a_determinisation_shows_the_seat_its_own_view(seed: int, steps: int, seats: int,
                                                       draw: int) -> None:
    s = _played(seed, steps, seats)
    if not giants.pending(s).seats:
        return
    for seat in s.seats:
        v = giants.view(s, seat)
        d = strong.determinize(v, seat, random.Random(draw))
        assert giants.view(d, seat) == v
        for actor in giants.pending(d).seats:
            if actor != CHANCE:
                for action in giants.legal(d, actor)[:20]:
                    giants.apply(d, actor, action)
    # one of them, played to the end
    seat = s.seats[draw % len(s.seats)]
    d = strong.determinize(giants.view(s, seat), seat, random.Random(draw))
    assert giants.result(_play_out(d, random.Random(draw))) is not None


def test_determinisations_along_whole_games_match_their_views() -> None:
    """Every phase, end-of-round steps and sealed bids included, in two greedy games."""
    checked = set()
    for seed in (3, 8):
        s = giants.new(["red", "blue", "green", "yellow"], seed=seed)
        rng = random.Random(seed)
        while giants.pending(s).seats:
            pending = giants.pending(s).seats
            if pending == (CHANCE,):
                s, _ = giants.apply(s, CHANCE, giants.chance(s, rng))
                continue
            for seat in s.seats:
                v = giants.view(s, seat)
                assert giants.view(strong.determinize(v, seat, rng), seat) == v
            checked.add(s.phase)
            seat = pending[-1]
            s, _ = giants.apply(s, seat, greedy(giants.view(s, seat), seat,
                                                giants.legal(s, seat), rng))
    assert checked >= {"bid", "choose", "place", "transport", "endround"}


def _twins() -> tuple[State, State]:
    """Two mid-game states that differ only in Blue's secrets: a worker of Blue's recruited
    or still in the urn, two more of Blue's logs, and who owns a moai Red has not peeked at."""
    s = _played(21, 150, greedy_share=1.0)
    assert s.phase not in ("over", "draw")
    t = s.copy()
    t.players["blue"]["screen"]["workers"] += 1
    t.players["blue"]["urn"]["workers"] -= 1
    t.players["blue"]["screen"]["logs"] += 2
    for a, spot in t.ahus.items():
        if spot["owner"] == "green" and a not in t.players["red"]["peeked"]:
            spot["owner"] = "blue"
            t.players["blue"]["screen"]["bases"] -= 1
            t.players["green"]["screen"]["bases"] += 1
            break
    assert giants.to_json(s) != giants.to_json(t)
    return s, t


def test_twins_differing_in_another_seats_secret_determinise_alike() -> None:
    s, t = _twins()
    v = giants.view(s, "red")
    assert giants.view(t, "red") == v
    for draw in range(5):
        a = strong.determinize(giants.view(s, "red"), "red", random.Random(draw))
        b = strong.determinize(giants.view(t, "red"), "red", random.Random(draw))
        assert giants.to_json(a) == giants.to_json(b)


def test_twins_get_the_same_strong_decision() -> None:
    ismcts = pytest.importorskip("rules.ismcts")
    from rules.ai import choose

    s = _played(4, 60, greedy_share=1.0)
    while giants.pending(s).seats[0] in (CHANCE,):
        s, _ = giants.apply(s, CHANCE, giants.chance(s, random.Random(0)))
    seat = giants.pending(s).seats[0]
    other = next(p for p in s.seats if p != seat)
    t = s.copy()
    t.players[other]["screen"]["workers"] += 1
    t.players[other]["urn"]["workers"] -= 1
    assert giants.view(t, seat) == giants.view(s, seat)
    budget = ismcts.Budget(iterations=30)
    a = choose(giants, s, seat, "strong", random.Random(5), budget)
    b = choose(giants, t, seat, "strong", random.Random(5), budget)
    assert a == b


def test_determinize_varies_what_the_seat_cannot_see() -> None:
    s = _played(21, 150, greedy_share=1.0)
    v = giants.view(s, "red")
    seen = set()
    for draw in range(40):
        d = strong.determinize(v, "red", random.Random(draw))
        secrets = tuple((p, tuple(sorted(d.players[p]["screen"].items())),
                         tuple(sorted(d.players[p]["urn"].items())))
                        for p in d.seats if p != "red")
        owners = tuple(spot["owner"] for spot in d.ahus.values())
        seen.add((secrets, owners, d.seed))
        assert d.players["red"]["screen"] == s.players["red"]["screen"]
    assert len(seen) > 1


def test_unrevealed_bids_are_drawn_not_copied() -> None:
    s = _played(2, 0)
    s, _ = giants.apply(s, CHANCE, giants.chance(s, random.Random(0)))
    while s.phase != "bid":
        s = _played(s.seed + 1, 0)
        s, _ = giants.apply(s, CHANCE, giants.chance(s, random.Random(0)))
    s, _ = giants.apply(s, "blue", giants.parse("bid 2m 1w chief"))
    v = giants.view(s, "red")
    drawn = {str(strong.determinize(v, "red", random.Random(i)).bids["blue"]) for i in range(40)}
    assert len(drawn) > 1
    for i in range(10):
        d = strong.determinize(v, "red", random.Random(i))
        assert giants.view(d, "red") == v and "red" not in d.bids


def test_evaluate_gives_win_shares_and_policy_legal_moves() -> None:
    rng = random.Random(9)
    for steps in (0, 40, 120, 250):
        s = _played(13, steps, seats=4)
        if not giants.pending(s).seats or giants.pending(s).seats == (CHANCE,):
            continue
        shares = strong.evaluate(s)
        assert set(shares) == set(s.seats)
        assert all(0.0 <= x <= 1.0 for x in shares.values())
        est = {p: strong.estimate(s, p) for p in s.seats}
        assert max(shares, key=lambda p: shares[p]) == max(est, key=lambda p: est[p])
        for seat in giants.pending(s).seats:
            actions = giants.legal(s, seat)
            assert strong.policy(s, seat, rng) in actions
            kept = strong.candidates(s, seat, actions)
            assert kept and all(a in actions for a in kept)
            assert greedy(giants.view(s, seat), seat, actions, random.Random(0)) in kept


def _positions(seeds: range, seats: int = 3) -> list[State]:
    """Every state of a few mostly greedy, partly random games (3-5 seats), with the dice."""
    out = []
    for seed in seeds:
        s = giants.new(list(giants.COLOURS[:seats + seed % 3]), seed=seed)
        rng = random.Random(seed)
        while giants.pending(s).seats:
            pending = giants.pending(s).seats
            if pending == (CHANCE,):
                s, _ = giants.apply(s, CHANCE, giants.chance(s, rng))
                continue
            out.append(s)
            seat = pending[0]
            actions = giants.legal(s, seat)
            action = greedy(giants.view(s, seat), seat, actions, rng) \
                if rng.random() < 0.7 else rng.choice(actions)
            s, _ = giants.apply(s, seat, action)
    return out


def _shapes(s: State) -> list[object]:
    """Every placement and sorcerer or chief action of a legal shape or nearly so."""
    out: list[object] = [Pass(), Rongo()]
    for figure in ("worker", "sorcerer", "chief", "wizard"):
        for n in range(4):
            out += [Place(figure, h, n) for h in (*HEXES[:: 7], "ZZ9")]
            out += [Special(figure, a, logs=n) for a in ("recruit", "marker", "headdress")]
            out += [Special(figure, "logs", hex=h, logs=n) for h in (*FOREST, HEXES[0])]
            out += [Special(figure, "reserve", hex=h, ahu=a, logs=n)
                    for a in AHUS for h in (*AHU_HEXES[a], HEXES[1])]
    out.append(Special("sorcerer", "recruit", hex=FOREST[0]))
    return out


def test_the_rollout_lists_of_legal_actions_are_legals_own() -> None:
    """The policy's cheap action lists answer as ``legal`` does: the transport moves are the
    same list in the same order, and the placements answer ``in`` (and index) alike."""
    placed = moved = 0
    for s in _positions(range(3)):
        seat = giants.pending(s).seats[0]
        if s.phase == "transport":
            assert strong.transport_actions(s, seat) == giants.legal(s, seat)
            moved += 1
        elif s.phase == "place":
            actions = giants.legal(s, seat)
            lazy = strong.Placements(s, seat)
            listed = set(actions)
            assert all(a in lazy for a in actions)
            assert all((a in lazy) == (a in listed) for a in _shapes(s))
            assert len(lazy) == len(actions) and lazy[-1] == actions[-1]
            placed += 1
        else:
            assert strong.transport_actions(s, seat) == giants.legal(s, seat)
            assert (Pass() in strong.Placements(s, seat)) == (Pass() in giants.legal(s, seat))
    assert placed > 50 and moved > 50


def test_the_policy_plays_the_greedy_move_from_the_part_of_the_view_it_reads() -> None:
    for i, s in enumerate(_positions(range(3, 5))):
        seat = giants.pending(s).seats[0]
        v = giants.view(s, seat)
        assert strong.greedy_view(s, seat) == {k: v[k] for k in strong.GREEDY_KEYS}
        if i % 3 == 0:
            expected = greedy(v, seat, giants.legal(s, seat), random.Random(i))
            assert strong.policy(s, seat, random.Random(i)) == expected


def test_a_seats_value_ignores_how_the_others_split_their_moai() -> None:
    """Moving an erected moai from one rival to the other (what a determinisation may do with
    an owner the seat cannot see) leaves the seat's value all but as it was: only the rounds
    left (by the leader's moai) and the rivals' headdress hopes move a little."""
    for s in _positions(range(2)):
        erected = [a for a in AHUS if s.ahus[a]["moai"] and s.ahus[a]["owner"] != "red"]
        if len(erected) < 2:
            continue
        a = erected[0]
        other = next(p for p in s.seats if p not in ("red", s.ahus[a]["owner"]))
        swapped = s.copy()
        swapped.ahus[a]["owner"] = other
        assert strong.evaluate(swapped)["red"] == pytest.approx(strong.evaluate(s)["red"],
                                                                abs=0.02)
        assert strong.evaluate(swapped)[other] > strong.evaluate(s)[other]
        return
    raise AssertionError("no position with two moai of red's rivals")


def test_candidates_leave_the_one_right_answers_alone() -> None:
    """Taking a statue, delivering and the end-of-round marks are searched no further."""
    seen = set()
    for s in _positions(range(2)):
        seat = giants.pending(s).seats[0]
        actions = giants.legal(s, seat)
        if len(actions) < 2:
            continue
        best = greedy(giants.view(s, seat), seat, actions, random.Random(0))
        kept = strong.candidates(s, seat, actions)
        assert kept[0] == best and all(a in actions for a in kept)
        delivers = isinstance(best, Move) and best.deliver is not None
        if s.phase == "endround":
            assert kept in ([best], [best, EndRound()])
            seen.add(s.phase)
        elif s.phase == "choose" or delivers:
            assert kept[:1] == [best] and kept[1:] in ([], [Pass()])
            seen.add("deliver" if delivers else s.phase)
    assert seen == {"choose", "endround", "deliver"}


def test_a_seat_may_go_on_moving_the_statue_it_moved_unmarked() -> None:
    """Its view does not say who moved an unmarked statue, but the seat did: every draw lets
    it move that statue again, as the real state does (a statue somebody else moved may be
    drawn as its own too: the search offers only what is really legal at its root)."""
    found = 0
    for s in _positions(range(6)):
        if s.phase != "transport":
            continue
        seat = giants.pending(s).seats[0]
        moved = sorted(label for label, it in s.items.items() if it["mover"] == seat)
        if not moved:
            continue
        for draw in range(3):
            d = strong.determinize(giants.view(s, seat), seat, random.Random(draw))
            assert all(d.items[label]["mover"] == seat for label in moved)
            drawn = set(giants.legal(d, seat))
            assert all(a in drawn for a in giants.legal(s, seat))
        found += 1
    assert found


def test_the_strong_seat_plays_only_legal_actions_under_drawn_movers() -> None:
    """Whatever a determinisation draws about who moved what, every decision is legal at the
    table: at least one kept action is (the fallback), so the search never has to guess."""
    from rules.ismcts import Budget, search
    checked = 0
    for s in _positions(range(4)):
        seat = giants.pending(s).seats[0]
        unmarked = any(it["mover"] is not None for it in s.items.values())
        if s.phase not in ("transport", "endround") or (s.phase == "transport" and not unmarked):
            continue
        actions = giants.legal(s, seat)
        for draw in range(2):
            out = search(giants, giants.view(s, seat), seat, actions, random.Random(draw),
                         Budget(iterations=3), strong)
            assert out.action in actions
        checked += 1
    assert checked > 5
