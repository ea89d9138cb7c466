"""How long a start takes to read its games: a store of 10,000 games, 1,000 of them running
with 150 log rows each, read by :meth:`Store.load_active` (a handful of queries for all)
against the per-game reads (six a game), and what decoding every row's events would add.

    python scripts/load_benchmark.py [--games 10000] [--running 1000] [--rows 150]

The rows are those of a real AI game of Giants (its lines, events and snapshot), copied into
every game. Every figure is measured when the script runs.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.host.sessions import Host
from bot.host.store import ActiveGame, LogRow, SqliteStore, Store

REPEAT = 3
"""Each figure is the median of this many runs."""


async def template(path: Path) -> tuple[list[LogRow], str, str]:
    """A whole AI game of Giants played through the host: its log, snapshot and game line."""
    store = await SqliteStore.open(path, synchronous="NORMAL")
    host = Host(store, seed_source=lambda: 7)
    session = await host.create(channel_id=1, guild_id=1, game="giants", options={},
                                creator_id=1, language="en", ai_level="random", join=False)
    for _ in range(5):
        await host.add_ai(session.id, 1)
    await host.start(session.id, 1)
    rows = await store.log(session.id)
    with sqlite3.connect(path) as db:
        state, header = db.execute("SELECT state, header FROM snapshots JOIN games"
                                   " ON games.id = snapshots.game_id").fetchone()
    db.close()
    await store.close()
    return rows, state, header


def build(path: Path, games: int, running: int, per_game: int, rows: list[LogRow],
          state: str, header: str) -> None:
    """``games`` games of five AI seats each (the last ``running`` of them running, the
    others finished), ``per_game`` log rows each, written in one transaction."""
    now = "2026-01-01T00:00:00+00:00"
    colours = ["red", "blue", "green", "yellow", "white"]
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO games (id, channel_id, guild_id, game, options, seed, secret_seed, header,"
        " status, creator_id, language, ai_level, created_at, updated_at) VALUES"
        " (?, ?, 1, 'giants', '', 0, '7', ?, ?, 1, 'en', 'random', ?, ?)",
        [(g, g, header, "running" if g > games - running else "finished", now, now)
         for g in range(1, games + 1)])
    db.executemany(
        "INSERT INTO seats (game_id, colour, user_id, ai_level, name, joined) VALUES"
        " (?, ?, NULL, 'random', '', ?)",
        [(g, c, n) for g in range(1, games + 1) for n, c in enumerate(colours, start=1)])
    db.executemany(
        "INSERT INTO actions (game_id, seq, line, sealed, events, by) VALUES (?, ?, ?, ?, ?, ?)",
        [(g, r.seq, r.line, r.sealed, r.events_json, r.by)
         for g in range(1, games + 1) for r in rows[:per_game]])
    db.executemany("INSERT INTO snapshots (game_id, seq, state) VALUES (?, ?, ?)",
                   [(g, per_game, state) for g in range(1, games + 1)])
    db.executemany("INSERT INTO hidden_seats (game_id, colour, dm_closed) VALUES (?, 'red', 1)",
                   [(g,) for g in range(1, games + 1, 7)])
    db.execute("COMMIT")
    db.close()


async def per_game(store: Store) -> list[tuple[object, ...]]:
    """What the host reads today: six reads for each active game (all kept, as the host
    keeps every game it loads)."""
    return [(await store.seats(row.id), await store.closed_dms(row.id),
             await store.seat_changes(row.id), await store.log(row.id),
             await store.takebacks(row.id), await store.snapshot(row.id))
            for row in await store.games_with_status("lobby", "running")]


def decode_all(loaded: list[ActiveGame]) -> float:
    """Seconds to decode every log row's events afresh, as an eager bulk read would (with the
    garbage collector paused, as it is there)."""
    gc.disable()
    try:
        start = time.perf_counter()
        for game in loaded:
            for row in game.log:
                json.loads(row.events_json)
        return time.perf_counter() - start
    finally:
        gc.enable()


def median_s(runs: list[float]) -> str:
    return f"median {statistics.median(runs):7.3f} s (of {len(runs)})"


async def measure(path: Path) -> None:
    store = await SqliteStore.open(path, synchronous="NORMAL")
    try:
        bulk, single, decode = [], [], []
        for _ in range(REPEAT):
            start = time.perf_counter()
            loaded = await store.load_active()
            bulk.append(time.perf_counter() - start)
            decode.append(decode_all(loaded))
            del loaded
            gc.collect()
            start = time.perf_counter()
            kept = await per_game(store)
            single.append(time.perf_counter() - start)
            del kept
            gc.collect()
        loaded = await store.load_active()
        logged = sum(len(g.log) for g in loaded)
        print(f"  load_active: {len(loaded)} games, {logged} log rows    {median_s(bulk)}")
        print(f"  per-game reads (6 a game)                      {median_s(single)}"
              f"   ratio {statistics.median(single) / statistics.median(bulk):.1f}")
        print(f"  decoding every row's events as well            {median_s(decode)}"
              "   (what the lazy decode saves)")
    finally:
        await store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--running", type=int, default=1_000)
    parser.add_argument("--rows", type=int, default=150)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows, state, header = asyncio.run(template(Path(tmp) / "template.sqlite3"))
        path = Path(tmp) / "games.sqlite3"
        start = time.perf_counter()
        asyncio.run(_schema(path))
        build(path, args.games, args.running, min(args.rows, len(rows)), rows, state, header)
        size = path.stat().st_size / 2**20
        print(f"{args.games} games, {args.running} running, {min(args.rows, len(rows))} log rows"
              f" each ({size:.0f} MiB, built in {time.perf_counter() - start:.1f} s):")
        asyncio.run(measure(path))
    return 0


async def _schema(path: Path) -> None:
    await (await SqliteStore.open(path)).close()


if __name__ == "__main__":
    raise SystemExit(main())
