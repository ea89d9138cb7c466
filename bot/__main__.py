"""``python -m bot``: run the bot with settings from the environment."""

from __future__ import annotations

import logging
import sys

from bot import create_bot
from bot.settings import Settings

NO_TOKEN = """\
DISCORD_TOKEN is not set, so the bot cannot log in to Discord.

Get a token: open https://discord.com/developers/applications, create (or pick) an
application, open its "Bot" tab, press "Reset Token" and copy the token. Then run:

    DISCORD_TOKEN=<your token> python -m bot

Invite the bot with the OAuth2 URL generator (scopes "bot" and "applications.commands";
permissions "Send Messages", "Attach Files", "Embed Links").
Optional: GAMES_DB (default data/games.sqlite3), BOT_LANGUAGE (en, es, zh, ru; default en),
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
    bot = create_bot(settings)
    bot.run(settings.token, log_handler=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
