"""The bot that simcord drives offline, and what a player sees of it.

A pytest plugin (``tests/conftest.py`` names it): ``settings`` (a bot on a fresh SQLite
database, with a manual clock and seeds counted from 7), ``new_bot`` (bots on those settings,
one per restart, their stores closed at the end) and ``simcord_bot`` (the first of them, which
simcord's ``simcord_env`` starts). The functions read the calm table as a player does: the
bot's own messages, the one live table, the DMs and their prompt."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest

from bot import create_bot
from bot.app import GameBot
from bot.host.clock import ManualClock
from bot.settings import Settings


def make_settings(db_path: Path, first_seed: int = 7) -> Settings:
    seeds = itertools.count(first_seed)
    return Settings(db_path=db_path, clock=ManualClock(), seed_source=lambda: next(seeds),
                    render_workers=0)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path / "games.sqlite3")


class Bots:
    """Builds bots on one database and closes their stores at the end: the simulator does not
    call ``close()``, and an open SQLite connection keeps its worker thread alive."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.made: list[GameBot] = []

    def __call__(self) -> GameBot:
        """A new bot, for a restart: the previous ones no longer show anything (a process that
        was replaced runs no more, but the simulator leaves the old bot and its store open, and
        on PostgreSQL the old store would still hear the new bot's changes)."""
        for old in self.made:
            old.outbox.stopped = True
        bot = create_bot(self.settings)
        self.made.append(bot)
        return bot

    async def close(self) -> None:
        for bot in self.made:
            bot.thinking.close()  # the strong AI's workers, if a test made any
            if bot.store is not None:
                await bot.store.close()
                bot.store = None


@pytest.fixture
async def new_bot(settings: Settings) -> AsyncIterator[Bots]:
    bots = Bots(settings)
    yield bots
    await bots.close()


@pytest.fixture
def simcord_bot(new_bot: Bots) -> GameBot:
    return new_bot()


def mine(env, messages) -> list[discord.Message]:
    """The bot's own non-ephemeral messages among ``messages``."""
    return [m for m in messages if m.author.id == env.bot.user.id and not m.flags.ephemeral]


def places(channel) -> list:
    """The game's channel and its threads (a game lives in a thread under its lobby card)."""
    return [channel, *channel.threads]


def table_messages(env, channel) -> list[discord.Message]:
    """Every bot message in the channel and its threads, oldest first per place."""
    return [m for place in places(channel) for m in mine(env, place.history())]


def live_components(message: discord.Message) -> list:
    return [c for row in message.components for c in getattr(row, "children", [])
            if not getattr(c, "disabled", False)]


def live_table(env, channel) -> discord.Message:
    """The one table message that carries live components (the current stage's)."""
    live = [m for m in table_messages(env, channel) if live_components(m) and m.embeds
            and any(a.filename == "board.png" for a in m.attachments)]
    assert len(live) == 1, f"{len(live)} live table messages"
    return live[0]


def home(channel):
    """Where the table lives: the game's thread, else the channel."""
    return channel.threads[-1] if channel.threads else channel


def custom_ids(message: discord.Message) -> list[str]:
    return [c.custom_id for row in message.components for c in getattr(row, "children", [])
            if getattr(c, "custom_id", None)]


def dm_messages(env, member) -> list[discord.Message]:
    return mine(env, member.user.dm_channel.history())


def dm_prompt(env, member) -> discord.Message | None:
    """The member's DM message with live components (the prompt of a secret decision)."""
    live = [m for m in dm_messages(env, member) if live_components(m)]
    assert len(live) <= 1, "at most one live DM message per player"
    return live[0] if live else None


def close_dms(env, member) -> None:
    """The member refuses DMs from server members: Discord answers 403, code 50007."""
    env.inject_error("POST", f"/channels/{member.user.dm_channel.id}/messages", status=403,
                     code=50007, message="Cannot send messages to this user", times=None)


def embed_of(result) -> discord.Embed:
    """The one embed an answer shows, which only the asker sees."""
    message = (result.followups or [result.response])[-1]
    assert message is not None and message.ephemeral, result
    assert result.ephemeral
    [embed] = message.embeds
    return embed
