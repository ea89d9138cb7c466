"""Privacy: ``/game forget-me`` (a user has the bot forget them, after a confirm button only
they can press) and the purge of a server's games once the bot has been removed from it.

Removal from a server is recorded at once and its running games end (the bot can no longer
show them); the games themselves are deleted by the reconcile tick (:mod:`bot.exts.timers`)
``PURGE_AFTER_DAYS`` later (0: at once). Being invited back before then cancels it.

A removal is Discord's own event (``on_guild_remove``), or a server with games that is missing
from the bot's complete list of servers on several starts over days (:data:`ABSENT_STARTS`,
:data:`ABSENT_DAYS`), never on one: a start with another application's token, or a bad
moment of Discord's, must not end every game.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapter.act import user_lang
from bot.adapter.items import ForgetButton
from bot.constants import ABSENT_DAYS, ABSENT_STARTS
from bot.exts import _group
from bot.translator import ls
from render.i18n import t

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)


@app_commands.command(name=ls("bot.cmd.forget.name"), description=ls("bot.cmd.forget.description"))
async def forget_me(interaction: discord.Interaction) -> None:
    """What would be removed, and the button that removes it (the asker's only)."""
    lang = user_lang(interaction)
    view = discord.ui.View(timeout=None)
    view.add_item(ForgetButton(interaction.user.id, t("bot.privacy.button", lang)))
    await interaction.response.send_message(t("bot.privacy.ask", lang), view=view,
                                            ephemeral=True)


class Departures(commands.Cog):
    """The bot leaving a server, and coming back."""

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        self.counted: set[int] = set()
        """Servers this process has counted missing already: a process counts as one start,
        however often the gateway sends a new READY."""

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self.departed(guild.id)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Servers the bot may have been removed from while it was not running: every server
        with games that Discord's complete list (READY, every server loaded; a server in an
        outage is listed, unavailable) leaves out is counted missing at this start, and judged
        removed only once it was missing on :data:`ABSENT_STARTS` starts spanning
        :data:`ABSENT_DAYS` days; a server listed again is no longer counted. A process that
        runs some of the shards is told only of their servers: it judges those alone, and
        leaves the others to the processes whose shards carry them."""
        store = self.bot.games.store
        present = {guild.id for guild in self.bot.guilds}
        known = set(await store.departures())
        mine = {g for g in await store.guilds_with_games() if self.bot.settings.owns_guild(g)}
        for guild_id in sorted(set(await store.absences()) & present):
            await store.clear_absence(guild_id)
            self.counted.discard(guild_id)
            log.info("server %s is listed again: its games are kept", guild_id)
        for guild_id in sorted(mine - present - known - self.counted):
            self.counted.add(guild_id)
            absence = await store.note_absence(guild_id)
            if absence.starts >= ABSENT_STARTS and absence.days() >= ABSENT_DAYS:
                log.warning("server %s was missing from Discord's list of servers on %d starts "
                            "over %.1f days: the bot was removed from it", guild_id,
                            absence.starts, absence.days())
                await self.departed(guild_id)
            else:
                log.warning("server %s, which has games, is missing from Discord's list of "
                            "servers at this start (%d start(s) since %s): its games are kept "
                            "until it is missing on %d starts over %d days", guild_id,
                            absence.starts, absence.first_at, ABSENT_STARTS, ABSENT_DAYS)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.bot.games.store.clear_absence(guild.id)
        self.counted.discard(guild.id)
        await self.back(guild.id)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        await self.back(guild.id)

    async def departed(self, guild_id: int) -> None:
        """Recorded now; the server's active games end at once (0 days: all its games go)."""
        host = self.bot.games
        await host.store.set_departure(guild_id)
        await host.store.clear_absence(guild_id)
        ended = await host.end_guild(guild_id)
        log.info("removed from server %s: %d game(s) ended; its games are deleted in %d "
                 "day(s) unless the bot comes back", guild_id, len(ended),
                 self.bot.settings.purge_after_days)
        if self.bot.settings.purge_after_days == 0:
            await host.purge(self.bot.settings.clock(), 0)

    async def back(self, guild_id: int) -> None:
        if await self.bot.games.store.cancel_departure(guild_id):
            log.info("back in server %s: its games are kept", guild_id)


async def setup(bot: GameBot) -> None:
    """The command joins the shared ``/game`` group; the listeners watch the servers."""
    _group.game.add_command(forget_me, override=True)
    await bot.add_cog(Departures(bot))
