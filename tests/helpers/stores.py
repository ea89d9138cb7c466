"""The store's two backends for the tests that run on both: a ``backend`` fixture (SQLite in
a temporary file; PostgreSQL in a fresh database of the test server, marked ``postgres``) and
what a test needs to look at a database from outside the store, as another program would.

SQL given here is written with ``?`` parameters, as SQLite takes it; for PostgreSQL it is
renumbered the way the store's held transactions do it.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.host.clock import Clock, ManualClock
from bot.host.store import (
    MIGRATIONS,
    POSTGRES_MIGRATIONS,
    PostgresStore,
    SqliteStore,
    Store,
)
from bot.host.store._postgres_base import numbered
from bot.host.store._postgres_store_schema import VERSION_TABLE

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
"""``@pytest.mark.parametrize("backend", BACKENDS, indirect=True)``, or the ``store`` and
``backend`` fixtures of a module that uses :func:`backend_fixture`."""


class Backend(ABC):
    kind: str

    @abstractmethod
    async def open(self, clock: Clock | None = None) -> Store:
        """A store on this database (another one: as another process would open it)."""

    @abstractmethod
    async def committed(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        """What another connection reads now: only committed data."""

    @abstractmethod
    async def execute(self, *statements: str) -> None:
        """Statements run by another program, each committed."""

    @abstractmethod
    async def at_schema(self, version: int) -> None:
        """The database as a bot of that schema left it (migrations 1 to ``version``)."""

    @abstractmethod
    async def version(self) -> int:
        """The schema version the database says it is at."""

    @abstractmethod
    async def at_version(self, version: int) -> None:
        """Make the database say it is at ``version`` (a newer bot's, say)."""

    @abstractmethod
    async def tables(self) -> dict[str, set[str]]:
        """Every table of the bot's schema with its columns."""

    @abstractmethod
    async def indexes(self) -> set[str]:
        """The names of the indexes made by the migrations (not those of primary keys)."""

    async def columns(self, table: str) -> set[str]:
        return (await self.tables())[table]


class SqliteBackend(Backend):
    kind = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path

    async def open(self, clock: Clock | None = None) -> Store:
        return await SqliteStore.open(self.path, clock or ManualClock())

    def _read(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        other = sqlite3.connect(self.path)
        try:
            return other.execute(sql, params).fetchall()
        finally:
            other.close()

    async def committed(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        return self._read(sql, *params)

    async def execute(self, *statements: str) -> None:
        other = sqlite3.connect(self.path, isolation_level=None)
        try:
            for statement in statements:
                other.execute(statement)
        finally:
            other.close()

    async def at_schema(self, version: int) -> None:
        other = sqlite3.connect(self.path)
        try:
            for step in range(1, version + 1):
                other.executescript(MIGRATIONS[step])
            other.execute(f"PRAGMA user_version = {version}")
        finally:
            other.close()

    async def version(self) -> int:
        return int(self._read("PRAGMA user_version")[0][0])

    async def at_version(self, version: int) -> None:
        await self.execute(f"PRAGMA user_version = {version}")

    async def tables(self) -> dict[str, set[str]]:
        names = [r[0] for r in self._read("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: {r[1] for r in self._read(f"PRAGMA table_info({name})")}
                for name in names}

    async def indexes(self) -> set[str]:
        return {r[0] for r in self._read("SELECT name FROM sqlite_master WHERE type = 'index'"
                                         " AND name NOT LIKE 'sqlite_autoindex_%'")}


class PostgresBackend(Backend):
    kind = "postgres"

    def __init__(self, url: str) -> None:
        self.url = url

    async def open(self, clock: Clock | None = None) -> Store:
        return await PostgresStore.open(self.url, clock or ManualClock(), pool_size=3)

    async def committed(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        other = await asyncpg.connect(self.url)
        try:
            return [tuple(r) for r in await other.fetch(numbered(sql), *params)]
        finally:
            await other.close()

    async def execute(self, *statements: str) -> None:
        other = await asyncpg.connect(self.url)
        try:
            for statement in statements:
                await other.execute(statement)
        finally:
            await other.close()

    async def at_schema(self, version: int) -> None:
        await self.execute(VERSION_TABLE, *(POSTGRES_MIGRATIONS[step]
                                            for step in range(1, version + 1)),
                           f"INSERT INTO schema_version (version) VALUES ({version})")

    async def version(self) -> int:
        return int((await self.committed("SELECT version FROM schema_version"))[0][0])

    async def at_version(self, version: int) -> None:
        await self.execute(f"UPDATE schema_version SET version = {version}")

    async def tables(self) -> dict[str, set[str]]:
        rows = await self.committed(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = 'public' AND table_name <> 'schema_version'")
        found: dict[str, set[str]] = {}
        for table, column in rows:
            found.setdefault(table, set()).add(column)
        return found

    async def indexes(self) -> set[str]:
        return {r[0] for r in await self.committed(
            "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'"
            " AND indexname NOT LIKE '%_pkey'")}


def make_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """The backend ``request.param`` names, on a fresh database."""
    if request.param == "sqlite":
        return SqliteBackend(tmp_path / "games.sqlite3")
    return PostgresBackend(request.getfixturevalue("pg_url"))


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """Each test that uses it runs on both backends."""
    return make_backend(request, tmp_path)


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[Store]:
    """A store on the test's fresh database, with a manual clock."""
    opened = await backend.open(ManualClock())
    yield opened
    await opened.close()
