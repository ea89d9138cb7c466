"""The central error handler's extension: :class:`bot.app.GameTree` sends every slash-command
error to :func:`bot.adapter.answer.report`, and every component reports its own. There are no
prefix commands (:meth:`bot.app.GameBot.on_message` never reads a message as one), so a
mention of the bot reaches no command machinery and no error handler."""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord.ext import commands

if TYPE_CHECKING:
    from bot.app import GameBot


class Errors(commands.Cog):
    """Kept as the home of the error handling; slash commands report through the tree."""


async def setup(bot: GameBot) -> None:
    await bot.add_cog(Errors())
