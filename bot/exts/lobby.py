"""``/game new | status | abort | threads``: opening a lobby, a private look at the table, and
ending a game. The lobby card's buttons are :class:`bot.adapter.items.LobbyButton`; what the card
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

import inspect
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.adapter.act import best_effort, bot_of, user_lang
from bot.adapter.answer import answer, answers_refusals
from bot.adapter.items import embed_of, lobby_view, or_missing
from bot.constants import MAX_CONTENT, NEEDED_PERMISSIONS, THREAD_PERMISSIONS
from bot.exts import _group
from bot.games import playable
from bot.host.sessions import option_refusal
from bot.table import desired, lobby_post
from bot.table.words import game_name
from bot.translator import ls
from render.i18n import LANGUAGES, join, t
from render.i18n import NAMES as LANGUAGE_NAMES
from render.i18n import language as i18n_language
from rules.ai import LEVELS
from rules.registry import entries, game_module

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


SLASH_MOST = 1000
"""The greatest value ``/game new`` offers for a number option without a maximum of its own."""


@dataclass(frozen=True)
class Flag:
    """A game option offered as a parameter of ``/game new``: a yes/no, or a whole number in a
    range that covers every game offering it (each game's own range is checked afterwards)."""

    name: str
    kind: str
    minimum: int = 0
    maximum: int = SLASH_MOST

    def annotation(self) -> Any:
        if self.kind == "bool":
            return bool | None
        return app_commands.Range[int, self.minimum, self.maximum] | None

    def given(self, value: Any) -> str:
        """The value chosen in the slash command as an option's text."""
        return ("yes" if value else "no") if self.kind == "bool" else str(value)


def lobby_flags() -> list[Flag]:
    """The game options ``/game new`` offers: each playable game's lobby options (its registry
    entry's), in the registry's order, one parameter per name."""
    flags: dict[str, Flag] = {}
    for game in entries():
        if not game.playable:
            continue
        for option in game.lobby_options():
            most = getattr(option, "maximum", None)
            flag = Flag(option.name, option.kind, option.minimum,
                        SLASH_MOST if most is None else most)
            known = flags.get(option.name)
            if known is not None and known.kind != flag.kind:
                raise ValueError(f"the option {option.name!r} is a {known.kind} in one game"
                                 f" and a {flag.kind} in another")
            if known is not None:
                flag = Flag(flag.name, flag.kind, min(known.minimum, flag.minimum),
                            max(known.maximum, flag.maximum))
            flags[option.name] = flag
    return list(flags.values())


def new_command() -> app_commands.Command[Any, ..., None]:
    """``/game new``, its parameters generated from the registry: the game, the options the
    games declare for their lobby (:func:`lobby_flags`), then the AI, the turn's minutes, more
    options as words and the language. Built when the extension loads, so a game registered
    before the bot starts is offered with its options."""
    flags = lobby_flags()

    async def new(interaction: discord.Interaction, game: str, ai: str = "greedy",
                  turn_minutes: int | None = None, options: str | None = None,
                  language: str | None = None, **chosen: Any) -> None:
        """Open a lobby: the creator takes the first seat; others join with the button."""
        given = {flag.name: flag.given(chosen[flag.name]) for flag in flags
                 if chosen.get(flag.name) is not None}
        await open_lobby(interaction, command, game, given, ai, turn_minutes, options,
                         language)

    plain = inspect.Parameter.POSITIONAL_OR_KEYWORD
    new.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter("interaction", plain, annotation=discord.Interaction),
        inspect.Parameter("game", plain, annotation=str),
        *(inspect.Parameter(flag.name, plain, default=None, annotation=flag.annotation())
          for flag in flags),
        inspect.Parameter("ai", plain, default="greedy", annotation=str),
        inspect.Parameter("turn_minutes", plain, default=None,
                          annotation=app_commands.Range[int, 1, 10080] | None),
        inspect.Parameter("options", plain, default=None, annotation=str | None),
        inspect.Parameter("language", plain, default=None, annotation=str | None)])
    described = ["game", *(flag.name for flag in flags), "ai", "turn_minutes", "options",
                 "language"]
    app_commands.describe(**{name: ls(f"bot.cmd.new.{name}") for name in described})(new)
    app_commands.choices(
        game=[app_commands.Choice(name=game_name(g, "en"), value=g) for g in playable()],
        ai=[app_commands.Choice(name=ls(f"term.ai.{level}"), value=level) for level in LEVELS],
        language=[app_commands.Choice(name=f"{LANGUAGE_NAMES[lang]} ({lang})", value=lang)
                  for lang in LANGUAGES])(new)
    command: app_commands.Command[Any, ..., None] = app_commands.command(
        name=ls("bot.cmd.new.name"), description=ls("bot.cmd.new.description"))(new)
    return command


@answers_refusals


async def open_lobby(interaction: discord.Interaction,
                     command: app_commands.Command[Any, ..., None], game: str,
                     given: dict[str, str], ai: str, turn_minutes: int | None,
                     options: str | None, language: str | None) -> None:
    """Open a lobby with the options chosen as parameters (``given``) and typed in
    ``options``: the creator takes the first seat; others join with the button."""
    typed: dict[str, Any] = {}
    for word in (options or "").split():
        key, _, value = word.partition("=")
        typed[key.lower()] = value
    given = {**typed, **given}
    lang = user_lang(interaction)
    missing = lacking(interaction, needed_here(interaction))
    if missing:
        await answer(interaction, permission_text("bot.permission.missing", missing, lang))
        return
    no_thread = await thread_lacking(interaction)
    check_ranges(game, typed, slash_ranges(command))
    session = await bot_of(interaction).games.create(
        channel_id=interaction.channel_id or 0, guild_id=interaction.guild_id,
        game=game, options=given, creator_id=interaction.user.id,
        language=language or server_language(
            interaction, bot_of(interaction).settings.language), ai_level=ai,
        creator_name=interaction.user.display_name,
        turn_seconds=turn_minutes * 60 if turn_minutes else None)
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


new = new_command()
"""``/game new`` as the built-in games make it (the extension builds it afresh when it loads)."""

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
@answers_refusals
async def abort(interaction: discord.Interaction) -> None:
    """End the channel's game without a result (its creator or a server manager)."""
    perms = interaction.permissions
    session = await bot_of(interaction).games.abort(
        interaction.channel_id or 0, interaction.user.id, is_admin=perms.manage_guild)
    await best_effort("announce an abort", interaction.response.send_message(
        t("bot.abort.done", session.row.language,
          game=game_name(session.row.game, session.row.language),
          who=interaction.user.mention)))


async def setup(bot: GameBot) -> None:
    """The commands above join the shared ``/game`` group."""
    command: app_commands.Command[Any, ..., None]
    for command in (new_command(), status, threads, abort):
        _group.game.add_command(command, override=True)
