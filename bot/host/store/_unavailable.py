"""Which errors mean the database could not take a write just now (busy or full), as opposed to
a bug: the player is told the move was not saved and may try again, and nothing is lost (the
host changes memory only after a commit)."""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Iterator

import asyncpg

BUSY = "busy"
"""The database is locked or out of connections longer than its timeout."""
FULL = "full"
"""The disk (or the database server's) is full."""

_SQLITE_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
_SQLITE_FULL = {sqlite3.SQLITE_FULL}
_DISK_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_PG_FULL = (asyncpg.DiskFullError, asyncpg.OutOfMemoryError)
_PG_BUSY = (asyncpg.LockNotAvailableError, asyncpg.QueryCanceledError,
            asyncpg.DeadlockDetectedError, asyncpg.SerializationError,
            asyncpg.TooManyConnectionsError, asyncpg.CannotConnectNowError,
            asyncpg.AdminShutdownError, asyncpg.PostgresConnectionError)
_STORE_MODULES = ("asyncpg", "bot.host.store")
"""Where a timeout or a lost connection counts as the database's (a pool that lent no
connection in time, a connection that timed out): not a Discord call's."""


def unavailable(error: BaseException) -> str | None:
    """:data:`BUSY` or :data:`FULL` when ``error`` (or an error it was raised from) says the
    database could not take the write now; None for anything else."""
    for found in _chain(error):
        if isinstance(found, sqlite3.OperationalError):
            code = getattr(found, "sqlite_errorcode", None)
            text = str(found).lower()
            if code in _SQLITE_FULL or "database or disk is full" in text:
                return FULL
            if code in _SQLITE_BUSY or "database is locked" in text \
                    or "database table is locked" in text:
                return BUSY
        if isinstance(found, _PG_FULL):
            return FULL
        if isinstance(found, _PG_BUSY):
            return BUSY
        if isinstance(found, OSError) and found.errno in _DISK_ERRNOS:
            return FULL
        if isinstance(found, TimeoutError | ConnectionError) and _raised_in_store(found):
            return BUSY
    return None


def _chain(error: BaseException) -> Iterator[BaseException]:
    """The error and those it was raised from or during, each once."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _raised_in_store(error: BaseException) -> bool:
    trace = error.__traceback__
    while trace is not None:
        name = str(trace.tb_frame.f_globals.get("__name__", ""))
        if name.startswith(_STORE_MODULES):
            return True
        trace = trace.tb_next
    return False
