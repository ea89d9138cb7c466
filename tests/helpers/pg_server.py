"""A real PostgreSQL server for the tests marked ``postgres``: started once per test process
(each pytest-xdist worker gets its own, in its own folder) by :mod:`scripts.pg_temp`, listening
on a Unix socket only, and stopped at the end.

Each test gets a fresh, empty database (:func:`pg_url`), dropped after it. When no PostgreSQL
15 or newer is installed the fixture fails, naming what to install; it never skips (CI
installs it, see ``.ci/run``).
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest

from scripts import pg_temp
from scripts.pg_temp import Server, ServerError

SEARCHED = pg_temp.SEARCHED
"""Where versioned PostgreSQL folders are looked for (a test points it elsewhere)."""


def find_binaries() -> Path:
    """:func:`scripts.pg_temp.find_binaries`; without a usable PostgreSQL the test fails with
    what to install."""
    try:
        return pg_temp.find_binaries(SEARCHED)
    except ServerError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    """One server for this test process."""
    binaries = find_binaries()
    try:
        with pg_temp.temporary_server(binaries) as server:
            yield server
    except ServerError as error:
        pytest.fail(str(error), pytrace=False)


_names = itertools.count(1)


async def _admin(server: Server, sql: str) -> None:
    db = await asyncpg.connect(server.url("postgres"))
    try:
        await db.execute(sql)
    finally:
        await db.close()


@pytest.fixture
async def pg_url(pg_server: Server) -> AsyncIterator[str]:
    """A fresh, empty database on the test server, dropped after the test (with any
    connection a test left open)."""
    name = f"test_{os.getpid()}_{next(_names)}"
    url = await pg_server.create_database(name)
    try:
        yield url
    finally:
        await asyncio.shield(_admin(pg_server, f"DROP DATABASE {name} WITH (FORCE)"))
