"""Health, metrics and logs: ``/healthz``, ``/readyz`` and ``/metrics`` (bot/web.py,
bot/metrics.py) by themselves and in a real ``python -m bot`` against the stub Discord,
through an outage (readiness follows Discord; a SIGTERM during it stops the bot within 5 s,
cleanly); the Docker image's probe; the JSON log format and the one-line reconnect warning
(bot/logs.py); the new settings."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import bot.__main__ as cli
from bot import logs
from bot.constants import RETRY_FIRST
from bot.host.sessions import Host
from bot.host.store import SCHEMA_VERSION, open_store, read_heartbeats
from bot.metrics import Metrics
from bot.settings import VARIABLES, BadSettings, Settings
from bot.web import StatusServer
from tests.helpers.dockerfile import only
from tests.helpers.outbox import heal, open_game, sticky
from tests.helpers.processes import START_WITHIN, STOP_WITHIN, bot_env, until
from tests.helpers.stores import Backend, SqliteBackend
from tests.helpers.stub_discord import StubDiscord

CHANNEL = 424242424242424242
CREATOR = 717171717171717171


# --- settings ----------------------------------------------------------------------------------

def test_the_new_settings_and_their_defaults() -> None:
    unset = Settings.from_env({})
    assert (unset.http_port, unset.http_host) == (None, "0.0.0.0")
    assert (unset.log_format, unset.discord_log_level) == ("text", None)
    given = Settings.from_env({"HTTP_PORT": "8080", "HTTP_HOST": "127.0.0.1",
                               "LOG_FORMAT": "JSON", "DISCORD_LOG_LEVEL": "warning"})
    assert (given.http_port, given.http_host) == (8080, "127.0.0.1")
    assert (given.log_format, given.discord_log_level) == ("json", "WARNING")


@pytest.mark.parametrize(("name", "value", "why"), [
    ("HTTP_PORT", "0", "'0' is not a TCP port from 1 to 65535"),
    ("HTTP_PORT", "65536", "'65536' is not a TCP port"),
    ("HTTP_PORT", "http", "'http' is not a TCP port"),
    ("HTTP_HOST", "a b", "'a b' is not an address to listen on"),
    ("LOG_FORMAT", "xml", "'xml' is not a log format"),
    ("DISCORD_LOG_LEVEL", "loud", "'loud' is not a log level"),
])
def test_a_bad_new_setting_is_one_line_and_exit_2(
        name: str, value: str, why: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(BadSettings) as caught:
        Settings.from_env({name: value})
    [line] = caught.value.problems
    variable = next(v for v in VARIABLES if v.name == name)
    assert line.startswith(f"bad setting {name}: {why}") and variable.accepted in line
    for each in VARIABLES:
        monkeypatch.delenv(each.name, raising=False)
    monkeypatch.setenv("GAMES_DB", str(tmp_path / "games.sqlite3"))
    monkeypatch.setenv("DISCORD_TOKEN", "x")
    monkeypatch.setenv(name, value)
    assert cli.main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [line] and "Traceback" not in err


# --- logs --------------------------------------------------------------------------------------

@pytest.fixture
def logging_kept() -> Iterator[None]:
    """The logging set-up as it was before the test (``logs.configure`` changes it)."""
    root, library = logging.getLogger(), logging.getLogger("discord")
    handlers, level, library_level = list(root.handlers), root.level, library.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    library.setLevel(library_level)


def captured(logger: logging.Logger, formatter: logging.Formatter) -> io.StringIO:
    """What ``logger`` writes from now on, formatted by ``formatter``."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter)
    logger.addHandler(handler)
    return out


def test_the_json_format_is_one_object_a_line() -> None:
    formatter = logs.JsonFormatter()
    record = logging.LogRecord("bot.host.sessions", logging.INFO, __file__, 1,
                               "game %s (%s) started:\nred", (12, "giants"), None)
    record.created = 1_800_000_000.25
    line = formatter.format(record)
    assert "\n" not in line
    assert json.loads(line) == {"time": "2027-01-15T08:00:00.250Z", "level": "INFO",
                                "logger": "bot.host.sessions",
                                "message": "game 12 (giants) started:\nred"}
    try:
        raise ValueError("the store is gone")
    except ValueError:
        failed = logging.LogRecord("bot.adapter.outbox", logging.ERROR, __file__, 1,
                                   "showing game %s failed", (3,), sys.exc_info())
    entry = json.loads(formatter.format(failed))
    assert entry["level"] == "ERROR" and entry["message"] == "showing game 3 failed"
    assert entry["exception"].startswith("Traceback (most recent call last):")
    assert entry["exception"].endswith("ValueError: the store is gone")


def test_configure_sets_the_format_and_the_discord_level(logging_kept: None) -> None:
    logs.configure("INFO", "json", "WARNING")
    root = logging.getLogger()
    [handler] = root.handlers
    assert isinstance(handler.formatter, logs.JsonFormatter)
    assert root.level == logging.INFO
    assert logging.getLogger("discord").level == logging.WARNING
    assert not logging.getLogger("discord.client").isEnabledFor(logging.INFO)
    assert logging.getLogger("bot").isEnabledFor(logging.INFO)
    logs.configure("DEBUG")
    [handler] = root.handlers
    assert not isinstance(handler.formatter, logs.JsonFormatter)
    assert logging.getLogger("discord").level == logging.DEBUG, "unset: as LOG_LEVEL"


def test_a_reconnect_is_one_warning_line_without_a_traceback(logging_kept: None) -> None:
    logs.configure("INFO")
    client, shard = logging.getLogger("discord.client"), logging.getLogger("discord.shard")
    out = captured(logging.getLogger(), logging.Formatter(logs.TEXT_FORMAT))
    error = ConnectionRefusedError(111, "Connection refused")
    try:
        raise error
    except OSError:
        client.exception("Attempting a reconnect in %.2fs", 1.5)  # as discord.py does
        shard.error("Attempting a reconnect for shard ID %s in %.2fs", 0, 3.25, exc_info=error)
        client.exception("Ignoring exception in %s", "on_ready")  # not a reconnect: as is
    lines = out.getvalue().splitlines()
    assert re.fullmatch(r"\S+ \S+ WARNING discord\.client: Attempting a reconnect in 1\.50s "
                        r"\(Discord unreachable: ConnectionRefusedError: \[Errno 111\] Connection "
                        r"refused\)", lines[0]), lines[0]
    assert re.fullmatch(r"\S+ \S+ WARNING discord\.shard: Attempting a reconnect for shard ID "
                        r"0 in 3\.25s \(Discord unreachable: ConnectionRefusedError: .*\)",
                        lines[1]), lines[1]
    assert " ERROR discord.client: Ignoring exception in on_ready" in lines[2]
    assert lines[3] == "Traceback (most recent call last):", "other errors keep theirs"
    assert out.getvalue().count("Traceback") == 1
    logs.configure("INFO", discord_level="ERROR")
    out = captured(logging.getLogger(), logging.Formatter(logs.TEXT_FORMAT))
    try:
        raise error
    except OSError:
        client.exception("Attempting a reconnect in %.2fs", 1.5)
    assert out.getvalue() == "", "DISCORD_LOG_LEVEL=ERROR leaves the warning out"


# --- the server by itself ----------------------------------------------------------------------

class Probe:
    """What the status server is told about the bot, changeable by the test."""

    def __init__(self) -> None:
        self.connected = True
        self.store: BaseException | None = None
        self.store_hangs = False

    async def ping(self) -> None:
        if self.store is not None:
            raise self.store
        if self.store_hangs:
            await asyncio.Event().wait()


@pytest.fixture
async def served() -> AsyncIterator[tuple[StatusServer, Probe, Metrics]]:
    probe, metrics = Probe(), Metrics()
    server = StatusServer("127.0.0.1", 0, connected=lambda: probe.connected,
                          store_ping=probe.ping, metrics=metrics.exposition, store_within=0.5)
    await server.start()
    yield server, probe, metrics
    await server.stop()


async def get(port: int, path: str) -> tuple[int, str, str]:
    async with aiohttp.ClientSession() as session, session.get(
            f"http://127.0.0.1:{port}{path}") as response:
        return response.status, await response.text(), response.headers["Content-Type"]


async def test_healthz_readyz_and_metrics(
        served: tuple[StatusServer, Probe, Metrics]) -> None:
    server, probe, metrics = served
    assert server.port > 0
    assert (await get(server.port, "/healthz"))[:2] == (200, "ok\n")
    assert (await get(server.port, "/readyz"))[:2] == (200, "ok\n")
    probe.connected = False
    assert (await get(server.port, "/readyz"))[:2] == (503, "discord: not connected\n")
    probe.store = OSError("disk I/O error")
    assert (await get(server.port, "/readyz"))[:2] == (
        503, "discord: not connected\nstore: OSError: disk I/O error\n")
    probe.connected, probe.store, probe.store_hangs = True, None, True
    server.store_within = 0.0  # the query has no time at all: it cannot answer in time
    assert (await get(server.port, "/readyz"))[:2] == (503, "store: no answer within 0 s\n")
    assert (await get(server.port, "/healthz"))[0] == 200, "alive all the same"
    metrics.committed("giants", 0.002)
    metrics.committed("giants", 0.004)
    metrics.discord_error(403, 50013)
    metrics.watch(queue=lambda: 3, live=lambda: 2, latency=lambda: float("inf"))
    status, text, kind = await get(server.port, "/metrics")
    assert status == 200 and kind.startswith("text/plain; version=")
    samples = dict(line.rsplit(" ", 1) for line in text.splitlines()
                   if line and not line.startswith("#"))
    assert samples['rapanui_moves_total{game="giants"}'] == "2.0"
    assert samples["rapanui_commit_seconds_count"] == "2.0"
    assert samples['rapanui_discord_errors_total{code="50013",status="403"}'] == "1.0"
    assert samples["rapanui_outbox_queue"] == "3.0"
    assert samples["rapanui_live_games"] == "2.0"
    assert samples["rapanui_gateway_latency_seconds"] == "NaN"
    for name in ("rapanui_outbox_retries_total", "rapanui_render_seconds_count",
                 "process_resident_memory_bytes"):
        assert name in samples, name
    assert (await get(server.port, "/nothing"))[0] == 404


def test_each_bot_counts_in_a_registry_of_its_own() -> None:
    first, second = Metrics(), Metrics()
    first.committed("makemake", 0.001)
    assert b'rapanui_moves_total{game="makemake"} 1.0' in first.exposition()
    assert b"rapanui_moves_total{" not in second.exposition()


def health_command() -> list[str]:
    """The Docker image's HEALTHCHECK command."""
    instruction = only("HEALTHCHECK")
    command = json.loads(instruction.split(" CMD ", 1)[1])
    assert isinstance(command, list)
    return command


def test_the_image_probe_starts_no_python() -> None:
    command = health_command()
    assert command[:2] == ["bash", "-c"] and "python" not in " ".join(command)
    assert "/healthz" in command[2]
    assert "HTTP_PORT=8080" in only("ENV").split()


async def test_the_image_probe_asks_healthz(
        served: tuple[StatusServer, Probe, Metrics]) -> None:
    server, probe, _ = served
    probe.connected = False  # alive but not ready: healthy all the same
    env = {"PATH": os.environ["PATH"], "HTTP_PORT": str(server.port)}
    done = await asyncio.create_subprocess_exec(*health_command(), env=env)
    assert await asyncio.wait_for(done.wait(), 10) == 0
    closed = free_port()
    done = await asyncio.create_subprocess_exec(*health_command(),
                                                env={**env, "HTTP_PORT": str(closed)},
                                                stderr=subprocess.DEVNULL)
    assert await asyncio.wait_for(done.wait(), 10) != 0


# --- a running bot, through an outage ----------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def away_game(db_path: Path) -> None:
    """A running Make Make game whose only human is away: the bot's first tick plays it (the
    AI for every seat), so the bot applies moves without a single interaction."""
    store = await open_store(db_path)
    try:
        host = Host(store, seed_source=lambda: 5)
        game = await host.create(channel_id=CHANNEL, guild_id=None, game="makemake",
                                 options={}, creator_id=CREATOR, language="en",
                                 ai_level="random")
        for _ in range(2):
            await host.add_ai(game.id, CREATOR)
        await host.start(game.id, CREATOR)
        [human] = [s for s in game.seats if not s.is_ai]
        await store.set_away(game.id, human.colour, True, human.timeouts)
    finally:
        await store.close()


class Reader:
    """The lines a process writes to standard error, as they come."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.lines: list[str] = []
        self.task = asyncio.ensure_future(self._read(stream))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        async for line in stream:
            self.lines.append(line.decode().rstrip("\n"))

    def has(self, text: str) -> bool:
        return any(text in line for line in self.lines)


@pytest.fixture
async def stub() -> AsyncIterator[StubDiscord]:
    discord_stub = StubDiscord()
    await discord_stub.start()
    yield discord_stub
    await discord_stub.stop()


async def test_health_readiness_and_metrics_of_a_running_bot_through_an_outage(
        stub: StubDiscord, tmp_path: Path) -> None:
    db_path = tmp_path / "games.sqlite3"
    await away_game(db_path)
    port = free_port()
    env = {**bot_env(stub, tmp_path, db_path), "HTTP_PORT": str(port),
           "HTTP_HOST": "127.0.0.1", "RENDER_WORKERS": "0"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=tmp_path, env=env, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE)
    assert process.stderr is not None
    err = Reader(process.stderr)
    ready: list[tuple[int, str]] = []

    async def readyz() -> tuple[int, str]:
        with contextlib.suppress(aiohttp.ClientError):
            status, text, _ = await get(port, "/readyz")
            ready.append((status, text))
        return ready[-1] if ready else (0, "")

    async def ready_is(status: int, within: float = START_WITHIN) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while (await readyz())[0] != status:
            assert process.returncode is None, "\n".join(err.lines)
            assert loop.time() < deadline, f"/readyz not {status} within {within} s: {ready}"
            await asyncio.sleep(0.05)

    try:
        await ready_is(200)
        assert (await get(port, "/healthz"))[:2] == (200, "ok\n")
        await until(lambda: err.has("game 1 (makemake) ended after"), "the game was played")
        _, metrics, _ = await get(port, "/metrics")
        [moves] = re.findall(r'^rapanui_moves_total\{game="makemake"\} (\S+)$', metrics, re.M)
        assert float(moves) > 100, "every action the bot applied"
        assert "rapanui_commit_seconds_count" in metrics
        assert 'rapanui_live_games 0.0' in metrics, "the game is over"

        await stub.down()  # refused: discord.py backs off and tries again
        await ready_is(503, within=10)
        assert ready[-1] == (503, "discord: not connected\n")
        assert (await get(port, "/healthz"))[0] == 200, "the loop answers all the same"
        await until(lambda: err.has("Attempting a reconnect"),
                    "a reconnect was logged:\n" + "\n".join(err.lines), 30)
        await stub.up()
        await ready_is(200)
        assert stub.resumed + stub.identified >= 2, "it connected again"

        outage = len(err.lines)
        await stub.down()  # again, until discord.py backs off for longer than a stop may take
        await until(lambda: any(float(delay) >= STOP_WITHIN for delay in re.findall(
            r"Attempting a reconnect in ([0-9.]+)s", "\n".join(err.lines[outage:]))),
            f"a reconnect backing off for {STOP_WITHIN} s or more", 120)
        loop = asyncio.get_running_loop()
        began = loop.time()
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), START_WITHIN)
        took = loop.time() - began
        await err.task
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    text = "\n".join(err.lines)
    assert process.returncode == 0, text
    print(f"stopped {took:.2f} s after SIGTERM")
    assert took < STOP_WITHIN, f"stopped {took:.1f} s after SIGTERM"
    assert "stopped on SIGTERM" in text and "Traceback" not in text, text
    reconnects = [line for line in err.lines if "Attempting a reconnect" in line]
    assert reconnects and all(" WARNING discord." in line and "Discord unreachable" in line
                              for line in reconnects), reconnects
    assert read_heartbeats(db_path) == [], "the store closed cleanly"
    for said in ("serving /healthz, /readyz and /metrics on 127.0.0.1:",
                 "game 1 (makemake) ended after"):
        assert err.has(said), said


# --- what the bot counts and logs, in the simulator ----------------------------------------------

@pytest.fixture
def info_logs() -> Iterator[None]:
    """The bot's INFO lines reach pytest's capture, from the set-up on (ask for it before the
    simulator's fixture: the slash commands are uploaded as the bot starts)."""
    logger = logging.getLogger("bot")
    level = logger.level
    logger.setLevel(logging.INFO)
    yield
    logger.setLevel(level)


def messages(caplog: pytest.LogCaptureFixture, *phases: str) -> list[str]:
    return [r.getMessage() for phase in phases
            for r in caplog.get_records(phase)]  # type: ignore[arg-type]


async def test_a_played_game_is_counted_and_logged(
        info_logs: None, simcord_env: Any, settings: Settings,
        caplog: pytest.LogCaptureFixture) -> None:
    env = simcord_env
    game = await open_game(env, "makemake")
    metrics = env.bot.metrics
    assert "Played" in await game.play()
    thread = game.place()
    fault = sticky(env, "POST", f"/channels/{thread.id}/messages", status=500)
    assert "Played" in await game.play()  # the next stage's table message fails: a retry
    await env.advance_time(RETRY_FIRST * 2)
    heal(env, fault)
    await env.advance_time(settings.reconcile_tick)
    samples = dict(line.rsplit(" ", 1) for line in metrics.exposition().decode().splitlines()
                   if line and not line.startswith("#"))
    moves = float(samples['rapanui_moves_total{game="makemake"}'])
    assert moves == len(game.now().log) >= 2, "every action applied, AI and chance too"
    assert float(samples["rapanui_commit_seconds_count"]) == moves
    assert float(samples["rapanui_render_seconds_count"]) >= 1
    assert float(samples["rapanui_outbox_retries_total"]) >= 1
    assert float(samples['rapanui_discord_errors_total{code="0",status="500"}']) >= 1
    assert samples["rapanui_live_games"] == "1.0"
    assert samples["rapanui_outbox_queue"] == "0.0", "all shown"
    guild = env.create_guild(name="Late friends")
    await env.settle()  # the simulator says "available"; Discord says "join" for a new one:
    env.bot.dispatch("guild_join", env.bot.get_guild(guild.id))
    await env.settle()
    await env.bot.get_guild(guild.id).leave()
    await env.settle()
    await game.alice.slash(game.place(), "game abort")
    said = messages(caplog, "setup", "call")
    assert any(m.startswith("slash commands uploaded globally: ") and "game" in m
               for m in said), said
    gid = game.id
    assert any(m.startswith(f"game {gid} (makemake) created in channel {game.channel.id}")
               for m in said)
    assert any(m.startswith(f"game {gid} (makemake) started: red user {game.alice.id}, ")
               and "AI" in m for m in said), said
    assert f"joined server {guild.id} (Late friends)" in said, "\n".join(said)
    assert f"left server {guild.id} (Late friends)" in said
    assert f"game {gid} (makemake) aborted by user {game.alice.id}" in said
    assert not env.bot.unexpected_errors


async def test_a_migration_and_a_new_database_are_logged(
        backend: Backend, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    await backend.at_schema(1)
    store = await backend.open()
    await store.ping()
    await store.close()
    said = [r.getMessage() for r in caplog.records]
    line = f"database migrated from schema 1 to {SCHEMA_VERSION}"
    [migrated] = [m for m in said if m.startswith(line)]
    if isinstance(backend, SqliteBackend):
        assert migrated == f"{line} (backup written first: {backend.path}.v1.bak)"
    else:
        assert "pg_dump" in migrated
    with pytest.raises(Exception, match="closed"):
        await store.ping()


async def test_a_new_database_and_an_ended_game_are_logged(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    store = await open_store(tmp_path / "games.sqlite3")
    try:
        host = Host(store, seed_source=lambda: 3)
        game = await host.create(channel_id=CHANNEL, guild_id=None, game="makemake",
                                 options={}, creator_id=CREATOR, language="en",
                                 ai_level="random", join=False)
        for _ in range(3):
            await host.add_ai(game.id, CREATOR)
        await host.start(game.id, CREATOR)  # AI seats only: played to the end at once
    finally:
        await store.close()
    said = [r.getMessage() for r in caplog.records]
    assert f"new database: schema {SCHEMA_VERSION} created" in said
    assert "game 1 (makemake) started: red AI random, blue AI random, green AI random" in said
    result = game.result()
    assert result is not None
    [ended] = [m for m in said if m.startswith("game 1 (makemake) ended after ")]
    assert ended == (f"game 1 (makemake) ended after {len(game.log)} actions: won by "
                     f"{', '.join(result.winners)} ("
                     + ", ".join(f"{c} {s}" for c, s in result.scores.items()) + ")")


async def test_a_taken_http_port_is_one_line_and_exit_1(stub: StubDiscord,
                                                        tmp_path: Path) -> None:
    db_path = tmp_path / "games.sqlite3"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**bot_env(stub, tmp_path, db_path), "HTTP_PORT": str(port),
               "HTTP_HOST": "127.0.0.1", "RENDER_WORKERS": "0"}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(process.communicate(), START_WITHIN)
    text = err.decode()
    assert process.returncode == 1, text
    assert f"cannot serve HTTP on 127.0.0.1:{port} (HTTP_HOST, HTTP_PORT): " in text, text
    assert "Traceback" not in text and "cannot open the database" not in text, text
    assert read_heartbeats(db_path) == [], "the store closed"
