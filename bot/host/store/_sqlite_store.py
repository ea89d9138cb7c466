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

import logging
import sqlite3
from functools import partial
from pathlib import Path

from bot.host.clock import Clock, system_clock
from bot.host.store._interface import Store
from bot.host.store._rows import (
    SCHEMA_VERSION,
    MessageRow,
    SchemaTooNew,
    message_row,
    message_values,
)
from bot.host.store._sqlite_store_games import SqliteGames
from bot.host.store._sqlite_store_holds import SqliteHolds
from bot.host.store._sqlite_store_play import SqlitePlay
from bot.host.store._sqlite_store_privacy import SqlitePrivacy
from bot.host.store._sqlite_store_ratings import SqliteRatings
from bot.host.store._sqlite_store_schema import MIGRATIONS
from bot.host.store._sqlite_store_servers import SqliteServers
from bot.host.store._sqlite_threads import (
    _in_transaction,
    _nothing,
    _truncate,
    _Worker,
)
from bot.host.store._store_files import write_copy

log = logging.getLogger(__name__)


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


class SqliteStore(SqliteGames, SqlitePlay, SqliteRatings, SqliteServers, SqlitePrivacy,
                  SqliteHolds, Store):
    """The games in a SQLite file. Open with :meth:`open`, close with :meth:`close`.

    Two connections, each owned by a thread of its own: the writer runs each write as ONE job
    (BEGIN IMMEDIATE, the statements, COMMIT; ROLLBACK on any error), so a transaction is one
    round trip, and writes are serialised in the order they were handed in; the reader runs
    the reads (in WAL mode it sees every committed write, never a transaction under way) and
    the checkpoints, so neither waits for a commit. A ``:memory:`` database (one connection
    only) reads on the writer's."""

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
