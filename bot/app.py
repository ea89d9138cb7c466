"""The bot class: owns the store, the session host, the outbox and the settings; loads the
extensions; remembers each user's language from every interaction."""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.exts import _answer, _group
from bot.exts._items import ITEMS
from bot.exts._outbox import Outbox
from bot.host.sessions import Host
from bot.host.store import Store
from bot.settings import Settings
from bot.translator import CatalogueTranslator
from render import assets
from render.i18n import language

log = logging.getLogger(__name__)


class GameTree(app_commands.CommandTree):
    """Sends every slash-command error to the central handler."""

    async def on_error(self, interaction: discord.Interaction,
                       error: app_commands.AppCommandError) -> None:
        await _answer.report(interaction, error)


def game_intents() -> discord.Intents:
    """Exactly the gateway events the bot uses: servers and their channels (``guilds``),
    choices typed in DMs (``dm_messages``: a DM's text needs no privileged intent) and a
    table message deleted by hand (``guild_messages``, for ``on_raw_message_delete``)."""
    return discord.Intents(guilds=True, dm_messages=True, guild_messages=True)


class GameBot(commands.Bot):
    """A Discord bot hosting board games per channel. Build it with :func:`bot.create_bot`.

    A ``commands.Bot`` for its extensions and cogs, but without prefix commands: messages are
    never read as commands (:meth:`on_message`), so a mention of the bot is just a message."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(command_prefix=(), intents=game_intents(),
                         tree_cls=GameTree, help_command=None,
                         allowed_mentions=discord.AllowedMentions.none())
        self.settings = settings
        self.store: Store | None = None
        self.host: Host | None = None
        self.outbox = Outbox(self)
        self.unexpected_errors: list[BaseException] = []
        """Errors the central handler saw (tests assert it stays empty)."""
        self.languages: dict[int, str] = {}
        """User id -> the language of their Discord locale at their latest interaction (as
        stored): every private message to them speaks it. A user missing here has not
        interacted yet; their private messages speak the game's language."""

    async def setup_hook(self) -> None:
        """Check the shipped data, open the store, reload every game, register commands and
        persistent components. Missing or broken data (a catalogue, a font, a board) stops the
        start with a RuntimeError naming each problem, before anything else happens."""
        problems = assets.problems()
        if problems:
            raise RuntimeError("the shipped data is broken: " + "; ".join(problems))
        self.store = await Store.open(self.settings.db_path, self.settings.clock)
        self.host = Host(self.store, self.settings.seed_source)
        await self.host.load()
        self.languages = {user: language(lang)
                          for user, lang in (await self.store.user_languages()).items()}
        await self.tree.set_translator(CatalogueTranslator())
        self.add_dynamic_items(*ITEMS)
        for extension in self.settings.extensions:
            await self.load_extension(extension)
        if self.tree.get_command(_group.game.name) is None:
            self.tree.add_command(_group.game)
        if self.settings.sync_commands:
            guild = discord.Object(self.settings.guild_id) if self.settings.guild_id else None
            if guild is not None:
                self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Every interaction (command, autocomplete, button, select, modal) tells the user's
        language: remembered at once in memory, before anything the interaction's handler
        sends out (this runs ahead of the tasks it schedules, the outbox's included), and
        written to the store only when it changed."""
        lang = language(str(interaction.locale))
        user = interaction.user.id
        if self.languages.get(user) == lang:
            return
        self.languages[user] = lang
        if self.store is None:
            return
        try:
            await self.store.set_user_language(user, lang)
        except Exception:
            log.exception("could not store the language of user %s", user)

    async def on_message(self, message: discord.Message, /) -> None:
        """No prefix commands: the cogs' own listeners (typed DMs) see every message."""

    def language_of(self, user_id: int, fallback: str) -> str:
        """The language of private messages to this user: theirs once known, else ``fallback``
        (the game's language)."""
        return self.languages.get(user_id, fallback)

    async def close(self) -> None:
        await super().close()
        if self.store is not None:
            await self.store.close()
            self.store = None

    @property
    def games(self) -> Host:
        """The session host (available once the bot has started)."""
        assert self.host is not None, "the bot has not started yet"
        return self.host
