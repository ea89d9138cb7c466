"""``python -m bot sync [--clear]``: upload the slash commands (globally, or to ``GUILD_ID``),
or remove them, over HTTP only."""

from __future__ import annotations

import sys

from bot import create_bot
from bot.application import WrongApplication, belongs
from bot.cli.common import STORE_ERRORS, Refused, log_in, unusable, wrong_application
from bot.host.store import open_store
from bot.settings import Settings


async def sync(settings: Settings, clear: bool) -> int:
    """Log in over HTTP only (no gateway), upload or clear the slash commands, log out."""
    assert settings.token is not None
    bot = create_bot(settings, serve=False)
    try:
        store = await open_store(settings.database, settings.clock,
                                 synchronous=settings.sqlite_synchronous,
                                 pool_size=settings.pool_size)
    except STORE_ERRORS as exc:
        print(unusable(settings, exc), file=sys.stderr)
        return 1
    try:
        async with bot:
            try:
                await log_in(bot, settings.token)
            except Refused as refused:
                return refused.status
            assert bot.application_id is not None, "known once logged in"
            try:
                await belongs(store, bot.application_id)
            except WrongApplication as exc:
                print(wrong_application(exc), file=sys.stderr)
                return 2
            report = await bot.sync_commands(store, clear=clear)
    finally:
        await store.close()
    for where in report.cleared:
        print(f"removed the slash commands {where_name(where)}")
    for where in report.uploaded:
        print(f"uploaded the slash commands {where_name(where)}")
    for failure in report.failed:
        print(f"failed: {failure}", file=sys.stderr)
    if report.uploaded == ["global"]:
        print("global commands can take a while to appear in every server")
    return 1 if report.failed else 0


def where_name(where: str) -> str:
    return "globally" if where == "global" else f"in server {where}"


__all__ = ["sync"]
