"""The SQLite store's privacy: a user forgotten, and a server's data kept after it removed the
bot, then deleted.
"""

from __future__ import annotations

import sqlite3

from bot.host.clock import stamp
from bot.host.store._reading import (
    without,
)
from bot.host.store._rows import (
    FORMER_ID,
    FORMER_PLAYER,
    GAME_TABLES,
    Absence,
    Forgotten,
    Purged,
)
from bot.host.store._sqlite_store_holds import forget_holds
from bot.host.store._sqlite_threads import SqliteThreads


class SqlitePrivacy(SqliteThreads):
    """Forgetting a user, a server's departure."""

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
            db.execute("UPDATE messages SET holder = NULL WHERE holder = ?", (user_id,))
            forget_holds(db, user_id, FORMER_ID)
            pinged = db.execute("SELECT game_id, slot, mentions FROM messages"
                                " WHERE ',' || mentions || ',' LIKE ?",
                                (f"%,{player},%",)).fetchall()
            for row in pinged:
                db.execute("UPDATE messages SET mentions = ? WHERE game_id = ? AND slot = ?",
                           (without(row["mentions"], player), row["game_id"], row["slot"]))
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
