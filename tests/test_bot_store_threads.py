"""The store's writes and reads: one round trip per transaction (SQLite: one job for its
writer's thread; PostgreSQL: one statement), a commit that runs to its end whatever happens to
the task awaiting it, reads and checkpoints that never wait for a commit, and the bulk read of
every active game. The tests that are not about SQLite's threads run on both backends."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import asyncpg
import pytest

import bot.host.store._sqlite_threads as sqlite_module
from bot.host.clock import ManualClock
from bot.host.sessions import Host
from bot.host.store import (
    LogRow,
    PostgresStore,
    SchemaTooNew,
    Seat,
    SeatChangeRow,
    SqliteStore,
    StaleGame,
    Store,
    StoreClosed,
    run,
)
from tests.helpers.stores import Backend, PostgresBackend

CHANNEL = 100
WAIT = 30.0
"""Most seconds a test waits for the writer's thread to reach a point (it takes
milliseconds; the bound only keeps a broken store from hanging the run)."""
STAMP = "2026-01-01T00:00:00+00:00"
"""When a test's seat last acted."""
RED = Seat("red", 1, acted_at=STAMP)
"""A test's acting seat, as the host gives it to the store."""
FIELDS = dict(guild_id=1, game="makemake", options="", seed=3, creator_id=1, language="en",
              ai_level="random")


class Crash(Exception):
    """Stands for the process dying at an unlucky moment."""


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
async def sqlite_store(db_path: Path) -> AsyncIterator[SqliteStore]:
    """A SQLite store, for the tests of its threads."""
    opened = await SqliteStore.open(db_path, ManualClock())
    yield opened
    await opened.close()


def committed(db_path: Path, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """What another process would read now: only committed data."""
    with sqlite3.connect(db_path) as other:
        rows = other.execute(sql, params).fetchall()
    other.close()
    return rows


class Gate:
    """Holds the writer's thread inside a transaction (as ``before_commit``) until opened."""

    def __init__(self, then: Callable[[], None] | None = None) -> None:
        self.inside, self.open = threading.Event(), threading.Event()
        self.then = then

    def __call__(self) -> None:
        self.inside.set()
        assert self.open.wait(WAIT)
        if self.then is not None:
            self.then()

    async def reached(self) -> None:
        assert await asyncio.to_thread(self.inside.wait, WAIT)


def crash() -> None:
    raise Crash


async def test_an_action_is_one_round_trip_to_the_writer(sqlite_store: SqliteStore,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    store = sqlite_store
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    await store.add_seat(game.id, "red", 1, None, "ana")
    jobs: list[object] = []
    submit = store._writer.submit

    def counting(job: Any) -> Any:
        jobs.append(job)
        return submit(job)

    monkeypatch.setattr(store._writer, "submit", counting)
    await store.append_action(game.id, 1, "red bid 2m", {"seq": 1}, events=[{"kind": "x"}],
                              seat=RED, reveals=True, finished=True)
    assert len(jobs) == 1, "log row, reveal, snapshot, game and seats: one job"
    row = await store.create_game(channel_id=CHANNEL + 1, **FIELDS)
    assert len(jobs) == 2 and row.status == "lobby", "the new row comes back with the commit"
    [logged] = await store.log(game.id)
    assert (logged.line, logged.sealed, logged.events) == ("red bid 2m", None, [{"kind": "x"}])
    assert (await store.game(game.id)).status == "finished"  # type: ignore[union-attr]


@pytest.mark.postgres
async def test_an_action_is_one_statement_on_postgresql(pg_url: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    store = await PostgresStore.open(pg_url, ManualClock(), pool_size=2)
    try:
        game = await store.create_game(channel_id=CHANNEL, **FIELDS)
        await store.add_seat(game.id, "red", 1, None, "ana")
        pool = store._pool
        statements: list[str] = []

        class Counting:
            """The pool as the store sees it: one statement runs, nothing else does."""

            async def execute(self, sql: str, *args: Any) -> str:
                statements.append(sql)
                return await pool.execute(sql, *args)

        monkeypatch.setattr(store, "_pool", Counting())
        await store.append_action(game.id, 1, "red bid 2m", {"seq": 1}, events=[{"kind": "x"}],
                                  seat=RED, reveals=True,
                                  finished=True)
        assert len(statements) == 1, "log row, reveal, snapshot, game, seat, notification"
        monkeypatch.undo()
        [logged] = await store.log(game.id)
        assert (logged.line, logged.sealed, logged.events) == ("red bid 2m", None,
                                                               [{"kind": "x"}])
        row = await store.game(game.id)
        assert row is not None and row.status == "finished"
        [seat] = await store.seats(game.id)
        assert seat.acted_at == row.updated_at
    finally:
        await store.close()


async def test_the_last_write_handed_in_is_the_snapshot(store: Store) -> None:
    """SQLite commits the writes in the order they were handed in; PostgreSQL, committing them
    side by side, never lets an older snapshot replace a newer one."""
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    await asyncio.gather(*(store.append_action(game.id, seq, f"red pass {seq}", {"seq": seq})
                           for seq in range(1, 31)))
    snapshot = await store.snapshot(game.id)
    assert snapshot is not None and snapshot.state == {"seq": 30}, "the last one handed in"
    assert len(await store.actions(game.id)) == 30


@pytest.mark.parametrize("fails", [False, True], ids=["commits", "rolls back"])
async def test_a_cancelled_write_runs_to_its_end(sqlite_store: SqliteStore, db_path: Path,
                                                 fails: bool) -> None:
    """The awaiting task is cancelled while its transaction is under way: the transaction
    still ends as it would have (committed, or rolled back when it fails), never half, and
    the writes after it go on."""
    store = sqlite_store
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    gate = Gate(crash if fails else None)
    task = asyncio.create_task(store.append_action(game.id, 1, "red place A1 1", {"seq": 1},
                                                   before_commit=gate))
    await gate.reached()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert committed(db_path, "SELECT COUNT(*) FROM actions") == [(0,)], "not yet committed"
    gate.open.set()
    await store.set_notify(7, True)  # the next write waits for the first one's end
    expected = [] if fails else [(1, "red place A1 1")]
    assert committed(db_path, "SELECT seq, line FROM actions") == expected
    assert committed(db_path, "SELECT seq FROM snapshots") == [(1,)] * len(expected)
    assert committed(db_path, "SELECT user_id FROM user_settings") == [(7,)]


async def test_a_failing_write_changes_nothing_and_the_next_one_works(store: Store,
                                                                      backend: Backend) -> None:
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    await store.add_seat(game.id, "red", 1, None, "ana")
    await store.append_action(game.id, 1, "red place A1 1", {"seq": 1})
    with pytest.raises(StaleGame) as stale:  # a second writer's row 1
        await store.append_action(game.id, 1, "blue place A2 1", {"seq": "other"}, by="timeout",
                                  seat=Seat("red", 1, timeouts=1), finished=True)
    assert (stale.value.game_id, stale.value.seq) == (game.id, 1)
    with pytest.raises(Crash):
        await store.append_action(game.id, 2, "blue place A2 1", {"seq": 2},
                                  before_commit=crash)
    assert await backend.committed("SELECT seq, state FROM snapshots") == [(1, '{"seq":1}')]
    assert await backend.committed("SELECT seq, line FROM actions") == [(1, "red place A1 1")]
    assert await backend.committed("SELECT status FROM games") == [("lobby",)]
    assert await backend.committed("SELECT timeouts FROM seats") == [(0,)]
    await store.append_action(game.id, 2, "blue place A2 1", {"seq": 2})
    assert await store.actions(game.id) == ["red place A1 1", "blue place A2 1"]


async def _held_writer(store: SqliteStore) -> tuple[Gate, asyncio.Future[Any], list[str]]:
    """The writer's thread held inside a write (so that the writes handed in meanwhile wait
    together), and the statements it runs from now on."""
    statements: list[str] = []
    await store._writer.call(lambda db: db.set_trace_callback(statements.append))
    gate = Gate()
    held = store._writer.submit(sqlite_module.Grouped(lambda db: gate()))
    await gate.reached()
    return gate, held, statements


def _grouped(store: SqliteStore, job: Callable[[sqlite3.Connection], Any]) -> asyncio.Future[Any]:
    return store._writer.submit(sqlite_module.Grouped(job))


def _scratch(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE scratch (n INTEGER PRIMARY KEY)")
    db.execute("CREATE TABLE scratch_games (game_id INTEGER REFERENCES games (id))")


async def test_writes_waiting_together_commit_together(sqlite_store: SqliteStore,
                                                       db_path: Path) -> None:
    """Writes handed in while the writer is busy share one transaction, each in a savepoint,
    and each hears its own answer once they are committed; one that fails (a second row 1 of
    a game's log) is rolled back alone."""
    store = sqlite_store
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    await store.add_seat(game.id, "red", 1, None, "ana")
    gate, held, statements = await _held_writer(store)
    writes = [asyncio.ensure_future(store.append_action(game.id, 1, "red place A1 1",
                                                        {"seq": 1}, seat=RED)),
              asyncio.ensure_future(store.append_action(game.id, 1, "red place A2 1",
                                                        {"seq": "other"})),
              asyncio.ensure_future(store.set_notify(7, True)),
              asyncio.ensure_future(store.append_action(game.id, 2, "red pass", {"seq": 2}))]
    for _ in range(len(writes)):  # each task hands its job in at its first step
        await asyncio.sleep(0)
    assert committed(db_path, "SELECT COUNT(*) FROM actions") == [(0,)]
    gate.open.set()
    await held
    first, stale, notify, last = await asyncio.gather(*writes, return_exceptions=True)
    assert first is None and notify is None and last is None
    assert isinstance(stale, StaleGame) and stale.seq == 1
    assert committed(db_path, "SELECT seq, line FROM actions ORDER BY seq") == [
        (1, "red place A1 1"), (2, "red pass")]
    assert committed(db_path, "SELECT seq, state FROM snapshots") == [(2, '{"seq":2}')]
    assert committed(db_path, "SELECT user_id FROM user_settings") == [(7,)]
    assert statements.count("BEGIN IMMEDIATE") == statements.count("COMMIT") == 2, \
        "the held write's transaction, then one for the four that waited"
    assert statements.count("SAVEPOINT grouped") == 4
    assert statements.count("ROLLBACK TO grouped") == 1


async def test_a_group_whose_commit_fails_fails_every_write(sqlite_store: SqliteStore,
                                                            db_path: Path) -> None:
    """Nothing of a group is committed when its COMMIT fails (here a foreign key checked at
    the commit): every write in it hears the error, and the next write works."""
    store = sqlite_store
    await store._write(_scratch)
    gate, held, _ = await _held_writer(store)
    good = _grouped(store, lambda db: db.execute("INSERT INTO scratch VALUES (1)"))
    bad = _grouped(store, lambda db: (db.execute("PRAGMA defer_foreign_keys = ON"),
                                      db.execute("INSERT INTO scratch_games VALUES (999)")))
    gate.open.set()
    await held
    for write in (good, bad):
        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
            await write
    assert committed(db_path, "SELECT n FROM scratch") == []
    await store._write(lambda db: db.execute("INSERT INTO scratch VALUES (2)"))
    assert committed(db_path, "SELECT n FROM scratch") == [(2,)]


async def test_a_write_that_ends_the_groups_transaction_fails_those_before_it(
        sqlite_store: SqliteStore, db_path: Path) -> None:
    """An error after which SQLite has rolled the whole transaction back: the writes before
    it in the group were rolled back with it and hear so; those after it run one by one; and
    a job that is not a write (a read on the writer) keeps its place after the group."""
    store = sqlite_store
    await store._write(_scratch)
    gate, held, _ = await _held_writer(store)

    def ends_it(db: sqlite3.Connection) -> None:
        db.execute("ROLLBACK")
        raise Crash

    before = _grouped(store, lambda db: db.execute("INSERT INTO scratch VALUES (1)"))
    ending = _grouped(store, ends_it)
    after = _grouped(store, lambda db: db.execute("INSERT INTO scratch VALUES (3)"))
    read = store._writer.submit(lambda db: db.execute("SELECT n FROM scratch").fetchall())
    gate.open.set()
    await held
    with pytest.raises(Crash):
        await before
    with pytest.raises(Crash):
        await ending
    await after
    assert [tuple(row) for row in await read] == [(3,)]
    assert committed(db_path, "SELECT n FROM scratch") == [(3,)]


async def test_reads_and_checkpoints_do_not_wait_for_a_write_under_way(
        sqlite_store: SqliteStore) -> None:
    store = sqlite_store
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    await store.start_game(game.id, "game makemake red blue green seed=3", {"seq": 0})
    gate = Gate()
    task = asyncio.create_task(store.append_action(game.id, 1, "red place A1 1", {"seq": 1},
                                                   finished=True, before_commit=gate))
    await gate.reached()
    try:
        row = await store.game(game.id)
        assert row is not None and row.status == "running", "what is committed, only"
        assert await store.log(game.id) == []
        snapshot = await store.snapshot(game.id)
        assert snapshot is not None and snapshot.state == {"seq": 0}
        done = await store.checkpoint()
        assert not done.busy and done.copied == done.frames > 0
        [loaded] = await store.load_active()
        assert loaded.log == [] and loaded.snapshot == snapshot
    finally:
        gate.open.set()
    await task
    assert await store.actions(game.id) == ["red place A1 1"]
    assert await store.load_active() == [], "finished: no longer active"


async def test_commits_never_checkpoint_the_store_does_it_every_so_often(
        db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_module, "CHECKPOINT_EVERY", 10**9)
    store = await SqliteStore.open(db_path, ManualClock(), synchronous="NORMAL")
    try:
        game = await store.create_game(channel_id=CHANNEL, **FIELDS)
        big = {"board": ["x" * 100] * 120}  # some 12 KiB: several pages a commit
        for seq in range(1, 301):
            await store.append_action(game.id, seq, f"red pass {seq}", big)
        done = await store.checkpoint()
        assert done.frames > 1000, "SQLite's own would have emptied it at 1,000 pages"
        assert done.copied == done.frames and not done.busy
        posted: list[object] = []
        monkeypatch.setattr(store._reader, "post", posted.append)
        monkeypatch.setattr(sqlite_module, "CHECKPOINT_EVERY", 4)
        for _ in range(9):
            await store.set_notify(1, True)
        assert posted == [sqlite_module._passive] * 2, "after every 4 writes, on the reader"
    finally:
        await store.close()
    assert not db_path.with_name(db_path.name + "-wal").exists(), "closing empties it"


async def test_a_memory_database_reads_on_its_one_connection() -> None:
    store = await SqliteStore.open(":memory:", ManualClock())
    try:
        game = await store.create_game(channel_id=CHANNEL, **FIELDS)
        await store.add_seat(game.id, "red", 1, None, "ana")
        await store.append_action(game.id, 1, "red place A1 1", {"seq": 1}, seat=RED)
        assert await store.actions(game.id) == ["red place A1 1"]
        [loaded] = await store.load_active()
        assert [s.colour for s in loaded.seats] == ["red"] and loaded.snapshot is not None
        await store.checkpoint()  # nothing to fold in, and no harm
    finally:
        await store.close()


async def test_a_closed_store_refuses_work_and_closes_once(backend: Backend) -> None:
    store = await backend.open()
    await store.close()
    await store.close()
    with pytest.raises(StoreClosed, match="closed"):
        await store.game(1)
    with pytest.raises(StoreClosed, match="closed"):
        await store.set_notify(1, True)


async def test_a_failed_open_leaves_no_thread_behind(tmp_path: Path) -> None:
    folder = tmp_path / "not-a-database"
    folder.mkdir()
    def stores() -> set[threading.Thread]:
        return {t for t in threading.enumerate() if t.name.startswith("store-")}

    before = stores()
    with pytest.raises(sqlite3.OperationalError, match="unable to open"):
        await SqliteStore.open(folder)
    assert stores() == before


@pytest.mark.postgres
async def test_a_failed_open_leaves_no_connection_behind(pg_url: str) -> None:
    backend = PostgresBackend(pg_url)
    with pytest.raises(asyncpg.InvalidCatalogNameError):
        await PostgresStore.open(pg_url.replace("/test_", "/missing_", 1))
    await backend.at_schema(1)
    await backend.at_version(99)
    with pytest.raises(SchemaTooNew, match="schema 99, newer"):
        await backend.open()
    assert await backend.committed(
        "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database()"
        " AND pid <> pg_backend_pid()") == [(0,)]


# --- the bulk read of every active game -----------------------------------------------------------

async def many_games(store: Store) -> None:
    """Games of every kind the loader meets: running ones with moves, sealed bids, a take-back,
    closed DMs and seat changes; a lobby; a finished and an aborted game (not active)."""
    host = Host(store, seed_source=iter(range(1, 1000)).__next__)
    for channel in (1, 2):
        session = await host.create(channel_id=channel, guild_id=1, game="makemake",
                                    options={}, creator_id=1, language="en", join=False)
        for user in (1, 2):
            await host.join(session.id, user)
        await host.add_ai(session.id, 1)
        await host.start(session.id, 1)
        await host.play(channel, 1, "place A1 2")
    giants = await host.create(channel_id=3, guild_id=1, game="giants", options={},
                               creator_id=1, language="en", join=False)
    for user in (1, 2, 3):
        await host.join(giants.id, user)
    giants = (await host.start(giants.id, 1)).session
    await host.play(3, 1, str(giants.legal("red")[0]))  # sealed
    await store.set_dm_closed(giants.id, "blue", True)
    await store.set_dm_closed(giants.id, "green", True)
    await store.set_dm_closed(giants.id, "green", False)
    await store.change_seat(giants.id, Seat("green", None, "greedy", was_human=True),
                            SeatChangeRow(2, "green", "left", None, 3, 3, STAMP))
    lobby = await host.create(channel_id=4, guild_id=1, game="makemake", options={},
                              creator_id=5, language="en")
    await host.join(lobby.id, 6)
    await host.leave(lobby.id, 6)
    undo = await store.create_game(channel_id=5, **FIELDS)
    await store.add_seat(undo.id, "red", 1, None, "ana")
    await store.start_game(undo.id, "game makemake red blue green seed=3", {"seq": 0})
    for seq in (1, 2, 3):
        await store.append_action(undo.id, seq, f"red pass {seq}", {"seq": seq},
                                  events=[{"kind": "pass", "n": seq}], seat=RED)
    await store.take_back(undo.id, 1, 3, "red", {"seq": 1})
    await store.append_action(undo.id, 2, "red pass again", {"seq": 2}, seat=RED)
    finished = await store.create_game(channel_id=6, **FIELDS)
    await store.add_seat(finished.id, "red", 1, None)
    await store.append_action(finished.id, 1, "red pass", {}, finished=True)
    aborted = await store.create_game(channel_id=7, **FIELDS)
    await store.set_status(aborted.id, "aborted")


async def test_the_bulk_read_returns_what_the_per_game_reads_return(store: Store) -> None:
    await many_games(store)
    loaded = await store.load_active()
    active = await store.games_with_status("lobby", "running")
    assert [g.row for g in loaded] == active and len(active) == 5
    for game in loaded:
        game_id = game.row.id
        assert game.seats == await store.seats(game_id)
        assert game.dm_closed == await store.closed_dms(game_id)
        assert game.changes == await store.seat_changes(game_id)
        assert game.snapshot == await store.snapshot(game_id)
        assert game.log == await store.log(game_id)
        assert [r.events for r in game.log] == [r.events for r in await store.log(game_id)]
        assert game.takebacks == await store.takebacks(game_id)
        assert game.damage is None
    by_channel = {g.row.channel_id: g for g in loaded}
    assert by_channel[3].dm_closed == {"blue"} and [c.what for c in by_channel[3].changes] == [
        "left"]
    assert [r.sealed for r in by_channel[3].log] == [None, "red"]
    assert by_channel[4].snapshot is None and by_channel[4].log == []
    assert [s.user_id for s in by_channel[4].seats] == [5]
    [undone] = by_channel[5].takebacks
    assert [(r.seq, r.events) for r in undone.rows] == [
        (2, [{"kind": "pass", "n": 2}]), (3, [{"kind": "pass", "n": 3}])]
    assert [r.line for r in by_channel[5].log] == ["red pass 1", "red pass again"]


async def test_a_damaged_log_is_said_in_the_bulk_read_as_the_per_game_read_says_it(
        store: Store) -> None:
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    for seq in (1, 2, 3):
        await store.append_action(game.id, seq, f"red pass {seq}", {"seq": seq})
    async with store.transaction() as db:
        await run(db, "DELETE FROM actions WHERE seq = 2")
    with pytest.raises(RuntimeError, match="gap") as per_game:
        await store.log(game.id)
    [loaded] = await store.load_active()
    assert loaded.damage == str(per_game.value)
    assert [r.seq for r in loaded.log] == [1, 3]


def test_a_log_row_decodes_its_events_once_and_only_when_asked() -> None:
    row = LogRow(4, "red bid 2m", '[{"kind":"bid","seat":"red"}]', "human", "red")
    assert "events" not in vars(row), "not decoded yet"
    assert row.events == [{"kind": "bid", "seat": "red"}]
    assert row.events is row.events, "decoded once"
    made = LogRow.of(4, "red bid 2m", [{"kind": "bid", "seat": "red"}], "human", "red")
    assert made == row and made.events == row.events
    assert made != LogRow.of(4, "red bid 2m", [], "human", "red")


async def test_a_held_transaction_rolls_back_on_an_error_or_a_cancellation(
        store: Store, backend: Backend) -> None:
    with pytest.raises(Crash):
        async with store.transaction() as db:
            await run(db, "INSERT INTO user_settings (user_id, notify) VALUES (1, 1)")
            raise Crash
    inside = asyncio.Event()

    async def holding() -> None:
        async with store.transaction() as db:
            await run(db, "INSERT INTO user_settings (user_id, notify) VALUES (2, 1)")
            inside.set()
            await asyncio.Event().wait()  # cancelled here

    task = asyncio.create_task(holding())
    await inside.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    missing = sqlite3.OperationalError if backend.kind == "sqlite" \
        else asyncpg.UndefinedTableError
    with pytest.raises(missing, match="nowhere"):
        async with store.transaction() as db:
            await run(db, "INSERT INTO nowhere VALUES (?)", (1,))
    await store.set_notify(3, True)
    assert await backend.committed("SELECT user_id FROM user_settings") == [(3,)]
