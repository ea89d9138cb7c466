"""The bot under load: many live games through the host, the store, the outbox and the render
pool, with Discord stubbed at its edge (a post or an edit is accepted at once, its files read
as an upload would), and a start from a store of many games.

    python scripts/benchmark.py --live --games 500 --interval 10 --seconds 60 --json
    python scripts/benchmark.py --live --games 1000 --store postgresql --processes 2 --json
    python scripts/benchmark.py --startup 10000 --json

``--live``: ``games`` games of the three kinds (each with scripted humans and one AI seat at
the bot's default level) move every ``interval`` seconds with jitter (0: as fast as they
can); a move is a human's action, timed from the call into the host until it is committed and
its table is shown (the board drawn and handed to the stub). Every move begun in the window
counts, and the run lasts until the last of them is shown. A game that ends starts again in
its channel. ``lost`` and ``double_applied`` are counted from the store after the run: moves
acknowledged to their players that it does not hold, and humans' actions it holds that no
acknowledgement accounts for.

``store="postgresql"`` keeps the games in PostgreSQL (a throwaway server, scripts/pg_temp.py,
unless ``database_url`` names one) and runs ``processes`` bot processes on it
(scripts/fleet.py), each with its own render workers (the cores shared out, unless
``workers`` says): each game's server is on one process's shard, which starts it, shows it
and makes its players' moves, but a secret choice (a DM, delivered to shard 0) is applied by
process 0 and shown by the game's own process once the store told it.

``--startup``: a store of that many games (a tenth running, the rest finished with their
results), built from games played through the host and copied; then the time the bot takes
to open the store and load every game that runs.
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import os
import random
import sqlite3
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bot.adapter.outbox import Outbox
from bot.host import memory
from bot.host.sessions import Host
from bot.host.shards import shard_of
from bot.host.store import GAME_TABLES, PostgresStore, SqliteStore
from bot.table.pool import RenderPool, cores
from scripts import fleet, pg_temp
from scripts.live_games import (
    CHANNELS,
    KINDS,
    SEATS,
    Figures,
    StubBot,
    Window,
    cpu_main,
    cpu_of,
    cpu_total,
    guild_of,
    human_move,
    new_game,
    player,
    rss_mb,
    unaccounted,
    watch_lag,
)

STORES = ("sqlite", "postgresql")
DATABASE = "live"


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


async def live(games: int, interval: float, seconds: float, workers: int | None = None,
               seed: int = 1, store: str = "sqlite", processes: int = 1,
               database_url: str | None = None) -> dict[str, Any]:
    """Run the load and return its figures (see the module's docstring)."""
    if store not in STORES:
        raise ValueError(f"store: one of {', '.join(STORES)}, not {store!r}")
    if store == "sqlite":
        if processes != 1 or database_url is not None:
            raise ValueError("one bot process writes a SQLite database: several processes"
                             " (or a database URL) need store='postgresql'")
        return await _here(games, interval, seconds, workers, seed)
    if database_url is not None:
        return await _fleet(database_url, None, games, interval, seconds, workers, seed,
                            processes)
    with pg_temp.temporary_server() as server:
        url = await server.create_database(DATABASE)
        return await _fleet(url, server, games, interval, seconds, workers, seed, processes)


async def _here(games: int, interval: float, seconds: float, workers: int | None,
                seed: int) -> dict[str, Any]:
    """The load on SQLite, in this process."""
    memory.collect_less()  # as ``python -m bot run`` does
    with tempfile.TemporaryDirectory() as folder:
        store = await SqliteStore.open(Path(folder) / "live.sqlite3")
        host = Host(store, seed_source=itertools.count(seed).__next__)
        await host.load()
        renders = RenderPool(workers)
        renders.start()
        bot = StubBot(host, renders)
        outbox = Outbox(bot)  # type: ignore[arg-type]
        figures = Figures()
        rng = random.Random(seed)
        stop = asyncio.Event()
        lag = asyncio.create_task(watch_lag(figures, stop))
        window = Window()
        players = [asyncio.create_task(player(
            host, outbox, CHANNELS + i, KINDS[i % len(KINDS)], interval, window, figures,
            random.Random(rng.random()), guild=guild_of(i))) for i in range(games)]
        while window.ready < games:
            await asyncio.sleep(0.05)
        memory.settle()  # as the bot does once its games are loaded
        window.start = time.perf_counter()
        window.end = window.start + seconds
        window.go.set()
        cpu_before = cpu_total(renders)
        main_before = cpu_main()
        drawn_before, files_before, bytes_before = renders.drawn, bot.sink.files, bot.sink.bytes
        figures.lag_max = 0.0
        await asyncio.gather(*players)
        elapsed = time.perf_counter() - window.start
        cpu = cpu_total(renders) - cpu_before
        main_cpu = cpu_main() - main_before
        rss = rss_mb(os.getpid()) + sum(rss_mb(p) for p in renders.pids)
        stop.set()
        await lag
        renders.close()
        lost, doubled = await unaccounted(store, figures.acks)
        await store.close()
    return _figures(
        games, interval, seconds, figures, elapsed=elapsed, cpu=cpu, main_cpu=main_cpu,
        drawn=renders.drawn - drawn_before, sent=bot.sink.bytes - bytes_before,
        files=bot.sink.files - files_before, rss=rss, render_workers=renders.workers,
        lost=lost, doubled=doubled, extra={"store": "sqlite", "processes": 1})


async def _fleet(url: str, server: pg_temp.Server | None, games: int, interval: float,
                 seconds: float, workers: int | None, seed: int,
                 processes: int) -> dict[str, Any]:
    """The load on PostgreSQL, in ``processes`` bot processes."""
    if processes < 1:
        raise ValueError(f"processes: 1 or more, not {processes}")
    each = workers if workers is not None else max(1, cores() // processes)
    plan: dict[int, list[list[Any]]] = defaultdict(list)
    for i in range(games):
        plan[shard_of(guild_of(i), processes)].append([i, KINDS[i % len(KINDS)]])
    with tempfile.TemporaryDirectory(prefix="rapanui-live-") as folder:
        running = list(await asyncio.gather(*(
            fleet.start(fleet.Config(url, index, processes, folder, workers=each))
            for index in range(processes))))
        try:
            await asyncio.gather(*(r.remote.call("prepare", games=plan[index],
                                                 interval=interval, seed=seed + index)
                                   for index, r in enumerate(running)))
            db_before = _server_cpu(server)
            start = time.time() + 1.0
            results = await asyncio.gather(*(r.remote.call("go", start=start, seconds=seconds)
                                             for r in running))
            db_cpu = _server_cpu(server) - db_before
        finally:
            await asyncio.gather(*(r.stop() for r in running))
    figures = Figures()
    for result in results:
        figures.latencies += result["latencies"]
        figures.commits += result["commits"]
        figures.steps += result["steps"]
        figures.games_ended += result["games_ended"]
        figures.lag_max = max(figures.lag_max, result["lag_max"])
        figures.acks += [(ack[0], ack[1], ack[2]) for ack in result["acks"]]
        figures.refused += result["refused"]
        figures.forwarded += result["forwarded"]
    store = await PostgresStore.open(url, pool_size=2)
    try:
        lost, doubled = await unaccounted(store, figures.acks)
    finally:
        await store.close()
    moves = len(figures.latencies)
    main_cpu = sum(r["main_cpu"] for r in results)
    extra: dict[str, Any] = {
        "store": "postgresql", "processes": processes,
        "moves_by_process": [len(r["latencies"]) for r in results],
        "forwarded": figures.forwarded, "refused": figures.refused,
        "reloads": sum(r["reloads"] for r in results),
        "db_cpu_ms_per_move": round(db_cpu * 1000 / moves, 1) if moves and server else None}
    return _figures(
        games, interval, seconds, figures, elapsed=max(r["elapsed"] for r in results),
        cpu=sum(r["cpu"] for r in results) + db_cpu, main_cpu=main_cpu,
        drawn=sum(r["drawn"] for r in results), sent=sum(r["bytes"] for r in results),
        files=sum(r["files"] for r in results), rss=sum(r["rss_mb"] for r in results),
        render_workers=sum(r["render_workers"] for r in results), lost=lost,
        doubled=doubled, extra=extra)


def _server_cpu(server: pg_temp.Server | None) -> float:
    """CPU seconds the database server's processes have used so far (0: not ours)."""
    return sum(cpu_of(pid) for pid in server.pids()) if server is not None else 0.0


def _figures(games: int, interval: float, seconds: float, figures: Figures, *,
             elapsed: float, cpu: float, main_cpu: float, drawn: int, sent: int, files: int,
             rss: float, render_workers: int, lost: int, doubled: int,
             extra: dict[str, Any]) -> dict[str, Any]:
    moves = len(figures.latencies)
    return {
        "games": games, "interval_s": interval, "seconds": seconds,
        "p50_ms": round(statistics.median(figures.latencies), 1) if moves else None,
        "p99_ms": round(_percentile(figures.latencies, 0.99), 1) if moves else None,
        "commit_p50_ms": round(statistics.median(figures.commits), 1) if moves else None,
        "moves": moves,
        "moves_per_s": round(moves / elapsed, 1),
        "steps_per_s": round(figures.steps / elapsed, 1),
        "renders_per_move": round(drawn / moves, 2) if moves else None,
        "kib_per_move": round(sent / 1024 / moves, 1) if moves else None,
        "cpu_ms_per_move": round(cpu * 1000 / moves, 1) if moves else None,
        "main_cpu_ms_per_move": round(main_cpu * 1000 / moves, 1) if moves else None,
        "games_ended": figures.games_ended,
        "loop_lag_max_ms": round(figures.lag_max * 1000, 1),
        "cpu_cores": cores(),
        "render_workers": render_workers,
        "rss_mb": round(rss, 1),
        "files": files,
        "acknowledged": len(figures.acks),
        "lost": lost,
        "double_applied": doubled,
        **extra,
    }


# --- a start from many stored games --------------------------------------------------------------

async def _templates(path: Path, seed: int) -> tuple[list[int], list[int]]:
    """Games played through the host into ``path``: per kind, two running (a little in, and
    well in) and one finished (all AI seats, with its results). Returns (running, finished)."""
    store = await SqliteStore.open(path, synchronous="NORMAL")
    host = Host(store, seed_source=itertools.count(seed).__next__)
    rng = random.Random(seed)
    running: list[int] = []
    finished: list[int] = []
    channel = itertools.count(1)
    for kind in KINDS:
        for moves in (10, 60):
            session = await new_game(host, next(channel), kind)
            for _ in range(moves):
                move = human_move(session, rng)
                if session.status != "running" or move is None:
                    break
                await host.play_game(session.id, *move)
            (running if session.status == "running" else finished).append(session.id)
        session = await host.create(channel_id=next(channel), guild_id=1, game=kind,
                                    options={}, creator_id=1, language="en", ai_level="random",
                                    join=False)
        for _ in range(SEATS[kind]):
            await host.add_ai(session.id, 1)
        await host.start(session.id, 1)
        assert session.status == "finished"
        finished.append(session.id)
    await store.close()
    return running, finished


def _copy(db: sqlite3.Connection, template: int, new_id: int, channel: int) -> None:
    columns = [r[1] for r in db.execute("PRAGMA table_info(games)")]
    chosen = ", ".join("?" if c in ("id", "channel_id") else
                       ("NULL" if c in ("thread_id", "lobby_message_id") else c)
                       for c in columns)
    params = [new_id if c == "id" else channel for c in columns if c in ("id", "channel_id")]
    db.execute(f"INSERT INTO games ({', '.join(columns)}) SELECT {chosen} FROM games"
               " WHERE id = ?", (*params, template))
    for table in GAME_TABLES:
        if table == "messages":
            continue
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
        picked = ", ".join("?" if c == "game_id" else c for c in cols)
        db.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {picked} FROM {table}"
                   " WHERE game_id = ?", (new_id, template))


def build_store(path: Path, count: int, seed: int = 1) -> int:
    """A store of ``count`` games, a tenth of them running; returns how many run."""
    running, finished = asyncio.run(_templates(path, seed))
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA synchronous = OFF")
    db.execute("BEGIN")
    top = db.execute("SELECT MAX(id) FROM games").fetchone()[0]
    copies = count - len(running) - len(finished)
    live_copies = max(0, count // 10 - len(running))
    for n in range(copies):
        template = running[n % len(running)] if n < live_copies else \
            finished[n % len(finished)]
        _copy(db, template, top + 1 + n, 10**17 + n)
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    live_count = db.execute("SELECT COUNT(*) FROM games WHERE status = 'running'").fetchone()[0]
    db.close()
    return int(live_count)


async def _start(path: Path) -> tuple[float, int]:
    began = time.perf_counter()
    store = await SqliteStore.open(path)
    host = Host(store)
    loaded = await host.load()
    elapsed = time.perf_counter() - began
    await store.close()
    return elapsed, len(loaded)


def _start_now(path: Path) -> tuple[float, int]:
    memory.collect_less()  # as ``python -m bot run`` does before it loads the games
    return asyncio.run(_start(path))


def startup(count: int, seed: int = 1) -> dict[str, Any]:
    """Build a store of ``count`` games, then time a start on it, in a fresh process (the
    bot's modules imported first; three times: the median)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "many.sqlite3"
        built = time.perf_counter()
        running = build_store(path, count, seed)
        built = time.perf_counter() - built
        size = path.stat().st_size
        times, loaded = [], 0
        spawn = multiprocessing.get_context("spawn")
        for _ in range(3):  # a start is a fresh process: each in one of its own
            with spawn.Pool(1) as fresh:
                elapsed, loaded = fresh.apply(_start_now, (path,))
            times.append(elapsed)
    return {"games": count, "running": running, "loaded": loaded,
            "startup_s": round(statistics.median(times), 3),
            "startup_runs_s": [round(t, 3) for t in times],
            "store_mb": round(size / 2**20, 1), "build_s": round(built, 1)}


__all__ = ["build_store", "live", "startup"]
