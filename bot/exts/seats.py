"""``/game leave | take | kick | allow``: seats changing hands.

In a running game ``leave`` hands your seat to the AI (at the game's AI level); ``take`` lets
someone not playing take over an AI seat that a player left or was removed from, or a seat
whose player's time ran out on their latest turn, and lets the game's creator (or a server
manager) give any seat to anyone not playing (``user:``); ``kick`` (creator or Manage Server)
turns a player's seat over to the AI. In the lobby, ``leave`` and ``kick`` free the seat. A kick
holds: the player may not join or take a seat in that game again until the creator (or a
server manager) gives them one with ``take user:`` or lets them back with ``allow``. The
host applies each change under the game's lock and plays on for the AI; the outbox then moves
the seat's secrets: the previous holder's DM screen and prompt say they no longer hold it, the
new holder gets their own.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.adapter.act import best_effort, bot_of, user_lang
from bot.adapter.answer import answer, answers_refusals, wording
from bot.constants import MAX_AUTOCOMPLETE, MAX_CONTENT
from bot.exts import _group
from bot.games import game_ui
from bot.host.sessions import Refusal, Session
from bot.table.words import ai_name, colour_name
from bot.translator import ls
from render.i18n import t

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)


def _colour(session: Session, typed: str, lang: str) -> str:
    """A seat's colour from what was typed: the colour (``blue``) or its name in the user's or
    the game's language (``Azul``)."""
    word = typed.strip().lower()
    for seat in session.seats:
        names = {seat.colour, colour_name(seat.colour, lang).lower(),
                 colour_name(seat.colour, session.row.language).lower()}
        if word in names:
            return seat.colour
    return word


async def _answer(interaction: discord.Interaction, text: str) -> None:
    await best_effort("answer a seat change", answer(interaction, text[:MAX_CONTENT]))


@app_commands.command(name=ls("bot.cmd.leave.name"), description=ls("bot.cmd.leave.description"))
@answers_refusals
async def leave(interaction: discord.Interaction) -> None:
    """Give up your seat: in the lobby it is freed; in a running game the AI plays it."""
    bot = bot_of(interaction)
    lang = user_lang(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    session = bot.games.channel_session(interaction.channel_id or 0)
    with wording(session):
        if session.status == "lobby":
            seat = await bot.games.leave(session.id, interaction.user.id)
            text = t("bot.seats.done.left_lobby", lang, seat=colour_name(seat.colour, lang))
        else:
            seat = bot.games.seat_for_play(session, interaction.user.id)
            await bot.games.step_down(session.id, interaction.user.id)
            text = t("bot.seats.done.left", lang, seat=colour_name(seat.colour, lang),
                     id=session.id, level=ai_name(session.row.ai_level, lang), value=seat.colour)
    await _answer(interaction, text)


@app_commands.command(name=ls("bot.cmd.take.name"), description=ls("bot.cmd.take.description"))
@app_commands.describe(colour=ls("bot.cmd.take.colour"), user=ls("bot.cmd.take.user"))
@answers_refusals
async def take(interaction: discord.Interaction, colour: str,
               user: discord.User | None = None) -> None:
    """Take over a seat (or, as the game's creator, give it to ``user``)."""
    bot = bot_of(interaction)
    lang = user_lang(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    taker = user or interaction.user
    session = bot.games.channel_session(interaction.channel_id or 0)
    with wording(session):
        if taker.bot:
            raise Refusal("bot.refuse.seat_bot")
        wanted = _colour(session, colour, lang)
        await bot.games.take(session.id, interaction.user.id, wanted,
                             for_id=taker.id if user is not None else None,
                             name=taker.display_name,
                             is_admin=interaction.permissions.manage_guild)
    key = "bot.seats.done.handed" if taker.id != interaction.user.id else \
        "bot.seats.done.took_screen" if game_ui(session.row.game).has_screen() else \
        "bot.seats.done.took"
    await _answer(interaction, t(key, lang, seat=colour_name(wanted, lang), id=session.id,
                                 who=taker.mention, channel=f"<#{session.row.home_id}>"))


@take.autocomplete("colour")
async def take_colours(interaction: discord.Interaction,
                       typed: str) -> list[app_commands.Choice[str]]:
    """The seats of this channel's game, AI seats first."""
    lang = user_lang(interaction)
    session = bot_of(interaction).games.in_channel(interaction.channel_id or 0)
    if session is None or session.status != "running":
        return []
    word = typed.strip().lower()
    out = []
    for seat in sorted(session.seats, key=lambda s: not s.is_ai):
        name = colour_name(seat.colour, lang)
        if word and not (seat.colour.startswith(word) or name.lower().startswith(word)):
            continue
        label = t("bot.seats.choice.ai", lang, seat=name, level=ai_name(seat.ai_level, lang)) \
            if seat.is_ai else t("bot.seats.choice.human", lang, seat=name, name=seat.name or "?")
        out.append(app_commands.Choice(name=label[:100], value=seat.colour))
    return out[:MAX_AUTOCOMPLETE]


@app_commands.command(name=ls("bot.cmd.kick.name"), description=ls("bot.cmd.kick.description"))
@app_commands.describe(user=ls("bot.cmd.kick.user"))
@answers_refusals
async def kick(interaction: discord.Interaction, user: discord.User) -> None:
    """Remove a player (the game's creator or a server manager): from the lobby their seat
    goes; in a running game the AI takes it over."""
    bot = bot_of(interaction)
    lang = user_lang(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    session = bot.games.channel_session(interaction.channel_id or 0)
    with wording(session):
        seat = session.seat_of(user.id)
        lobby = session.status == "lobby"
        await bot.games.kick(session.id, interaction.user.id, user.id,
                             is_admin=interaction.permissions.manage_guild)
    assert seat is not None
    key = "bot.seats.done.kicked_lobby" if lobby else "bot.seats.done.kicked"
    text = t(key, lang, who=user.mention, seat=colour_name(seat.colour, lang),
             level=ai_name(session.row.ai_level, lang), value=seat.colour)
    await _answer(interaction, text + "\n" + t("bot.kick.held", lang, who=user.mention))


@app_commands.command(name=ls("bot.cmd.allow.name"), description=ls("bot.cmd.allow.description"))
@app_commands.describe(user=ls("bot.cmd.allow.user"))
@answers_refusals
async def allow(interaction: discord.Interaction, user: discord.User) -> None:
    """Let a kicked player join or take a seat in this channel's game again (the game's
    creator or a server manager)."""
    bot = bot_of(interaction)
    lang = user_lang(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    session = bot.games.channel_session(interaction.channel_id or 0)
    with wording(session):
        lifted = await bot.games.allow(session.id, interaction.user.id, user.id,
                                       is_admin=interaction.permissions.manage_guild)
    key = "bot.kick.allowed" if lifted else "bot.kick.not_held"
    await _answer(interaction, t(key, lang, who=user.mention, id=session.id))


async def setup(bot: GameBot) -> None:
    """The commands above join the shared ``/game`` group."""
    command: app_commands.Command[Any, ..., None]
    for command in (leave, take, kick, allow):
        _group.game.add_command(command, override=True)
