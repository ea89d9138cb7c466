"""The SQLite store: games, seats, the append-only action log, the latest snapshot, and the
ids of the Discord messages that show each game. Every SQL statement of the bot is here.

One file, WAL mode, ``PRAGMA user_version`` for the schema, ``synchronous`` as the settings
say (FULL: a committed transaction survives a power loss). Every applied action is written with
its snapshot in one transaction (:meth:`Store.append_action`), so a crash leaves an action either
applied or not, never half. The store knows nothing of Discord or of any game's rules: a
message is a *slot* name (``live``, ``ping``, ``screen:red``...) and two ids.

The standard ``sqlite3`` module does the work on two threads of the store's own (see
:class:`Store`): a transaction is one plain function handed to the writer's thread, one round
trip; reads and checkpoints run on the reader's.
"""

from __future__ import annotations

import asyncio
import fcntl
import gc
import json
import logging
import os
import queue
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property, partial
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from bot.host.clock import Clock, stamp, system_clock

log = logging.getLogger(__name__)

SCHEMA_VERSION = 11
ACTIVE = ("lobby", "running")
STATUSES = ("lobby", "running", "finished", "aborted")

_SCHEMA_1 = """
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    channel_id  INTEGER NOT NULL,
    guild_id    INTEGER,
    game        TEXT    NOT NULL,
    options     TEXT    NOT NULL DEFAULT '',
    seed        INTEGER NOT NULL,
    header      TEXT,
    status      TEXT    NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'aborted')),
    creator_id  INTEGER NOT NULL,
    language    TEXT    NOT NULL,
    ai_level    TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);
CREATE UNIQUE INDEX one_active_game_per_channel
    ON games (channel_id) WHERE status IN ('lobby', 'running');
CREATE TABLE seats (
    game_id   INTEGER NOT NULL REFERENCES games (id),
    colour    TEXT    NOT NULL,
    user_id   INTEGER,
    ai_level  TEXT,
    name      TEXT    NOT NULL DEFAULT '',
    joined    INTEGER NOT NULL,
    PRIMARY KEY (game_id, colour),
    CHECK ((user_id IS NULL) <> (ai_level IS NULL))
);
CREATE TABLE actions (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    seq      INTEGER NOT NULL,
    line     TEXT    NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE snapshots (
    game_id  INTEGER PRIMARY KEY REFERENCES games (id),
    seq      INTEGER NOT NULL,
    state    TEXT    NOT NULL
);
"""

_TURN_TIMERS = """
ALTER TABLE games ADD COLUMN turn_seconds INTEGER;
ALTER TABLE games ADD COLUMN deadline_at TEXT;
ALTER TABLE games ADD COLUMN reminded INTEGER NOT NULL DEFAULT 0;
"""

_HIDDEN_SEATS = """
CREATE TABLE hidden_seats (
    game_id         INTEGER NOT NULL REFERENCES games (id),
    colour          TEXT    NOT NULL,
    dm_closed       INTEGER NOT NULL DEFAULT 0,
    prompt_turn     INTEGER,
    prompt_channel  INTEGER,
    prompt_message  INTEGER,
    screen_hash     TEXT,
    PRIMARY KEY (game_id, colour)
);
"""
"""Per human seat: closed DMs (the prompt and screen columns are no longer used since schema 4)."""

_TABLE = """
ALTER TABLE actions ADD COLUMN sealed TEXT;
ALTER TABLE actions ADD COLUMN events TEXT NOT NULL DEFAULT '[]';
ALTER TABLE actions ADD COLUMN by TEXT NOT NULL DEFAULT 'human';
ALTER TABLE games ADD COLUMN thread_id INTEGER;
ALTER TABLE games ADD COLUMN lobby_message_id INTEGER;
ALTER TABLE seats ADD COLUMN acted_at TEXT;
CREATE TABLE messages (
    game_id     INTEGER NOT NULL REFERENCES games (id),
    slot        TEXT    NOT NULL,
    channel_id  INTEGER NOT NULL,
    message_id  INTEGER NOT NULL,
    digest      TEXT    NOT NULL DEFAULT '',
    stage       TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (game_id, slot)
);
CREATE INDEX messages_by_id ON messages (message_id);
CREATE TABLE guild_settings (
    guild_id  INTEGER PRIMARY KEY,
    threads   INTEGER NOT NULL DEFAULT 1
);
"""
"""The calm table: each log row says whether it is sealed (private to a seat until the engine
reveals it), its events (for the stage's log lines) and who played it; a game remembers its
thread and lobby message; a seat when its human last acted; ``messages`` maps each of a game's
Discord messages (live table, ping, DM screens and prompts) to its ids and the digest of what
it last showed, so the outbox edits instead of re-posting and a second run changes nothing."""

_RATINGS = """
CREATE TABLE results (
    game_id      INTEGER NOT NULL REFERENCES games (id),
    colour       TEXT    NOT NULL,
    guild_id     INTEGER NOT NULL,
    game         TEXT    NOT NULL,
    player       TEXT    NOT NULL,
    place        INTEGER NOT NULL,
    score        INTEGER NOT NULL,
    won          INTEGER NOT NULL,
    finished_at  TEXT    NOT NULL,
    PRIMARY KEY (game_id, colour)
);
CREATE INDEX results_by_player ON results (guild_id, player, game);
CREATE TABLE ratings (
    guild_id    INTEGER NOT NULL,
    game        TEXT    NOT NULL,
    player      TEXT    NOT NULL,
    mu          REAL    NOT NULL,
    sigma       REAL    NOT NULL,
    plays       INTEGER NOT NULL,
    updated_at  TEXT    NOT NULL,
    PRIMARY KEY (guild_id, game, player)
);
"""
"""Records and ratings: one ``results`` row per seat of a finished game (who held it at the end:
a user id, or ``ai:<level>`` for an AI seat; its place, ties sharing one; its score; whether it
won), and per server, game and player a Weng-Lin rating (``mu``, ``sigma``). A game's results
are written once, with the ratings they change, in one transaction: the rows of a game are the
mark that it was rated."""

_PACE = """
ALTER TABLE games ADD COLUMN paused_by INTEGER;
ALTER TABLE games ADD COLUMN paused_left INTEGER;
ALTER TABLE seats ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE seats ADD COLUMN away INTEGER NOT NULL DEFAULT 0;
CREATE TABLE takebacks (
    game_id   INTEGER NOT NULL REFERENCES games (id),
    number    INTEGER NOT NULL,
    after_seq INTEGER NOT NULL,
    colour    TEXT    NOT NULL,
    steps     TEXT    NOT NULL,
    taken_at  TEXT    NOT NULL,
    PRIMARY KEY (game_id, number)
);
CREATE TABLE user_settings (
    user_id  INTEGER PRIMARY KEY,
    notify   INTEGER NOT NULL DEFAULT 0
);
"""
"""The pace of a game: who paused it (NULL: running) and the turn time left then; per seat its
timeouts in a row and whether it is away (the AI plays for it); every take-back (``/game
undo``): the log rows it removed, as they were, and the log length after it, so the log stays
append-only in meaning; per user whether they want a DM when it is their turn."""

_SEAT_CHANGES = """
ALTER TABLE seats ADD COLUMN was_human INTEGER NOT NULL DEFAULT 0;
CREATE TABLE seat_changes (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    n        INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    colour   TEXT    NOT NULL,
    what     TEXT    NOT NULL,
    user_id  INTEGER,
    old_id   INTEGER,
    by_id    INTEGER,
    at       TEXT    NOT NULL,
    PRIMARY KEY (game_id, n)
);
"""
"""Seats change hands: a seat remembers that a human held it (an AI seat that a player left
or was removed from may be taken over), and ``seat_changes`` keeps who left, was removed or
took over which seat, when (``seq``: the actions applied by then), for the table to say so."""

_SECRET_SEED = """
ALTER TABLE games ADD COLUMN secret_seed TEXT;
UPDATE games SET secret_seed = CAST(seed AS TEXT);
"""
"""Fair dice: a game's secret seed has 128 bits, more than SQLite's 64-bit INTEGER holds, so it
is kept as decimal TEXT in ``secret_seed``; the old ``seed`` column stays 0 for new games."""

_LANGUAGES = """
ALTER TABLE user_settings ADD COLUMN locale TEXT;
UPDATE games SET language = 'zh-CN' WHERE language = 'zh';
"""
"""One language per person: each user's language, from the Discord locale of their latest
interaction (NULL: not known yet), for every private message to them; and Simplified Chinese
is stored under Discord's code ``zh-CN`` (it was ``zh``)."""

_INSTANCES = """
CREATE TABLE heartbeat (
    instance    TEXT    PRIMARY KEY,
    pid         INTEGER NOT NULL,
    host        TEXT    NOT NULL,
    started_at  TEXT    NOT NULL,
    beat_at     TEXT    NOT NULL
);
CREATE TABLE synced_guilds (
    guild_id   INTEGER PRIMARY KEY,
    synced_at  TEXT    NOT NULL
);
"""
"""Running it: one ``heartbeat`` row per running bot (its process, host and start, and when it
last beat; ``python -m bot health`` reads it, a clean stop deletes it), and the servers the
slash commands were copied to (``GUILD_ID``), so a later sync can clear the copies of a server
that is no longer ``GUILD_ID``."""

_DEPARTURES = """
CREATE TABLE guild_departures (
    guild_id  INTEGER PRIMARY KEY,
    left_at   TEXT    NOT NULL
);
"""
"""Servers the bot was removed from, and when: their games are deleted once the retention
(``PURGE_AFTER_DAYS``) has passed, unless the bot is invited back before."""

MIGRATIONS: dict[int, str] = {1: _SCHEMA_1, 2: _TURN_TIMERS, 3: _HIDDEN_SEATS, 4: _TABLE,
                              5: _SECRET_SEED, 6: _SEAT_CHANGES, 7: _PACE, 8: _RATINGS,
                              9: _LANGUAGES, 10: _INSTANCES, 11: _DEPARTURES}
"""``version -> SQL`` that brings a database from ``version - 1`` to ``version``."""
AWAY_AFTER = 2
"""Timeouts in a row after which a seat is marked away."""
FORMER_ID = 0
"""The user id a forgotten player's seats, seat changes and games keep (no Discord user has
it): the record stays, "a former player" held the seat."""
FORMER_PLAYER = "former"
"""How a forgotten player's results name them (``results.player`` holds user ids as text)."""
GAME_TABLES = ("seats", "actions", "snapshots", "messages", "hidden_seats", "takebacks",
               "seat_changes", "results")
"""Every table whose rows belong to one game (``game_id``)."""


@dataclass(frozen=True)
class GameRow:
    id: int
    channel_id: int
    guild_id: int | None
    game: str
    options: str
    seed: int
    """The secret seed every chance line is drawn from (:mod:`rules.fair`): 128 bits, kept
    as text in the ``secret_seed`` column; it leaves the bot only in the finished record."""
    header: str | None
    status: str
    creator_id: int
    language: str
    ai_level: str
    created_at: str
    updated_at: str
    turn_seconds: int | None = None
    """Time each turn may take; None: no deadline."""
    deadline_at: str | None = None
    """When the pending humans' time runs out (absolute, from the injected clock)."""
    reminded: int = 0
    thread_id: int | None = None
    """Where the table lives once the game started: a thread under the lobby message, or the
    lobby's channel itself (then equal to ``channel_id``); None before the outbox decided."""
    lobby_message_id: int | None = None
    paused_by: int | None = None
    """Who paused the game (None: it is not paused)."""
    paused_left: int | None = None
    """Seconds of turn time that were left when it was paused (None: nobody was on the clock)."""

    @property
    def home_id(self) -> int:
        """The channel (or thread) the table is shown in."""
        return self.thread_id or self.channel_id


@dataclass(frozen=True)
class SeatRow:
    colour: str
    user_id: int | None
    ai_level: str | None
    joined: int
    name: str = ""
    """The player's display name when they joined: images cannot show mentions."""
    acted_at: str | None = None
    """When this seat's human last acted in the game (joining counts)."""
    timeouts: int = 0
    """Turns in a row on which the time ran out (reset when the human acts)."""
    away: int = 0
    """Marked away after :data:`AWAY_AFTER` timeouts in a row: the AI plays at once."""
    was_human: bool = False
    """A human held this seat before it went to the AI (they left or were removed)."""

    @property
    def is_ai(self) -> bool:
        return self.user_id is None


@dataclass(frozen=True)
class SeatChangeRow:
    """A seat changed hands. ``what``: ``left``, ``kicked`` (turned over to the AI), ``took``
    (a player took it over), ``handed`` (the creator gave it to a player), ``replaced`` (a
    late joiner got a lobby's AI seat), ``removed`` (an AI seat left the lobby), ``dropped``
    (a player was removed from the lobby). ``user_id`` is the seat's new holder (None: the
    AI or nobody), ``old_id`` the previous one, ``by_id`` who made the change, ``seq`` how
    many actions had been applied."""

    seq: int
    colour: str
    what: str
    user_id: int | None
    old_id: int | None
    by_id: int | None
    at: str = ""


@dataclass(frozen=True)
class Forgotten:
    """What :meth:`Store.forget_user` removed or made anonymous."""

    settings: int
    """User settings rows deleted (language, turn DMs): 0 or 1."""
    ratings: int
    """Rating rows deleted (one per server and game)."""
    results: int
    """Finished games whose result no longer names the player."""


@dataclass(frozen=True)
class Purged:
    """What :meth:`Store.delete_guild` deleted for one server."""

    guild_id: int
    games: int
    ratings: int


@dataclass(frozen=True)
class Snapshot:
    seq: int
    state: dict[str, Any]


class _LogFields(NamedTuple):
    seq: int
    line: str
    events_json: str
    """The events as stored (JSON text)."""
    by: str
    sealed: str | None


class LogRow(_LogFields):
    """One applied action as stored: ``sealed`` names the seat it is still private to. Its
    events are kept as the stored JSON text and decoded on first use of :attr:`events` (a
    start reads the logs of every running game; most of their events are never looked at).
    Immutable and compared by its fields; a tuple underneath, so that many are made quickly."""

    @classmethod
    def of(cls, seq: int, line: str, events: list[dict[str, Any]], by: str,
           sealed: str | None) -> LogRow:
        """A row from decoded events."""
        row = cls(seq, line, _dump(events), by, sealed)
        row.__dict__["events"] = events
        return row

    @cached_property
    def events(self) -> list[dict[str, Any]]:
        decoded: list[dict[str, Any]] = json.loads(self.events_json)
        return decoded


@dataclass(frozen=True)
class TakebackRow:
    """One ``/game undo``: ``colour`` took back the log rows after ``at`` (as they were)."""

    at: int
    colour: str
    rows: list[LogRow]
    taken_at: str


@dataclass(frozen=True)
class ActiveGame:
    """A game in a lobby or running, with everything the host needs to load it
    (:meth:`Store.load_active`): each part equal to what the store's per-game read returns.
    ``damage``: None, or why :meth:`Store.log` refuses the game's log (a gap in it)."""

    row: GameRow
    seats: list[SeatRow]
    dm_closed: set[str]
    changes: list[SeatChangeRow]
    snapshot: Snapshot | None
    log: list[LogRow]
    takebacks: list[TakebackRow]
    damage: str | None = None


@dataclass(frozen=True)
class MessageRow:
    """A Discord message the outbox keeps up to date for one game (see :class:`Store`)."""

    slot: str
    channel_id: int
    message_id: int
    digest: str = ""
    stage: str = ""


@dataclass(frozen=True)
class ResultRow:
    """One seat's outcome in a finished game: ``player`` is the user id as text, or
    ``ai:<level>`` for an AI seat; ``place`` 1 is first, tied seats share a place."""

    colour: str
    player: str
    place: int
    score: int
    won: bool


@dataclass(frozen=True)
class Rating:
    """A player's Weng-Lin rating in one game on one server, and how many seats it played."""

    player: str
    mu: float
    sigma: float
    plays: int


@dataclass(frozen=True)
class PlayerStats:
    """A player's finished games of one game on one server, summed."""

    game: str
    plays: int
    wins: int
    place_total: int
    score_total: int


@dataclass(frozen=True)
class Heartbeat:
    """A running bot as its heartbeat row says: which process on which host, since when, and
    when it last beat (ISO timestamps from its clock)."""

    instance: str
    pid: int
    host: str
    started_at: str
    beat_at: str

    def age(self, now: datetime) -> float:
        """Seconds since the last beat (negative if the clocks disagree)."""
        return (now - datetime.fromisoformat(self.beat_at)).total_seconds()


@dataclass(frozen=True)
class DatabaseInfo:
    """What ``python -m bot check`` learns from a database file without changing it."""

    version: int
    """Its schema (0: empty, the bot creates the tables)."""
    integrity: list[str]
    """SQLite's integrity check: ``["ok"]``, else what it found (the first lines)."""
    games: int

    @property
    def pending(self) -> int:
        """Migrations the bot applies when it next opens it (negative: newer than the bot)."""
        return SCHEMA_VERSION - self.version


@dataclass(frozen=True)
class BackupInfo:
    """A backup written: where, its size in bytes, its games and its schema."""

    path: Path
    size: int
    games: int
    version: int


class SchemaTooNew(RuntimeError):
    """The database was written by a newer bot: this one must not touch it."""


class InstanceRunning(Exception):
    """Another process holds the database's instance lock: a bot is running on it."""

    def __init__(self, lock_path: Path) -> None:
        super().__init__(f"{lock_path} is held by another process")
        self.lock_path = lock_path


Rate = Callable[[dict[str, Rating | None]], dict[str, tuple[float, float]]]
"""From each player's rating before a game (None: unrated), their ``(mu, sigma)`` after it."""

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
            raise sqlite3.ProgrammingError("the store is closed")
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
        while (item := self._jobs.get()) is not None:
            job, loop, future = item
            result: Any = None
            error: BaseException | None = self.failed
            if db is not None:
                try:
                    result = job(db)
                except BaseException as exc:
                    error = exc
            if loop is not None and future is not None:
                _reply(loop, future, result, error)
            elif error is not None:
                log.error("a store job failed: %r", error)


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


class Transaction:
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
        """Execute one statement; returns the last inserted row id."""
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


async def run(db: Transaction, sql: str, params: tuple[Any, ...] = ()) -> int | None:
    """Execute one statement in a held transaction; returns the last inserted row id."""
    return await db.run(sql, params)


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
    (``games.sqlite3.v3.bak``): an upgrade that goes wrong loses nothing. None when the schema
    is current or the database is new."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version == 0 or version >= SCHEMA_VERSION:
        return None
    target = path.with_name(f"{path.name}.v{version}.bak")
    copy = sqlite3.connect(str(target))
    try:
        db.backup(copy)
    finally:
        copy.close()
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
    if path is not None:
        backup_before_migrating(db, path)
    migrate(db)


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


# --- the database file, for the commands that do not run the bot --------------------------------

def lock_path(path: Path) -> Path:
    """The file whose lock says a bot runs on the database at ``path``."""
    return path.with_name(f"{path.name}.lock")


class InstanceLock:
    """The exclusive lock of one running bot on its database (``<db>.lock``, ``flock``): a
    second bot on the same file is refused, and the system releases the lock when the
    process ends, however it ends. :meth:`take` it before opening the store to run."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def take(cls, db_path: Path) -> InstanceLock:
        """Raises :class:`InstanceRunning` while another process holds it."""
        path = lock_path(db_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise InstanceRunning(path) from None
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd)

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _read_only(path: Path) -> sqlite3.Connection:
    """A connection for reading that never creates the file (``FileNotFoundError`` if it is
    missing). It opens read-write when it may, so that, as the last connection, it removes
    the ``-wal`` and ``-shm`` files on closing, as the bot does; read-only otherwise."""
    if not path.is_file():
        raise FileNotFoundError(path)
    uri = path.resolve().as_uri()
    try:
        return sqlite3.connect(f"{uri}?mode=rw", uri=True)
    except sqlite3.OperationalError:
        return sqlite3.connect(f"{uri}?mode=ro", uri=True)


def _tables(db: sqlite3.Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def read_heartbeats(path: Path) -> list[Heartbeat]:
    """The heartbeat rows of the database at ``path``, newest first, read without creating
    or changing anything: none when the file, or its heartbeat table, is missing."""
    try:
        db = _read_only(path)
    except FileNotFoundError:
        return []
    try:
        if "heartbeat" not in _tables(db):
            return []
        rows = db.execute("SELECT instance, pid, host, started_at, beat_at FROM heartbeat"
                          " ORDER BY beat_at DESC").fetchall()
    finally:
        db.close()
    return [Heartbeat(*row) for row in rows]


def inspect(path: Path) -> DatabaseInfo:
    """Schema, integrity and games of the database at ``path``, read only. Raises
    ``FileNotFoundError`` when it is missing and ``sqlite3.DatabaseError`` when it is no
    SQLite database."""
    db = _read_only(path)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        integrity = [r[0] for r in db.execute("PRAGMA integrity_check(10)")]
        games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0] \
            if "games" in _tables(db) else 0
    finally:
        db.close()
    return DatabaseInfo(version, integrity, games)


def backup(path: Path, target: Path, force: bool = False) -> BackupInfo:
    """An online backup of the database at ``path`` to ``target``: SQLite's backup API on a
    read-only connection (a running bot goes on writing; the copy holds what was committed
    when it began), written to a temporary file beside ``target``, synced, then renamed, so
    ``target`` is whole or absent. Raises ``FileNotFoundError`` (no database),
    ``FileExistsError`` (``target`` exists and not ``force``) or ``ValueError`` (the target
    is the database itself, or a folder)."""
    if target.resolve() == path.resolve():
        raise ValueError(f"{target} is the database itself")
    if target.is_dir():
        raise ValueError(f"{target} is a folder")
    if target.exists() and not force:
        raise FileExistsError(target)
    source = _read_only(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        copy = sqlite3.connect(temporary)
        try:
            source.backup(copy)
            version = copy.execute("PRAGMA user_version").fetchone()[0]
            games = copy.execute("SELECT COUNT(*) FROM games").fetchone()[0] \
                if "games" in _tables(copy) else 0
        finally:
            copy.close()
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        if not force and target.exists():
            raise FileExistsError(target)
        os.replace(temporary, target)
    finally:
        source.close()
        temporary.unlink(missing_ok=True)
    folder = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
    return BackupInfo(target, target.stat().st_size, games, version)


class Store:
    """Async access to the games database. Open with :meth:`open`, close with :meth:`close`.

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
                   synchronous: str = "FULL") -> Store:
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
        future = self._writer.submit(partial(_in_transaction, job))
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
        """BEGIN ... COMMIT held open across awaits (each statement a round trip), or
        ROLLBACK on any error (cancellation included). Every other write waits meanwhile."""
        tx = Transaction(asyncio.get_running_loop())
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

    # --- running instances -----------------------------------------------------------------------

    async def start_heartbeat(self, instance: str, pid: int, host: str) -> None:
        """This process runs the bot now: its row, and no other (only the holder of the
        instance lock writes here, so any other row is left by a process that died)."""
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM heartbeat")
            db.execute("INSERT INTO heartbeat (instance, pid, host, started_at, beat_at)"
                       " VALUES (?, ?, ?, ?, ?)", (instance, pid, host, now, now))

        await self._write(write)

    async def beat(self, instance: str) -> None:
        await self._execute("UPDATE heartbeat SET beat_at = ? WHERE instance = ?",
                            (stamp(self.clock), instance))

    async def end_heartbeat(self, instance: str) -> None:
        await self._execute("DELETE FROM heartbeat WHERE instance = ?", (instance,))

    async def heartbeats(self) -> list[Heartbeat]:
        rows = await self._rows("SELECT instance, pid, host, started_at, beat_at"
                                " FROM heartbeat ORDER BY beat_at DESC")
        return [Heartbeat(*row) for row in rows]

    # --- where the slash commands are ------------------------------------------------------------

    async def synced_guilds(self) -> set[int]:
        """The servers the slash commands were copied to (and not cleared since)."""
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
        """A new lobby. Raises :class:`ChannelBusy` if the channel already has an active game."""
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> GameRow:
            game_id = db.execute(
                "INSERT INTO games (channel_id, guild_id, game, options, seed,"
                " secret_seed, status, creator_id, language, ai_level, created_at,"
                " updated_at, turn_seconds) VALUES (?, ?, ?, ?, 0, ?, 'lobby', ?, ?, ?, ?,"
                " ?, ?)",
                (channel_id, guild_id, game, options, str(seed), creator_id, language,
                 ai_level, now, now, turn_seconds)).lastrowid
            return _game_row(db.execute("SELECT * FROM games WHERE id = ?",
                                        (game_id,)).fetchone())

        try:
            return await self._write(write)
        except sqlite3.IntegrityError as exc:
            raise ChannelBusy(channel_id) from exc

    async def game(self, game_id: int) -> GameRow | None:
        row = await self._row("SELECT * FROM games WHERE id = ?", (game_id,))
        return _game_row(row) if row else None

    async def active_game(self, channel_id: int) -> GameRow | None:
        row = await self._row(
            "SELECT * FROM games WHERE channel_id = ? AND status IN ('lobby', 'running')",
            (channel_id,))
        return _game_row(row) if row else None

    async def latest_started(self, channel_id: int) -> GameRow | None:
        """The newest game that started in this channel, or whose table is this thread."""
        row = await self._row(
            "SELECT * FROM games WHERE (channel_id = ? OR thread_id = ?)"
            " AND header IS NOT NULL ORDER BY id DESC LIMIT 1", (channel_id, channel_id))
        return _game_row(row) if row else None

    async def games_with_status(self, *statuses: str) -> list[GameRow]:
        marks = ", ".join("?" for _ in statuses)
        rows = await self._rows(f"SELECT * FROM games WHERE status IN ({marks}) ORDER BY id",
                                statuses)
        return [_game_row(r) for r in rows]

    async def set_status(self, game_id: int, status: str) -> None:
        assert status in STATUSES
        await self._execute("UPDATE games SET status = ?, updated_at = ? WHERE id = ?",
                            (status, stamp(self.clock), game_id))

    async def start_game(self, game_id: int, header: str, state: dict[str, Any]) -> None:
        """Lobby -> running: the game line is fixed and the initial snapshot (seq 0) written."""
        now, dumped = stamp(self.clock), _dump(state)

        def write(db: sqlite3.Connection) -> None:
            db.execute("UPDATE games SET status = 'running', header = ?, updated_at = ?"
                       " WHERE id = ?", (header, now, game_id))
            db.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                       " VALUES (?, 0, ?)", (game_id, dumped))

        await self._write(write)

    async def set_deadline(self, game_id: int, deadline: str | None) -> None:
        """A new turn deadline (None: nobody is on the clock); its reminder is not sent yet."""
        await self._execute("UPDATE games SET deadline_at = ?, reminded = 0 WHERE id = ?",
                            (deadline, game_id))

    async def mark_reminded(self, game_id: int) -> None:
        await self._execute("UPDATE games SET reminded = 1 WHERE id = ?", (game_id,))

    async def set_paused(self, game_id: int, paused_by: int | None, left: int | None,
                         deadline: str | None) -> None:
        """Pause (``paused_by`` set, the time ``left`` kept, no deadline) or resume (the
        deadline re-armed); the turn's reminder mark stays as it was."""
        await self._execute("UPDATE games SET paused_by = ?, paused_left = ?, deadline_at = ?,"
                            " updated_at = ? WHERE id = ?",
                            (paused_by, left, deadline, stamp(self.clock), game_id))

    async def set_turn_time(self, game_id: int, seconds: int | None, deadline: str | None,
                            left: int | None) -> None:
        """A new time per turn: the current turn starts again on it (``deadline``, or ``left``
        while the game is paused)."""
        await self._execute("UPDATE games SET turn_seconds = ?, deadline_at = ?,"
                            " paused_left = ?, reminded = 0, updated_at = ? WHERE id = ?",
                            (seconds, deadline, left, stamp(self.clock), game_id))

    # --- seats ---------------------------------------------------------------------------------

    async def seats(self, game_id: int) -> list[SeatRow]:
        rows = await self._rows(
            "SELECT colour, user_id, ai_level, joined, name, acted_at, timeouts, away,"
            " was_human FROM seats WHERE game_id = ? ORDER BY joined", (game_id,))
        return [SeatRow(r["colour"], r["user_id"], r["ai_level"], r["joined"], r["name"],
                        r["acted_at"], r["timeouts"], r["away"], bool(r["was_human"]))
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
        """A seat leaves the lobby (``change``: recorded with it, for the lobby card)."""
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM seats WHERE game_id = ? AND colour = ?", (game_id, colour))
            db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))
            if change is not None:
                _add_change(db, game_id, change, now)

        await self._write(write)

    async def change_seat(self, game_id: int, colour: str, change: SeatChangeRow, *,
                          user_id: int | None, ai_level: str | None, name: str = "") -> None:
        """The seat passes to ``user_id`` (None: the AI at ``ai_level``), with the change that
        says so, in ONE transaction. The seat remembers a human held it; its name stays when
        the AI takes over (a new holder brings theirs); DMs found closed were the previous
        holder's, so the mark goes."""
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
        """Every change of hands in the game, oldest first."""
        rows = await self._rows("SELECT seq, colour, what, user_id, old_id, by_id, at"
                                " FROM seat_changes WHERE game_id = ? ORDER BY n", (game_id,))
        return [SeatChangeRow(r["seq"], r["colour"], r["what"], r["user_id"], r["old_id"],
                              r["by_id"], r["at"]) for r in rows]

    # --- actions and snapshots -----------------------------------------------------------------

    async def append_action(self, game_id: int, seq: int, line: str, state: dict[str, Any],
                            finished: bool = False, *, events: list[dict[str, Any]] | None = None,
                            by: str = "human", actor: str | None = None,
                            sealed: str | None = None, reveals: bool = False,
                            before_commit: Callable[[], None] | None = None) -> None:
        """Log row ``seq`` and the snapshot after it, in ONE transaction: one job on the
        writer's thread, so one round trip.

        ``seq`` must be the next number (1 for the first action): a duplicate means two writers
        disagree about the game, and the transaction fails without changing anything.
        ``sealed`` keeps the line private to that seat; ``reveals`` makes every sealed row of
        the game public (the engine's events say both). A human's action (``by="human"``)
        also stamps their seat's ``acted_at``. ``before_commit`` (run on the writer's thread,
        inside the transaction, just before COMMIT) lets tests simulate a crash there.
        """
        now, dumped, logged = stamp(self.clock), _dump(state), _dump(events or [])
        status = ", status = 'finished'" if finished else ""

        def write(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO actions (game_id, seq, line, sealed, events, by)"
                       " VALUES (?, ?, ?, ?, ?, ?)", (game_id, seq, line, sealed, logged, by))
            if reveals:
                db.execute("UPDATE actions SET sealed = NULL WHERE game_id = ?"
                           " AND sealed IS NOT NULL", (game_id,))
            db.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                       " VALUES (?, ?, ?)", (game_id, seq, dumped))
            db.execute(f"UPDATE games SET updated_at = ?{status} WHERE id = ?", (now, game_id))
            if by == "human" and actor is not None:
                db.execute("UPDATE seats SET acted_at = ? WHERE game_id = ? AND colour = ?",
                           (now, game_id, actor))
                db.execute("UPDATE seats SET timeouts = 0, away = 0 WHERE game_id = ?"
                           " AND colour = ?", (game_id, actor))
            if by == "timeout" and actor is not None:
                db.execute("UPDATE seats SET timeouts = timeouts + 1, away = CASE WHEN"
                           " timeouts + 1 >= ? THEN 1 ELSE away END WHERE game_id = ?"
                           " AND colour = ?", (AWAY_AFTER, game_id, actor))
            if before_commit is not None:
                before_commit()

        await self._write(write)

    async def actions(self, game_id: int) -> list[str]:
        """The log in order; a gap in the numbers means a damaged database."""
        rows = await self._rows("SELECT seq, line FROM actions WHERE game_id = ? ORDER BY seq",
                                (game_id,))
        damage = _gap(game_id, [r["seq"] for r in rows])
        if damage:
            raise RuntimeError(damage)
        return [r["line"] for r in rows]

    async def log(self, game_id: int) -> list[LogRow]:
        """The whole log with each row's events and secrecy mark, in order."""
        rows = await self._read(partial(_plain, _LOG + " WHERE game_id = ? ORDER BY seq",
                                        (game_id,)))
        damage = _gap(game_id, [r[0] for r in rows])
        if damage:
            raise RuntimeError(damage)
        return [_log_row(r) for r in rows]

    async def take_back(self, game_id: int, at: int, expect_seq: int, colour: str,
                        state: dict[str, Any]) -> None:
        """``colour`` takes back every log row after ``at``: in ONE transaction the rows are
        kept as they were in ``takebacks``, leave the live log, and the snapshot becomes
        ``state`` (the position after row ``at``); the seat counts as having acted. The log
        must end at ``expect_seq`` (else another writer got there first and nothing changes).
        """
        now, dumped = stamp(self.clock), _dump(state)

        def write(db: sqlite3.Connection) -> None:
            rows = db.execute("SELECT seq, line, events, by, sealed FROM actions"
                              " WHERE game_id = ? AND seq > ? ORDER BY seq",
                              (game_id, at)).fetchall()
            if [r["seq"] for r in rows] != list(range(at + 1, expect_seq + 1)) or not rows:
                raise RuntimeError(f"game {game_id}: the log does not end at {expect_seq}")
            kept = [{"seq": r["seq"], "line": r["line"], "events": json.loads(r["events"]),
                     "by": r["by"], "sealed": r["sealed"]} for r in rows]
            number = db.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM takebacks"
                                " WHERE game_id = ?", (game_id,)).fetchone()[0]
            db.execute("INSERT INTO takebacks (game_id, number, after_seq, colour, steps,"
                       " taken_at) VALUES (?, ?, ?, ?, ?, ?)",
                       (game_id, number, at, colour, _dump(kept), now))
            db.execute("DELETE FROM actions WHERE game_id = ? AND seq > ?", (game_id, at))
            db.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                       " VALUES (?, ?, ?)", (game_id, at, dumped))
            db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))
            db.execute("UPDATE seats SET acted_at = ?, timeouts = 0, away = 0"
                       " WHERE game_id = ? AND colour = ?", (now, game_id, colour))

        await self._write(write)

    async def takebacks(self, game_id: int) -> list[TakebackRow]:
        """Every take-back of the game, oldest first."""
        rows = await self._rows("SELECT after_seq, colour, steps, taken_at"
                                " FROM takebacks WHERE game_id = ? ORDER BY number", (game_id,))
        return [_takeback(r["after_seq"], r["colour"], r["steps"], r["taken_at"]) for r in rows]

    async def snapshot(self, game_id: int) -> Snapshot | None:
        row = await self._row("SELECT seq, state FROM snapshots WHERE game_id = ?", (game_id,))
        return Snapshot(row["seq"], json.loads(row["state"])) if row else None

    async def write_snapshot(self, game_id: int, seq: int, state: dict[str, Any]) -> None:
        """Replace a game's snapshot (a repair: the log had the last word)."""
        await self._execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                            " VALUES (?, ?, ?)", (game_id, seq, _dump(state)))

    async def load_active(self) -> list[ActiveGame]:
        """Every game in a lobby or running, with all that :meth:`seats`, :meth:`closed_dms`,
        :meth:`seat_changes`, :meth:`snapshot`, :meth:`log` and :meth:`takebacks` return for
        it, in a handful of queries for them all (one read transaction: one consistent
        moment), oldest game first. A game whose log has a gap comes with ``damage`` said
        (what :meth:`log` raises) and the rows as they are."""
        return await self._read(_load_active)

    # --- where a game is shown -----------------------------------------------------------------

    async def set_lobby_message(self, game_id: int, message_id: int) -> None:
        await self._execute("UPDATE games SET lobby_message_id = ? WHERE id = ?",
                            (message_id, game_id))

    async def set_thread(self, game_id: int, thread_id: int) -> None:
        await self._execute("UPDATE games SET thread_id = ? WHERE id = ?", (thread_id, game_id))

    async def messages(self, game_id: int) -> dict[str, MessageRow]:
        rows = await self._rows("SELECT slot, channel_id, message_id, digest, stage"
                                " FROM messages WHERE game_id = ?", (game_id,))
        return {r["slot"]: MessageRow(r["slot"], r["channel_id"], r["message_id"], r["digest"],
                                      r["stage"]) for r in rows}

    async def set_message(self, game_id: int, row: MessageRow) -> None:
        await self._execute("INSERT OR REPLACE INTO messages (game_id, slot, channel_id,"
                            " message_id, digest, stage) VALUES (?, ?, ?, ?, ?, ?)",
                            (game_id, row.slot, row.channel_id, row.message_id, row.digest,
                             row.stage))

    async def slot_of(self, message_id: int) -> tuple[int, str] | None:
        """Which game shows this message, and as what; None for any other message."""
        row = await self._row("SELECT game_id, slot FROM messages WHERE message_id = ?",
                              (message_id,))
        return (row["game_id"], row["slot"]) if row else None

    async def drop_message(self, game_id: int, slot: str, message_id: int | None = None) -> None:
        """Forget a slot's message (``message_id``: only if the slot still holds that one)."""
        if message_id is None:
            await self._execute("DELETE FROM messages WHERE game_id = ? AND slot = ?",
                                (game_id, slot))
        else:
            await self._execute("DELETE FROM messages WHERE game_id = ? AND slot = ?"
                                " AND message_id = ?", (game_id, slot, message_id))

    # --- private side ----------------------------------------------------------------------------

    async def closed_dms(self, game_id: int) -> set[str]:
        """The colours of the game whose DMs were found closed."""
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
        """Write a finished game's results and the ratings they change, in ONE transaction,
        once: False (and nothing written) when the game has its results already. ``rate`` gets
        every player's rating before the game, read inside the transaction (it runs on the
        writer's thread: a pure function)."""
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
        """Finished games without results (the bot stopped between the last move and them)."""
        rows = await self._rows(
            "SELECT * FROM games WHERE status = 'finished' AND header IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM results WHERE results.game_id = games.id)"
            " ORDER BY id")
        return [_game_row(r) for r in rows]

    async def player_stats(self, guild_id: int, player: str) -> list[PlayerStats]:
        """Per game (by name), the player's plays, wins and summed places and scores here."""
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
        """The best ``limit`` players of a game here by ``mu - z * sigma``."""
        rows = await self._rows(
            "SELECT player, mu, sigma, plays FROM ratings WHERE guild_id = ? AND game = ?"
            " ORDER BY mu - ? * sigma DESC, plays DESC, player LIMIT ?",
            (guild_id, game, z, limit))
        return [Rating(r["player"], r["mu"], r["sigma"], r["plays"]) for r in rows]

    async def guild_games(self, guild_id: int, *statuses: str) -> list[GameRow]:
        """A server's games with these statuses, the longest-waiting first."""
        marks = ", ".join("?" for _ in statuses)
        rows = await self._rows(
            f"SELECT * FROM games WHERE guild_id = ? AND status IN ({marks})"
            " ORDER BY updated_at, id", (guild_id, *statuses))
        return [_game_row(r) for r in rows]

    async def set_away(self, game_id: int, colour: str, away: bool) -> None:
        """Mark a seat away (the AI plays for it at once) or back (its timeouts forgotten)."""
        await self._execute("UPDATE seats SET away = ?, timeouts = CASE WHEN ? THEN timeouts"
                            " ELSE 0 END WHERE game_id = ? AND colour = ?",
                            (int(away), int(away), game_id, colour))

    # --- user settings ---------------------------------------------------------------------------

    async def notified_users(self) -> set[int]:
        """The users who want a DM when it is their turn."""
        rows = await self._rows("SELECT user_id FROM user_settings WHERE notify = 1")
        return {r["user_id"] for r in rows}

    async def set_notify(self, user_id: int, on: bool) -> None:
        await self._execute("INSERT INTO user_settings (user_id, notify) VALUES (?, ?)"
                            " ON CONFLICT (user_id) DO UPDATE SET notify = excluded.notify",
                            (user_id, int(on)))

    async def user_languages(self) -> dict[int, str]:
        """Every user whose language is known: user id -> the language of their Discord
        locale when they last interacted with the bot."""
        rows = await self._rows("SELECT user_id, locale FROM user_settings"
                                " WHERE locale IS NOT NULL")
        return {r["user_id"]: r["locale"] for r in rows}

    async def set_user_language(self, user_id: int, language: str) -> None:
        await self._execute("INSERT INTO user_settings (user_id, locale) VALUES (?, ?)"
                            " ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale",
                            (user_id, language))

    # --- server settings -------------------------------------------------------------------------

    async def threads_allowed(self, guild_id: int | None) -> bool:
        """Whether games in this server get a thread of their own (on unless turned off)."""
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
        """Remove a user from the database in ONE transaction: their settings and ratings are
        deleted; wherever a game keeps them (a seat, its name, a seat change, the creator,
        who paused it, a message's holder, a result) the game stays and holds
        :data:`FORMER_ID` (or :data:`FORMER_PLAYER`, and an empty name) instead. Lobbies and
        running games are the host's to settle first (their seats are freed or go to the AI);
        what is left of the user there is made anonymous the same way."""
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
                           (_without(row["stage"], player), row["game_id"], row["slot"]))
            return Forgotten(settings, ratings, results)

        return await self._write(write)

    async def set_departure(self, guild_id: int) -> None:
        """The bot was removed from this server (now, by the store's clock)."""
        await self._execute("INSERT INTO guild_departures (guild_id, left_at) VALUES (?, ?)"
                            " ON CONFLICT (guild_id) DO NOTHING", (guild_id, stamp(self.clock)))

    async def cancel_departure(self, guild_id: int) -> bool:
        """The bot is back in this server: nothing of it is deleted. True if it had left."""
        deleted: int = await self._write(lambda db: db.execute(
            "DELETE FROM guild_departures WHERE guild_id = ?", (guild_id,)).rowcount)
        return deleted > 0

    async def departures(self) -> dict[int, str]:
        """Server id -> when the bot was removed from it, for every server not purged yet."""
        rows = await self._rows("SELECT guild_id, left_at FROM guild_departures")
        return {r["guild_id"]: r["left_at"] for r in rows}

    async def guilds_with_games(self) -> set[int]:
        """Every server that has a game in the store."""
        rows = await self._rows("SELECT DISTINCT guild_id FROM games"
                                " WHERE guild_id IS NOT NULL")
        return {r[0] for r in rows}

    async def delete_guild(self, guild_id: int) -> Purged:
        """Everything the bot keeps of one server, in ONE transaction: its games with their
        seats, actions, snapshots, messages, results and seat changes, its ratings, its
        settings and its departure mark."""
        def write(db: sqlite3.Connection) -> Purged:
            for table in GAME_TABLES:
                db.execute(f"DELETE FROM {table} WHERE game_id IN"
                           " (SELECT id FROM games WHERE guild_id = ?)", (guild_id,))
            games = db.execute("DELETE FROM games WHERE guild_id = ?", (guild_id,)).rowcount
            ratings = db.execute("DELETE FROM ratings WHERE guild_id = ?",
                                 (guild_id,)).rowcount
            db.execute("DELETE FROM guild_settings WHERE guild_id = ?", (guild_id,))
            db.execute("DELETE FROM guild_departures WHERE guild_id = ?", (guild_id,))
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


def _gap(game_id: int, seqs: list[int]) -> str | None:
    """What is wrong with a log numbered ``seqs`` (None: 1, 2, ... as it must be)."""
    if seqs != list(range(1, len(seqs) + 1)):
        return f"game {game_id}: the action log has a gap"
    return None


def _log_row(row: tuple[Any, ...]) -> LogRow:
    """A log row from ``seq, line, events, by, sealed`` as read (no checks: quick)."""
    made: LogRow = tuple.__new__(LogRow, row)
    return made


def _takeback(at: int, colour: str, steps: str, taken_at: str) -> TakebackRow:
    return TakebackRow(at, colour, [LogRow.of(x["seq"], x["line"], x["events"], x["by"],
                                              x["sealed"]) for x in json.loads(steps)],
                       taken_at)


def _by_game(rows: list[tuple[Any, ...]]) -> dict[int, list[tuple[Any, ...]]]:
    """Rows whose first column is a game id, grouped by it (each group in the rows' order)."""
    groups: dict[int, list[tuple[Any, ...]]] = {}
    for row in rows:
        groups.setdefault(row[0], []).append(row)
    return groups


def _load_active(db: sqlite3.Connection) -> list[ActiveGame]:
    """:meth:`Store.load_active` on the reader's connection, with the cyclic garbage collector
    paused: it builds a million objects or so (rows, decoded snapshots), none of them in a
    cycle, and the collector would walk the growing heap again and again (twice the time)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _read_active(db)
    finally:
        if paused:
            gc.enable()


def _read_active(db: sqlite3.Connection) -> list[ActiveGame]:
    """One query a table, in one read transaction (a consistent moment)."""
    db.execute("BEGIN")
    try:
        games = [_game_row(r) for r in db.execute(
            "SELECT * FROM games WHERE status IN ('lobby', 'running') ORDER BY id")]
        seats = _by_game(_plain(
            "SELECT game_id, colour, user_id, ai_level, joined, name, acted_at, timeouts, away,"
            f" was_human FROM seats WHERE game_id IN {_ACTIVE_IDS} ORDER BY game_id, joined",
            (), db))
        closed = _by_game(_plain(
            "SELECT game_id, colour FROM hidden_seats WHERE dm_closed = 1"
            f" AND game_id IN {_ACTIVE_IDS}", (), db))
        changes = _by_game(_plain(
            "SELECT game_id, seq, colour, what, user_id, old_id, by_id, at FROM seat_changes"
            f" WHERE game_id IN {_ACTIVE_IDS} ORDER BY game_id, n", (), db))
        snapshots = _by_game(_plain(
            f"SELECT game_id, seq, state FROM snapshots WHERE game_id IN {_ACTIVE_IDS}",
            (), db))
        takebacks = _by_game(_plain(
            "SELECT game_id, after_seq, colour, steps, taken_at FROM takebacks"
            f" WHERE game_id IN {_ACTIVE_IDS} ORDER BY game_id, number", (), db))
        logs = _by_game(_plain(
            "SELECT game_id, seq, line, events, by, sealed FROM actions"
            f" WHERE game_id IN {_ACTIVE_IDS} ORDER BY game_id, seq", (), db))
    finally:
        db.execute("COMMIT")
    loaded = []
    for row in games:
        log_rows = [_log_row(r[1:]) for r in logs.get(row.id, [])]
        snapshot = [Snapshot(seq, json.loads(state))
                    for _, seq, state in snapshots.get(row.id, [])]
        loaded.append(ActiveGame(
            row,
            [SeatRow(colour, user, ai, joined, name, acted, timeouts, away, bool(was))
             for _, colour, user, ai, joined, name, acted, timeouts, away, was
             in seats.get(row.id, [])],
            {colour for _, colour in closed.get(row.id, [])},
            [SeatChangeRow(*r[1:]) for r in changes.get(row.id, [])],
            snapshot[0] if snapshot else None,
            log_rows,
            [_takeback(*r[1:]) for r in takebacks.get(row.id, [])],
            _gap(row.id, [r.seq for r in log_rows])))
    return loaded


def _without(stage: str, player: str) -> str:
    """A message's stage with this user id taken out: a DM's holder (``12``, ``3@12``) or one
    of the users a ping nudged (``12,34|remind``)."""
    users, bar, flag = stage.partition("|")
    if bar:
        kept = [u for u in users.split(",") if u and u != player]
        return ",".join(kept) + bar + flag
    turn, at, holder = stage.rpartition("@")
    if at:
        return turn + at + ("" if holder == player else holder)
    return "" if stage == player else stage




def _add_change(db: sqlite3.Connection, game_id: int, change: SeatChangeRow, now: str) -> None:
    number = db.execute("SELECT COALESCE(MAX(n), 0) + 1 FROM seat_changes WHERE game_id = ?",
                        (game_id,)).fetchone()[0]
    db.execute("INSERT INTO seat_changes (game_id, n, seq, colour, what, user_id, old_id,"
               " by_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (game_id, number, change.seq, change.colour, change.what, change.user_id,
                change.old_id, change.by_id, now))


def _dump(state: Any) -> str:
    return json.dumps(state, separators=(",", ":"), ensure_ascii=False, default=list)


class ChannelBusy(Exception):
    """The channel already has a game in its lobby or running."""


def _game_row(row: sqlite3.Row) -> GameRow:
    values = {key: row[key] for key in row.keys()}  # noqa: SIM118 - Row is no dict
    secret = values.pop("secret_seed")
    values["seed"] = int(secret) if secret is not None else values["seed"]
    return GameRow(**values)
