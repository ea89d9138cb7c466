"""What several bot processes need to share games (DESIGN.md, "Hosting"): the game lock, the
stored sequence number, an action number that can be taken once, the notifications of changes
made elsewhere, and turn deadlines and reminders claimed by exactly one process.

Two stores on one database stand for two processes (with PostgreSQL each has its own pools,
so its own connections). Nothing here sleeps: a test waits on a future or a queue, bounded by
:data:`WAIT` only so that a broken store fails instead of hanging the run.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path

import asyncpg
import pytest

import bot.host.store._postgres_store as postgres_module
from bot.host.clock import ManualClock, iso
from bot.host.store import (
    CLAIM_LEASE,
    EVERY_GAME,
    SCHEMA_VERSION,
    GameRow,
    MessageRow,
    PostgresStore,
    ResultRow,
    Seat,
    SeatChangeRow,
    StaleGame,
    Store,
)
from bot.host.store._postgres_store import LISTENER
from tests.helpers.stores import Backend, PostgresBackend, SqliteBackend

WAIT = 30.0
"""Most seconds a test waits for what it expects (it comes in milliseconds)."""
CHANNEL = 100
FIELDS = dict(guild_id=1, game="makemake", options="", seed=3, creator_id=1, language="en",
              ai_level="random")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def stores(backend: Backend, clock: ManualClock) -> AsyncIterator[list[Store]]:
    """Two stores on the test's database, sharing one clock."""
    opened = [await backend.open(clock), await backend.open(clock)]
    yield opened
    for store in opened:
        await store.close()


@pytest.fixture
def postgres(pg_url: str) -> PostgresBackend:
    return PostgresBackend(pg_url)


@pytest.fixture
async def pg_stores(postgres: PostgresBackend,
                    clock: ManualClock) -> AsyncIterator[list[PostgresStore]]:
    """Two PostgreSQL stores (two pools) on one database, sharing one clock."""
    opened = [await PostgresStore.open(postgres.url, clock, pool_size=2) for _ in range(2)]
    yield opened
    for store in opened:
        await store.close()


async def until(check: Callable[[], Awaitable[bool]]) -> None:
    """Ask ``check`` again and again (each a query: no sleeping) until it says yes."""
    async def asking() -> None:
        while not await check():
            pass

    await asyncio.wait_for(asking(), WAIT)


async def running(store: Store, channel: int = CHANNEL, deadline: str | None = None) -> GameRow:
    """A running game with a red human seat (user 1) and its first snapshot."""
    game = await store.create_game(channel_id=channel, **FIELDS, turn_seconds=60)
    await store.add_seat(game.id, "red", 1, None, "ana")
    await store.start_game(game.id, "game makemake red blue green seed=3", {"seq": 0})
    if deadline is not None:
        await store.set_deadline(game.id, deadline)
    return game


def test_only_postgresql_is_shared(stores: list[Store], backend: Backend) -> None:
    assert [s.shared for s in stores] == [backend.kind == "postgres"] * 2


# --- the stored sequence and an action number taken once -----------------------------------------

async def test_the_stored_seq_is_what_another_store_committed(stores: list[Store]) -> None:
    first, second = stores
    game = await first.create_game(channel_id=CHANNEL, **FIELDS)
    assert await second.stored_seq(game.id) == 0, "a lobby has none yet"
    await first.start_game(game.id, "game makemake red blue green seed=3", {"seq": 0})
    for seq in (1, 2):
        await first.append_action(game.id, seq, f"red pass {seq}", {"seq": seq})
    assert await second.stored_seq(game.id) == 2
    await first.take_back(game.id, 1, 2, "red", {"seq": 1})
    assert await second.stored_seq(game.id) == 1


async def test_an_action_number_is_taken_once_among_stores(backend: Backend,
                                                           clock: ManualClock) -> None:
    """Five writers apply action 1 of one game at once: one of them does, each other one is
    told its game is stale, and the log and the snapshot are the winner's."""
    many = [await backend.open(clock) for _ in range(5)]
    try:
        game = await running(many[0])
        outcomes = await asyncio.gather(
            *(store.append_action(game.id, 1, f"red place A{n} 1", {"by": n})
              for n, store in enumerate(many)), return_exceptions=True)
        winners = [n for n, outcome in enumerate(outcomes) if outcome is None]
        assert len(winners) == 1
        assert all(isinstance(o, StaleGame) for o in outcomes if o is not None), outcomes
        [row] = await many[1].log(game.id)
        assert row.line == f"red place A{winners[0]} 1"
        snapshot = await many[2].snapshot(game.id)
        assert snapshot is not None and snapshot.state == {"by": winners[0]}
    finally:
        for store in many:
            await store.close()


# --- a game's mark, one game read on from a row, a user's games ----------------------------------

async def test_every_change_another_store_makes_changes_the_game_s_mark(
        stores: list[Store], clock: ManualClock) -> None:
    """What the mark sums up: each change of a game that a copy of it in memory holds moves
    the mark another store reads; a take-back followed by a move comes back to the same
    sequence number and still moves it."""
    first, second = stores
    game = await first.create_game(channel_id=CHANNEL, **FIELDS, turn_seconds=60)
    other = await first.create_game(channel_id=CHANNEL + 1, **FIELDS)
    marks = await second.stored_marks([game.id, other.id, 999])
    assert set(marks) == {game.id, other.id}, "a game the store does not have is left out"
    deadline = iso(clock() + timedelta(seconds=60))
    change = SeatChangeRow(1, "blue", "took", 3, None, 3, iso(clock()))
    took = Seat("blue", 3, None, "cy", acted_at=iso(clock()))
    writes = [
        first.add_seat(game.id, "red", 1, None, "ana"),
        first.add_seat(game.id, "blue", None, "random"),
        first.set_lobby_message(game.id, 500),
        first.start_game(game.id, "game makemake red blue green seed=3", {"seq": 0}),
        first.set_thread(game.id, 501),
        first.set_deadline(game.id, deadline),
        first.mark_reminded(game.id),
        first.append_action(game.id, 1, "red pass", {"seq": 1}),
        first.append_action(game.id, 2, "blue pass", {"seq": 2}, by="ai"),
        first.take_back(game.id, 1, 2, "red", {"seq": 1}),
        first.append_action(game.id, 2, "blue pass", {"seq": 2}, by="ai"),
        first.set_paused(game.id, 1, 30, None),
        first.set_paused(game.id, None, None, deadline),
        first.set_turn_time(game.id, 120, deadline, None),
        first.set_away(game.id, "red", True, 2),
        first.set_dm_closed(game.id, "red", True),
        first.change_seat(game.id, took, change),
        first.remove_seat(game.id, "blue"),
        first.set_status(game.id, "finished"),
    ]
    before = marks[game.id]
    for write in writes:
        await write
        now = (await second.stored_marks([game.id]))[game.id]
        assert now != before, write
        before = now
    assert before.seq == 2 and before.takebacks == 1 and before.status == "finished"
    assert before.seats == (("red", 1, None, True),) and before.dm_closed == ("red",)
    assert (await second.stored_marks([other.id]))[other.id] == marks[other.id], \
        "another game's mark stays"
    await first.set_message(game.id, MessageRow("live", 501, 502))
    assert (await second.stored_marks([game.id]))[game.id] == before, \
        "which message shows the table is the showing process's bookkeeping"


async def test_one_game_is_read_whole_or_from_a_row_on(stores: list[Store]) -> None:
    first, second = stores
    assert await second.load_game(404) is None
    game = await running(first)
    await first.set_dm_closed(game.id, "red", True)
    for seq in (1, 2, 3):
        await first.append_action(game.id, seq, f"red pass {seq}", {"seq": seq})
    whole = await second.load_game(game.id)
    assert whole is not None and whole.damage is None
    [active] = await second.load_active()
    assert whole == active, "what a start reads of it"
    part = await second.load_game(game.id, after=2)
    assert part is not None and part.damage is None
    assert [r.line for r in part.log] == ["red pass 3"]
    assert part.snapshot == whole.snapshot and part.seats == whole.seats
    assert part.dm_closed == {"red"} and part.row == whole.row
    ahead = await second.load_game(game.id, after=3)
    assert ahead is not None and ahead.log == []
    await first.take_back(game.id, 1, 3, "red", {"seq": 1})
    behind = await second.load_game(game.id, after=2)
    assert behind is not None and behind.snapshot is not None
    assert behind.snapshot.seq == 1 and len(behind.takebacks) == 1, \
        "a copy that holds 2 rows learns it is ahead of the log"


async def test_the_games_a_user_is_seated_in(stores: list[Store]) -> None:
    first, second = stores
    playing = await running(first)
    lobby = await first.create_game(channel_id=CHANNEL + 1, **FIELDS)
    await first.add_seat(lobby.id, "red", 1, None, "ana")
    over = await first.create_game(channel_id=CHANNEL + 2, **FIELDS)
    await first.add_seat(over.id, "red", 1, None, "ana")
    await first.set_status(over.id, "aborted")
    await first.add_seat(playing.id, "blue", 2, None, "bo")
    assert await second.seated_games(1) == {playing.id, lobby.id}
    assert await second.seated_games(2) == {playing.id}
    assert await second.seated_games(3) == set()


# --- the game lock ------------------------------------------------------------------------------

async def advisory_waiters(backend: PostgresBackend) -> int:
    [(count,)] = await backend.committed(
        "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
    return int(count)


@pytest.mark.postgres
async def test_a_game_lock_keeps_other_stores_out_until_it_is_released(
        pg_stores: list[PostgresStore], postgres: PostgresBackend) -> None:
    first, second = pg_stores
    order: list[str] = []

    async def second_enters() -> None:
        async with second.game_lock(7):
            order.append("second in")

    async with first.game_lock(7):
        order.append("first in")
        waiting = asyncio.create_task(second_enters())
        await until(lambda: _is(advisory_waiters(postgres), 1))
        async with second.game_lock(8):  # another game's lock is free
            order.append("other game")
        assert not waiting.done()
        order.append("first out")
    await asyncio.wait_for(waiting, WAIT)
    assert order == ["first in", "other game", "first out", "second in"]
    async with first.game_lock(7):  # released again at the block's end
        order.append("first again")
    assert await advisory_waiters(postgres) == 0


@pytest.mark.postgres
async def test_a_game_lock_goes_with_the_connection_of_a_process_that_dies(
        pg_stores: list[PostgresStore], postgres: PostgresBackend,
        caplog: pytest.LogCaptureFixture) -> None:
    first, second = pg_stores
    inside, leave = asyncio.Event(), asyncio.Event()

    async def holding() -> None:
        async with first.game_lock(7):
            inside.set()
            await leave.wait()

    holder = asyncio.create_task(holding())
    await asyncio.wait_for(inside.wait(), WAIT)
    entered = asyncio.get_running_loop().create_future()

    async def second_enters() -> None:
        async with second.game_lock(7):
            entered.set_result(True)

    waiting = asyncio.create_task(second_enters())
    await until(lambda: _is(advisory_waiters(postgres), 1))
    assert not entered.done()
    # the holder's connection dies (as it does when its process is killed)
    await postgres.execute("SELECT pg_terminate_backend(pid) FROM pg_locks"
                           " WHERE locktype = 'advisory' AND granted AND objid = 7")
    assert await asyncio.wait_for(entered, WAIT)
    await waiting
    leave.set()
    await asyncio.wait_for(holder, WAIT)  # the block ends without an error, and says so
    assert "game 7: its lock's connection was lost while the lock was held" in caplog.text


@pytest.mark.postgres
async def test_closing_does_not_wait_forever_for_a_lock_another_process_holds(
        postgres: PostgresBackend, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres_module, "CLOSE_LOCKS_WITHIN", 0.0)
    holder, closing = [await PostgresStore.open(postgres.url, clock, pool_size=2)
                       for _ in range(2)]
    try:
        async with holder.game_lock(7):
            async def waiting() -> None:
                async with closing.game_lock(7):
                    pass

            waiter = asyncio.create_task(waiting())
            await until(lambda: _is(advisory_waiters(postgres), 1))
            await asyncio.wait_for(closing.close(), WAIT)
            with pytest.raises(asyncpg.ConnectionDoesNotExistError):  # its connection was cut
                await asyncio.wait_for(waiter, WAIT)
        assert await advisory_waiters(postgres) == 0
    finally:
        await holder.close()
        await closing.close()


async def _is(count: Awaitable[int], wanted: int) -> bool:
    return await count == wanted


async def test_sqlite_game_locks_hold_nothing(tmp_path: Path) -> None:
    store = await SqliteBackend(tmp_path / "games.sqlite3").open()
    try:
        async with store.game_lock(7), store.game_lock(7):
            assert not store.shared  # one process writes a SQLite file: nothing to wait for
    finally:
        await store.close()


# --- notifications ------------------------------------------------------------------------------

class Heard:
    """What a store's listener is called with, one game id at a time."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[int] = asyncio.Queue()

    def __call__(self, game_id: int) -> None:
        self.queue.put_nowait(game_id)

    async def next(self) -> int:
        return await asyncio.wait_for(self.queue.get(), WAIT)


@pytest.mark.postgres
async def test_every_change_of_a_game_is_heard_by_the_other_store_and_not_by_its_own(
        pg_stores: list[PostgresStore], clock: ManualClock) -> None:
    first, second = pg_stores
    mine, theirs = Heard(), Heard()
    await first.listen(mine)
    await second.listen(theirs)
    game = await first.create_game(channel_id=CHANNEL, **FIELDS, turn_seconds=60)
    assert await theirs.next() == game.id
    deadline = iso(clock() + timedelta(seconds=60))
    change = SeatChangeRow(1, "blue", "took", 3, None, 3, iso(clock()))
    took = Seat("blue", 3, None, "cy", acted_at=iso(clock()))
    writes = [
        first.add_seat(game.id, "red", 1, None, "ana"),
        first.add_seat(game.id, "blue", None, "random"),
        first.set_lobby_message(game.id, 500),
        first.start_game(game.id, "game makemake red blue green seed=3", {"seq": 0}),
        first.set_thread(game.id, 501),
        first.set_deadline(game.id, deadline),
        first.mark_reminded(game.id),
        first.append_action(game.id, 1, "red pass", {"seq": 1}),
        first.append_action(game.id, 2, "blue pass", {"seq": 2}, by="ai"),
        first.take_back(game.id, 1, 2, "red", {"seq": 1}),
        first.write_snapshot(game.id, 1, {"seq": 1}),
        first.set_paused(game.id, 1, 30, None),
        first.set_paused(game.id, None, None, deadline),
        first.set_turn_time(game.id, 120, deadline, None),
        first.set_away(game.id, "red", True, 2),
        first.set_dm_closed(game.id, "red", True),
        first.change_seat(game.id, took, change),
        first.set_status(game.id, "finished"),
        first.record_results(game.id, 1, "makemake",
                             [ResultRow("red", "1", 1, 5, True), ResultRow("blue", "3", 2, 3,
                                                                            False)],
                             lambda before: {p: (25.0, 8.0) for p in before}),
    ]
    for write in writes:
        await write
        assert await theirs.next() == game.id, write
    # the outbox's bookkeeping is nobody else's business: no notification
    await first.set_message(game.id, MessageRow("live", 501, 502))
    await first.drop_message(game.id, "live")
    lobby = await first.create_game(channel_id=CHANNEL + 1, **FIELDS)
    assert await theirs.next() == lobby.id
    await first.remove_seat(lobby.id, "red")
    assert await theirs.next() == lobby.id
    await first.forget_user(1)
    assert await theirs.next() == EVERY_GAME, "any game may have held the user"
    # the other way round: the first store hears the second one, and never itself
    await second.set_status(lobby.id, "aborted")
    assert await mine.next() == lobby.id
    assert mine.queue.empty(), "none of its own changes came back"
    await second.delete_guild(1)
    assert {await mine.next(), await mine.next()} == {game.id, lobby.id}


@pytest.mark.postgres
async def test_a_dropped_listening_connection_comes_back_and_says_to_reconcile_everything(
        pg_stores: list[PostgresStore], postgres: PostgresBackend) -> None:
    first, second = pg_stores
    theirs = Heard()
    await second.listen(theirs)
    game = await first.create_game(channel_id=CHANNEL, **FIELDS)
    assert await theirs.next() == game.id
    [(killed,)] = await postgres.committed(
        "SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE application_name = ?) AS done", LISTENER)
    assert killed == 1
    assert await theirs.next() == EVERY_GAME, "what was said meanwhile went unheard"
    await first.set_status(game.id, "aborted")
    assert await theirs.next() == game.id, "listening again"


async def test_sqlite_accepts_a_listener_and_never_calls_it(tmp_path: Path) -> None:
    backend = SqliteBackend(tmp_path / "games.sqlite3")
    first, second = await backend.open(), await backend.open()
    try:
        heard = Heard()
        await second.listen(heard)
        game = await first.create_game(channel_id=CHANNEL, **FIELDS)
        await first.set_status(game.id, "aborted")
        assert await second.game(game.id) is not None and heard.queue.empty()
    finally:
        await first.close()
        await second.close()


# --- turn deadlines and reminders claimed once ---------------------------------------------------

async def test_a_due_deadline_is_claimed_by_exactly_one_of_many_claimers(
        backend: Backend, clock: ManualClock) -> None:
    many = [await backend.open(clock) for _ in range(4)]
    try:
        deadline = iso(clock() + timedelta(seconds=60))
        game = await running(many[0], deadline=deadline)
        clock.advance(61)
        lease = iso(clock() + timedelta(seconds=CLAIM_LEASE))
        claims = await asyncio.gather(*(store.claim_deadline(game.id, deadline, lease)
                                        for store in many for _ in range(5)))
        assert claims.count(True) == 1 and len(claims) == 20
        row = await many[2].game(game.id)
        assert row is not None and row.reminded == 1
        assert row.deadline_at == lease, "pushed on by the lease: nobody else fires it meanwhile"
        assert not await many[3].claim_deadline(game.id, deadline, lease), "taken"
        clock.advance(CLAIM_LEASE)  # the claimer died before it armed the next deadline
        later = iso(clock() + timedelta(seconds=CLAIM_LEASE))
        claims = await asyncio.gather(*(store.claim_deadline(game.id, lease, later)
                                        for store in many))
        assert claims.count(True) == 1, "due again: another process takes it"
        row = await many[0].game(game.id)
        assert row is not None and row.deadline_at == later, "as the claimer says"
    finally:
        for store in many:
            await store.close()


async def test_a_deadline_is_not_claimed_while_paused_over_or_changed(store: Store) -> None:
    deadline = iso(store.clock() + timedelta(seconds=60))
    game = await running(store, deadline=deadline)
    assert isinstance(store.clock, ManualClock)
    store.clock.advance(61)
    lease = iso(store.clock() + timedelta(seconds=CLAIM_LEASE))
    await store.set_paused(game.id, 1, 30, deadline)
    assert not await store.claim_deadline(game.id, deadline, lease), "paused"
    await store.set_paused(game.id, None, None, deadline)
    await store.set_deadline(game.id, iso(store.clock()))
    assert not await store.claim_deadline(game.id, deadline, lease), "another deadline now"
    await store.set_deadline(game.id, deadline)
    await store.set_status(game.id, "aborted")
    assert not await store.claim_deadline(game.id, deadline, lease), "not running"


async def test_a_reminder_is_claimed_by_exactly_one_of_many_claimers(
        backend: Backend, clock: ManualClock) -> None:
    many = [await backend.open(clock) for _ in range(4)]
    try:
        deadline = iso(clock() + timedelta(seconds=60))
        game = await running(many[0], deadline=deadline)
        claims = await asyncio.gather(*(store.claim_reminder(game.id, deadline)
                                        for store in many for _ in range(5)))
        assert claims.count(True) == 1
        row = await many[1].game(game.id)
        assert row is not None and row.reminded == 1
        assert not await many[2].claim_reminder(game.id, deadline), "sent already"
        later = iso(clock() + timedelta(seconds=120))
        await many[0].set_deadline(game.id, later)  # the next turn: its own reminder
        assert not await many[3].claim_reminder(game.id, deadline), "an old deadline"
        assert await many[3].claim_reminder(game.id, later)
    finally:
        for store in many:
            await store.close()


# --- migrations ----------------------------------------------------------------------------------

@pytest.mark.postgres
async def test_two_processes_starting_at_once_migrate_once(postgres: PostgresBackend) -> None:
    opened = await asyncio.gather(*(PostgresStore.open(postgres.url, pool_size=2)
                                    for _ in range(3)))
    try:
        assert await postgres.version() == SCHEMA_VERSION
        assert await postgres.committed("SELECT COUNT(*) FROM schema_version") == [(1,)]
        game = await opened[0].create_game(channel_id=CHANNEL, **FIELDS)
        assert await opened[2].game(game.id) == game
    finally:
        for store in opened:
            await store.close()
