"""The clocks: turn deadlines (a reminder, then the AI plays for the late player) and the
outbox's tick, which deletes the games of servers the bot left long enough ago, resumes
stalled games and reconciles every game with Discord.

Deadlines are absolute times in the store, read against the injected clock, so a restart
re-arms them by itself and tests move time without sleeping. With several bot processes over
one store every process's tick finds the same deadlines due; the host claims each timeout and
reminder in the store under the game's lock (:meth:`Host.timeout`, :meth:`Host.remind`), so
exactly one process plays it or sends it, and the process that shows the game shows it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from discord.ext import commands, tasks

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)


class Timers(commands.Cog):
    """Checks every running game's deadline on a short tick, and reconciles on a longer one."""

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        self.tick.change_interval(seconds=bot.settings.timer_tick)
        self.reconcile.change_interval(seconds=bot.settings.reconcile_tick)

    async def cog_load(self) -> None:
        self.tick.start()
        self.reconcile.start()

    async def cog_unload(self) -> None:
        self.tick.cancel()
        self.reconcile.cancel()

    @tasks.loop(seconds=30)
    async def tick(self) -> None:
        now = self.bot.settings.clock()
        for session, what in self.bot.games.due(now):
            try:
                if what == "timeout":
                    await self.bot.games.timeout(session.id, now)
                else:
                    await self.bot.games.remind(session.id)
            except Exception:
                log.exception("turn timer of game %s failed", session.id)

    @tasks.loop(seconds=60)
    async def reconcile(self) -> None:
        """At start-up (the first run) and then periodically: the games of servers the bot
        left ``PURGE_AFTER_DAYS`` ago are deleted; then what a failed call missed, the pings
        of players gone quiet, and chance or AI steps a failure interrupted."""
        try:
            await self.bot.games.purge(self.bot.settings.clock(),
                                       self.bot.settings.purge_after_days)
        except Exception:
            log.exception("deleting the games of departed servers failed; the next tick tries")
        try:
            await self.bot.outbox.reconcile_all()
        except Exception:
            log.exception("reconciling the games failed; the next tick tries again")

    @tick.before_loop
    @reconcile.before_loop
    async def ready(self) -> None:
        await self.bot.wait_until_ready()


async def setup(bot: GameBot) -> None:
    await bot.add_cog(Timers(bot))
