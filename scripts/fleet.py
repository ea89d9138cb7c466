"""Several bot processes over one PostgreSQL store: for the live benchmark's ``--processes`` and
for the tests that race processes on the same games.

Each process (:func:`serve`, started with :func:`start`) is a bot without Discord: its own
store, session host and outbox, Discord stubbed at its edge (scripts/live_games.py), and the
store's notifications heard as the bot hears them. Process ``index`` of ``count`` runs shard
``index``: it shows the games of that shard's servers (bot.host.shards), as a bot process
connected to that shard would, and every process may apply any move. It is driven over a
Unix socket (:class:`Remote`): one JSON object a line each way, requests numbered so that
many may be under way at once, each answered when what it asked is done (a move committed, a
table shown...).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import multiprocessing
import os
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from bot.host import memory
from bot.host.clock import Clock, ManualClock, system_clock
from bot.host.sessions import Host, Refusal
from bot.host.store import PostgresStore
from bot.table.pool import RenderPool
from bot.table.private import secret_now
from rules.core import IllegalAction
from scripts.live_games import (
    CHANNELS,
    KINDS,
    BlankRenders,
    Figures,
    ShowingOutbox,
    StubBot,
    Window,
    cpu_main,
    cpu_total,
    guild_of,
    player,
    rss_mb,
    watch_lag,
)

READY_WITHIN = 120.0
"""Seconds a process may take to start (open its store, load its games)."""
LIMIT = 2**24
"""The longest line either side sends (a run's figures)."""


@dataclass(frozen=True)
class Config:
    """One bot process: the database, its place among ``count`` processes, where its socket
    goes, its clock (``clock``: a ManualClock from that ISO time, moved by the ``clock``
    request; None: the system's) and its render pool (``workers`` processes; None: pictures
    are not drawn)."""

    url: str
    index: int
    count: int
    folder: str
    clock: str | None = None
    workers: int | None = None
    pool_size: int = 4

    @property
    def socket(self) -> str:
        return socket_of(self.folder, self.index)


def socket_of(folder: str, index: int) -> str:
    return os.path.join(folder, f"bot-{index}.sock")


# --- a process ------------------------------------------------------------------------------

def serve(config: Config, ready: Connection) -> None:
    """The process's main: says ``ready`` (or why not) on ``ready``, then serves until asked
    to stop."""
    memory.collect_less()  # as ``python -m bot run`` does
    asyncio.run(_serve(config, ready))


async def _serve(config: Config, ready: Connection) -> None:
    try:
        clock: Clock = ManualClock(datetime.fromisoformat(config.clock)) if config.clock \
            else system_clock
        store = await PostgresStore.open(config.url, clock, pool_size=config.pool_size)
        host = Host(store, seed_source=itertools.count(config.index * 10**6 + 1).__next__)
        await host.load()
        renders: Any = BlankRenders() if config.workers is None else RenderPool(config.workers)
        renders.start()
        bot = StubBot(host, renders, clock, shard=config.index, shards=config.count)
        outbox = ShowingOutbox(bot)
        await store.listen(outbox.heard)
        worker = Worker(config, host, outbox, bot, clock)
        server = await asyncio.start_unix_server(worker.connected, path=config.socket,
                                                 limit=LIMIT)
    except Exception as error:
        ready.send(f"{type(error).__name__}: {error}")
        raise
    ready.send("ready")
    try:
        await worker.stopping.wait()
    finally:
        server.close()
        await worker.hang_up()
        await outbox.drain(5.0)
        renders.close()
        if worker.forward is not None:
            await worker.forward.close()
        await store.close()


class Worker:
    """A process's answers to its requests (``op`` names a method ``op_<name>``)."""

    def __init__(self, config: Config, host: Host, outbox: ShowingOutbox, bot: StubBot,
                 clock: Clock) -> None:
        self.config = config
        self.host = host
        self.outbox = outbox
        self.bot = bot
        self.clock = clock
        self.stopping = asyncio.Event()
        self.forward: Remote | None = None
        """Process 0, where this one sends the secret choices of its games' players."""
        self._run: tuple[Window, Figures, list[asyncio.Task[None]]] | None = None
        self._readers: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    async def hang_up(self) -> None:
        """Close every connection (their readers end), once the answers under way are sent."""
        for writer in self._writers:
            writer.close()
        await asyncio.gather(*self._readers, return_exceptions=True)

    async def connected(self, reader: asyncio.StreamReader,
                        writer: asyncio.StreamWriter) -> None:
        lock = asyncio.Lock()
        tasks: set[asyncio.Task[None]] = set()
        reading = asyncio.current_task()
        assert reading is not None
        self._readers.add(reading)
        self._writers.add(writer)

        async def answer(request: dict[str, Any]) -> None:
            reply = await self.handle(request)
            async with lock:
                writer.write(json.dumps(reply).encode() + b"\n")
                with contextlib.suppress(ConnectionError):
                    await writer.drain()

        try:
            while line := await reader.readline():
                task = asyncio.create_task(answer(json.loads(line)))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        except ConnectionError:
            pass
        for task in list(tasks):
            await task
        writer.close()
        self._writers.discard(writer)
        self._readers.discard(reading)

    async def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        number, op, args = request["n"], request["op"], request.get("args", {})
        try:
            value = await getattr(self, f"op_{op}")(**args)
        except (Refusal, IllegalAction) as error:
            return {"n": number, "refused": error.key}
        except Exception as error:
            return {"n": number, "error": f"{type(error).__name__}: {error}"}
        return {"n": number, "value": value}

    # --- games ----------------------------------------------------------------------------

    async def op_create(self, kind: str, channel: int, guild: int, humans: int,
                        ai: int = 1, turn_seconds: int | None = None) -> dict[str, Any]:
        """A game with humans ``channel * 10``, ``+ 1``... (the first opened it) and ``ai``
        AI seats, started."""
        creator = channel * 10
        host = self.host
        session = await host.create(channel_id=channel, guild_id=guild, game=kind,
                                    options={}, creator_id=creator, language="en",
                                    creator_name="p0", turn_seconds=turn_seconds)
        for k in range(1, humans):
            await host.join(session.id, creator + k, f"p{k}")
        for _ in range(ai):
            await host.add_ai(session.id, creator)
        await host.start(session.id, creator)
        self.outbox.kick(session.id)
        return {"game": session.id, "seq": session.seq}

    async def op_play(self, game: int, user: int, text: str,
                      repeat: float | None = None) -> dict[str, Any]:
        """A human's move, answered once committed: its number and line, and the game's last
        action after the host's own steps. ``repeat``: typed, as ``/play`` and DMs play it
        (the same line again within that many seconds is refused)."""
        report = await self.host.play_game(game, user, text, repeat_within=repeat)
        self.outbox.kick(game)
        step = report.steps[0]
        return {"seq": step.seq, "line": step.line, "last": report.session.seq}

    async def op_view(self, game: int) -> dict[str, Any]:
        """The game as this process holds it once caught up with the store."""
        session = await self.host.catch_up(game) or await self.host.get(game)
        pending = []
        if session.status == "running":
            for colour in session.pending():
                seat = session.seat(colour)
                if seat is not None and not seat.is_ai:
                    pending.append([colour, seat.user_id,
                                    [str(a) for a in session.legal(colour)]])
        return {"seq": session.seq, "status": session.status, "pending": pending,
                "secret": secret_now(session), "deadline": session.row.deadline_at,
                "lines": session.game.lines if session.game else []}

    async def op_shown(self, game: int, seq: int) -> int:
        """Wait until this process's table of the game shows action ``seq`` or later."""
        await self.outbox.showing(game, seq)
        return self.outbox.shown[game]

    async def op_settle(self, game: int) -> None:
        await self.outbox.settled(game)

    async def op_posts(self) -> dict[str, int]:
        """New messages this process posted, by channel (a DM's: the user's id)."""
        return {str(k): v for k, v in self.bot.sink.posts.items()}

    async def op_clock(self, now: str) -> None:
        assert isinstance(self.clock, ManualClock)
        self.clock.now = datetime.fromisoformat(now)

    async def op_timeout(self, game: int) -> int:
        """The turn timer's timeout, as the tick plays it: how many steps were applied."""
        report = await self.host.timeout(game, self.clock())
        self.outbox.kick(game)
        return len(report.steps)

    async def op_remind(self, game: int) -> bool:
        sent = await self.host.remind(game) is not None
        self.outbox.kick(game)
        return sent

    async def op_reloads(self) -> int:
        return self.host.reloads

    async def op_stop(self) -> None:
        self.stopping.set()

    # --- the live benchmark -----------------------------------------------------------------

    async def op_prepare(self, games: list[list[Any]], interval: float, seed: int) -> int:
        """Start the players of ``games`` (``[i, kind]``: game ``i`` of the run, shown here),
        each game started and shown; answered when all are."""
        if self.config.index != 0:
            self.forward = await Remote.connect(socket_of(self.config.folder, 0))
        window, figures = Window(), Figures()
        rng = random.Random(seed)
        forward = self.forward
        send: Callable[[int, int, str], Awaitable[dict[str, Any]]] | None = None
        if forward is not None:
            async def send(game: int, user: int, text: str) -> dict[str, Any]:
                reply = await forward.ask("play", game=game, user=user, text=text)
                if "error" in reply:
                    raise RemoteError(reply["error"])
                return reply.get("value") or {"refused": reply["refused"]}

        tasks = [asyncio.create_task(player(
            self.host, self.outbox, CHANNELS + i, kind, interval, window, figures,
            random.Random(rng.random()), guild=guild_of(i), forward=send))
            for i, kind in games]
        self._run = (window, figures, tasks)
        while window.ready < len(tasks):
            for task in tasks:
                if task.done() and task.exception() is not None:
                    raise RuntimeError(f"a player failed: {task.exception()!r}")
            await asyncio.sleep(0.05)
        return len(tasks)

    async def op_go(self, start: float, seconds: float) -> dict[str, Any]:
        """Run the load from ``start`` (the system's time) for ``seconds``; its figures."""
        assert self._run is not None
        window, figures, tasks = self._run
        memory.settle()  # as the bot does once its games are loaded
        window.start = time.perf_counter() + (start - time.time())
        window.end = window.start + seconds
        stop = asyncio.Event()
        lag = asyncio.create_task(watch_lag(figures, stop))
        renders = self.bot.renders
        cpu_before, main_before = cpu_total(renders), cpu_main()
        drawn, files, sent = renders.drawn, self.bot.sink.files, self.bot.sink.bytes
        window.go.set()
        await asyncio.sleep(max(0.0, window.start - time.perf_counter()))
        figures.lag_max = 0.0
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - window.start
        stop.set()
        await lag
        return {**asdict(figures),
                "cpu": cpu_total(renders) - cpu_before, "main_cpu": cpu_main() - main_before,
                "rss_mb": rss_mb(os.getpid()) + sum(rss_mb(p) for p in renders.pids),
                "drawn": renders.drawn - drawn, "files": self.bot.sink.files - files,
                "bytes": self.bot.sink.bytes - sent, "reloads": self.host.reloads,
                "render_workers": renders.workers, "elapsed": elapsed}


# --- talking to a process -------------------------------------------------------------------

class RemoteError(RuntimeError):
    """The process failed to do what it was asked (the message is its error)."""


class Remote:
    """A connection to one process: :meth:`ask` sends a request and waits for its answer
    (any number at once)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._numbers = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reading = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, path: str) -> Remote:
        reader, writer = await asyncio.open_unix_connection(path, limit=LIMIT)
        return cls(reader, writer)

    async def _read(self) -> None:
        try:
            while line := await self._reader.readline():
                reply = json.loads(line)
                future = self._waiting.pop(reply["n"], None)
                if future is not None and not future.done():
                    future.set_result(reply)
        except ConnectionError:
            pass  # the process died: whoever waits is told so
        finally:
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(ConnectionError("the process went away"))

    async def ask(self, op: str, **args: Any) -> dict[str, Any]:
        """The whole answer: ``value``, ``refused`` (a refusal's key) or ``error``."""
        if self._reading.done():
            raise ConnectionError("the process went away")
        number = next(self._numbers)
        future = asyncio.get_running_loop().create_future()
        self._waiting[number] = future
        self._writer.write(json.dumps({"n": number, "op": op, "args": args}).encode() + b"\n")
        await self._writer.drain()
        return await future

    async def call(self, op: str, **args: Any) -> Any:
        """The answer's value; a refusal or an error raises :class:`RemoteError`."""
        reply = await self.ask(op, **args)
        if "value" not in reply:
            raise RemoteError(reply.get("error") or f"refused: {reply.get('refused')}")
        return reply["value"]

    async def close(self) -> None:
        self._writer.close()
        with contextlib.suppress(ConnectionError):
            await self._writer.wait_closed()
        self._reading.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            await self._reading


@dataclass
class Running:
    """A started process and the connection to it."""

    process: BaseProcess
    remote: Remote

    async def stop(self, within: float = 60.0) -> None:
        """A clean stop: the process closes its store and ends."""
        with contextlib.suppress(ConnectionError, RemoteError):
            await self.remote.call("stop")
        await self.remote.close()
        await asyncio.to_thread(self.process.join, within)
        if self.process.is_alive():
            self.process.kill()


async def start(config: Config) -> Running:
    """Start a process (spawned: nothing of this one's state goes with it) and connect."""
    context = multiprocessing.get_context("spawn")
    mine, theirs = context.Pipe(duplex=False)
    process = context.Process(target=serve, args=(config, theirs),
                              name=f"bot-{config.index}")
    process.start()
    theirs.close()
    if not await asyncio.to_thread(mine.poll, READY_WITHIN):
        process.kill()
        raise RuntimeError(f"bot process {config.index} did not start")
    said = mine.recv()
    if said != "ready":
        process.join(10)
        raise RuntimeError(f"bot process {config.index} did not start: {said}")
    return Running(process, await Remote.connect(config.socket))


__all__ = ["KINDS", "Config", "Remote", "RemoteError", "Running", "serve", "start"]
