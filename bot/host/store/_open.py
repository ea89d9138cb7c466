"""Which backend a database setting names, and the factory that opens it (:func:`open_store`).

A ``Path``, a plain path, ``:memory:`` or a ``sqlite:///path`` URL name a SQLite file (the
URL's path as SQLAlchemy reads it: ``sqlite:///data/games.sqlite3`` is relative,
``sqlite:////var/lib/rapanui/games.sqlite3`` absolute); a ``postgresql://`` or
``postgres://`` URL names a PostgreSQL database.
"""

from __future__ import annotations

from pathlib import Path

from bot.host.clock import Clock, system_clock
from bot.host.store._interface import Store
from bot.host.store._postgres_store import DEFAULT_POOL_SIZE, PostgresStore
from bot.host.store._sqlite_store import SqliteStore

SQLITE_SCHEME = "sqlite:///"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(target: str | Path) -> bool:
    """Whether ``target`` names a PostgreSQL database."""
    return isinstance(target, str) and target.lower().startswith(POSTGRES_SCHEMES)


def sqlite_file(target: str | Path) -> Path | None:
    """The SQLite file ``target`` names (None: a PostgreSQL URL, or ``:memory:``). Raises
    ``ValueError`` for a URL of any other kind, or a ``sqlite:`` URL without a path."""
    if isinstance(target, Path):
        return target
    if is_postgres(target) or target == ":memory:":
        return None
    if target.lower().startswith(SQLITE_SCHEME):
        path = target[len(SQLITE_SCHEME):]
        if not path:
            raise ValueError(f"{target!r} names no file (sqlite:///path)")
        return Path(path)
    if "://" in target or target.lower().startswith("sqlite:"):
        raise ValueError(f"{target!r} is neither sqlite:///path nor postgresql://...")
    return Path(target)


async def open_store(target: str | Path, clock: Clock = system_clock, *,
                     synchronous: str = "FULL",
                     pool_size: int = DEFAULT_POOL_SIZE) -> Store:
    """Open (creating and migrating as needed) the store ``target`` names. Each backend takes
    the options that mean something to it: SQLite its ``synchronous`` level (FULL or NORMAL),
    PostgreSQL the most connections of its pool (``pool_size``)."""
    if is_postgres(target):
        assert isinstance(target, str)
        return await PostgresStore.open(target, clock, pool_size=pool_size)
    path = sqlite_file(target)
    return await SqliteStore.open(":memory:" if path is None else path, clock,
                                  synchronous=synchronous)
