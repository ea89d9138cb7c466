"""Answers to a user, and the central error handler: log the unexpected, answer politely, keep
every game alive.

Refusals (not your turn, illegal move, ...) are ordinary answers and never reach this module;
what arrives here is a bug, a Discord hiccup, or a database that could not take a write just now
(locked past its timeout, out of connections, a full disk): that one is no bug, and the user is
told their action was not saved and may be tried again. The game state is safe either way,
because the host changes memory only after a commit. An interaction that expired before it was
answered (Discord's 10062) cannot be answered at all: a warning, not an error.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from bot.host.store import unavailable
from render.i18n import language, t

log = logging.getLogger(__name__)

UNKNOWN_INTERACTION = 10062
"""Discord's code for an interaction token that expired (not answered within 3 seconds)."""


async def report(interaction: discord.Interaction, error: BaseException) -> None:
    """Log ``error`` with its context and tell the user, ephemerally, that it was not them."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    lang = language(str(interaction.locale))
    command = interaction.command.qualified_name if interaction.command else None
    if isinstance(error, discord.NotFound) and error.code == UNKNOWN_INTERACTION:
        log.warning("an interaction expired before it was answered (10062 Unknown interaction;"
                    " command %s, channel %s, user %s)", command, interaction.channel_id,
                    interaction.user.id)
        return
    cause = unavailable(error)
    if isinstance(error, app_commands.CheckFailure):
        key = ("bot.error.no_dm" if isinstance(error, app_commands.NoPrivateMessage)
               else "bot.error.not_allowed")
    elif cause is not None:
        key = "bot.error.not_saved"
        log.warning("not saved: the database is %s (command %s, channel %s, user %s): %s: %s",
                    cause, command, interaction.channel_id, interaction.user.id,
                    type(error).__name__, error)
    else:
        key = "bot.error.unexpected"
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
