"""The ``/game`` command group, shared: each extension adds its own subcommands to it in its
``setup`` (the lobby's ``new``, ``status``, ``abort``, ``threads``; seats; pace; information...),
and the bot registers the group once, after every extension is loaded.

Discord sets where a command may be used (servers, DMs) and how it is installed (to a server,
to a user) per top-level command only, so the whole group is offered in servers, in DMs and to
users who install the bot for themselves; the group's check then lets a subcommand run outside
a server the bot is in only when it says it works anywhere (``extras={"anywhere": True}``,
``/game mine``): every other one answers that it works in a server channel, as before.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.translator import ls

ANYWHERE = "anywhere"
"""The key of a subcommand's ``extras`` that lets it run in DMs and where only the user
installed the bot."""


class GameGroup(app_commands.Group):
    """``/game``: its subcommands run in the servers the bot is in, but for those marked
    :data:`ANYWHERE`."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        command = interaction.command
        if command is not None and command.extras.get(ANYWHERE):
            return True
        if interaction.guild_id is None or interaction.client.get_guild(
                interaction.guild_id) is None:
            raise app_commands.NoPrivateMessage()
        return True


game = GameGroup(name=ls("bot.cmd.game.name"), description=ls("bot.cmd.game.description"),
                 allowed_contexts=app_commands.AppCommandContext(
                     guild=True, dm_channel=True, private_channel=True),
                 allowed_installs=app_commands.AppInstallationType(guild=True, user=True))
