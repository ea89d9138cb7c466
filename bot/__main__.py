"""``python -m bot [run|check|sync|backup PATH|health|migrate-store|adopt-application]``: run
the bot, or look after it, with settings from the environment (``bot.settings.VARIABLES``);
``migrate-store`` is told its two databases on the command line instead. ``python -m bot
--version`` names the installed package and its version.

Exit status: 0 done (or, for ``check`` and ``health``, all is well), 1 a problem was found or
an operation failed, 2 a setting is missing or bad, another bot runs on the database, or the
token logs in as another Discord application than the one the database belongs to (``health``
exits 1 then: container health checks know only 0 and 1).

Each command lives in a module of its own under :mod:`bot.cli`; this one parses the command
line and hands over.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import discord

from bot import logs
from bot.app import INVITE_PERMISSIONS
from bot.cli.application import adopt
from bot.cli.backups import backup_to, migrate
from bot.cli.check import check
from bot.cli.common import shards_of
from bot.cli.health import health, health_postgres
from bot.cli.run import run
from bot.cli.sync import sync
from bot.settings import VARIABLES, BadSettings, Settings

DISTRIBUTION = "rapanui-games"
"""The package's name as pip installs it (pyproject.toml), whose version ``--version`` shows."""

NO_TOKEN = f"""\
DISCORD_TOKEN is not set, so the bot cannot log in to Discord.

Get a token: open https://discord.com/developers/applications, create (or pick) an
application, open its "Bot" tab, press "Reset Token" and copy the token. Then run:

    DISCORD_TOKEN=<your token> python -m bot

Invite the bot with the OAuth2 URL generator (scopes "bot" and "applications.commands";
permissions "View Channels", "Send Messages", "Embed Links", "Attach Files",
"Read Message History", "Create Public Threads", "Send Messages in Threads": the
permission integer {INVITE_PERMISSIONS.value}).
Optional: {", ".join(v.name for v in VARIABLES if v.name != "DISCORD_TOKEN")}
(see docs/ADMIN.md, "Configuration"; `python -m bot check` checks them).
"""
COMMANDS = {
    "run": "run the bot (the default): until SIGTERM or SIGINT, then stop cleanly",
    "check": "check settings, database, catalogues and fonts without reaching Discord",
    "sync": "upload the slash commands (globally, or to GUILD_ID), or remove them (--clear)",
    "backup": "write an online copy of the SQLite games database to PATH (safe while the bot "
              "runs)",
    "health": "exit 0 while the running bot's heartbeat in the database is fresh, else 1 "
              "(PostgreSQL: the bot on this host)",
    "migrate-store": "copy every game from a SQLite file into an empty PostgreSQL database, "
                     "then check that each one replays to its snapshot there",
    "adopt-application": "move the games to the Discord application DISCORD_TOKEN logs in as "
                         "(the database belongs to the first one that logged in on it)",
}


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m bot", description="The Rapa Nui games bot for Discord. Settings come "
        "from environment variables (docs/ADMIN.md, \"Configuration\").")
    top.add_argument("--version", action="version", version=version(),
                     help="show the installed package and its version, and exit")
    sub = top.add_subparsers(dest="command", metavar="{" + ",".join(COMMANDS) + "}",
                             title="commands (run when none is given)")
    for name, help_text in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        if name == "sync":
            command.add_argument("--clear", action="store_true",
                                 help="remove the slash commands globally and from every "
                                 "server they were copied to")
        if name == "backup":
            command.add_argument("path", type=Path, metavar="PATH",
                                 help="the file to write (not the database itself)")
            command.add_argument("--force", action="store_true",
                                 help="replace PATH if it exists")
        if name == "migrate-store":
            command.add_argument("--from", dest="source", required=True, metavar="SQLITE",
                                 help="the bot's SQLite database: sqlite:///path, or a path "
                                 "(stop the bot first)")
            command.add_argument("--to", dest="target", required=True, metavar="POSTGRESQL",
                                 help="an empty PostgreSQL database: postgresql://…")
    return top


def version() -> str:
    """``rapanui-games 0.1.0``: what pip installed (an admin asks it when reporting a bug or
    before an upgrade); a source tree that was never installed says so instead."""
    try:
        return f"{DISTRIBUTION} {metadata.version(DISTRIBUTION)}"
    except metadata.PackageNotFoundError:
        return f"{DISTRIBUTION} (not installed: pip install . first)"


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    command = args.command or "run"
    if command == "check":
        return check()
    if command == "migrate-store":
        return migrate(args.source, args.target)
    try:
        settings = Settings.from_env()
    except BadSettings as exc:
        for line in exc.problems:
            print(line, file=sys.stderr)
        return 1 if command == "health" else 2  # a health check knows 0 and 1 only
    if command == "backup":
        return backup_to(settings, args.path, args.force)
    if command == "health":
        path = settings.sqlite_path
        status, line = (health(path, settings.clock) if path is not None else
                        health_postgres(str(settings.database), settings.clock,
                                        socket.gethostname(), shards_of(settings)))
        print(line)
        return status
    if not settings.token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    logs.configure(settings.log_level, settings.log_format, settings.discord_log_level)
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # no voice here
    if command == "sync":
        return asyncio.run(sync(settings, args.clear))
    if command == "adopt-application":
        return adopt(settings)
    return run(settings)


if __name__ == "__main__":
    sys.exit(main())
