"""Speed figures, measured: engine apply, SQLite commit, board render, AI games, many games at once.

    python scripts/benchmark.py [--games 20] [--parallel 20]

Every figure is measured on this machine when the script runs; nothing is estimated.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.sessions import Host
from bot.store import Store
from render import makemake as render_makemake
from render.common import encode_png
from rules import makemake
from rules.record import parse_line, replay
from scripts.ai_match import play


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    """Wall-clock milliseconds of each of ``repeat`` calls."""
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def show(name: str, ms: list[float]) -> None:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    print(f"  {name:<38} median {statistics.median(ms):8.3f} ms   p95 {p95:8.3f} ms"
          f"   (n={len(ms)})")


def bench_apply(record: str) -> None:
    game, _ = replay(record)
    lines = game.lines
    state = makemake.new(list(game.header.seats), game.header.options.values)
    actions = [parse_line(makemake, line) for line in lines]
    start = time.perf_counter()
    for actor, action in actions:
        state, _ = makemake.apply(state, actor, action)
    per = (time.perf_counter() - start) * 1000 / len(actions)
    print(f"  {'apply (one action, greedy game)':<38} mean {per:8.3f} ms"
          f"   ({len(actions)} actions)")
    show("legal (domination, 4 seats, start)",
         timed(lambda: makemake.legal(makemake.new(["red", "blue", "green", "yellow"]), "red"),
               50))


async def bench_commit(record: str) -> None:
    game, _ = replay(record)
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(Path(tmp) / "bench.sqlite3")
        row = await store.create_game(channel_id=1, guild_id=1, game="makemake", options="",
                                      seed=0, creator_id=1, language="en", ai_level="greedy")
        state = makemake.to_json(game.state)
        await store.start_game(row.id, game.header.line(), state)
        ms = []
        for seq, line in enumerate(game.lines, start=1):
            start = time.perf_counter()
            await store.append_action(row.id, seq, line, state)
            ms.append((time.perf_counter() - start) * 1000)
        await store.close()
    show("commit (log row + snapshot, WAL)", ms)


def bench_render(record: str) -> None:
    lines = record.splitlines()
    game, _ = replay("\n".join(lines[: len(lines) // 2]))
    view = makemake.view(game.state, None)
    render_makemake.board(view)  # warm the static layer cache
    image = render_makemake.canvas(view)
    show("render: canvas (pieces on cached layer)", timed(lambda: render_makemake.canvas(view), 20))
    show("render: full board (canvas + PNG)", timed(lambda: render_makemake.board(view), 20))
    show("bare PNG encode of the same canvas", timed(lambda: encode_png(image), 20))
    png = render_makemake.board(view)
    print(f"  PNG: {image.width}x{image.height} px, {len(png) / 1024:.0f} KiB")


def bench_games(games: int) -> None:
    for greedy_seat, label in ((None, "all random"), (0, "one greedy, two random")):
        start = time.perf_counter()
        for i in range(games):
            play("makemake", 3, greedy_seat, i, [])
        rate = games / (time.perf_counter() - start)
        print(f"  {'full AI games, ' + label:<38} {rate:8.2f} games/s   (3 seats, n={games})")


async def bench_parallel(count: int, level: str) -> None:
    """``count`` all-AI games in ``count`` channels at once, through the host and the store.

    With random seats the figure is the host's own cost (lock, apply, commit); with greedy seats
    it is mostly the AI's thinking.
    """
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(Path(tmp) / "bench.sqlite3")
        host = Host(store, seed_source=iter(range(1, 10**6)).__next__)
        await host.load()
        sessions = []
        for channel in range(count):
            session = await host.create(channel_id=channel, guild_id=1, game="makemake",
                                        options={"round_limit": "30"}, creator_id=1,
                                        language="en", ai_level=level, join=False)
            for _ in range(3):
                await host.add_ai(session.id, 1)
            sessions.append(session)
        start = time.perf_counter()
        reports = await asyncio.gather(*(host.start(s.id, 1) for s in sessions))
        elapsed = time.perf_counter() - start
        actions = sum(len(r.steps) for r in reports)
        await store.close()
    print(f"  {count} {level} AI games at once: {actions} actions committed in {elapsed:.2f} s"
          f" = {actions / elapsed:.0f} actions/s, {count / elapsed:.2f} games/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--parallel", type=int, default=20)
    args = parser.parse_args()
    record = play("makemake", 4, 0, 3, []).record()
    print("Make Make, a 4-seat game with one greedy seat (render: its middle position):")
    bench_apply(record)
    asyncio.run(bench_commit(record))
    bench_render(record)
    bench_games(args.games)
    for level in ("random", "greedy"):
        asyncio.run(bench_parallel(args.parallel, level))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
