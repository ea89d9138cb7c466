"""The one seam after commit: the host announces every change it commits (``Host.listen``), so
that no caller has to remember to have the table shown, and a refusal announces nothing.

The store's writes are watched: after every request, each game the store was asked to change
must have been announced. Runs on both backends (``tests/stores.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bot.host.clock import ManualClock
from bot.host.sessions import Host, Refusal
from bot.host.store import Store
from rules.core import CHANCE

CHANNEL = 100

WRITES = ("set_status", "start_game", "set_deadline", "mark_reminded", "set_paused",
          "set_turn_time", "add_seat", "remove_seat", "change_seat", "set_away",
          "append_action", "take_back", "write_snapshot", "claim_deadline", "claim_reminder")
"""The store's writes of a game that change what its table shows (the outbox's own
bookkeeping, the game's thread, lobby card and closed DMs, is written as it shows them)."""


class Watch:
    """The games the store was asked to change, and those the host announced, since the last
    :meth:`check`."""

    def __init__(self, host: Host, store: Store) -> None:
        self.written: set[int] = set()
        self.announced: list[int] = []
        host.listen(self.announced.append)
        for name in WRITES:
            setattr(store, name, self._watched(getattr(store, name)))

    def _watched(self, write: Callable[..., Any]) -> Callable[..., Any]:
        async def watched(game_id: int, *args: Any, **kwargs: Any) -> Any:
            self.written.add(game_id)
            return await write(game_id, *args, **kwargs)
        return watched

    def check(self, what: str, quiet: bool = False) -> list[int]:
        """Every game written was announced (unless ``quiet``); what was announced (then
        forgotten)."""
        if not quiet:
            assert self.written <= set(self.announced), f"{what}: a commit was not announced"
        announced = list(self.announced)
        self.written.clear()
        self.announced.clear()
        return announced


async def a_move(host: Host, game_id: int) -> tuple[int, str]:
    """A human to act and one of their legal moves."""
    session = await host.get(game_id)
    colour = next(c for c in session.pending() if c != CHANCE)
    seat = session.seat(colour)
    assert seat is not None and seat.user_id is not None
    return seat.user_id, session.legal_lines(colour)[0]


async def test_every_commit_is_announced_and_a_refusal_is_not(store: Store) -> None:
    clock = store.clock
    assert isinstance(clock, ManualClock)
    host = Host(store)
    watch = Watch(host, store)
    session = await host.create(channel_id=CHANNEL, guild_id=1, game="makemake", options={},
                                creator_id=1, language="en", turn_seconds=60)
    game = session.id
    assert watch.check("create", quiet=True) == [], "a new lobby is shown by its creator's answer"
    await host.join(game, 2)
    assert watch.check("join") == [game]
    with pytest.raises(Refusal):
        await host.join(game, 2)
    assert watch.check("a refused join") == []
    await host.join(game, 3)
    await host.add_ai(game, 1)
    await host.remove_ai(game, 1)
    await host.join(game, 4)
    await host.leave(game, 4)
    assert watch.check("the lobby") == [game] * 5
    await host.start(game, 1)
    assert watch.check("start") == [game]

    user, line = await a_move(host, game)
    with pytest.raises(Refusal):
        await host.play(CHANNEL, user + 10, line)
    assert watch.check("a refused move") == []
    await host.play(CHANNEL, user, line)
    assert watch.check("a move") == [game]
    await host.undo(CHANNEL, user)
    assert watch.check("undo") == [game]

    await host.pause(CHANNEL, 1)
    await host.unpause(CHANNEL, 1)
    await host.set_turn_time(CHANNEL, 1, 120)
    assert watch.check("pace") == [game] * 3
    clock.advance(100)
    assert [what for _, what in host.due(clock())] == ["remind"]
    await host.remind(game)
    assert watch.check("remind") == [game]
    assert await host.remind(game) is None
    assert watch.check("a reminder sent already") == []
    clock.advance(30)
    await host.timeout(game, clock())
    assert watch.check("timeout") == [game]

    await host.set_notify(2, True)
    assert watch.check("notify") == [game], "the turn DMs of their games change"
    await host.step_down(game, 2)
    await host.take(game, 5, "blue" if (await host.get(game)).seat("blue") else "red",
                    for_id=None, is_admin=True)
    assert watch.check("seats") == [game] * 2
    await host.abort(CHANNEL, 1)
    assert watch.check("abort") == [game]
