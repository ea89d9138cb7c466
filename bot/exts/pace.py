"""``/game undo | pause | resume | deadline | back | notify``: the pace of a game.

- ``undo`` takes back the player's most recent move (with the AI and forced steps after it)
  while nobody else has acted and nothing hidden has come out since; the table's log says so.
- ``pause`` / ``resume`` (the creator or Manage Server) stop and restart the turn clock; while
  paused, moves are refused and the table says who paused it.
- ``deadline <minutes|off>`` (same people) changes the time per turn mid-game.
- ``back``: a player marked away after two timeouts in a row plays their own turns again.
- ``notify on|off``: a DM whenever a decision becomes yours (off by default).

Every answer is ephemeral; what the table shows follows from the stored game (the outbox).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.adapter.act import bot_of, host_change, user_lang
from bot.adapter.answer import answer, answers_refusals, wording
from bot.exts import _group
from bot.host.sessions import Refusal
from bot.translator import ls
from render.i18n import t

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)

MAX_MINUTES = 10080
"""A week: the longest turn time ``/game new`` accepts too."""
OFF_WORDS = frozenset({"off", "no", "none", "0", "-"})


def _admin(interaction: discord.Interaction) -> bool:
    return interaction.guild_id is not None and interaction.permissions.manage_guild


def _minutes(text: str, lang: str) -> int | None:
    """Typed minutes (``30``) or off (``off``, or the word in the user's language) -> seconds
    or None; a Refusal when it is neither."""
    word = text.strip().lower()
    if word in OFF_WORDS or word == t("bot.pace.off_word", lang).lower():
        return None
    if word.isdecimal() and 1 <= int(word) <= MAX_MINUTES:
        return int(word) * 60
    raise Refusal("bot.refuse.bad_minutes", typed=text[:20], most=MAX_MINUTES)


@app_commands.command(name=ls("bot.cmd.undo.name"), description=ls("bot.cmd.undo.description"))
@answers_refusals
async def undo(interaction: discord.Interaction) -> None:
    """Take back your most recent move."""
    bot = bot_of(interaction)
    lang = user_lang(interaction)
    channel_id = interaction.channel_id or 0
    with wording(lambda: bot.games.in_channel(channel_id)):
        report = await bot.games.undo(channel_id, interaction.user.id)
    takeback = report.session.takebacks[-1]
    line = takeback.steps[0].line.split(" ", 1)[-1]
    key = "bot.pace.undone_more" if len(takeback.steps) > 1 else "bot.pace.undone"
    await answer(interaction, t(key, lang, line=line))


@app_commands.command(name=ls("bot.cmd.pause.name"), description=ls("bot.cmd.pause.description"))
@answers_refusals
async def pause(interaction: discord.Interaction) -> None:
    """Stop the game's clock (its creator or Manage Server)."""
    bot = bot_of(interaction)
    session = await host_change(interaction, bot.games.pause(
        interaction.channel_id or 0, interaction.user.id, is_admin=_admin(interaction)))
    lang = user_lang(interaction)
    left = session.row.paused_left
    await answer(interaction, t("bot.pace.paused_done", lang) if left is None
                 else t("bot.pace.paused_left", lang, minutes=_shown_minutes(left)))


@app_commands.command(name=ls("bot.cmd.resume.name"),
                      description=ls("bot.cmd.resume.description"))
@answers_refusals
async def resume(interaction: discord.Interaction) -> None:
    """Go on after a pause: the turn time that was left counts again."""
    bot = bot_of(interaction)
    if await host_change(interaction, bot.games.unpause(
            interaction.channel_id or 0, interaction.user.id, is_admin=_admin(interaction))):
        await answer(interaction, t("bot.pace.resumed", user_lang(interaction)))


@app_commands.command(name=ls("bot.cmd.deadline.name"),
                      description=ls("bot.cmd.deadline.description"))
@app_commands.describe(minutes=ls("bot.cmd.deadline.minutes"))
@answers_refusals
async def deadline(interaction: discord.Interaction,
                   minutes: app_commands.Range[str, 1, 20]) -> None:
    """A new time per turn, or none (its creator or Manage Server)."""
    bot = bot_of(interaction)
    lang = user_lang(interaction)
    seconds = _minutes(minutes, lang)
    if await host_change(interaction, bot.games.set_turn_time(
            interaction.channel_id or 0, interaction.user.id, seconds,
            is_admin=_admin(interaction))):
        await answer(interaction, t("bot.pace.deadline_off", lang) if seconds is None
                     else t("bot.pace.deadline_set", lang, minutes=seconds // 60))


@app_commands.command(name=ls("bot.cmd.back.name"), description=ls("bot.cmd.back.description"))
@answers_refusals
async def back(interaction: discord.Interaction) -> None:
    """No longer away: play your own turns again."""
    bot = bot_of(interaction)
    lang = user_lang(interaction)
    channel_id = interaction.channel_id or 0
    await bot.games.back(channel_id, interaction.user.id)
    await answer(interaction, t("bot.pace.back", lang))


@app_commands.command(name=ls("bot.cmd.notify.name"),
                      description=ls("bot.cmd.notify.description"))
@app_commands.describe(setting=ls("bot.cmd.notify.setting"))
@app_commands.choices(setting=[
    app_commands.Choice(name=ls("bot.cmd.notify.on"), value="on"),
    app_commands.Choice(name=ls("bot.cmd.notify.off"), value="off")])
async def notify(interaction: discord.Interaction, setting: str) -> None:
    """A DM when it is your turn, in every game (off by default)."""
    bot = bot_of(interaction)
    on = setting == "on"
    await bot.games.set_notify(interaction.user.id, on)
    await answer(interaction, t("bot.pace.notify_on" if on else "bot.pace.notify_off",
                                user_lang(interaction)))


def _shown_minutes(seconds: int) -> str:
    """Minutes left, rounded up, for an answer (``4``; ``0.5`` reads ``1``)."""
    return str(max(1, -(-seconds // 60)))


async def setup(bot: GameBot) -> None:
    """The commands above join the shared ``/game`` group."""
    command: app_commands.Command[Any, ..., None]
    for command in (undo, pause, resume, deadline, back, notify):
        _group.game.add_command(command, override=True)
