"""Building the store's rows from what a query read: pure helpers both backends share
(the JSON the store keeps, gaps in a log, a game's rows assembled, its mark, stages and
deadlines). Nothing here touches a database."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bot.host.store._rows import (
    ActiveGame,
    GameMark,
    GameRow,
    LogRow,
    Seat,
    SeatChangeRow,
    Snapshot,
    TakebackRow,
    dump,
    mark_of,
)


def gap(game_id: int, seqs: list[int], after: int = 0) -> str | None:
    """What is wrong with a log numbered ``seqs`` (None: ``after + 1``, ``after + 2``, ... as
    it must be)."""
    if seqs != list(range(after + 1, after + len(seqs) + 1)):
        return f"game {game_id}: the action log has a gap"
    return None


def log_row(row: Iterable[Any]) -> LogRow:
    """A log row from ``seq, line, events, by, sealed`` as read (no checks: quick)."""
    made: LogRow = tuple.__new__(LogRow, row)
    return made


def takeback(at: int, colour: str, steps: str, taken_at: str) -> TakebackRow:
    return TakebackRow(at, colour, [LogRow.of(x["seq"], x["line"], x["events"], x["by"],
                                              x["sealed"]) for x in json.loads(steps)],
                       taken_at)


def kept_steps(rows: Iterable[Any]) -> str:
    """The log rows a take-back removes (``seq, line, events, by, sealed`` each), as the
    ``takebacks`` table keeps them."""
    return dump([{"seq": r[0], "line": r[1], "events": json.loads(r[2]), "by": r[3],
                  "sealed": r[4]} for r in rows])


def game_row(row: Any) -> GameRow:
    """A game from its ``SELECT *`` row (``sqlite3.Row`` or ``asyncpg.Record``: both map
    column names to values); the secret seed is kept as text."""
    values = {key: row[key] for key in row.keys()}  # noqa: SIM118 - neither is a dict
    secret = values.pop("secret_seed")
    values["seed"] = int(secret) if secret is not None else values["seed"]
    return GameRow(**values)


def by_game(rows: Iterable[Any]) -> dict[int, list[Any]]:
    """Rows whose first column is a game id, grouped by it (each group in the rows' order)."""
    groups: dict[int, list[Any]] = {}
    for row in rows:
        groups.setdefault(row[0], []).append(row)
    return groups


@dataclass(frozen=True)
class ActiveRows:
    """What :meth:`Store.load_active` reads, one query a table, each row led by its game id
    (see :func:`assemble`)."""

    games: list[GameRow]
    seats: Iterable[Any]
    """``game_id, colour, user_id, ai_level, joined, name, acted_at, timeouts, away,
    was_human``, by game and joining order."""
    closed: Iterable[Any]
    """``game_id, colour`` of the seats whose DMs are closed."""
    changes: Iterable[Any]
    """``game_id, seq, colour, what, user_id, old_id, by_id, at``, by game and number."""
    snapshots: Iterable[Any]
    """``game_id, seq, state``."""
    takebacks: Iterable[Any]
    """``game_id, after_seq, colour, steps, taken_at``, by game and number."""
    logs: Iterable[Any]
    """``game_id, seq, line, events, by, sealed``, by game and seq."""


def assemble(read: ActiveRows, after: int = 0) -> list[ActiveGame]:
    """Every game of the rows of one consistent read, with the cyclic garbage collector
    paused: a start builds a million objects or so (rows, decoded snapshots), none of them in
    a cycle, and the collector would walk the growing heap again and again (twice the time).
    ``after``: the logs were read from the row after that one on (:meth:`Store.load_game`)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _assemble(read, after)
    finally:
        if paused:
            gc.enable()


def _assemble(read: ActiveRows, after: int) -> list[ActiveGame]:
    seats, closed = by_game(read.seats), by_game(read.closed)
    changes, snapshots = by_game(read.changes), by_game(read.snapshots)
    takebacks, logs = by_game(read.takebacks), by_game(read.logs)
    loaded = []
    for row in read.games:
        log_rows = [log_row(r[1:]) for r in logs.get(row.id, [])]
        snapshot = [Snapshot(seq, json.loads(state))
                    for _, seq, state in snapshots.get(row.id, [])]
        loaded.append(ActiveGame(
            row,
            [Seat(colour, user, ai, name, acted, timeouts, bool(away), bool(was), joined)
             for _, colour, user, ai, joined, name, acted, timeouts, away, was
             in seats.get(row.id, [])],
            {colour for _, colour in closed.get(row.id, [])},
            [SeatChangeRow(*r[1:]) for r in changes.get(row.id, [])],
            snapshot[0] if snapshot else None,
            log_rows,
            [takeback(*r[1:]) for r in takebacks.get(row.id, [])],
            gap(row.id, [r.seq for r in log_rows], after)))
    return loaded


MARK_COLUMNS = ("mark_seq", "mark_takebacks", "mark_changes", "mark_seats", "mark_closed")
"""What a query for :meth:`Store.stored_marks` reads beside each game's ``SELECT *`` row: the
snapshot's seq, the counts of take-backs and seat changes, the seats (a JSON array of
``[colour, user_id, ai_level, away]``) and the colours whose DMs are closed (a list, or a
JSON array)."""


def stored_mark(row: Any) -> GameMark:
    """A game's mark from its row of a :meth:`Store.stored_marks` query."""
    values = {key: row[key] for key in row.keys()}  # noqa: SIM118 - neither is a dict
    seq, takebacks, changes, seats, closed = (values.pop(key) for key in MARK_COLUMNS)
    if isinstance(closed, str):
        closed = json.loads(closed)
    return mark_of(game_row(values), int(seq), int(takebacks), int(changes),
                   (tuple(seat) for seat in json.loads(seats or "[]")), closed or ())


def without(mentions: str, player: str) -> str:
    """The users a ping mentioned (``12,34`` as stored) with this user id taken out."""
    return ",".join(u for u in mentions.split(",") if u and u != player)
