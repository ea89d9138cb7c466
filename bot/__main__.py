"""``python -m bot [run|check|sync|backup PATH|health|migrate-store|adopt-application]``: run
the bot, or look after it, with settings from the environment (``bot.settings.VARIABLES``);
``migrate-store`` is told its two databases on the command line instead. ``python -m bot
--version`` names the installed package and its version.

Exit status: 0 done (or, for ``check`` and ``health``, all is well), 1 a problem was found or
an operation failed, 2 a setting is missing or bad, another bot runs on the database, or the
token logs in as another Discord application than the one the database belongs to (``health``
exits 1 then: container health checks know only 0 and 1).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import socket
import sqlite3
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import aiohttp
import asyncpg
import discord

from bot import create_bot, logs
from bot.app import INVITE_PERMISSIONS, GameBot
from bot.application import WrongApplication, belongs
from bot.constants import CLOSE_WITHIN, HEARTBEAT, HEARTBEAT_STALE, INVITE_URL
from bot.database_url import POSTGRES_FORM, BadUrl, parse_postgres_url
from bot.host import memory
from bot.host.clock import Clock, system_clock
from bot.host.migrate_store import migrate_store
from bot.host.store import (
    SCHEMA_VERSION,
    DatabaseInfo,
    Heartbeat,
    InstanceLock,
    InstanceRunning,
    SchemaDiffers,
    SchemaTooNew,
    TargetNotEmpty,
    backup,
    inspect,
    inspect_postgres,
    is_postgres,
    open_store,
    read_heartbeats,
    read_postgres_heartbeats,
    shard_list,
    sqlite_file,
)
from bot.settings import (
    BAD_SETTING,
    VARIABLES,
    BadSettings,
    Settings,
    database_target,
    redacted,
)
from bot.web import CannotServe
from render.assets import problems as asset_problems

log = logging.getLogger("bot")

DISTRIBUTION = "rapanui-games"
"""The package's name as pip installs it (pyproject.toml), whose version ``--version`` shows."""

NO_TOKEN = f"""\
DISCORD_TOKEN is not set, so the bot cannot log in to Discord.

Get a token: open https://discord.com/developers/applications, create (or pick) an
application, open its "Bot" tab, press "Reset Token" and copy the token. Then run:

    DISCORD_TOKEN=<your token> python -m bot

Invite the bot with the OAuth2 URL generator (scopes "bot" and "applications.commands";
permissions "View Channels", "Send Messages", "Embed Links", "Attach Files",
"Read Message History", "Create Public Threads", "Send Messages in Threads": the
permission integer {INVITE_PERMISSIONS.value}).
Optional: {", ".join(v.name for v in VARIABLES if v.name != "DISCORD_TOKEN")}
(see docs/ADMIN.md, "Configuration"; `python -m bot check` checks them).
"""
STORE_ERRORS = (SchemaTooNew, sqlite3.Error, asyncpg.PostgresError, asyncpg.InterfaceError,
                OSError)
"""What opening or using the store may raise when the database is unusable (a connection
refused or timed out is an ``OSError``)."""
REFUSED_TOKEN = ("Discord refused DISCORD_TOKEN: reset the token in the Developer Portal's "
                 "Bot tab and set the new one.")
COMMANDS = {
    "run": "run the bot (the default): until SIGTERM or SIGINT, then stop cleanly",
    "check": "check settings, database, catalogues and fonts without reaching Discord",
    "sync": "upload the slash commands (globally, or to GUILD_ID), or remove them (--clear)",
    "backup": "write an online copy of the SQLite games database to PATH (safe while the bot "
              "runs)",
    "health": "exit 0 while the running bot's heartbeat in the database is fresh, else 1 "
              "(PostgreSQL: the bot on this host)",
    "migrate-store": "copy every game from a SQLite file into an empty PostgreSQL database, "
                     "then check that each one replays to its snapshot there",
    "adopt-application": "move the games to the Discord application DISCORD_TOKEN logs in as "
                         "(the database belongs to the first one that logged in on it)",
}


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m bot", description="The Rapa Nui games bot for Discord. Settings come "
        "from environment variables (docs/ADMIN.md, \"Configuration\").")
    top.add_argument("--version", action="version", version=version(),
                     help="show the installed package and its version, and exit")
    sub = top.add_subparsers(dest="command", metavar="{" + ",".join(COMMANDS) + "}",
                             title="commands (run when none is given)")
    for name, help_text in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        if name == "sync":
            command.add_argument("--clear", action="store_true",
                                 help="remove the slash commands globally and from every "
                                 "server they were copied to")
        if name == "backup":
            command.add_argument("path", type=Path, metavar="PATH",
                                 help="the file to write (not the database itself)")
            command.add_argument("--force", action="store_true",
                                 help="replace PATH if it exists")
        if name == "migrate-store":
            command.add_argument("--from", dest="source", required=True, metavar="SQLITE",
                                 help="the bot's SQLite database: sqlite:///path, or a path "
                                 "(stop the bot first)")
            command.add_argument("--to", dest="target", required=True, metavar="POSTGRESQL",
                                 help="an empty PostgreSQL database: postgresql://…")
    return top


def version() -> str:
    """``rapanui-games 0.1.0``: what pip installed (an admin asks it when reporting a bug or
    before an upgrade); a source tree that was never installed says so instead."""
    try:
        return f"{DISTRIBUTION} {metadata.version(DISTRIBUTION)}"
    except metadata.PackageNotFoundError:
        return f"{DISTRIBUTION} (not installed: pip install . first)"


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    command = args.command or "run"
    if command == "check":
        return check()
    if command == "migrate-store":
        return migrate(args.source, args.target)
    try:
        settings = Settings.from_env()
    except BadSettings as exc:
        for line in exc.problems:
            print(line, file=sys.stderr)
        return 1 if command == "health" else 2  # a health check knows 0 and 1 only
    if command == "backup":
        return backup_to(settings, args.path, args.force)
    if command == "health":
        path = settings.sqlite_path
        status, line = (health(path, settings.clock) if path is not None else
                        health_postgres(str(settings.database), settings.clock,
                                        socket.gethostname(), shards_of(settings)))
        print(line)
        return status
    if not settings.token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    logs.configure(settings.log_level, settings.log_format, settings.discord_log_level)
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # no voice here
    if command == "sync":
        return asyncio.run(sync(settings, args.clear))
    if command == "adopt-application":
        return adopt(settings)
    return run(settings)


# --- run ---------------------------------------------------------------------------------------

def run(settings: Settings) -> int:
    """The bot until a signal stops it; refused (2) while another bot runs on the SQLite file
    (PostgreSQL takes no instance lock: several bots may share one database)."""
    try:
        lock = sole_bot(settings)
    except Refused as refused:
        return refused.status
    memory.collect_less()
    try:
        return asyncio.run(serve(settings))
    except CannotServe as exc:
        print(f"{exc}: choose another HTTP_PORT, or stop what uses it", file=sys.stderr)
        return 1
    except STORE_ERRORS as exc:
        print(unusable(settings, exc), file=sys.stderr)
        return 1
    finally:
        if lock is not None:
            lock.release()


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


async def serve(settings: Settings) -> int:
    """Run the bot; SIGTERM and SIGINT close it (:meth:`GameBot.close`) and it returns 0.

    The stop is bounded whatever Discord's state: the close (the outbox's drain, the store)
    gets :data:`CLOSE_WITHIN` seconds, and the connection loop, which during an outage sleeps
    out discord.py's reconnect back-off (or waits a minute for a gateway that does not
    answer), is cancelled once the close is done rather than waited for."""
    assert settings.token is not None
    bot = create_bot(settings)
    loop = asyncio.get_running_loop()
    received: list[str] = []
    stopping: set[asyncio.Task[None]] = set()
    connection: list[asyncio.Task[None]] = []

    async def bounded_stop() -> None:
        closing = asyncio.ensure_future(bot.close())
        done, _ = await asyncio.wait({closing}, timeout=CLOSE_WITHIN)
        if not done:
            log.warning("the close took more than %s s; stopping without waiting for it",
                        CLOSE_WITHIN)
        elif closing.exception() is not None:
            log.error("the close failed: %r", closing.exception())
        if connection and not connection[0].done():
            await asyncio.wait(connection, timeout=CONNECTION_GRACE)
            connection[0].cancel()  # still reconnecting: Discord is unreachable

    def stop(signum: signal.Signals) -> None:
        if received:
            log.info("%s: already stopping", signum.name)
            return
        received.append(signum.name)
        log.info("%s: stopping", signum.name)
        task = loop.create_task(bounded_stop(), name="stop")
        stopping.add(task)
        task.add_done_callback(stopping.discard)

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop, signum)
    try:
        async with bot:
            connection.append(loop.create_task(bot.start(settings.token), name="discord"))
            await asyncio.wait(connection)
            if connection[0].cancelled():
                log.info("the connection to Discord was given up while reconnecting")
            else:
                connection[0].result()  # what it raised, if anything
            if stopping:  # a signal: the stop bounds the close
                await asyncio.wait(stopping)
            elif not received:  # Discord closed the connection: the rest of the stop
                await bot.close()
    except discord.LoginFailure:
        print(REFUSED_TOKEN, file=sys.stderr)
        return 2
    except WrongApplication as exc:
        print(wrong_application(exc), file=sys.stderr)
        return 2
    except aiohttp.ClientConnectionError as exc:
        if received:  # stopped while it was still connecting
            log.info("stopped on %s", received[0])
            return 0
        print(f"cannot reach Discord ({exc}); check the network and try again.",
              file=sys.stderr)
        return 1
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
    log.info("stopped on %s", received[0] if received else "Discord closing the connection")
    return 0


CONNECTION_GRACE = 0.5
"""Seconds the connection loop gets to end by itself after a close (a connected bot's does at
once) before it is cancelled."""


# --- sync --------------------------------------------------------------------------------------

async def sync(settings: Settings, clear: bool) -> int:
    """Log in over HTTP only (no gateway), upload or clear the slash commands, log out."""
    assert settings.token is not None
    bot = create_bot(settings, serve=False)
    try:
        store = await open_store(settings.database, settings.clock,
                                 synchronous=settings.sqlite_synchronous,
                                 pool_size=settings.pool_size)
    except STORE_ERRORS as exc:
        print(unusable(settings, exc), file=sys.stderr)
        return 1
    try:
        async with bot:
            try:
                await log_in(bot, settings.token)
            except Refused as refused:
                return refused.status
            assert bot.application_id is not None, "known once logged in"
            try:
                await belongs(store, bot.application_id)
            except WrongApplication as exc:
                print(wrong_application(exc), file=sys.stderr)
                return 2
            report = await bot.sync_commands(store, clear=clear)
    finally:
        await store.close()
    for where in report.cleared:
        print(f"removed the slash commands {where_name(where)}")
    for where in report.uploaded:
        print(f"uploaded the slash commands {where_name(where)}")
    for failure in report.failed:
        print(f"failed: {failure}", file=sys.stderr)
    if report.uploaded == ["global"]:
        print("global commands can take a while to appear in every server")
    return 1 if report.failed else 0


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


def where_name(where: str) -> str:
    return "globally" if where == "global" else f"in server {where}"


# --- the Discord application -------------------------------------------------------------------

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


def adopt(settings: Settings) -> int:
    """``adopt-application``: refused (2) while a bot runs on the SQLite file, as ``run``."""
    try:
        lock = sole_bot(settings)
    except Refused as refused:
        return refused.status
    try:
        return asyncio.run(adopt_application(settings))
    except STORE_ERRORS as exc:
        print(unusable(settings, exc), file=sys.stderr)
        return 1
    finally:
        if lock is not None:
            lock.release()


async def adopt_application(settings: Settings) -> int:
    """Log in over HTTP only (no gateway) to learn the token's application, and record it as
    the database's in place of the one recorded. The servers counted missing at the other
    application's starts are counted afresh: its list of servers said nothing of this one's."""
    assert settings.token is not None
    bot = create_bot(settings, serve=False)
    store = await open_store(settings.database, settings.clock,
                             synchronous=settings.sqlite_synchronous,
                             pool_size=settings.pool_size)
    try:
        async with bot:
            try:
                await log_in(bot, settings.token)
            except Refused as refused:
                return refused.status
            assert bot.application_id is not None, "known once logged in"
            new = bot.application_id
            old = await store.set_application(new)
            if old != new:
                for guild_id in await store.absences():
                    await store.clear_absence(guild_id)
    finally:
        await store.close()
    name = where(settings.database)
    if old == new:
        print(f"the games database {name} belongs to Discord application {new} already")
    elif old is None:
        print(f"the games database {name} now belongs to Discord application {new}")
    else:
        print(f"the games database {name} now belongs to Discord application {new} (it "
              f"belonged to application {old}); invite application {new} to the servers "
              "the games are in, then start the bot")
    return 0


# --- backup ------------------------------------------------------------------------------------

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


# --- migrate-store -----------------------------------------------------------------------------

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


# --- health ------------------------------------------------------------------------------------

def health(db_path: Path, clock: Clock) -> tuple[int, str]:
    """(0, "ok: ...") while a heartbeat is fresher than :data:`HEARTBEAT_STALE` intervals,
    else (1, "down: ..." or "stale: ..."). Reads the database without creating it."""
    try:
        beats = read_heartbeats(db_path)
    except sqlite3.Error as exc:
        return 1, f"down: cannot read {db_path} ({exc})"
    if not beats:
        return 1, "down: no heartbeat"
    return fresh(beats[0], clock)


def health_postgres(url: str, clock: Clock, host: str,
                    shards: tuple[int, tuple[int, ...]] | None = None) -> tuple[int, str]:
    """:func:`health` for a PostgreSQL database that several bots share: the latest heartbeat
    of a bot on ``host`` (a container's health check runs beside its bot) that runs these
    ``shards`` (count and numbers, as the settings say; None: any)."""
    try:
        beats = asyncio.run(read_postgres_heartbeats(url))
    except STORE_ERRORS as exc:
        return 1, f"down: cannot read {redacted(url)} ({exc})"
    mine = [beat for beat in beats if beat.host == host]
    if shards is not None:
        count, ids = shards
        mine = [beat for beat in mine if (beat.shard_count, beat.shard_ids) == (count, ids)]
        if not mine:
            return 1, f"down: no heartbeat from {host} for shards {shard_list(ids)} of {count}"
    if not mine:
        return 1, f"down: no heartbeat from {host}"
    return fresh(mine[0], clock)


def fresh(beat: Heartbeat, clock: Clock) -> tuple[int, str]:
    age = beat.age(clock())
    if age > HEARTBEAT * HEARTBEAT_STALE:
        return 1, (f"stale: last heartbeat {ago(age)} ago (pid {beat.pid} on "
                   f"{beat.host}{with_shards(beat)})")
    return 0, (f"ok: bot pid {beat.pid} on {beat.host}{with_shards(beat)}, heartbeat "
               f"{ago(age)} ago")


def is_fresh(beat: Heartbeat, clock: Clock) -> bool:
    return beat.age(clock()) <= HEARTBEAT * HEARTBEAT_STALE


# --- check -------------------------------------------------------------------------------------

def check(env: dict[str, str] | None = None) -> int:
    """One line per finding, ``ok:``, ``problem:`` or ``skipped:`` (what a problem above kept
    from being checked); 0 when there is no problem, 2 when a setting is bad (as for every
    command), else 1."""
    findings = check_findings(dict(os.environ) if env is None else env)
    for ok, line in findings:
        print(f"{'ok' if ok else 'skipped' if ok is None else 'problem'}: {line}")
    problems = [line for ok, line in findings if ok is False]
    print("no problem found" if not problems else "1 problem found" if len(problems) == 1
          else f"{len(problems)} problems found")
    if any(line.startswith(BAD_SETTING) for line in problems):
        return 2
    return 1 if problems else 0


def check_findings(env: dict[str, str]) -> list[tuple[bool | None, str]]:
    """Every finding, each (True: ok, False: a problem, None: skipped, what a bad setting kept
    from being checked) with its line: each bad setting is one problem, and the rest is
    checked all the same."""
    findings: list[tuple[bool | None, str]] = []
    try:
        settings: Settings | None = Settings.from_env(env)
        values = {}
    except BadSettings as exc:
        findings += [(False, line) for line in exc.problems]
        settings = None
        values = exc.values
    if settings is not None:
        findings.append((True, "settings: " + ", ".join(
            f"{v.name}={shown(getattr(settings, v.field))}" for v in VARIABLES
            if v.name != "DISCORD_TOKEN")))
        if settings.shard_count is not None:
            findings.append((True, shard_plan(settings)))
    token = settings.token if settings is not None else values.get("token")
    if token:
        findings.append((True, "DISCORD_TOKEN is set (check never reaches Discord: a wrong "
                         "token shows when the bot logs in)"))
    else:
        findings.append((False, "DISCORD_TOKEN is not set: the bot cannot log in (README, "
                         "\"Creating the Discord application\")"))
    if settings is not None:
        target: Path | str | None = settings.database
    elif "database_url" not in values:
        target = None
        findings.append((None, "database not checked: DATABASE_URL is bad"))
    elif values.get("database_url") is None and values.get("db_path") is None:
        target = None
        findings.append((None, "database not checked: GAMES_DB is bad"))
    else:
        target = database_target(values.get("database_url"),
                                 values.get("db_path") or Path())
    if isinstance(target, Path):
        findings += database_findings(target)
    elif target is not None:
        findings += postgres_findings(target)
        if settings is not None:
            findings += running_findings(target, settings)
    found = asset_problems()
    findings += [(False, line) for line in found]
    if not found:
        findings.append((True, "catalogues and fonts"))
    findings.append((True, f"invite permissions {INVITE_PERMISSIONS.value}: "
                     + INVITE_URL.format(application_id="YOUR_APPLICATION_ID",
                                         permissions=INVITE_PERMISSIONS.value)))
    return findings


def shard_plan(settings: Settings) -> str:
    """What a sharded process will run, and whether it uploads the slash commands."""
    count, ids = settings.shard_count, settings.shards_here
    assert count is not None
    alone = len(ids) == count
    runs = (f"this process runs all {count} shards" if alone else
            f"this process runs shards {shard_list(ids)} of {count}, the other "
            f"{count - len(ids)} run in other processes on the same database")
    if settings.syncs_commands:
        syncs = "and uploads the slash commands at start-up"
    elif settings.sync_commands:
        syncs = "and leaves the slash commands to the process that runs shard 0"
    else:
        syncs = "and uploads no slash commands (SYNC_COMMANDS=no)"
    return f"shards: {runs}, {syncs}"


def running_findings(url: str, settings: Settings) -> list[tuple[bool, str]]:
    """The bots whose heartbeat in a shared PostgreSQL database is fresh, one line each; a
    problem when one of them splits the bot into another number of shards than these
    settings do (each process must be given the same SHARD_COUNT)."""
    try:
        beats = asyncio.run(read_postgres_heartbeats(url))
    except STORE_ERRORS:
        return []  # postgres_findings said why
    findings: list[tuple[bool, str]] = []
    for beat in (b for b in beats if is_fresh(b, settings.clock)):
        line = f"running: {describe(beat, settings.clock)}"
        if beat.shard_count != settings.shard_count:
            theirs = beat.shard_count or "none"
            ours = settings.shard_count or "none"
            findings.append((False, f"{line}: its SHARD_COUNT is {theirs}, these settings' "
                             f"{ours}; every process of the bot needs the same"))
        else:
            findings.append((True, line))
    return findings


def shown(value: object) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    if isinstance(value, str) and "://" in value:
        return redacted(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def database_findings(path: Path) -> list[tuple[bool, str]]:
    if not path.exists():
        folder = next(p for p in path.absolute().parents if p.exists())
        if not os.access(folder, os.W_OK | os.X_OK):
            return [(False, f"database {path} does not exist and cannot be created: "
                     f"{folder} is not writable")]
        return [(True, f"database {path} does not exist yet: the bot creates it "
                 f"(schema {SCHEMA_VERSION})")]
    try:
        info = inspect(path)
    except sqlite3.DatabaseError as exc:
        return [(False, f"database {path} cannot be read as SQLite: {exc}")]
    except OSError as exc:
        return [(False, f"database {path} cannot be read: {exc}")]
    findings: list[tuple[bool, str]] = []
    if info.pending < 0:
        findings.append((False, f"database {path} has schema {info.version}, newer than this "
                         f"bot ({SCHEMA_VERSION}): run the newer bot, or restore a backup "
                         "made for this one"))
    elif info.version == 0:
        findings.append((True, f"database {path} is empty: the bot creates its tables"))
    elif info.pending:
        migrations = "1 migration" if info.pending == 1 else f"{info.pending} migrations"
        findings.append((True, f"database {path}: schema {info.version}, {migrations} "
                         f"pending, a backup is written first ({path.name}.v{info.version}"
                         ".bak)"))
    else:
        games = "1 game" if info.games == 1 else f"{info.games} games"
        findings.append((True, f"database {path}: schema {info.version}, {games}"))
    if info.version > 0 and info.pending >= 0:
        findings.append(application_finding(str(path), info))
    if info.integrity == ["ok"]:
        findings.append((True, f"database {path} passes SQLite's integrity check"))
    else:
        findings.append((False, f"database {path} fails SQLite's integrity check: "
                         + "; ".join(info.integrity)))
    if not os.access(path, os.W_OK) or not os.access(path.absolute().parent, os.W_OK):
        findings.append((False, f"database {path} or its folder is not writable: the bot "
                         "needs to write both"))
    return findings


def postgres_findings(url: str) -> list[tuple[bool, str]]:
    """What ``check`` finds in a PostgreSQL database: that it answers, and its schema (read
    only: nothing is created or migrated)."""
    name = redacted(url)
    try:
        info = asyncio.run(inspect_postgres(url))
    except STORE_ERRORS as exc:
        return [(False, f"database {name} cannot be reached: {exc}")]
    if info.pending < 0:
        return [(False, f"database {name} has schema {info.version}, newer than this bot "
                 f"({SCHEMA_VERSION}): run the newer bot, or restore a backup made for this "
                 "one")]
    if info.version == 0:
        return [(True, f"database {name} is empty: the bot creates its tables")]
    if info.pending:
        migrations = "1 migration" if info.pending == 1 else f"{info.pending} migrations"
        return [(True, f"database {name}: schema {info.version}, {migrations} pending (back "
                 "it up with pg_dump first: the bot migrates it when it starts)"),
                application_finding(name, info)]
    games = "1 game" if info.games == 1 else f"{info.games} games"
    return [(True, f"database {name}: schema {info.version}, {games}"),
            application_finding(name, info)]


def application_finding(name: str, info: DatabaseInfo) -> tuple[bool, str]:
    """The Discord application the database belongs to (a bot with another one's token is
    refused), or that the first login records it."""
    if info.application_id is None:
        return (True, f"database {name} belongs to no Discord application yet: the first "
                "login records the token's")
    return (True, f"database {name} belongs to Discord application {info.application_id}: "
            "a bot whose token logs in as another application is refused")


if __name__ == "__main__":
    sys.exit(main())
