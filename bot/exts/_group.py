"""The ``/game`` command group, shared: each extension adds its own subcommands to it in its
``setup`` (the lobby's ``new``, ``status``, ``abort``, ``threads``; seats; pace; information...),
and the bot registers the group once, after every extension is loaded."""

from __future__ import annotations

from discord import app_commands

from bot.translator import ls

game = app_commands.Group(name=ls("bot.cmd.game.name"), description=ls("bot.cmd.game.description"),
                          guild_only=True)
