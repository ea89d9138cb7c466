"""Speed figures, measured: engine apply, SQLite commit, board render, AI games, many games at once.

    python scripts/benchmark.py [--games 10] [--parallel 20] [--only makemake]

For each game: one greedy seat against random seats plays a game whose record is then measured
(apply every line; commit every line; render the middle and the last position, against a bare PNG
encode of the same canvas), then whole AI games per second; last, many Make Make games at once
through the session host and the store. Every figure is measured when the script runs.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import io
import json
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image

from bot.host.sessions import Host
from bot.host.store import Store
from render import palette
from rules.core import GameModule
from rules.record import Game, parse_line, replay
from rules.registry import GAME_NAMES, game_module
from scripts.ai_match import play
from scripts.live import live, startup

SEATS = {"makemake": 4, "giants": 5, "giganten": 4}


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
    print(f"  {name:<42} median {statistics.median(ms):8.3f} ms   p95 {p95:8.3f} ms"
          f"   (n={len(ms)})")


def bench_apply(module: GameModule, game: Game) -> None:
    state = module.new(list(game.header.seats), game.header.options.values,
                       seed=game.header.seed)
    actions = [parse_line(module, line) for line in game.lines]
    start = time.perf_counter()
    for actor, action in actions:
        state, _ = module.apply(state, actor, action)
    per = (time.perf_counter() - start) * 1000 / len(actions)
    print(f"  {'apply (mean over one game)':<42} mean   {per:8.3f} ms"
          f"   ({len(actions)} actions)")


async def bench_commit(module: GameModule, game: Game) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(Path(tmp) / "bench.sqlite3")
        row = await store.create_game(channel_id=1, guild_id=1, game=module.NAME, options="",
                                      seed=0, creator_id=1, language="en", ai_level="greedy")
        state = module.to_json(game.state)
        await store.start_game(row.id, game.header.line(), state)
        ms = []
        for seq, line in enumerate(game.lines, start=1):
            start = time.perf_counter()
            await store.append_action(row.id, seq, line, state)
            ms.append((time.perf_counter() - start) * 1000)
        await store.close()
    show("commit (log row + snapshot, WAL)", ms)


def bare_png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def bench_render(module: GameModule, record: str) -> None:
    renderer = importlib.import_module(f"render.{module.NAME}")
    lines = record.splitlines()
    for label, upto in (("middle", len(lines) // 2), ("end", len(lines))):
        game, _ = replay("\n".join(lines[:upto]))
        bench_render_view(renderer, module.view(game.state, None), label)


def band_encoder(renderer: Any, view: dict[str, Any]) -> palette.BandEncoder:
    """The encoder ``renderer.board`` uses for this view (its static layer's)."""
    return renderer.encoder(  # type: ignore[no-any-return]
        "en", len(view["seats"]), bool(view["finished"]))


def bench_render_view(renderer: Any, view: dict[str, Any], label: str) -> None:
    renderer.board(view)  # the first render builds the static layer, palette and bands once
    image = renderer.canvas(view)
    encoder = band_encoder(renderer, view)
    indexed = encoder.palette.quantize(image)
    raw = palette._rows(indexed.tobytes(), image.width, 0, image.height)
    show(f"render {label}: canvas (pieces on cache)", timed(lambda: renderer.canvas(view), 10))
    show(f"render {label}:   floor, image.copy() of it", timed(image.copy, 10))
    show(f"render {label}: board (canvas + PNG)", timed(lambda: renderer.board(view), 10))
    show(f"render {label}: the board's PNG encode", timed(lambda: encoder.encode(image), 10))
    show(f"render {label}:   of it, palette quantize",
         timed(lambda: encoder.palette.quantize(image), 10))
    show(f"render {label}:   zlib level 1, whole picture",
         timed(lambda: zlib.compress(raw, palette.LEVEL), 10))
    show(f"render {label}: bare PNG save, same canvas", timed(lambda: bare_png(image), 5))
    for level in (1, 3, 6, 9):
        size = len(zlib.compress(raw, level))
        show(f"render {label}:   zlib level {level} ({size / 1024:.0f} KiB)",
             timed(lambda level=level: zlib.compress(raw, level), 5))  # type: ignore[misc]
    png = renderer.board(view)
    print(f"  render {label}: {image.width}x{image.height} px, PNG {len(png) / 1024:.0f} KiB")


def bench_games(module: GameModule, games: int) -> None:
    seats = SEATS[module.NAME]
    for greedy_seat, label in ((None, "all random"), (0, "one greedy")):
        start = time.perf_counter()
        for i in range(games):
            play(module.NAME, seats, greedy_seat, i, [])
        rate = games / (time.perf_counter() - start)
        print(f"  {'AI games, ' + label:<42} {rate:8.2f} games/s   ({seats} seats, n={games})")


async def bench_parallel(count: int, level: str) -> None:
    """``count`` all-AI Make Make games in ``count`` channels at once, through the host.

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
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=None,
                        help="AI games per figure (10); with --live: live games (100)")
    parser.add_argument("--parallel", type=int, default=20)
    parser.add_argument("--only", choices=GAME_NAMES)
    parser.add_argument("--live", action="store_true",
                        help="many live games through the host, store, outbox and renders")
    parser.add_argument("--interval", type=float, default=10.0,
                        help="with --live: seconds between a game's moves (0: at once)")
    parser.add_argument("--seconds", type=float, default=30.0,
                        help="with --live: how long the load is measured")
    parser.add_argument("--workers", type=int, default=None,
                        help="with --live: render processes (default: one per core)")
    parser.add_argument("--startup", type=int, metavar="GAMES",
                        help="time a start on a store of this many games (a tenth running)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.live or args.startup:
        figures: dict[str, object] = {}
        if args.live:
            figures.update(asyncio.run(live(args.games or 100, args.interval, args.seconds,
                                            args.workers)))
        if args.startup:
            figures.update(startup(args.startup))
        if args.json:
            print(json.dumps(figures))
        else:
            for key, value in figures.items():
                print(f"  {key:<20} {value}")
        return 0
    args.games = args.games or 10
    for name in [args.only] if args.only else GAME_NAMES:
        module = game_module(name)
        record = play(name, SEATS[name], 0, 3, []).record()
        game, _ = replay(record)
        print(f"{name}, {SEATS[name]} seats, a game of one greedy seat against random seats:")
        bench_apply(module, game)
        asyncio.run(bench_commit(module, game))
        bench_render(module, record)
        bench_games(module, args.games)
    print("makemake, many games at once through the host and the store:")
    for level in ("random", "greedy"):
        asyncio.run(bench_parallel(args.parallel, level))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
