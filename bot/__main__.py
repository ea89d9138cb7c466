"""``python -m bot``: run the bot with settings from the environment."""

from __future__ import annotations

import logging
import sys

import aiohttp
import discord

from bot import create_bot
from bot.settings import Settings

NO_TOKEN = """\
DISCORD_TOKEN is not set, so the bot cannot log in to Discord.

Get a token: open https://discord.com/developers/applications, create (or pick) an
application, open its "Bot" tab, press "Reset Token" and copy the token. Then run:

    DISCORD_TOKEN=<your token> python -m bot

Invite the bot with the OAuth2 URL generator (scopes "bot" and "applications.commands";
permissions "View Channels", "Send Messages", "Embed Links", "Attach Files",
"Read Message History", "Create Public Threads", "Send Messages in Threads": the
permission integer 309237763072).
Optional: GAMES_DB (default data/games.sqlite3), BOT_LANGUAGE (en, es, zh, zh-TW, ru; default en),
LOG_LEVEL (default INFO), GUILD_ID (sync commands to one server only, instantly).
"""


def main() -> int:
    """Exit status 2 when a setting is missing or bad, so a service manager reports it."""
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        print(f"bad setting: {exc}", file=sys.stderr)
        return 2
    if not settings.token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # no voice here
    bot = create_bot(settings)
    try:
        bot.run(settings.token, log_handler=None)
    except discord.LoginFailure:
        print("Discord refused DISCORD_TOKEN: reset the token in the Developer Portal's "
              "Bot tab and set the new one.", file=sys.stderr)
        return 2
    except aiohttp.ClientConnectionError as exc:
        print(f"cannot reach Discord ({exc}); check the network and try again.",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
