"""The Make Make AI seats: legal, deterministic for a seed, and greedy really plays better."""

from __future__ import annotations

import random

from rules import makemake as mm
from rules.ai import choose
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
