"""The central error handler's extension: :class:`bot.app.GameTree` sends every slash-command
error to :func:`bot.exts._answer.report`, and every component reports its own; a mention of the
bot (the prefix-command machinery, unused) is ignored instead of logged as an error."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord.ext import commands

if TYPE_CHECKING:
    from bot.app import GameBot


class Errors(commands.Cog):
    @commands.Cog.listener()
    async def on_command_error(self, ctx: commands.Context[GameBot],
                               error: commands.CommandError) -> None:
        """No prefix commands exist: "command not found" after a mention is not an error."""
        if not isinstance(error, commands.CommandNotFound):
            raise error


async def setup(bot: GameBot) -> None:
    await bot.add_cog(Errors())
