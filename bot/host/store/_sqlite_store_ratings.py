"""The SQLite store's results and ratings: a finished game's places and the ratings they move,
in one transaction; the statistics and leaderboards read from them.
"""

from __future__ import annotations

import sqlite3

from bot.host.clock import stamp
from bot.host.store._reading import (
    game_row,
)
from bot.host.store._rows import (
    GameRow,
    PlayerStats,
    Rate,
    Rating,
    ResultRow,
)
from bot.host.store._sqlite_threads import SqliteThreads


class SqliteRatings(SqliteThreads):
    """Results and ratings."""

    # --- results and ratings ---------------------------------------------------------------------

    async def record_results(self, game_id: int, guild_id: int, game: str,
                             rows: list[ResultRow], rate: Rate) -> bool:
        """``rate`` runs on the writer's thread, inside the transaction."""
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> bool:
            if db.execute("SELECT 1 FROM results WHERE game_id = ? LIMIT 1",
                          (game_id,)).fetchone() is not None:
                return False
            players = list(dict.fromkeys(r.player for r in rows))
            before: dict[str, Rating | None] = {}
            for player in players:
                found = db.execute("SELECT mu, sigma, plays FROM ratings WHERE guild_id = ?"
                                   " AND game = ? AND player = ?",
                                   (guild_id, game, player)).fetchone()
                before[player] = Rating(player, found["mu"], found["sigma"], found["plays"]) \
                    if found else None
            after = rate(before)
            for row in rows:
                db.execute("INSERT INTO results (game_id, colour, guild_id, game, player,"
                           " place, score, won, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           (game_id, row.colour, guild_id, game, row.player, row.place,
                            row.score, int(row.won), now))
            for player in players:
                mu, sigma = after[player]
                seats = sum(1 for r in rows if r.player == player)
                db.execute("INSERT INTO ratings (guild_id, game, player, mu, sigma, plays,"
                           " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                           " ON CONFLICT (guild_id, game, player) DO UPDATE SET"
                           " mu = excluded.mu, sigma = excluded.sigma,"
                           " plays = ratings.plays + excluded.plays,"
                           " updated_at = excluded.updated_at",
                           (guild_id, game, player, mu, sigma, seats, now))
            return True

        return await self._write(write)

    async def results(self, game_id: int) -> list[ResultRow]:
        rows = await self._rows("SELECT colour, player, place, score, won FROM results"
                                " WHERE game_id = ? ORDER BY place, colour", (game_id,))
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
            " SUM(score) AS scores FROM results WHERE guild_id = ? AND player = ?"
            " GROUP BY game ORDER BY game", (guild_id, player))
        return [PlayerStats(r["game"], r["plays"], r["wins"], r["places"], r["scores"])
                for r in rows]

    async def rating(self, guild_id: int, game: str, player: str) -> Rating | None:
        row = await self._row("SELECT mu, sigma, plays FROM ratings WHERE guild_id = ?"
                              " AND game = ? AND player = ?", (guild_id, game, player))
        return Rating(player, row["mu"], row["sigma"], row["plays"]) if row else None

    async def leaderboard(self, guild_id: int, game: str, z: float,
                          limit: int) -> list[Rating]:
        rows = await self._rows(
            "SELECT player, mu, sigma, plays FROM ratings WHERE guild_id = ? AND game = ?"
            " ORDER BY mu - ? * sigma DESC, plays DESC, player LIMIT ?",
            (guild_id, game, z, limit))
        return [Rating(r["player"], r["mu"], r["sigma"], r["plays"]) for r in rows]

    async def guild_games(self, guild_id: int, *statuses: str) -> list[GameRow]:
        marks = ", ".join("?" for _ in statuses)
        rows = await self._rows(
            f"SELECT * FROM games WHERE guild_id = ? AND status IN ({marks})"
            " ORDER BY updated_at, id", (guild_id, *statuses))
        return [game_row(r) for r in rows]
