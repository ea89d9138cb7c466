"""The Giants greedy seat: legal, raises moai and crowns them, and beats random seats."""

from __future__ import annotations

import random

from rules import giants
from rules.core import CHANCE
from rules.giants.ai import greedy
from rules.record import Game, parse_header
from scripts.ai_match import play


def _all_greedy(seats: int, seed: int) -> Game:
    """A whole game of greedy seats, checking that every chosen action is legal."""
    colours = giants.COLOURS[:seats]
    game = Game.start(parse_header(" ".join(["game giants", *colours, f"seed={seed}"])))
    rng = random.Random(seed)
    while game.pending():
        game.draw_chance()
        for seat in game.pending():
            if seat == CHANCE:
                continue
            actions = giants.legal(game.state, seat)
            action = greedy(giants.view(game.state, seat), seat, actions, rng)
            assert action in actions, f"{seat} chose the illegal {action}"
            game.apply(seat, action)
    return game


def _delivered(game: Game, kind: str) -> int:
    items = giants.view(game.state, None)["items"].values()
    return sum(1 for i in items if i["kind"] == kind and i["at"].startswith("ahu:"))


def test_greedy_only_plays_legal_actions() -> None:
    game = _all_greedy(3, 11)
    assert giants.result(game.state) is not None


def test_greedy_erects_moai_and_crowns_them() -> None:
    games = [_all_greedy(seats, seed) for seats, seed in ((3, 1), (4, 2), (5, 3), (4, 4))]
    for game in games:
        seats = len(giants.view(game.state, None)["seats"])
        assert _delivered(game, "moai") >= 3 * seats
    crowned = [_delivered(g, "headdress") for g in games]
    assert sum(n > 0 for n in crowned) >= 3, f"headdresses placed per game: {crowned}"


def test_greedy_beats_random_seats() -> None:
    won = 0
    for i in range(6):
        seats = 3 + i % 3
        game = play("giants", seats, i % seats, 100 + i, [])
        result = giants.result(game.state)
        assert result is not None
        won += giants.COLOURS[i % seats] in result.winners
    assert won >= 5, f"greedy won only {won} of 6 against random seats"


def test_same_seed_same_game() -> None:
    assert play("giants", 3, 0, 7, []).record() == play("giants", 3, 0, 7, []).record()
