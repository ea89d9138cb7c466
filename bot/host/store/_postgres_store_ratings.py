"""The PostgreSQL store's results and ratings: a finished game's places and the ratings they
move, in one transaction that two processes cannot both start from the same ratings; the
statistics and leaderboards read from them.
"""

from __future__ import annotations

import asyncio

from bot.host.clock import stamp
from bot.host.store._postgres_base import (
    PostgresBase,
)
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

RATINGS_LOCK = 0x72617469
"""The first key of the transaction lock that serialises rating updates of one server and
game (the second is a hash of both): two games finishing at once must not both start from
the same ratings."""

class PostgresRatings(PostgresBase):
    """Results and ratings."""

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
