"""Sharded processes: ``SHARD_COUNT`` and ``SHARD_IDS`` validated together with the database
they run on, the bot class ``create_bot`` picks for them, the shards it connects, the one
process that uploads the slash commands, the servers a process judges departed, and the shards
each heartbeat shows (``health``, ``check``), through the simulated Discord."""

from __future__ import annotations

import asyncio
import itertools
import socket
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
from discord.ext import commands

import bot.__main__ as cli
import bot.cli.check as cli_check
import bot.cli.common as cli_common
import bot.cli.health as cli_health
from bot import GameBot, ShardedGameBot, create_bot
from bot.host.clock import ManualClock, iso
from bot.host.store import (
    MIGRATIONS,
    Heartbeat,
    SqliteStore,
    Store,
    read_heartbeats,
    shard_list,
)
from bot.settings import VARIABLES, BadSettings, Settings
from tests.helpers.stores import PostgresBackend

PG = "postgresql://rapanui:secret@db:5432/rapanui"


def on_shard(shard: int, count: int, n: int = 1) -> int:
    """A server id that Discord puts on ``shard`` of ``count`` (``(id >> 22) % count``)."""
    return ((count * (1_000_000 + n) + shard) << 22) | 12345


def bot_settings(db_path: Path, **changes: Any) -> Settings:
    seeds = itertools.count(7)
    return Settings(db_path=db_path, clock=ManualClock(), seed_source=lambda: next(seeds),
                    render_workers=0, **changes)


def problems(env: dict[str, str]) -> list[str]:
    with pytest.raises(BadSettings) as caught:
        Settings.from_env(env)
    return caught.value.problems


# --- the settings --------------------------------------------------------------------------------

def test_without_shard_settings_one_process_runs_unsharded() -> None:
    plain = Settings.from_env({})
    assert (plain.shard_count, plain.shard_ids, plain.shards_here) == (None, None, ())
    assert plain.syncs_commands and plain.owns_guild(on_shard(1, 2))


def test_a_shard_count_alone_runs_every_shard_here_even_on_sqlite() -> None:
    settings = Settings.from_env({"SHARD_COUNT": "3"})
    assert (settings.shard_count, settings.shard_ids, settings.shards_here) == (3, None,
                                                                               (0, 1, 2))
    assert settings.sqlite_path is not None and settings.syncs_commands
    assert all(settings.owns_guild(on_shard(s, 3)) for s in range(3))


def test_shard_ids_are_numbers_and_ranges_each_once_below_the_count() -> None:
    env = {"DATABASE_URL": PG, "SHARD_COUNT": "10"}
    assert Settings.from_env({**env, "SHARD_IDS": " 8, 0-3 "}).shard_ids == (0, 1, 2, 3, 8)
    assert Settings.from_env({**env, "SHARD_IDS": "4"}).shard_ids == (4,)
    assert Settings.from_env({**env, "SHARD_IDS": "  "}).shard_ids is None, "empty is unset"
    for text, said in (("0,0", "shard 0 is named twice in '0,0'"),
                       ("0-3,2", "shard 2 is named twice"),
                       ("3-1", "the range '3-1' in '3-1' runs backwards"),
                       ("one", "'one' in 'one' is neither a shard number nor a range a-b"),
                       ("1,", "'' in '1,' is neither"), ("-1", "'-1' in '-1' is neither"),
                       ("1-", "'1-' in '1-' is neither")):
        [line] = problems({**env, "SHARD_IDS": text})
        assert line.startswith(f"bad setting SHARD_IDS: {said}"), line
        assert line.endswith("e.g. SHARD_IDS=0"), line
    [line] = problems({**env, "SHARD_IDS": "9,10"})
    assert line.startswith("bad setting SHARD_IDS: shard 10 is not below SHARD_COUNT=10 (the "
                           "shards are numbered 0 to 9)"), line


def test_a_shard_count_is_a_whole_number_from_one() -> None:
    for bad in ("0", "-2", "two", "1.5"):
        [line] = problems({"SHARD_COUNT": bad})
        assert line.startswith(f"bad setting SHARD_COUNT: {bad!r} is not a number of shards, "
                               "1 or more"), line


def test_shard_ids_need_a_shard_count() -> None:
    [line] = problems({"DATABASE_URL": PG, "SHARD_IDS": "0"})
    assert line.startswith("bad setting SHARD_IDS: it needs SHARD_COUNT"), line
    # a bad count is reported by itself, not again as missing
    assert [p.split(":")[0] for p in problems({"SHARD_COUNT": "x", "SHARD_IDS": "0"})] == [
        "bad setting SHARD_COUNT"]


def test_a_process_with_some_of_the_shards_needs_postgresql() -> None:
    for sqlite in ({}, {"GAMES_DB": "/var/lib/rapanui/games.sqlite3"},
                   {"DATABASE_URL": "sqlite:///data/games.sqlite3"}):
        [line] = problems({**sqlite, "SHARD_COUNT": "2", "SHARD_IDS": "1"})
        assert line.startswith("bad setting SHARD_IDS: this process runs 1 of the 2 shards "
                               "and leaves 1 to other processes, which cannot share a SQLite "
                               "database"), line
        assert "set DATABASE_URL to a PostgreSQL database" in line
        # every shard in this one process: SQLite will do
        assert Settings.from_env({**sqlite, "SHARD_COUNT": "2",
                                  "SHARD_IDS": "0,1"}).shard_ids == (0, 1)
    # a bad database setting is reported by itself
    assert [p.split(":")[0] for p in problems({"DATABASE_URL": "mysql://x", "SHARD_COUNT": "2",
                                               "SHARD_IDS": "1"})] == [
        "bad setting DATABASE_URL"]
    shared = Settings.from_env({"DATABASE_URL": PG, "SHARD_COUNT": "2", "SHARD_IDS": "1"})
    assert (shared.shard_count, shared.shard_ids, shared.shards_here) == (2, (1,), (1,))


def test_only_the_process_with_shard_zero_syncs_the_commands() -> None:
    def syncs(ids: str, sync: str = "yes") -> bool:
        return Settings.from_env({"DATABASE_URL": PG, "SHARD_COUNT": "4", "SHARD_IDS": ids,
                                  "SYNC_COMMANDS": sync}).syncs_commands

    assert syncs("0") and syncs("0-3") and syncs("3,0")
    assert not syncs("1") and not syncs("1-3")
    assert not syncs("0", "no"), "SYNC_COMMANDS=no stops it there too"


def test_a_process_owns_the_servers_of_its_shards() -> None:
    settings = Settings(database_url=PG, shard_count=3, shard_ids=(0, 2))
    assert [settings.owns_guild(on_shard(s, 3, n)) for n in (1, 7) for s in range(3)] == [
        True, False, True] * 2


def test_the_examples_of_every_setting_go_together() -> None:
    example = Settings.from_env({v.name: v.example for v in VARIABLES if v.name != "GAMES_DB"})
    assert (example.shard_count, example.shard_ids) == (2, (0,))


# --- the bot class -------------------------------------------------------------------------------

def test_create_bot_keeps_the_plain_bot_without_a_shard_count(tmp_path: Path) -> None:
    plain = create_bot(bot_settings(tmp_path / "g.sqlite3"))
    assert type(plain) is GameBot and not isinstance(plain, discord.AutoShardedClient)
    assert plain.shard_count is None


def test_create_bot_builds_a_sharded_bot_on_the_settings_shards(tmp_path: Path) -> None:
    sharded = create_bot(bot_settings(tmp_path / "g.sqlite3", shard_count=4,
                                      shard_ids=(1, 3), database_url=PG))
    assert isinstance(sharded, ShardedGameBot) and isinstance(sharded, GameBot)
    assert isinstance(sharded, commands.AutoShardedBot)
    assert (sharded.shard_count, sharded.shard_ids) == (4, [1, 3])
    every = create_bot(bot_settings(tmp_path / "g.sqlite3", shard_count=2))
    assert (every.shard_count, every.shard_ids) == (2, None), "all of them, in this process"


# --- through the simulated Discord ---------------------------------------------------------------

def command_uploads(env: simcord.Env) -> list[str]:
    app = env.backend.application_id
    return [e.path for e in env.http_requests
            if e.method == "PUT" and e.path.startswith(f"/applications/{app}/")]


async def closed(store: Store | None) -> None:
    if store is not None:
        await store.close()


async def test_one_process_runs_every_shard_and_syncs(tmp_path: Path) -> None:
    db_path = tmp_path / "games.sqlite3"
    game_bot = create_bot(bot_settings(db_path, shard_count=2))
    async with simcord.run(game_bot) as env:
        assert sorted(game_bot.shards) == [0, 1]
        assert command_uploads(env) == [f"/applications/{env.backend.application_id}/commands"]
        [beat] = read_heartbeats(db_path)
        assert (beat.shard_count, beat.shard_ids, beat.shards) == (2, (0, 1), "shards 0,1 of 2")
        for shard in (0, 1):  # a game in a server of either shard
            guild = env.create_guild(shard_id=shard)
            assert game_bot.get_guild(guild.id) is not None
            channel = guild.create_text_channel("games")
            alice = guild.add_member(env.create_user(f"alice{shard}"))
            result = await alice.slash(channel, "game new", game="makemake")
            assert result.response is not None and not result.ephemeral
        store = game_bot.store
    await closed(store)


@pytest.mark.parametrize("ids", [(1,), (1, 2)])
async def test_a_process_without_shard_zero_never_syncs(tmp_path: Path,
                                                        ids: tuple[int, ...]) -> None:
    """Its settings ask for a start-up sync (the default) and it still uploads nothing: the
    process of shard 0 does. It serves the commands (uploaded by that process) in the servers
    of its shards, and sees no other server."""
    db_path = tmp_path / "games.sqlite3"
    game_bot = create_bot(bot_settings(db_path, shard_count=3, shard_ids=ids))
    assert game_bot.settings.sync_commands and not game_bot.settings.syncs_commands
    async with simcord.run(game_bot, strict_sync=False) as env:
        assert sorted(game_bot.shards) == list(ids)
        assert command_uploads(env) == [] and env.backend.commands == {}
        [beat] = read_heartbeats(db_path)
        assert (beat.shard_count, beat.shard_ids) == (3, ids)
        elsewhere = env.create_guild(shard_id=0)
        assert game_bot.get_guild(elsewhere.id) is None, "shard 0's server is not ours"
        guild = env.create_guild(shard_id=1)
        channel = guild.create_text_channel("games")
        alice = guild.add_member(env.create_user("alice"))
        result = await alice.slash(channel, "game new", game="makemake")
        assert result.response is not None and not result.ephemeral
        bob = guild.add_member(env.create_user("bob"))
        joined = await bob.click(result.response, label="Join")
        assert not joined.followups
        session = game_bot.games.in_channel(channel.id)
        assert session is not None and [s.user_id for s in session.seats] == [alice.id, bob.id]
        store = game_bot.store
    await closed(store)


async def test_the_process_with_shard_zero_syncs_alone(tmp_path: Path) -> None:
    game_bot = create_bot(bot_settings(tmp_path / "games.sqlite3", shard_count=3,
                                       shard_ids=(0,)))
    async with simcord.run(game_bot) as env:
        assert sorted(game_bot.shards) == [0]
        assert len(command_uploads(env)) == 1
        store = game_bot.store
    await closed(store)


async def game_in(store: Store, guild_id: int, channel: int) -> None:
    await store.create_game(channel_id=channel, guild_id=guild_id, game="makemake",
                            options="", seed=3, creator_id=1, language="en",
                            ai_level="random")


async def test_a_process_judges_only_its_own_servers_departed(tmp_path: Path) -> None:
    """At its start a process sees only the servers of its shards: one with games that is
    missing from those (on its third start over two days) is gone; one of another shard is
    that shard's process's to judge, and its record stays as it was."""
    settings = bot_settings(tmp_path / "games.sqlite3", shard_count=2, shard_ids=(1,))
    kept, gone, other = on_shard(1, 2, 1), on_shard(1, 2, 2), on_shard(0, 2, 3)
    first, again = create_bot(settings), create_bot(settings)
    try:
        async with simcord.run(first, strict_sync=False) as env:
            env.create_guild(id=kept)
            env.create_guild(id=other)  # on shard 0: this process never hears of it
            await env.settle()
            store = first.games.store
            for n, guild_id in enumerate((kept, gone, other)):
                await game_in(store, guild_id, 100 + n)
            for guild_id in (gone, other):  # missing at two starts before, days ago
                for _ in range(2):
                    await store.note_absence(guild_id)
            assert isinstance(settings.clock, ManualClock)
            settings.clock.advance(2 * 24 * 3600)
            await env.restart_bot(again)
            assert again.get_guild(kept) is not None and again.get_guild(other) is None
            assert set(await again.games.store.departures()) == {gone}
            assert {g: a.starts for g, a in (await again.games.store.absences()).items()} \
                == {other: 2}
            for guild_id in (kept, other):
                assert [g.status for g in await again.games.store.guild_games(
                    guild_id, "lobby")] == ["lobby"]
    finally:
        for made in (first, again):
            await closed(made.store)


# --- health and check ---------------------------------------------------------------------------

def test_heartbeats_and_their_shards_in_words() -> None:
    beat = Heartbeat("i", 12, "box", "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00+00:00")
    assert beat.shards == "" and cli_common.with_shards(beat) == ""
    sharded = Heartbeat("i", 12, "box", beat.started_at, beat.beat_at, 8, (0, 1, 2, 3, 5))
    assert sharded.shards == "shards 0-3,5 of 8"
    clock = ManualClock(datetime.fromisoformat(beat.beat_at))
    assert cli_health.fresh(sharded, clock) == (0, "ok: bot pid 12 on box, shards 0-3,5 of 8, "
                                            "heartbeat 0 s ago")
    assert "pid 12 on box, shards 0-3,5 of 8, started" in cli_common.describe(sharded, clock)
    assert [shard_list(ids) for ids in ((), (4,), (0, 1), (0, 1, 2), (7, 1, 2, 3, 9, 10))] == [
        "", "4", "0,1", "0-2", "1-3,7,9,10"]


async def test_health_on_sqlite_shows_the_shards(tmp_path: Path) -> None:
    db_path = tmp_path / "games.sqlite3"
    clock = ManualClock()
    store = await SqliteStore.open(db_path, clock)
    await store.start_heartbeat("me", 12, "box", shard_count=2, shard_ids=(0, 1))
    clock.advance(5)
    assert cli.health(db_path, clock) == (0, "ok: bot pid 12 on box, shards 0,1 of 2, "
                                             "heartbeat 5 s ago")
    await store.close()


def check(env: dict[str, str], monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> list[str]:
    for variable in VARIABLES:
        monkeypatch.delenv(variable.name, raising=False)
    cli.check(env)
    return capsys.readouterr().out.splitlines()


def test_check_says_what_a_sharded_process_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    env = {"GAMES_DB": str(tmp_path / "games.sqlite3"), "DISCORD_TOKEN": "x",
           "SHARD_COUNT": "2"}
    lines = check(env, monkeypatch, capsys)
    assert "ok: shards: this process runs all 2 shards, and uploads the slash commands at " \
           "start-up" in lines
    assert any(line.startswith("ok: settings: ") and "SHARD_COUNT=2, SHARD_IDS=(unset)" in line
               for line in lines)
    lines = check({**env, "SYNC_COMMANDS": "no"}, monkeypatch, capsys)
    assert "ok: shards: this process runs all 2 shards, and uploads no slash commands " \
           "(SYNC_COMMANDS=no)" in lines
    lines = check({**env, "SHARD_IDS": "1"}, monkeypatch, capsys)
    assert [line for line in lines if "SHARD" in line and line.startswith("problem")] == [
        next(line for line in lines if line.startswith("problem: bad setting SHARD_IDS: this "
                                                       "process runs 1 of the 2 shards"))]
    assert lines[-1] == "1 problem found"


@pytest.mark.postgres
async def test_health_on_postgresql_finds_the_heartbeat_of_these_shards(pg_url: str) -> None:
    clock = ManualClock()
    here = socket.gethostname()
    store = await PostgresBackend(pg_url).open(clock)
    try:
        await store.start_heartbeat("zero", 10, here, shard_count=2, shard_ids=(0,))
        clock.advance(1)
        await store.start_heartbeat("one", 11, here, shard_count=2, shard_ids=(1,))
        assert await health(pg_url, clock, here, (2, (0,))) == (
            0, f"ok: bot pid 10 on {here}, shards 0 of 2, heartbeat 1 s ago")
        assert await health(pg_url, clock, here, (2, (1,))) == (
            0, f"ok: bot pid 11 on {here}, shards 1 of 2, heartbeat 0 s ago")
        assert await health(pg_url, clock, here, (2, (0, 1))) == (
            1, f"down: no heartbeat from {here} for shards 0,1 of 2")
        assert (await health(pg_url, clock, here, None))[1].startswith("ok: bot pid 11 "), \
            "unsharded settings take the latest beat on the host"
    finally:
        await store.close()


@pytest.mark.postgres
async def test_check_lists_the_running_bots_and_a_shard_count_that_differs(
        pg_url: str) -> None:
    clock = ManualClock()
    store = await PostgresBackend(pg_url).open(clock)
    try:
        await store.start_heartbeat("a", 10, "host-a", shard_count=2, shard_ids=(0,))
        await store.start_heartbeat("b", 11, "host-b", shard_count=3, shard_ids=(1,))
        clock.advance(-3600)
        await store.start_heartbeat("old", 9, "host-c", shard_count=3, shard_ids=(2,))
        clock.advance(3600)
        settings = Settings(database_url=pg_url, shard_count=2, shard_ids=(1,), clock=clock)
        findings = await asyncio.to_thread(cli_check.running_findings, pg_url, settings)
    finally:
        await store.close()
    started = iso(clock())
    assert findings == [
        (True, f"running: pid 10 on host-a, shards 0 of 2, started {started}, last heartbeat "
               "0 s ago"),
        (False, f"running: pid 11 on host-b, shards 1 of 3, started {started}, last heartbeat "
                "0 s ago: its SHARD_COUNT is 3, these settings' 2; every process of the bot "
                "needs the same")], "a stale heartbeat is no running bot"


async def health(url: str, clock: ManualClock, host: str,
                 shards: tuple[int, tuple[int, ...]] | None) -> tuple[int, str]:
    return await asyncio.to_thread(cli.health_postgres, url, clock, host, shards)


def test_a_heartbeat_written_before_schema_12_reads_as_not_sharded(tmp_path: Path) -> None:
    db_path = tmp_path / "games.sqlite3"
    with sqlite3.connect(db_path) as old:
        for step in range(1, 12):
            old.executescript(MIGRATIONS[step])
        old.execute("PRAGMA user_version = 11")
        old.execute("INSERT INTO heartbeat VALUES ('i', 12, 'box', '2026-01-01T00:00:00+00:00',"
                    " '2026-01-01T00:00:00+00:00')")
    old.close()
    [beat] = read_heartbeats(db_path)
    assert (beat.pid, beat.shard_count, beat.shard_ids, beat.shards) == (12, None, (), "")


async def test_each_backend_keeps_the_shards_of_a_heartbeat(store: Store) -> None:
    await store.start_heartbeat("one", 11, "box", shard_count=4, shard_ids=(1, 3))
    [beat] = await store.heartbeats()
    assert (beat.instance, beat.shard_count, beat.shard_ids) == ("one", 4, (1, 3))
    await store.start_heartbeat("one", 11, "box")  # the same instance, started unsharded
    [beat] = await store.heartbeats()
    assert (beat.shard_count, beat.shard_ids, beat.shards) == (None, (), "")
