"""Where AI seats decide: ``strong`` searches in worker processes of their own.

A ``strong`` decision searches for up to ``AI_BUDGET_MS`` (ISMCTS, :mod:`rules.ismcts`): pure
CPU under Python's GIL. In a thread of the bot's process it would hold up the event loop (every
other game's moves, Discord's heartbeat) for that long; in the render pool
(:mod:`bot.table.pool`) pictures would queue behind it. So strong decisions go to a
``ProcessPoolExecutor`` of their own (``AI_WORKERS`` processes, started on the first strong
decision), and a search waits only for other searches. ``random`` and ``greedy`` decide in
microseconds: they stay in a thread of the bot's process.

A worker is sent plain data only: the game's name, its state as JSON (``module.to_json``), the
seat, the level, the text that seeds the AI's RNG (:func:`bot.host.sessions.ai_rng`'s) and the
budget; it rebuilds the state, calls :func:`rules.ai.choose` (which reads only the seat's view)
and answers the action's notation, which the host parses with ``module.parse``.

A worker that dies breaks its pool: the pool is replaced, and that one decision is made by the
greedy AI in a thread (logged), so a game never stalls on a strong seat. A search that fails in
any other way falls back to greedy the same way.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from rules import ai
from rules.core import JSON, GameModule
from rules.ismcts import Budget
from rules.registry import game_module

log = logging.getLogger(__name__)

SEARCHED = ("strong",)
"""The levels that search, and so think in the pool."""
FALLBACK = "greedy"
"""The level that decides when a search cannot: at once, and still a sensible move."""


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every system
        return os.cpu_count() or 1


def decide(game: str, state: JSON, seat: str, level: str, seed: str,
           iterations: int | None, seconds: float | None) -> str:
    """One decision in a worker: the notation of the action ``level`` takes for ``seat``. The
    search's only clock is this process's ``perf_counter``, handed to it in the budget."""
    module = game_module(game)
    budget = Budget(iterations=iterations, seconds=seconds,
                    clock=time.perf_counter if seconds is not None else None)
    action = ai.choose(module, module.from_json(state), seat, level, random.Random(seed), budget)
    return str(action)


def process_pool(workers: int) -> Executor:
    """The worker processes of strong decisions: forked from the fork server (as the render
    workers are), so a worker starts without the bot's memory and sockets."""
    return ProcessPoolExecutor(max_workers=workers,
                               mp_context=multiprocessing.get_context("forkserver"))


def thread_pool(workers: int) -> Executor:
    """Strong decisions in a thread of the bot's process (tests; ``workers=0``): the same
    plain data goes through :func:`decide`, only not to another process."""
    return ThreadPoolExecutor(max_workers=max(workers, 1), thread_name_prefix="thinking")


class Thinking:
    """The AI's decisions for one host: :meth:`choose` for any level, strong ones in the pool.

    ``workers``: processes (None: one per core; 0: a thread of this process instead);
    ``budget_ms`` and ``iterations`` bound each search (the first reached stops it; only
    iterations alone make a decision repeatable); ``executor`` makes the pool (tests inject
    one). The pool is made on the first strong decision, not before, and :meth:`close` ends
    it."""

    def __init__(self, workers: int | None = None, budget_ms: int | None = 1000,
                 iterations: int | None = None,
                 executor: Callable[[int], Executor] | None = None) -> None:
        self.workers = cores() if workers is None else workers
        self.seconds = None if budget_ms is None else budget_ms / 1000
        self.iterations = iterations
        self._make = executor or (process_pool if self.workers > 0 else thread_pool)
        self._pool: Executor | None = None
        self.searched = 0
        """Strong decisions the pool answered (tests and benchmarks read it)."""
        self.restarts = 0
        """How often a broken pool was replaced."""
        self.fallbacks = 0
        """Strong decisions made by the greedy AI instead, because the search failed."""

    def _executor(self) -> Executor:
        if self._pool is None:
            self._pool = self._make(max(self.workers, 1))
        return self._pool

    def close(self) -> None:
        """End the pool: its workers finish the decision in hand and stop; a decision still
        queued is cancelled (its game is resumed at the next start, as after any stop)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def _restart(self, broken: Executor) -> None:
        """Replace the pool that broke (once, however many of its decisions saw it break)."""
        if self._pool is broken:
            self._pool = None
            self.restarts += 1
            broken.shutdown(wait=False, cancel_futures=True)

    async def choose(self, module: GameModule, state: Any, seat: str, level: str,
                     seed: str) -> Any:
        """The action an AI of ``level`` takes for ``seat``, with its RNG seeded by ``seed``:
        a strong one from the pool, the others from a thread; never blocks the event loop."""
        if level not in SEARCHED:
            return await asyncio.to_thread(ai.choose, module, state, seat, level,
                                           random.Random(seed))
        pool = self._executor()
        try:
            future = pool.submit(decide, module.NAME, module.to_json(state), seat, level, seed,
                                 self.iterations, self.seconds)
            notation = await asyncio.wrap_future(future)
        except BrokenExecutor:
            log.error("a %s AI worker died deciding for %s: the pool is restarted and the %s "
                      "AI decides this once", level, seat, FALLBACK)
            self._restart(pool)
        except Exception:
            log.exception("the %s AI could not decide for %s: the %s AI decides this once",
                          level, seat, FALLBACK)
        else:
            self.searched += 1
            return module.parse(notation)
        self.fallbacks += 1
        return await asyncio.to_thread(ai.choose, module, state, seat, FALLBACK,
                                       random.Random(seed))
