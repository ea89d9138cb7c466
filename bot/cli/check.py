"""``python -m bot check``: the settings, the database, the catalogues and the fonts checked
without reaching Discord, one line per finding."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

from bot.app import INVITE_PERMISSIONS
from bot.cli.common import STORE_ERRORS, describe
from bot.cli.health import is_fresh
from bot.constants import INVITE_URL
from bot.host.store import (
    SCHEMA_VERSION,
    DatabaseInfo,
    inspect,
    inspect_postgres,
    read_postgres_heartbeats,
    shard_list,
)
from bot.settings import (
    BAD_SETTING,
    VARIABLES,
    BadSettings,
    Settings,
    database_target,
    redacted,
)
from render.assets import problems as asset_problems


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


__all__ = ["check", "check_findings", "running_findings"]
