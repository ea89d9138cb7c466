"""Hosting: the discord.py adapter, the session host and the SQLite store.

``create_bot(settings)`` builds the whole bot without connecting; ``python -m bot`` runs it and the
tests hand it to the offline simulator.
"""

from __future__ import annotations

from bot.app import GameBot, ShardedGameBot
from bot.settings import Settings


def create_bot(settings: Settings | None = None, serve: bool = True) -> GameBot:
    """The bot with its extensions, buttons, store and clock wired in; nothing connects yet.

    Without ``settings`` they are read from the environment (:meth:`Settings.from_env`). The
    store opens, games reload and slash commands sync when the bot logs in (``setup_hook``);
    ``serve=False`` builds only the slash commands then (to sync them and stop). With a shard
    count in the settings the bot is a :class:`ShardedGameBot` on those shards (``SHARD_IDS``
    of them, or all); without one it is a plain :class:`GameBot`, one connection.
    """
    settings = settings or Settings.from_env()
    kind = ShardedGameBot if settings.shard_count is not None else GameBot
    return kind(settings, serve)


__all__ = ["GameBot", "Settings", "ShardedGameBot", "create_bot"]
