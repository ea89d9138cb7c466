"""What the commands share: how they name a database and say it cannot be used, how they
describe a running bot from its heartbeat, the SQLite file's instance lock, and logging in to
Discord over HTTP only.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import aiohttp
import asyncpg
import discord

from bot.app import GameBot
from bot.application import WrongApplication
from bot.host.clock import Clock, system_clock
from bot.host.store import (
    Heartbeat,
    InstanceLock,
    InstanceRunning,
    SchemaTooNew,
    read_heartbeats,
)
from bot.settings import Settings, redacted

STORE_ERRORS = (SchemaTooNew, sqlite3.Error, asyncpg.PostgresError, asyncpg.InterfaceError,
                OSError)
"""What opening or using the store may raise when the database is unusable (a connection
refused or timed out is an ``OSError``)."""
REFUSED_TOKEN = ("Discord refused DISCORD_TOKEN: reset the token in the Developer Portal's "
                 "Bot tab and set the new one.")


class Refused(Exception):
    """A command refused before it started, having said why: its exit status."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def sole_bot(settings: Settings) -> InstanceLock | None:
    """The SQLite file's instance lock, taken for a command that must be the only bot on it
    (``run``, ``adopt-application``); None for PostgreSQL, which takes none (several bots
    may share one database). Raises :class:`Refused` (2: another bot runs on it; 1: its
    folder cannot be used), having said why."""
    path = settings.sqlite_path
    if path is None:
        return None
    try:
        return InstanceLock.take(path)
    except InstanceRunning as exc:
        print(already_running(path, exc.lock_path, system_clock), file=sys.stderr)
        raise Refused(2) from exc
    except OSError as exc:
        print(f"cannot use the database folder of {path} ({setting(settings)}): {exc}",
              file=sys.stderr)
        raise Refused(1) from exc


def setting(settings: Settings) -> str:
    """The setting that names the database."""
    return "DATABASE_URL" if settings.database_url is not None else "GAMES_DB"


def where(target: Path | str) -> str:
    """A database as the messages name it (a URL without its password)."""
    return redacted(target) if isinstance(target, str) else str(target)


def unusable(settings: Settings, exc: Exception) -> str:
    """Why the database cannot be opened, and what to do."""
    name = where(settings.database)
    if isinstance(exc, SchemaTooNew):
        return (f"{exc} ({name}): run the newer bot, or restore a backup made for this "
                "one (`python -m bot check` tells)")
    return f"cannot open the database {name} ({setting(settings)}): {exc}"


def already_running(db_path: Path, lock_path: Path, clock: Clock) -> str:
    """Why a second bot on the same database is refused, and what to do."""
    beats = read_heartbeats(db_path)
    if beats:
        who = describe(beats[0], clock)
        pid = str(beats[0].pid)
    else:
        who = "it has not written its heartbeat yet (it is starting)"
        pid = "<pid>"
    return (f"another bot is already running on the database {db_path}: {who}; it holds the "
            f"lock {lock_path}.\nStop that bot first (`docker stop`, or `kill -TERM {pid}` "
            f"on its host), or give this one a database of its own (GAMES_DB).")


def describe(beat: Heartbeat, clock: Clock) -> str:
    return (f"pid {beat.pid} on {beat.host}{with_shards(beat)}, started {beat.started_at}, "
            f"last heartbeat {ago(beat.age(clock()))} ago")


def with_shards(beat: Heartbeat) -> str:
    """``, shards 0,1 of 2`` after a bot's process and host, when it is sharded."""
    return f", {beat.shards}" if beat.shards else ""


def shards_of(settings: Settings) -> tuple[int, tuple[int, ...]] | None:
    """The shards these settings run (their count and numbers); None: not sharded."""
    if settings.shard_count is None:
        return None
    return settings.shard_count, settings.shards_here


def ago(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h"


async def log_in(bot: GameBot, token: str) -> None:
    """Log in over HTTP only (no gateway), for a command that needs the token's application;
    raises :class:`Refused` (2: Discord refused the token; 1: Discord cannot be reached),
    having said why."""
    try:
        await bot.login(token)
    except discord.LoginFailure as exc:
        print(REFUSED_TOKEN, file=sys.stderr)
        raise Refused(2) from exc
    except aiohttp.ClientConnectionError as exc:
        print(f"cannot reach Discord ({exc}); check the network and try again.",
              file=sys.stderr)
        raise Refused(1) from exc


def wrong_application(exc: WrongApplication) -> str:
    """Why a bot with another application's token is refused, and the two ways on."""
    return (f"this games database belongs to Discord application {exc.recorded}, but "
            f"DISCORD_TOKEN logs in as application {exc.logged_in}: the bot did not start and "
            "changed nothing (no game ended, no message sent, no command uploaded).\n"
            f"Use the token of application {exc.recorded} (Developer Portal, that application's "
            "\"Bot\" tab). Or, to move the games to application "
            f"{exc.logged_in} on purpose, stop every bot on this database and run "
            "`python -m bot adopt-application` with this token (docs/ADMIN.md, \"Another "
            "Discord application\").")


__all__ = ["REFUSED_TOKEN", "STORE_ERRORS", "Refused", "ago", "already_running", "describe",
           "log_in", "setting", "shards_of", "sole_bot", "unusable", "where", "with_shards",
           "wrong_application"]
