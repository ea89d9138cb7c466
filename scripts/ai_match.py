"""Greedy against random: one greedy seat, the others random, the greedy seat rotating.

    python scripts/ai_match.py makemake --games 200 --seats 3

Prints the greedy seat's win rate (a shared win counts as a fraction), how games ended, and the
games per second.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.ai import choose
from rules.core import CHANCE
from rules.record import Game, parse_header
from rules.registry import game_module


def play(name: str, seats: int, greedy_seat: int | None, seed: int, options: list[str]) -> Game:
    """One game; the seat numbered ``greedy_seat`` is greedy, every other seat random."""
    module = game_module(name)
    colours = module.COLOURS[:seats]
    game = Game.start(parse_header(" ".join(["game", name, *colours, *options, f"seed={seed}"])))
    rng = random.Random(f"match:{seed}")
    while game.pending():
        game.draw_chance()
        for seat in game.pending():
            if seat != CHANCE:
                greedy = greedy_seat is not None and seat == colours[greedy_seat]
                level = "greedy" if greedy else "random"
                game.apply(seat, choose(module, game.state, seat, level, rng))
    return game


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("options", nargs="*", metavar="OPTION=VALUE")
    args = parser.parse_args()
    module = game_module(args.game)
    wins = 0.0
    rounds = 0
    ends: dict[str, int] = {}
    started = time.perf_counter()
    for i in range(args.games):
        greedy_seat = i % args.seats
        game = play(args.game, args.seats, greedy_seat, i, args.options)
        result = module.result(game.state)
        assert result is not None
        colour = module.COLOURS[greedy_seat]
        if colour in result.winners:
            wins += 1 / len(result.winners)
        rounds += game.module.view(game.state, None)["round"]
        ends[result.reason] = ends.get(result.reason, 0) + 1
    elapsed = time.perf_counter() - started
    print(f"{args.game}, {args.seats} seats, {args.games} games, one greedy seat (rotating)")
    print(f"greedy win rate: {wins / args.games:.1%} (an even share would be {1 / args.seats:.1%})")
    print(f"average rounds: {rounds / args.games:.1f}; endings: {ends}")
    print(f"speed: {args.games / elapsed:.2f} games/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
