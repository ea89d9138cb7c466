"""The PostgreSQL backend of the store (``asyncpg``): several bot processes over one server.

Two pools of connections, sized by ``pool_size``: one runs the statements (it never takes a
lock or listens, so handing a connection back costs no round trip), the other holds game
locks (``pg_advisory_lock`` on a connection kept for the block; handing it back unlocks
everything it held, and a connection that dies takes its locks with it). A third, single
connection listens for the other processes' notifications.

Every write that changes a game sends ``NOTIFY rapanui_games, '<game id>:<store token>'`` in
its own transaction (PostgreSQL delivers it at COMMIT), so the other processes hear of it and
this one can tell its own changes apart. An applied action is ONE statement (log row, reveal,
snapshot, game, seat and notification as data-modifying CTEs): one round trip.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from contextlib import asynccontextmanager, suppress
from datetime import timedelta
from typing import Any

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from bot.host.clock import Clock, iso, stamp, system_clock
from bot.host.store._interface import Listener, Store, Transaction
from bot.host.store._postgres_store_schema import MIGRATIONS, VERSION_TABLE
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
    EVERY_GAME,
    FORMER_ID,
    FORMER_PLAYER,
    GAME_TABLES,
    SCHEMA_VERSION,
    STATUSES,
    Absence,
    ActiveGame,
    ChannelBusy,
    DatabaseInfo,
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

log = logging.getLogger(__name__)

Connection = asyncpg.Connection | PoolConnectionProxy
"""A connection of its own or one lent by a pool: both run statements alike."""

CHANNEL = "rapanui_games"
"""The one notification channel: every change of a game, payload ``<game id>:<token>``."""
DEFAULT_POOL_SIZE = 10
"""Most connections of each pool (statements, game locks); at least two are kept open."""
APPLICATION = "rapanui-games"
LISTENER = "rapanui-games listener"
"""The ``application_name`` of the store's connections, and of the listening one."""
MIGRATION_LOCK = -0x7261706E
"""The advisory lock key held while migrating: negative, so no game id (a game's lock key is
its id) ever meets it."""
RATINGS_LOCK = 0x72617469
"""The first key of the transaction lock that serialises rating updates of one server and
game (the second is a hash of both): two games finishing at once must not both start from
the same ratings."""
CLOSE_LOCKS_WITHIN = 10.0
"""Seconds :meth:`PostgresStore.close` waits for the game locks to be handed back before it
cuts their connections (the server then drops the locks)."""
RECONNECT_AFTER = (0.0, 1.0, 2.0, 5.0, 10.0, 30.0)
"""Seconds before each try to open the listening connection again (the last one repeats)."""

_LOG = 'SELECT seq, line, events, "by", sealed FROM actions'
_ACTIVE_IDS = "(SELECT id FROM games WHERE status IN ('lobby', 'running'))"


def _tell(n: int) -> str:
    """The statement's last part: the notification whose payload is parameter ``n``."""
    return f"SELECT pg_notify('{CHANNEL}', ${n})"


def _changing(sql: str, n: int) -> str:
    """One statement that changes a game, and its notification (parameter ``n``): one round
    trip."""
    return f"WITH changed AS ({sql}) {_tell(n)}"


_APPEND = f"""
WITH logged AS (
    INSERT INTO actions (game_id, seq, line, sealed, events, "by")
    VALUES ($1, $2, $3, $4::text, $5, $6)
    RETURNING game_id
), revealed AS (
    UPDATE actions SET sealed = NULL WHERE $7::boolean AND game_id = $1 AND sealed IS NOT NULL
), saved AS (
    INSERT INTO snapshots (game_id, seq, state) VALUES ($1, $2, $8)
    ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, state = excluded.state
    WHERE snapshots.seq <= excluded.seq
), touched AS (
    UPDATE games SET updated_at = $9,
        status = CASE WHEN $10::boolean THEN 'finished' ELSE status END
    WHERE id = $1
), seated AS (
    UPDATE seats SET acted_at = $13::text, timeouts = $14::integer, away = $15::integer
    WHERE game_id = $1 AND colour = $11::text
)
SELECT pg_notify('{CHANNEL}', $12) FROM logged
"""
"""Log row, reveal (the older sealed rows are made public), snapshot (never replaced by an older
one), game, the acting seat's values as given (``$11`` None: none) and notification: the whole
of :meth:`Store.append_action` in one statement. The new row is invisible to the other parts
(they all see the statement's snapshot): it is written with the secrecy the host gave it."""


_MARKS = """
SELECT g.*, COALESCE(s.seq, 0) AS mark_seq,
    (SELECT COUNT(*) FROM takebacks AS t WHERE t.game_id = g.id) AS mark_takebacks,
    (SELECT COUNT(*) FROM seat_changes AS c WHERE c.game_id = g.id) AS mark_changes,
    (SELECT json_agg(json_build_array(colour, user_id, ai_level, away)) FROM seats
     WHERE seats.game_id = g.id)::text AS mark_seats,
    ARRAY(SELECT colour FROM hidden_seats AS h WHERE h.game_id = g.id AND h.dm_closed = 1)
        AS mark_closed
FROM games AS g LEFT JOIN snapshots AS s ON s.game_id = g.id WHERE g.id = ANY($1::bigint[])
"""
"""Each game's :class:`GameMark` parts, for :meth:`PostgresStore.stored_marks`."""


def numbered(sql: str) -> str:
    """SQL written with ``?`` for each parameter (as SQLite takes it) in PostgreSQL's
    ``$1, $2, ...`` (a ``?`` inside a quoted string stays)."""
    out, count, quoted = [], 0, False
    for char in sql:
        if char == "'":
            quoted = not quoted
        if char == "?" and not quoted:
            count += 1
            out.append(f"${count}")
        else:
            out.append(char)
    return "".join(out)


def _count(status: str) -> int:
    """The rows a statement touched, from its status (``UPDATE 3``)."""
    last = status.rpartition(" ")[2]
    return int(last) if last.isdecimal() else 0


async def _keep(connection: asyncpg.Connection) -> None:
    """Handing a statement connection back to its pool: nothing to reset (asyncpg rolls back a
    transaction left open on its own); the default reset would cost a round trip each time."""


async def _unlock_all(connection: asyncpg.Connection) -> None:
    """Handing a lock connection back to its pool: every lock it holds goes."""
    await connection.execute("SELECT pg_advisory_unlock_all()")


async def migrate(db: Connection) -> int:
    """Bring the schema to :data:`SCHEMA_VERSION`, one step per transaction, under the
    migration lock (a second process starting at once waits, then finds nothing to do);
    returns the version. Raises :class:`SchemaTooNew` for a database of a newer bot."""
    await db.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        await db.execute(VERSION_TABLE)
        version = before = await db.fetchval("SELECT version FROM schema_version") or 0
        if version > SCHEMA_VERSION:
            raise SchemaTooNew(f"the games database has schema {version}, newer than this "
                               f"bot ({SCHEMA_VERSION})")
        while version < SCHEMA_VERSION:
            version += 1
            async with db.transaction():
                await db.execute(MIGRATIONS[version])
                await db.execute("INSERT INTO schema_version (one, version) VALUES (TRUE, $1)"
                                 " ON CONFLICT (one) DO UPDATE SET version = excluded.version",
                                 version)
    finally:
        await db.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
    if before == 0:
        log.info("new database: schema %s created", version)
    elif version != before:
        log.info("database migrated from schema %s to %s (no backup: PostgreSQL's is "
                 "pg_dump's)", before, version)
    return int(version)


class PostgresTransaction(Transaction):
    """A transaction on one connection of the pool, held for the block."""

    def __init__(self, db: Connection) -> None:
        self._db = db

    async def run(self, sql: str, params: tuple[Any, ...] = ()) -> int | None:
        await self._db.execute(numbered(sql), *params)
        return None

    async def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return list(await self._db.fetch(numbered(sql), *params))


class PostgresStore(Store):
    """The games in a PostgreSQL database, shared with other bot processes. Open with
    :meth:`open`, close with :meth:`close`."""

    def __init__(self, pool: asyncpg.Pool, locks: asyncpg.Pool, url: str,
                 clock: Clock) -> None:
        self._pool = pool
        self._locks = locks
        self._url = url
        self.clock = clock
        self.token = uuid.uuid4().hex[:16]
        """This store's mark on its notifications (the listener skips its own)."""
        self._closed = False
        self._callbacks: list[Listener] = []
        self._listening: asyncpg.Connection | None = None
        self._reconnecting: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, url: str, clock: Clock = system_clock, *,
                   pool_size: int = DEFAULT_POOL_SIZE) -> PostgresStore:
        """Connect (``pool_size``: most connections of each pool, 1 or more) and migrate."""
        if pool_size < 1:
            raise ValueError(f"pool_size must be 1 or more, not {pool_size}")
        settings = {"application_name": APPLICATION}
        pool = await asyncpg.create_pool(url, min_size=min(2, pool_size), max_size=pool_size,
                                         reset=_keep, server_settings=settings)
        try:
            async with pool.acquire() as db:
                await migrate(db)
            locks = await asyncpg.create_pool(url, min_size=0, max_size=pool_size,
                                              reset=_unlock_all, server_settings=settings)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, locks, url, clock)

    @property
    def shared(self) -> bool:
        return True

    @property
    def _db(self) -> asyncpg.Pool:
        if self._closed:
            raise StoreClosed("the store is closed")
        return self._pool

    def _told(self, game_id: int) -> str:
        """The payload that says this store changed that game."""
        return f"{game_id}:{self.token}"

    async def close(self) -> None:
        """Close once every connection lent is back (a held transaction ends first)."""
        if self._closed:
            return
        self._closed = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            with suppress(asyncio.CancelledError):
                await self._reconnecting
        if self._listening is not None:
            listening, self._listening = self._listening, None
            listening.remove_termination_listener(self._dropped)
            await listening.close()
        try:  # a block holding a lock ends soon; one still waiting for a lock may not
            await asyncio.wait_for(self._locks.close(), CLOSE_LOCKS_WITHIN)
        except TimeoutError:
            log.warning("closing the store: game locks still held or awaited after %s s; "
                        "their connections are cut", CLOSE_LOCKS_WITHIN)
            self._locks.terminate()
        await self._pool.close()

    async def _rows(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        return await self._db.fetch(sql, *args)

    async def _row(self, sql: str, *args: Any) -> asyncpg.Record | None:
        return await self._db.fetchrow(sql, *args)

    async def _execute(self, sql: str, *args: Any) -> str:
        return await self._db.execute(sql, *args)

    async def _change(self, sql: str, game_id: int, *args: Any) -> None:
        """``sql`` (``$1`` the game id, ``$2``... ``args``) and the game's notification, in one
        statement."""
        await self._db.execute(_changing(sql, len(args) + 2), game_id, *args,
                               self._told(game_id))

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Connection]:
        async with self._db.acquire() as db, db.transaction():
            yield db

    async def _notify(self, db: Connection, game_id: int) -> None:
        await db.execute(_tell(1), self._told(game_id))

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        async with self._transaction() as db:
            yield PostgresTransaction(db)

    # --- several processes -----------------------------------------------------------------------

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        """``pg_advisory_lock(game_id)`` on a connection of the lock pool, kept for the block;
        handing it back unlocks. A connection lost meanwhile lost its lock with it: that is
        logged, not raised (what the block wrote is committed, and a stale write meets
        :class:`StaleGame`)."""
        if self._closed:
            raise StoreClosed("the store is closed")
        db = await self._locks.acquire()
        try:
            await db.execute("SELECT pg_advisory_lock($1)", game_id)
            yield
        finally:
            try:
                lost = db.is_closed()
            except asyncpg.InterfaceError:  # it closed, and went back to the pool on its own
                lost = True
            try:
                await self._locks.release(db)
            except Exception:  # a broken connection fails its reset in more ways than one;
                lost = True    # the pool closes it, and the server drops its locks
            if lost:
                log.warning("game %s: its lock's connection was lost while the lock was held",
                            game_id)

    async def stored_seq(self, game_id: int) -> int:
        seq = await self._db.fetchval("SELECT seq FROM snapshots WHERE game_id = $1", game_id)
        return int(seq) if seq is not None else 0

    async def stored_marks(self, game_ids: Collection[int]) -> dict[int, GameMark]:
        rows = await self._rows(_MARKS, list(game_ids))
        return {r["id"]: stored_mark(r) for r in rows}

    async def load_game(self, game_id: int, after: int = 0) -> ActiveGame | None:
        """The queries of :meth:`load_active` for one game, in one read-only REPEATABLE READ
        transaction."""
        async with self._db.acquire() as db, db.transaction(isolation="repeatable_read",
                                                            readonly=True):
            games = [game_row(r) for r in await db.fetch("SELECT * FROM games WHERE id = $1",
                                                         game_id)]
            if not games:
                return None
            read = ActiveRows(
                games,
                await db.fetch("SELECT game_id, colour, user_id, ai_level, joined, name,"
                               " acted_at, timeouts, away, was_human FROM seats"
                               " WHERE game_id = $1 ORDER BY joined", game_id),
                await db.fetch("SELECT game_id, colour FROM hidden_seats WHERE dm_closed = 1"
                               " AND game_id = $1", game_id),
                await db.fetch("SELECT game_id, seq, colour, what, user_id, old_id, by_id, at"
                               " FROM seat_changes WHERE game_id = $1 ORDER BY n", game_id),
                await db.fetch("SELECT game_id, seq, state FROM snapshots WHERE game_id = $1",
                               game_id),
                await db.fetch("SELECT game_id, after_seq, colour, steps, taken_at FROM"
                               " takebacks WHERE game_id = $1 ORDER BY number", game_id),
                await db.fetch('SELECT game_id, seq, line, events, "by", sealed FROM actions'
                               " WHERE game_id = $1 AND seq > $2 ORDER BY seq", game_id, after))
        return assemble(read, after)[0]

    async def seated_games(self, user_id: int) -> set[int]:
        rows = await self._rows("SELECT DISTINCT seats.game_id FROM seats JOIN games"
                                " ON games.id = seats.game_id WHERE seats.user_id = $1"
                                " AND games.status IN ('lobby', 'running')", user_id)
        return {r[0] for r in rows}

    async def listen(self, callback: Listener) -> None:
        """The first call opens the listening connection."""
        self._callbacks.append(callback)
        if self._listening is None and self._reconnecting is None:
            await self._listen()

    async def _listen(self) -> None:
        if self._closed:
            raise StoreClosed("the store is closed")
        db = await asyncpg.connect(self._url, server_settings={"application_name": LISTENER})
        try:
            await db.add_listener(CHANNEL, self._heard)
        except BaseException:
            await db.close()
            raise
        db.add_termination_listener(self._dropped)
        self._listening = db

    def _heard(self, db: object, pid: int, channel: str, payload: object) -> None:
        game, _, token = str(payload).partition(":")
        if token == self.token or not game.isdecimal():
            return  # our own change, or nothing a store of ours sent
        self._call(int(game))

    def _call(self, game_id: int) -> None:
        for callback in list(self._callbacks):
            try:
                callback(game_id)
            except Exception:
                log.exception("a store listener failed on game %s", game_id)

    def _dropped(self, db: object) -> None:
        """The listening connection closed under us: open it again, in the background."""
        if self._closed or db is not self._listening:
            return
        self._listening = None
        log.warning("the store's listening connection dropped; opening it again")
        self._reconnecting = asyncio.get_running_loop().create_task(
            self._reconnect(), name="store listener")

    async def _reconnect(self) -> None:
        for attempt in itertools.count():
            delay = RECONNECT_AFTER[min(attempt, len(RECONNECT_AFTER) - 1)]
            if delay:
                await asyncio.sleep(delay)
            try:
                await self._listen()
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError,
                    TimeoutError) as exc:
                log.warning("the store's listening connection: %s; trying again", exc)
                continue
            break
        self._reconnecting = None
        self._call(EVERY_GAME)  # what was sent meanwhile went unheard

    async def claim_deadline(self, game_id: int, deadline_at: str) -> bool:
        if not is_due(deadline_at, self.clock()):
            return False
        later = iso(self.clock() + timedelta(seconds=CLAIM_LEASE))
        rows = await self._rows(
            "WITH claimed AS (UPDATE games SET deadline_at = $3, reminded = 1 WHERE id = $1"
            " AND deadline_at = $2 AND status = 'running' AND paused_by IS NULL RETURNING id)"
            f" SELECT pg_notify('{CHANNEL}', $4) FROM claimed",
            game_id, deadline_at, later, self._told(game_id))
        return len(rows) == 1

    async def claim_reminder(self, game_id: int, deadline_at: str) -> bool:
        rows = await self._rows(
            "WITH claimed AS (UPDATE games SET reminded = 1 WHERE id = $1 AND deadline_at = $2"
            " AND reminded = 0 AND status = 'running' AND paused_by IS NULL RETURNING id)"
            f" SELECT pg_notify('{CHANNEL}', $3) FROM claimed",
            game_id, deadline_at, self._told(game_id))
        return len(rows) == 1

    # --- running instances -----------------------------------------------------------------------

    async def start_heartbeat(self, instance: str, pid: int, host: str, *,
                              shard_count: int | None = None,
                              shard_ids: Sequence[int] = ()) -> None:
        now = stamp(self.clock)
        await self._execute(
            "WITH gone AS (DELETE FROM heartbeat WHERE host = $3 AND pid = $2"
            " AND instance <> $1)"
            " INSERT INTO heartbeat (instance, pid, host, started_at, beat_at, shard_count,"
            " shard_ids) VALUES ($1, $2, $3, $4, $4, $5, $6) ON CONFLICT (instance) DO UPDATE"
            " SET pid = excluded.pid, host = excluded.host, started_at = excluded.started_at,"
            " beat_at = excluded.beat_at, shard_count = excluded.shard_count,"
            " shard_ids = excluded.shard_ids",
            instance, pid, host, now, shard_count, shard_column(shard_ids))

    async def beat(self, instance: str) -> None:
        await self._execute("UPDATE heartbeat SET beat_at = $1 WHERE instance = $2",
                            stamp(self.clock), instance)

    async def end_heartbeat(self, instance: str) -> None:
        await self._execute("DELETE FROM heartbeat WHERE instance = $1", instance)

    async def heartbeats(self) -> list[Heartbeat]:
        rows = await self._rows("SELECT * FROM heartbeat ORDER BY beat_at DESC")
        return [heartbeat(row) for row in rows]

    # --- whose games these are --------------------------------------------------------------------

    async def application_id(self) -> int | None:
        found = await self._db.fetchval("SELECT application_id FROM discord_application")
        return None if found is None else int(found)

    async def claim_application(self, application_id: int) -> int | None:
        async with self._transaction() as db:
            recorded = await db.fetchval(
                "INSERT INTO discord_application (one, application_id, recorded_at)"
                " VALUES (1, $1, $2) ON CONFLICT (one) DO NOTHING RETURNING application_id",
                application_id, stamp(self.clock))
            if recorded is not None:
                return None
            found = await db.fetchval("SELECT application_id FROM discord_application")
        return int(found)

    async def set_application(self, application_id: int) -> int | None:
        async with self._transaction() as db:
            before = await db.fetchval("SELECT application_id FROM discord_application"
                                       " FOR UPDATE")
            await db.execute("INSERT INTO discord_application (one, application_id,"
                             " recorded_at) VALUES (1, $1, $2) ON CONFLICT (one) DO UPDATE SET"
                             " application_id = excluded.application_id,"
                             " recorded_at = excluded.recorded_at",
                             application_id, stamp(self.clock))
        return None if before is None else int(before)

    async def ping(self) -> None:
        await self._rows("SELECT 1")

    # --- where the slash commands are ------------------------------------------------------------

    async def synced_guilds(self) -> set[int]:
        return {r["guild_id"] for r in await self._rows("SELECT guild_id FROM synced_guilds")}

    async def set_synced_guild(self, guild_id: int, synced: bool) -> None:
        if synced:
            await self._execute("INSERT INTO synced_guilds (guild_id, synced_at) VALUES ($1, $2)"
                                " ON CONFLICT (guild_id) DO UPDATE SET"
                                " synced_at = excluded.synced_at", guild_id, stamp(self.clock))
        else:
            await self._execute("DELETE FROM synced_guilds WHERE guild_id = $1", guild_id)

    # --- games -----------------------------------------------------------------------------------

    async def create_game(self, *, channel_id: int, guild_id: int | None, game: str,
                          options: str, seed: int, creator_id: int, language: str,
                          ai_level: str, turn_seconds: int | None = None) -> GameRow:
        now = stamp(self.clock)
        try:
            row = await self._row(
                "WITH made AS (INSERT INTO games (channel_id, guild_id, game, options, seed,"
                " secret_seed, status, creator_id, language, ai_level, created_at, updated_at,"
                " turn_seconds) VALUES ($1, $2, $3, $4, 0, $5, 'lobby', $6, $7, $8, $9, $9, $10)"
                f" RETURNING *) SELECT made.*, pg_notify('{CHANNEL}', made.id::text || ':' || $11)"
                " AS notified FROM made",
                channel_id, guild_id, game, options, str(seed), creator_id, language, ai_level,
                now, turn_seconds, self.token)
        except asyncpg.UniqueViolationError as exc:
            raise ChannelBusy(channel_id) from exc
        assert row is not None
        return game_row({key: value for key, value in row.items() if key != "notified"})

    async def game(self, game_id: int) -> GameRow | None:
        row = await self._row("SELECT * FROM games WHERE id = $1", game_id)
        return game_row(row) if row else None

    async def active_game(self, channel_id: int) -> GameRow | None:
        row = await self._row(
            "SELECT * FROM games WHERE channel_id = $1 AND status IN ('lobby', 'running')",
            channel_id)
        return game_row(row) if row else None

    async def latest_started(self, channel_id: int) -> GameRow | None:
        row = await self._row(
            "SELECT * FROM games WHERE (channel_id = $1 OR thread_id = $1)"
            " AND header IS NOT NULL ORDER BY id DESC LIMIT 1", channel_id)
        return game_row(row) if row else None

    async def games_with_status(self, *statuses: str) -> list[GameRow]:
        rows = await self._rows("SELECT * FROM games WHERE status = ANY($1::text[])"
                                " ORDER BY id", list(statuses))
        return [game_row(r) for r in rows]

    async def set_status(self, game_id: int, status: str) -> None:
        assert status in STATUSES
        await self._change("UPDATE games SET status = $2, updated_at = $3 WHERE id = $1",
                           game_id, status, stamp(self.clock))

    async def start_game(self, game_id: int, header: str, state: dict[str, Any]) -> None:
        await self._execute(
            "WITH started AS (UPDATE games SET status = 'running', header = $2,"
            " updated_at = $3 WHERE id = $1), saved AS (INSERT INTO snapshots (game_id, seq,"
            " state) VALUES ($1, 0, $4) ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq,"
            f" state = excluded.state) {_tell(5)}",
            game_id, header, stamp(self.clock), dump(state), self._told(game_id))

    async def set_deadline(self, game_id: int, deadline: str | None) -> None:
        await self._change("UPDATE games SET deadline_at = $2, reminded = 0 WHERE id = $1",
                           game_id, deadline)

    async def mark_reminded(self, game_id: int) -> None:
        await self._change("UPDATE games SET reminded = 1 WHERE id = $1", game_id)

    async def set_paused(self, game_id: int, paused_by: int | None, left: int | None,
                         deadline: str | None) -> None:
        await self._change("UPDATE games SET paused_by = $2, paused_left = $3,"
                           " deadline_at = $4, updated_at = $5 WHERE id = $1",
                           game_id, paused_by, left, deadline, stamp(self.clock))

    async def set_turn_time(self, game_id: int, seconds: int | None, deadline: str | None,
                            left: int | None) -> None:
        await self._change("UPDATE games SET turn_seconds = $2, deadline_at = $3,"
                           " paused_left = $4, reminded = 0, updated_at = $5 WHERE id = $1",
                           game_id, seconds, deadline, left, stamp(self.clock))

    # --- seats -----------------------------------------------------------------------------------

    async def seats(self, game_id: int) -> list[Seat]:
        rows = await self._rows(
            "SELECT colour, user_id, ai_level, joined, name, acted_at, timeouts, away,"
            " was_human FROM seats WHERE game_id = $1 ORDER BY joined", game_id)
        return [Seat(r["colour"], r["user_id"], r["ai_level"], r["name"], r["acted_at"],
                     r["timeouts"], bool(r["away"]), bool(r["was_human"]), r["joined"])
                for r in rows]

    async def add_seat(self, game_id: int, colour: str, user_id: int | None,
                       ai_level: str | None, name: str = "") -> None:
        now = stamp(self.clock)
        await self._execute(
            "WITH seated AS (INSERT INTO seats (game_id, colour, user_id, ai_level, name,"
            " joined, acted_at) SELECT $1::bigint, $2::text, $3::bigint, $4::text, $5::text,"
            " COALESCE(MAX(joined), 0) + 1, $6::text FROM seats WHERE game_id = $1),"
            f" touched AS (UPDATE games SET updated_at = $7 WHERE id = $1) {_tell(8)}",
            game_id, colour, user_id, ai_level, name, now if user_id is not None else None,
            now, self._told(game_id))

    async def remove_seat(self, game_id: int, colour: str,
                          change: SeatChangeRow | None = None) -> None:
        now = stamp(self.clock)
        async with self._transaction() as db:
            await db.execute("DELETE FROM seats WHERE game_id = $1 AND colour = $2",
                             game_id, colour)
            await db.execute("UPDATE games SET updated_at = $1 WHERE id = $2", now, game_id)
            if change is not None:
                await _add_change(db, game_id, change, now)
            await self._notify(db, game_id)

    async def change_seat(self, game_id: int, colour: str, change: SeatChangeRow, *,
                          user_id: int | None, ai_level: str | None, name: str = "") -> None:
        now = stamp(self.clock)
        async with self._transaction() as db:
            await db.execute(
                "UPDATE seats SET user_id = $3, ai_level = $4,"
                " name = CASE WHEN $3::bigint IS NULL THEN name ELSE $5 END,"
                " acted_at = $6, was_human = CASE WHEN user_id IS NULL THEN was_human"
                " ELSE 1 END WHERE game_id = $1 AND colour = $2",
                game_id, colour, user_id, ai_level, name, now if user_id is not None else None)
            await db.execute("UPDATE hidden_seats SET dm_closed = 0 WHERE game_id = $1"
                             " AND colour = $2", game_id, colour)
            await db.execute("UPDATE games SET updated_at = $1 WHERE id = $2", now, game_id)
            await _add_change(db, game_id, change, now)
            await self._notify(db, game_id)

    async def seat_changes(self, game_id: int) -> list[SeatChangeRow]:
        rows = await self._rows("SELECT seq, colour, what, user_id, old_id, by_id, at"
                                " FROM seat_changes WHERE game_id = $1 ORDER BY n", game_id)
        return [SeatChangeRow(*r) for r in rows]

    async def set_away(self, game_id: int, colour: str, away: bool, timeouts: int) -> None:
        await self._change("UPDATE seats SET away = $3, timeouts = $4 WHERE game_id = $1"
                           " AND colour = $2", game_id, colour, int(away), timeouts)

    # --- actions and snapshots -------------------------------------------------------------------

    async def append_action(self, game_id: int, seq: int, line: str, state: dict[str, Any],
                            finished: bool = False, *, events: list[dict[str, Any]] | None = None,
                            by: str = "human", seat: Seat | None = None,
                            sealed: str | None = None, reveals: bool = False,
                            before_commit: Callable[[], None] | None = None) -> None:
        """One statement, one round trip; with ``before_commit``, that statement inside an
        explicit transaction (for tests: BEGIN and COMMIT cost two more)."""
        args = (game_id, seq, line, sealed, dump(events or []), by, reveals, dump(state),
                stamp(self.clock), finished, seat.colour if seat else None,
                self._told(game_id), seat.acted_at if seat else None,
                seat.timeouts if seat else 0, int(seat.away) if seat else 0)
        try:
            if before_commit is None:
                await self._db.execute(_APPEND, *args)
            else:
                async with self._transaction() as db:
                    await db.execute(_APPEND, *args)
                    before_commit()
        except asyncpg.UniqueViolationError as exc:
            if exc.constraint_name == "actions_pkey":
                raise StaleGame(game_id, seq) from exc
            raise

    async def actions(self, game_id: int) -> list[str]:
        rows = await self._rows("SELECT seq, line FROM actions WHERE game_id = $1 ORDER BY seq",
                                game_id)
        damage = gap(game_id, [r["seq"] for r in rows])
        if damage:
            raise RuntimeError(damage)
        return [r["line"] for r in rows]

    async def log(self, game_id: int) -> list[LogRow]:
        rows = await self._rows(_LOG + " WHERE game_id = $1 ORDER BY seq", game_id)
        damage = gap(game_id, [r[0] for r in rows])
        if damage:
            raise RuntimeError(damage)
        return [log_row(r) for r in rows]

    async def take_back(self, game_id: int, at: int, expect_seq: int, colour: str,
                        state: dict[str, Any], seat: Seat | None = None) -> None:
        """The game's row is locked first: an action applied meanwhile by another process
        waits for it, or came first and makes the log end elsewhere."""
        now = stamp(self.clock)
        async with self._transaction() as db:
            await db.execute("SELECT id FROM games WHERE id = $1 FOR UPDATE", game_id)
            rows = await db.fetch(_LOG + " WHERE game_id = $1 AND seq > $2 ORDER BY seq",
                                  game_id, at)
            if [r["seq"] for r in rows] != list(range(at + 1, expect_seq + 1)) or not rows:
                raise RuntimeError(f"game {game_id}: the log does not end at {expect_seq}")
            await db.execute(
                "INSERT INTO takebacks (game_id, number, after_seq, colour, steps, taken_at)"
                " SELECT $1::bigint, COALESCE(MAX(number), 0) + 1, $2::integer, $3::text,"
                " $4::text, $5::text FROM takebacks WHERE game_id = $1",
                game_id, at, colour, kept_steps(rows), now)
            await db.execute("DELETE FROM actions WHERE game_id = $1 AND seq > $2", game_id, at)
            await db.execute("INSERT INTO snapshots (game_id, seq, state) VALUES ($1, $2, $3)"
                             " ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq,"
                             " state = excluded.state", game_id, at, dump(state))
            await db.execute("UPDATE games SET updated_at = $1 WHERE id = $2", now, game_id)
            if seat is not None:
                await db.execute("UPDATE seats SET acted_at = $1, timeouts = $2, away = $3"
                                 " WHERE game_id = $4 AND colour = $5", seat.acted_at,
                                 seat.timeouts, int(seat.away), game_id, seat.colour)
            await self._notify(db, game_id)

    async def takebacks(self, game_id: int) -> list[TakebackRow]:
        rows = await self._rows("SELECT after_seq, colour, steps, taken_at FROM takebacks"
                                " WHERE game_id = $1 ORDER BY number", game_id)
        return [takeback(*r) for r in rows]

    async def snapshot(self, game_id: int) -> Snapshot | None:
        row = await self._row("SELECT seq, state FROM snapshots WHERE game_id = $1", game_id)
        return Snapshot(row["seq"], _loads(row["state"])) if row else None

    async def write_snapshot(self, game_id: int, seq: int, state: dict[str, Any]) -> None:
        await self._change("INSERT INTO snapshots (game_id, seq, state) VALUES ($1, $2, $3)"
                           " ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq,"
                           " state = excluded.state", game_id, seq, dump(state))

    async def load_active(self) -> list[ActiveGame]:
        """One query a table, in one read-only REPEATABLE READ transaction (one moment)."""
        async with self._db.acquire() as db, db.transaction(isolation="repeatable_read",
                                                            readonly=True):
            games = [game_row(r) for r in await db.fetch(
                "SELECT * FROM games WHERE status IN ('lobby', 'running') ORDER BY id")]
            read = ActiveRows(
                games,
                await db.fetch("SELECT game_id, colour, user_id, ai_level, joined, name,"
                               " acted_at, timeouts, away, was_human FROM seats"
                               f" WHERE game_id IN {_ACTIVE_IDS} ORDER BY game_id, joined"),
                await db.fetch("SELECT game_id, colour FROM hidden_seats WHERE dm_closed = 1"
                               f" AND game_id IN {_ACTIVE_IDS}"),
                await db.fetch("SELECT game_id, seq, colour, what, user_id, old_id, by_id, at"
                               f" FROM seat_changes WHERE game_id IN {_ACTIVE_IDS}"
                               " ORDER BY game_id, n"),
                await db.fetch("SELECT game_id, seq, state FROM snapshots"
                               f" WHERE game_id IN {_ACTIVE_IDS}"),
                await db.fetch("SELECT game_id, after_seq, colour, steps, taken_at FROM"
                               f" takebacks WHERE game_id IN {_ACTIVE_IDS}"
                               " ORDER BY game_id, number"),
                await db.fetch('SELECT game_id, seq, line, events, "by", sealed FROM actions'
                               f" WHERE game_id IN {_ACTIVE_IDS} ORDER BY game_id, seq"))
        return assemble(read)

    # --- where a game is shown -------------------------------------------------------------------

    async def set_lobby_message(self, game_id: int, message_id: int | None) -> None:
        await self._change("UPDATE games SET lobby_message_id = $2 WHERE id = $1",
                           game_id, message_id)

    async def set_thread(self, game_id: int, thread_id: int) -> None:
        await self._change("UPDATE games SET thread_id = $2 WHERE id = $1", game_id, thread_id)

    async def messages(self, game_id: int) -> dict[str, MessageRow]:
        rows = await self._rows("SELECT slot, channel_id, message_id, digest, stage,"
                                " stage_start, holder, turn, mentions, reminder"
                                " FROM messages WHERE game_id = $1", game_id)
        return {r["slot"]: message_row(r) for r in rows}

    async def set_message(self, game_id: int, row: MessageRow) -> None:
        """No notification: which message shows a slot is the bookkeeping of the process that
        shows the table, nobody else's."""
        await self._execute(
            "INSERT INTO messages (game_id, slot, channel_id, message_id, digest, stage,"
            " stage_start, holder, turn, mentions, reminder)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
            " ON CONFLICT (game_id, slot) DO UPDATE SET"
            " channel_id = excluded.channel_id, message_id = excluded.message_id,"
            " digest = excluded.digest, stage = excluded.stage,"
            " stage_start = excluded.stage_start, holder = excluded.holder,"
            " turn = excluded.turn, mentions = excluded.mentions,"
            " reminder = excluded.reminder",
            game_id, *message_values(row))

    async def slot_of(self, message_id: int) -> tuple[int, str] | None:
        row = await self._row("SELECT game_id, slot FROM messages WHERE message_id = $1",
                              message_id)
        return (row["game_id"], row["slot"]) if row else None

    async def drop_message(self, game_id: int, slot: str, message_id: int | None = None) -> None:
        if message_id is None:
            await self._execute("DELETE FROM messages WHERE game_id = $1 AND slot = $2",
                                game_id, slot)
        else:
            await self._execute("DELETE FROM messages WHERE game_id = $1 AND slot = $2"
                                " AND message_id = $3", game_id, slot, message_id)

    # --- private side ----------------------------------------------------------------------------

    async def closed_dms(self, game_id: int) -> set[str]:
        rows = await self._rows("SELECT colour FROM hidden_seats WHERE game_id = $1"
                                " AND dm_closed = 1", game_id)
        return {r["colour"] for r in rows}

    async def set_dm_closed(self, game_id: int, colour: str, closed: bool) -> None:
        await self._change(
            "INSERT INTO hidden_seats (game_id, colour, dm_closed) VALUES ($1, $2, $3)"
            " ON CONFLICT (game_id, colour) DO UPDATE SET dm_closed = excluded.dm_closed",
            game_id, colour, int(closed))

    # --- results and ratings ---------------------------------------------------------------------

    async def record_results(self, game_id: int, guild_id: int, game: str,
                             rows: list[ResultRow], rate: Rate) -> bool:
        """The game's row is locked first (two processes recording the same game: the second
        finds the results written), then the ratings of this server and game (two games
        finishing at once: the second rates from the first's ratings). ``rate`` runs on a
        thread, inside the transaction."""
        now = stamp(self.clock)
        async with self._transaction() as db:
            await db.execute("SELECT id FROM games WHERE id = $1 FOR UPDATE", game_id)
            await db.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", RATINGS_LOCK,
                             f"{guild_id}:{game}")
            if await db.fetchval("SELECT 1 FROM results WHERE game_id = $1 LIMIT 1", game_id):
                return False
            players = list(dict.fromkeys(r.player for r in rows))
            found = {r["player"]: Rating(r["player"], r["mu"], r["sigma"], r["plays"])
                     for r in await db.fetch(
                         "SELECT player, mu, sigma, plays FROM ratings WHERE guild_id = $1"
                         " AND game = $2 AND player = ANY($3::text[])", guild_id, game, players)}
            before: dict[str, Rating | None] = {p: found.get(p) for p in players}
            after = await asyncio.to_thread(rate, before)
            await db.executemany(
                "INSERT INTO results (game_id, colour, guild_id, game, player, place, score,"
                " won, finished_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                [(game_id, r.colour, guild_id, game, r.player, r.place, r.score, int(r.won),
                  now) for r in rows])
            await db.executemany(
                "INSERT INTO ratings (guild_id, game, player, mu, sigma, plays, updated_at)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (guild_id, game, player)"
                " DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
                " plays = ratings.plays + excluded.plays, updated_at = excluded.updated_at",
                [(guild_id, game, p, *after[p], sum(1 for r in rows if r.player == p), now)
                 for p in players])
            await self._notify(db, game_id)
        return True

    async def results(self, game_id: int) -> list[ResultRow]:
        rows = await self._rows("SELECT colour, player, place, score, won FROM results"
                                " WHERE game_id = $1 ORDER BY place, colour", game_id)
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
            " SUM(score) AS scores FROM results WHERE guild_id = $1 AND player = $2"
            " GROUP BY game ORDER BY game", guild_id, player)
        return [PlayerStats(r["game"], r["plays"], r["wins"], r["places"], r["scores"])
                for r in rows]

    async def rating(self, guild_id: int, game: str, player: str) -> Rating | None:
        row = await self._row("SELECT mu, sigma, plays FROM ratings WHERE guild_id = $1"
                              " AND game = $2 AND player = $3", guild_id, game, player)
        return Rating(player, row["mu"], row["sigma"], row["plays"]) if row else None

    async def leaderboard(self, guild_id: int, game: str, z: float,
                          limit: int) -> list[Rating]:
        rows = await self._rows(
            "SELECT player, mu, sigma, plays FROM ratings WHERE guild_id = $1 AND game = $2"
            " ORDER BY mu - $3::float8 * sigma DESC, plays DESC, player LIMIT $4",
            guild_id, game, z, limit)
        return [Rating(r["player"], r["mu"], r["sigma"], r["plays"]) for r in rows]

    async def guild_games(self, guild_id: int, *statuses: str) -> list[GameRow]:
        rows = await self._rows(
            "SELECT * FROM games WHERE guild_id = $1 AND status = ANY($2::text[])"
            " ORDER BY updated_at, id", guild_id, list(statuses))
        return [game_row(r) for r in rows]

    # --- user settings ---------------------------------------------------------------------------

    async def notified_users(self) -> set[int]:
        rows = await self._rows("SELECT user_id FROM user_settings WHERE notify = 1")
        return {r["user_id"] for r in rows}

    async def set_notify(self, user_id: int, on: bool) -> None:
        await self._execute("INSERT INTO user_settings (user_id, notify) VALUES ($1, $2)"
                            " ON CONFLICT (user_id) DO UPDATE SET notify = excluded.notify",
                            user_id, int(on))

    async def user_languages(self) -> dict[int, str]:
        rows = await self._rows("SELECT user_id, locale FROM user_settings"
                                " WHERE locale IS NOT NULL")
        return {r["user_id"]: r["locale"] for r in rows}

    async def set_user_language(self, user_id: int, language: str) -> None:
        await self._execute("INSERT INTO user_settings (user_id, locale) VALUES ($1, $2)"
                            " ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale",
                            user_id, language)

    # --- server settings -------------------------------------------------------------------------

    async def threads_allowed(self, guild_id: int | None) -> bool:
        if guild_id is None:
            return False
        threads = await self._db.fetchval("SELECT threads FROM guild_settings"
                                          " WHERE guild_id = $1", guild_id)
        return bool(threads) if threads is not None else True

    async def set_threads_allowed(self, guild_id: int, allowed: bool) -> None:
        await self._execute("INSERT INTO guild_settings (guild_id, threads) VALUES ($1, $2)"
                            " ON CONFLICT (guild_id) DO UPDATE SET threads = excluded.threads",
                            guild_id, int(allowed))

    # --- privacy ---------------------------------------------------------------------------------

    async def forget_user(self, user_id: int) -> Forgotten:
        """Every process hears :data:`EVERY_GAME`: any game may have held the user."""
        player = str(user_id)
        async with self._transaction() as db:
            settings = _count(await db.execute("DELETE FROM user_settings WHERE user_id = $1",
                                               user_id))
            ratings = _count(await db.execute("DELETE FROM ratings WHERE player = $1", player))
            results = _count(await db.execute("UPDATE results SET player = $1 WHERE player = $2",
                                              FORMER_PLAYER, player))
            # an AI seat keeps the name of the human who left it: the seat changes say whose
            await db.execute("UPDATE seats SET name = '' WHERE user_id IS NULL AND EXISTS ("
                             "SELECT 1 FROM seat_changes AS c WHERE c.game_id = seats.game_id"
                             " AND c.colour = seats.colour AND (c.old_id = $1 OR c.user_id = $1))",
                             user_id)
            await db.execute("UPDATE seats SET user_id = $1, name = '' WHERE user_id = $2",
                             FORMER_ID, user_id)
            for column in ("user_id", "old_id", "by_id"):
                await db.execute(f"UPDATE seat_changes SET {column} = $1 WHERE {column} = $2",
                                 FORMER_ID, user_id)
            await db.execute("UPDATE games SET creator_id = $1 WHERE creator_id = $2",
                             FORMER_ID, user_id)
            await db.execute("UPDATE games SET paused_by = $1 WHERE paused_by = $2",
                             FORMER_ID, user_id)
            staged = await db.fetch("SELECT game_id, slot, stage FROM messages"
                                    " WHERE stage LIKE $1", f"%{player}%")
            await db.executemany("UPDATE messages SET stage = $1 WHERE game_id = $2"
                                 " AND slot = $3",
                                 [(without(r["stage"], player), r["game_id"], r["slot"])
                                  for r in staged])
            await self._notify(db, EVERY_GAME)
        return Forgotten(settings, ratings, results)

    async def set_departure(self, guild_id: int) -> None:
        await self._execute("INSERT INTO guild_departures (guild_id, left_at) VALUES ($1, $2)"
                            " ON CONFLICT (guild_id) DO NOTHING", guild_id, stamp(self.clock))

    async def cancel_departure(self, guild_id: int) -> bool:
        return _count(await self._execute("DELETE FROM guild_departures WHERE guild_id = $1",
                                          guild_id)) > 0

    async def departures(self) -> dict[int, str]:
        rows = await self._rows("SELECT guild_id, left_at FROM guild_departures")
        return {r["guild_id"]: r["left_at"] for r in rows}

    async def note_absence(self, guild_id: int) -> Absence:
        now = stamp(self.clock)
        row = await self._row(
            "INSERT INTO guild_absences (guild_id, starts, first_at, last_at)"
            " VALUES ($1, 1, $2, $2) ON CONFLICT (guild_id) DO UPDATE SET"
            " starts = guild_absences.starts + 1, last_at = excluded.last_at"
            " RETURNING guild_id, starts, first_at, last_at", guild_id, now)
        assert row is not None
        return Absence(*row)

    async def clear_absence(self, guild_id: int) -> bool:
        return _count(await self._execute("DELETE FROM guild_absences WHERE guild_id = $1",
                                          guild_id)) > 0

    async def absences(self) -> dict[int, Absence]:
        rows = await self._rows("SELECT guild_id, starts, first_at, last_at"
                                " FROM guild_absences")
        return {r[0]: Absence(*r) for r in rows}

    async def guilds_with_games(self) -> set[int]:
        rows = await self._rows("SELECT DISTINCT guild_id FROM games"
                                " WHERE guild_id IS NOT NULL")
        return {r[0] for r in rows}

    async def delete_guild(self, guild_id: int) -> Purged:
        """Each deleted game is notified (the process that shows it finds it gone)."""
        async with self._transaction() as db:
            ids = [r["id"] for r in await db.fetch("SELECT id FROM games WHERE guild_id = $1"
                                                   " FOR UPDATE", guild_id)]
            for table in GAME_TABLES:
                await db.execute(f"DELETE FROM {table} WHERE game_id = ANY($1::bigint[])", ids)
            games = _count(await db.execute("DELETE FROM games WHERE guild_id = $1", guild_id))
            ratings = _count(await db.execute("DELETE FROM ratings WHERE guild_id = $1",
                                              guild_id))
            await db.execute("DELETE FROM guild_settings WHERE guild_id = $1", guild_id)
            await db.execute("DELETE FROM guild_departures WHERE guild_id = $1", guild_id)
            await db.execute("DELETE FROM guild_absences WHERE guild_id = $1", guild_id)
            await db.execute(f"SELECT pg_notify('{CHANNEL}', g::text || ':' || $2)"
                             " FROM unnest($1::bigint[]) AS g", ids, self.token)
        return Purged(guild_id, games, ratings)


def _loads(state: str) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(state)
    return decoded


async def _add_change(db: Connection, game_id: int, change: SeatChangeRow, now: str) -> None:
    await db.execute(
        "INSERT INTO seat_changes (game_id, n, seq, colour, what, user_id, old_id, by_id, at)"
        " SELECT $1::bigint, COALESCE(MAX(n), 0) + 1, $2::integer, $3::text, $4::text,"
        " $5::bigint, $6::bigint, $7::bigint, $8::text FROM seat_changes WHERE game_id = $1",
        game_id, change.seq, change.colour, change.what, change.user_id, change.old_id,
        change.by_id, now)


# --- the database, for the commands that do not run the bot -------------------------------------

async def _connect_once(url: str) -> asyncpg.Connection:
    return await asyncpg.connect(url, timeout=10,
                                 server_settings={"application_name": APPLICATION})


async def inspect(url: str) -> DatabaseInfo:
    """Schema and games of the database at ``url``, changing nothing (a database the bot has
    not touched yet reads as schema 0). ``integrity`` stays empty: PostgreSQL checks its own
    pages."""
    db = await _connect_once(url)
    try:
        version = 0
        if await db.fetchval("SELECT to_regclass('schema_version') IS NOT NULL"):
            version = await db.fetchval("SELECT version FROM schema_version") or 0
        games = 0
        if await db.fetchval("SELECT to_regclass('games') IS NOT NULL"):
            games = await db.fetchval("SELECT COUNT(*) FROM games")
        application = None
        if await db.fetchval("SELECT to_regclass('discord_application') IS NOT NULL"):
            application = await db.fetchval("SELECT application_id FROM discord_application")
    finally:
        await db.close()
    return DatabaseInfo(int(version), [], int(games),
                        None if application is None else int(application))


async def read_heartbeats(url: str) -> list[Heartbeat]:
    """The heartbeat rows of the database at ``url``, newest first, changing nothing: none
    when its heartbeat table is missing."""
    db = await _connect_once(url)
    try:
        if not await db.fetchval("SELECT to_regclass('heartbeat') IS NOT NULL"):
            return []
        rows = await db.fetch("SELECT * FROM heartbeat ORDER BY beat_at DESC")
    finally:
        await db.close()
    return [heartbeat(row) for row in rows]
