"""The PostgreSQL store's statements: a pool's connection runs each, a write that changes a
game sends its notification in the same statement or transaction, and ``?`` placeholders are
numbered as PostgreSQL takes them. :class:`PostgresBase` is what every part of
:class:`PostgresStore` builds on.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from bot.host.clock import Clock
from bot.host.store._interface import Listener, Transaction
from bot.host.store._rows import (
    StoreClosed,
)

Connection = asyncpg.Connection | PoolConnectionProxy
"""A connection of its own or one lent by a pool: both run statements alike."""

CHANNEL = "rapanui_games"
"""The one notification channel: every change of a game, payload ``<game id>:<token>``."""


def _tell(n: int) -> str:
    """The statement's last part: the notification whose payload is parameter ``n``."""
    return f"SELECT pg_notify('{CHANNEL}', ${n})"


def _changing(sql: str, n: int) -> str:
    """One statement that changes a game, and its notification (parameter ``n``): one round
    trip."""
    return f"WITH changed AS ({sql}) {_tell(n)}"


def numbered(sql: str) -> str:
    """SQL written with ``?`` for each parameter (as SQLite takes it) in PostgreSQL's
    ``$1, $2, ...`` (a ``?`` inside a quoted string stays)."""
    out, count, quoted = [], 0, False
    for char in sql:
        if char == "'":
            quoted = not quoted
        if char == "?" and not quoted:
            count += 1
            out.append(f"${count}")
        else:
            out.append(char)
    return "".join(out)


def _count(status: str) -> int:
    """The rows a statement touched, from its status (``UPDATE 3``)."""
    last = status.rpartition(" ")[2]
    return int(last) if last.isdecimal() else 0


class PostgresTransaction(Transaction):
    """A transaction on one connection of the pool, held for the block."""

    def __init__(self, db: Connection) -> None:
        self._db = db

    async def run(self, sql: str, params: tuple[Any, ...] = ()) -> int | None:
        await self._db.execute(numbered(sql), *params)
        return None

    async def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return list(await self._db.fetch(numbered(sql), *params))


class PostgresBase:
    """The pools of a :class:`PostgresStore`, its clock and its mark on its notifications:
    every part of the store runs its statements through these."""

    def __init__(self, pool: asyncpg.Pool, locks: asyncpg.Pool, url: str,
                 clock: Clock) -> None:
        self._pool = pool
        self._locks = locks
        self._url = url
        self.clock = clock
        self.token = uuid.uuid4().hex[:16]
        """This store's mark on its notifications (the listener skips its own)."""
        self._closed = False
        self._callbacks: list[Listener] = []
        self._listening: asyncpg.Connection | None = None
        self._reconnecting: asyncio.Task[None] | None = None

    @property
    def _db(self) -> asyncpg.Pool:
        if self._closed:
            raise StoreClosed("the store is closed")
        return self._pool

    def _told(self, game_id: int) -> str:
        """The payload that says this store changed that game."""
        return f"{game_id}:{self.token}"

    async def _rows(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        return await self._db.fetch(sql, *args)

    async def _row(self, sql: str, *args: Any) -> asyncpg.Record | None:
        return await self._db.fetchrow(sql, *args)

    async def _execute(self, sql: str, *args: Any) -> str:
        return await self._db.execute(sql, *args)

    async def _change(self, sql: str, game_id: int, *args: Any) -> None:
        """``sql`` (``$1`` the game id, ``$2``... ``args``) and the game's notification, in one
        statement."""
        await self._db.execute(_changing(sql, len(args) + 2), game_id, *args,
                               self._told(game_id))

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Connection]:
        async with self._db.acquire() as db, db.transaction():
            yield db

    async def _notify(self, db: Connection, game_id: int) -> None:
        await db.execute(_tell(1), self._told(game_id))

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        async with self._transaction() as db:
            yield PostgresTransaction(db)
