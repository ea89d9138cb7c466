"""Privacy: ``/game forget-me`` (a user has the bot forget them, after a confirm button only
they can press) and the purge of a server's games once the bot has been removed from it.

Removal from a server is recorded at once and its running games end (the bot can no longer
show them); the games themselves are deleted by the reconcile tick (:mod:`bot.exts.timers`)
``PURGE_AFTER_DAYS`` later (0: at once). Being invited back before then cancels it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.exts import _group
from bot.exts._act import user_lang
from bot.exts._items import ForgetButton
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

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self.departed(guild.id)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Servers the bot was removed from while it was not running: every server with
        games that Discord no longer lists (a server in an outage is listed, unavailable).
        A process that runs some of the shards is told only of their servers: it judges
        those alone, and leaves the others to the processes whose shards carry them."""
        store = self.bot.games.store
        present = {guild.id for guild in self.bot.guilds}
        known = set(await store.departures())
        mine = {g for g in await store.guilds_with_games() if self.bot.settings.owns_guild(g)}
        for guild_id in sorted(mine - present - known):
            await self.departed(guild_id)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.back(guild.id)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        await self.back(guild.id)

    async def departed(self, guild_id: int) -> None:
        """Recorded now; the server's active games end at once (0 days: all its games go)."""
        host = self.bot.games
        await host.store.set_departure(guild_id)
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
