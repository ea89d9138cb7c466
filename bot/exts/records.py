"""``/game record``: the game's record so far as a text file, answered privately.

Everyone gets the same public record (:meth:`bot.host.sessions.Session.public_record`): while
the game runs every secret reads as the engine's public view shows it (``red bid ?``, unbuilt
tiles and licence deals as ``?``) and the seed stays out; a finished game gives the complete
record with its ``seed=``, which ``python -m rules verify`` checks against the commitment the
lobby card showed from the start.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.adapter.act import bot_of, user_lang
from bot.adapter.answer import answer, answers_refusals
from bot.exts import _group
from bot.games import game_ui
from bot.host.sessions import Session
from bot.table import record_name
from bot.table.words import game_name
from bot.translator import ls
from render.i18n import t

if TYPE_CHECKING:
    from bot.app import GameBot


def note(session: Session, lang: str) -> str:
    """What the answer says above the file."""
    words = {"game": game_name(session.row.game, lang), "id": session.id}
    if session.status == "finished":
        text = t("bot.record.finished", lang, **words)
        if game_ui(session.row.game).has_chance:
            text += "\n" + t("bot.record.verify", lang, file=record_name(session),
                             digest=session.commitment)
        return text
    if session.status == "aborted":
        return t("bot.record.aborted", lang, **words)
    return t("bot.record.live", lang, **words)


@app_commands.command(name=ls("bot.cmd.record.name"),
                      description=ls("bot.cmd.record.description"))
@answers_refusals
async def record(interaction: discord.Interaction) -> None:
    """The record of this channel's game (or of its latest one), for the asker's eyes only."""
    lang = user_lang(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    session = await bot_of(interaction).games.recorded(interaction.channel_id or 0)
    text = session.public_record()
    if text is None:
        await answer(interaction, t("bot.refuse.no_record", lang))
        return
    await interaction.followup.send(
        note(session, lang), ephemeral=True,
        file=discord.File(io.BytesIO(text.encode("utf-8")), filename=record_name(session)))


async def setup(bot: GameBot) -> None:
    """The command above joins the shared ``/game`` group."""
    _group.game.add_command(record, override=True)
