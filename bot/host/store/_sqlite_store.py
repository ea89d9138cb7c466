"""The SQLite backend of the store: one file, WAL mode, ``PRAGMA user_version`` for the schema,
``synchronous`` as the settings say (FULL: a committed transaction survives a power loss).

The standard ``sqlite3`` module does the work on two threads of the store's own (see
:class:`SqliteStore`): a transaction is one plain function handed to the writer's thread, one
round trip; writes that wait together share one commit (:class:`Grouped`); reads and
checkpoints run on the reader's. One bot process writes a SQLite file
(the instance lock, ``_files``, makes sure), so the cross-process parts of the interface are
trivial here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast

from bot.host.clock import Clock, iso, stamp, system_clock
from bot.host.store._interface import Listener, Store, Transaction
from bot.host.store._reading import (
    ActiveRows,
    assemble,
    game_row,
    gap,
    is_due,
    kept_steps,
    log_row,
    stored_mark,
    takeback,
    without,
)
from bot.host.store._rows import (
    CLAIM_LEASE,
    FORMER_ID,
    FORMER_PLAYER,
    GAME_TABLES,
    SCHEMA_VERSION,
    STATUSES,
    Absence,
    ActiveGame,
    ChannelBusy,
    Forgotten,
    GameMark,
    GameRow,
    Heartbeat,
    LogRow,
    MessageRow,
    PlayerStats,
    Purged,
    Rate,
    Rating,
    ResultRow,
    SchemaTooNew,
    Seat,
    SeatChangeRow,
    Snapshot,
    StaleGame,
    StoreClosed,
    TakebackRow,
    dump,
    heartbeat,
    message_row,
    message_values,
    shard_column,
)
from bot.host.store._sqlite_store_schema import MIGRATIONS
from bot.host.store._store_files import write_copy

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


def migrate(db: sqlite3.Connection) -> int:
    """Bring the schema to :data:`SCHEMA_VERSION`, one step per transaction; returns the version."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise SchemaTooNew(
            f"the games database has schema {version}, newer than this bot ({SCHEMA_VERSION})")
    while version < SCHEMA_VERSION:
        version += 1
        _in_transaction(partial(_migration, version), db)
    return version


def _migration(version: int, db: sqlite3.Connection) -> None:
    for statement in MIGRATIONS[version].split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute(f"PRAGMA user_version = {version}")


def backup_before_migrating(db: sqlite3.Connection, path: Path) -> Path | None:
    """A consistent copy of a database that is about to be migrated, beside it
    (``games.sqlite3.v3.bak``, readable by its owner only, like every copy): an upgrade that
    goes wrong loses nothing. None when the schema is current or the database is new."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version == 0 or version >= SCHEMA_VERSION:
        return None
    target = path.with_name(f"{path.name}.v{version}.bak")
    write_copy(db, target)  # private to its owner, as the database's every copy
    return target


def _connect(path: str, synchronous: str, reader: bool) -> sqlite3.Connection:
    """A connection with the store's settings. Autocommit (the store says BEGIN and COMMIT);
    never a checkpoint inside a commit (:data:`CHECKPOINT_EVERY`); the reader refuses to
    write."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.row_factory = sqlite3.Row
        if not reader:
            db.execute("PRAGMA journal_mode = WAL")
        db.execute(f"PRAGMA synchronous = {synchronous}")
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA busy_timeout = 5000")
        db.execute("PRAGMA wal_autocheckpoint = 0")
        if reader:
            db.execute("PRAGMA query_only = ON")
    except BaseException:
        db.close()
        raise
    return db


def _prepare(path: Path | None, db: sqlite3.Connection) -> None:
    """On the writer, once: back the database up if it is about to be migrated, migrate it."""
    before = db.execute("PRAGMA user_version").fetchone()[0]
    copy = backup_before_migrating(db, path) if path is not None else None
    after = migrate(db)
    if before == 0:
        log.info("new database: schema %s created", after)
    elif after != before:
        log.info("database migrated from schema %s to %s (backup written first: %s)", before,
                 after, copy)


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


class SqliteStore(Store):
    """The games in a SQLite file. Open with :meth:`open`, close with :meth:`close`.

    Two connections, each owned by a thread of its own: the writer runs each write as ONE job
    (BEGIN IMMEDIATE, the statements, COMMIT; ROLLBACK on any error), so a transaction is one
    round trip, and writes are serialised in the order they were handed in; the reader runs
    the reads (in WAL mode it sees every committed write, never a transaction under way) and
    the checkpoints, so neither waits for a commit. A ``:memory:`` database (one connection
    only) reads on the writer's."""

    def __init__(self, writer: _Worker, reader: _Worker, clock: Clock) -> None:
        self._writer = writer
        self._reader = reader
        self.clock = clock
        self._writes = 0
        self._closed = False

    @classmethod
    async def open(cls, path: str | Path, clock: Clock = system_clock, *,
                   synchronous: str = "FULL") -> SqliteStore:
        """Open (or create) the database, back it up if it is about to be migrated, migrate
        it. ``synchronous``: FULL (a commit is on disk when it returns) or NORMAL (in WAL
        mode the latest commits may be lost on a power loss; the file stays sound)."""
        if synchronous not in ("FULL", "NORMAL"):
            raise ValueError(f"synchronous must be FULL or NORMAL, not {synchronous!r}")
        memory = str(path) == ":memory:"
        if not memory:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        writer = _Worker(partial(_connect, str(path), synchronous, False), "store-writer")
        reader = writer
        try:
            await writer.call(partial(_prepare, None if memory else Path(path)))
            if not memory:
                reader = _Worker(partial(_connect, str(path), synchronous, True),
                                 "store-reader")
                await reader.call(_nothing)
        except BaseException:
            if reader is not writer:
                await reader.close()
            await writer.close()
            raise
        return cls(writer, reader, clock)

    async def close(self) -> None:
        """Close once the transaction under way (if any) is committed, with the write-ahead
        log folded into the database file and emptied: nothing is left in ``-wal``. Once."""
        if self._closed:
            return
        self._closed = True
        if self._reader is not self._writer:
            await self._reader.close()
        await self._writer.close(_truncate)

    async def synchronous(self) -> str:
        """The ``synchronous`` level in force: FULL or NORMAL (or SQLite's other names)."""
        level = await self._writer.call(
            lambda db: db.execute("PRAGMA synchronous").fetchone()[0])
        return {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}.get(level, str(level))

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

    # --- several processes: one writes a SQLite file ----------------------------------------------

    @property
    def shared(self) -> bool:
        return False

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        """Nothing to hold: no other process writes this file."""
        yield

    async def stored_seq(self, game_id: int) -> int:
        row = await self._row("SELECT seq FROM snapshots WHERE game_id = ?", (game_id,))
        return int(row[0]) if row else 0

    async def stored_marks(self, game_ids: Collection[int]) -> dict[int, GameMark]:
        wanted = list(game_ids)
        return await self._read(lambda db: _read_marks(db, wanted))

    async def load_game(self, game_id: int, after: int = 0) -> ActiveGame | None:
        return await self._read(lambda db: _read_game(db, game_id, after))

    async def seated_games(self, user_id: int) -> set[int]:
        rows = await self._rows("SELECT DISTINCT seats.game_id FROM seats JOIN games"
                                " ON games.id = seats.game_id WHERE seats.user_id = ?"
                                " AND games.status IN ('lobby', 'running')", (user_id,))
        return {r[0] for r in rows}

    async def listen(self, callback: Listener) -> None:
        """No other process writes: nothing to hear."""

    async def claim_deadline(self, game_id: int, deadline_at: str) -> bool:
        if not is_due(deadline_at, self.clock()):
            return False
        later = iso(self.clock() + timedelta(seconds=CLAIM_LEASE))
        claimed: int = await self._write(lambda db: db.execute(
            "UPDATE games SET deadline_at = ?, reminded = 1 WHERE id = ? AND deadline_at = ?"
            " AND status = 'running' AND paused_by IS NULL",
            (later, game_id, deadline_at)).rowcount)
        return claimed == 1

    async def claim_reminder(self, game_id: int, deadline_at: str) -> bool:
        claimed: int = await self._write(lambda db: db.execute(
            "UPDATE games SET reminded = 1 WHERE id = ? AND deadline_at = ? AND reminded = 0"
            " AND status = 'running' AND paused_by IS NULL", (game_id, deadline_at)).rowcount)
        return claimed == 1

    # --- running instances -----------------------------------------------------------------------

    async def start_heartbeat(self, instance: str, pid: int, host: str, *,
                              shard_count: int | None = None,
                              shard_ids: Sequence[int] = ()) -> None:
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM heartbeat")
            db.execute("INSERT INTO heartbeat (instance, pid, host, started_at, beat_at,"
                       " shard_count, shard_ids) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (instance, pid, host, now, now, shard_count, shard_column(shard_ids)))

        await self._write(write)

    async def beat(self, instance: str) -> None:
        await self._execute("UPDATE heartbeat SET beat_at = ? WHERE instance = ?",
                            (stamp(self.clock), instance))

    async def end_heartbeat(self, instance: str) -> None:
        await self._execute("DELETE FROM heartbeat WHERE instance = ?", (instance,))

    async def heartbeats(self) -> list[Heartbeat]:
        rows = await self._rows("SELECT * FROM heartbeat ORDER BY beat_at DESC")
        return [heartbeat(row) for row in rows]

    # --- whose games these are --------------------------------------------------------------------

    async def application_id(self) -> int | None:
        row = await self._row("SELECT application_id FROM discord_application")
        return None if row is None else int(row[0])

    async def claim_application(self, application_id: int) -> int | None:
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> int | None:
            row = db.execute("SELECT application_id FROM discord_application").fetchone()
            if row is not None:
                return int(row[0])
            db.execute("INSERT INTO discord_application (one, application_id, recorded_at)"
                       " VALUES (1, ?, ?)", (application_id, now))
            return None

        return await self._write(write)

    async def set_application(self, application_id: int) -> int | None:
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> int | None:
            row = db.execute("SELECT application_id FROM discord_application").fetchone()
            db.execute("INSERT INTO discord_application (one, application_id, recorded_at)"
                       " VALUES (1, ?, ?) ON CONFLICT (one) DO UPDATE SET"
                       " application_id = excluded.application_id,"
                       " recorded_at = excluded.recorded_at", (application_id, now))
            return None if row is None else int(row[0])

        return await self._write(write)

    async def ping(self) -> None:
        await self._rows("SELECT 1")

    # --- where the slash commands are ------------------------------------------------------------

    async def synced_guilds(self) -> set[int]:
        return {r["guild_id"] for r in await self._rows("SELECT guild_id FROM synced_guilds")}

    async def set_synced_guild(self, guild_id: int, synced: bool) -> None:
        if synced:
            await self._execute("INSERT OR REPLACE INTO synced_guilds (guild_id, synced_at)"
                                " VALUES (?, ?)", (guild_id, stamp(self.clock)))
        else:
            await self._execute("DELETE FROM synced_guilds WHERE guild_id = ?", (guild_id,))

    # --- games ---------------------------------------------------------------------------------

    async def create_game(self, *, channel_id: int, guild_id: int | None, game: str,
                          options: str, seed: int, creator_id: int, language: str,
                          ai_level: str, turn_seconds: int | None = None) -> GameRow:
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> GameRow:
            game_id = db.execute(
                "INSERT INTO games (channel_id, guild_id, game, options, seed,"
                " secret_seed, status, creator_id, language, ai_level, created_at,"
                " updated_at, turn_seconds) VALUES (?, ?, ?, ?, 0, ?, 'lobby', ?, ?, ?, ?,"
                " ?, ?)",
                (channel_id, guild_id, game, options, str(seed), creator_id, language,
                 ai_level, now, now, turn_seconds)).lastrowid
            return game_row(db.execute("SELECT * FROM games WHERE id = ?",
                                        (game_id,)).fetchone())

        try:
            return await self._write(write)
        except sqlite3.IntegrityError as exc:
            raise ChannelBusy(channel_id) from exc

    async def game(self, game_id: int) -> GameRow | None:
        row = await self._row("SELECT * FROM games WHERE id = ?", (game_id,))
        return game_row(row) if row else None

    async def active_game(self, channel_id: int) -> GameRow | None:
        row = await self._row(
            "SELECT * FROM games WHERE channel_id = ? AND status IN ('lobby', 'running')",
            (channel_id,))
        return game_row(row) if row else None

    async def latest_started(self, channel_id: int) -> GameRow | None:
        row = await self._row(
            "SELECT * FROM games WHERE (channel_id = ? OR thread_id = ?)"
            " AND header IS NOT NULL ORDER BY id DESC LIMIT 1", (channel_id, channel_id))
        return game_row(row) if row else None

    async def games_with_status(self, *statuses: str) -> list[GameRow]:
        marks = ", ".join("?" for _ in statuses)
        rows = await self._rows(f"SELECT * FROM games WHERE status IN ({marks}) ORDER BY id",
                                statuses)
        return [game_row(r) for r in rows]

    async def set_status(self, game_id: int, status: str) -> None:
        assert status in STATUSES
        await self._execute("UPDATE games SET status = ?, updated_at = ? WHERE id = ?",
                            (status, stamp(self.clock), game_id))

    async def start_game(self, game_id: int, header: str, state: dict[str, Any]) -> None:
        now, dumped = stamp(self.clock), dump(state)

        def write(db: sqlite3.Connection) -> None:
            db.execute("UPDATE games SET status = 'running', header = ?, updated_at = ?"
                       " WHERE id = ?", (header, now, game_id))
            db.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                       " VALUES (?, 0, ?)", (game_id, dumped))

        await self._write(write)

    async def set_deadline(self, game_id: int, deadline: str | None) -> None:
        await self._execute("UPDATE games SET deadline_at = ?, reminded = 0 WHERE id = ?",
                            (deadline, game_id))

    async def mark_reminded(self, game_id: int) -> None:
        await self._execute("UPDATE games SET reminded = 1 WHERE id = ?", (game_id,))

    async def set_paused(self, game_id: int, paused_by: int | None, left: int | None,
                         deadline: str | None) -> None:
        await self._execute("UPDATE games SET paused_by = ?, paused_left = ?, deadline_at = ?,"
                            " updated_at = ? WHERE id = ?",
                            (paused_by, left, deadline, stamp(self.clock), game_id))

    async def set_turn_time(self, game_id: int, seconds: int | None, deadline: str | None,
                            left: int | None) -> None:
        await self._execute("UPDATE games SET turn_seconds = ?, deadline_at = ?,"
                            " paused_left = ?, reminded = 0, updated_at = ? WHERE id = ?",
                            (seconds, deadline, left, stamp(self.clock), game_id))

    # --- seats ---------------------------------------------------------------------------------

    async def seats(self, game_id: int) -> list[Seat]:
        rows = await self._rows(
            "SELECT colour, user_id, ai_level, joined, name, acted_at, timeouts, away,"
            " was_human FROM seats WHERE game_id = ? ORDER BY joined", (game_id,))
        return [Seat(r["colour"], r["user_id"], r["ai_level"], r["name"], r["acted_at"],
                     r["timeouts"], bool(r["away"]), bool(r["was_human"]), r["joined"])
                for r in rows]

    async def add_seat(self, game_id: int, colour: str, user_id: int | None,
                       ai_level: str | None, name: str = "") -> None:
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> None:
            joined = db.execute("SELECT COALESCE(MAX(joined), 0) + 1 FROM seats"
                                " WHERE game_id = ?", (game_id,)).fetchone()[0]
            db.execute("INSERT INTO seats (game_id, colour, user_id, ai_level, name, joined,"
                       " acted_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (game_id, colour, user_id, ai_level, name, joined,
                        now if user_id is not None else None))
            db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))

        await self._write(write)

    async def remove_seat(self, game_id: int, colour: str,
                          change: SeatChangeRow | None = None) -> None:
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM seats WHERE game_id = ? AND colour = ?", (game_id, colour))
            db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))
            if change is not None:
                _add_change(db, game_id, change, now)

        await self._write(write)

    async def change_seat(self, game_id: int, colour: str, change: SeatChangeRow, *,
                          user_id: int | None, ai_level: str | None, name: str = "") -> None:
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> None:
            db.execute("UPDATE seats SET user_id = ?, ai_level = ?,"
                       " name = CASE WHEN ? IS NULL THEN name ELSE ? END,"
                       " acted_at = ?, was_human = CASE WHEN user_id IS NULL THEN was_human"
                       " ELSE 1 END WHERE game_id = ? AND colour = ?",
                       (user_id, ai_level, user_id, name, now if user_id is not None else None,
                        game_id, colour))
            db.execute("UPDATE hidden_seats SET dm_closed = 0 WHERE game_id = ?"
                       " AND colour = ?", (game_id, colour))
            db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))
            _add_change(db, game_id, change, now)

        await self._write(write)

    async def seat_changes(self, game_id: int) -> list[SeatChangeRow]:
        rows = await self._rows("SELECT seq, colour, what, user_id, old_id, by_id, at"
                                " FROM seat_changes WHERE game_id = ? ORDER BY n", (game_id,))
        return [SeatChangeRow(r["seq"], r["colour"], r["what"], r["user_id"], r["old_id"],
                              r["by_id"], r["at"]) for r in rows]

    # --- actions and snapshots -----------------------------------------------------------------

    async def append_action(self, game_id: int, seq: int, line: str, state: dict[str, Any],
                            finished: bool = False, *, events: list[dict[str, Any]] | None = None,
                            by: str = "human", seat: Seat | None = None,
                            sealed: str | None = None, reveals: bool = False,
                            before_commit: Callable[[], None] | None = None) -> None:
        """One job on the writer's thread, so one round trip; ``before_commit`` runs on that
        thread."""
        now, dumped, logged = stamp(self.clock), dump(state), dump(events or [])
        status = ", status = 'finished'" if finished else ""

        def write(db: sqlite3.Connection) -> None:
            try:
                db.execute("INSERT INTO actions (game_id, seq, line, sealed, events, by)"
                           " VALUES (?, ?, ?, ?, ?, ?)", (game_id, seq, line, sealed, logged, by))
            except sqlite3.IntegrityError as exc:
                if "UNIQUE" in str(exc):
                    raise StaleGame(game_id, seq) from exc
                raise
            if reveals:
                db.execute("UPDATE actions SET sealed = NULL WHERE game_id = ?"
                           " AND sealed IS NOT NULL", (game_id,))
            db.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                       " VALUES (?, ?, ?)", (game_id, seq, dumped))
            db.execute(f"UPDATE games SET updated_at = ?{status} WHERE id = ?", (now, game_id))
            if seat is not None:
                _write_pace(db, game_id, seat)
            if before_commit is not None:
                before_commit()

        await self._write(write)

    async def actions(self, game_id: int) -> list[str]:
        rows = await self._rows("SELECT seq, line FROM actions WHERE game_id = ? ORDER BY seq",
                                (game_id,))
        damage = gap(game_id, [r["seq"] for r in rows])
        if damage:
            raise RuntimeError(damage)
        return [r["line"] for r in rows]

    async def log(self, game_id: int) -> list[LogRow]:
        rows = await self._read(partial(_plain, _LOG + " WHERE game_id = ? ORDER BY seq",
                                        (game_id,)))
        damage = gap(game_id, [r[0] for r in rows])
        if damage:
            raise RuntimeError(damage)
        return [log_row(r) for r in rows]

    async def take_back(self, game_id: int, at: int, expect_seq: int, colour: str,
                        state: dict[str, Any], seat: Seat | None = None) -> None:
        now, dumped = stamp(self.clock), dump(state)

        def write(db: sqlite3.Connection) -> None:
            rows = db.execute("SELECT seq, line, events, by, sealed FROM actions"
                              " WHERE game_id = ? AND seq > ? ORDER BY seq",
                              (game_id, at)).fetchall()
            if [r["seq"] for r in rows] != list(range(at + 1, expect_seq + 1)) or not rows:
                raise RuntimeError(f"game {game_id}: the log does not end at {expect_seq}")
            number = db.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM takebacks"
                                " WHERE game_id = ?", (game_id,)).fetchone()[0]
            db.execute("INSERT INTO takebacks (game_id, number, after_seq, colour, steps,"
                       " taken_at) VALUES (?, ?, ?, ?, ?, ?)",
                       (game_id, number, at, colour, kept_steps(rows), now))
            db.execute("DELETE FROM actions WHERE game_id = ? AND seq > ?", (game_id, at))
            db.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                       " VALUES (?, ?, ?)", (game_id, at, dumped))
            db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))
            if seat is not None:
                _write_pace(db, game_id, seat)

        await self._write(write)

    async def takebacks(self, game_id: int) -> list[TakebackRow]:
        rows = await self._rows("SELECT after_seq, colour, steps, taken_at"
                                " FROM takebacks WHERE game_id = ? ORDER BY number", (game_id,))
        return [takeback(r["after_seq"], r["colour"], r["steps"], r["taken_at"]) for r in rows]

    async def snapshot(self, game_id: int) -> Snapshot | None:
        row = await self._row("SELECT seq, state FROM snapshots WHERE game_id = ?", (game_id,))
        return Snapshot(row["seq"], json.loads(row["state"])) if row else None

    async def write_snapshot(self, game_id: int, seq: int, state: dict[str, Any]) -> None:
        await self._execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                            " VALUES (?, ?, ?)", (game_id, seq, dump(state)))

    async def load_active(self) -> list[ActiveGame]:
        return await self._read(_read_active)

    # --- where a game is shown -----------------------------------------------------------------

    async def set_lobby_message(self, game_id: int, message_id: int | None) -> None:
        await self._execute("UPDATE games SET lobby_message_id = ? WHERE id = ?",
                            (message_id, game_id))

    async def set_thread(self, game_id: int, thread_id: int) -> None:
        await self._execute("UPDATE games SET thread_id = ? WHERE id = ?", (thread_id, game_id))

    async def messages(self, game_id: int) -> dict[str, MessageRow]:
        rows = await self._rows("SELECT slot, channel_id, message_id, digest, stage,"
                                " stage_start, holder, turn, mentions, reminder"
                                " FROM messages WHERE game_id = ?", (game_id,))
        return {r["slot"]: message_row(r) for r in rows}

    async def set_message(self, game_id: int, row: MessageRow) -> None:
        await self._execute("INSERT OR REPLACE INTO messages (game_id, slot, channel_id,"
                            " message_id, digest, stage, stage_start, holder, turn, mentions,"
                            " reminder) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (game_id, *message_values(row)))

    async def slot_of(self, message_id: int) -> tuple[int, str] | None:
        row = await self._row("SELECT game_id, slot FROM messages WHERE message_id = ?",
                              (message_id,))
        return (row["game_id"], row["slot"]) if row else None

    async def drop_message(self, game_id: int, slot: str, message_id: int | None = None) -> None:
        if message_id is None:
            await self._execute("DELETE FROM messages WHERE game_id = ? AND slot = ?",
                                (game_id, slot))
        else:
            await self._execute("DELETE FROM messages WHERE game_id = ? AND slot = ?"
                                " AND message_id = ?", (game_id, slot, message_id))

    # --- private side ----------------------------------------------------------------------------

    async def closed_dms(self, game_id: int) -> set[str]:
        rows = await self._rows("SELECT colour FROM hidden_seats WHERE game_id = ?"
                                " AND dm_closed = 1", (game_id,))
        return {r["colour"] for r in rows}

    async def set_dm_closed(self, game_id: int, colour: str, closed: bool) -> None:
        await self._execute(
            "INSERT INTO hidden_seats (game_id, colour, dm_closed) VALUES (?, ?, ?)"
            " ON CONFLICT (game_id, colour) DO UPDATE SET dm_closed = excluded.dm_closed",
            (game_id, colour, int(closed)))

    # --- results and ratings ---------------------------------------------------------------------

    async def record_results(self, game_id: int, guild_id: int, game: str,
                             rows: list[ResultRow], rate: Rate) -> bool:
        """``rate`` runs on the writer's thread, inside the transaction."""
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> bool:
            if db.execute("SELECT 1 FROM results WHERE game_id = ? LIMIT 1",
                          (game_id,)).fetchone() is not None:
                return False
            players = list(dict.fromkeys(r.player for r in rows))
            before: dict[str, Rating | None] = {}
            for player in players:
                found = db.execute("SELECT mu, sigma, plays FROM ratings WHERE guild_id = ?"
                                   " AND game = ? AND player = ?",
                                   (guild_id, game, player)).fetchone()
                before[player] = Rating(player, found["mu"], found["sigma"], found["plays"]) \
                    if found else None
            after = rate(before)
            for row in rows:
                db.execute("INSERT INTO results (game_id, colour, guild_id, game, player,"
                           " place, score, won, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           (game_id, row.colour, guild_id, game, row.player, row.place,
                            row.score, int(row.won), now))
            for player in players:
                mu, sigma = after[player]
                seats = sum(1 for r in rows if r.player == player)
                db.execute("INSERT INTO ratings (guild_id, game, player, mu, sigma, plays,"
                           " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                           " ON CONFLICT (guild_id, game, player) DO UPDATE SET"
                           " mu = excluded.mu, sigma = excluded.sigma,"
                           " plays = ratings.plays + excluded.plays,"
                           " updated_at = excluded.updated_at",
                           (guild_id, game, player, mu, sigma, seats, now))
            return True

        return await self._write(write)

    async def results(self, game_id: int) -> list[ResultRow]:
        rows = await self._rows("SELECT colour, player, place, score, won FROM results"
                                " WHERE game_id = ? ORDER BY place, colour", (game_id,))
        return [ResultRow(r["colour"], r["player"], r["place"], r["score"], bool(r["won"]))
                for r in rows]

    async def unrated_finished(self) -> list[GameRow]:
        rows = await self._rows(
            "SELECT * FROM games WHERE status = 'finished' AND header IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM results WHERE results.game_id = games.id)"
            " ORDER BY id")
        return [game_row(r) for r in rows]

    async def player_stats(self, guild_id: int, player: str) -> list[PlayerStats]:
        rows = await self._rows(
            "SELECT game, COUNT(*) AS plays, SUM(won) AS wins, SUM(place) AS places,"
            " SUM(score) AS scores FROM results WHERE guild_id = ? AND player = ?"
            " GROUP BY game ORDER BY game", (guild_id, player))
        return [PlayerStats(r["game"], r["plays"], r["wins"], r["places"], r["scores"])
                for r in rows]

    async def rating(self, guild_id: int, game: str, player: str) -> Rating | None:
        row = await self._row("SELECT mu, sigma, plays FROM ratings WHERE guild_id = ?"
                              " AND game = ? AND player = ?", (guild_id, game, player))
        return Rating(player, row["mu"], row["sigma"], row["plays"]) if row else None

    async def leaderboard(self, guild_id: int, game: str, z: float,
                          limit: int) -> list[Rating]:
        rows = await self._rows(
            "SELECT player, mu, sigma, plays FROM ratings WHERE guild_id = ? AND game = ?"
            " ORDER BY mu - ? * sigma DESC, plays DESC, player LIMIT ?",
            (guild_id, game, z, limit))
        return [Rating(r["player"], r["mu"], r["sigma"], r["plays"]) for r in rows]

    async def guild_games(self, guild_id: int, *statuses: str) -> list[GameRow]:
        marks = ", ".join("?" for _ in statuses)
        rows = await self._rows(
            f"SELECT * FROM games WHERE guild_id = ? AND status IN ({marks})"
            " ORDER BY updated_at, id", (guild_id, *statuses))
        return [game_row(r) for r in rows]

    async def set_away(self, game_id: int, colour: str, away: bool, timeouts: int) -> None:
        await self._execute("UPDATE seats SET away = ?, timeouts = ? WHERE game_id = ?"
                            " AND colour = ?", (int(away), timeouts, game_id, colour))

    # --- user settings ---------------------------------------------------------------------------

    async def notified_users(self) -> set[int]:
        rows = await self._rows("SELECT user_id FROM user_settings WHERE notify = 1")
        return {r["user_id"] for r in rows}

    async def set_notify(self, user_id: int, on: bool) -> None:
        await self._execute("INSERT INTO user_settings (user_id, notify) VALUES (?, ?)"
                            " ON CONFLICT (user_id) DO UPDATE SET notify = excluded.notify",
                            (user_id, int(on)))

    async def user_languages(self) -> dict[int, str]:
        rows = await self._rows("SELECT user_id, locale FROM user_settings"
                                " WHERE locale IS NOT NULL")
        return {r["user_id"]: r["locale"] for r in rows}

    async def set_user_language(self, user_id: int, language: str) -> None:
        await self._execute("INSERT INTO user_settings (user_id, locale) VALUES (?, ?)"
                            " ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale",
                            (user_id, language))

    # --- server settings -------------------------------------------------------------------------

    async def threads_allowed(self, guild_id: int | None) -> bool:
        if guild_id is None:
            return False
        row = await self._row("SELECT threads FROM guild_settings WHERE guild_id = ?",
                              (guild_id,))
        return bool(row[0]) if row else True

    async def set_threads_allowed(self, guild_id: int, allowed: bool) -> None:
        await self._execute("INSERT INTO guild_settings (guild_id, threads) VALUES (?, ?)"
                            " ON CONFLICT (guild_id) DO UPDATE SET threads = excluded.threads",
                            (guild_id, int(allowed)))

    # --- privacy ---------------------------------------------------------------------------------

    async def forget_user(self, user_id: int) -> Forgotten:
        player = str(user_id)

        def write(db: sqlite3.Connection) -> Forgotten:
            settings = db.execute("DELETE FROM user_settings WHERE user_id = ?",
                                  (user_id,)).rowcount
            ratings = db.execute("DELETE FROM ratings WHERE player = ?", (player,)).rowcount
            results = db.execute("UPDATE results SET player = ? WHERE player = ?",
                                 (FORMER_PLAYER, player)).rowcount
            # an AI seat keeps the name of the human who left it: the seat changes say whose
            db.execute("UPDATE seats SET name = '' WHERE user_id IS NULL AND EXISTS ("
                       "SELECT 1 FROM seat_changes AS c WHERE c.game_id = seats.game_id"
                       " AND c.colour = seats.colour AND (c.old_id = ? OR c.user_id = ?))",
                       (user_id, user_id))
            db.execute("UPDATE seats SET user_id = ?, name = '' WHERE user_id = ?",
                       (FORMER_ID, user_id))
            for column in ("user_id", "old_id", "by_id"):
                db.execute(f"UPDATE seat_changes SET {column} = ? WHERE {column} = ?",
                           (FORMER_ID, user_id))
            db.execute("UPDATE games SET creator_id = ? WHERE creator_id = ?",
                       (FORMER_ID, user_id))
            db.execute("UPDATE games SET paused_by = ? WHERE paused_by = ?",
                       (FORMER_ID, user_id))
            staged = db.execute("SELECT game_id, slot, stage FROM messages"
                                " WHERE stage LIKE ?", (f"%{player}%",)).fetchall()
            for row in staged:
                db.execute("UPDATE messages SET stage = ? WHERE game_id = ? AND slot = ?",
                           (without(row["stage"], player), row["game_id"], row["slot"]))
            return Forgotten(settings, ratings, results)

        return await self._write(write)

    async def set_departure(self, guild_id: int) -> None:
        await self._execute("INSERT INTO guild_departures (guild_id, left_at) VALUES (?, ?)"
                            " ON CONFLICT (guild_id) DO NOTHING", (guild_id, stamp(self.clock)))

    async def cancel_departure(self, guild_id: int) -> bool:
        deleted: int = await self._write(lambda db: db.execute(
            "DELETE FROM guild_departures WHERE guild_id = ?", (guild_id,)).rowcount)
        return deleted > 0

    async def departures(self) -> dict[int, str]:
        rows = await self._rows("SELECT guild_id, left_at FROM guild_departures")
        return {r["guild_id"]: r["left_at"] for r in rows}

    async def note_absence(self, guild_id: int) -> Absence:
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> Absence:
            db.execute("INSERT INTO guild_absences (guild_id, starts, first_at, last_at)"
                       " VALUES (?, 1, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET"
                       " starts = guild_absences.starts + 1, last_at = excluded.last_at",
                       (guild_id, now, now))
            row = db.execute("SELECT guild_id, starts, first_at, last_at FROM guild_absences"
                             " WHERE guild_id = ?", (guild_id,)).fetchone()
            return Absence(*row)

        return await self._write(write)

    async def clear_absence(self, guild_id: int) -> bool:
        deleted: int = await self._write(lambda db: db.execute(
            "DELETE FROM guild_absences WHERE guild_id = ?", (guild_id,)).rowcount)
        return deleted > 0

    async def absences(self) -> dict[int, Absence]:
        rows = await self._rows("SELECT guild_id, starts, first_at, last_at"
                                " FROM guild_absences")
        return {r[0]: Absence(*r) for r in rows}

    async def guilds_with_games(self) -> set[int]:
        rows = await self._rows("SELECT DISTINCT guild_id FROM games"
                                " WHERE guild_id IS NOT NULL")
        return {r[0] for r in rows}

    async def delete_guild(self, guild_id: int) -> Purged:
        def write(db: sqlite3.Connection) -> Purged:
            for table in GAME_TABLES:
                db.execute(f"DELETE FROM {table} WHERE game_id IN"
                           " (SELECT id FROM games WHERE guild_id = ?)", (guild_id,))
            games = db.execute("DELETE FROM games WHERE guild_id = ?", (guild_id,)).rowcount
            ratings = db.execute("DELETE FROM ratings WHERE guild_id = ?",
                                 (guild_id,)).rowcount
            db.execute("DELETE FROM guild_settings WHERE guild_id = ?", (guild_id,))
            db.execute("DELETE FROM guild_departures WHERE guild_id = ?", (guild_id,))
            db.execute("DELETE FROM guild_absences WHERE guild_id = ?", (guild_id,))
            return Purged(guild_id, games, ratings)

        return await self._write(write)


def _nothing(db: sqlite3.Connection) -> None:
    """A job that only says the connection is open."""


_LOG = "SELECT seq, line, events, by, sealed FROM actions"
_ACTIVE_IDS = "(SELECT id FROM games WHERE status IN ('lobby', 'running'))"


def _plain(sql: str, params: tuple[Any, ...], db: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """Rows as bare tuples (quicker than ``sqlite3.Row`` for many rows)."""
    cursor = db.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, params).fetchall()


def _read_active(db: sqlite3.Connection) -> list[ActiveGame]:
    """:meth:`Store.load_active` on the reader's connection: one query a table, in one read
    transaction (a consistent moment)."""
    db.execute("BEGIN")
    try:
        read = ActiveRows(
            [game_row(r) for r in db.execute(
                "SELECT * FROM games WHERE status IN ('lobby', 'running') ORDER BY id")],
            _plain("SELECT game_id, colour, user_id, ai_level, joined, name, acted_at, timeouts,"
                   f" away, was_human FROM seats WHERE game_id IN {_ACTIVE_IDS}"
                   " ORDER BY game_id, joined", (), db),
            _plain("SELECT game_id, colour FROM hidden_seats WHERE dm_closed = 1"
                   f" AND game_id IN {_ACTIVE_IDS}", (), db),
            _plain("SELECT game_id, seq, colour, what, user_id, old_id, by_id, at"
                   f" FROM seat_changes WHERE game_id IN {_ACTIVE_IDS} ORDER BY game_id, n",
                   (), db),
            _plain(f"SELECT game_id, seq, state FROM snapshots WHERE game_id IN {_ACTIVE_IDS}",
                   (), db),
            _plain("SELECT game_id, after_seq, colour, steps, taken_at FROM takebacks"
                   f" WHERE game_id IN {_ACTIVE_IDS} ORDER BY game_id, number", (), db),
            _plain("SELECT game_id, seq, line, events, by, sealed FROM actions"
                   f" WHERE game_id IN {_ACTIVE_IDS} ORDER BY game_id, seq", (), db))
    finally:
        db.execute("COMMIT")
    return assemble(read)


_MARKS = """
SELECT g.*, COALESCE(s.seq, 0) AS mark_seq,
    (SELECT COUNT(*) FROM takebacks AS t WHERE t.game_id = g.id) AS mark_takebacks,
    (SELECT COUNT(*) FROM seat_changes AS c WHERE c.game_id = g.id) AS mark_changes,
    (SELECT json_group_array(json_array(colour, user_id, ai_level, away)) FROM seats
     WHERE seats.game_id = g.id) AS mark_seats,
    (SELECT json_group_array(colour) FROM hidden_seats AS h WHERE h.game_id = g.id
     AND h.dm_closed = 1) AS mark_closed
FROM games AS g LEFT JOIN snapshots AS s ON s.game_id = g.id WHERE g.id IN (SELECT value
FROM json_each(?))
"""
"""Each game's :class:`GameMark` parts, for :meth:`SqliteStore.stored_marks` (the ids as one
JSON array: any number of them in one parameter)."""


def _read_marks(db: sqlite3.Connection, game_ids: list[int]) -> dict[int, GameMark]:
    return {r["id"]: stored_mark(r) for r in db.execute(_MARKS, (json.dumps(game_ids),))}


def _read_game(db: sqlite3.Connection, game_id: int, after: int) -> ActiveGame | None:
    """:meth:`Store.load_game` on the reader's connection, in one read transaction."""
    db.execute("BEGIN")
    try:
        games = [game_row(r) for r in db.execute("SELECT * FROM games WHERE id = ?",
                                                 (game_id,))]
        if not games:
            return None
        read = ActiveRows(
            games,
            _plain("SELECT game_id, colour, user_id, ai_level, joined, name, acted_at, timeouts,"
                   " away, was_human FROM seats WHERE game_id = ? ORDER BY joined",
                   (game_id,), db),
            _plain("SELECT game_id, colour FROM hidden_seats WHERE dm_closed = 1"
                   " AND game_id = ?", (game_id,), db),
            _plain("SELECT game_id, seq, colour, what, user_id, old_id, by_id, at"
                   " FROM seat_changes WHERE game_id = ? ORDER BY n", (game_id,), db),
            _plain("SELECT game_id, seq, state FROM snapshots WHERE game_id = ?",
                   (game_id,), db),
            _plain("SELECT game_id, after_seq, colour, steps, taken_at FROM takebacks"
                   " WHERE game_id = ? ORDER BY number", (game_id,), db),
            _plain("SELECT game_id, seq, line, events, by, sealed FROM actions"
                   " WHERE game_id = ? AND seq > ? ORDER BY seq", (game_id, after), db))
    finally:
        db.execute("COMMIT")
    return assemble(read, after)[0]


def _add_change(db: sqlite3.Connection, game_id: int, change: SeatChangeRow, now: str) -> None:
    number = db.execute("SELECT COALESCE(MAX(n), 0) + 1 FROM seat_changes WHERE game_id = ?",
                        (game_id,)).fetchone()[0]
    db.execute("INSERT INTO seat_changes (game_id, n, seq, colour, what, user_id, old_id,"
               " by_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (game_id, number, change.seq, change.colour, change.what, change.user_id,
                change.old_id, change.by_id, now))


def _write_pace(db: sqlite3.Connection, game_id: int, seat: Seat) -> None:
    """A seat's ``acted_at``, timeouts in a row and away mark, as the host gives them."""
    db.execute("UPDATE seats SET acted_at = ?, timeouts = ?, away = ? WHERE game_id = ?"
               " AND colour = ?", (seat.acted_at, seat.timeouts, int(seat.away), game_id,
                                   seat.colour))
