"""``python -m bot backup PATH`` (an online copy of the SQLite file) and ``python -m bot
migrate-store`` (a stopped bot's SQLite file copied into an empty PostgreSQL database, and its
games checked there)."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path

from bot.cli.common import STORE_ERRORS, describe, setting, where
from bot.database_url import POSTGRES_FORM, BadUrl, parse_postgres_url
from bot.host.clock import system_clock
from bot.host.migrate_store import migrate_store
from bot.host.store import (
    InstanceLock,
    InstanceRunning,
    SchemaDiffers,
    SchemaTooNew,
    TargetNotEmpty,
    backup,
    is_postgres,
    read_heartbeats,
    sqlite_file,
)
from bot.settings import Settings, redacted


def backup_to(settings: Settings, target: Path, force: bool) -> int:
    path = settings.sqlite_path
    if path is None:
        print(f"backup copies a SQLite file, and DATABASE_URL names a PostgreSQL database "
              f"({where(settings.database)}): back that up with PostgreSQL's own tools "
              "(pg_dump)", file=sys.stderr)
        return 1
    try:
        written = backup(path, target, force)
    except FileNotFoundError:
        print(f"no database at {path} ({setting(settings)}): nothing to back up",
              file=sys.stderr)
        return 1
    except FileExistsError:
        print(f"{target} exists: choose another file, or add --force to replace it",
              file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"cannot back up to {target}: {exc}", file=sys.stderr)
        return 1
    except (OSError, sqlite3.Error) as exc:
        print(f"backing up {path} to {target} failed: {exc}", file=sys.stderr)
        return 1
    games = "1 game" if written.games == 1 else f"{written.games} games"
    print(f"wrote {written.path}: {games}, {size(written.size)}, schema {written.version} "
          f"(a copy of {path})")
    return 0


def size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KiB"
    return f"{count / 1024 / 1024:.1f} MiB"


def migrate(source: str, target: str) -> int:
    """Copy a stopped bot's SQLite file into an empty PostgreSQL database and check the games
    there (:func:`migrate_store`). 0: copied and every game replays to its snapshot; 1: the
    copy failed (nothing written) or some games failed the check (named); 2: an argument is
    not what it must be, or a bot still runs on the SQLite file."""
    try:
        path = None if is_postgres(source) else sqlite_file(source)
    except ValueError:
        path = None
    if path is None:
        print(f"--from names {where(source)}: migrate-store copies from a SQLite file "
              "(sqlite:///path, or a path)", file=sys.stderr)
        return 2
    if not is_postgres(target):
        print(f"--to names {where(target)}: migrate-store copies into a PostgreSQL database "
              "(postgresql://…)", file=sys.stderr)
        return 2
    try:
        parse_postgres_url(target)
    except BadUrl as exc:
        print(f"--to names {where(target)}: {exc}; the right form: {POSTGRES_FORM}, e.g. "
              "postgresql://rapanui:secret@db:5432/rapanui", file=sys.stderr)
        return 2
    name = redacted(target)
    if not path.is_file():
        print(f"no database at {path}: nothing to copy", file=sys.stderr)
        return 1
    try:
        lock = InstanceLock.take(path)
    except InstanceRunning:
        beats = read_heartbeats(path)
        who = describe(beats[0], system_clock) if beats else "it is starting"
        print(f"a bot is running on {path} ({who}): stop it first, or the moves made during "
              "the copy would stay behind", file=sys.stderr)
        return 2
    try:
        moved = asyncio.run(migrate_store(path, target))
    except TargetNotEmpty as exc:
        print(f"the database {name} is not empty ({exc}): migrate-store copies into an "
              "empty database only (create a new one, e.g. with createdb); nothing was "
              "copied", file=sys.stderr)
        return 1
    except SchemaTooNew as exc:
        print(f"{exc}: run the newer bot's migrate-store; nothing was copied", file=sys.stderr)
        return 1
    except (*STORE_ERRORS, SchemaDiffers) as exc:
        print(f"copying {path} into {name} failed: {exc}; nothing was copied",
              file=sys.stderr)
        return 1
    finally:
        lock.release()
    print(f"copied {path} into {name}, in one transaction:")
    width = max(map(len, moved.copied.rows))
    for table, count in moved.copied.rows.items():
        print(f"  {table:<{width}}  {count}")
    print(f"the next game is number {moved.copied.next_game_id}")
    started = "1 started game" if moved.checked == 1 else f"{moved.checked} started games"
    if not moved.problems:
        print(f"checked {started}: each replays to its snapshot")
        return 0
    for found in moved.problems:
        print(f"problem: game {found.game_id}: {found.problem}")
    print(f"{len(moved.problems)} of {started} failed the check: everything was copied, but "
          f"look into these games before the bot runs on {name} (the SQLite file still holds "
          "them as they were)")
    return 1


__all__ = ["backup_to", "migrate"]
