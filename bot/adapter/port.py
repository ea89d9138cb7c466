"""What the adapter needs of the bot that builds it: the host, the settings, the renders, the
languages, the metrics and Discord's caches. A Protocol, so that the adapter never imports the
app (whose bot class has all of this); the imports of ``bot/`` stay free of circles
even at type level."""

from __future__ import annotations

from typing import Any, Protocol

import discord
from discord import app_commands

from bot.host.sessions import Host
from bot.metrics import Metrics
from bot.settings import Settings
from bot.table import Post
from bot.table.pool import RenderPool


class App(Protocol):
    """The bot as the outbox, the components and the cogs' shared code see it."""

    settings: Settings
    metrics: Metrics
    renders: RenderPool
    languages: dict[int, str]
    """User id -> the language of their private messages (theirs once known)."""

    @property
    def games(self) -> Host:
        """The session host (available once the bot has started)."""
        ...

    @property
    def tree(self) -> app_commands.CommandTree[Any]:
        """The slash commands (``/game help`` lists them)."""
        ...

    def shows(self, guild_id: int | None) -> bool:
        """Whether this process shows the games of that server."""
        ...

    def show(self, game_id: int) -> None:
        """Have the game shown as stored now, soon."""
        ...

    async def adopt(self, game_id: int, slot: str, message: discord.Message,
                    post: Post) -> None:
        """A message an interaction posted itself: kept up to date from now on."""
        ...

    def language_of(self, user_id: int, fallback: str) -> str:
        """The language of private messages to this user."""
        ...

    def get_guild(self, id: int, /) -> discord.Guild | None: ...

    def get_user(self, id: int, /) -> discord.User | None: ...

    def get_channel(self, id: int, /) -> (discord.abc.GuildChannel | discord.Thread
                                          | discord.abc.PrivateChannel | None): ...

    async def fetch_channel(self, channel_id: int, /) -> (
        discord.abc.GuildChannel | discord.abc.PrivateChannel | discord.Thread): ...

    async def fetch_user(self, user_id: int, /) -> discord.User: ...
