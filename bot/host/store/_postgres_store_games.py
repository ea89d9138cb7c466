"""The PostgreSQL store's games: their rows, their deadlines and pauses (a deadline claimed by
one process of several), and a game or every active one read whole in one read-only
transaction.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import asyncpg

from bot.host.clock import stamp
from bot.host.store._postgres_base import (
    CHANNEL,
    PostgresBase,
    _tell,
)
from bot.host.store._reading import (
    ActiveRows,
    assemble,
    game_row,
    stored_mark,
)
from bot.host.store._rows import (
    STATUSES,
    ActiveGame,
    ChannelBusy,
    GameMark,
    GameRow,
    dump,
)

_ACTIVE_IDS = "(SELECT id FROM games WHERE status IN ('lobby', 'running'))"


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


class PostgresGames(PostgresBase):
    """Games, read and written."""

    # --- several processes -----------------------------------------------------------------------

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

    async def claim_deadline(self, game_id: int, deadline_at: str, until: str) -> bool:
        rows = await self._rows(
            "WITH claimed AS (UPDATE games SET deadline_at = $3, reminded = 1 WHERE id = $1"
            " AND deadline_at = $2 AND status = 'running' AND paused_by IS NULL RETURNING id)"
            f" SELECT pg_notify('{CHANNEL}', $4) FROM claimed",
            game_id, deadline_at, until, self._told(game_id))
        return len(rows) == 1

    async def claim_reminder(self, game_id: int, deadline_at: str) -> bool:
        rows = await self._rows(
            "WITH claimed AS (UPDATE games SET reminded = 1 WHERE id = $1 AND deadline_at = $2"
            " AND reminded = 0 AND status = 'running' AND paused_by IS NULL RETURNING id)"
            f" SELECT pg_notify('{CHANNEL}', $3) FROM claimed",
            game_id, deadline_at, self._told(game_id))
        return len(rows) == 1

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
