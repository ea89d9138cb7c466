"""Where pictures are drawn: a pool of worker processes beside the bot, one per core.

Drawing and encoding a board is pure CPU under Python's GIL: in the bot's own process it would
hold up the event loop (every other game's moves, Discord's heartbeat) and use one core only.
So a :class:`~bot.table.Picture` names a module-level function and plain arguments (a view,
a language, names), which pickle, and :class:`RenderPool` runs it in a worker process. Each
worker keeps its own caches (static board layers, fonts), built once by :func:`_warm` when it
starts. AI decisions do not go here: they have their threads, so a burst of renders never
queues a decision behind it, nor the other way round.

``workers=0`` draws in a thread of the bot's own process (tests, small servers); a pool that
breaks (a worker killed) is replaced, and the picture that met it is drawn in a thread; one
that broke :data:`GIVE_UP` times gives way to threads for good.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from bot.table import Picture
from render import giants, giganten, makemake
from rules.registry import game_module

log = logging.getLogger(__name__)

KEEP = 32
"""Recent pictures kept by their key: a picture wanted twice (the board that closes a stage's
message and opens the next one's) is drawn once."""
GIVE_UP = 3
"""A pool that broke this often is not started again: pictures are drawn in threads."""
PRELOAD = ("render.giants", "render.giganten", "render.makemake", "render.giants_screen",
           "render.giganten_hand")
"""Imported once by the fork server, so each new worker starts with them loaded."""


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every system
        return os.cpu_count() or 1


BOARDS: dict[str, Callable[..., bytes]] = {
    "giants": giants.board, "giganten": giganten.board, "makemake": makemake.board}


def _warm() -> None:
    """A new worker draws each game's opening board once (its static layer and fonts are
    cached then), so no move waits for that."""
    for name, board in BOARDS.items():
        module = game_module(name)
        seats = list(module.COLOURS[:module.MIN_SEATS])
        board(module.view(module.new(seats, None, seed=0), None))


def _draw(art: Callable[..., bytes | None], args: tuple[Any, ...],
          kwargs: dict[str, Any]) -> bytes | None:
    return art(*args, **kwargs)


class RenderPool:
    """Draws pictures off the event loop; see the module's docstring."""

    def __init__(self, workers: int | None = None) -> None:
        """``workers``: processes (None: one per core; 0: a thread of this process)."""
        self.workers = cores() if workers is None else workers
        self._pool: ProcessPoolExecutor | None = None
        self.drawn = 0
        """Pictures drawn: benchmarks and tests read it."""
        self.broken = 0
        """How often the pool broke (a worker killed, or none could start)."""
        self._recent: OrderedDict[tuple[str, str], bytes | None] = OrderedDict()

    def _executor(self) -> Executor | None:
        if self.workers <= 0:
            return None
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(list(PRELOAD))
            self._pool = ProcessPoolExecutor(self.workers, mp_context=context,
                                             initializer=_warm)
        return self._pool

    def start(self) -> None:
        """Start the workers now (they warm up while the bot connects), not at the first
        picture."""
        pool = self._executor()
        if pool is not None:
            for _ in range(self.workers):
                pool.submit(os.getpid)

    async def picture(self, picture: Picture) -> bytes | None:
        """The picture's PNG (None: nothing to show), drawn unless it was just drawn."""
        key = (picture.filename, picture.key)
        if key in self._recent:
            self._recent.move_to_end(key)
            return self._recent[key]
        png = await self.draw(picture.art, *picture.args, **picture.kwargs)
        self._recent[key] = png
        while len(self._recent) > KEEP:
            self._recent.popitem(last=False)
        return png

    async def draw(self, art: Callable[..., bytes | None], *args: Any,
                   **kwargs: Any) -> bytes | None:
        """``art(*args, **kwargs)`` in a worker: the PNG, or None (nothing to show)."""
        self.drawn += 1
        loop = asyncio.get_running_loop()
        pool = self._executor()
        if pool is None:
            return await asyncio.to_thread(art, *args, **kwargs)
        try:
            return await loop.run_in_executor(pool, _draw, art, args, kwargs)
        except BrokenProcessPool:
            self._shutdown()
            self.broken += 1
            if self.broken >= GIVE_UP:
                log.error("the render pool broke %d times; drawing in this process from now"
                          " on", self.broken)
                self.workers = 0
            else:
                log.warning("the render pool broke; starting a new one")
            return await asyncio.to_thread(art, *args, **kwargs)

    def _shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        """Stop the workers (pictures still being drawn are dropped: the next start
        reconciles every game anyway)."""
        self._shutdown()
