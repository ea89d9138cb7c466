"""The SQLite database as a file, for the commands that do not run the bot (``check``,
``backup``, ``health``) and for the one that does: the instance lock that keeps a second bot
off the same file, a read of the heartbeats, an inspection and an online backup, each without
creating or changing the database.

A copy of the database holds everything the database does (user ids, names, ratings: docs/
ADMIN.md, "Privacy"), so every copy is written private to its owner (:data:`PRIVATE`), from
the moment its file exists: :func:`write_copy`.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path

from bot.host.store._rows import (
    BackupInfo,
    DatabaseInfo,
    Heartbeat,
    InstanceRunning,
    heartbeat,
)

PRIVATE = 0o600
"""The mode of every copy of the database: read and written by its owner only."""


def lock_path(path: Path) -> Path:
    """The file whose lock says a bot runs on the database at ``path``."""
    return path.with_name(f"{path.name}.lock")


class InstanceLock:
    """The exclusive lock of one running bot on its database (``<db>.lock``, ``flock``): a
    second bot on the same file is refused, and the system releases the lock when the
    process ends, however it ends. :meth:`take` it before opening the store to run."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def take(cls, db_path: Path) -> InstanceLock:
        """Raises :class:`InstanceRunning` while another process holds it."""
        path = lock_path(db_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise InstanceRunning(path) from None
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd)

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _read_only(path: Path) -> sqlite3.Connection:
    """A connection for reading that never creates the file (``FileNotFoundError`` if it is
    missing). It opens read-write when it may, so that, as the last connection, it removes
    the ``-wal`` and ``-shm`` files on closing, as the bot does; read-only otherwise."""
    if not path.is_file():
        raise FileNotFoundError(path)
    uri = path.resolve().as_uri()
    try:
        return sqlite3.connect(f"{uri}?mode=rw", uri=True)
    except sqlite3.OperationalError:
        return sqlite3.connect(f"{uri}?mode=ro", uri=True)


def _tables(db: sqlite3.Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def read_heartbeats(path: Path) -> list[Heartbeat]:
    """The heartbeat rows of the database at ``path``, newest first, read without creating
    or changing anything: none when the file, or its heartbeat table, is missing."""
    try:
        db = _read_only(path)
    except FileNotFoundError:
        return []
    try:
        if "heartbeat" not in _tables(db):
            return []
        db.row_factory = sqlite3.Row
        rows = db.execute("SELECT * FROM heartbeat ORDER BY beat_at DESC").fetchall()
    finally:
        db.close()
    return [heartbeat(row) for row in rows]


def inspect(path: Path) -> DatabaseInfo:
    """Schema, integrity, games and Discord application of the database at ``path``, read
    only. Raises ``FileNotFoundError`` when it is missing and ``sqlite3.DatabaseError`` when
    it is no SQLite database."""
    db = _read_only(path)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        integrity = [r[0] for r in db.execute("PRAGMA integrity_check(10)")]
        tables = _tables(db)
        games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0] \
            if "games" in tables else 0
        recorded = db.execute("SELECT application_id FROM discord_application").fetchone() \
            if "discord_application" in tables else None
    finally:
        db.close()
    return DatabaseInfo(version, integrity, games, None if recorded is None else recorded[0])


def backup(path: Path, target: Path, force: bool = False) -> BackupInfo:
    """An online backup of the database at ``path`` to ``target``: SQLite's backup API on a
    read-only connection (a running bot goes on writing; the copy holds what was committed
    when it began), written by :func:`write_copy`, so ``target`` is whole or absent and
    readable by its owner only. Raises ``FileNotFoundError`` (no database),
    ``FileExistsError`` (``target`` exists and not ``force``) or ``ValueError`` (the target
    is the database itself, or a folder)."""
    if target.resolve() == path.resolve():
        raise ValueError(f"{target} is the database itself")
    if target.is_dir():
        raise ValueError(f"{target} is a folder")
    if target.exists() and not force:
        raise FileExistsError(target)
    source = _read_only(path)
    try:
        version, games = write_copy(source, target, force)
    finally:
        source.close()
    return BackupInfo(target, target.stat().st_size, games, version)


def write_copy(source: sqlite3.Connection, target: Path, force: bool = True) -> tuple[int, int]:
    """Copy the database open on ``source`` to ``target`` with SQLite's backup API, through
    a temporary file beside it that is created private (:data:`PRIVATE`) before SQLite writes
    a byte into it (and SQLite gives its journal the file's mode), synced, then renamed: no
    moment when another user could read it, and ``target`` whole or absent. Returns the copy's
    schema version and number of games. Raises ``FileExistsError`` when ``target`` appeared
    meanwhile and not ``force``."""
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        _create_private(temporary)
        copy = sqlite3.connect(temporary)
        try:
            source.backup(copy)
            version = copy.execute("PRAGMA user_version").fetchone()[0]
            games = copy.execute("SELECT COUNT(*) FROM games").fetchone()[0] \
                if "games" in _tables(copy) else 0
        finally:
            copy.close()
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        if not force and target.exists():
            raise FileExistsError(target)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    folder = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
    return version, games


def _create_private(path: Path) -> None:
    """An empty file at ``path`` (a leftover of a killed backup is replaced) that only its
    owner may read or write: SQLite would create it with the umask's mode, 0644 as a rule."""
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE)
    try:
        os.fchmod(descriptor, PRIVATE)  # an odd umask may have taken the owner's bits too
    finally:
        os.close(descriptor)
