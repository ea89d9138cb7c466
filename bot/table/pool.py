"""Where pictures are drawn: worker processes beside the bot, one per core.

Drawing and encoding a board is pure CPU under Python's GIL: in the bot's own process it would
hold up the event loop (every other game's moves, Discord's heartbeat) and use one core only.
So a :class:`~bot.table.Picture` names a module-level function and plain arguments (a view,
a language, names), which pickle, and :class:`RenderPool` runs it in a worker process. Each
worker keeps its own caches (static board layers, fonts, and the compressed bands of recent
pictures, :class:`render.palette.Bands`), built once by :func:`_warm` when it starts. AI
decisions do not go here: they have their threads, so a burst of renders never queues a
decision behind it, nor the other way round.

Each stream of pictures (a game's board, a seat's screen in it) goes to the same worker, so
that worker's band cache holds the stream's previous picture, and a move re-encodes only the
bands it changed; the pictures of one move (a board, screens) spread over the workers. A
worker with a long queue hands the picture to the least busy one.

Each worker is a process on a socket pair, read by the event loop itself: a request is a
pickled ``(number, art, args, kwargs)`` behind its length, the answer ``(number, ok, value)``.
No thread of the bot's process waits on the workers (a ``ProcessPoolExecutor`` has two per
pool, which the event loop's thread then queues behind for the GIL).

Workers run at a lower scheduling priority than the bot (:data:`NICENESS`): when every core is
busy, the event loop (moves, their commits and acknowledgements, Discord's heartbeat) runs
first and the pictures take the rest, so a burst of drawing delays boards, never answers.

``workers=0`` draws in a thread of the bot's own process (tests, small servers); a worker that
dies (killed) is replaced, and the picture that met it is drawn in a thread; a pool whose
workers died :data:`GIVE_UP` times gives way to threads for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import logging
import multiprocessing
import os
import pickle
import socket
import struct
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from typing import Any

from bot.table import Picture
from rules.registry import GameEntry, entries, entry, game_module

log = logging.getLogger(__name__)

KEEP = 32
"""Recent pictures kept by their key: a picture wanted twice (the board that closes a stage's
message and opens the next one's) is drawn once."""
GIVE_UP = 3
"""Workers that died this often are not started again: pictures are drawn in threads."""
SPILL = 4
"""A stream's worker with this many more pictures waiting than the least busy worker hands
that picture to the least busy one (its bands are then encoded afresh there)."""
def preload() -> list[str]:
    """The modules the fork server imports once, so each new worker starts with them loaded:
    every game's renderer (with what it imports: its screens, hands, art)."""
    return [game.renderer for game in entries()]


NICENESS = 10
"""How much lower the workers' priority is than the bot's (``nice``): measured with 100 games
moving as fast as they can on two cores, it cut the median wait for a commit from some 200 ms to
some 15 ms, for as many moves a second (``scripts/benchmark.py --live``)."""
_LENGTH = struct.Struct("!I")


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every system
        return os.cpu_count() or 1


class Boards(MutableMapping[str, Callable[..., bytes]]):
    """Each game's board renderer by game name: the ``board`` of the module its registry entry
    names. A renderer set here (a test's smaller board) stands in for the entry's until it is
    deleted again."""

    def __init__(self) -> None:
        self._found: dict[str, tuple[GameEntry, Callable[..., bytes]]] = {}
        self._set: dict[str, Callable[..., bytes]] = {}

    def __getitem__(self, name: str) -> Callable[..., bytes]:
        if name in self._set:
            return self._set[name]
        game = entry(name)
        kept = self._found.get(name)
        if kept is None or kept[0] is not game:
            kept = self._found[name] = (game, importlib.import_module(game.renderer).board)
        return kept[1]

    def __setitem__(self, name: str, board: Callable[..., bytes]) -> None:
        self._set[name] = board

    def __delitem__(self, name: str) -> None:
        del self._set[name]

    def __iter__(self) -> Iterator[str]:
        names = [game.name for game in entries()]
        return iter(names + [name for name in self._set if name not in names])

    def __len__(self) -> int:
        return sum(1 for _ in self)


BOARDS = Boards()
"""The board renderer of every game, found from the registry."""


class WorkerDied(RuntimeError):
    """The worker drawing a picture ended before answering."""


def _warm() -> None:
    """A new worker draws each game's opening board once (its static layer and fonts are
    cached then), so no move waits for that."""
    for name, board in BOARDS.items():
        module = game_module(name)
        seats = list(module.COLOURS[:module.MIN_SEATS])
        board(module.view(module.new(seats, None, seed=0), None))


def _read(conn: socket.socket, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = conn.recv(min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _serve(conn: socket.socket) -> None:
    """A worker's life: step back (see :data:`NICENESS`), warm up, then draw each request in
    turn until the bot hangs up."""
    if hasattr(os, "nice"):  # not on every system
        os.nice(NICENESS)
    _warm()
    while True:
        head = _read(conn, _LENGTH.size)
        if head is None:
            return
        body = _read(conn, _LENGTH.unpack(head)[0])
        if body is None:
            return
        number, art, args, kwargs = pickle.loads(body)
        try:
            answer = (number, True, art(*args, **kwargs))
        except Exception as error:  # the bot logs it and shows the message without
            answer = (number, False, error)
        try:
            data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:
            data = pickle.dumps((number, False, RuntimeError(repr(error))))
        conn.sendall(_LENGTH.pack(len(data)) + data)


class _Reader(asyncio.BufferedProtocol):
    """The bot's end of one worker's socket: frames in, futures settled. Each frame is read
    straight into a buffer of its own size (its length first), not gathered from chunks: an
    answer is a whole PNG."""

    def __init__(self, worker: _Worker) -> None:
        self.worker = worker
        self.head = bytearray(_LENGTH.size)
        self.body: bytearray | None = None
        self.filled = 0

    def get_buffer(self, sizehint: int) -> memoryview:
        return memoryview(self.head if self.body is None else self.body)[self.filled:]

    def buffer_updated(self, nbytes: int) -> None:
        self.filled += nbytes
        if self.body is None:
            if self.filled == _LENGTH.size:
                self.body, self.filled = bytearray(_LENGTH.unpack(self.head)[0]), 0
            return
        if self.filled == len(self.body):
            number, ok, value = pickle.loads(self.body)
            self.body, self.filled = None, 0
            self.worker.answer(number, ok, value)

    def connection_lost(self, exc: Exception | None) -> None:
        self.worker.lost()


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    sock: socket.socket
    transport: asyncio.Transport | None = None
    connected: asyncio.Future[None] | None = None
    waiting: dict[int, asyncio.Future[Any]] = field(default_factory=dict)
    alive: bool = True
    stopped: bool = False
    """Stopped by the pool: what it was drawing is dropped, not drawn elsewhere."""

    def answer(self, number: int, ok: bool, value: Any) -> None:
        future = self.waiting.pop(number, None)
        if future is None or future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def lost(self) -> None:
        self.alive = False
        waiting, self.waiting = self.waiting, {}
        for future in waiting.values():
            if future.done():
                continue
            if self.stopped:
                future.cancel()
            else:
                future.set_exception(WorkerDied(f"render worker {self.process.pid} ended"))

    def stop(self) -> None:
        self.stopped = True
        self.alive = False
        if self.transport is not None:
            with contextlib.suppress(RuntimeError):  # its event loop is already closed
                self.transport.close()
        self.sock.close()
        with contextlib.suppress(Exception):
            self.process.terminate()


class RenderPool:
    """Draws pictures off the event loop; see the module's docstring."""

    def __init__(self, workers: int | None = None,
                 timed: Callable[[float], None] | None = None) -> None:
        """``workers``: processes (None: one per core; 0: a thread of this process);
        ``timed`` is told the seconds each drawing took (the bot's metrics)."""
        self.workers = cores() if workers is None else workers
        self.timed = timed or (lambda seconds: None)
        self._slots: list[_Worker | None] = []
        self._numbers = itertools.count()
        self.drawn = 0
        """Pictures drawn: benchmarks and tests read it."""
        self.broken = 0
        """How often a worker died (killed, or none could start)."""
        self._recent: OrderedDict[tuple[str, str], bytes | None] = OrderedDict()

    @property
    def pids(self) -> list[int]:
        """The running workers' process ids (benchmarks read their CPU)."""
        return [w.process.pid for w in self._slots
                if w is not None and w.alive and w.process.pid is not None]

    def _spawn(self) -> _Worker:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(preload())
        ours, theirs = socket.socketpair()
        process = context.Process(target=_serve, args=(theirs,), daemon=True,
                                  name="render worker")
        try:
            process.start()
        finally:
            theirs.close()
        ours.setblocking(False)
        return _Worker(process, ours)

    def start(self) -> None:
        """Start the workers now (they warm up while the bot connects), not at the first
        picture."""
        while len(self._slots) < self.workers:
            self._slots.append(self._spawn())

    async def _worker(self, stream: int) -> _Worker | None:
        """The worker for a picture of ``stream`` (None: draw in a thread)."""
        if self.workers <= 0:
            return None
        self.start()
        index = stream % self.workers
        least = min(range(self.workers), key=lambda i: self._load(i))
        if self._load(index) >= self._load(least) + SPILL:
            index = least
        worker = self._slots[index]
        if worker is None or not worker.alive:
            worker = self._slots[index] = self._spawn()
        if worker.connected is None:  # once: pictures asked for at once share it
            worker.connected = asyncio.ensure_future(self._connect(worker))
        await asyncio.shield(worker.connected)
        return worker

    @staticmethod
    async def _connect(worker: _Worker) -> None:
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_connection(lambda: _Reader(worker), sock=worker.sock)
        worker.transport = transport

    def _load(self, index: int) -> int:
        worker = self._slots[index] if index < len(self._slots) else None
        return len(worker.waiting) if worker is not None and worker.alive else 0

    async def picture(self, picture: Picture) -> bytes | None:
        """The picture's PNG (None: nothing to show), drawn unless it was just drawn."""
        key = (picture.filename, picture.key)
        if key in self._recent:
            self._recent.move_to_end(key)
            return self._recent[key]
        began = time.perf_counter()
        png = await self.draw(picture.art, *picture.args, stream=hash(picture.stream),
                              **picture.kwargs)
        self.timed(time.perf_counter() - began)
        self._recent[key] = png
        while len(self._recent) > KEEP:
            self._recent.popitem(last=False)
        return png

    async def draw(self, art: Callable[..., Any], *args: Any, stream: int = 0,
                   **kwargs: Any) -> Any:
        """``art(*args, **kwargs)`` in a worker (the one of ``stream``, a number that names
        what the picture shows): the PNG, or None (nothing to show)."""
        self.drawn += 1
        worker = await self._worker(stream)
        if worker is None:
            return await asyncio.to_thread(art, *args, **kwargs)
        number = next(self._numbers)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        worker.waiting[number] = future
        data = pickle.dumps((number, art, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
        assert worker.transport is not None
        worker.transport.write(_LENGTH.pack(len(data)) + data)
        try:
            return await future
        except WorkerDied:
            self._died(worker)
            return await asyncio.to_thread(art, *args, **kwargs)

    def _died(self, worker: _Worker) -> None:
        if worker not in self._slots:
            return  # already counted, by another picture it was drawing
        self.broken += 1
        self._slots[self._slots.index(worker)] = None
        worker.stop()
        if self.broken >= GIVE_UP:
            log.error("render workers died %d times; drawing in this process from now on",
                      self.broken)
            self.close()
            self.workers = 0
        else:
            log.warning("a render worker died; starting a new one")

    def close(self) -> None:
        """Stop the workers (pictures still being drawn are dropped: the next start
        reconciles every game anyway)."""
        slots, self._slots = self._slots, []
        for worker in slots:
            if worker is not None:
                worker.stop()
