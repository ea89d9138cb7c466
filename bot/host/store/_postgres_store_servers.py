"""The PostgreSQL store's rows about the bot and its servers: running instances (heartbeats),
the Discord application whose games these are, where the slash commands are synced, and the
user and server settings.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.host.clock import stamp
from bot.host.store._postgres_base import (
    PostgresBase,
)
from bot.host.store._rows import (
    Heartbeat,
    heartbeat,
    shard_column,
)


class PostgresServers(PostgresBase):
    """Instances, the application, and settings."""

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
