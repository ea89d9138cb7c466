"""A start loads running games from their snapshots; the log checks them afterwards and wins
a disagreement."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.host import _cache
from bot.host.sessions import Host
from bot.host.store import SqliteStore, Store
from rules.record import replay_lines

CHANNEL = 100


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await SqliteStore.open(tmp_path / "games.sqlite3")
    yield opened
    await opened.close()


async def played(host: Host, moves: int = 4) -> int:
    """A Make Make game of three humans, ``moves`` actions in; its id."""
    session = await host.create(channel_id=CHANNEL, guild_id=1, game="makemake", options={},
                                creator_id=1, language="en", join=False)
    for user in (1, 2, 3):
        await host.join(session.id, user)
    await host.start(session.id, 1)
    for _ in range(moves):
        colour = session.pending()[0]
        seat = session.seat(colour)
        assert seat is not None and seat.user_id is not None
        await host.play_game(session.id, seat.user_id, str(session.legal(colour)[0]))
    return session.id


def stored_snapshot(path: Path, game_id: int) -> tuple[int, dict[str, Any]]:
    with sqlite3.connect(path) as db:
        seq, state = db.execute("SELECT seq, state FROM snapshots WHERE game_id = ?",
                                (game_id,)).fetchone()
    return seq, json.loads(state)


def spoil(path: Path, game_id: int) -> None:
    """The snapshot of the right action, but not of the right position: a moai too few."""
    _, state = stored_snapshot(path, game_id)
    state["moai_left"] -= 1
    with sqlite3.connect(path) as db:
        db.execute("UPDATE snapshots SET state = ? WHERE game_id = ?",
                   (json.dumps(state), game_id))


async def test_a_start_reads_snapshots_without_replaying(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    host = Host(store)
    game_id = await played(host)
    before = host.sessions[game_id].view()

    def no_replay(*_: object) -> None:
        raise AssertionError("a start replayed a log")

    monkeypatch.setattr(_cache, "replay_lines", no_replay)  # where a start reads games
    fresh = Host(store)
    await fresh.load()
    assert fresh.sessions[game_id].view() == before
    assert fresh.sessions[game_id].game.lines == host.sessions[game_id].game.lines


async def test_a_snapshot_of_another_action_is_replaced_by_the_log(
        store: Store, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    host = Host(store)
    game_id = await played(host)
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        db.execute("UPDATE snapshots SET seq = 1 WHERE game_id = ?", (game_id,))
    fresh = Host(store)
    with caplog.at_level(logging.WARNING):
        await fresh.load()
    assert fresh.sessions[game_id].view() == host.sessions[game_id].view()
    assert "snapshot is not of action 4" in caplog.text


async def test_the_check_finds_a_bad_snapshot_and_the_log_wins(
        store: Store, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "games.sqlite3"
    host = Host(store)
    game_id = await played(host)
    truth = host.sessions[game_id].view()
    spoil(path, game_id)
    fresh = Host(store)
    await fresh.load()
    session = fresh.sessions[game_id]
    assert session.view() != truth  # loaded as stored: the check comes after the start
    with caplog.at_level(logging.WARNING):
        assert await fresh.check(game_id) is False
    assert "disagrees with the action log" in caplog.text
    assert session.view() == truth
    header = session.row.header
    assert header is not None
    replayed = replay_lines(header, session.game.lines)
    assert stored_snapshot(path, game_id) == (4, session.module.to_json(replayed.state))
    assert await fresh.check(game_id) is True  # repaired for good
    colour = session.pending()[0]
    seat = session.seat(colour)
    assert seat is not None and seat.user_id is not None
    await fresh.play_game(game_id, seat.user_id, str(session.legal(colour)[0]))
    assert stored_snapshot(path, game_id)[0] == 5


async def test_check_all_counts_the_repairs(store: Store, tmp_path: Path) -> None:
    host = Host(store)
    game_id = await played(host)
    fresh = Host(store)
    await fresh.load()
    assert await fresh.check_all() == 0
    spoil(tmp_path / "games.sqlite3", game_id)
    again = Host(store)
    await again.load()
    assert await again.check_all() == 1
    assert again.sessions[game_id].view() == host.sessions[game_id].view()
