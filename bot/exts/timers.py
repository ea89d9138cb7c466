"""Turn deadlines: a reminder before the time runs out, then the AI plays for the late player.

Deadlines are absolute times in the store, read against the injected clock, so a restart
re-arms them by itself and tests move time without sleeping.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands, tasks

from bot import announce
from bot.sessions import Session
from render.i18n import t

if TYPE_CHECKING:
    from bot.bot import GameBot

log = logging.getLogger(__name__)


class Timers(commands.Cog):
    """Checks every running game's deadline on a short tick."""

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        self.tick.change_interval(seconds=bot.settings.timer_tick)

    async def cog_load(self) -> None:
        self.tick.start()

    async def cog_unload(self) -> None:
        self.tick.cancel()

    @tasks.loop(seconds=30)
    async def tick(self) -> None:
        now = self.bot.settings.clock()
        for session, what in self.bot.games.due(now):
            try:
                if what == "timeout":
                    report = await self.bot.games.timeout(session.id, now)
                    if report.steps:
                        await announce.post_report(self.bot, report)
                elif await self.bot.games.remind(session.id):
                    await self.remind(session)
            except Exception:
                log.exception("turn timer of game %s failed", session.id)

    @tick.before_loop
    async def ready(self) -> None:
        await self.bot.wait_until_ready()

    async def remind(self, session: Session) -> None:
        """Mention the players on the clock, with the deadline in their own time zone."""
        lang = session.row.language
        deadline = discord.utils.format_dt(
            discord.utils.parse_time(session.row.deadline_at), "R")  # type: ignore[arg-type]
        channel = await announce.channel_of(self.bot, session)
        await channel.send(
            t("bot.timer.reminder", lang, who=announce.mentions(session, session.pending(), lang),
              deadline=deadline),
            allowed_mentions=discord.AllowedMentions(users=True))


async def setup(bot: GameBot) -> None:
    await bot.add_cog(Timers(bot))
