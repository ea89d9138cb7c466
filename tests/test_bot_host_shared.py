"""The session host over a store that several processes share (DESIGN.md, "Hosting"): each
change holds the game's lock across processes and starts from the game as stored, so a copy
in memory that another process left behind catches up first (its mark says so), and an action
is applied at most once. Here two hosts on two stores of one database stand for two processes
(with PostgreSQL each store has connections of its own); tests/test_bot_processes.py runs them
in processes of their own.

Nothing here sleeps: the clock is a ManualClock, moved by hand.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import pytest

from bot.host.clock import ManualClock, iso
from bot.host.sessions import Host, Refusal, Session
from bot.host.shards import shard_of
from bot.host.store import CLAIM_LEASE, EVERY_GAME, PostgresStore, StaleGame, Store
from rules.record import replay_lines
from scripts.live_games import BlankRenders, ShowingOutbox, StubBot
from tests.helpers.stores import BACKENDS, Backend

CHANNEL = 100


def guild_on(shard: int) -> int:
    """A server on that shard of two."""
    guild = (1 + (shard_of(1 << 22, 2) != shard)) << 22
    assert shard_of(guild, 2) == shard
    return guild


async def makemake(host: Host, humans: int = 3, channel: int = CHANNEL,
                   turn_seconds: int | None = None, start: bool = True) -> Session:
    """A Make Make game of ``humans`` humans (user ids 1, 2, ...; 1 opened it)."""
    session = await host.create(channel_id=channel, guild_id=1, game="makemake", options={},
                                creator_id=1, language="en", creator_name="u1",
                                turn_seconds=turn_seconds)
    for user in range(2, humans + 1):
        await host.join(session.id, user, f"u{user}")
    if start:
        await host.start(session.id, 1)
    return session


def turn(session: Session) -> tuple[int, str]:
    """The human who must act now, and their first legal action."""
    [colour] = session.pending()
    seat = session.seat(colour)
    assert seat is not None and seat.user_id is not None
    return seat.user_id, str(session.legal(colour)[0])


async def stored(store: Store, session: Session) -> Any:
    return (await store.stored_marks([session.id]))[session.id]


def replays(session: Session) -> bool:
    """The copy's position is the one its log replays to."""
    assert session.game is not None and session.row.header is not None
    again = replay_lines(session.row.header, session.game.lines)
    return bool(session.module.to_json(again.state) == session.module.to_json(
        session.game.state))


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def postgres(pg_url: str) -> str:
    return pg_url


@asynccontextmanager
async def hosts(url: str, clock: ManualClock, count: int = 2) -> AsyncIterator[list[Host]]:
    """``count`` hosts, each on a PostgreSQL store of its own, on one database."""
    stores = [await PostgresStore.open(url, clock, pool_size=3) for _ in range(count)]
    try:
        yield [Host(store, seed_source=lambda: 5) for store in stores]
    finally:
        for store in stores:
            await store.close()


# --- one process: the copy is always the stored game --------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
async def test_the_copy_s_mark_is_the_stored_one_after_every_kind_of_change(
        backend: Backend, clock: ManualClock) -> None:
    """Every change the host makes leaves its copy summed up exactly as the store sums up
    the game, so one process over a shared store never reads a game again (and SQLite never
    asks)."""
    store = await backend.open(clock)
    host = Host(store, seed_source=lambda: 5)
    try:
        session = await makemake(host, turn_seconds=60, start=False)
        checks = [await stored(store, session) == session.mark()]
        await host.add_ai(session.id, 1)
        await host.remove_ai(session.id, 1)
        await host.add_ai(session.id, 1)
        await host.set_lobby_message(session.id, 900)
        checks.append(await stored(store, session) == session.mark())
        await host.start(session.id, 1)
        await host.set_home(session.id, 901)
        checks.append(await stored(store, session) == session.mark())
        user, action = turn(session)
        await host.play_game(session.id, user, action)
        await host.undo(CHANNEL, user)
        await host.play_game(session.id, *turn(session))
        checks.append(await stored(store, session) == session.mark())
        await host.pause(CHANNEL, 1)
        await host.unpause(CHANNEL, 1)
        await host.set_turn_time(CHANNEL, 1, 90)
        checks.append(await stored(store, session) == session.mark())
        clock.advance(80)
        assert await host.remind(session.id) is session
        clock.advance(20)
        timed_out = await host.timeout(session.id, clock())
        assert timed_out.steps, "the AI played for the late player"
        checks.append(await stored(store, session) == session.mark())
        await host.set_dm_closed(session.id, "red", True)
        await host.step_down(session.id, 3)
        await host.take(session.id, 4, session.seats[2].colour, name="u4")
        await host.kick(session.id, 1, 2)
        checks.append(await stored(store, session) == session.mark())
        await host.abort(CHANNEL, 1)
        checks.append(await stored(store, session) == session.mark())
        assert all(checks), checks
        assert host.reloads == 0
    finally:
        await store.close()


# --- two processes ------------------------------------------------------------------------------

@pytest.mark.postgres
async def test_a_second_host_catches_up_with_what_the_first_did(postgres: str,
                                                               clock: ManualClock) -> None:
    """Moves, a pause, a seat handed over and a take-back followed by another move (the same
    sequence number, another game behind it) made by one host are the game the other host
    checks and applies a move to."""
    async with hosts(postgres, clock) as (first, second):
        game = await makemake(first)
        copy = await second.get(game.id)
        assert copy is not game and copy.seq == game.seq
        await first.play_game(game.id, *turn(game))
        user, action = turn(game)
        report = await second.play_game(game.id, user, action)  # behind by one move
        assert report.session is copy and copy.seq == game.seq + 1 and second.reloads == 1
        with pytest.raises(Refusal, match="not_your_turn"):  # as the game now stands
            await first.play_game(game.id, user, turn(game)[1])
        assert first.reloads == 1
        await first.play_game(game.id, *turn(game))
        await second.catch_up(game.id)
        assert game.game is not None and copy.game is not None
        assert game.game.lines == copy.game.lines and replays(game) and replays(copy)

        await first.pause(CHANNEL, 1)
        with pytest.raises(Refusal, match="paused"):
            await second.play_game(game.id, *turn(copy))
        await first.unpause(CHANNEL, 1)

        leaving, _ = turn(game)
        await first.step_down(game.id, leaving)  # the AI plays that seat from now on
        with pytest.raises(Refusal, match="seat_gone_left"):
            await second.play_game(game.id, leaving, "pass")
        assert copy.seat_of(leaving) is None

        user, _ = turn(game)
        await first.play_game(game.id, *turn(game))
        await second.catch_up(game.id)
        await first.undo(CHANNEL, user)
        legal = [str(a) for a in game.legal(game.pending()[0])]
        await first.play_game(game.id, user, legal[-1])  # the same seq, another move
        assert copy.seq == game.seq and copy.game.lines != game.game.lines
        assert copy.mark() != await stored(second.store, copy), "the take-backs tell"
        await second.catch_up(game.id)
        assert copy.game.lines == game.game.lines and copy.mark() == game.mark()
        await second.play_game(game.id, *turn(copy))
        assert len(copy.takebacks) == 1 and replays(copy)
        await first.catch_up(game.id)
        assert game.game.lines == copy.game.lines and replays(game)


@pytest.mark.postgres
async def test_a_game_another_process_started_is_loaded_and_moved_on_demand(
        postgres: str, clock: ManualClock) -> None:
    async with hosts(postgres, clock) as (first, second):
        lobby = await makemake(first, start=False)
        copy = await second.get(lobby.id)
        assert copy.status == "lobby"
        await first.start(lobby.id, 1)
        user, action = turn(lobby)
        second.heard(lobby.id)  # the notification
        assert (await second.get(lobby.id)).status == "running"
        await second.play_game(lobby.id, user, action)
        never_seen = await makemake(first, channel=CHANNEL + 1)
        user, action = turn(never_seen)
        report = await second.play_game(never_seen.id, user, action)
        assert report.session.seq == never_seen.seq + 1


@pytest.mark.postgres
async def test_the_same_move_sent_to_two_hosts_at_once_is_applied_once(
        postgres: str, clock: ManualClock) -> None:
    async with hosts(postgres, clock) as (first, second):
        game = await makemake(first)
        copy = await second.get(game.id)
        user, action = turn(game)
        done = await asyncio.gather(*(host.play_game(game.id, user, action)
                                      for host in (first, second)), return_exceptions=True)
        applied = [d for d in done if not isinstance(d, Exception)]
        refused = [d for d in done if isinstance(d, Refusal)]
        assert len(applied) == 1 and len(refused) == 1, done
        assert refused[0].key == "bot.refuse.not_your_turn"
        assert game.game is not None and copy.game is not None
        lines = await first.store.actions(game.id)
        assert lines.count(f"{game.seat_of(user).colour} {action}") == 1  # type: ignore[union-attr]


@pytest.mark.postgres
async def test_a_taken_number_reloads_the_game_and_the_move_is_checked_again(
        postgres: str, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should a copy behind the store get past the lock (it cannot, but the database is the
    judge), the store refuses the taken number: the host reads the game again and answers as
    it now stands, the move applied once."""
    async with hosts(postgres, clock) as (first, second):
        game = await makemake(first)
        copy = await second.get(game.id)
        user, action = turn(game)
        await first.play_game(game.id, user, action)

        async def blind(session: Session) -> bool:
            return False  # the copy believes it is the stored game

        monkeypatch.setattr(second, "_catch_up", blind)
        with pytest.raises(Refusal) as refused:
            await second.play_game(game.id, user, action)
        assert refused.value.key == "bot.refuse.not_your_turn"
        assert copy.seq == game.seq and second.reloads == 1
        assert len(await first.store.actions(game.id)) == game.seq
        colour = game.seat_of(user).colour  # type: ignore[union-attr]
        assert (await first.store.actions(game.id)).count(f"{colour} {action}") == 1

        calls = iter([StaleGame(game.id, 1)])
        real = second.store.append_action

        async def taken_once(*args: Any, **kwargs: Any) -> None:
            for error in calls:
                raise error
            await real(*args, **kwargs)

        monkeypatch.setattr(second.store, "append_action", taken_once)
        next_user, next_action = turn(game)
        report = await second.play_game(game.id, next_user, next_action)
        assert report.session.seq == game.seq + 1, "checked again, then applied once"


@pytest.mark.postgres
async def test_a_due_timeout_is_played_by_one_of_three_hosts(postgres: str,
                                                             clock: ManualClock) -> None:
    async with hosts(postgres, clock, count=3) as many:
        game = await makemake(many[0], turn_seconds=60)
        for host in many[1:]:
            await host.get(game.id)
        before = game.seq
        clock.advance(45)
        reminded = [await host.remind(game.id) for host in many]
        assert sum(r is not None for r in reminded) == 1
        clock.advance(20)
        reports = [await host.timeout(game.id, clock()) for host in reversed(many)]
        assert [len(r.steps) > 0 for r in reports].count(True) == 1
        rows = await many[0].store.log(game.id)
        assert [r.by for r in rows[before:]].count("timeout") == 1


@pytest.mark.postgres
async def test_a_timeout_is_played_only_once_due_and_a_claim_holds_for_its_lease(
        postgres: str, clock: ManualClock) -> None:
    """The host decides when a deadline has come and how long a claim holds (the store only
    takes the claim): a timeout not due yet is not claimed; a claimer that dies before it
    plays the timeout keeps the others out for :data:`CLAIM_LEASE`, then one of them plays
    it."""
    async with hosts(postgres, clock, count=3) as many:
        game = await makemake(many[0], turn_seconds=60)
        for host in many[1:]:
            await host.get(game.id)
        before = game.seq
        clock.advance(59)
        assert not any([(await host.timeout(game.id, clock())).steps for host in many]), \
            "not due yet"
        row = await many[0].store.game(game.id)
        assert row is not None and row.deadline_at == game.row.deadline_at, "nor claimed"
        clock.advance(1)
        lease = iso(clock() + timedelta(seconds=CLAIM_LEASE))
        assert await many[0].store.claim_deadline(game.id, row.deadline_at, lease)  # then dies
        clock.advance(CLAIM_LEASE - 1)
        assert not any([(await host.timeout(game.id, clock())).steps for host in many[1:]]), \
            "the lease runs"
        clock.advance(1)
        reports = [await host.timeout(game.id, clock()) for host in many[1:]]
        assert [len(r.steps) > 0 for r in reports].count(True) == 1, "due again: one plays it"
        rows = await many[0].store.log(game.id)
        assert [r.by for r in rows[before:]].count("timeout") == 1


# --- what the outbox shows, with two processes ----------------------------------------------

@pytest.mark.postgres
async def test_after_missed_notifications_every_game_is_found_and_shown(
        postgres: str, clock: ManualClock) -> None:
    """The listening connection came back (EVERY_GAME): a game made meanwhile by another
    process, on this process's shard, is read and shown; a game of the other shard is not."""
    async with hosts(postgres, clock) as (first, second):
        bot = StubBot(second, BlankRenders(), clock, shard=0, shards=2)
        outbox = ShowingOutbox(bot)
        here = await first.create(channel_id=CHANNEL, guild_id=guild_on(0), game="makemake",
                                  options={}, creator_id=1, language="en")
        there = await first.create(channel_id=CHANNEL + 1, guild_id=guild_on(1),
                                   game="makemake", options={}, creator_id=1, language="en")
        await first.set_lobby_message(here.id, 900)
        outbox.heard(EVERY_GAME)
        await asyncio.wait_for(outbox.showing(here.id, 0), 30)
        assert here.id in second.sessions and there.id not in second.sessions
        assert bot.sink.calls > 0, "the lobby card was brought up to date"


@pytest.mark.postgres
async def test_the_tick_catches_up_what_it_shows_and_lets_go_of_what_ended_elsewhere(
        postgres: str, clock: ManualClock) -> None:
    async with hosts(postgres, clock) as (first, second):
        bot = StubBot(second, BlankRenders(), clock, shard=0, shards=2)
        outbox = ShowingOutbox(bot)
        mine = await makemake(first)  # server 1: shard 0, shown by the second host
        theirs = await first.create(channel_id=CHANNEL + 1, guild_id=guild_on(1),
                                    game="makemake", options={}, creator_id=1, language="en")
        await second.get(mine.id)
        await second.get(theirs.id)
        await first.play_game(mine.id, *turn(mine))
        await first.abort(CHANNEL + 1, 1)
        await outbox.reconcile_all()  # no notification heard: the tick compares
        assert second.sessions[mine.id].seq == mine.seq and outbox.shown[mine.id] == mine.seq
        assert theirs.id not in second.sessions, "ended, and shown elsewhere"
