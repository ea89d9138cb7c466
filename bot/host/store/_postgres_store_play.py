"""The PostgreSQL store's play: seats and who holds them, the action log with its snapshot (an
applied action is one statement), and take-backs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import asyncpg

from bot.host.clock import stamp
from bot.host.store._postgres_base import (
    CHANNEL,
    Connection,
    PostgresBase,
    _tell,
)
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

_LOG = 'SELECT seq, line, events, "by", sealed FROM actions'


_APPEND = f"""
WITH logged AS (
    INSERT INTO actions (game_id, seq, line, sealed, events, "by")
    VALUES ($1, $2, $3, $4::text, $5, $6)
    RETURNING game_id
), revealed AS (
    UPDATE actions SET sealed = NULL WHERE $7::boolean AND game_id = $1 AND sealed IS NOT NULL
), saved AS (
    INSERT INTO snapshots (game_id, seq, state) VALUES ($1, $2, $8)
    ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, state = excluded.state
    WHERE snapshots.seq <= excluded.seq
), touched AS (
    UPDATE games SET updated_at = $9,
        status = CASE WHEN $10::boolean THEN 'finished' ELSE status END
    WHERE id = $1
), seated AS (
    UPDATE seats SET acted_at = $13::text, timeouts = $14::integer, away = $15::integer
    WHERE game_id = $1 AND colour = $11::text
)
SELECT pg_notify('{CHANNEL}', $12) FROM logged
"""
"""Log row, reveal (the older sealed rows are made public), snapshot (never replaced by an older
one), game, the acting seat's values as given (``$11`` None: none) and notification: the whole
of :meth:`Store.append_action` in one statement. The new row is invisible to the other parts
(they all see the statement's snapshot): it is written with the secrecy the host gave it."""


class PostgresPlay(PostgresBase):
    """Seats, actions and snapshots."""

    # --- seats -----------------------------------------------------------------------------------

    async def seats(self, game_id: int) -> list[Seat]:
        rows = await self._rows(
            "SELECT colour, user_id, ai_level, joined, name, acted_at, timeouts, away,"
            " was_human FROM seats WHERE game_id = $1 ORDER BY joined", game_id)
        return [Seat(r["colour"], r["user_id"], r["ai_level"], r["name"], r["acted_at"],
                     r["timeouts"], bool(r["away"]), bool(r["was_human"]), r["joined"])
                for r in rows]

    async def add_seat(self, game_id: int, colour: str, user_id: int | None,
                       ai_level: str | None, name: str = "", *,
                       acted_at: str | None = None) -> None:
        await self._execute(
            "WITH seated AS (INSERT INTO seats (game_id, colour, user_id, ai_level, name,"
            " joined, acted_at) SELECT $1::bigint, $2::text, $3::bigint, $4::text, $5::text,"
            " COALESCE(MAX(joined), 0) + 1, $6::text FROM seats WHERE game_id = $1),"
            f" touched AS (UPDATE games SET updated_at = $7 WHERE id = $1) {_tell(8)}",
            game_id, colour, user_id, ai_level, name, acted_at, stamp(self.clock),
            self._told(game_id))

    async def remove_seat(self, game_id: int, colour: str,
                          change: SeatChangeRow | None = None) -> None:
        now = stamp(self.clock)
        async with self._transaction() as db:
            await db.execute("DELETE FROM seats WHERE game_id = $1 AND colour = $2",
                             game_id, colour)
            await db.execute("UPDATE games SET updated_at = $1 WHERE id = $2", now, game_id)
            if change is not None:
                await _add_change(db, game_id, change)
            await self._notify(db, game_id)

    async def change_seat(self, game_id: int, seat: Seat, change: SeatChangeRow) -> None:
        now = stamp(self.clock)
        async with self._transaction() as db:
            await db.execute(
                "UPDATE seats SET user_id = $3, ai_level = $4, name = $5, acted_at = $6,"
                " was_human = $7 WHERE game_id = $1 AND colour = $2",
                game_id, seat.colour, seat.user_id, seat.ai_level, seat.name, seat.acted_at,
                int(seat.was_human))
            await db.execute("UPDATE hidden_seats SET dm_closed = 0 WHERE game_id = $1"
                             " AND colour = $2", game_id, seat.colour)
            await db.execute("UPDATE games SET updated_at = $1 WHERE id = $2", now, game_id)
            await _add_change(db, game_id, change)
            await self._notify(db, game_id)

    async def seat_changes(self, game_id: int) -> list[SeatChangeRow]:
        rows = await self._rows("SELECT seq, colour, what, user_id, old_id, by_id, at"
                                " FROM seat_changes WHERE game_id = $1 ORDER BY n", game_id)
        return [SeatChangeRow(*r) for r in rows]

    async def set_away(self, game_id: int, colour: str, away: bool, timeouts: int) -> None:
        await self._change("UPDATE seats SET away = $3, timeouts = $4 WHERE game_id = $1"
                           " AND colour = $2", game_id, colour, int(away), timeouts)

    # --- actions and snapshots -------------------------------------------------------------------

    async def append_action(self, game_id: int, seq: int, line: str, state: dict[str, Any],
                            finished: bool = False, *, events: list[dict[str, Any]] | None = None,
                            by: str = "human", seat: Seat | None = None,
                            sealed: str | None = None, reveals: bool = False,
                            before_commit: Callable[[], None] | None = None) -> None:
        """One statement, one round trip; with ``before_commit``, that statement inside an
        explicit transaction (for tests: BEGIN and COMMIT cost two more)."""
        args = (game_id, seq, line, sealed, dump(events or []), by, reveals, dump(state),
                stamp(self.clock), finished, seat.colour if seat else None,
                self._told(game_id), seat.acted_at if seat else None,
                seat.timeouts if seat else 0, int(seat.away) if seat else 0)
        try:
            if before_commit is None:
                await self._db.execute(_APPEND, *args)
            else:
                async with self._transaction() as db:
                    await db.execute(_APPEND, *args)
                    before_commit()
        except asyncpg.UniqueViolationError as exc:
            if exc.constraint_name == "actions_pkey":
                raise StaleGame(game_id, seq) from exc
            raise

    async def actions(self, game_id: int) -> list[str]:
        rows = await self._rows("SELECT seq, line FROM actions WHERE game_id = $1 ORDER BY seq",
                                game_id)
        damage = gap(game_id, [r["seq"] for r in rows])
        if damage:
            raise RuntimeError(damage)
        return [r["line"] for r in rows]

    async def log(self, game_id: int) -> list[LogRow]:
        rows = await self._rows(_LOG + " WHERE game_id = $1 ORDER BY seq", game_id)
        damage = gap(game_id, [r[0] for r in rows])
        if damage:
            raise RuntimeError(damage)
        return [log_row(r) for r in rows]

    async def take_back(self, game_id: int, at: int, expect_seq: int, colour: str,
                        state: dict[str, Any], seat: Seat | None = None) -> None:
        """The game's row is locked first: an action applied meanwhile by another process
        waits for it, or came first and makes the log end elsewhere."""
        now = stamp(self.clock)
        async with self._transaction() as db:
            await db.execute("SELECT id FROM games WHERE id = $1 FOR UPDATE", game_id)
            rows = await db.fetch(_LOG + " WHERE game_id = $1 AND seq > $2 ORDER BY seq",
                                  game_id, at)
            if [r["seq"] for r in rows] != list(range(at + 1, expect_seq + 1)) or not rows:
                raise RuntimeError(f"game {game_id}: the log does not end at {expect_seq}")
            await db.execute(
                "INSERT INTO takebacks (game_id, number, after_seq, colour, steps, taken_at)"
                " SELECT $1::bigint, COALESCE(MAX(number), 0) + 1, $2::integer, $3::text,"
                " $4::text, $5::text FROM takebacks WHERE game_id = $1",
                game_id, at, colour, kept_steps(rows), now)
            await db.execute("DELETE FROM actions WHERE game_id = $1 AND seq > $2", game_id, at)
            await db.execute("INSERT INTO snapshots (game_id, seq, state) VALUES ($1, $2, $3)"
                             " ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq,"
                             " state = excluded.state", game_id, at, dump(state))
            await db.execute("UPDATE games SET updated_at = $1 WHERE id = $2", now, game_id)
            if seat is not None:
                await db.execute("UPDATE seats SET acted_at = $1, timeouts = $2, away = $3"
                                 " WHERE game_id = $4 AND colour = $5", seat.acted_at,
                                 seat.timeouts, int(seat.away), game_id, seat.colour)
            await self._notify(db, game_id)

    async def takebacks(self, game_id: int) -> list[TakebackRow]:
        rows = await self._rows("SELECT after_seq, colour, steps, taken_at FROM takebacks"
                                " WHERE game_id = $1 ORDER BY number", game_id)
        return [takeback(*r) for r in rows]

    async def snapshot(self, game_id: int) -> Snapshot | None:
        row = await self._row("SELECT seq, state FROM snapshots WHERE game_id = $1", game_id)
        return Snapshot(row["seq"], _loads(row["state"])) if row else None

    async def write_snapshot(self, game_id: int, seq: int, state: dict[str, Any]) -> None:
        await self._change("INSERT INTO snapshots (game_id, seq, state) VALUES ($1, $2, $3)"
                           " ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq,"
                           " state = excluded.state", game_id, seq, dump(state))


def _loads(state: str) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(state)
    return decoded


async def _add_change(db: Connection, game_id: int, change: SeatChangeRow) -> None:
    """A change of hands, numbered after the game's others, at the time it gives."""
    await db.execute(
        "INSERT INTO seat_changes (game_id, n, seq, colour, what, user_id, old_id, by_id, at)"
        " SELECT $1::bigint, COALESCE(MAX(n), 0) + 1, $2::integer, $3::text, $4::text,"
        " $5::bigint, $6::bigint, $7::bigint, $8::text FROM seat_changes WHERE game_id = $1",
        game_id, change.seq, change.colour, change.what, change.user_id, change.old_id,
        change.by_id, change.at)
