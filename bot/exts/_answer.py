"""Answers to a user, and the central error handler: log the unexpected, answer politely, keep
every game alive.

Refusals (not your turn, illegal move, ...) are ordinary answers and never reach this module;
what arrives here is a bug or a Discord hiccup. The game state is safe either way, because the
host changes memory only after a commit.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from render.i18n import language, t

log = logging.getLogger(__name__)


async def report(interaction: discord.Interaction, error: BaseException) -> None:
    """Log ``error`` with its context and tell the user, ephemerally, that it was not them."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    lang = language(str(interaction.locale))
    if isinstance(error, app_commands.CheckFailure):
        key = ("bot.error.no_dm" if isinstance(error, app_commands.NoPrivateMessage)
               else "bot.error.not_allowed")
    else:
        key = "bot.error.unexpected"
        command = interaction.command.qualified_name if interaction.command else None
        log.error("unexpected error (command %s, channel %s, user %s)", command,
                  interaction.channel_id, interaction.user.id, exc_info=error)
        seen = getattr(interaction.client, "unexpected_errors", None)
        if seen is not None:
            seen.append(error)
    try:
        await answer(interaction, t(key, lang))
    except discord.HTTPException:
        log.warning("could not tell user %s about an error", interaction.user.id)


async def answer(interaction: discord.Interaction, text: str) -> None:
    """An ephemeral answer, whether or not the interaction was answered or deferred already."""
    if interaction.type is discord.InteractionType.autocomplete:
        return
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)
