"""``python -m bot`` as a process against a stub Discord (tests/helpers/stub_discord.py):
SIGTERM and SIGINT stop it cleanly (exit 0 within 5 s, the heartbeat row gone, the write-ahead
log empty, the database sound, the instance lock released), and a second bot on the same
database is refused with status 2 and a message that says who runs and what to do; so is a token
of another Discord application than the one the database belongs to, and it changes nothing."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.host.sessions import Host
from bot.host.store import InstanceLock, SqliteStore, read_heartbeats
from tests.helpers.processes import START_WITHIN, STOP_WITHIN, bot_env, until
from tests.helpers.stub_discord import APP_ID, StubDiscord


@pytest.fixture
async def stub() -> AsyncIterator[StubDiscord]:
    discord_stub = StubDiscord()
    await discord_stub.start()
    yield discord_stub
    await discord_stub.stop()


async def start_bot(env: dict[str, str], folder: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=folder, env=env, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)


async def running(stub: StubDiscord, process: asyncio.subprocess.Process,
                  db_path: Path) -> None:
    """Wait until the bot is connected (identified at the gateway) and has beaten."""
    await until(lambda: process.returncode is not None or (
        stub.identified > 0 and read_heartbeats(db_path) != []), "the bot started")
    if process.returncode is not None:
        _, err = await process.communicate()
        raise AssertionError(f"the bot exited with {process.returncode}: {err.decode()}")


async def finished(process: asyncio.subprocess.Process) -> bytes:
    """The standard error of a process that should end by itself (killed if it does not)."""
    try:
        _, err = await asyncio.wait_for(process.communicate(), START_WITHIN)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_stops_the_bot_cleanly(stub: StubDiscord, tmp_path: Path,
                                              signum: signal.Signals) -> None:
    db_path = tmp_path / "data" / "games.sqlite3"
    process = await start_bot(bot_env(stub, tmp_path, db_path), tmp_path)
    try:
        await running(stub, process, db_path)
        [beat] = read_heartbeats(db_path)
        assert beat.pid == process.pid
        assert stub.requests[:2] == ["GET /users/@me", "GET /oauth2/applications/@me"]
        process.send_signal(signum)
        _, err = await asyncio.wait_for(process.communicate(), STOP_WITHIN)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    log = err.decode()
    assert process.returncode == 0, log
    assert f"stopped on {signum.name}" in log and "Traceback" not in log
    assert stub.closed == 1, "it closed its gateway connection"
    assert read_heartbeats(db_path) == []
    wal = db_path.with_name(db_path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    db.close()
    InstanceLock.take(db_path).release()  # the lock is free again


async def test_a_second_bot_on_the_same_database_is_refused(stub: StubDiscord,
                                                            tmp_path: Path) -> None:
    db_path = tmp_path / "games.sqlite3"
    env = bot_env(stub, tmp_path, db_path)
    first = await start_bot(env, tmp_path)
    try:
        await running(stub, first, db_path)
        with pytest.raises(Exception, match="held by another process"):
            InstanceLock.take(db_path)
        second = await start_bot(env, tmp_path)
        err = await finished(second)
        text = err.decode()
        assert second.returncode == 2, text
        assert f"another bot is already running on the database {db_path}" in text
        assert f"pid {first.pid} on " in text and f"{db_path}.lock" in text
        assert f"kill -TERM {first.pid}" in text and "GAMES_DB" in text
        assert "Traceback" not in text
        assert stub.identified == 1, "the second never reached Discord"
        [beat] = read_heartbeats(db_path)
        assert beat.pid == first.pid, "the first bot's heartbeat stays"
        first.send_signal(signal.SIGTERM)
        await asyncio.wait_for(first.communicate(), STOP_WITHIN)
        assert first.returncode == 0
    finally:
        if first.returncode is None:
            first.kill()
            await first.wait()


async def test_a_database_of_a_newer_bot_is_left_alone(stub: StubDiscord, tmp_path: Path) -> None:
    db_path = tmp_path / "games.sqlite3"
    with sqlite3.connect(db_path) as db:
        db.execute("PRAGMA user_version = 99")
    db.close()
    process = await start_bot(bot_env(stub, tmp_path, db_path), tmp_path)
    err = await finished(process)
    text = err.decode()
    assert process.returncode == 1, text
    assert "schema 99, newer than this bot" in text and "restore a backup" in text
    assert "Traceback" not in text
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (99,)
    db.close()
    InstanceLock.take(db_path).release()


async def test_sync_logs_in_over_http_only(stub: StubDiscord, tmp_path: Path) -> None:
    db_path = tmp_path / "games.sqlite3"
    env = bot_env(stub, tmp_path, db_path)

    async def sync(*args: str, **changes: str) -> tuple[int | None, str, str]:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "sync", *args, cwd=tmp_path, env={**env, **changes},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            out, err = await asyncio.wait_for(process.communicate(), START_WITHIN)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        return process.returncode, out.decode(), err.decode()

    guild = "123456789012345678"
    status, out, err = await sync(GUILD_ID=guild)
    assert status == 0, err
    assert out.splitlines() == [f"uploaded the slash commands in server {guild}"]
    assert {"game", "play"} <= set(stub.commands[guild]) and "global" not in stub.commands
    status, out, err = await sync()
    assert status == 0, err
    assert out.splitlines() == [f"removed the slash commands in server {guild}",
                                "uploaded the slash commands globally",
                                "global commands can take a while to appear in every server"]
    assert stub.commands[guild] == [] and {"game", "play"} <= set(stub.commands["global"])
    status, out, err = await sync("--clear")
    assert status == 0, err
    assert out.splitlines() == ["removed the slash commands globally"]
    assert stub.commands["global"] == []
    assert stub.identified == 0, "no gateway connection"
    assert read_heartbeats(db_path) == [], "a sync is no running bot"


# --- the Discord application ---------------------------------------------------------------------

OTHER_APP = "333333333333333333"
RUNNING = 5
"""Running games in as many servers: the issue's start with another application's token ended
every one of them (none of their servers is in that application's READY)."""


async def with_running_games(db_path: Path) -> list[int]:
    """A database that belongs to another application than the stub's: one running Make Make
    game (a human and two AI seats) in each of :data:`RUNNING` servers."""
    store = await SqliteStore.open(db_path)
    host = Host(store, seed_source=lambda: 7)
    ids = []
    for n in range(RUNNING):
        session = await host.create(channel_id=1000 + n, guild_id=900 + n, game="makemake",
                                    options={}, creator_id=1, language="en", join=False)
        await host.join(session.id, 1)
        for _ in range(2):
            await host.add_ai(session.id, 1)
        await host.start(session.id, 1)
        ids.append(session.id)
    await store.set_application(int(OTHER_APP))
    await store.note_absence(900)  # missing at a start of the other application
    await store.close()
    return ids


def every_row(db_path: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(db_path) as db:
        tables = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        found = {table: db.execute(f"SELECT * FROM {table}").fetchall() for table in tables}
    db.close()
    return found


def statuses(db_path: Path) -> dict[int, str]:
    return {r[0]: r[7] for r in every_row(db_path)["games"]}


async def command(env: dict[str, str], folder: Path, *argv: str) -> tuple[int | None, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *argv, cwd=folder, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(process.communicate(), START_WITHIN)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return process.returncode, out.decode(), err.decode()


async def test_another_applications_token_is_refused_and_changes_nothing(
        stub: StubDiscord, tmp_path: Path) -> None:
    db_path = tmp_path / "games.sqlite3"
    games = await with_running_games(db_path)
    before = every_row(db_path)
    assert statuses(db_path) == dict.fromkeys(games, "running")
    env = bot_env(stub, tmp_path, db_path)

    status, out, err = await command(env, tmp_path)  # run, with the stub's application 222...
    assert status == 2, err
    assert (f"this games database belongs to Discord application {OTHER_APP}, but "
            f"DISCORD_TOKEN logs in as application {APP_ID}: the bot did not start and "
            "changed nothing") in err
    assert "python -m bot adopt-application" in err and "Traceback" not in err
    assert every_row(db_path) == before, "no game ended, no departure, no heartbeat left"
    assert stub.identified == 0, "it never connected to the gateway"
    assert stub.requests == ["GET /users/@me", "GET /oauth2/applications/@me"], \
        "no message sent, no command uploaded"
    InstanceLock.take(db_path).release()

    status, out, err = await command({**env, "SYNC_COMMANDS": "yes"}, tmp_path, "sync")
    assert status == 2 and out == "", err
    assert f"belongs to Discord application {OTHER_APP}, but DISCORD_TOKEN logs in as " \
           f"application {APP_ID}" in err
    assert stub.commands == {} and every_row(db_path) == before

    # on purpose: the games move to the token's application
    status, out, err = await command(env, tmp_path, "adopt-application")
    assert status == 0, err
    assert out.splitlines() == [
        f"the games database {db_path} now belongs to Discord application {APP_ID} (it "
        f"belonged to application {OTHER_APP}); invite application {APP_ID} to the servers "
        "the games are in, then start the bot"]
    after = every_row(db_path)
    assert after["discord_application"][0][1] == int(APP_ID)
    assert after["guild_absences"] == [], "the new application's starts count afresh"
    moved = ("discord_application", "guild_absences")
    assert {t: r for t, r in after.items() if t not in moved} == {
        t: r for t, r in before.items() if t not in moved}

    process = await start_bot(env, tmp_path)
    try:
        await running(stub, process, db_path)
        # READY lists none of the servers: one start judges none of them removed
        await until(lambda: len(every_row(db_path)["guild_absences"]) == RUNNING,
                    "the missing servers are counted")
        process.send_signal(signal.SIGTERM)
        _, err_bytes = await asyncio.wait_for(process.communicate(), STOP_WITHIN)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err_bytes.decode()
    assert statuses(db_path) == dict.fromkeys(games, "running"), "every game still runs"
    stored = every_row(db_path)
    assert stored["guild_departures"] == []
    assert [r[1] for r in stored["guild_absences"]] == [1] * RUNNING
