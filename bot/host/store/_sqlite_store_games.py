"""The SQLite store's games: their rows, their deadlines and pauses, and a game or every active
one read whole in one read transaction; what several processes would share (one process writes
a SQLite file, so that part is trivial here).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from typing import Any

from bot.host.clock import stamp
from bot.host.store._interface import Listener
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
from bot.host.store._sqlite_threads import SqliteThreads, _plain


class SqliteGames(SqliteThreads):
    """Games, read and written."""

    # --- several processes: one writes a SQLite file ----------------------------------------------

    @property
    def shared(self) -> bool:
        return False

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        """Nothing to hold: no other process writes this file."""
        yield

    async def stored_seq(self, game_id: int) -> int:
        row = await self._row("SELECT seq FROM snapshots WHERE game_id = ?", (game_id,))
        return int(row[0]) if row else 0

    async def stored_marks(self, game_ids: Collection[int]) -> dict[int, GameMark]:
        wanted = list(game_ids)
        return await self._read(lambda db: _read_marks(db, wanted))

    async def load_game(self, game_id: int, after: int = 0) -> ActiveGame | None:
        return await self._read(lambda db: _read_game(db, game_id, after))

    async def seated_games(self, user_id: int) -> set[int]:
        rows = await self._rows("SELECT DISTINCT seats.game_id FROM seats JOIN games"
                                " ON games.id = seats.game_id WHERE seats.user_id = ?"
                                " AND games.status IN ('lobby', 'running')", (user_id,))
        return {r[0] for r in rows}

    async def listen(self, callback: Listener) -> None:
        """No other process writes: nothing to hear."""

    async def claim_deadline(self, game_id: int, deadline_at: str, until: str) -> bool:
        claimed: int = await self._write(lambda db: db.execute(
            "UPDATE games SET deadline_at = ?, reminded = 1 WHERE id = ? AND deadline_at = ?"
            " AND status = 'running' AND paused_by IS NULL",
            (until, game_id, deadline_at)).rowcount)
        return claimed == 1

    async def claim_reminder(self, game_id: int, deadline_at: str) -> bool:
        claimed: int = await self._write(lambda db: db.execute(
            "UPDATE games SET reminded = 1 WHERE id = ? AND deadline_at = ? AND reminded = 0"
            " AND status = 'running' AND paused_by IS NULL", (game_id, deadline_at)).rowcount)
        return claimed == 1

    # --- games ---------------------------------------------------------------------------------

    async def create_game(self, *, channel_id: int, guild_id: int | None, game: str,
                          options: str, seed: int, creator_id: int, language: str,
                          ai_level: str, turn_seconds: int | None = None) -> GameRow:
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> GameRow:
            game_id = db.execute(
                "INSERT INTO games (channel_id, guild_id, game, options, seed,"
                " secret_seed, status, creator_id, language, ai_level, created_at,"
                " updated_at, turn_seconds) VALUES (?, ?, ?, ?, 0, ?, 'lobby', ?, ?, ?, ?,"
                " ?, ?)",
                (channel_id, guild_id, game, options, str(seed), creator_id, language,
                 ai_level, now, now, turn_seconds)).lastrowid
            return game_row(db.execute("SELECT * FROM games WHERE id = ?",
                                        (game_id,)).fetchone())

        try:
            return await self._write(write)
        except sqlite3.IntegrityError as exc:
            raise ChannelBusy(channel_id) from exc

    async def game(self, game_id: int) -> GameRow | None:
        row = await self._row("SELECT * FROM games WHERE id = ?", (game_id,))
        return game_row(row) if row else None

    async def active_game(self, channel_id: int) -> GameRow | None:
        row = await self._row(
            "SELECT * FROM games WHERE channel_id = ? AND status IN ('lobby', 'running')",
            (channel_id,))
        return game_row(row) if row else None

    async def latest_started(self, channel_id: int) -> GameRow | None:
        row = await self._row(
            "SELECT * FROM games WHERE (channel_id = ? OR thread_id = ?)"
            " AND header IS NOT NULL ORDER BY id DESC LIMIT 1", (channel_id, channel_id))
        return game_row(row) if row else None

    async def games_with_status(self, *statuses: str) -> list[GameRow]:
        marks = ", ".join("?" for _ in statuses)
        rows = await self._rows(f"SELECT * FROM games WHERE status IN ({marks}) ORDER BY id",
                                statuses)
        return [game_row(r) for r in rows]

    async def set_status(self, game_id: int, status: str) -> None:
        assert status in STATUSES
        await self._execute("UPDATE games SET status = ?, updated_at = ? WHERE id = ?",
                            (status, stamp(self.clock), game_id))

    async def start_game(self, game_id: int, header: str, state: dict[str, Any]) -> None:
        now, dumped = stamp(self.clock), dump(state)

        def write(db: sqlite3.Connection) -> None:
            db.execute("UPDATE games SET status = 'running', header = ?, updated_at = ?"
                       " WHERE id = ?", (header, now, game_id))
            db.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                       " VALUES (?, 0, ?)", (game_id, dumped))

        await self._write(write)

    async def set_deadline(self, game_id: int, deadline: str | None) -> None:
        await self._execute("UPDATE games SET deadline_at = ?, reminded = 0 WHERE id = ?",
                            (deadline, game_id))

    async def mark_reminded(self, game_id: int) -> None:
        await self._execute("UPDATE games SET reminded = 1 WHERE id = ?", (game_id,))

    async def set_paused(self, game_id: int, paused_by: int | None, left: int | None,
                         deadline: str | None) -> None:
        await self._execute("UPDATE games SET paused_by = ?, paused_left = ?, deadline_at = ?,"
                            " updated_at = ? WHERE id = ?",
                            (paused_by, left, deadline, stamp(self.clock), game_id))

    async def set_turn_time(self, game_id: int, seconds: int | None, deadline: str | None,
                            left: int | None) -> None:
        await self._execute("UPDATE games SET turn_seconds = ?, deadline_at = ?,"
                            " paused_left = ?, reminded = 0, updated_at = ? WHERE id = ?",
                            (seconds, deadline, left, stamp(self.clock), game_id))

    async def load_active(self) -> list[ActiveGame]:
        return await self._read(_read_active)


_ACTIVE_IDS = "(SELECT id FROM games WHERE status IN ('lobby', 'running'))"


def _read_active(db: sqlite3.Connection) -> list[ActiveGame]:
    """:meth:`Store.load_active` on the reader's connection: one query a table, in one read
    transaction (a consistent moment)."""
    db.execute("BEGIN")
    try:
        read = ActiveRows(
            [game_row(r) for r in db.execute(
                "SELECT * FROM games WHERE status IN ('lobby', 'running') ORDER BY id")],
            _plain("SELECT game_id, colour, user_id, ai_level, joined, name, acted_at, timeouts,"
                   f" away, was_human FROM seats WHERE game_id IN {_ACTIVE_IDS}"
                   " ORDER BY game_id, joined", (), db),
            _plain("SELECT game_id, colour FROM hidden_seats WHERE dm_closed = 1"
                   f" AND game_id IN {_ACTIVE_IDS}", (), db),
            _plain("SELECT game_id, seq, colour, what, user_id, old_id, by_id, at"
                   f" FROM seat_changes WHERE game_id IN {_ACTIVE_IDS} ORDER BY game_id, n",
                   (), db),
            _plain(f"SELECT game_id, seq, state FROM snapshots WHERE game_id IN {_ACTIVE_IDS}",
                   (), db),
            _plain("SELECT game_id, after_seq, colour, steps, taken_at FROM takebacks"
                   f" WHERE game_id IN {_ACTIVE_IDS} ORDER BY game_id, number", (), db),
            _plain("SELECT game_id, seq, line, events, by, sealed FROM actions"
                   f" WHERE game_id IN {_ACTIVE_IDS} ORDER BY game_id, seq", (), db))
    finally:
        db.execute("COMMIT")
    return assemble(read)


_MARKS = """
SELECT g.*, COALESCE(s.seq, 0) AS mark_seq,
    (SELECT COUNT(*) FROM takebacks AS t WHERE t.game_id = g.id) AS mark_takebacks,
    (SELECT COUNT(*) FROM seat_changes AS c WHERE c.game_id = g.id) AS mark_changes,
    (SELECT json_group_array(json_array(colour, user_id, ai_level, away)) FROM seats
     WHERE seats.game_id = g.id) AS mark_seats,
    (SELECT json_group_array(colour) FROM hidden_seats AS h WHERE h.game_id = g.id
     AND h.dm_closed = 1) AS mark_closed
FROM games AS g LEFT JOIN snapshots AS s ON s.game_id = g.id WHERE g.id IN (SELECT value
FROM json_each(?))
"""
"""Each game's :class:`GameMark` parts, for :meth:`SqliteStore.stored_marks` (the ids as one
JSON array: any number of them in one parameter)."""


def _read_marks(db: sqlite3.Connection, game_ids: list[int]) -> dict[int, GameMark]:
    return {r["id"]: stored_mark(r) for r in db.execute(_MARKS, (json.dumps(game_ids),))}


def _read_game(db: sqlite3.Connection, game_id: int, after: int) -> ActiveGame | None:
    """:meth:`Store.load_game` on the reader's connection, in one read transaction."""
    db.execute("BEGIN")
    try:
        games = [game_row(r) for r in db.execute("SELECT * FROM games WHERE id = ?",
                                                 (game_id,))]
        if not games:
            return None
        read = ActiveRows(
            games,
            _plain("SELECT game_id, colour, user_id, ai_level, joined, name, acted_at, timeouts,"
                   " away, was_human FROM seats WHERE game_id = ? ORDER BY joined",
                   (game_id,), db),
            _plain("SELECT game_id, colour FROM hidden_seats WHERE dm_closed = 1"
                   " AND game_id = ?", (game_id,), db),
            _plain("SELECT game_id, seq, colour, what, user_id, old_id, by_id, at"
                   " FROM seat_changes WHERE game_id = ? ORDER BY n", (game_id,), db),
            _plain("SELECT game_id, seq, state FROM snapshots WHERE game_id = ?",
                   (game_id,), db),
            _plain("SELECT game_id, after_seq, colour, steps, taken_at FROM takebacks"
                   " WHERE game_id = ? ORDER BY number", (game_id,), db),
            _plain("SELECT game_id, seq, line, events, by, sealed FROM actions"
                   " WHERE game_id = ? AND seq > ? ORDER BY seq", (game_id, after), db))
    finally:
        db.execute("COMMIT")
    return assemble(read, after)[0]
