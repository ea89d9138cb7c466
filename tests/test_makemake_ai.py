"""The Make Make AI seats: legal, deterministic for a seed, and greedy really plays better."""

from __future__ import annotations

import random

from rules import makemake as mm
from rules.ai import choose
from rules.makemake import engine
from rules.makemake.ai import strength
from rules.makemake.board import SITE_TERRITORIES, SITES
from scripts.ai_match import play


def test_greedy_beats_random_seats() -> None:
    games = [play("makemake", 3, i % 3, i, []) for i in range(12)]
    won = sum(mm.COLOURS[i % 3] in mm.result(g.state).winners for i, g in enumerate(games))
    assert won >= 9, f"greedy won only {won} of 12 against two random seats"


def test_greedy_only_plays_legal_actions() -> None:
    s = mm.new(["red", "blue", "green", "yellow"], {"round_limit": 8})
    rng = random.Random(5)
    while s.phase != "over":
        seat = s.player
        action = choose(mm, s, seat, "greedy", rng)
        assert action in mm.legal(s, seat)
        s, _ = mm.apply(s, seat, action)


def test_same_seed_same_game() -> None:
    assert play("makemake", 4, 1, 7, []).record() == play("makemake", 4, 1, 7, []).record()


def _positions(seed: int, seats: int = 4) -> list[mm.State]:
    """Every position of a game of random play."""
    s = mm.new(list(mm.COLOURS[:seats]), {"round_limit": 8})
    rng = random.Random(seed)
    out = [s]
    while s.phase != "over":
        s, _ = mm.apply(s, s.player, rng.choice(mm.legal(s, s.player)))
        out.append(s)
    return out


def test_the_strength_counts_what_its_definition_says() -> None:
    """The greedy seat's strength, counted from the territories each seat controls, is the
    one defined site by site: a free site with exactly two of its territories controlled."""
    for state in _positions(3) + _positions(4, seats=3):
        for seat in state.seats:
            near = sum(1 for site in SITES if state.sites[site] is None and sum(
                engine.controls(state, seat, t) for t in SITE_TERRITORIES[site]) == 2)
            reserve = state.reserves[seat]
            expected = (100 * engine.manu_on_board(state, seat) + 120 * (state.makemake == seat)
                        + 15 * engine.sacred_count(state, seat) + 4 * len(engine.held(state, seat))
                        + 3 * near + 0.5 * reserve.tokens)
            assert strength(state, seat) == expected


def test_manu_candidates_are_the_free_sites_wholly_controlled() -> None:
    seen = 0
    for n, position in enumerate(_positions(5) + _positions(6, seats=3)):
        freed = position.copy()  # and as if every site were free and one seat held all the
        freed.sites = dict.fromkeys(freed.sites)  # territories around one of them
        for t in SITE_TERRITORIES[SITES[n % len(SITES)]]:
            freed.board[t] = engine.Cell(freed.seats[0], 1, False)
        for state in (position, freed):
            for seat in state.seats:
                expected = tuple(site for site in SITES if state.sites[site] is None and all(
                    engine.controls(state, seat, t) for t in SITE_TERRITORIES[site]))
                assert engine.manu_candidates(state, seat) == expected
                seen += bool(expected)
    assert seen, "some position has a site to take"
