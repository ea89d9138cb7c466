"""Running the bot as an admin does: validated settings and README's table of them, the
heartbeat and the instance lock in the store, ``python -m bot check``, ``backup`` and
``health``, ``sync`` against the simulator, and the outbox's drain at a clean stop."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import sqlite3
import stat
import tomllib
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import simcord

import bot.__main__ as cli
import bot.cli.check as cli_check
import bot.cli.common as cli_common
import bot.host.store._store_files as store_files
from bot import create_bot
from bot.adapter.outbox import Outbox
from bot.app import INVITE_PERMISSIONS
from bot.constants import HEARTBEAT, HEARTBEAT_STALE
from bot.host.clock import ManualClock, iso
from bot.host.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    InstanceLock,
    InstanceRunning,
    SqliteStore,
    Store,
    backup_before_migrating,
    lock_path,
    read_heartbeats,
    run,
)
from bot.settings import VARIABLES, BadSettings, Settings

ROOT = Path(__file__).resolve().parent.parent
GUILD = 123456789012345678
OTHER_GUILD = 223456789012345678
BAD = {"GAMES_DB": "/", "BOT_LANGUAGE": "klingon", "LOG_LEVEL": "verbose", "GUILD_ID": "abc",
       "SYNC_COMMANDS": "maybe", "SQLITE_SYNCHRONOUS": "off"}


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch, db_path: Path) -> pytest.MonkeyPatch:
    """The process environment of ``python -m bot``: only GAMES_DB and a token are set."""
    for variable in VARIABLES:
        monkeypatch.delenv(variable.name, raising=False)
    monkeypatch.setenv("GAMES_DB", str(db_path))
    monkeypatch.setenv("DISCORD_TOKEN", "x")
    return monkeypatch


def schema(db_path: Path, version: int) -> None:
    """A database as a bot of schema ``version`` left it."""
    with sqlite3.connect(db_path) as old:
        for step in range(1, version + 1):
            old.executescript(MIGRATIONS[step])
        old.execute(f"PRAGMA user_version = {version}")
    old.close()


def games(db_path: Path) -> int:
    with sqlite3.connect(db_path) as db:
        count = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    db.close()
    return int(count)


async def new_game(store: Store, channel: int) -> None:
    await store.create_game(channel_id=channel, guild_id=1, game="makemake", options="",
                            seed=3, creator_id=1, language="en", ai_level="random")


# --- settings ------------------------------------------------------------------------------------

def test_every_bad_setting_is_named_on_a_line_of_its_own() -> None:
    with pytest.raises(BadSettings) as caught:
        Settings.from_env(BAD)
    lines = caught.value.problems
    assert [line.split(":")[0] for line in lines] == [
        "bad setting GAMES_DB", "bad setting BOT_LANGUAGE", "bad setting LOG_LEVEL",
        "bad setting GUILD_ID", "bad setting SYNC_COMMANDS", "bad setting SQLITE_SYNCHRONOUS"]
    for line, variable in zip(lines, [v for v in VARIABLES if v.name in BAD], strict=True):
        assert re.fullmatch(rf"bad setting {variable.name}: .+; accepted: .+, e\.g\. "
                            rf"{variable.name}=\S+", line), line
        assert f"accepted: {variable.accepted}, e.g. {variable.name}={variable.example}" in line
    assert "'verbose' is not a log level" in lines[2]
    assert "'abc' is not a Discord server id" in lines[3]
    # each example is accepted
    Settings.from_env({v.name: v.example for v in VARIABLES if v.name != "GAMES_DB"})


def test_accepted_values() -> None:
    for text, meant in itertools.chain(
            ((t, True) for t in ("yes", "YES", "true", "On", "1")),
            ((t, False) for t in ("no", "False", "off", "OFF", "0"))):
        assert Settings.from_env({"SYNC_COMMANDS": text}).sync_commands is meant, text
    for level in ("debug", "Info", "WARNING", "error"):
        assert Settings.from_env({"LOG_LEVEL": level}).log_level == level.upper()
    assert Settings.from_env({"GUILD_ID": "1" * 17}).guild_id == int("1" * 17)
    assert Settings.from_env({"GUILD_ID": "9" * 20}).guild_id == int("9" * 20)
    for bad in ("1" * 16, "1" * 21, "-12345678901234567", "12345678901234567x", "42"):
        with pytest.raises(BadSettings, match="GUILD_ID"):
            Settings.from_env({"GUILD_ID": bad})
    assert Settings.from_env({"SQLITE_SYNCHRONOUS": "normal"}).sqlite_synchronous == "NORMAL"
    with pytest.raises(BadSettings, match="SQLITE_SYNCHRONOUS"):
        Settings.from_env({"SQLITE_SYNCHRONOUS": "OFF"})
    for blank in ("", "  "):  # an empty variable is an unset one
        assert Settings.from_env({"LOG_LEVEL": blank, "GUILD_ID": blank}).log_level == "INFO"


def test_games_db_must_name_a_file(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("")
    for bad in (str(tmp_path), f"{tmp_path}/new/", str(tmp_path / "plain" / "games.db")):
        with pytest.raises(BadSettings, match="bad setting GAMES_DB"):
            Settings.from_env({"GAMES_DB": bad})
    assert Settings.from_env({"GAMES_DB": str(tmp_path / "new" / "g.db")}).db_path == \
        tmp_path / "new" / "g.db"


def readme_settings() -> dict[str, list[str]]:
    """The admin handbook's configuration table: variable -> its cells (default, accepted,
    meaning)."""
    text = (ROOT / "docs" / "ADMIN.md").read_text(encoding="utf-8")
    section = text.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 4:
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_readme_lists_every_setting_with_its_default_and_accepted_values() -> None:
    rows = readme_settings()
    assert list(rows) == [v.name for v in VARIABLES]
    for variable in VARIABLES:
        default, accepted, meaning = rows[variable.name]
        assert default == (f"`{variable.default}`" if variable.default else "—"), variable.name
        assert accepted == variable.accepted, variable.name
        assert meaning, variable.name


def test_bad_settings_stop_the_bot_with_status_2_and_no_traceback(
        environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        db_path: Path) -> None:
    for name, value in BAD.items():
        environment.setenv(name, value)
    for command in ([], ["run"], ["sync"], ["backup", str(db_path) + ".bak"], ["health"]):
        assert cli.main(command) == (1 if command == ["health"] else 2), command
        err = capsys.readouterr().err
        assert err.count("bad setting ") == len(BAD) and "Traceback" not in err
    assert not db_path.exists()


def test_no_token_says_what_to_do_with_the_permissions_integer(
        environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    environment.delenv("DISCORD_TOKEN")
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert f"permission integer {INVITE_PERMISSIONS.value}" in err
    assert INVITE_PERMISSIONS.value == 309237763072
    assert cli.main(["sync"]) == 2


def test_version_names_the_installed_package(capsys: pytest.CaptureFixture[str]) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"{project['name']} {project['version']}\n" == \
        "rapanui-games 0.1.0\n"


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for command in ("run", "check", "sync", "backup", "health", "adopt-application"):
        assert re.search(rf"^\s+{command}\s+\S", out, re.MULTILINE), command


# --- the store: heartbeat, synced guilds, durability, the instance lock -------------------------

async def test_schema_10_keeps_heartbeats_and_synced_guilds(db_path: Path) -> None:
    clock = ManualClock()
    store = await SqliteStore.open(db_path, clock)
    try:
        await store.start_heartbeat("dead", 1, "elsewhere")  # a bot that was killed
        await store.start_heartbeat("me", 12, "here")
        [beat] = read_heartbeats(db_path)
        assert (beat.instance, beat.pid, beat.host) == ("me", 12, "here")
        assert beat.started_at == beat.beat_at == iso(clock())
        clock.advance(HEARTBEAT)
        await store.beat("me")
        [beat] = read_heartbeats(db_path)
        assert beat.beat_at == iso(clock()) and beat.started_at != beat.beat_at
        assert beat.age(clock() + timedelta(seconds=5)) == 5
        await store.set_synced_guild(GUILD, True)
        await store.set_synced_guild(OTHER_GUILD, True)
        await store.set_synced_guild(GUILD, False)
        assert await store.synced_guilds() == {OTHER_GUILD}
        await store.end_heartbeat("me")
        assert read_heartbeats(db_path) == [] and await store.heartbeats() == []
    finally:
        await store.close()


async def test_a_schema_9_database_migrates_after_a_backup(db_path: Path) -> None:
    schema(db_path, 9)
    store = await SqliteStore.open(db_path)
    await store.close()
    backup = db_path.with_name(f"{db_path.name}.v9.bak")
    assert backup.exists() and stat.S_IMODE(backup.stat().st_mode) == 0o600
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,) == (15,)
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    db.close()
    assert {"heartbeat", "synced_guilds", "guild_departures"} <= tables


async def test_synchronous_is_full_unless_set_to_normal(db_path: Path) -> None:
    store = await SqliteStore.open(db_path)
    assert await store.synchronous() == "FULL"
    await store.close()
    store = await SqliteStore.open(db_path, synchronous="NORMAL")
    assert await store.synchronous() == "NORMAL"
    await store.close()
    with pytest.raises(ValueError, match="FULL or NORMAL"):
        await SqliteStore.open(db_path, synchronous="OFF")


async def test_a_clean_close_leaves_nothing_in_the_write_ahead_log(db_path: Path) -> None:
    store = await SqliteStore.open(db_path)
    await new_game(store, 1)
    wal = db_path.with_name(db_path.name + "-wal")
    reader = sqlite3.connect(db_path)  # another connection: closing is not the last one
    try:
        assert reader.execute("SELECT COUNT(*) FROM games").fetchone() == (1,)
        assert wal.stat().st_size > 0
        await store.close()
        assert wal.stat().st_size == 0, "checkpointed and truncated"
        assert reader.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        reader.close()
    assert games(db_path) == 1


async def test_closing_waits_for_the_transaction_under_way(db_path: Path) -> None:
    store = await SqliteStore.open(db_path)
    inside, release = asyncio.Event(), asyncio.Event()

    async def writing() -> None:
        async with store.transaction() as db:
            await run(db, "INSERT INTO synced_guilds (guild_id, synced_at) VALUES (1, 'now')")
            inside.set()
            await release.wait()

    writer = asyncio.create_task(writing())
    await inside.wait()
    closing = asyncio.create_task(store.close())
    await asyncio.sleep(0)
    assert not closing.done()
    release.set()
    await asyncio.gather(writer, closing)
    with sqlite3.connect(db_path) as db:
        assert db.execute("SELECT guild_id FROM synced_guilds").fetchall() == [(1,)]
    db.close()


def test_one_instance_lock_per_database(db_path: Path) -> None:
    first = InstanceLock.take(db_path)
    try:
        with pytest.raises(InstanceRunning) as refused:
            InstanceLock.take(db_path)
        assert refused.value.lock_path == lock_path(db_path) == Path(f"{db_path}.lock")
        other = InstanceLock.take(db_path.with_name("other.sqlite3"))  # another database
        other.release()
    finally:
        first.release()
    again = InstanceLock.take(db_path)
    again.release()


async def test_a_second_bot_is_told_who_runs_and_what_to_do(db_path: Path) -> None:
    clock = ManualClock()
    store = await SqliteStore.open(db_path, clock)
    await store.start_heartbeat("first", 4242, "box")
    await store.close()
    clock.advance(5)
    text = cli_common.already_running(db_path, lock_path(db_path), clock)
    assert str(db_path) in text and f"{db_path}.lock" in text
    assert "pid 4242 on box" in text and "last heartbeat 5 s ago" in text
    assert "kill -TERM 4242" in text and "GAMES_DB" in text


# --- check ---------------------------------------------------------------------------------------

def check_lines(capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    status = cli.main(["check"])
    return status, capsys.readouterr().out.splitlines()


def problems(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("problem: ")]


def test_check_on_a_fresh_machine_passes_and_creates_nothing(
        environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        db_path: Path) -> None:
    status, lines = check_lines(capsys)
    assert status == 0, lines
    assert problems(lines) == []
    assert all(line.startswith(("ok: ", "no problem")) for line in lines), lines
    assert f"ok: database {db_path} does not exist yet: the bot creates it (schema 15)" in lines
    assert any(line.startswith("ok: invite permissions 309237763072: https://discord.com/"
                               "oauth2/authorize?client_id=") for line in lines)
    assert "ok: catalogues and fonts" in lines
    assert not db_path.exists() and not lock_path(db_path).exists()


async def test_check_reads_the_database_without_changing_it(
        environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        db_path: Path) -> None:
    store = await SqliteStore.open(db_path)
    await new_game(store, 1)
    await store.close()
    status, lines = check_lines(capsys)
    assert status == 0 and f"ok: database {db_path}: schema 15, 1 game" in lines
    assert f"ok: database {db_path} passes SQLite's integrity check" in lines
    assert (f"ok: database {db_path} belongs to no Discord application yet: the first login "
            "records the token's") in lines
    store = await SqliteStore.open(db_path)
    await store.claim_application(222222222222222222)
    await store.close()
    status, lines = check_lines(capsys)
    assert (f"ok: database {db_path} belongs to Discord application 222222222222222222: a "
            "bot whose token logs in as another application is refused") in lines

    db_path.unlink()
    schema(db_path, 8)
    status, lines = check_lines(capsys)
    assert status == 0, lines
    assert (f"ok: database {db_path}: schema 8, 7 migrations pending, a backup is written "
            f"first ({db_path.name}.v8.bak)") in lines
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (8,), "check migrates nothing"
    db.close()

    with sqlite3.connect(db_path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 2}")
    db.close()
    status, lines = check_lines(capsys)
    assert status == 1
    assert problems(lines) == [f"problem: database {db_path} has schema 17, newer than this "
                               "bot (15): run the newer bot, or restore a backup made for "
                               "this one"]


def test_check_finds_every_problem(environment: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str], db_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    db_path.write_bytes(b"not a database, just some text" * 100)
    status, lines = check_lines(capsys)
    assert status == 1
    assert [p.split(":")[1] for p in problems(lines)] == [f" database {db_path} cannot be "
                                                          "read as SQLite"]
    environment.delenv("DISCORD_TOKEN")
    for name, value in BAD.items():
        if name != "GAMES_DB":
            environment.setenv(name, value)
    monkeypatch.setattr(cli_check, "asset_problems", lambda: ["font data/fonts/x.ttf is missing"])
    status, lines = check_lines(capsys)
    assert status == 2, "a bad setting is status 2, as for every command"
    found = problems(lines)
    with pytest.raises(BadSettings) as bad:
        Settings.from_env({**BAD, "GAMES_DB": str(db_path)})
    assert [p for p in found if p.startswith("problem: bad setting ")] == [
        f"problem: {line}" for line in bad.value.problems]
    assert "problem: DISCORD_TOKEN is not set" in "\n".join(found)
    assert "problem: font data/fonts/x.ttf is missing" in found
    assert any(p.startswith(f"problem: database {db_path} cannot be read") for p in found)
    assert lines[-1] == f"{len(found)} problems found"


# --- backup --------------------------------------------------------------------------------------

async def test_backup_while_the_bot_writes(environment: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str], db_path: Path,
                                           tmp_path: Path) -> None:
    store = await SqliteStore.open(db_path)
    await new_game(store, 1)
    target = tmp_path / "copies" / "games-backup.sqlite3"
    target.parent.mkdir()
    inside, release = asyncio.Event(), asyncio.Event()

    async def writing() -> None:
        async with store.transaction() as db:
            await run(db, "UPDATE games SET options = 'x'")
            await run(db, "INSERT INTO games (channel_id, guild_id, game, seed, secret_seed,"
                      " status, creator_id, language, ai_level, created_at, updated_at)"
                      " SELECT 2, guild_id, game, seed, secret_seed, 'lobby', creator_id,"
                      " language, ai_level, created_at, updated_at FROM games")
            inside.set()
            await release.wait()

    writer = asyncio.create_task(writing())
    await inside.wait()
    try:
        assert cli.main(["backup", str(target)]) == 0  # the transaction is still open
        out = capsys.readouterr().out
        assert re.fullmatch(rf"wrote {re.escape(str(target))}: 1 game, [0-9.]+ KiB, schema 15 "
                            rf"\(a copy of {re.escape(str(db_path))}\)\n", out), out
        assert games(target) == 1, "what was committed when it began"
        with sqlite3.connect(target) as copy:
            assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert copy.execute("SELECT options FROM games").fetchall() == [("",)]
        copy.close()
    finally:
        release.set()
        await writer
    assert games(db_path) == 2
    before = target.read_bytes()
    assert cli.main(["backup", str(target)]) == 1
    assert "exists: choose another file, or add --force" in capsys.readouterr().err
    assert target.read_bytes() == before
    assert cli.main(["backup", str(target), "--force"]) == 0
    assert "2 games" in capsys.readouterr().out and games(target) == 2
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name], "no temporary"
    assert cli.main(["backup", str(db_path), "--force"]) == 1
    assert "is the database itself" in capsys.readouterr().err
    await store.close()
    assert games(db_path) == 2


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The umask most systems give (022): a file SQLite creates is readable by everyone."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


class Watched:
    """A source connection whose backup runs a page at a time and notes, after each page,
    the mode of every file in the copy's folder: the temporary copy and its journal, while
    they are written."""

    def __init__(self, db: sqlite3.Connection, folder: Path) -> None:
        self.db, self.folder = db, folder
        self.seen: dict[str, set[int]] = {}

    def backup(self, copy: sqlite3.Connection) -> None:
        self.db.backup(copy, pages=1, progress=lambda *_: self.look())

    def look(self) -> None:
        for path in self.folder.iterdir():
            self.seen.setdefault(path.name, set()).add(mode(path))

    def execute(self, sql: str) -> sqlite3.Cursor:
        return self.db.execute(sql)

    def close(self) -> None:
        self.db.close()


async def test_a_backup_is_readable_by_its_owner_only_from_its_first_byte(
        environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db_path: Path,
        tmp_path: Path, usual_umask: None) -> None:
    store = await SqliteStore.open(db_path)
    await new_game(store, 1)
    await store.close()
    copies = tmp_path / "copies"
    copies.mkdir()
    target = copies / "games-backup.sqlite3"
    opened: list[Watched] = []
    read_only = store_files._read_only

    def watched(path: Path) -> Watched:
        opened.append(Watched(read_only(path), copies))
        return opened[-1]

    environment.setattr(store_files, "_read_only", watched)
    assert cli.main(["backup", str(target)]) == 0, capsys.readouterr().err
    assert mode(target) == 0o600 and games(target) == 1
    [source] = opened
    written = {name for name in source.seen if name != target.name}
    assert {f".{target.name}.{os.getpid()}.tmp", f".{target.name}.{os.getpid()}.tmp-journal"} \
        <= written, "the copy was watched while it was written"
    assert {name: modes for name, modes in source.seen.items()} == {
        name: {0o600} for name in source.seen}, "no moment when others could read it"
    target.chmod(0o644)  # a copy made by hand, or by an older bot
    assert cli.main(["backup", str(target), "--force"]) == 0
    assert mode(target) == 0o600
    assert sorted(p.name for p in copies.iterdir()) == [target.name]


def test_the_backup_before_a_migration_is_readable_by_its_owner_only(
        db_path: Path, usual_umask: None) -> None:
    schema(db_path, 9)
    backup = db_path.with_name(f"{db_path.name}.v9.bak")
    backup.write_bytes(b"")
    backup.chmod(0o644)  # left by an earlier upgrade, say
    source = Watched(sqlite3.connect(db_path), db_path.parent)
    try:
        assert backup_before_migrating(source, db_path) == backup  # type: ignore[arg-type]
    finally:
        source.close()
    assert mode(backup) == 0o600
    assert {name for name in source.seen if name.endswith("-journal")}, "watched as written"
    assert {name: modes for name, modes in source.seen.items() if name.startswith(".")} == {
        name: {0o600} for name in source.seen if name.startswith(".")}
    with sqlite3.connect(backup) as copy:
        assert copy.execute("PRAGMA user_version").fetchone() == (9,)
    copy.close()
    assert sorted(p.name for p in db_path.parent.iterdir()) == [db_path.name, backup.name]


def test_backup_without_a_database_creates_none(environment: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str],
                                                db_path: Path, tmp_path: Path) -> None:
    assert cli.main(["backup", str(tmp_path / "b.sqlite3")]) == 1
    assert "no database at" in capsys.readouterr().err
    assert not db_path.exists() and not (tmp_path / "b.sqlite3").exists()


# --- health --------------------------------------------------------------------------------------

async def test_health_is_ok_while_the_heartbeat_is_fresh(db_path: Path) -> None:
    assert cli.health(db_path, ManualClock()) == (1, "down: no heartbeat")
    assert not db_path.exists(), "health creates no database"
    schema(db_path, 9)  # an old database has no heartbeat table yet
    assert cli.health(db_path, ManualClock()) == (1, "down: no heartbeat")
    db_path.unlink()
    clock = ManualClock()
    store = await SqliteStore.open(db_path, clock)
    await store.start_heartbeat("me", 12, "box")
    clock.advance(5)
    assert cli.health(db_path, clock) == (0, "ok: bot pid 12 on box, heartbeat 5 s ago")
    clock.advance(HEARTBEAT * HEARTBEAT_STALE - 5)
    assert cli.health(db_path, clock)[0] == 0, "exactly three intervals is still fresh"
    clock.advance(1)
    assert cli.health(db_path, clock)[0] == 1
    clock.advance(4 * 60 - HEARTBEAT * HEARTBEAT_STALE - 1)
    assert cli.health(db_path, clock) == (1, "stale: last heartbeat 4 min ago (pid 12 on box)")
    await store.beat("me")
    assert cli.health(db_path, clock)[0] == 0
    await store.end_heartbeat("me")
    assert cli.health(db_path, clock) == (1, "down: no heartbeat")
    await store.close()


def test_health_from_the_command_line(environment: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str],
                                      db_path: Path) -> None:
    environment.delenv("DISCORD_TOKEN")  # health needs no token
    assert cli.main(["health"]) == 1
    assert capsys.readouterr().out == "down: no heartbeat\n"
    assert not db_path.exists()


# --- the bot: heartbeat, sync, drain -------------------------------------------------------------

def bot_settings(db_path: Path, **changes: Any) -> Settings:
    seeds = itertools.count(7)
    changes.setdefault("render_workers", 0)
    return Settings(db_path=db_path, clock=ManualClock(), seed_source=lambda: next(seeds),
                    **changes)


async def test_the_running_bot_beats_on_its_clock(db_path: Path) -> None:
    settings = bot_settings(db_path)
    game_bot = create_bot(settings)
    async with simcord.run(game_bot) as env:
        [beat] = read_heartbeats(db_path)
        assert (beat.instance, beat.pid) == (game_bot.instance, os.getpid())
        assert beat.beat_at == iso(settings.clock())
        assert isinstance(settings.clock, ManualClock)
        settings.clock.advance(HEARTBEAT)
        await env.advance_time(HEARTBEAT)
        [beat] = read_heartbeats(db_path)
        assert beat.beat_at == iso(settings.clock()) != beat.started_at
        store = game_bot.store
        assert store is not None
    await store.close()


async def test_the_startup_sync_to_guild_id_is_remembered(db_path: Path) -> None:
    game_bot = create_bot(bot_settings(db_path, guild_id=GUILD))
    async with simcord.run(game_bot) as env:
        guild = env.create_guild(id=GUILD)
        channel = guild.create_text_channel("games")
        alice = guild.add_member(env.create_user("alice"))
        assert {"game new", "play"} <= set(alice.available_commands(channel))
        assert env.backend.commands.get(None, {}) == {}, "not globally"
        store = game_bot.store
        assert store is not None
        assert await store.synced_guilds() == {GUILD}
    await store.close()


def command_names(env: simcord.Env, guild: int | None) -> set[str]:
    return {name for name, _ in env.backend.commands.get(guild, {})}


async def test_sync_moves_the_commands_and_clears_what_an_old_guild_id_left(
        db_path: Path) -> None:
    settings = bot_settings(db_path, guild_id=GUILD, sync_commands=False)
    store = await SqliteStore.open(db_path)
    game_bot = create_bot(settings, serve=False)
    try:
        async with simcord.run(game_bot) as env:
            assert game_bot.store is None and game_bot.host is None, "commands only"
            assert not game_bot.heartbeat.is_running() and read_heartbeats(db_path) == []
            report = await game_bot.sync_commands(store)
            assert (report.uploaded, report.cleared, report.failed) == ([str(GUILD)], [], [])
            assert command_names(env, GUILD) >= {"game", "play"}
            assert await store.synced_guilds() == {GUILD}

            settings.guild_id = OTHER_GUILD  # GUILD_ID changed
            report = await game_bot.sync_commands(store)
            assert (report.uploaded, report.cleared) == ([str(OTHER_GUILD)], [str(GUILD)])
            assert command_names(env, GUILD) == set()
            assert command_names(env, OTHER_GUILD) >= {"game", "play"}

            settings.guild_id = None  # and unset: global commands, no guild copy left
            report = await game_bot.sync_commands(store)
            assert (report.uploaded, report.cleared) == (["global"], [str(OTHER_GUILD)])
            assert command_names(env, OTHER_GUILD) == set()
            assert command_names(env, None) >= {"game", "play"}
            assert await store.synced_guilds() == set()

            settings.guild_id = GUILD
            await game_bot.sync_commands(store)
            report = await game_bot.sync_commands(store, clear=True)
            assert (report.uploaded, report.cleared, report.failed) == (
                [], [str(GUILD), "global"], [])
            assert command_names(env, None) == command_names(env, GUILD) == set()
            assert await store.synced_guilds() == set()
            assert game_bot.tree.get_command("play") is not None, "the tree stays whole"
    finally:
        await store.close()


async def test_a_guild_that_refuses_the_clearing(db_path: Path) -> None:
    settings = bot_settings(db_path, sync_commands=False)
    store = await SqliteStore.open(db_path)
    await store.set_synced_guild(GUILD, True)
    await store.set_synced_guild(OTHER_GUILD, True)
    game_bot = create_bot(settings, serve=False)
    try:
        async with simcord.run(game_bot) as env:
            app = env.backend.application_id
            env.inject_error("PUT", f"/applications/{app}/guilds/{GUILD}/commands", status=403,
                             code=50001, message="Missing Access")
            env.inject_error("PUT", f"/applications/{app}/guilds/{OTHER_GUILD}/commands",
                             status=500)
            report = await game_bot.sync_commands(store)
            assert report.uploaded == ["global"] and report.cleared == []
            assert [f.split(":")[0] for f in report.failed] == [f"server {GUILD}",
                                                                 f"server {OTHER_GUILD}"]
            # the bot has no access to the first any more (forgotten); the second may work
            # next time (remembered)
            assert await store.synced_guilds() == {OTHER_GUILD}
            report = await game_bot.sync_commands(store)
            assert report.cleared == [str(OTHER_GUILD)] and report.failed == []
            assert await store.synced_guilds() == set()
    finally:
        await store.close()


async def test_the_drain_waits_for_what_is_being_sent_within_its_bound() -> None:
    outbox = Outbox(SimpleNamespace())  # type: ignore[arg-type]
    sent: list[int] = []
    gate = asyncio.Event()

    async def reconcile(game_id: int) -> None:
        await gate.wait()
        sent.append(game_id)

    outbox.reconcile = reconcile  # type: ignore[method-assign]
    outbox.kick(1)
    outbox.kick(2)
    asyncio.get_running_loop().call_soon(gate.set)
    assert await outbox.drain(5.0) is True
    assert sorted(sent) == [1, 2]
    outbox.kick(3)  # stopping: nothing new starts
    assert 3 not in outbox._running

    stuck = Outbox(SimpleNamespace())  # type: ignore[arg-type]
    never = asyncio.Event()

    async def forever(game_id: int) -> None:
        await never.wait()

    stuck.reconcile = forever  # type: ignore[method-assign]
    stuck.kick(1)
    assert await stuck.drain(0.01) is False
    stuck._running[1].cancel()
