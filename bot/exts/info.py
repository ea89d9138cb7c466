"""``/game help | rules | list | stats | leaderboard``: what a group asks about its games.

Every answer is ephemeral: the channel is the game's table and stays calm, and each of these is
one person's question (anyone may ask again at any moment, so a public copy would add nothing
but noise; a leaderboard worth showing off is one screenshot away). Help tells the asker what to
do now in the live table's own words; rules are the channel's game's, in its language; list,
stats and the leaderboard cover this server only.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.adapter.act import bot_of, user_lang
from bot.adapter.answer import answer, unless_refused
from bot.adapter.items import embed_of
from bot.adapter.port import App
from bot.exts import _group
from bot.games import playable
from bot.host.ratings import Z, player_key
from bot.table import Embed, Post
from bot.table.info import (
    TOP,
    Command,
    Listed,
    help_embed,
    leaderboard_embed,
    list_embed,
    rules_embed,
    stats_embed,
)
from bot.table.words import game_name
from bot.translator import ls
from render.i18n import join, t

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)


def game_choices() -> list[app_commands.Choice[str]]:
    """The games to choose from, as the registry has them now (a game registered since the
    bot was built is offered by the next one)."""
    return [app_commands.Choice(name=game_name(g, "en"), value=g) for g in playable()]


def _described(locale: app_commands.locale_str | None, fallback: str, lang: str) -> str:
    key = locale.extras.get("key") if locale is not None else None
    return t(key, lang) if key else fallback


def commands_of(bot: App, lang: str) -> list[Command]:
    """Every ``/game`` subcommand and ``/play``, as the user's language describes them."""
    found: list[app_commands.Command[Any, ..., Any]] = [
        c for c in _group.game.walk_commands() if isinstance(c, app_commands.Command)]
    play = bot.tree.get_command("play")
    if isinstance(play, app_commands.Command):
        found.append(play)
    return [Command(f"/{c.qualified_name}",
                    _described(getattr(c, "_locale_description", None), c.description, lang))
            for c in found]


async def _show(interaction: discord.Interaction, embed: Embed) -> None:
    shown = embed_of(Post(embed=embed), image=False)
    assert shown is not None
    await interaction.response.send_message(embed=shown, ephemeral=True)


@app_commands.command(name=ls("bot.cmd.help.name"), description=ls("bot.cmd.help.description"))
async def help_command(interaction: discord.Interaction) -> None:
    """The commands, and how to act in this channel's game now (only the asker sees it)."""
    bot = bot_of(interaction)
    lang = user_lang(interaction)
    session = bot.games.in_channel(interaction.channel_id or 0)
    await _show(interaction, help_embed(session, interaction.user.id, lang,
                                        commands_of(bot, lang)))


def rules_command() -> app_commands.Command[Any, ..., None]:
    """``/game rules``, its game choices from the registry: built when the extension loads,
    as ``/game new`` is, so a game registered before the bot starts is offered."""

    @app_commands.command(name=ls("bot.cmd.rules.name"),
                          description=ls("bot.cmd.rules.description"))
    @app_commands.describe(game=ls("bot.cmd.rules.game"))
    @app_commands.choices(game=game_choices())
    async def rules(interaction: discord.Interaction, game: str | None = None) -> None:
        """A one-screen summary of a game's rules: the channel's game's (in its language,
        with its options) unless another game is named."""
        await show_rules(interaction, game)

    return rules


async def show_rules(interaction: discord.Interaction, game: str | None) -> None:
    """``/game rules``: the named game's summary, else the channel's game's."""
    lang = user_lang(interaction)
    session = bot_of(interaction).games.in_channel(interaction.channel_id or 0)
    here = session.row.game if session is not None else None
    chosen = game or here
    if chosen is None:
        await answer(interaction, t("bot.info.rules.which", lang, games=join(
            [f"`{g}`" for g in playable()], lang)))
        return
    if session is not None and chosen == here:
        await _show(interaction, rules_embed(chosen, session.row.language, session.row.options))
        return
    await _show(interaction, rules_embed(chosen, lang))


@app_commands.command(name=ls("bot.cmd.list.name"), description=ls("bot.cmd.list.description"))
async def list_command(interaction: discord.Interaction) -> None:
    """The open lobbies and running games of this server, the longest-waiting first."""
    bot = bot_of(interaction)
    lang = user_lang(interaction)
    listed = []
    for row in await bot.games.store.guild_games(interaction.guild_id or 0, "lobby",
                                                 "running"):
        session = await unless_refused(bot.games.get(row.id))  # gone since it was listed
        if session is not None and session.status in ("lobby", "running"):
            listed.append(Listed(session, row.updated_at))
    await _show(interaction, list_embed(listed, lang))


@app_commands.command(name=ls("bot.cmd.stats.name"), description=ls("bot.cmd.stats.description"))
@app_commands.describe(user=ls("bot.cmd.stats.user"))
async def stats(interaction: discord.Interaction, user: discord.User | None = None) -> None:
    """A player's finished games in this server: plays, wins, average place and score, and
    the rating, per game."""
    who = user or interaction.user
    store = bot_of(interaction).games.store
    guild = interaction.guild_id or 0
    player = player_key(who.id, None)
    rows = await store.player_stats(guild, player)
    rated = {row.game: await store.rating(guild, row.game, player) for row in rows}
    await _show(interaction, stats_embed(who.display_name, rows, rated,
                                         user_lang(interaction)))


def leaderboard_command() -> app_commands.Command[Any, ..., None]:
    """``/game leaderboard``, its game choices from the registry (see :func:`rules_command`)."""

    @app_commands.command(name=ls("bot.cmd.leaderboard.name"),
                          description=ls("bot.cmd.leaderboard.description"))
    @app_commands.describe(game=ls("bot.cmd.leaderboard.game"))
    @app_commands.choices(game=game_choices())
    async def leaderboard(interaction: discord.Interaction, game: str) -> None:
        """The best-rated players of a game in this server (humans and AI levels)."""
        await show_leaderboard(interaction, game)

    return leaderboard


async def show_leaderboard(interaction: discord.Interaction, game: str) -> None:
    """``/game leaderboard``: the best-rated players of ``game`` in this server."""
    store = bot_of(interaction).games.store
    board = await store.leaderboard(interaction.guild_id or 0, game, Z, TOP)
    await _show(interaction, leaderboard_embed(game, board, user_lang(interaction)))


async def setup(bot: GameBot) -> None:
    """The commands above join the shared ``/game`` group."""
    command: app_commands.Command[Any, ..., None]
    for command in (help_command, rules_command(), list_command, stats,
                    leaderboard_command()):
        _group.game.add_command(command, override=True)
