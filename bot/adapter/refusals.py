"""Channels where Discord refuses the bot: tried again only after a growing interval.

A channel where the bot lacks a permission (403 Missing Access 50001, Missing Permissions
50013) refuses every call until someone changes its permissions. Trying on every tick would
cost one refused call per game and minute, and Discord counts refused calls toward the limit
of invalid requests after which it blocks the bot for a while. So the outbox leaves the
channel part of the games in a refusing channel alone for a minute, then two, doubling to an
hour (:data:`REFUSED_FIRST`, :data:`REFUSED_MOST`); a call that succeeds there or a change
of the channel's or the server's permissions (the gateway's channel and role updates) ends
the wait. Only that channel waits: other games and every game's DMs go on.

Kept in memory only: a restart forgets it, which costs one call per refusing channel per
start, and a process never waits on a refusal another process saw.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.constants import REFUSED_FIRST, REFUSED_MOST
from bot.host.clock import Clock


@dataclass
class _Wait:
    guild_id: int | None
    interval: float
    until: datetime


class Refusals:
    """Per channel: how long the bot waits before it tries a refusing channel again."""

    def __init__(self, clock: Clock, first: float = REFUSED_FIRST,
                 most: float = REFUSED_MOST) -> None:
        self._clock = clock
        self._first = first
        self._most = most
        self._waits: dict[int, _Wait] = {}

    def waiting(self, channel_id: int) -> bool:
        """Whether the channel refused the bot and its interval has not run out yet."""
        wait = self._waits.get(channel_id)
        return wait is not None and self._clock() < wait.until

    def refused(self, channel_id: int, guild_id: int | None) -> float:
        """Discord refused a call in the channel: the seconds until it is tried again (the
        first interval, else twice the previous one, at most the longest)."""
        wait = self._waits.get(channel_id)
        interval = self._first if wait is None else min(wait.interval * 2, self._most)
        self._waits[channel_id] = _Wait(guild_id, interval,
                                        self._clock() + timedelta(seconds=interval))
        return interval

    def allowed(self, channel_id: int) -> None:
        """A call in the channel went through: it waits no more."""
        self._waits.pop(channel_id, None)

    def changed(self, guild_id: int, channel_id: int | None = None) -> list[int]:
        """Permissions changed in a channel (``channel_id``) or anywhere in the server (a
        role): the refusing channels concerned wait no more; gives them."""
        ended = [c for c, wait in self._waits.items()
                 if (c == channel_id if channel_id is not None else wait.guild_id == guild_id)]
        for channel in ended:
            del self._waits[channel]
        return ended


__all__ = ["Refusals"]
