"""The SQLite store's two threads: each owns one ``sqlite3`` connection and runs the jobs
handed to it (plain functions of the connection) in order; writes that wait together share one
commit (:class:`Grouped`); a transaction held open across awaits is :class:`SqliteTransaction`.
:class:`SqliteThreads` is what every part of :class:`SqliteStore` builds on: a write is one job
on the writer's thread, a read one on the reader's, and the checkpoints run on the reader's.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from bot.host.clock import Clock
from bot.host.store._interface import Transaction
from bot.host.store._rows import (
    StoreClosed,
)

log = logging.getLogger(__name__)

T = TypeVar("T")
Job = Callable[[sqlite3.Connection], T]
"""Work for a connection's thread: a plain function of the connection."""
CHECKPOINT_EVERY = 200
"""Commits after which the store folds the write-ahead log into the database file (a PASSIVE
checkpoint on the reader's thread; the writer never checkpoints): about the 1,000 pages after
which SQLite would have done it inside a commit."""


def _reply(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], result: Any,
           error: BaseException | None) -> None:
    """From a connection's thread: settle ``future`` on its event loop."""
    try:
        loop.call_soon_threadsafe(_settle, future, result, error)
    except RuntimeError:  # the loop is closed: nobody waits any more
        if error is not None:
            log.warning("a store job failed after its event loop closed: %r", error)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():  # the job ran to its end all the same (committed or rolled back)
        if error is not None:
            log.warning("a store job failed while nobody waited for it: %r", error)
    elif error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def _heard(future: asyncio.Future[Any]) -> None:
    """For a future nobody awaits: its error is known already (and not logged again)."""
    if not future.cancelled():
        future.exception()


class _Worker:
    """One ``sqlite3`` connection and the thread that owns it. Jobs (plain functions of the
    connection) run there one at a time, in the order they were handed in, each to its end
    whatever happens to the task that awaits it; the result (or the error) comes back through
    an asyncio future. The thread is a daemon: a store left open does not keep the process
    alive (SQLite rolls back a transaction that a dying process leaves unfinished)."""

    def __init__(self, connect: Callable[[], sqlite3.Connection], name: str) -> None:
        self._connect = connect
        self._jobs: queue.SimpleQueue[
            tuple[Job[Any], asyncio.AbstractEventLoop | None, asyncio.Future[Any] | None] | None
        ] = queue.SimpleQueue()
        self.closed = False
        self.failed: BaseException | None = None
        """Why the connection could not be opened (every job fails with it)."""
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Job[T]) -> asyncio.Future[T]:
        """Hand ``job`` to the thread; its future gets the result."""
        if self.closed:
            raise StoreClosed("the store is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put((job, loop, future))
        return future

    async def call(self, job: Job[T]) -> T:
        return await self.submit(job)

    def post(self, job: Job[object]) -> None:
        """Hand ``job`` to the thread without waiting for it (a failure is logged)."""
        if not self.closed:
            self._jobs.put((job, None, None))

    async def close(self, last: Job[object] | None = None) -> None:
        """Run every job handed in so far, then ``last``, close the connection and end the
        thread."""
        def closing(db: sqlite3.Connection) -> None:
            try:
                if last is not None:
                    last(db)
            finally:
                db.close()

        future = self.submit(closing)
        self.closed = True
        self._jobs.put(None)
        try:
            await future
        except sqlite3.Error:
            if self.failed is None:
                raise  # else it never opened: nothing to close
        self._thread.join()  # it has only the end of the queue left to read

    def _serve(self) -> None:
        db: sqlite3.Connection | None = None
        try:
            db = self._connect()
        except BaseException as exc:  # every job hears why
            self.failed = exc
        held: Any = _NOTHING  # a job taken while a group was gathered: it runs next
        while True:
            item, held = (self._jobs.get() if held is _NOTHING else held), _NOTHING
            if item is None:
                break
            if db is not None and isinstance(item[0], Grouped):
                group = [item]
                while len(group) < GROUP_MOST and not self._jobs.empty():  # one reader:
                    held = self._jobs.get_nowait()  # what is there stays there
                    if held is None or not isinstance(held[0], Grouped):
                        break
                    group.append(held)
                    held = _NOTHING
                if len(group) > 1:
                    _answer(group, _run_group(db, [cast(Grouped, g[0]) for g in group]))
                    continue
            job = item[0]
            result: Any = None
            error: BaseException | None = self.failed
            if db is not None:
                try:
                    result = job(db)
                except BaseException as exc:
                    error = exc
            _answer([item], [(result, error)])


_NOTHING: Any = object()
GROUP_MOST = 64
"""Most write transactions the writer's thread commits as one (see :class:`Grouped`)."""


class Grouped:
    """A write transaction that may share its commit with the writes queued behind it: when
    several wait, the writer's thread runs them in one transaction, each inside a savepoint of
    its own (one that fails is rolled back alone and hears its error), and answers each once
    they are committed together. Under load a commit then costs one BEGIN, one COMMIT and one
    write of the pages they share (the games row, the messages table), not one each; alone it
    is :func:`_in_transaction`."""

    __slots__ = ("job",)

    def __init__(self, job: Job[Any]) -> None:
        self.job = job

    def __call__(self, db: sqlite3.Connection) -> Any:
        return _in_transaction(self.job, db)


Outcome = tuple[Any, BaseException | None]
_Item = tuple[Job[Any], asyncio.AbstractEventLoop | None, asyncio.Future[Any] | None]


def _answer(items: Sequence[_Item], outcomes: Sequence[Outcome]) -> None:
    for (_, loop, future), (result, error) in zip(items, outcomes, strict=True):
        if loop is not None and future is not None:
            _reply(loop, future, result, error)
        elif error is not None:
            log.error("a store job failed: %r", error)


def _run_group(db: sqlite3.Connection, jobs: Sequence[Grouped]) -> list[Outcome]:
    """``jobs`` in one transaction, each in a savepoint (see :class:`Grouped`): what each
    returned or raised; every one fails if the commit does. An error that ends the whole
    transaction (SQLite rolls it back itself on some) fails the jobs before it, which were
    rolled back with it; those after it run one by one."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except BaseException as exc:
        return [(None, exc)] * len(jobs)
    outcomes: list[Outcome] = []
    for n, grouped in enumerate(jobs):
        try:
            db.execute("SAVEPOINT grouped")
            outcomes.append((grouped.job(db), None))
            db.execute("RELEASE grouped")
        except BaseException as exc:
            if len(outcomes) == n + 1:  # it ran, its RELEASE failed
                outcomes.pop()
            outcomes.append((None, exc))
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK TO grouped")
                    db.execute("RELEASE grouped")
                    continue
                except BaseException:
                    pass
            if db.in_transaction:
                db.execute("ROLLBACK")
            lost = [(None, error or exc) for _, error in outcomes[:n]]
            return [*lost, (None, exc), *[_alone(db, job) for job in jobs[n + 1:]]]
    try:
        db.execute("COMMIT")
    except BaseException as exc:
        if db.in_transaction:
            db.execute("ROLLBACK")
        return [(None, exc)] * len(jobs)
    return outcomes


def _alone(db: sqlite3.Connection, job: Grouped) -> Outcome:
    try:
        return job(db), None
    except BaseException as exc:
        return None, exc


def _in_transaction(job: Job[T], db: sqlite3.Connection) -> T:
    """``job`` inside BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any error."""
    db.execute("BEGIN IMMEDIATE")
    try:
        result = job(db)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return result


class SqliteTransaction(Transaction):
    """A write transaction held open across awaits (:meth:`Store.transaction`): the writer's
    thread runs BEGIN IMMEDIATE, then each statement as it is sent (one round trip each), then
    COMMIT or ROLLBACK; meanwhile every other write waits. The store's own writes do not use
    it: each is one job, one round trip."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.begun: asyncio.Future[None] = loop.create_future()
        self._statements: queue.SimpleQueue[tuple[Job[Any], asyncio.Future[Any]] | bool] = \
            queue.SimpleQueue()

    async def _ask(self, job: Job[T]) -> T:
        future: asyncio.Future[T] = self._loop.create_future()
        self._statements.put((job, future))
        return await future

    async def run(self, sql: str, params: tuple[Any, ...] = ()) -> int | None:
        return await self._ask(lambda db: db.execute(sql, params).lastrowid)

    async def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        return await self._ask(lambda db: db.execute(sql, params).fetchall())

    def end(self, commit: bool) -> None:
        self._statements.put(commit)

    def serve(self, db: sqlite3.Connection) -> None:
        """The job on the writer's thread: until :meth:`end`, run what is sent."""
        try:
            db.execute("BEGIN IMMEDIATE")
        except BaseException as exc:
            _reply(self._loop, self.begun, None, exc)
            while not isinstance(self._statements.get(), bool):
                pass  # nothing is sent before BEGIN is reported: only the end comes
            raise
        _reply(self._loop, self.begun, None, None)
        try:
            while not isinstance(item := self._statements.get(), bool):
                job, future = item
                try:
                    _reply(self._loop, future, job(db), None)
                except BaseException as exc:
                    _reply(self._loop, future, None, exc)
            if item:
                db.execute("COMMIT")
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")


@dataclass(frozen=True)
class Checkpointed:
    """What a checkpoint did: ``busy`` (it could not finish: a reader or the writer was in
    the way), frames in the write-ahead log, and frames copied into the database file."""

    busy: bool
    frames: int
    copied: int


def _checkpoint(mode: str, db: sqlite3.Connection) -> Checkpointed:
    busy, frames, copied = db.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
    return Checkpointed(bool(busy), frames, copied)


def _passive(db: sqlite3.Connection) -> Checkpointed:
    return _checkpoint("PASSIVE", db)


def _truncate(db: sqlite3.Connection) -> None:
    try:
        _checkpoint("TRUNCATE", db)
    except sqlite3.Error as exc:  # the next open folds it in
        log.warning("closing the store without a checkpoint: %s", exc)


def _nothing(db: sqlite3.Connection) -> None:
    """A job that only says the connection is open."""


def _plain(sql: str, params: tuple[Any, ...], db: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """Rows as bare tuples (quicker than ``sqlite3.Row`` for many rows)."""
    cursor = db.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, params).fetchall()


class SqliteThreads:
    """The writer's and the reader's threads of a :class:`SqliteStore`, and the store's clock:
    every part of the store runs its statements through these."""

    def __init__(self, writer: _Worker, reader: _Worker, clock: Clock) -> None:
        self._writer = writer
        self._reader = reader
        self.clock = clock
        self._writes = 0
        self._closed = False

    async def checkpoint(self) -> Checkpointed:
        """Fold what is committed into the database file (PASSIVE, on the reader's thread: it
        never waits for, nor holds up, a commit). The store runs one itself after every
        :data:`CHECKPOINT_EVERY` writes; :meth:`close` empties the log."""
        return await self._reader.call(_passive)

    # --- the two threads -------------------------------------------------------------------------

    async def _write(self, job: Job[T]) -> T:
        """``job`` in ONE transaction on the writer's thread: committed, or rolled back on any
        error, whatever happens to the awaiting task."""
        future = self._writer.submit(Grouped(job))
        self._writes += 1
        if self._writes % CHECKPOINT_EVERY == 0 and self._reader is not self._writer:
            self._reader.post(_passive)
        return await future

    async def _execute(self, sql: str, params: tuple[Any, ...] = ()) -> None:
        """One statement in a transaction of its own."""
        await self._write(lambda db: db.execute(sql, params))

    async def _read(self, job: Job[T]) -> T:
        return await self._reader.call(job)

    async def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        return await self._reader.call(lambda db: db.execute(sql, params).fetchall())

    async def _row(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Row | None:
        row: sqlite3.Row | None = await self._reader.call(
            lambda db: db.execute(sql, params).fetchone())
        return row

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """Every other write waits meanwhile (the writer's thread serves this one)."""
        tx = SqliteTransaction(asyncio.get_running_loop())
        done = self._writer.submit(tx.serve)
        try:
            await tx.begun
            yield tx
        except BaseException:
            tx.end(commit=False)
            done.add_done_callback(_heard)  # the thread rolls back on its own, unawaited
            raise
        tx.end(commit=True)
        await done
