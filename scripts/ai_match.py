"""One AI level against another: one seat of ``--level``, the rest ``--against``, rotating.

    python scripts/ai_match.py makemake --games 200 --seats 3                 # greedy vs random
    python scripts/ai_match.py giants --games 40 --seats 3 --level strong --against greedy \\
        --budget-ms 300 --json

Prints the level's win share (a shared win counts as a fraction), the even share, each level's mean
final score and how games ended; with ``--json`` one JSON object. Decision times are wall-clock
times of the level's decisions that had a choice (more than one legal action). ``--iterations``
gives the strong AI a repeatable budget instead of (or besides) ``--budget-ms``; ``--processes``
plays games side by side.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.ai import LEVELS, choose
from rules.core import CHANCE
from rules.ismcts import Budget, search
from rules.record import Game, parse_header
from rules.registry import game_module


@dataclass
class Played:
    """One finished game and the timings of the hero's decisions."""

    game: Game
    decision_ms: list[float] = field(default_factory=list)
    iterations: list[int] = field(default_factory=list)


def play(name: str, seats: int, hero_seat: int | None, seed: int, options: list[str],
         level: str = "greedy", against: str = "random",
         budget: Budget | None = None) -> Game:
    """One game; the seat numbered ``hero_seat`` plays ``level``, every other seat ``against``."""
    return play_timed(name, seats, hero_seat, seed, options, level, against, budget).game


def play_timed(name: str, seats: int, hero_seat: int | None, seed: int, options: list[str],
               level: str, against: str, budget: Budget | None) -> Played:
    module = game_module(name)
    colours = module.COLOURS[:seats]
    game = Game.start(parse_header(" ".join(["game", name, *colours, *options, f"seed={seed}"])))
    played = Played(game)
    rng = random.Random(f"match:{seed}")
    hero = None if hero_seat is None else colours[hero_seat]
    while game.pending():
        game.draw_chance()
        for seat in game.pending():
            if seat == CHANCE:
                continue
            if seat != hero:
                game.apply(seat, choose(module, game.state, seat, against, rng, budget))
                continue
            actions = module.legal(game.state, seat)
            started = time.perf_counter()
            if level == "strong":
                outcome = search(module, module.view(game.state, seat), seat, actions, rng,
                                 budget)
                action = outcome.action
                if len(actions) > 1:
                    played.iterations.append(outcome.iterations)
            else:
                action = choose(module, game.state, seat, level, rng, budget)
            if len(actions) > 1:
                played.decision_ms.append((time.perf_counter() - started) * 1000)
            game.apply(seat, action)
    return played


def _one(args: tuple[str, int, int, int, list[str], str, str, float | None, int | None]
         ) -> tuple[dict[str, Any], list[float], list[int]]:
    name, seats, hero_seat, seed, options, level, against, budget_ms, iterations = args
    budget = Budget(iterations=iterations,
                    seconds=None if budget_ms is None else budget_ms / 1000,
                    clock=time.perf_counter)
    played = play_timed(name, seats, hero_seat, seed, options, level, against, budget)
    module = played.game.module
    result = module.result(played.game.state)
    assert result is not None
    colours = module.COLOURS[:seats]
    hero = colours[hero_seat]
    summary = {
        "win": (1 / len(result.winners)) if hero in result.winners else 0.0,
        "hero_score": result.scores.get(hero, 0),
        "other_scores": [result.scores.get(c, 0) for c in colours if c != hero],
        "reason": result.reason,
        "round": module.view(played.game.state, None).get("round", 0),
    }
    return summary, played.decision_ms, played.iterations


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--level", choices=LEVELS, default="greedy")
    parser.add_argument("--against", choices=LEVELS, default="random")
    parser.add_argument("--budget-ms", type=float, default=None,
                        help="the strong AI's time a decision (wall clock)")
    parser.add_argument("--iterations", type=int, default=None,
                        help="the strong AI's iterations a decision (repeatable)")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("options", nargs="*", metavar="OPTION=VALUE")
    args = parser.parse_args()
    jobs = [(args.game, args.seats, i % args.seats, args.first_seed + i, args.options,
             args.level, args.against, args.budget_ms, args.iterations)
            for i in range(args.games)]
    started = time.perf_counter()
    if args.processes > 1:
        with ProcessPoolExecutor(args.processes) as pool:
            results = list(pool.map(_one, jobs))
    else:
        results = [_one(job) for job in jobs]
    elapsed = time.perf_counter() - started
    wins = sum(r[0]["win"] for r in results)
    times = [t for r in results for t in r[1]]
    iterations = [n for r in results for n in r[2]]
    ends: dict[str, int] = {}
    for r in results:
        ends[r[0]["reason"]] = ends.get(r[0]["reason"], 0) + 1
    others = [s for r in results for s in r[0]["other_scores"]]
    report = {
        "game": args.game,
        "seats": args.seats,
        "level": args.level,
        "against": args.against,
        "budget_ms": args.budget_ms,
        "iterations": args.iterations,
        "games": args.games,
        "wins": round(wins, 3),
        "win_share": round(wins / args.games, 3),
        "even_share": round(1 / args.seats, 3),
        "mean_score": {
            args.level: round(statistics.fmean(r[0]["hero_score"] for r in results), 2),
            f"{args.against} (each)" if args.against == args.level else args.against:
                round(statistics.fmean(others), 2) if others else 0.0,
        },
        "decisions": len(times),
        "decision_ms_p50": round(_percentile(times, 0.5), 1),
        "decision_ms_p99": round(_percentile(times, 0.99), 1),
        "iterations_p50": int(_percentile([float(n) for n in iterations], 0.5)),
        "mean_rounds": round(statistics.fmean(r[0]["round"] for r in results), 1),
        "endings": ends,
        "seconds": round(elapsed, 1),
    }
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{args.game}, {args.seats} seats, {args.games} games, one {args.level} seat (rotating) "
          f"against {args.against}")
    print(f"{args.level} win rate: {wins / args.games:.1%} "
          f"(an even share would be {1 / args.seats:.1%})")
    print(f"mean score: {report['mean_score']}")
    if times:
        print(f"decision time: p50 {report['decision_ms_p50']} ms, "
              f"p99 {report['decision_ms_p99']} ms over {len(times)} decisions")
    print(f"average rounds: {report['mean_rounds']}; endings: {ends}")
    print(f"speed: {args.games / elapsed:.2f} games/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
