"""The SQLite store's kick holds: who was removed from a game and may not take a seat in it
again until its creator or a server manager gives one back.
"""

from __future__ import annotations

import sqlite3

from bot.host.clock import stamp
from bot.host.store._sqlite_threads import SqliteThreads


class SqliteHolds(SqliteThreads):
    """Kick holds (schema 15)."""

    async def hold_kick(self, game_id: int, user_id: int, by_id: int) -> None:
        await self._execute("INSERT INTO kick_holds (game_id, user_id, by_id, at)"
                            " VALUES (?, ?, ?, ?) ON CONFLICT (game_id, user_id) DO UPDATE"
                            " SET by_id = excluded.by_id, at = excluded.at",
                            (game_id, user_id, by_id, stamp(self.clock)))

    async def kick_hold(self, game_id: int, user_id: int) -> int | None:
        row = await self._row("SELECT by_id FROM kick_holds WHERE game_id = ? AND user_id = ?",
                              (game_id, user_id))
        return None if row is None else int(row[0])

    async def lift_kick(self, game_id: int, user_id: int) -> bool:
        lifted: int = await self._write(lambda db: db.execute(
            "DELETE FROM kick_holds WHERE game_id = ? AND user_id = ?",
            (game_id, user_id)).rowcount)
        return lifted > 0


def forget_holds(db: sqlite3.Connection, user_id: int, former: int) -> None:
    """A forgotten user's holds go (the row would name them); holds they set stay, set by
    ``former``."""
    db.execute("DELETE FROM kick_holds WHERE user_id = ?", (user_id,))
    db.execute("UPDATE kick_holds SET by_id = ? WHERE by_id = ?", (former, user_id))
