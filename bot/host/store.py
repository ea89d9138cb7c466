"""The SQLite store: games, seats, the append-only action log, the latest snapshot, and the
ids of the Discord messages that show each game. Every SQL statement of the bot is here.

One file, WAL mode, ``PRAGMA user_version`` for the schema. Every applied action is written with
its snapshot in one transaction (:meth:`Store.append_action`), so a crash leaves an action either
applied or not, never half. The store knows nothing of Discord or of any game's rules: a
message is a *slot* name (``live``, ``ping``, ``screen:red``...) and two ids.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite

from bot.host.clock import Clock, stamp, system_clock

SCHEMA_VERSION = 5
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

_SECRET_SEED = """
ALTER TABLE games ADD COLUMN secret_seed TEXT;
UPDATE games SET secret_seed = CAST(seed AS TEXT);
"""
"""Fair dice: a game's secret seed has 128 bits, more than SQLite's 64-bit INTEGER holds, so it
is kept as decimal TEXT in ``secret_seed``; the old ``seed`` column stays 0 for new games."""

MIGRATIONS: dict[int, str] = {1: _SCHEMA_1, 2: _TURN_TIMERS, 3: _HIDDEN_SEATS, 4: _TABLE,
                              5: _SECRET_SEED}
"""``version -> SQL`` that brings a database from ``version - 1`` to ``version``."""


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

    @property
    def is_ai(self) -> bool:
        return self.user_id is None


@dataclass(frozen=True)
class Snapshot:
    seq: int
    state: dict[str, Any]


@dataclass(frozen=True)
class LogRow:
    """One applied action as stored: ``sealed`` names the seat it is still private to."""

    seq: int
    line: str
    events: list[dict[str, Any]]
    by: str
    sealed: str | None


@dataclass(frozen=True)
class MessageRow:
    """A Discord message the outbox keeps up to date for one game (see :class:`Store`)."""

    slot: str
    channel_id: int
    message_id: int
    digest: str = ""
    stage: str = ""


async def run(db: aiosqlite.Connection, sql: str, params: tuple[Any, ...] = ()) -> int | None:
    """Execute one statement and close its cursor at once (an open cursor blocks COMMIT);
    returns the last inserted row id."""
    async with db.execute(sql, params) as cur:
        return cur.lastrowid


async def migrate(db: aiosqlite.Connection) -> int:
    """Bring the schema to :data:`SCHEMA_VERSION`, one step per transaction; returns the version."""
    async with db.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    version = row[0] if row else 0
    if version > SCHEMA_VERSION:
        raise RuntimeError(
            f"the games database has schema {version}, newer than this bot ({SCHEMA_VERSION})")
    while version < SCHEMA_VERSION:
        version += 1
        await run(db, "BEGIN IMMEDIATE")
        try:
            for statement in MIGRATIONS[version].split(";"):
                if statement.strip():
                    await run(db, statement)
            await run(db, f"PRAGMA user_version = {version}")
            await run(db, "COMMIT")
        except BaseException:
            await run(db, "ROLLBACK")
            raise
    return version


class Store:
    """Async access to the games database. Open with :meth:`open`, close with :meth:`close`."""

    def __init__(self, db: aiosqlite.Connection, clock: Clock) -> None:
        self.db = db
        self.clock = clock
        self._write = asyncio.Lock()
        """One connection serves every game: transactions must not interleave."""

    @classmethod
    async def open(cls, path: str | Path, clock: Clock = system_clock) -> Store:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(str(path), isolation_level=None)
        db.row_factory = aiosqlite.Row
        await run(db, "PRAGMA journal_mode = WAL")
        await run(db, "PRAGMA synchronous = NORMAL")
        await run(db, "PRAGMA foreign_keys = ON")
        await run(db, "PRAGMA busy_timeout = 5000")
        await migrate(db)
        return cls(db, clock)

    async def close(self) -> None:
        await self.db.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN ... COMMIT, or ROLLBACK on any error (cancellation included)."""
        async with self._write:
            await run(self.db, "BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                await run(self.db, "ROLLBACK")
                raise
            await run(self.db, "COMMIT")

    # --- games ---------------------------------------------------------------------------------

    async def create_game(self, *, channel_id: int, guild_id: int | None, game: str,
                          options: str, seed: int, creator_id: int, language: str,
                          ai_level: str, turn_seconds: int | None = None) -> GameRow:
        """A new lobby. Raises :class:`ChannelBusy` if the channel already has an active game."""
        now = stamp(self.clock)
        try:
            async with self.transaction() as db:
                game_id = await run(
                    db, "INSERT INTO games (channel_id, guild_id, game, options, seed,"
                    " secret_seed, status, creator_id, language, ai_level, created_at,"
                    " updated_at, turn_seconds) VALUES (?, ?, ?, ?, 0, ?, 'lobby', ?, ?, ?, ?,"
                    " ?, ?)",
                    (channel_id, guild_id, game, options, str(seed), creator_id, language,
                     ai_level, now, now, turn_seconds))
        except aiosqlite.IntegrityError as exc:
            raise ChannelBusy(channel_id) from exc
        assert game_id is not None
        row = await self.game(game_id)
        assert row is not None
        return row

    async def game(self, game_id: int) -> GameRow | None:
        async with self.db.execute("SELECT * FROM games WHERE id = ?", (game_id,)) as cur:
            row = await cur.fetchone()
        return _game_row(row) if row else None

    async def active_game(self, channel_id: int) -> GameRow | None:
        async with self.db.execute(
                "SELECT * FROM games WHERE channel_id = ? AND status IN ('lobby', 'running')",
                (channel_id,)) as cur:
            row = await cur.fetchone()
        return _game_row(row) if row else None

    async def latest_started(self, channel_id: int) -> GameRow | None:
        """The newest game that started in this channel, or whose table is this thread."""
        async with self.db.execute(
                "SELECT * FROM games WHERE (channel_id = ? OR thread_id = ?)"
                " AND header IS NOT NULL ORDER BY id DESC LIMIT 1",
                (channel_id, channel_id)) as cur:
            row = await cur.fetchone()
        return _game_row(row) if row else None

    async def games_with_status(self, *statuses: str) -> list[GameRow]:
        marks = ", ".join("?" for _ in statuses)
        async with self.db.execute(
                f"SELECT * FROM games WHERE status IN ({marks}) ORDER BY id", statuses) as cur:
            rows = await cur.fetchall()
        return [_game_row(r) for r in rows]

    async def set_status(self, game_id: int, status: str) -> None:
        assert status in STATUSES
        async with self.transaction() as db:
            await run(db, "UPDATE games SET status = ?, updated_at = ? WHERE id = ?",
                      (status, stamp(self.clock), game_id))

    async def start_game(self, game_id: int, header: str, state: dict[str, Any]) -> None:
        """Lobby -> running: the game line is fixed and the initial snapshot (seq 0) written."""
        async with self.transaction() as db:
            await run(db, "UPDATE games SET status = 'running', header = ?, updated_at = ?"
                      " WHERE id = ?", (header, stamp(self.clock), game_id))
            await run(db, "INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                      " VALUES (?, 0, ?)", (game_id, _dump(state)))

    async def set_deadline(self, game_id: int, deadline: str | None) -> None:
        """A new turn deadline (None: nobody is on the clock); its reminder is not sent yet."""
        async with self.transaction() as db:
            await run(db, "UPDATE games SET deadline_at = ?, reminded = 0 WHERE id = ?",
                      (deadline, game_id))

    async def mark_reminded(self, game_id: int) -> None:
        async with self.transaction() as db:
            await run(db, "UPDATE games SET reminded = 1 WHERE id = ?", (game_id,))

    # --- seats ---------------------------------------------------------------------------------

    async def seats(self, game_id: int) -> list[SeatRow]:
        async with self.db.execute(
                "SELECT colour, user_id, ai_level, joined, name, acted_at FROM seats"
                " WHERE game_id = ? ORDER BY joined", (game_id,)) as cur:
            rows = await cur.fetchall()
        return [SeatRow(r["colour"], r["user_id"], r["ai_level"], r["joined"], r["name"],
                        r["acted_at"]) for r in rows]

    async def add_seat(self, game_id: int, colour: str, user_id: int | None,
                       ai_level: str | None, name: str = "") -> None:
        async with self.transaction() as db:
            async with db.execute("SELECT COALESCE(MAX(joined), 0) + 1 FROM seats"
                                  " WHERE game_id = ?", (game_id,)) as cur:
                row = await cur.fetchone()
            assert row is not None
            await run(db, "INSERT INTO seats (game_id, colour, user_id, ai_level, name, joined,"
                      " acted_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                      (game_id, colour, user_id, ai_level, name, row[0],
                       stamp(self.clock) if user_id is not None else None))
            await run(db, "UPDATE games SET updated_at = ? WHERE id = ?",
                      (stamp(self.clock), game_id))

    async def remove_seat(self, game_id: int, colour: str) -> None:
        async with self.transaction() as db:
            await run(db, "DELETE FROM seats WHERE game_id = ? AND colour = ?", (game_id, colour))
            await run(db, "UPDATE games SET updated_at = ? WHERE id = ?",
                      (stamp(self.clock), game_id))

    # --- actions and snapshots -----------------------------------------------------------------

    async def append_action(self, game_id: int, seq: int, line: str, state: dict[str, Any],
                            finished: bool = False, *, events: list[dict[str, Any]] | None = None,
                            by: str = "human", actor: str | None = None,
                            sealed: str | None = None, reveals: bool = False,
                            before_commit: Callable[[], Awaitable[None]] | None = None) -> None:
        """Log row ``seq`` and the snapshot after it, in ONE transaction.

        ``seq`` must be the next number (1 for the first action): a duplicate means two writers
        disagree about the game, and the transaction fails without changing anything.
        ``sealed`` keeps the line private to that seat; ``reveals`` makes every sealed row of
        the game public (the engine's events say both). A human's action (``by="human"``)
        also stamps their seat's ``acted_at``. ``before_commit`` lets tests simulate a crash
        inside the transaction.
        """
        now = stamp(self.clock)
        async with self.transaction() as db:
            await run(db, "INSERT INTO actions (game_id, seq, line, sealed, events, by)"
                      " VALUES (?, ?, ?, ?, ?, ?)",
                      (game_id, seq, line, sealed, _dump(events or []), by))
            if reveals:
                await run(db, "UPDATE actions SET sealed = NULL WHERE game_id = ?"
                          " AND sealed IS NOT NULL", (game_id,))
            await run(db, "INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                      " VALUES (?, ?, ?)", (game_id, seq, _dump(state)))
            status = ", status = 'finished'" if finished else ""
            await run(db, f"UPDATE games SET updated_at = ?{status} WHERE id = ?",
                      (now, game_id))
            if by == "human" and actor is not None:
                await run(db, "UPDATE seats SET acted_at = ? WHERE game_id = ? AND colour = ?",
                          (now, game_id, actor))
            if before_commit is not None:
                await before_commit()

    async def actions(self, game_id: int) -> list[str]:
        """The log in order; a gap in the numbers means a damaged database."""
        async with self.db.execute("SELECT seq, line FROM actions WHERE game_id = ? ORDER BY seq",
                                   (game_id,)) as cur:
            rows = await cur.fetchall()
        if [r["seq"] for r in rows] != list(range(1, len(rows) + 1)):
            raise RuntimeError(f"game {game_id}: the action log has a gap")
        return [r["line"] for r in rows]

    async def log(self, game_id: int) -> list[LogRow]:
        """The whole log with each row's events and secrecy mark, in order."""
        async with self.db.execute("SELECT seq, line, events, by, sealed FROM actions"
                                   " WHERE game_id = ? ORDER BY seq", (game_id,)) as cur:
            rows = await cur.fetchall()
        if [r["seq"] for r in rows] != list(range(1, len(rows) + 1)):
            raise RuntimeError(f"game {game_id}: the action log has a gap")
        return [LogRow(r["seq"], r["line"], json.loads(r["events"]), r["by"], r["sealed"])
                for r in rows]

    async def snapshot(self, game_id: int) -> Snapshot | None:
        async with self.db.execute("SELECT seq, state FROM snapshots WHERE game_id = ?",
                                   (game_id,)) as cur:
            row = await cur.fetchone()
        return Snapshot(row["seq"], json.loads(row["state"])) if row else None

    # --- where a game is shown -----------------------------------------------------------------

    async def set_lobby_message(self, game_id: int, message_id: int) -> None:
        async with self.transaction() as db:
            await run(db, "UPDATE games SET lobby_message_id = ? WHERE id = ?",
                      (message_id, game_id))

    async def set_thread(self, game_id: int, thread_id: int) -> None:
        async with self.transaction() as db:
            await run(db, "UPDATE games SET thread_id = ? WHERE id = ?", (thread_id, game_id))

    async def messages(self, game_id: int) -> dict[str, MessageRow]:
        async with self.db.execute("SELECT slot, channel_id, message_id, digest, stage"
                                   " FROM messages WHERE game_id = ?", (game_id,)) as cur:
            rows = await cur.fetchall()
        return {r["slot"]: MessageRow(r["slot"], r["channel_id"], r["message_id"], r["digest"],
                                      r["stage"]) for r in rows}

    async def set_message(self, game_id: int, row: MessageRow) -> None:
        async with self.transaction() as db:
            await run(db, "INSERT OR REPLACE INTO messages (game_id, slot, channel_id,"
                      " message_id, digest, stage) VALUES (?, ?, ?, ?, ?, ?)",
                      (game_id, row.slot, row.channel_id, row.message_id, row.digest,
                       row.stage))

    async def slot_of(self, message_id: int) -> tuple[int, str] | None:
        """Which game shows this message, and as what; None for any other message."""
        async with self.db.execute("SELECT game_id, slot FROM messages WHERE message_id = ?",
                                   (message_id,)) as cur:
            row = await cur.fetchone()
        return (row["game_id"], row["slot"]) if row else None

    async def drop_message(self, game_id: int, slot: str, message_id: int | None = None) -> None:
        """Forget a slot's message (``message_id``: only if the slot still holds that one)."""
        async with self.transaction() as db:
            if message_id is None:
                await run(db, "DELETE FROM messages WHERE game_id = ? AND slot = ?",
                          (game_id, slot))
            else:
                await run(db, "DELETE FROM messages WHERE game_id = ? AND slot = ?"
                          " AND message_id = ?", (game_id, slot, message_id))

    # --- private side ----------------------------------------------------------------------------

    async def closed_dms(self, game_id: int) -> set[str]:
        """The colours of the game whose DMs were found closed."""
        async with self.db.execute("SELECT colour FROM hidden_seats WHERE game_id = ?"
                                   " AND dm_closed = 1", (game_id,)) as cur:
            rows = await cur.fetchall()
        return {r["colour"] for r in rows}

    async def set_dm_closed(self, game_id: int, colour: str, closed: bool) -> None:
        async with self.transaction() as db:
            await run(db, "INSERT INTO hidden_seats (game_id, colour, dm_closed) VALUES (?, ?, ?)"
                      " ON CONFLICT (game_id, colour) DO UPDATE SET dm_closed = excluded.dm_closed",
                      (game_id, colour, int(closed)))

    # --- server settings -------------------------------------------------------------------------

    async def threads_allowed(self, guild_id: int | None) -> bool:
        """Whether games in this server get a thread of their own (on unless turned off)."""
        if guild_id is None:
            return False
        async with self.db.execute("SELECT threads FROM guild_settings WHERE guild_id = ?",
                                   (guild_id,)) as cur:
            row = await cur.fetchone()
        return bool(row[0]) if row else True

    async def set_threads_allowed(self, guild_id: int, allowed: bool) -> None:
        async with self.transaction() as db:
            await run(db, "INSERT INTO guild_settings (guild_id, threads) VALUES (?, ?)"
                      " ON CONFLICT (guild_id) DO UPDATE SET threads = excluded.threads",
                      (guild_id, int(allowed)))


def _dump(state: Any) -> str:
    return json.dumps(state, separators=(",", ":"), ensure_ascii=False, default=list)


class ChannelBusy(Exception):
    """The channel already has a game in its lobby or running."""


def _game_row(row: aiosqlite.Row) -> GameRow:
    values = {key: row[key] for key in row.keys()}  # noqa: SIM118 - Row is no dict
    secret = values.pop("secret_seed")
    values["seed"] = int(secret) if secret is not None else values["seed"]
    return GameRow(**values)
