"""The PostgreSQL store's kick holds: who was removed from a game and may not take a seat in it
again until its creator or a server manager gives one back.
"""

from __future__ import annotations

from bot.host.clock import stamp
from bot.host.store._postgres_base import (
    Connection,
    PostgresBase,
    _count,
)


class PostgresHolds(PostgresBase):
    """Kick holds (schema 15)."""

    async def hold_kick(self, game_id: int, user_id: int, by_id: int) -> None:
        await self._execute("INSERT INTO kick_holds (game_id, user_id, by_id, at)"
                            " VALUES ($1, $2, $3, $4) ON CONFLICT (game_id, user_id) DO UPDATE"
                            " SET by_id = excluded.by_id, at = excluded.at",
                            game_id, user_id, by_id, stamp(self.clock))

    async def kick_hold(self, game_id: int, user_id: int) -> int | None:
        row = await self._row("SELECT by_id FROM kick_holds WHERE game_id = $1"
                              " AND user_id = $2", game_id, user_id)
        return None if row is None else int(row[0])

    async def lift_kick(self, game_id: int, user_id: int) -> bool:
        return _count(await self._execute("DELETE FROM kick_holds WHERE game_id = $1"
                                          " AND user_id = $2", game_id, user_id)) > 0


async def forget_holds(db: Connection, user_id: int, former: int) -> None:
    """A forgotten user's holds go (the row would name them); holds they set stay, set by
    ``former``."""
    await db.execute("DELETE FROM kick_holds WHERE user_id = $1", user_id)
    await db.execute("UPDATE kick_holds SET by_id = $1 WHERE by_id = $2", former, user_id)
