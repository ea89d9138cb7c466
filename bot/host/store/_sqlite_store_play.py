"""The SQLite store's play: seats and who holds them, the action log with its snapshot, and
take-backs.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from functools import partial
from typing import Any

from bot.host.clock import stamp
from bot.host.store._reading import (
    gap,
    kept_steps,
    log_row,
    takeback,
)
from bot.host.store._rows import (
    LogRow,
    Seat,
    SeatChangeRow,
    Snapshot,
    StaleGame,
    TakebackRow,
    dump,
)
from bot.host.store._sqlite_threads import SqliteThreads, _plain

_LOG = "SELECT seq, line, events, by, sealed FROM actions"


class SqlitePlay(SqliteThreads):
    """Seats, actions and snapshots."""

    # --- seats ---------------------------------------------------------------------------------

    async def seats(self, game_id: int) -> list[Seat]:
        rows = await self._rows(
            "SELECT colour, user_id, ai_level, joined, name, acted_at, timeouts, away,"
            " was_human FROM seats WHERE game_id = ? ORDER BY joined", (game_id,))
        return [Seat(r["colour"], r["user_id"], r["ai_level"], r["name"], r["acted_at"],
                     r["timeouts"], bool(r["away"]), bool(r["was_human"]), r["joined"])
                for r in rows]

    async def add_seat(self, game_id: int, colour: str, user_id: int | None,
                       ai_level: str | None, name: str = "", *,
                       acted_at: str | None = None) -> None:
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> None:
            joined = db.execute("SELECT COALESCE(MAX(joined), 0) + 1 FROM seats"
                                " WHERE game_id = ?", (game_id,)).fetchone()[0]
            db.execute("INSERT INTO seats (game_id, colour, user_id, ai_level, name, joined,"
                       " acted_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (game_id, colour, user_id, ai_level, name, joined, acted_at))
            db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))

        await self._write(write)

    async def remove_seat(self, game_id: int, colour: str,
                          change: SeatChangeRow | None = None) -> None:
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM seats WHERE game_id = ? AND colour = ?", (game_id, colour))
            db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))
            if change is not None:
                _add_change(db, game_id, change)

        await self._write(write)

    async def change_seat(self, game_id: int, seat: Seat, change: SeatChangeRow) -> None:
        now = stamp(self.clock)

        def write(db: sqlite3.Connection) -> None:
            db.execute("UPDATE seats SET user_id = ?, ai_level = ?, name = ?, acted_at = ?,"
                       " was_human = ? WHERE game_id = ? AND colour = ?",
                       (seat.user_id, seat.ai_level, seat.name, seat.acted_at,
                        int(seat.was_human), game_id, seat.colour))
            db.execute("UPDATE hidden_seats SET dm_closed = 0 WHERE game_id = ?"
                       " AND colour = ?", (game_id, seat.colour))
            db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))
            _add_change(db, game_id, change)

        await self._write(write)

    async def seat_changes(self, game_id: int) -> list[SeatChangeRow]:
        rows = await self._rows("SELECT seq, colour, what, user_id, old_id, by_id, at"
                                " FROM seat_changes WHERE game_id = ? ORDER BY n", (game_id,))
        return [SeatChangeRow(r["seq"], r["colour"], r["what"], r["user_id"], r["old_id"],
                              r["by_id"], r["at"]) for r in rows]

    async def set_away(self, game_id: int, colour: str, away: bool, timeouts: int) -> None:
        await self._execute("UPDATE seats SET away = ?, timeouts = ? WHERE game_id = ?"
                            " AND colour = ?", (int(away), timeouts, game_id, colour))

    # --- actions and snapshots -----------------------------------------------------------------

    async def append_action(self, game_id: int, seq: int, line: str, state: dict[str, Any],
                            finished: bool = False, *, events: list[dict[str, Any]] | None = None,
                            by: str = "human", seat: Seat | None = None,
                            sealed: str | None = None, reveals: bool = False,
                            before_commit: Callable[[], None] | None = None) -> None:
        """One job on the writer's thread, so one round trip; ``before_commit`` runs on that
        thread."""
        now, dumped, logged = stamp(self.clock), dump(state), dump(events or [])
        status = ", status = 'finished'" if finished else ""

        def write(db: sqlite3.Connection) -> None:
            try:
                db.execute("INSERT INTO actions (game_id, seq, line, sealed, events, by)"
                           " VALUES (?, ?, ?, ?, ?, ?)", (game_id, seq, line, sealed, logged, by))
            except sqlite3.IntegrityError as exc:
                if "UNIQUE" in str(exc):
                    raise StaleGame(game_id, seq) from exc
                raise
            if reveals:
                db.execute("UPDATE actions SET sealed = NULL WHERE game_id = ?"
                           " AND sealed IS NOT NULL", (game_id,))
            db.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                       " VALUES (?, ?, ?)", (game_id, seq, dumped))
            db.execute(f"UPDATE games SET updated_at = ?{status} WHERE id = ?", (now, game_id))
            if seat is not None:
                _write_pace(db, game_id, seat)
            if before_commit is not None:
                before_commit()

        await self._write(write)

    async def actions(self, game_id: int) -> list[str]:
        rows = await self._rows("SELECT seq, line FROM actions WHERE game_id = ? ORDER BY seq",
                                (game_id,))
        damage = gap(game_id, [r["seq"] for r in rows])
        if damage:
            raise RuntimeError(damage)
        return [r["line"] for r in rows]

    async def log(self, game_id: int) -> list[LogRow]:
        rows = await self._read(partial(_plain, _LOG + " WHERE game_id = ? ORDER BY seq",
                                        (game_id,)))
        damage = gap(game_id, [r[0] for r in rows])
        if damage:
            raise RuntimeError(damage)
        return [log_row(r) for r in rows]

    async def take_back(self, game_id: int, at: int, expect_seq: int, colour: str,
                        state: dict[str, Any], seat: Seat | None = None) -> None:
        now, dumped = stamp(self.clock), dump(state)

        def write(db: sqlite3.Connection) -> None:
            rows = db.execute("SELECT seq, line, events, by, sealed FROM actions"
                              " WHERE game_id = ? AND seq > ? ORDER BY seq",
                              (game_id, at)).fetchall()
            if [r["seq"] for r in rows] != list(range(at + 1, expect_seq + 1)) or not rows:
                raise RuntimeError(f"game {game_id}: the log does not end at {expect_seq}")
            number = db.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM takebacks"
                                " WHERE game_id = ?", (game_id,)).fetchone()[0]
            db.execute("INSERT INTO takebacks (game_id, number, after_seq, colour, steps,"
                       " taken_at) VALUES (?, ?, ?, ?, ?, ?)",
                       (game_id, number, at, colour, kept_steps(rows), now))
            db.execute("DELETE FROM actions WHERE game_id = ? AND seq > ?", (game_id, at))
            db.execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                       " VALUES (?, ?, ?)", (game_id, at, dumped))
            db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))
            if seat is not None:
                _write_pace(db, game_id, seat)

        await self._write(write)

    async def takebacks(self, game_id: int) -> list[TakebackRow]:
        rows = await self._rows("SELECT after_seq, colour, steps, taken_at"
                                " FROM takebacks WHERE game_id = ? ORDER BY number", (game_id,))
        return [takeback(r["after_seq"], r["colour"], r["steps"], r["taken_at"]) for r in rows]

    async def snapshot(self, game_id: int) -> Snapshot | None:
        row = await self._row("SELECT seq, state FROM snapshots WHERE game_id = ?", (game_id,))
        return Snapshot(row["seq"], json.loads(row["state"])) if row else None

    async def write_snapshot(self, game_id: int, seq: int, state: dict[str, Any]) -> None:
        await self._execute("INSERT OR REPLACE INTO snapshots (game_id, seq, state)"
                            " VALUES (?, ?, ?)", (game_id, seq, dump(state)))


def _add_change(db: sqlite3.Connection, game_id: int, change: SeatChangeRow) -> None:
    """A change of hands, numbered after the game's others, at the time it gives."""
    number = db.execute("SELECT COALESCE(MAX(n), 0) + 1 FROM seat_changes WHERE game_id = ?",
                        (game_id,)).fetchone()[0]
    db.execute("INSERT INTO seat_changes (game_id, n, seq, colour, what, user_id, old_id,"
               " by_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (game_id, number, change.seq, change.colour, change.what, change.user_id,
                change.old_id, change.by_id, change.at))


def _write_pace(db: sqlite3.Connection, game_id: int, seat: Seat) -> None:
    """A seat's ``acted_at``, timeouts in a row and away mark, as the host gives them."""
    db.execute("UPDATE seats SET acted_at = ?, timeouts = ?, away = ? WHERE game_id = ?"
               " AND colour = ?", (seat.acted_at, seat.timeouts, int(seat.away), game_id,
                                   seat.colour))
