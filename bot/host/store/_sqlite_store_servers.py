"""The SQLite store's rows about the bot and its servers: running instances (heartbeats), the
Discord application whose games these are, where the slash commands are synced, and the user
and server settings.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from bot.host.clock import stamp
from bot.host.store._rows import (
    Heartbeat,
    heartbeat,
    shard_column,
)
from bot.host.store._sqlite_threads import SqliteThreads


class SqliteServers(SqliteThreads):
    """Instances, the application, and settings."""

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
