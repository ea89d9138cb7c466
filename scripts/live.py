"""The bot under load: many live games through the host, the store, the outbox and the render
pool, with Discord stubbed at its edge (a post or an edit is accepted at once, its files read
as an upload would), and a start from a store of many games.

    python scripts/benchmark.py --live --games 500 --interval 10 --seconds 60 --json
    python scripts/benchmark.py --startup 10000 --json

``--live``: ``games`` games of the three kinds (each with scripted humans and one AI seat at
the bot's default level) move every ``interval`` seconds with jitter (0: as fast as they
can); a move is a human's action, timed from the call into the host until it is committed and
its table is shown (the board drawn and handed to the stub). A game that ends starts again in
its channel. ``--startup``: a store of that many games (a tenth running, the rest finished
with their results), built from games played through the host and copied; then the time the
bot takes to open the store and load every game that runs.
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import os
import random
import resource
import sqlite3
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord

from bot.constants import PING_AFTER
from bot.exts._outbox import Outbox
from bot.host.clock import system_clock
from bot.host.sessions import Host, Session
from bot.host.store import GAME_TABLES, SqliteStore
from bot.table.pool import RenderPool, cores

KINDS = ("giants", "giganten", "makemake")
SEATS = {"giants": 4, "giganten": 4, "makemake": 4}
"""Seats per game: all humans (scripted) but one AI seat."""
AI_LEVEL = "greedy"
GUILD = 1


# --- Discord, stubbed at its edge ----------------------------------------------------------------

class StubMessage:
    def __init__(self, channel: StubChannel, message_id: int) -> None:
        self.channel = channel
        self.id = message_id

    async def edit(self, **kwargs: Any) -> StubMessage:
        self.channel.sink.take(kwargs)
        return self

    async def delete(self) -> None:
        self.channel.sink.calls += 1


class StubChannel(discord.abc.Messageable):
    """A channel, thread or DM that accepts every message."""

    def __init__(self, channel_id: int, sink: Sink) -> None:
        self.id = channel_id
        self.sink = sink

    async def _get_channel(self) -> Any:
        return self

    async def send(self, content: Any = None, **kwargs: Any) -> StubMessage:  # type: ignore[override]
        self.sink.take(kwargs)
        return StubMessage(self, next(self.sink.ids))

    def get_partial_message(self, message_id: int) -> StubMessage:
        return StubMessage(self, message_id)


class StubUser:
    def __init__(self, user_id: int, sink: Sink) -> None:
        self.id = user_id
        self.display_name = f"player {user_id}"
        self.dm = StubChannel(user_id, sink)

    async def send(self, content: Any = None, **kwargs: Any) -> StubMessage:
        return await self.dm.send(content, **kwargs)


@dataclass
class Sink:
    """Counts what would have gone to Discord."""

    calls: int = 0
    files: int = 0
    bytes: int = 0
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(10**18))

    def take(self, kwargs: dict[str, Any]) -> None:
        self.calls += 1
        files = list(kwargs.get("files") or kwargs.get("attachments") or [])
        if kwargs.get("file") is not None:
            files.append(kwargs["file"])
        for item in files:
            if isinstance(item, discord.File):
                self.files += 1
                self.bytes += len(item.fp.read())


class StubBot:
    """What the outbox asks of the bot, with Discord's side stubbed."""

    def __init__(self, host: Host, renders: RenderPool) -> None:
        self.games = host
        self.renders = renders
        self.settings = SimpleNamespace(clock=system_clock, ping_after=PING_AFTER)
        self.languages: dict[int, str] = {}
        self.sink = Sink()
        self._channels: dict[int, StubChannel] = {}
        self._users: dict[int, StubUser] = {}

    def get_guild(self, guild_id: int) -> None:
        return None

    def shows(self, guild_id: int | None) -> bool:
        return True

    def get_channel(self, channel_id: int) -> StubChannel:
        if channel_id not in self._channels:
            self._channels[channel_id] = StubChannel(channel_id, self.sink)
        return self._channels[channel_id]

    def get_user(self, user_id: int) -> StubUser:
        if user_id not in self._users:
            self._users[user_id] = StubUser(user_id, self.sink)
        return self._users[user_id]

    async def fetch_channel(self, channel_id: int) -> StubChannel:
        return self.get_channel(channel_id)

    async def fetch_user(self, user_id: int) -> StubUser:
        return self.get_user(user_id)


# --- the games ---------------------------------------------------------------------------------

async def new_game(host: Host, channel: int, kind: str) -> Session:
    """A game in ``channel`` with scripted humans and one AI seat, started."""
    creator = channel * 10
    session = await host.create(channel_id=channel, guild_id=GUILD, game=kind, options={},
                                creator_id=creator, language="en", ai_level=AI_LEVEL,
                                creator_name="p0")
    for k in range(1, SEATS[kind] - 1):
        await host.join(session.id, creator + k, f"p{k}")
    await host.add_ai(session.id, creator)
    await host.start(session.id, creator)
    return session


def human_move(session: Session, rng: random.Random) -> tuple[int, str] | None:
    """A pending human and a random legal action of theirs (None: no human must act)."""
    humans = [seat for colour in session.pending()
              if (seat := session.seat(colour)) is not None and not seat.is_ai]
    if not humans:
        return None
    seat = rng.choice(humans)
    legal = session.legal(seat.colour)
    assert seat.user_id is not None and legal
    return seat.user_id, str(rng.choice(legal))


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    commits: list[float] = field(default_factory=list)
    steps: int = 0
    games_ended: int = 0
    lag_max: float = 0.0


async def watch_lag(figures: Figures, stop: asyncio.Event, every: float = 0.01) -> None:
    """The event loop's lag: how late a 10 ms sleep wakes up."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        start = loop.time()
        await asyncio.sleep(every)
        figures.lag_max = max(figures.lag_max, loop.time() - start - every)


@dataclass
class Window:
    """The measured time: every game is started and shown before it opens."""

    go: asyncio.Event = field(default_factory=asyncio.Event)
    ready: int = 0
    start: float = 0.0
    end: float = 0.0


async def player(host: Host, outbox: Outbox, channel: int, kind: str, interval: float,
                 window: Window, figures: Figures, rng: random.Random) -> None:
    """One channel's game: a human moves every ``interval`` seconds (jittered); each move
    waits until the table shows it."""
    session = await new_game(host, channel, kind)
    outbox.kick(session.id)
    await outbox.settled(session.id)
    window.ready += 1
    await window.go.wait()
    due = window.start + rng.uniform(0, interval)
    while True:
        now = time.perf_counter()
        if now >= window.end:
            return
        if due > now:
            await asyncio.sleep(due - now)
        else:
            await asyncio.sleep(0)
        if session.status != "running":
            await outbox.settled(session.id)
            figures.games_ended += 1
            session = await new_game(host, channel, kind)
            outbox.kick(session.id)
            await outbox.settled(session.id)
            continue
        move = human_move(session, rng)
        if move is None:  # the host is still playing chance or AI steps: resume it
            await host.resume(session.id)
            continue
        began = time.perf_counter()
        report = await host.play_game(session.id, move[0], move[1])
        committed = time.perf_counter()
        outbox.kick(session.id)
        await outbox.settled(session.id)
        shown = time.perf_counter()
        due = began + interval * rng.uniform(0.5, 1.5)
        if shown <= window.end:
            figures.latencies.append((shown - began) * 1000)
            figures.commits.append((committed - began) * 1000)
            figures.steps += len(report.steps)


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of a process (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


async def live(games: int, interval: float, seconds: float, workers: int | None = None,
               seed: int = 1) -> dict[str, Any]:
    """Run the load and return its figures (see the module's docstring)."""
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
            host, outbox, 10**17 + i, KINDS[i % len(KINDS)], interval, window, figures,
            random.Random(rng.random()))) for i in range(games)]
        while window.ready < games:
            await asyncio.sleep(0.05)
        window.start = time.perf_counter()
        window.end = window.start + seconds
        window.go.set()
        cpu_before = _cpu_total(renders)
        main_before = _cpu_main()
        drawn_before, files_before, bytes_before = renders.drawn, bot.sink.files, bot.sink.bytes
        figures.lag_max = 0.0
        await asyncio.gather(*players)
        elapsed = time.perf_counter() - window.start
        cpu = _cpu_total(renders) - cpu_before
        main_cpu = _cpu_main() - main_before
        rss = _rss_mb(os.getpid()) + sum(_rss_mb(p) for p in _workers(renders))
        stop.set()
        await lag
        renders.close()
        await store.close()
    moves = len(figures.latencies)
    return {
        "games": games, "interval_s": interval, "seconds": seconds,
        "p50_ms": round(statistics.median(figures.latencies), 1) if moves else None,
        "p99_ms": round(_percentile(figures.latencies, 0.99), 1) if moves else None,
        "commit_p50_ms": round(statistics.median(figures.commits), 1) if moves else None,
        "moves": moves,
        "moves_per_s": round(moves / elapsed, 1),
        "steps_per_s": round(figures.steps / elapsed, 1),
        "renders_per_move": round((renders.drawn - drawn_before) / moves, 2) if moves else None,
        "kib_per_move": round((bot.sink.bytes - bytes_before) / 1024 / moves, 1) if moves
        else None,
        "cpu_ms_per_move": round(cpu * 1000 / moves, 1) if moves else None,
        "main_cpu_ms_per_move": round(main_cpu * 1000 / moves, 1) if moves else None,
        "games_ended": figures.games_ended,
        "loop_lag_max_ms": round(figures.lag_max * 1000, 1),
        "cpu_cores": cores(),
        "render_workers": renders.workers,
        "rss_mb": round(rss, 1),
        "files": bot.sink.files - files_before,
    }


def _workers(renders: RenderPool) -> list[int]:
    return renders.pids


def _cpu_main() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _cpu_total(renders: RenderPool) -> float:
    return _cpu_main() + sum(_cpu_of(p) for p in _workers(renders))


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
        session = await host.create(channel_id=next(channel), guild_id=GUILD, game=kind,
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
