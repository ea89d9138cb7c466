"""The host's shared state and its one seam after commit: every change it commits is announced
(:meth:`HostBase.listen`), so that nobody has to remember to have a table shown again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any

from bot.host._session import Report, Seat, Session, Step, stamp
from bot.host.store import (
    Listener,
    Store,
)
from bot.host.thinking import Thinking

log = logging.getLogger("bot.host.sessions")  # one name for the host's lines, as documented


class HostBase(ABC):
    """What every concern of the host shares: the store, the games in memory, the seam after
    commit (:meth:`listen`), and the steps one concern asks of another (declared here,
    made in the concern's own module)."""

    def __init__(self, store: Store, seed_source: Callable[[], int] = lambda: 0,
                 thinking: Thinking | None = None,
                 committed: Callable[[str, float], None] | None = None) -> None:
        self.store = store
        self.committed = committed or (lambda game, seconds: None)
        """Told of every action committed: its game's name and the commit's seconds (the
        bot's metrics count them)."""
        self.seed_source = seed_source
        self.thinking = thinking or Thinking(workers=0)
        """Where AI seats decide (strong ones in worker processes when the bot runs; in a
        thread by default, for tests and the store's tools)."""
        self.sessions: dict[int, Session] = {}
        self._by_channel: dict[int, int] = {}
        self.notify: set[int] = set()
        """Users who want a DM when it is their turn (``/game notify``)."""
        self.stale: set[int] = set()
        """Games in memory that another process changed since (a shared store's
        notifications say so, :meth:`heard`): read again before they are shown or used."""
        self._loading: dict[int, asyncio.Future[Session]] = {}
        self.reloads = 0
        """Copies read again because another process had changed their game (tests and the
        live benchmark read it: one process over a store never needs to)."""
        self._listeners: list[Listener] = []

    def listen(self, callback: Listener) -> None:
        """From now on, call ``callback(game_id)`` after every change this host commits to a
        game (the same shape as :meth:`Store.listen`, which reports the changes of OTHER
        processes). Every change goes through :meth:`_hold` (or :meth:`_announcing`), which
        compares the copy in memory before and after: memory changes only after a commit, so
        a changed copy is a committed change, and nobody has to remember to say so."""
        self._listeners.append(callback)

    def _announce(self, game_id: int) -> None:
        for callback in self._listeners:
            try:
                callback(game_id)
            except Exception:
                log.exception("game %s: a listener to its commits failed", game_id)

    @contextlib.contextmanager
    def _announcing(self, session: Session) -> Iterator[None]:
        """Announce the game when the block changed its copy in memory (even when it then
        raised: what was committed before stands)."""
        before = stamp(session)
        try:
            yield
        finally:
            if stamp(session) != before:
                self._announce(session.id)

    # --- what one concern asks of another (each made in its own module) ------------------------

    @abstractmethod
    async def _apply(self, session: Session, actor: str, action: Any, by: str) -> Step:
        """Apply and COMMIT one action (moves: the only writer of actions)."""

    @abstractmethod
    async def _advance_safely(self, session: Session) -> list[Step]:
        """Chance and AI play on after a commit; a failure leaves the game stalled (moves)."""

    @abstractmethod
    async def _arm(self, session: Session) -> None:
        """The turn deadline of the humans now pending, stored (timers)."""

    @abstractmethod
    async def _arm_safely(self, session: Session) -> None:
        """:meth:`_arm`, a failure logged (timers)."""

    @abstractmethod
    async def _drop(self, session: Session, seat: Seat, what: str, by_id: int) -> None:
        """A seat leaves the lobby (lobby)."""

    @abstractmethod
    async def leave(self, game_id: int, user_id: int) -> Seat:
        """A human leaves a lobby (lobby)."""

    @abstractmethod
    async def step_down(self, game_id: int, user_id: int) -> Report:
        """A player leaves a running game: the AI takes their seat (seats)."""

    @abstractmethod
    async def _hand(self, session: Session, seat: Seat, user_id: int | None, name: str,
                    what: str, by_id: int) -> None:
        """COMMIT a seat's new holder (seats)."""

    @abstractmethod
    async def _rate_missed(self) -> None:
        """Rate the games that finished unrated (results)."""

    @abstractmethod
    async def _rate_safely(self, session: Session) -> None:
        """Rate a game that just finished; a failure logged (results)."""

