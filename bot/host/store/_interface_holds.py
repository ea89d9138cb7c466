"""The store's interface for kick holds (:class:`KickHolds`, part of
:class:`~bot.host.store.Store`): a player removed from a game may not take a seat in it again,
by any path, until its creator or a server manager gives one back. Kept with the game, so a
restart keeps it; purged with the game; a forgotten user's holds go.
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class KickHolds(ABC):
    """Who is kept out of which game."""

    @abstractmethod
    async def hold_kick(self, game_id: int, user_id: int, by_id: int) -> None:
        """``by_id`` removed ``user_id`` from the game (``/game kick``): they may not take a
        seat in it again until the hold is lifted (:meth:`lift_kick`)."""

    @abstractmethod
    async def kick_hold(self, game_id: int, user_id: int) -> int | None:
        """Who removed ``user_id`` from the game while the hold stands; None: no hold."""

    @abstractmethod
    async def lift_kick(self, game_id: int, user_id: int) -> bool:
        """The game's creator or a server manager gives ``user_id`` their place back; whether
        there was a hold to lift."""
