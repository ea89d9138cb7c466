"""Hosting: the discord.py adapter, the session host and the SQLite store.

``create_bot(settings)`` builds the whole bot without connecting; ``python -m bot`` runs it and the
tests hand it to the offline simulator.
"""

from __future__ import annotations

from bot.app import GameBot
from bot.settings import Settings


def create_bot(settings: Settings | None = None, serve: bool = True) -> GameBot:
    """The bot with its extensions, buttons, store and clock wired in; nothing connects yet.

    Without ``settings`` they are read from the environment (:meth:`Settings.from_env`). The
    store opens, games reload and slash commands sync when the bot logs in (``setup_hook``);
    ``serve=False`` builds only the slash commands then (to sync them and stop).
    """
    return GameBot(settings or Settings.from_env(), serve)


__all__ = ["GameBot", "Settings", "create_bot"]
