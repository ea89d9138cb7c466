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
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import asyncpg

from bot.host.clock import Clock, system_clock
from bot.host.store._interface import Listener, Store
from bot.host.store._postgres_base import (
    CHANNEL,
    Connection,
)
from bot.host.store._postgres_store_games import PostgresGames
from bot.host.store._postgres_store_holds import PostgresHolds
from bot.host.store._postgres_store_play import PostgresPlay
from bot.host.store._postgres_store_privacy import PostgresPrivacy
from bot.host.store._postgres_store_ratings import PostgresRatings
from bot.host.store._postgres_store_schema import MIGRATIONS, VERSION_TABLE
from bot.host.store._postgres_store_servers import PostgresServers
from bot.host.store._rows import (
    EVERY_GAME,
    SCHEMA_VERSION,
    DatabaseInfo,
    Heartbeat,
    MessageRow,
    SchemaTooNew,
    StoreClosed,
    heartbeat,
    message_row,
    message_values,
)

log = logging.getLogger(__name__)

DEFAULT_POOL_SIZE = 10
"""Most connections of each pool (statements, game locks); at least two are kept open."""
APPLICATION = "rapanui-games"
LISTENER = "rapanui-games listener"
"""The ``application_name`` of the store's connections, and of the listening one."""
MIGRATION_LOCK = -0x7261706E
"""The advisory lock key held while migrating: negative, so no game id (a game's lock key is
its id) ever meets it."""
CLOSE_LOCKS_WITHIN = 10.0
"""Seconds :meth:`PostgresStore.close` waits for the game locks to be handed back before it
cuts their connections (the server then drops the locks)."""
RECONNECT_AFTER = (0.0, 1.0, 2.0, 5.0, 10.0, 30.0)
"""Seconds before each try to open the listening connection again (the last one repeats)."""


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


class PostgresStore(PostgresGames, PostgresPlay, PostgresRatings, PostgresServers,
                    PostgresPrivacy, PostgresHolds, Store):
    """The games in a PostgreSQL database, shared with other bot processes. Open with
    :meth:`open`, close with :meth:`close`."""

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
