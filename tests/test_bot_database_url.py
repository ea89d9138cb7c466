"""Which database the bot uses: ``DATABASE_URL`` (``sqlite:///`` or ``postgresql://``) and
``GAMES_DB``, validated at start, opened through one factory; and the commands on a
PostgreSQL database (``check`` reads it without changing it, ``health`` reads this host's
heartbeat, ``backup`` says what to use instead)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

import bot.__main__ as cli
from bot.host.clock import ManualClock
from bot.host.store import (
    PostgresStore,
    SqliteStore,
    is_postgres,
    open_store,
    sqlite_file,
)
from bot.settings import VARIABLES, BadSettings, Settings, redacted
from tests.stores import PostgresBackend

PASSWORD = "s3cret-w0rd"
T = TypeVar("T")


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The process environment of ``python -m bot``, with nothing set but a token."""
    for variable in VARIABLES:
        monkeypatch.delenv(variable.name, raising=False)
    monkeypatch.setenv("DISCORD_TOKEN", "x")
    return monkeypatch


def test_database_url_names_a_sqlite_file_or_a_postgresql_database(tmp_path: Path) -> None:
    relative = Settings.from_env({"DATABASE_URL": "sqlite:///data/other.sqlite3"})
    assert relative.database == relative.sqlite_path == Path("data/other.sqlite3")
    absolute = Settings.from_env({"DATABASE_URL": f"sqlite:///{tmp_path}/g.sqlite3"})
    assert absolute.database == tmp_path / "g.sqlite3", "sqlite:////abs/path is absolute"
    for url in ("postgresql://rapanui:pw@db:5432/rapanui", "postgres://db/rapanui",
                "postgresql:///rapanui?host=/run/postgresql"):
        settings = Settings.from_env({"DATABASE_URL": url})
        assert settings.database == url and settings.sqlite_path is None
    plain = Settings.from_env({})
    assert plain.database == plain.sqlite_path == Path("data/games.sqlite3")


def test_database_url_wins_over_games_db() -> None:
    both = Settings.from_env({"GAMES_DB": "/var/lib/rapanui/games.sqlite3",
                              "DATABASE_URL": "postgresql://db/rapanui"})
    assert both.database == "postgresql://db/rapanui" and both.sqlite_path is None
    sqlite = Settings.from_env({"GAMES_DB": "/var/lib/rapanui/games.sqlite3",
                                "DATABASE_URL": "sqlite:///elsewhere.sqlite3"})
    assert sqlite.database == Path("elsewhere.sqlite3")


def test_a_bad_database_url_is_named_without_its_password(tmp_path: Path) -> None:
    for bad in (f"mysql://rapanui:{PASSWORD}@db/rapanui", "sqlite:///", f"sqlite:///{tmp_path}",
                "games.sqlite3", "sqlite://relative.db"):
        with pytest.raises(BadSettings) as caught:
            Settings.from_env({"DATABASE_URL": bad})
        [line] = caught.value.problems
        assert line.startswith("bad setting DATABASE_URL: "), line
        assert PASSWORD not in line
    with pytest.raises(BadSettings) as caught:
        Settings.from_env({"DATABASE_URL": f"mysql://rapanui:{PASSWORD}@db/rapanui"})
    assert "'mysql://rapanui:***@db/rapanui' is neither a sqlite:/// nor a postgresql:// URL" \
        in str(caught.value)


def test_the_pool_size_is_a_number_of_connections() -> None:
    assert Settings.from_env({}).pool_size == 10
    assert Settings.from_env({"DATABASE_POOL_SIZE": "25"}).pool_size == 25
    for bad in ("0", "101", "ten", "-3", "2.5"):
        with pytest.raises(BadSettings, match="bad setting DATABASE_POOL_SIZE"):
            Settings.from_env({"DATABASE_POOL_SIZE": bad})


def test_a_url_is_printed_without_its_password() -> None:
    assert redacted(f"postgresql://rapanui:{PASSWORD}@db:5432/rapanui?sslmode=require") == \
        "postgresql://rapanui:***@db:5432/rapanui?sslmode=require"
    assert redacted("postgresql://rapanui@db/rapanui") == "postgresql://rapanui@db/rapanui"
    assert redacted("postgresql:///rapanui?host=/run/postgresql") == \
        "postgresql:///rapanui?host=/run/postgresql"
    assert redacted(f"postgres://u:{PASSWORD}@db") == "postgres://u:***@db"


def test_the_factory_tells_the_backends_apart(tmp_path: Path) -> None:
    assert is_postgres("postgresql://db/x") and is_postgres("POSTGRES://db/x")
    assert not is_postgres(tmp_path) and not is_postgres("sqlite:///x.db")
    assert sqlite_file(tmp_path / "g.db") == tmp_path / "g.db"
    assert sqlite_file("g.db") == Path("g.db") and sqlite_file("sqlite:///g.db") == Path("g.db")
    assert sqlite_file(":memory:") is None and sqlite_file("postgresql://db/x") is None
    for bad in ("mysql://db/x", "sqlite:///", "sqlite:g.db"):
        with pytest.raises(ValueError, match="sqlite"):
            sqlite_file(bad)


async def test_open_store_opens_what_the_target_names(tmp_path: Path) -> None:
    for target in (tmp_path / "a.sqlite3", str(tmp_path / "b.sqlite3"),
                   f"sqlite:///{tmp_path}/c.sqlite3", ":memory:"):
        store = await open_store(target, ManualClock(), synchronous="NORMAL")
        try:
            assert isinstance(store, SqliteStore) and await store.synchronous() == "NORMAL"
        finally:
            await store.close()
    assert {p.name for p in tmp_path.iterdir() if p.suffix == ".sqlite3"} == {
        "a.sqlite3", "b.sqlite3", "c.sqlite3"}


@pytest.mark.postgres
async def test_open_store_opens_postgresql(pg_url: str) -> None:
    store = await open_store(pg_url, ManualClock(), pool_size=1)
    try:
        assert isinstance(store, PostgresStore) and store.shared
        game = await store.create_game(channel_id=1, guild_id=1, game="makemake", options="",
                                       seed=1, creator_id=1, language="en", ai_level="random")
        assert (await store.game(game.id)) == game
    finally:
        await store.close()
    with pytest.raises(ValueError, match="pool_size"):
        await open_store(pg_url, pool_size=0)


# --- the commands on PostgreSQL -------------------------------------------------------------------

@pytest.mark.postgres
async def test_check_reads_a_postgresql_database_without_changing_it(
        environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        pg_url: str) -> None:
    environment.setenv("DATABASE_URL", pg_url)
    backend = PostgresBackend(pg_url)
    status = await _in_thread(cli.main, ["check"])
    lines = capsys.readouterr().out.splitlines()
    assert status == 0, lines
    assert f"ok: database {pg_url} is empty: the bot creates its tables" in lines
    assert await backend.tables() == {}, "check creates nothing"
    store = await backend.open()
    await store.create_game(channel_id=1, guild_id=1, game="makemake", options="", seed=1,
                            creator_id=1, language="en", ai_level="random")
    await store.close()
    status = await _in_thread(cli.main, ["check"])
    lines = capsys.readouterr().out.splitlines()
    assert status == 0 and f"ok: database {pg_url}: schema 13, 1 game" in lines
    assert (f"ok: database {pg_url} belongs to no Discord application yet: the first login "
            "records the token's") in lines
    store = await backend.open()
    await store.claim_application(222222222222222222)
    await store.close()
    status = await _in_thread(cli.main, ["check"])
    lines = capsys.readouterr().out.splitlines()
    assert (f"ok: database {pg_url} belongs to Discord application 222222222222222222: a "
            "bot whose token logs in as another application is refused") in lines
    await backend.at_version(15)
    status = await _in_thread(cli.main, ["check"])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1 and (f"problem: database {pg_url} has schema 15, newer than this bot "
                            "(13): run the newer bot, or restore a backup made for this "
                            "one") in lines


def test_check_says_when_postgresql_cannot_be_reached_and_hides_the_password(
        environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    url = f"postgresql://rapanui:{PASSWORD}@/rapanui?host={tmp_path}"  # no server there
    environment.setenv("DATABASE_URL", url)
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    assert PASSWORD not in out
    assert "DATABASE_URL=postgresql://rapanui:***@/rapanui" in out
    assert f"problem: database postgresql://rapanui:***@/rapanui?host={tmp_path} cannot be " \
           "reached" in out


def test_backup_is_sqlite_s_and_says_what_to_use_for_postgresql(
        environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    environment.setenv("DATABASE_URL", f"postgresql://rapanui:{PASSWORD}@db/rapanui")
    assert cli.main(["backup", str(tmp_path / "copy.sqlite3")]) == 1
    err = capsys.readouterr().err
    assert "pg_dump" in err and PASSWORD not in err
    assert not (tmp_path / "copy.sqlite3").exists()


@pytest.mark.postgres
async def test_health_on_postgresql_reads_the_heartbeat_of_this_host(pg_url: str) -> None:
    clock = ManualClock()
    here = socket.gethostname()
    assert await _in_thread(cli.health_postgres, pg_url, clock, here) == (
        1, f"down: no heartbeat from {here}")
    store = await PostgresStore.open(pg_url, clock)
    try:
        await store.start_heartbeat("elsewhere", 7, "other-host")
        assert await _in_thread(cli.health_postgres, pg_url, clock, here) == (
            1, f"down: no heartbeat from {here}"), "another host's bot is not this one"
        await store.start_heartbeat("mine", 12, here)
        clock.advance(5)
        assert await _in_thread(cli.health_postgres, pg_url, clock, here) == (
            0, f"ok: bot pid 12 on {here}, heartbeat 5 s ago")
        assert {b.instance for b in await store.heartbeats()} == {"elsewhere", "mine"}, \
            "several bots share the database: each keeps its row"
        await store.start_heartbeat("restarted", 12, here)  # the same process id on the host
        assert {b.instance for b in await store.heartbeats()} == {"elsewhere", "restarted"}
    finally:
        await store.close()
    missing = pg_url.replace("/test_", "/missing_", 1)
    status, line = await _in_thread(cli.health_postgres, missing, clock, here)
    assert status == 1 and line.startswith("down: cannot read ")


async def _in_thread(function: Callable[..., T], *args: Any) -> T:
    """A command's function, which runs its own event loop, off this test's loop."""
    return await asyncio.to_thread(function, *args)
