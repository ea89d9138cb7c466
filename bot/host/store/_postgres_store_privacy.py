"""The PostgreSQL store's privacy: a user forgotten (every process hears of it), and a server's
data kept after it removed the bot, then deleted.
"""

from __future__ import annotations

from bot.host.clock import stamp
from bot.host.store._postgres_base import (
    CHANNEL,
    PostgresBase,
    _count,
)
from bot.host.store._postgres_store_holds import forget_holds
from bot.host.store._reading import (
    without,
)
from bot.host.store._rows import (
    EVERY_GAME,
    FORMER_ID,
    FORMER_PLAYER,
    GAME_TABLES,
    Absence,
    Forgotten,
    Purged,
)


class PostgresPrivacy(PostgresBase):
    """Forgetting a user, a server's departure."""

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
            await db.execute("UPDATE messages SET holder = NULL WHERE holder = $1", user_id)
            await forget_holds(db, user_id, FORMER_ID)
            pinged = await db.fetch("SELECT game_id, slot, mentions FROM messages"
                                    " WHERE ',' || mentions || ',' LIKE $1", f"%,{player},%")
            await db.executemany("UPDATE messages SET mentions = $1 WHERE game_id = $2"
                                 " AND slot = $3",
                                 [(without(r["mentions"], player), r["game_id"], r["slot"])
                                  for r in pinged])
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
