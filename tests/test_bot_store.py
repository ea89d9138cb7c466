"""The store and the session host without Discord: commits, reloads, crashes."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.sessions import Host, Refusal, chance_rng
from bot.store import MIGRATIONS, SCHEMA_VERSION, ChannelBusy, Store, run
from rules.core import IllegalAction
from rules.record import replay_lines

CHANNEL = 100


class Crash(Exception):
    """Stands for the process dying at an unlucky moment."""


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(db_path, ManualClock())
    yield opened
    await opened.close()


async def running_game(host: Host, humans: int = 3, ai: int = 0, **options: str):
    """A started Make Make game with ``humans`` human seats (users 1, 2, ...) and ``ai`` AI."""
    session = await host.create(channel_id=CHANNEL, guild_id=1, game="makemake",
                                options=options, creator_id=1, language="en", join=False)
    for user in range(1, humans + 1):
        await host.join(session.id, user)
    for _ in range(ai):
        await host.add_ai(session.id, 1)
    report = await host.start(session.id, 1)
    return report.session


def committed(db_path: Path, sql: str, *params: object) -> list[tuple]:
    """What another process would read now: only committed data."""
    with sqlite3.connect(db_path) as other:
        return other.execute(sql, params).fetchall()


async def test_schema_is_versioned_and_in_wal_mode(store: Store, db_path: Path) -> None:
    assert committed(db_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert committed(db_path, "PRAGMA journal_mode") == [("wal",)]
    again = await Store.open(db_path)  # migrating twice is harmless
    await again.close()
    await run(store.db, f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(RuntimeError, match="newer"):
        await Store.open(db_path)


async def test_one_active_game_per_channel(store: Store) -> None:
    fields = dict(guild_id=1, game="makemake", options="", seed=3, creator_id=1,
                  language="en", ai_level="random")
    first = await store.create_game(channel_id=CHANNEL, **fields)
    with pytest.raises(ChannelBusy):
        await store.create_game(channel_id=CHANNEL, **fields)
    await store.create_game(channel_id=CHANNEL + 1, **fields)
    await store.set_status(first.id, "aborted")
    await store.create_game(channel_id=CHANNEL, **fields)
    assert first.created_at == "2026-01-01T00:00:00+00:00"  # from the injected clock


async def test_every_action_is_committed_with_its_snapshot(store: Store, db_path: Path) -> None:
    host = Host(store, seed_source=lambda: 11)
    session = await running_game(host, humans=0, ai=3, round_limit="2")
    assert session.status == "finished"
    lines = committed(db_path, "SELECT seq, line FROM actions ORDER BY seq")
    assert [seq for seq, _ in lines] == list(range(1, len(lines) + 1))
    assert [line for _, line in lines] == session.game.lines
    [(seq, state)] = committed(db_path, "SELECT seq, state FROM snapshots")
    assert '"phase":"over"' in state
    assert seq == len(lines)
    assert committed(db_path, "SELECT status, header FROM games") == [
        ("finished", "game makemake red blue green round_limit=2 seed=11")]
    record = session.record()
    assert record is not None and record.startswith("game makemake red blue green")
    replayed = replay_lines(record.splitlines()[0], record.splitlines()[1:])
    assert replayed.state == session.game.state


async def test_reload_continues_the_same_game(store: Store, db_path: Path) -> None:
    host = Host(store, seed_source=lambda: 5)
    session = await running_game(host, humans=2, ai=1)
    await host.play(CHANNEL, 1, "place A1 2")
    await host.play(CHANNEL, 2, "place E9 3 chief")  # then the AI (green) moves
    assert session.seq == 3

    other = await Store.open(db_path)
    try:
        fresh = Host(other)
        loaded = await fresh.load()
        assert [s.id for s in loaded] == [session.id]
        again = fresh.in_channel(CHANNEL)
        assert again is not None and again.seq == 3
        assert again.game.lines == session.game.lines
        assert again.view() == session.view()
        assert [(s.colour, s.user_id, s.ai_level) for s in again.seats] == [
            ("red", 1, None), ("blue", 2, None), ("green", None, "greedy")]
        report = await fresh.play(CHANNEL, 1, "red place B2 1")
        assert [s.by for s in report.steps] == ["human"]
    finally:
        await other.close()


async def test_a_crash_inside_the_transaction_leaves_the_action_unapplied(
        store: Store, db_path: Path) -> None:
    host = Host(store)
    session = await running_game(host)
    await host.play(CHANNEL, 1, "place A1 2")
    before = session.game.state, list(session.game.lines)

    async def die() -> None:
        raise Crash

    with pytest.raises(Crash):
        await store.append_action(session.id, 2, "blue place B2 1", {"broken": True},
                                  before_commit=die)
    assert committed(db_path, "SELECT seq FROM actions") == [(1,)]
    assert committed(db_path, "SELECT seq FROM snapshots") == [(1,)]

    real = store.append_action

    async def failing(*args, **kwargs):
        await real(*args, **kwargs, before_commit=die)

    store.append_action = failing  # type: ignore[method-assign]
    with pytest.raises(Crash):
        await host.play(CHANNEL, 2, "place B2 1")
    assert (session.game.state, session.game.lines) == before  # memory follows the store
    store.append_action = real  # type: ignore[method-assign]
    await host.play(CHANNEL, 2, "place B2 1")
    assert committed(db_path, "SELECT seq, line FROM actions ORDER BY seq") == [
        (1, "red place A1 2"), (2, "blue place B2 1")]


async def test_a_crash_after_the_commit_keeps_the_action(store: Store, db_path: Path) -> None:
    """Committed but never announced: the reloaded game has the action."""
    host = Host(store)
    session = await running_game(host)
    await host.play(CHANNEL, 1, "place A1 2")
    other = await Store.open(db_path)
    try:
        reloaded = Host(other)
        await reloaded.load()
        assert reloaded.in_channel(CHANNEL).game.lines == ["red place A1 2"]
        assert reloaded.in_channel(CHANNEL).view() == session.view()
    finally:
        await other.close()


async def test_the_log_wins_over_a_bad_snapshot(store: Store, db_path: Path) -> None:
    host = Host(store)
    session = await running_game(host)
    await host.play(CHANNEL, 1, "place A1 2")
    await run(store.db, "UPDATE snapshots SET seq = 0")
    fresh = Host(store)
    await fresh.load()
    assert fresh.in_channel(CHANNEL).view() == session.view()


async def test_refusals_change_nothing(store: Store, db_path: Path) -> None:
    host = Host(store)
    session = await running_game(host)
    state = session.game.state
    with pytest.raises(Refusal, match="not_your_turn"):
        await host.play(CHANNEL, 2, "place A1 1")
    with pytest.raises(Refusal, match="not_player"):
        await host.play(CHANNEL, 9, "place A1 1")
    with pytest.raises(IllegalAction, match="centre"):
        await host.play(CHANNEL, 1, "place C4 1")
    with pytest.raises(IllegalAction, match="syntax"):
        await host.play(CHANNEL, 1, "hello")
    with pytest.raises(Refusal, match="stale"):
        await host.play(CHANNEL, 1, "place A1 1", expect_seq=5)
    assert session.game.state is state
    assert committed(db_path, "SELECT COUNT(*) FROM actions") == [(0,)]


async def test_lobby_rules(store: Store) -> None:
    host = Host(store)
    with pytest.raises(Refusal, match="unknown_option"):
        await host.create(channel_id=CHANNEL, guild_id=1, game="makemake",
                          options={"speed": "9"}, creator_id=1, language="en")
    with pytest.raises(Refusal, match="bad_option"):
        await host.create(channel_id=CHANNEL, guild_id=1, game="makemake",
                          options={"round_limit": "0"}, creator_id=1, language="en")
    session = await host.create(channel_id=CHANNEL, guild_id=1, game="makemake",
                                options={"round_limit": "5", "edge_strict": "yes"},
                                creator_id=1, language="en")
    assert session.row.options == "round_limit=5 edge_strict=yes"
    with pytest.raises(Refusal, match="channel_busy"):
        await host.create(channel_id=CHANNEL, guild_id=1, game="makemake", options={},
                          creator_id=2, language="en")
    assert (await host.join(session.id, 2)).colour == "blue"
    assert (await host.add_ai(session.id, 1, "random")).colour == "green"
    await host.leave(session.id, 2)
    assert (await host.join(session.id, 3)).colour == "blue"  # the first free colour
    with pytest.raises(Refusal, match="not_player"):
        await host.add_ai(session.id, 4)
    await host.add_ai(session.id, 1)
    with pytest.raises(Refusal, match="full"):
        await host.join(session.id, 5)
    with pytest.raises(Refusal, match="abort_denied"):
        await host.abort(CHANNEL, 3)
    await host.abort(CHANNEL, 3, is_admin=True)
    assert host.in_channel(CHANNEL) is None
    with pytest.raises(Refusal, match="game_closed"):
        await host.join(session.id, 6)


def test_chance_draws_depend_only_on_seed_and_count() -> None:
    assert chance_rng(7, 3).random() == chance_rng(7, 3).random()
    assert chance_rng(7, 3).random() != chance_rng(7, 4).random()
    assert chance_rng(7, 3).random() != chance_rng(8, 3).random()


async def test_simultaneous_requests_are_serialised(store: Store, db_path: Path) -> None:
    host = Host(store)
    await running_game(host)
    outcomes = await asyncio.gather(host.play(CHANNEL, 1, "place A1 1"),
                                    host.play(CHANNEL, 1, "place A2 1"),
                                    return_exceptions=True)
    refused = [o for o in outcomes if isinstance(o, Refusal)]
    assert len(refused) == 1 and refused[0].key == "bot.refuse.not_your_turn"
    assert committed(db_path, "SELECT line FROM actions") == [("red place A1 1",)]


async def test_an_old_database_is_migrated_in_place(db_path: Path) -> None:
    with sqlite3.connect(db_path) as old:
        old.executescript(MIGRATIONS[1])
        old.execute("PRAGMA user_version = 1")
        old.execute("INSERT INTO games (channel_id, game, seed, status, creator_id, language,"
                    " ai_level, created_at, updated_at) VALUES (5, 'makemake', 1, 'lobby', 1,"
                    " 'en', 'random', 'then', 'then')")
    store = await Store.open(db_path)
    try:
        row = await store.active_game(5)
        assert row is not None and row.turn_seconds is None and row.deadline_at is None
        assert committed(db_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    finally:
        await store.close()
