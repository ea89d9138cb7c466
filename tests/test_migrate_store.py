"""``python -m bot migrate-store``: a SQLite file of games played through the host (all three
games, running and finished, rated, with take-backs, seat changes, messages and settings)
copied into an empty PostgreSQL database, which then answers every read exactly as the file
did and carries the running games on; a target that is not empty is refused, and a damaged
game is reported by number."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import bot.__main__ as cli
from bot.host import ratings
from bot.host.clock import ManualClock, iso
from bot.host.sessions import Host, Session
from bot.host.store import (
    COPIED_TABLES,
    LEFT_OUT,
    STATUSES,
    InstanceLock,
    MessageRow,
    PostgresStore,
    SqliteStore,
    Store,
)
from bot.settings import redacted
from tests.helpers.stores import SqliteBackend

GUILD = 123456789012345678
OTHER_GUILD = 223456789012345678


# --- a SQLite file of games ----------------------------------------------------------------------

async def lobby(host: Host, channel: int, game: str, humans: list[int], ais: int,
                guild: int = GUILD, **options: str) -> Session:
    creator = humans[0] if humans else 1
    session = await host.create(channel_id=channel, guild_id=guild, game=game,
                                options=options, creator_id=creator, language="en",
                                join=False)
    for user in humans:
        await host.join(session.id, user, f"player {user}")
    for _ in range(ais):
        await host.add_ai(session.id, creator)
    return session


async def play(host: Host, session: Session, moves: int) -> int | None:
    """The pending humans play their first legal action, ``moves`` times at most (less when
    the game ends); returns the user who moved last."""
    last = None
    for _ in range(moves):
        humans = [c for c in session.pending()
                  if (seat := session.seat(c)) is not None and seat.user_id is not None]
        if session.status != "running" or not humans:
            break
        seat = session.seat(humans[0])
        assert seat is not None and seat.user_id is not None
        await host.play_game(session.id, seat.user_id, str(session.legal(humans[0])[0]))
        last = seat.user_id
    return last


async def started(host: Host, session: Session) -> Session:
    await host.start(session.id, session.row.creator_id)
    return session


@dataclass
class Source:
    """The SQLite file and what is in it."""

    path: Path
    running: dict[str, int]
    """Game name -> the id of its running game."""
    finished: list[int]
    channels: list[int]
    users: list[int]


async def fill(path: Path) -> Source:
    """Games of every kind and state, played through the host, and the settings beside them."""
    clock = ManualClock()
    store = await SqliteStore.open(path, clock)
    host = Host(store, seed_source=iter(range(11, 99)).__next__)
    running: dict[str, int] = {}
    finished: list[int] = []

    makemake = await started(host, await lobby(host, 100, "makemake", [1, 2, 3], 0))
    last = await play(host, makemake, 5)
    assert last is not None
    await host.undo(100, last)  # a take-back
    await host.step_down(makemake.id, 3)  # a seat changes hands: the AI plays it
    await play(host, makemake, 2)
    running["makemake"] = makemake.id
    giants = await started(host, await lobby(host, 101, "giants", [4, 5], 1))
    for _ in range(40):  # until a sealed bid waits for the others
        await play(host, giants, 1)
        if giants.log and giants.log[-1].sealed:
            break
    assert giants.log[-1].sealed
    running["giants"] = giants.id
    giganten = await started(host, await lobby(host, 102, "giganten", [6, 7], 1))
    await play(host, giganten, 6)
    running["giganten"] = giganten.id

    for channel, (game, options) in enumerate((("makemake", {"round_limit": "1"}),
                                               ("giants", {"quick": "yes"}),
                                               ("giganten", {})), start=110):
        ai_only = await started(host, await lobby(host, channel, game, [], 3, **options))
        assert ai_only.status == "finished"
        finished.append(ai_only.id)
    humans = await started(host, await lobby(host, 120, "makemake", [1, 2], 1,
                                             guild=OTHER_GUILD, round_limit="1"))
    await play(host, humans, 200)
    assert humans.status == "finished"
    finished.append(humans.id)

    aborted = await started(host, await lobby(host, 130, "makemake", [8, 9], 1))
    await host.abort(130, 8)
    await lobby(host, 140, "giants", [8], 0)  # a lobby, never started

    await store.set_lobby_message(makemake.id, 9001)
    await store.set_thread(makemake.id, 9002)
    await store.set_message(makemake.id, MessageRow("live", 9002, 9003, "digest", "turn", 3))
    await store.set_message(giants.id, MessageRow("screen:red", 4444, 9004, "d", holder=4))
    await store.set_message(giants.id, MessageRow("prompt:red", 4444, 9005, "e", turn=1,
                                                  holder=4))
    await store.set_message(giants.id, MessageRow("ping", 9002, 9006, "f",
                                                  mentions=(4, 5), reminder=True))
    await store.set_dm_closed(giants.id, "red", True)
    await store.hold_kick(giganten.id, 8, 6)  # a kicked player kept out
    await store.set_deadline(giganten.id, iso(clock()))
    await store.set_paused(aborted.id, 8, 30, None)
    await store.set_notify(1, True)
    await store.set_user_language(2, "es")
    await store.set_threads_allowed(OTHER_GUILD, False)
    await store.set_departure(323456789012345678)
    await store.claim_application(423456789012345678)
    await store.note_absence(523456789012345678)
    await store.set_synced_guild(GUILD, True)
    await store.start_heartbeat("gone", 77, "old-host")  # a bot killed without a clean stop
    await store.close()
    return Source(path, running, finished, [100, 101, 102, 110, 111, 112, 120, 130, 140],
                  list(range(1, 10)))


@pytest.fixture
async def source(tmp_path: Path) -> Source:
    return await fill(tmp_path / "games.sqlite3")


async def reads(store: Store, source: Source) -> dict[str, Any]:
    """Everything every read method of the store returns about the games and settings."""
    games = await store.games_with_status(*STATUSES)
    found: dict[str, Any] = {"games": games}
    for status in STATUSES:
        found[f"status {status}"] = await store.games_with_status(status)
    for row in games:
        n = row.id
        found[f"game {n}"] = (
            await store.game(n), await store.seats(n), await store.seat_changes(n),
            await store.actions(n), await store.log(n), await store.takebacks(n),
            await store.snapshot(n), await store.messages(n), await store.closed_dms(n),
            await store.results(n), await store.stored_seq(n),
            {user: await store.kick_hold(n, user) for user in source.users})
        for message in (await store.messages(n)).values():
            found[f"slot {message.message_id}"] = await store.slot_of(message.message_id)
    for channel in source.channels:
        found[f"channel {channel}"] = (await store.active_game(channel),
                                       await store.latest_started(channel))
    found["active"] = await store.load_active()
    found["unrated"] = await store.unrated_finished()
    for guild in (GUILD, OTHER_GUILD):
        found[f"guild {guild}"] = (await store.guild_games(guild, *STATUSES),
                                   await store.threads_allowed(guild))
        players = {r.player for row in games for r in await store.results(row.id)}
        for player in sorted(players):
            found[f"stats {guild} {player}"] = await store.player_stats(guild, player)
            for game in ("makemake", "giants", "giganten"):
                found[f"rating {guild} {game} {player}"] = await store.rating(guild, game,
                                                                              player)
        for game in ("makemake", "giants", "giganten"):
            found[f"board {guild} {game}"] = await store.leaderboard(guild, game, ratings.Z,
                                                                     10)
    found["users"] = (await store.notified_users(), await store.user_languages())
    found["servers"] = (await store.departures(), await store.guilds_with_games(),
                        await store.synced_guilds(), await store.absences())
    found["application"] = await store.application_id()
    return found


async def migrated(source: Source, url: str) -> tuple[int, str, str]:
    """``python -m bot migrate-store`` from the source into ``url``: status, out, err."""
    return await asyncio.to_thread(run_cli, "migrate-store", "--from",
                                   f"sqlite:///{source.path}", "--to", url)


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(list(argv))
    return status, out.getvalue(), err.getvalue()


def counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        found = {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                 for t in COPIED_TABLES}
    db.close()
    return found


# --- the tests -----------------------------------------------------------------------------------

async def test_every_table_of_the_schema_is_copied_or_said_not_to_be(tmp_path: Path) -> None:
    backend = SqliteBackend(tmp_path / "games.sqlite3")
    await (await backend.open()).close()
    assert set(await backend.tables()) == set(COPIED_TABLES) | set(LEFT_OUT)
    assert not set(COPIED_TABLES) & set(LEFT_OUT) and len(set(COPIED_TABLES)) == len(
        COPIED_TABLES)
    assert COPIED_TABLES[0] == "games", "a game before the rows that refer to it"


@pytest.mark.postgres
async def test_the_copy_answers_every_read_as_the_file_did(source: Source, pg_url: str) -> None:
    expected = counts(source.path)
    assert all(expected.values()), f"every table has rows to copy: {expected}"
    lite = await SqliteStore.open(source.path)
    before = await reads(lite, source)
    await lite.close()

    status, out, err = await migrated(source, pg_url)
    assert (status, err) == (0, ""), out + err
    lines = out.splitlines()
    assert lines[0].startswith(f"copied {source.path} into postgresql:///")
    assert {line.split()[0]: int(line.split()[1]) for line in lines[1:-2]} == expected
    highest = max(row.id for row in before["games"])
    assert lines[-2] == f"the next game is number {highest + 1}"
    started = sum(1 for row in before["games"] if row.header is not None)
    assert lines[-1] == f"checked {started} started games: each replays to its snapshot"

    target = await PostgresStore.open(pg_url, ManualClock(), pool_size=2)
    try:
        after = await reads(target, source)
        assert after.keys() == before.keys()
        for key in before:
            assert after[key] == before[key], key
        assert await target.heartbeats() == [], "a heartbeat is no data: not copied"
        sealed = [r for r in await target.log(source.running["giants"]) if r.sealed]
        assert sealed, "the sealed marks came along"
    finally:
        await target.close()


@pytest.mark.postgres
async def test_a_host_on_the_copy_carries_the_running_games_on(source: Source,
                                                               pg_url: str) -> None:
    status, out, _ = await migrated(source, pg_url)
    assert status == 0, out
    target = await PostgresStore.open(pg_url, ManualClock(), pool_size=2)
    try:
        host = Host(target, seed_source=lambda: 5)
        await host.load()
        assert set(source.running.values()) <= set(host.sessions)
        assert await host.check_all() == 0
        for game, game_id in source.running.items():
            session = host.sessions[game_id]
            seq = session.seq
            assert await play(host, session, 1) is not None, game
            assert session.seq > seq and await target.stored_seq(game_id) == session.seq
            assert len(await target.log(game_id)) == session.seq
        games = await target.games_with_status(*STATUSES)
        fresh = await lobby(host, 150, "makemake", [1], 0)
        assert fresh.id == max(row.id for row in games) + 1, "numbered on from the copy"
    finally:
        await target.close()


@pytest.mark.postgres
async def test_a_target_that_is_not_empty_is_refused(source: Source, pg_url: str) -> None:
    assert (await migrated(source, pg_url))[0] == 0
    target = await PostgresStore.open(pg_url, pool_size=2)
    before = len(await target.games_with_status(*STATUSES))
    await target.close()
    status, out, err = await migrated(source, pg_url)
    assert status == 1 and out == ""
    games = counts(source.path)["games"]
    assert err.startswith(f"the database {redacted(pg_url)} is not empty (games {games}, "
                          "seats "), err
    assert "copies into an empty database only" in err and "nothing was copied" in err
    target = await PostgresStore.open(pg_url, pool_size=2)
    try:
        assert len(await target.games_with_status(*STATUSES)) == before
    finally:
        await target.close()


@pytest.mark.postgres
async def test_a_target_that_a_bot_runs_on_is_refused(source: Source, pg_url: str) -> None:
    target = await PostgresStore.open(pg_url, pool_size=2)
    await target.start_heartbeat("running", 5, "db-host")
    await target.close()
    status, _, err = await migrated(source, pg_url)
    assert status == 1 and "is not empty (heartbeat 1)" in err, err
    target = await PostgresStore.open(pg_url, pool_size=2)
    try:
        assert await target.games_with_status(*STATUSES) == []
    finally:
        await target.close()


@pytest.mark.postgres
async def test_damaged_games_are_reported_by_number(source: Source, pg_url: str) -> None:
    gap, unplayable, behind, spoiled = source.finished  # in this order of ids
    with sqlite3.connect(source.path) as db:
        db.execute("DELETE FROM actions WHERE game_id = ? AND seq = 2", (gap,))
        db.execute("UPDATE actions SET line = 'red fly away' WHERE game_id = ? AND seq = 3",
                   (unplayable,))
        db.execute("UPDATE snapshots SET seq = 1 WHERE game_id = ?", (behind,))
        [state] = db.execute("SELECT state FROM snapshots WHERE game_id = ?",
                             (spoiled,)).fetchone()
        state = json.loads(state)
        state["moai_left"] -= 1
        db.execute("UPDATE snapshots SET state = ? WHERE game_id = ?",
                   (json.dumps(state), spoiled))
    db.close()
    status, out, _ = await migrated(source, pg_url)
    assert status == 1
    assert "copied " in out.splitlines()[0], "the copy itself went through, and says so"
    problems = [line for line in out.splitlines() if line.startswith("problem: ")]
    assert problems == [
        f"problem: game {gap}: the action log has a gap",
        problems[1],
        f"problem: game {behind}: its snapshot is of action 1, its log ends at action "
        f"{counts_of(source.path, behind)}",
        f"problem: game {spoiled}: its snapshot disagrees with its log (the log wins: the "
        "copy's snapshot now follows it, as a start of the bot would have it)"]
    assert problems[1].startswith(f"problem: game {unplayable}: its log does not replay (")
    started = len(source.finished) + len(source.running) + 1  # and the aborted one
    assert out.splitlines()[-1].startswith(f"4 of {started} started games failed the check")


def counts_of(path: Path, game_id: int) -> int:
    with sqlite3.connect(path) as db:
        [count] = db.execute("SELECT COUNT(*) FROM actions WHERE game_id = ?",
                             (game_id,)).fetchone()
    db.close()
    return int(count)


def test_the_arguments_name_a_sqlite_file_and_a_postgresql_database(tmp_path: Path) -> None:
    status, _, err = run_cli("migrate-store", "--from", "postgresql://a/b", "--to",
                             "postgresql://a/c")
    assert status == 2 and "--from names postgresql://a/b: migrate-store copies from a " \
                           "SQLite file" in err
    status, _, err = run_cli("migrate-store", "--from", str(tmp_path / "g.sqlite3"), "--to",
                             f"sqlite:///{tmp_path}/h.sqlite3")
    assert status == 2 and "copies into a PostgreSQL database" in err
    status, _, err = run_cli("migrate-store", "--from", str(tmp_path / "g.sqlite3"), "--to",
                             "postgresql://u:secret@h/db")
    assert status == 1 and err == f"no database at {tmp_path / 'g.sqlite3'}: nothing to copy\n"
    assert not (tmp_path / "g.sqlite3").exists(), "no database is created"
    with pytest.raises(SystemExit) as done:
        run_cli("migrate-store", "--from", "x.sqlite3")
    assert done.value.code == 2, "--to is required"


async def test_a_bot_running_on_the_file_stops_the_copy(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    store = await SqliteStore.open(path, ManualClock())
    await store.start_heartbeat("me", 4242, "box")
    lock = InstanceLock.take(path)
    try:
        status, out, err = run_cli("migrate-store", "--from", str(path), "--to",
                                   "postgresql://u:secret@h/db")
    finally:
        lock.release()
        await store.close()
    assert status == 2 and out == ""
    assert err.startswith(f"a bot is running on {path} (pid 4242 on box, started ")
    assert "stop it first" in err and "secret" not in err
