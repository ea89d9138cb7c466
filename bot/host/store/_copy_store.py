"""Moving the games from a SQLite file into an empty PostgreSQL database (``python -m bot
migrate-store``): every row of every table, in one transaction on the target.

Both databases are first brought to :data:`SCHEMA_VERSION` by their own stores (the SQLite
file is copied beside itself first if it is older, as at a start of the bot), so the two
hold the same tables with the same columns. The rows go over with PostgreSQL's binary COPY,
a batch at a time, read from one consistent moment of the SQLite file. The target must be
empty: copying into a database that holds games would mix two bots' ids. PostgreSQL does
not advance ``games.id``'s identity for ids given explicitly, so the copy sets it past the
highest copied id (the next game is numbered on from there, as it would have been).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg

from bot.host.store._postgres_base import Connection
from bot.host.store._postgres_store import APPLICATION, PostgresStore
from bot.host.store._rows import (
    GAME_TABLES,
    SCHEMA_VERSION,
)
from bot.host.store._sqlite_store import SqliteStore
from bot.host.store._store_files import _read_only

COPIED_TABLES: tuple[str, ...] = ("games", *GAME_TABLES, "ratings", "guild_settings",
                                  "user_settings", "synced_guilds", "guild_departures",
                                  "discord_application", "guild_absences")
"""Every table of the schema whose rows are the bot's data, in an order that copies a game
before the rows that refer to it."""
LEFT_OUT: tuple[str, ...] = ("heartbeat",)
"""Tables of the schema that are not copied: the heartbeats say which processes run on a
database, and none of the old one's runs on the new one (the target must have none either)."""
BATCH = 5000
"""Rows read from SQLite and sent to PostgreSQL at a time."""


class TargetNotEmpty(Exception):
    """The target database holds rows already: ``rows`` says how many, per table."""

    def __init__(self, rows: dict[str, int]) -> None:
        super().__init__(", ".join(f"{table} {count}" for table, count in rows.items()))
        self.rows = rows


class SchemaDiffers(RuntimeError):
    """A table's columns differ between the two databases (they must be at one schema)."""


@dataclass(frozen=True)
class Copied:
    """What a copy wrote: rows per table (in :data:`COPIED_TABLES` order) and the id the
    target gives its next game."""

    rows: dict[str, int]
    next_game_id: int


async def prepare(source: Path, url: str) -> None:
    """Both databases at this bot's schema: each is opened by its own store (which migrates
    it: the SQLite file after a copy of it beside itself, as at a start) and closed again.
    Raises ``FileNotFoundError`` for a missing source (a store would create it)."""
    if not source.is_file():
        raise FileNotFoundError(source)
    await (await SqliteStore.open(source)).close()
    await (await PostgresStore.open(url, pool_size=1)).close()


async def copy_to_postgres(source: Path, url: str) -> Copied:
    """Copy every row of :data:`COPIED_TABLES` from the SQLite file ``source`` into the
    PostgreSQL database at ``url``, in ONE transaction (all of it or nothing), and set the
    target's next game id past the copied ones. Both must be at :data:`SCHEMA_VERSION`
    (:func:`prepare`). Raises :class:`TargetNotEmpty` (nothing written) when any table of the
    target, heartbeats included, holds a row, and :class:`SchemaDiffers` when a table's
    columns are not the same in both."""
    lite = _read_only(source)
    try:
        version = lite.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            raise SchemaDiffers(f"{source} has schema {version}, not {SCHEMA_VERSION}")
        lite.execute("BEGIN")  # one consistent moment for every table read
        target = await asyncpg.connect(url, server_settings={"application_name": APPLICATION})
        try:
            async with target.transaction():
                return await _copy(lite, target)
        finally:
            await target.close()
    finally:
        lite.close()  # the read transaction ends with it


async def _copy(lite: sqlite3.Connection, target: Connection) -> Copied:
    every = (*COPIED_TABLES, *LEFT_OUT)
    await target.execute(f"LOCK TABLE {', '.join(every)} IN ACCESS EXCLUSIVE MODE")
    found = {table: int(await target.fetchval(f"SELECT COUNT(*) FROM {table}"))
             for table in every}
    if any(found.values()):
        raise TargetNotEmpty({table: count for table, count in found.items() if count})
    rows: dict[str, int] = {}
    for table in COPIED_TABLES:
        columns = [r[1] for r in lite.execute(f"PRAGMA table_info({table})")]
        theirs = {r["column_name"] for r in await target.fetch(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = $1", table)}
        if set(columns) != theirs:
            raise SchemaDiffers(f"{table}: the SQLite columns {sorted(columns)} are not the "
                                f"PostgreSQL ones {sorted(theirs)}")
        rows[table] = 0
        for batch in _batches(lite, table, columns):
            status = await target.copy_records_to_table(table, records=batch, columns=columns)
            rows[table] += int(status.rpartition(" ")[2])
    highest = await target.fetchval("SELECT MAX(id) FROM games")
    if highest is not None:
        await target.execute("SELECT setval(pg_get_serial_sequence('games', 'id'), $1)",
                             highest)
    return Copied(rows, (highest or 0) + 1)


def _batches(lite: sqlite3.Connection, table: str,
             columns: list[str]) -> Iterator[list[tuple[Any, ...]]]:
    quoted = ", ".join(f'"{column}"' for column in columns)
    cursor = lite.execute(f"SELECT {quoted} FROM {table} ORDER BY rowid")
    while batch := cursor.fetchmany(BATCH):
        yield batch
