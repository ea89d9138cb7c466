"""The bot class: owns the store, the session host, the outbox and the settings; loads the
extensions."""

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

log = logging.getLogger(__name__)


class GameTree(app_commands.CommandTree):
    """Sends every slash-command error to the central handler."""

    async def on_error(self, interaction: discord.Interaction,
                       error: app_commands.AppCommandError) -> None:
        await _answer.report(interaction, error)


class GameBot(commands.Bot):
    """A Discord bot hosting board games per channel. Build it with :func:`bot.create_bot`."""

    def __init__(self, settings: Settings) -> None:
        intents = discord.Intents.default()
        super().__init__(command_prefix=commands.when_mentioned, intents=intents,
                         tree_cls=GameTree, help_command=None,
                         allowed_mentions=discord.AllowedMentions.none())
        self.settings = settings
        self.store: Store | None = None
        self.host: Host | None = None
        self.outbox = Outbox(self)
        self.unexpected_errors: list[BaseException] = []
        """Errors the central handler saw (tests assert it stays empty)."""

    async def setup_hook(self) -> None:
        """Open the store, reload every game, register commands and persistent components."""
        self.store = await Store.open(self.settings.db_path, self.settings.clock)
        self.host = Host(self.store, self.settings.seed_source)
        await self.host.load()
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
