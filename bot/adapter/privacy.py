"""What ``/game forget-me``'s confirm button does: the host forgets the user (their seats are
freed or go to the AI, their settings and ratings are deleted, finished games keep a former
player), the outbox shows the games that changed, and the user is told what was removed, with
counts. Shared by the button (:mod:`bot.adapter.items`) and the command's extension."""

from __future__ import annotations

import logging

import discord

from bot.adapter.act import bot_of, user_lang
from bot.adapter.answer import answer
from bot.host.sessions import Forgot
from render.i18n import t

log = logging.getLogger(__name__)


def forgot_text(forgot: Forgot, lang: str) -> str:
    """The answer: one line per kind of thing removed, each with its count."""
    lines = [t("bot.privacy.done", lang)]
    stored = forgot.stored
    if stored.settings:
        lines.append(t("bot.privacy.settings", lang))
    counts = (("bot.privacy.ratings", stored.ratings), ("bot.privacy.results", stored.results),
              ("bot.privacy.lobbies", len(forgot.lobbies)),
              ("bot.privacy.handed", len(forgot.handed)),
              ("bot.privacy.ended", len(forgot.ended)))
    lines += [t(key, lang, count=count) for key, count in counts if count]
    if len(lines) == 1:
        lines.append(t("bot.privacy.nothing", lang))
    return "\n".join(lines)


async def confirm(interaction: discord.Interaction, owner: int) -> None:
    """The confirm button: only the user who asked may press it."""
    lang = user_lang(interaction)
    if interaction.user.id != owner:
        await answer(interaction, t("bot.privacy.not_yours", lang))
        return
    await interaction.response.defer()
    bot = bot_of(interaction)
    forgot = await bot.games.forget(owner)
    bot.languages.pop(owner, None)
    log.info("a user had the bot forget them")
    await interaction.edit_original_response(content=forgot_text(forgot, lang), view=None)
