"""The store and the session host without Discord: commits, reloads, crashes, migrations.
Each test runs on both backends (``tests/helpers/stores.py``) unless it is about SQLite's file."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from bot.host.clock import ManualClock, iso
from bot.host.sessions import AWAY_AFTER, Host, Refusal
from bot.host.store import (
    FORMER_ID,
    MIGRATIONS,
    POSTGRES_MIGRATIONS,
    SCHEMA_VERSION,
    ChannelBusy,
    MessageRow,
    SchemaTooNew,
    Seat,
    SeatChangeRow,
    SqliteStore,
    Store,
    run,
)
from rules.core import IllegalAction
from rules.fair import chance_rng
from rules.record import Game, replay_lines
from tests.helpers.store_rows import CHANNEL, FIELDS
from tests.helpers.stores import Backend, PostgresBackend, SqliteBackend


class Crash(Exception):
    """Stands for the process dying at an unlucky moment."""


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


def in_file(path: Path, sql: str) -> list[tuple]:
    """What a SQLite file holds (a backup, say)."""
    other = sqlite3.connect(path)
    try:
        return other.execute(sql).fetchall()
    finally:
        other.close()


async def test_schema_is_versioned(store: Store, backend: Backend) -> None:
    assert SCHEMA_VERSION == 15 and sorted(MIGRATIONS) == list(range(1, 16))
    assert sorted(POSTGRES_MIGRATIONS) == sorted(MIGRATIONS), "the same steps in both"
    assert await backend.version() == SCHEMA_VERSION
    again = await backend.open()  # migrating twice is harmless
    await again.close()
    assert await backend.version() == SCHEMA_VERSION
    await backend.at_version(SCHEMA_VERSION + 1)
    with pytest.raises(SchemaTooNew, match="newer"):
        await backend.open()


@pytest.mark.postgres
async def test_both_backends_end_with_the_same_tables_columns_and_indexes(
        pg_url: str, tmp_path: Path) -> None:
    from_sqlite = SqliteBackend(tmp_path / "games.sqlite3")
    from_postgres = PostgresBackend(pg_url)
    for backend in (from_sqlite, from_postgres):
        store = await backend.open()
        await store.close()
    assert await from_sqlite.version() == await from_postgres.version() == SCHEMA_VERSION
    tables = await from_sqlite.tables()
    assert len(tables) == 18 and tables["games"] >= {"id", "secret_seed", "paused_left"}
    assert await from_postgres.tables() == tables
    assert await from_postgres.indexes() == await from_sqlite.indexes() == {
        "one_active_game_per_channel", "messages_by_id", "results_by_player"}


async def test_a_sqlite_file_is_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    store = await SqliteStore.open(path)
    try:
        assert in_file(path, "PRAGMA journal_mode") == [("wal",)]
        async with store.transaction() as db:  # the version as a held transaction sets it
            await run(db, f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    finally:
        await store.close()
    with pytest.raises(RuntimeError, match="newer"):
        await SqliteStore.open(path)


async def test_schema_4_has_the_tables_of_the_calm_table(store: Store, backend: Backend) -> None:
    assert {"sealed", "events", "by"} <= await backend.columns("actions")
    assert {"thread_id", "lobby_message_id", "turn_seconds", "deadline_at", "reminded"} \
        <= await backend.columns("games")
    assert "acted_at" in await backend.columns("seats")
    assert await backend.columns("messages") == {"game_id", "slot", "channel_id", "message_id",
                                            "digest", "stage", "stage_start", "holder",
                                            "turn", "mentions", "reminder"}
    assert await backend.columns("guild_settings") == {"guild_id", "threads"}
    assert "dm_closed" in await backend.columns("hidden_seats")


async def test_one_active_game_per_channel(store: Store) -> None:
    fields = FIELDS
    first = await store.create_game(channel_id=CHANNEL, **fields)
    with pytest.raises(ChannelBusy):
        await store.create_game(channel_id=CHANNEL, **fields)
    await store.create_game(channel_id=CHANNEL + 1, **fields)
    await store.set_status(first.id, "aborted")
    await store.create_game(channel_id=CHANNEL, **fields)
    assert first.created_at == "2026-01-01T00:00:00+00:00"  # from the injected clock


async def test_every_action_is_committed_with_its_snapshot(store: Store, backend: Backend) -> None:
    host = Host(store, seed_source=lambda: 11)
    session = await running_game(host, humans=0, ai=3, round_limit="2")
    assert session.status == "finished"
    lines = await backend.committed("SELECT seq, line FROM actions ORDER BY seq")
    assert [seq for seq, _ in lines] == list(range(1, len(lines) + 1))
    assert [line for _, line in lines] == session.game.lines
    [(seq, state)] = await backend.committed("SELECT seq, state FROM snapshots")
    assert '"phase":"over"' in state
    assert seq == len(lines)
    assert await backend.committed("SELECT status, header FROM games") == [
        ("finished", "game makemake red blue green round_limit=2 seed=11")]
    record = session.record()
    assert record is not None and record.startswith("game makemake red blue green")
    replayed = replay_lines(record.splitlines()[0], record.splitlines()[1:])
    assert replayed.state == session.game.state


async def test_reload_continues_the_same_game(store: Store, backend: Backend) -> None:
    host = Host(store, seed_source=lambda: 5)
    session = await running_game(host, humans=2, ai=1)
    await host.play(CHANNEL, 1, "place A1 2")
    await host.play(CHANNEL, 2, "place E9 3 chief")  # then the AI (green) moves
    assert session.seq == 3

    other = await backend.open()
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
        store: Store, backend: Backend) -> None:
    host = Host(store)
    session = await running_game(host)
    await host.play(CHANNEL, 1, "place A1 2")
    before = session.game.state, list(session.game.lines)

    def die() -> None:  # on the writer's thread, inside the transaction, before COMMIT
        raise Crash

    with pytest.raises(Crash):
        await store.append_action(session.id, 2, "blue place B2 1", {"broken": True},
                                  before_commit=die)
    assert await backend.committed("SELECT seq FROM actions") == [(1,)]
    assert await backend.committed("SELECT seq FROM snapshots") == [(1,)]

    real = store.append_action

    async def failing(*args, **kwargs):
        await real(*args, **kwargs, before_commit=die)

    store.append_action = failing  # type: ignore[method-assign]
    with pytest.raises(Crash):
        await host.play(CHANNEL, 2, "place B2 1")
    assert (session.game.state, session.game.lines) == before  # memory follows the store
    store.append_action = real  # type: ignore[method-assign]
    await host.play(CHANNEL, 2, "place B2 1")
    assert await backend.committed("SELECT seq, line FROM actions ORDER BY seq") == [
        (1, "red place A1 2"), (2, "blue place B2 1")]


async def test_a_crash_after_the_commit_keeps_the_action(store: Store, backend: Backend) -> None:
    """Committed but never announced: the reloaded game has the action."""
    host = Host(store)
    session = await running_game(host)
    await host.play(CHANNEL, 1, "place A1 2")
    other = await backend.open()
    try:
        reloaded = Host(other)
        await reloaded.load()
        assert reloaded.in_channel(CHANNEL).game.lines == ["red place A1 2"]
        assert reloaded.in_channel(CHANNEL).view() == session.view()
    finally:
        await other.close()


async def test_the_log_wins_over_a_bad_snapshot(store: Store, backend: Backend) -> None:
    host = Host(store)
    session = await running_game(host)
    await host.play(CHANNEL, 1, "place A1 2")
    async with store.transaction() as db:
        await run(db, "UPDATE snapshots SET seq = 0")
    fresh = Host(store)
    await fresh.load()
    assert fresh.in_channel(CHANNEL).view() == session.view()


async def test_refusals_change_nothing(store: Store, backend: Backend) -> None:
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
    assert await backend.committed("SELECT COUNT(*) FROM actions") == [(0,)]


async def test_lobby_rules(store: Store) -> None:
    host = Host(store)
    with pytest.raises(Refusal, match="unknown_option"):
        await host.create(channel_id=CHANNEL, guild_id=1, game="makemake",
                          options={"speed": "9"}, creator_id=1, language="en")
    with pytest.raises(Refusal, match="option_int"):
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
    # a full lobby: a late joiner gets the newest AI seat, until only humans are left
    assert (await host.join(session.id, 5)).colour == "yellow"
    assert (await host.join(session.id, 6)).colour == "green"
    with pytest.raises(Refusal, match="full"):
        await host.join(session.id, 7)
    assert [(s.colour, s.user_id) for s in (await host.get(session.id)).seats] == [
        ("red", 1), ("green", 6), ("blue", 3), ("yellow", 5)]
    assert [(c.what, c.colour, c.user_id) for c in session.changes] == [
        ("replaced", "yellow", 5), ("replaced", "green", 6)]
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


async def test_simultaneous_requests_are_serialised(store: Store, backend: Backend) -> None:
    host = Host(store)
    await running_game(host)
    outcomes = await asyncio.gather(host.play(CHANNEL, 1, "place A1 1"),
                                    host.play(CHANNEL, 1, "place A2 1"),
                                    return_exceptions=True)
    refused = [o for o in outcomes if isinstance(o, Refusal)]
    assert len(refused) == 1 and refused[0].key == "bot.refuse.not_your_turn"
    assert await backend.committed("SELECT line FROM actions") == [("red place A1 1",)]


async def test_an_old_database_is_migrated_in_place(backend: Backend) -> None:
    await backend.at_schema(1)
    await backend.execute(
        "INSERT INTO games (channel_id, game, seed, status, creator_id, language, ai_level,"
        " created_at, updated_at) VALUES (5, 'makemake', 1, 'lobby', 1, 'en', 'random', 'then',"
        " 'then')")
    store = await backend.open()
    try:
        row = await store.active_game(5)
        assert row is not None and row.turn_seconds is None and row.deadline_at is None
        assert row.thread_id is None and row.lobby_message_id is None and row.home_id == 5
        assert await backend.version() == SCHEMA_VERSION
    finally:
        await store.close()


async def test_a_sqlite_file_is_backed_up_before_it_is_migrated(tmp_path: Path) -> None:
    backend = SqliteBackend(tmp_path / "games.sqlite3")
    db_path = backend.path
    await backend.at_schema(1)
    await backend.execute(
        "INSERT INTO games (channel_id, game, seed, status, creator_id, language, ai_level,"
        " created_at, updated_at) VALUES (5, 'makemake', 1, 'lobby', 1, 'en', 'random', 'then',"
        " 'then')")
    store = await backend.open()
    await store.close()
    backup = db_path.with_name(f"{db_path.name}.v1.bak")
    assert in_file(backup, "PRAGMA user_version") == [(1,)], "a backup before migrating"
    assert in_file(backup, "SELECT channel_id FROM games") == [(5,)]
    again = await backend.open()  # current: no new backup
    await again.close()
    assert sorted(p.name for p in db_path.parent.iterdir() if p.suffix == ".bak") == [
        backup.name]


async def test_a_schema_3_game_keeps_its_log_and_closed_dms(backend: Backend) -> None:
    """Rows written before the calm table read as public, played by a human, without events."""
    await backend.at_schema(3)
    await backend.execute(
        "INSERT INTO games (id, channel_id, game, seed, header, status, creator_id, language,"
        " ai_level, created_at, updated_at) VALUES (1, 5, 'makemake', 1,"
        " 'game makemake red blue green seed=1', 'running', 1, 'en', 'random', 'then', 'then')",
        "INSERT INTO seats (game_id, colour, user_id, ai_level, name, joined)"
        " VALUES (1, 'red', 1, NULL, 'ana', 1)",
        "INSERT INTO actions (game_id, seq, line) VALUES (1, 1, 'red place A1 1')",
        "INSERT INTO hidden_seats (game_id, colour, dm_closed) VALUES (1, 'red', 1)")
    store = await backend.open()
    try:
        [row] = await store.log(1)
        assert (row.seq, row.line, row.events, row.by, row.sealed) == (
            1, "red place A1 1", [], "human", None)
        assert await store.closed_dms(1) == {"red"}
        [seat] = await store.seats(1)
        assert (seat.colour, seat.name, seat.acted_at) == ("red", "ana", None)
        assert not seat.was_human and await store.seat_changes(1) == []
        assert await store.messages(1) == {}
    finally:
        await store.close()


async def test_a_schema_4_seed_is_kept_as_text(backend: Backend) -> None:
    """Migration 5 copies each game's seed into the TEXT column that holds 128 bits."""
    await backend.at_schema(4)
    await backend.execute(
        "INSERT INTO games (id, channel_id, game, seed, header, status, creator_id, language,"
        " ai_level, created_at, updated_at) VALUES (1, 5, 'giants', 2147483647,"
        " 'game giants red blue green seed=2147483647', 'running', 1, 'en', 'random', 'then',"
        " 'then')")
    store = await backend.open()
    try:
        row = await store.game(1)
        assert row is not None and row.seed == 2**31 - 1
        assert await backend.committed("SELECT secret_seed FROM games") == [("2147483647",)]
    finally:
        await store.close()


async def test_a_schema_13_message_keeps_what_its_stage_said_in_named_fields(
        backend: Backend) -> None:
    """Migration 14 reads each kind of message's old encoding of ``stage`` into its own
    fields; what cannot be read stays unknown."""
    await backend.at_schema(13)
    stored = {"live": "turn:bid|7", "ping": "4,5|remind", "screen:red": "4",
              "prompt:red": "3@4", "prompt:blue": "2", "turn:red": "6", "lobby": "",
              "screen:blue": "", "prompt:green": "x@y"}
    await backend.execute(
        "INSERT INTO games (id, channel_id, game, seed, status, creator_id, language, ai_level,"
        " created_at, updated_at) VALUES (1, 5, 'giants', 1, 'running', 1, 'en', 'random',"
        " 'then', 'then')",
        "INSERT INTO games (id, channel_id, game, seed, status, creator_id, language, ai_level,"
        " created_at, updated_at) VALUES (2, 6, 'giants', 1, 'running', 1, 'en', 'random',"
        " 'then', 'then')",
        "INSERT INTO messages (game_id, slot, channel_id, message_id, digest, stage)"
        " VALUES (2, 'live', 60, 61, 'd', 'over')",
        "INSERT INTO messages (game_id, slot, channel_id, message_id, digest, stage)"
        " VALUES (2, 'ping', 60, 62, 'd', '7|')",
        *(f"INSERT INTO messages (game_id, slot, channel_id, message_id, digest, stage)"
          f" VALUES (1, '{slot}', 50, {n}, 'd{n}', '{stage}')"
          for n, (slot, stage) in enumerate(stored.items(), start=100)))
    store = await backend.open()
    try:
        assert await store.messages(1) == {
            "live": MessageRow("live", 50, 100, "d100", "turn:bid", 7),
            "ping": MessageRow("ping", 50, 101, "d101", mentions=(4, 5), reminder=True),
            "screen:red": MessageRow("screen:red", 50, 102, "d102", holder=4),
            "prompt:red": MessageRow("prompt:red", 50, 103, "d103", turn=3, holder=4),
            "prompt:blue": MessageRow("prompt:blue", 50, 104, "d104", turn=2),
            "turn:red": MessageRow("turn:red", 50, 105, "d105", turn=6),
            "lobby": MessageRow("lobby", 50, 106, "d106"),
            "screen:blue": MessageRow("screen:blue", 50, 107, "d107"),
            "prompt:green": MessageRow("prompt:green", 50, 108, "d108")}
        assert await store.messages(2) == {"live": MessageRow("live", 60, 61, "d"),
                                           "ping": MessageRow("ping", 60, 62, "d",
                                                              mentions=(7,))}
        assert await backend.version() == SCHEMA_VERSION
    finally:
        await store.close()


async def test_forgetting_a_user_clears_them_from_every_message_field(store: Store) -> None:
    """A forgotten user is neither a DM's holder nor among a ping's mentions any more; the
    others' stay."""
    game = await store.create_game(channel_id=5, guild_id=1, game="giants", options="", seed=1,
                                   creator_id=9, language="en", ai_level="random")
    rows = [MessageRow("ping", 5, 100, "d", mentions=(4, 44, 5), reminder=True),
            MessageRow("screen:red", 5, 101, "d", holder=4),
            MessageRow("prompt:blue", 5, 102, "d", turn=3, holder=44),
            MessageRow("live", 5, 103, "d", "turn:bid", 7)]
    for row in rows:
        await store.set_message(game.id, row)
    await store.forget_user(4)
    assert await store.messages(game.id) == {
        "ping": MessageRow("ping", 5, 100, "d", mentions=(44, 5), reminder=True),
        "screen:red": MessageRow("screen:red", 5, 101, "d"),
        "prompt:blue": MessageRow("prompt:blue", 5, 102, "d", turn=3, holder=44),
        "live": MessageRow("live", 5, 103, "d", "turn:bid", 7)}


async def test_a_128_bit_seed_is_stored_exactly_and_draws_the_same_after_a_reload(
        store: Store, backend: Backend) -> None:
    seed = 2**128 - 12345
    host = Host(store, seed_source=lambda: seed)
    session = await giants_bids(host)
    assert session.row.seed == seed and session.game.header.seed == seed
    assert await backend.committed("SELECT seed, secret_seed FROM games") == [(0, str(seed))]
    for user, colour in ((1, "red"), (2, "blue"), (3, "green")):
        await host.play(CHANNEL, user, str(session.legal(colour)[0]))
    reloaded = Host(store)
    await reloaded.load()
    again = reloaded.in_channel(CHANNEL)
    assert again is not None and again.row.seed == seed
    assert again.game.header.seed == seed and again.game.lines == session.game.lines
    [dice] = [line for line in session.game.lines if line.startswith("* ")]
    fresh = Game.start(again.game.header)
    assert dice == f"* {fresh.next_chance()}", "the host drew the seed's own dice"


async def test_a_sealed_line_stays_sealed_until_a_reveal(store: Store, backend: Backend) -> None:
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    other = await store.create_game(channel_id=CHANNEL + 1, **FIELDS)
    bid = [{"kind": "bid", "seat": "red", "sealed": "red"}]
    await store.append_action(game.id, 1, "* dice 1 2 3", {}, events=[{"kind": "dice"}],
                              by="chance")
    await store.append_action(game.id, 2, "red bid 2m", {}, events=bid, sealed="red")
    await store.append_action(other.id, 1, "blue bid 1m", {}, sealed="blue")
    log = await store.log(game.id)
    assert [(r.line, r.by, r.sealed) for r in log] == [
        ("* dice 1 2 3", "chance", None), ("red bid 2m", "human", "red")]
    assert log[1].events == bid, "events are stored as given"

    await store.append_action(game.id, 3, "blue bid 0m", {}, sealed=None,  # as the host says
                              events=[{"kind": "reveal"}], reveals=True)
    assert [r.sealed for r in await store.log(game.id)] == [None, None, None]
    assert await backend.committed("SELECT sealed FROM actions WHERE game_id = ?", game.id) == [
        (None,)] * 3
    assert [r.sealed for r in await store.log(other.id)] == ["blue"], "other games keep theirs"
    assert await store.actions(game.id) == ["* dice 1 2 3", "red bid 2m", "blue bid 0m"]


async def test_an_action_writes_its_seat_as_given(store: Store) -> None:
    """The host decides when a seat acted (a human's own action; see the next test); the
    store writes the values it is given, and leaves a seat it is not given alone."""
    clock = store.clock
    assert isinstance(clock, ManualClock)
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    await store.add_seat(game.id, "red", 1, None, "ana", acted_at=iso(clock()))
    await store.add_seat(game.id, "blue", None, "random")
    joined = {s.colour: s.acted_at for s in await store.seats(game.id)}
    assert joined == {"red": "2026-01-01T00:00:00+00:00", "blue": None}, "as given"
    clock.advance(90)
    red = Seat("red", 1, acted_at=iso(clock()))
    await store.append_action(game.id, 1, "red place A1 1", {}, seat=red)
    clock.advance(30)
    await store.append_action(game.id, 2, "blue place A2 1", {}, by="ai")
    await store.append_action(game.id, 3, "red pass", {}, by="forced")
    acted = {s.colour: s.acted_at for s in await store.seats(game.id)}
    assert acted == {"red": "2026-01-01T00:01:30+00:00", "blue": None}


async def test_a_seat_joins_and_changes_hands_as_the_host_says(store: Store) -> None:
    """The store writes a seat's holder, name, ``acted_at`` and ``was_human``, and a change's
    time, as it is given: it decides none of them (the host does: see the next tests)."""
    clock = store.clock
    assert isinstance(clock, ManualClock)
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    await store.add_seat(game.id, "red", 1, None, "ana")
    await store.add_seat(game.id, "blue", 2, None, "bo", acted_at="2025-12-31T23:00:00+00:00")
    joined = {s.colour: s.acted_at for s in await store.seats(game.id)}
    assert joined == {"red": None, "blue": "2025-12-31T23:00:00+00:00"}
    clock.advance(60)
    blue = Seat("blue", None, "greedy", "bo", acted_at=None, was_human=False)
    await store.change_seat(game.id, blue, SeatChangeRow(0, "blue", "kicked", None, 2, 1,
                                                         "2025-12-31T23:30:00+00:00"))
    red = Seat("red", 3, None, "cy", acted_at="2025-12-31T23:45:00+00:00", was_human=True)
    await store.change_seat(game.id, red, SeatChangeRow(0, "red", "handed", 3, 1, 1,
                                                        "2025-12-31T23:45:00+00:00"))
    seats = {s.colour: s for s in await store.seats(game.id)}
    assert (seats["blue"].user_id, seats["blue"].ai_level, seats["blue"].name) == (
        None, "greedy", "bo")
    assert (seats["blue"].acted_at, seats["blue"].was_human) == (None, False), "as given"
    assert (seats["red"].user_id, seats["red"].name, seats["red"].acted_at,
            seats["red"].was_human) == (3, "cy", "2025-12-31T23:45:00+00:00", True)
    assert [c.at for c in await store.seat_changes(game.id)] == [
        "2025-12-31T23:30:00+00:00", "2025-12-31T23:45:00+00:00"], "each change's own time"
    await store.remove_seat(game.id, "blue", SeatChangeRow(0, "blue", "removed", None, None, 1,
                                                           "2025-12-31T23:50:00+00:00"))
    assert (await store.seat_changes(game.id))[-1].at == "2025-12-31T23:50:00+00:00"


async def test_the_host_decides_a_seat_s_holder_acted_at_and_was_human(store: Store) -> None:
    """Joining counts as acting; a seat that changes hands remembers a human held it, keeps
    its name when the AI takes over, and its new holder acted now: in memory and, the same
    values, in the store (a restart reads them back)."""
    clock = store.clock
    assert isinstance(clock, ManualClock)
    host = Host(store)
    session = await host.create(channel_id=CHANNEL, guild_id=1, game="makemake", options={},
                                creator_id=1, language="en", creator_name="ana")
    clock.advance(30)
    await host.join(session.id, 2, "bo")
    await host.add_ai(session.id, 1)
    joined = {s.colour: s.acted_at for s in await store.seats(session.id)}
    assert sorted(joined.values(), key=str) == [
        "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:30+00:00", None], "joining counts"
    session = (await host.start(session.id, 1)).session
    clock.advance(60)
    bo = session.seat_of(2)
    assert bo is not None
    await host.step_down(session.id, 2)
    clock.advance(60)
    await host.take(session.id, 3, bo.colour, name="cy")
    stored = {s.colour: s for s in await store.seats(session.id)}
    assert (bo.user_id, bo.name, bo.was_human, bo.acted_at) == (
        3, "cy", True, iso(clock())), "in memory"
    assert stored[bo.colour] == bo, "the same values in the store"
    await host.step_down(session.id, 3)
    assert (bo.user_id, bo.name, bo.was_human, bo.acted_at) == (None, "cy", True, None)
    assert (await store.seats(session.id))[bo.joined - 1] == bo
    assert [c.at for c in await store.seat_changes(session.id)] == [
        c.at for c in session.changes] == [iso(clock() - timedelta(seconds=60)), iso(clock()),
                                           iso(clock())]


async def test_the_host_decides_when_a_seat_acted_timed_out_or_is_away(store: Store) -> None:
    """A human's own action stamps when they acted and forgets their timeouts; each timeout
    counts one more, and AWAY_AFTER in a row mark them away: in memory and, the same values,
    in the store (AI and forced steps change no seat)."""
    clock = store.clock
    assert isinstance(clock, ManualClock)
    host = Host(store)
    session = await running_game(host, humans=2, ai=1)
    await host.set_turn_time(CHANNEL, 1, 60)

    async def stored() -> dict[str, tuple[str | None, int, bool]]:
        return {s.colour: (s.acted_at, s.timeouts, s.away) for s in await store.seats(session.id)
                if not s.is_ai}

    def memory() -> dict[str, tuple[str | None, int, bool]]:
        return {s.colour: (s.acted_at, s.timeouts, s.away) for s in session.seats
                if not s.is_ai}

    for _ in range(3 * AWAY_AFTER):  # turns go round: a seat's timeouts come in turn
        clock.advance(61)
        report = await host.timeout(session.id, clock())
        assert any(step.by == "timeout" for step in report.steps)
        assert await stored() == memory()
        if session.away():
            break
    [away] = session.away()
    assert away.timeouts == AWAY_AFTER, "timed out AWAY_AFTER times in a row: away"
    clock.advance(5)
    seat = next(s for c in session.pending() if (s := session.seat(c)) and not s.is_ai)
    assert seat.user_id is not None and seat.timeouts > 0
    await host.play(CHANNEL, seat.user_id, session.legal_lines(seat.colour)[0])
    assert (seat.acted_at, seat.timeouts, seat.away) == (iso(clock()), 0, False)
    assert await stored() == memory()
    assert away.user_id is not None
    await host.back(CHANNEL, away.user_id)
    assert (away.timeouts, away.away) == (0, False)
    assert await stored() == memory()


async def test_message_slots_are_set_replaced_and_dropped(store: Store) -> None:
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    other = await store.create_game(channel_id=CHANNEL + 1, **FIELDS)
    assert await store.messages(game.id) == {}
    live = MessageRow("live", 200, 300, "abc:key", "1", 1)
    await store.set_message(game.id, live)
    await store.set_message(game.id, MessageRow("screen:red", 400, 500))
    await store.set_message(other.id, MessageRow("live", 201, 301))
    assert await store.messages(game.id) == {"live": live, "screen:red": MessageRow(
        "screen:red", 400, 500, "", "")}
    newer = MessageRow("live", 200, 310, "def:key", "2", 4)
    await store.set_message(game.id, newer)  # a new stage: the slot now names the new message
    assert (await store.messages(game.id))["live"] == newer
    await store.drop_message(game.id, "live")
    await store.drop_message(game.id, "ping")  # dropping what is not there is harmless
    assert list(await store.messages(game.id)) == ["screen:red"]
    assert (await store.messages(other.id))["live"].message_id == 301


async def test_where_a_game_is_shown(store: Store) -> None:
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    assert game.home_id == CHANNEL
    await store.set_lobby_message(game.id, 777)
    await store.set_thread(game.id, 777)
    row = await store.game(game.id)
    assert row is not None and (row.lobby_message_id, row.thread_id, row.home_id) == (
        777, 777, 777)


async def test_threads_are_allowed_per_server_unless_turned_off(store: Store) -> None:
    assert await store.threads_allowed(None) is False, "no server, no threads"
    assert await store.threads_allowed(1) is True, "on by default"
    await store.set_threads_allowed(1, False)
    assert await store.threads_allowed(1) is False
    assert await store.threads_allowed(2) is True
    await store.set_threads_allowed(1, True)
    assert await store.threads_allowed(1) is True


async def test_closed_dms_are_remembered_per_game_and_seat(store: Store, backend: Backend) -> None:
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    other = await store.create_game(channel_id=CHANNEL + 1, **FIELDS)
    assert await store.closed_dms(game.id) == set()
    await store.set_dm_closed(game.id, "red", True)
    await store.set_dm_closed(game.id, "blue", True)
    await store.set_dm_closed(game.id, "blue", False)
    await store.set_dm_closed(other.id, "green", True)
    assert await store.closed_dms(game.id) == {"red"}
    assert await store.closed_dms(other.id) == {"green"}
    assert await backend.committed("SELECT COUNT(*) FROM hidden_seats") == [(3,)], "one row a seat"
    assert (await Host(store).get(game.id)).dm_closed == {"red"}, "a reloaded game knows them"


async def giants_bids(host: Host):
    """A started Giants game of three humans (users 1-3) at its first sealed bids."""
    session = await host.create(channel_id=CHANNEL, guild_id=1, game="giants", options={},
                                creator_id=1, language="en", join=False)
    for user in (1, 2, 3):
        await host.join(session.id, user)
    session = (await host.start(session.id, 1)).session
    assert session.kind() == "bid" and session.pending() == ("red", "blue", "green")
    return session


async def test_sealed_bids_are_private_in_memory_in_the_store_and_after_a_reload(
        store: Store, backend: Backend) -> None:
    host = Host(store, seed_source=lambda: 3)
    session = await giants_bids(host)
    red = str(session.legal("red")[0])
    report = await host.play(CHANNEL, 1, red)
    [step] = report.steps
    assert step.sealed == "red" and step.by == "human"
    record = session.public_record()
    assert record is not None and record.splitlines()[-1] == "red bid ?"
    assert session.public_record("red").splitlines()[-1] == f"red {red}"
    assert await backend.committed("SELECT line, sealed FROM actions WHERE seq = 2") == [
        (f"red {red}", "red")]

    reloaded = Host(store)
    await reloaded.load()
    again = reloaded.in_channel(CHANNEL)
    assert again is not None and [s.sealed for s in again.log] == [None, "red"]
    assert again.public_record() == record, "a restart keeps the secret"

    await host.play(CHANNEL, 2, str(session.legal("blue")[0]))
    await host.play(CHANNEL, 3, str(session.legal("green")[0]))  # the last bid reveals them all
    stored = [r.sealed for r in await store.log(session.id)]
    assert stored == [None] * len(stored)
    assert "?" not in (await _reloaded_record(store))


async def test_the_revealing_bid_is_public_in_memory_as_in_the_store(store: Store) -> None:
    host = Host(store, seed_source=lambda: 3)
    session = await giants_bids(host)
    for user, colour in ((1, "red"), (2, "blue"), (3, "green")):
        await host.play(CHANNEL, user, str(session.legal(colour)[0]))
    assert [s.sealed for s in session.log] == [r.sealed for r in await store.log(session.id)]
    assert session.public_record() == await _reloaded_record(store)


async def _reloaded_record(store: Store) -> str:
    fresh = Host(store)
    await fresh.load()
    again = fresh.in_channel(CHANNEL)
    assert again is not None
    record = again.public_record()
    assert record is not None
    return record


async def test_a_failing_ai_step_stalls_the_game_until_it_is_resumed(store: Store) -> None:
    """The human's move is committed and reported; the AI's step after it fails (a locked
    database, a bug): the game waits, stalled, and :meth:`Host.resume` plays the AI's moves."""
    host = Host(store, seed_source=lambda: 5)
    session = await running_game(host, humans=1, ai=2)
    real = host._advance

    async def fail(session):
        raise Crash

    host._advance = fail  # type: ignore[method-assign]
    report = await host.play(CHANNEL, 1, "place A1 1")
    assert [s.line for s in report.steps] == ["red place A1 1"]
    assert session.stalled and session.pending() == ("blue",)
    assert host.stalled() == [session]
    assert await store.actions(session.id) == ["red place A1 1"]

    host._advance = real  # type: ignore[method-assign]
    resumed = await host.resume(session.id)
    assert [s.by for s in resumed.steps] == ["ai", "ai"] and resumed.new_stage
    assert not session.stalled and session.pending() == ("red",)
    assert host.stalled() == []
    assert (await host.resume(session.id)).steps == [], "resuming twice plays nothing more"


async def test_a_take_back_keeps_the_rows_it_removes(store: Store, backend: Backend) -> None:
    """Schema 7: the rows a take-back removes move to ``takebacks`` in the same transaction
    as the rewound snapshot; a take-back that does not end where the log ends changes
    nothing."""
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    await store.add_seat(game.id, "red", 1, None, "ana")
    for seq, line in enumerate(["red place A1 1", "blue place E9 1"], start=1):
        await store.append_action(game.id, seq, line, {"seq": seq}, by="human" if seq == 1
                                  else "ai")
    with pytest.raises(RuntimeError, match="does not end"):
        await store.take_back(game.id, 0, 3, "red", {"seq": 0})
    assert await store.actions(game.id) == ["red place A1 1", "blue place E9 1"]
    await store.take_back(game.id, 0, 2, "red", {"seq": 0})
    assert await store.actions(game.id) == []
    snapshot = await store.snapshot(game.id)
    assert snapshot is not None and (snapshot.seq, snapshot.state) == (0, {"seq": 0})
    [kept] = await store.takebacks(game.id)
    assert (kept.at, kept.colour) == (0, "red")
    assert [(r.seq, r.line, r.by) for r in kept.rows] == [
        (1, "red place A1 1", "human"), (2, "blue place E9 1", "ai")]
    await store.append_action(game.id, 1, "red place A2 1", {"seq": 1})
    assert await store.actions(game.id) == ["red place A2 1"], "the next action is number 1"
    assert {"paused_by", "paused_left"} <= await backend.columns("games")
    assert {"timeouts", "away"} <= await backend.columns("seats")


async def test_the_database_belongs_to_the_first_application_recorded(
        store: Store, backend: Backend) -> None:
    assert await store.application_id() is None
    other = await backend.open()  # another process, logging in at the same moment
    try:
        first, second = await asyncio.gather(store.claim_application(111),
                                             other.claim_application(222))
        kept = await store.application_id()  # the first one recorded; the other learns it
        assert (first, second) in ((None, 111), (222, None))
        assert kept == (111 if first is None else 222)
        assert await other.claim_application(333) == kept, "a recorded one stays"
        assert await store.application_id() == kept
        assert await other.set_application(333) == kept, "moved on purpose"
        assert await store.application_id() == 333
        assert await backend.committed("SELECT application_id, recorded_at"
                                       " FROM discord_application") == [
            (333, "2026-01-01T00:00:00+00:00")]
    finally:
        await other.close()


async def test_a_server_missing_at_starts_is_counted_until_it_is_cleared(store: Store) -> None:
    clock = store.clock
    assert isinstance(clock, ManualClock)
    assert await store.absences() == {}
    first = await store.note_absence(7)
    assert (first.guild_id, first.starts, first.days()) == (7, 1, 0)
    clock.advance(36 * 3600)
    again = await store.note_absence(7)
    assert (again.starts, again.first_at, again.days()) == (2, first.first_at, 1.5)
    await store.note_absence(8)
    assert set(await store.absences()) == {7, 8}
    assert await store.clear_absence(8) and not await store.clear_absence(8)
    assert await store.absences() == {7: again}
    await store.create_game(channel_id=CHANNEL, **{**FIELDS, "guild_id": 7})
    await store.delete_guild(7)
    assert await store.absences() == {}, "a purged server leaves no record"


async def test_a_kick_holds_until_it_is_lifted_and_a_forgotten_user_leaves_no_hold(
        store: Store, backend: Backend) -> None:
    """A kicked player may not come back: the hold is kept with the game (a reopened store
    still has it) until lifted; forgetting a user removes the holds that name them, and the
    ones they set name a former player; a purged server's holds go with its games."""
    host = Host(store)
    session = await running_game(host, humans=3)
    await host.kick(session.id, 1, 2)
    with pytest.raises(Refusal) as refused:
        await host.take(session.id, 2, session.seats[1].colour)
    assert refused.value.key == "bot.refuse.kick_held" and refused.value.params["by"] == 1
    reopened = await backend.open(ManualClock())
    try:
        assert await reopened.kick_hold(session.id, 2) == 1
        assert await reopened.kick_hold(session.id, 3) is None
    finally:
        await reopened.close()
    assert await host.allow(session.id, 1, 2) is True
    assert await host.allow(session.id, 1, 2) is False
    await host.take(session.id, 2, session.seats[1].colour)
    assert session.seats[1].user_id == 2

    await store.hold_kick(session.id, 3, 7)
    await store.hold_kick(session.id, 7, 1)
    await store.forget_user(7)
    assert await store.kick_hold(session.id, 7) is None
    assert await store.kick_hold(session.id, 3) == FORMER_ID
    await store.delete_guild(1)
    assert await store.kick_hold(session.id, 3) is None
