"""``/game new | status | abort | threads``: opening a lobby, a private look at the table, and
ending a game. The lobby card's buttons are :class:`bot.exts._items.LobbyButton`; what the card
shows afterwards is the outbox's to keep up to date.

A new game speaks the language given with ``language:``, else the server's preferred locale
when it is one of ours (and not Discord's untouched ``en-US``), else the bot's default
(``BOT_LANGUAGE``).

Before opening a lobby the bot reads its own permissions in the channel (sent with the
interaction): without one a game needs there, ``/game new`` refuses, naming it as Discord does
in the user's language; without the thread permissions the lobby opens, and the creator is told
the game will play in the channel and which permission would give it a thread.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.constants import MAX_CONTENT, NEEDED_PERMISSIONS, THREAD_PERMISSIONS
from bot.exts import _group
from bot.exts._act import best_effort, bot_of, user_lang
from bot.exts._answer import answer
from bot.exts._items import embed_of, lobby_view, or_missing
from bot.games import PLAYABLE
from bot.host.sessions import Refusal, option_refusal
from bot.table import desired, lobby_post
from bot.table.words import game_name, refusal_text
from bot.translator import ls
from render.i18n import LANGUAGES, join, t
from render.i18n import NAMES as LANGUAGE_NAMES
from render.i18n import language as i18n_language
from rules.ai import LEVELS
from rules.registry import game_module

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)


UNCHOSEN_LOCALE = "en-US"
"""Discord's preferred locale for a server that has not picked one."""
SPOKEN = frozenset(lang.split("-")[0] for lang in LANGUAGES)
"""The languages the bot speaks, whatever their region or script (``zh`` for both Chinese)."""


def server_language(interaction: discord.Interaction, fallback: str) -> str:
    """A new game's default language: the server's preferred locale when we speak it, else
    ``fallback``. ``en-US`` is what Discord gives every server that never chose: it leaves the
    choice to ``BOT_LANGUAGE``."""
    guild = interaction.guild
    preferred = guild.preferred_locale if guild is not None else interaction.guild_locale
    locale = str(preferred) if preferred is not None else ""
    base = locale.replace("_", "-").split("-")[0].lower()
    if locale in ("", UNCHOSEN_LOCALE) or base not in SPOKEN:
        return fallback
    return i18n_language(locale)


def lacking(interaction: discord.Interaction, names: tuple[str, ...]) -> list[str]:
    """Which of these permissions the bot lacks in the interaction's channel (Discord sends
    the bot's own permissions there with every interaction)."""
    have = interaction.app_permissions
    return [name for name in names if not getattr(have, name)]


def needed_here(interaction: discord.Interaction) -> tuple[str, ...]:
    """What a game needs in this channel: in a thread, posting there is Send Messages in
    Threads."""
    if isinstance(interaction.channel, discord.Thread):
        return tuple("send_messages_in_threads" if name == "send_messages" else name
                     for name in NEEDED_PERMISSIONS)
    return NEEDED_PERMISSIONS


async def thread_lacking(interaction: discord.Interaction) -> list[str]:
    """The thread permissions the bot lacks here, when a game here would get a thread (a
    text channel of a server that allows threads); empty otherwise."""
    if not isinstance(interaction.channel, discord.TextChannel) or not await bot_of(
            interaction).games.store.threads_allowed(interaction.guild_id):
        return []
    return lacking(interaction, THREAD_PERMISSIONS)


def permission_text(key: str, missing: list[str], lang: str) -> str:
    """``key`` (a ``bot.permission.*`` message) naming the missing permissions as Discord
    names them in ``lang``."""
    names = [f"**{t(f'bot.permission.{name}', lang)}**" for name in missing]
    return t(key, lang, count=len(missing), permissions=join(names, lang))


def check_ranges(game: str, typed: dict[str, str],
                 ranges: dict[str, tuple[int, int]]) -> None:
    """The slash command's own bounds (``ranges``: an option's least and greatest value) hold
    for the same option typed in ``options:`` too; a value outside them is refused, naming the
    range and an example. An option the game does not have is left to the host to refuse."""
    try:
        known = {o.name: o for o in game_module(game).OPTIONS}
    except KeyError:
        return
    for key, value in typed.items():
        if key not in ranges or key not in known:
            continue
        low, high = ranges[key]
        if not value.isdecimal() or not low <= int(value) <= high:
            raise option_refusal(known[key], value, low, high)


def slash_ranges(command: app_commands.Command[Any, ..., Any]) -> dict[str, tuple[int, int]]:
    """The least and greatest value of each number option of a slash command, by name."""
    return {p.name: (int(p.min_value), int(p.max_value)) for p in command.parameters
            if p.min_value is not None and p.max_value is not None}


def _game_choices() -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=game_name(g, "en"), value=g) for g in PLAYABLE]


@app_commands.command(name=ls("bot.cmd.new.name"), description=ls("bot.cmd.new.description"))
@app_commands.describe(
    game=ls("bot.cmd.new.game"), round_limit=ls("bot.cmd.new.round_limit"),
    chief_alone=ls("bot.cmd.new.chief_alone"), edge_strict=ls("bot.cmd.new.edge_strict"),
    sacred_surroundable=ls("bot.cmd.new.sacred_surroundable"),
    one_manu_per_ceremony=ls("bot.cmd.new.one_manu_per_ceremony"),
    repetition=ls("bot.cmd.new.repetition"), quick=ls("bot.cmd.new.quick"),
    running_score=ls("bot.cmd.new.running_score"),
    chief_split=ls("bot.cmd.new.chief_split"), ai=ls("bot.cmd.new.ai"),
    turn_minutes=ls("bot.cmd.new.turn_minutes"),
    options=ls("bot.cmd.new.options"), language=ls("bot.cmd.new.language"))
@app_commands.choices(
    game=_game_choices(),
    ai=[app_commands.Choice(name=ls(f"term.ai.{level}"), value=level) for level in LEVELS],
    language=[app_commands.Choice(name=f"{LANGUAGE_NAMES[lang]} ({lang})", value=lang)
              for lang in LANGUAGES])
async def new(interaction: discord.Interaction, game: str,
              round_limit: app_commands.Range[int, 1, 1000] | None = None,
              chief_alone: bool | None = None, edge_strict: bool | None = None,
              sacred_surroundable: bool | None = None,
              one_manu_per_ceremony: bool | None = None, repetition: bool | None = None,
              quick: bool | None = None, running_score: bool | None = None,
              chief_split: bool | None = None, ai: str = "greedy",
              turn_minutes: app_commands.Range[int, 1, 10080] | None = None,
              options: str | None = None, language: str | None = None) -> None:
    """Open a lobby: the creator takes the first seat; others join with the button."""
    given: dict[str, Any] = {}
    for word in (options or "").split():
        key, _, value = word.partition("=")
        given[key.lower()] = value
    typed = dict(given)
    flags = {"round_limit": round_limit, "chief_alone": chief_alone,
             "edge_strict": edge_strict, "sacred_surroundable": sacred_surroundable,
             "one_manu_per_ceremony": one_manu_per_ceremony, "repetition": repetition,
             "quick": quick, "running_score": running_score, "chief_split": chief_split}
    for name, flag in flags.items():
        if flag is not None:
            given[name] = ("yes" if flag else "no") if isinstance(flag, bool) else str(flag)
    lang = user_lang(interaction)
    missing = lacking(interaction, needed_here(interaction))
    if missing:
        await answer(interaction, permission_text("bot.permission.missing", missing, lang))
        return
    no_thread = await thread_lacking(interaction)
    try:
        check_ranges(game, typed, slash_ranges(new))
        session = await bot_of(interaction).games.create(
            channel_id=interaction.channel_id or 0, guild_id=interaction.guild_id,
            game=game, options=given, creator_id=interaction.user.id,
            language=language or server_language(
                interaction, bot_of(interaction).settings.language), ai_level=ai,
            creator_name=interaction.user.display_name,
            turn_seconds=turn_minutes * 60 if turn_minutes else None)
    except Refusal as error:
        await answer(interaction, refusal_text(None, error, lang))
        return
    post = lobby_post(session)
    await interaction.response.send_message(
        embed=or_missing(embed_of(post, image=False)),
        view=or_missing(lobby_view(session.id, post.components)))
    try:
        message = await interaction.original_response()
    except discord.HTTPException as error:
        log.warning("game %s: the lobby card's id is unknown (%s)", session.id, error)
        return
    await bot_of(interaction).games.set_lobby_message(session.id, message.id)
    await bot_of(interaction).adopt(session.id, "lobby", message, post)
    if no_thread:
        await best_effort("say the game has no thread", interaction.followup.send(
            permission_text("bot.permission.no_thread", no_thread, lang), ephemeral=True))

@app_commands.command(name=ls("bot.cmd.status.name"), description=ls("bot.cmd.status.description"))
async def status(interaction: discord.Interaction) -> None:
    """The table as it stands, for your eyes only (the channel stays calm) and in your
    language, with a link to the live message; the outbox also checks that everything is
    shown."""
    lang = user_lang(interaction)
    session = bot_of(interaction).games.in_channel(interaction.channel_id or 0)
    if session is None:
        await answer(interaction, t("bot.refuse.no_game", lang))
        return
    await interaction.response.defer(ephemeral=True, thinking=True)
    bot_of(interaction).show(session.id)
    if session.status == "lobby":
        post = lobby_post(session, lang)
        await interaction.followup.send(embed=or_missing(embed_of(post, image=False)),
                                        ephemeral=True)
        return
    want = desired(session, bot_of(interaction).settings.clock(), {}, None, lang=lang)
    assert want.live is not None
    stored = (await bot_of(interaction).games.store.messages(session.id)).get("live")
    link = t("bot.status.link", lang, url=f"https://discord.com/channels/"
             f"{session.row.guild_id}/{stored.channel_id}/{stored.message_id}") \
        if stored and session.row.guild_id else ""
    await interaction.followup.send(link[:MAX_CONTENT] or discord.utils.MISSING,
                                    embed=or_missing(embed_of(want.live, image=False)),
                                    ephemeral=True)

@app_commands.command(name=ls("bot.cmd.threads.name"),
                      description=ls("bot.cmd.threads.description"))
@app_commands.describe(enabled=ls("bot.cmd.threads.enabled"))
@app_commands.default_permissions(manage_guild=True)
async def threads(interaction: discord.Interaction, enabled: bool) -> None:
    """Whether new games in this server get a thread of their own (Manage Server)."""
    lang = user_lang(interaction)
    if interaction.guild_id is None or not interaction.permissions.manage_guild:
        await answer(interaction, t("bot.error.not_allowed", lang))
        return
    await bot_of(interaction).games.store.set_threads_allowed(interaction.guild_id, enabled)
    text = t("bot.threads.on" if enabled else "bot.threads.off", lang)
    missing = await thread_lacking(interaction) if enabled else []
    if missing:
        text += "\n" + permission_text("bot.permission.threads_here", missing, lang)
    await answer(interaction, text)

@app_commands.command(name=ls("bot.cmd.abort.name"), description=ls("bot.cmd.abort.description"))
async def abort(interaction: discord.Interaction) -> None:
    """End the channel's game without a result (its creator or a server manager)."""
    perms = interaction.permissions
    try:
        session = await bot_of(interaction).games.abort(
            interaction.channel_id or 0, interaction.user.id, is_admin=perms.manage_guild)
    except Refusal as error:
        await answer(interaction, refusal_text(None, error, user_lang(interaction)))
        return
    await best_effort("announce an abort", interaction.response.send_message(
        t("bot.abort.done", session.row.language,
          game=game_name(session.row.game, session.row.language),
          who=interaction.user.mention)))


async def setup(bot: GameBot) -> None:
    """The commands above join the shared ``/game`` group."""
    command: app_commands.Command[Any, ..., None]
    for command in (new, status, threads, abort):
        _group.game.add_command(command, override=True)
