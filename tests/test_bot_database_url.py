"""Which database the bot uses: ``DATABASE_URL`` (``sqlite:///`` or ``postgresql://``) and
``GAMES_DB``, validated at start, opened through one factory; and the commands on a
PostgreSQL database (``check`` reads it without changing it, ``health`` reads this host's
heartbeat, ``backup`` says what to use instead)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

import bot.__main__ as cli
from bot.database_url import BadUrl, PostgresUrl, parse_postgres_url
from bot.host.clock import ManualClock
from bot.host.store import (
    PostgresStore,
    SqliteStore,
    is_postgres,
    open_store,
    sqlite_file,
)
from bot.settings import VARIABLES, BadSettings, Settings, redacted
from tests.helpers.stores import PostgresBackend

PASSWORD = "s3cret-w0rd"
T = TypeVar("T")
ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "e.g. DATABASE_URL=postgresql://rapanui:secret@db:5432/rapanui"
MALFORMED = {
    f"postgresql://u:{PASSWORD}@host:notaport/db": "its port 'notaport' is not a number from 1 "
                                                   "to 65535",
    f"postgresql://u:{PASSWORD}@[::1": "the brackets around its host's IPv6 address do not "
                                       "match (e.g. [::1]:5432)",
    f"postgresql://u:{PASSWORD}@db:0/rapanui": "its port '0' is not a number from 1 to 65535",
    f"postgresql://u:{PASSWORD}@db:65536/rapanui": "its port '65536' is not a number",
    f"postgresql://u:{PASSWORD}@db:-1/rapanui": "its port '-1' is not a number",
    f"postgres://u:{PASSWORD}@db:/rapanui": "its port '' is not a number",
    f"postgresql://u:{PASSWORD}@::1/rapanui": "its host '::1' looks like an IPv6 address: "
                                              "write it in brackets, e.g. [::1]:5432",
    f"postgresql://u:{PASSWORD}@[::1]x/rapanui": "its host '[::1]x' is not an IPv6 address",
    f"postgresql://u:{PASSWORD}@[db]:5432/rapanui": "its host '[db]:5432' is not an IPv6 "
                                                    "address",
    f"postgresql://u:{PASSWORD}@[::1]:port/rapanui": "its port 'port' is not a number",
    f"postgresql://u:{PASSWORD}@:5432/rapanui": "its host ':5432' names a port but no host",
    f"postgresql://u:{PASSWORD}@db,,db2/rapanui": "its host list 'db,,db2' has an empty entry",
    f"postgresql://u:{PASSWORD}@db!/rapanui": "its host 'db!' is neither a host name",
    f"postgresql://u:{PASSWORD}@x@db/rapanui": "it holds more than one '@' (an '@' in a user "
                                               "name or password is written %40)",
    f"postgresql://u:{PASSWORD}/x@db/rapanui": "its '@' comes after a '/' (a '/' in a user "
                                               "name or password is written %2F)",
    f"postgresql://u:{PASSWORD}#x@db/rapanui": "it holds a '#' (a '#' in a password or name is "
                                               "written %23)",
    f"postgresql://u:{PASSWORD} x@db/rapanui": "it holds a space or a control character",
    f"postgresql://u:{PASSWORD}@db/games/extra": "its database name 'games/extra' holds a '/'",
    f"postgresql://u:{PASSWORD}@db/rapanui?sslmode=maybe": "its sslmode 'maybe' is none of "
                                                          "disable, allow, prefer, require, "
                                                          "verify-ca, verify-full",
    f"postgresql://u:{PASSWORD}@db/rapanui?port=x": "its port 'x' is not a number",
    "postgresql:///rapanui?host=/run/pg&port=5432,5433": "its port list '5432,5433' does not "
                                                          "give one port per host",
    f"postgresql://db/rapanui?sslmode&password={PASSWORD}": "its options 'sslmode&password=***' "
                                                            "are not key=value pairs joined "
                                                            "by &",
}
"""Malformed PostgreSQL URLs, each with what the one line says is wrong (asyncpg, given any of
them, fails inside ``connect`` with a ``ValueError``, an ``IndexError`` or an ``OverflowError``
of its own)."""


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


def test_a_postgresql_url_is_read_whole() -> None:
    assert parse_postgres_url(f"postgresql://rapanui:{PASSWORD}@db:5432/rapanui") == \
        PostgresUrl("rapanui", PASSWORD, ("db",), (5432,), "rapanui")
    assert parse_postgres_url("postgres://db") == PostgresUrl(None, None, ("db",), (None,), None)
    assert parse_postgres_url("postgresql://u@[::1]:6543/games") == PostgresUrl(
        "u", None, ("::1",), (6543,), "games")
    assert parse_postgres_url("postgresql://[fe80::1%25eth0]/games").hosts == ("fe80::1%eth0",)
    assert parse_postgres_url("postgresql:///rapanui?host=/run/postgresql") == PostgresUrl(
        None, None, ("/run/postgresql",), (None,), "rapanui")
    assert parse_postgres_url("postgresql://%2Fvar%2Frun%2Fpostgresql/rapanui").hosts == (
        "/var/run/postgresql",)
    assert parse_postgres_url("postgresql://u:p%40ss%23w@db1:5432,10.0.0.2:5433/g%20x") == \
        PostgresUrl("u", "p@ss#w", ("db1", "10.0.0.2"), (5432, 5433), "g x")
    assert parse_postgres_url("postgresql://db1,db2/g?port=6000") == PostgresUrl(
        None, None, ("db1", "db2"), (6000, 6000), "g")
    options = "sslmode=require&application_name=rapanui&target_session_attrs=read-write"
    assert parse_postgres_url(f"postgresql://u:{PASSWORD}@db/rapanui?{options}").database == \
        "rapanui"
    assert parse_postgres_url(f"postgresql:///?dbname=g&user=u&password={PASSWORD}") == \
        PostgresUrl("u", PASSWORD, (), (), "g")
    assert PASSWORD not in repr(parse_postgres_url(f"postgresql://u:{PASSWORD}@db/g"))
    for url in MALFORMED:
        with pytest.raises(BadUrl):
            parse_postgres_url(url)


def test_a_malformed_postgresql_url_is_one_line_that_says_what_is_wrong() -> None:
    for url, wrong in MALFORMED.items():
        with pytest.raises(BadSettings) as caught:
            Settings.from_env({"DATABASE_URL": url})
        [line] = caught.value.problems
        assert line.startswith(f"bad setting DATABASE_URL: {redacted(url)!r}: {wrong}"), line
        assert "accepted: sqlite:///path or postgresql://user:password@host:port/database" \
            in line and line.endswith(EXAMPLE), line
        assert PASSWORD not in line and "\n" not in line, line


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
    assert redacted(f"postgresql://db/g?sslmode=require&password={PASSWORD}&x=1") == \
        "postgresql://db/g?sslmode=require&password=***&x=1"
    for unencoded in ("p@ss", "p/ss", "p?ss", "p#ss", "p:ss"):
        url = f"postgresql://u:{unencoded}@db:5432/g"
        assert redacted(url) == "postgresql://u:***@db:5432/g", unencoded
    assert redacted("postgresql://u:pw@[::1") == "postgresql://u:***@[::1"
    assert redacted("postgresql://[::1]:5432/g") == "postgresql://[::1]:5432/g"


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
    assert status == 0 and f"ok: database {pg_url}: schema 15, 1 game" in lines
    assert (f"ok: database {pg_url} belongs to no Discord application yet: the first login "
            "records the token's") in lines
    store = await backend.open()
    await store.claim_application(222222222222222222)
    await store.close()
    status = await _in_thread(cli.main, ["check"])
    lines = capsys.readouterr().out.splitlines()
    assert (f"ok: database {pg_url} belongs to Discord application 222222222222222222: a "
            "bot whose token logs in as another application is refused") in lines
    await backend.at_version(16)
    status = await _in_thread(cli.main, ["check"])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1 and (f"problem: database {pg_url} has schema 16, newer than this bot "
                            "(15): run the newer bot, or restore a backup made for this "
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


def test_no_command_shows_a_traceback_for_a_malformed_url(
        environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    """``check`` says what is wrong on one line, still checks the rest, and exits 2 (a bad
    setting); ``health`` exits 1, ``run`` 2; ``migrate-store`` refuses a malformed --to (2)."""
    sqlite = tmp_path / "games.sqlite3"
    sqlite.write_bytes(b"")
    for url in (f"postgresql://u:{PASSWORD}@host:notaport/db", f"postgresql://u:{PASSWORD}@[::1"):
        environment.setenv("DATABASE_URL", url)
        assert cli.main(["check"]) == 2, url
        lines = capsys.readouterr().out.splitlines()
        [problem] = [line for line in lines if line.startswith("problem: ")]
        assert problem.startswith(f"problem: bad setting DATABASE_URL: {redacted(url)!r}: ")
        assert "skipped: database not checked: DATABASE_URL is bad" in lines
        assert "ok: catalogues and fonts" in lines and lines[-1] == "1 problem found"
        assert any(line.startswith("ok: DISCORD_TOKEN is set") for line in lines)
        for command, status in ((["health"], 1), (["run"], 2), ([], 2), (["sync"], 2)):
            assert cli.main(command) == status, command
            err = capsys.readouterr().err
            assert err.startswith("bad setting DATABASE_URL: ") and err.count("\n") == 1, err
        environment.delenv("DATABASE_URL")
        assert cli.main(["migrate-store", "--from", str(sqlite), "--to", url]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"--to names {redacted(url)}: ") and err.count("\n") == 1, err
        assert "the right form: postgresql://user:password@host:5432/database" in err
        assert PASSWORD not in err
        assert cli.main(["migrate-store", "--from", url, "--to", "postgresql://db/g"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"--from names {redacted(url)}: migrate-store copies from a "
                              "SQLite file") and PASSWORD not in err
    environment.setenv("DATABASE_URL", f"postgresql://u:{PASSWORD}@host:notaport/db")
    environment.setenv("LOG_LEVEL", "loud")
    environment.delenv("DISCORD_TOKEN")
    assert cli.main(["check"]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[1] for line in lines if line.startswith("problem: ")] == [
        " bad setting DATABASE_URL", " bad setting LOG_LEVEL", " DISCORD_TOKEN is not set"]
    assert lines[-1] == "3 problems found"


def test_check_with_a_malformed_url_in_a_fresh_process(tmp_path: Path) -> None:
    """The admin's own view: ``python -m bot check`` as a command."""
    env = {name: value for name, value in os.environ.items()
           if name not in {v.name for v in VARIABLES}}
    env |= {"DISCORD_TOKEN": "x", "DATABASE_URL": f"postgresql://u:{PASSWORD}@host:notaport/db"}
    done = subprocess.run([sys.executable, "-m", "bot", "check"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and done.stderr == ""
    assert "problem: bad setting DATABASE_URL: 'postgresql://u:***@host:notaport/db': its port " \
           "'notaport' is not a number from 1 to 65535; accepted: " in done.stdout
    assert PASSWORD not in done.stdout


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
