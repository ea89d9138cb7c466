"""``python -m bot adopt-application``: move the games to the Discord application the token logs
in as (the database belongs to the first one that logged in on it)."""

from __future__ import annotations

import asyncio
import sys

from bot import create_bot
from bot.cli.common import STORE_ERRORS, Refused, log_in, sole_bot, unusable, where
from bot.host.store import open_store
from bot.settings import Settings


def adopt(settings: Settings) -> int:
    """``adopt-application``: refused (2) while a bot runs on the SQLite file, as ``run``."""
    try:
        lock = sole_bot(settings)
    except Refused as refused:
        return refused.status
    try:
        return asyncio.run(adopt_application(settings))
    except STORE_ERRORS as exc:
        print(unusable(settings, exc), file=sys.stderr)
        return 1
    finally:
        if lock is not None:
            lock.release()


async def adopt_application(settings: Settings) -> int:
    """Log in over HTTP only (no gateway) to learn the token's application, and record it as
    the database's in place of the one recorded. The servers counted missing at the other
    application's starts are counted afresh: its list of servers said nothing of this one's."""
    assert settings.token is not None
    bot = create_bot(settings, serve=False)
    store = await open_store(settings.database, settings.clock,
                             synchronous=settings.sqlite_synchronous,
                             pool_size=settings.pool_size)
    try:
        async with bot:
            try:
                await log_in(bot, settings.token)
            except Refused as refused:
                return refused.status
            assert bot.application_id is not None, "known once logged in"
            new = bot.application_id
            old = await store.set_application(new)
            if old != new:
                for guild_id in await store.absences():
                    await store.clear_absence(guild_id)
    finally:
        await store.close()
    name = where(settings.database)
    if old == new:
        print(f"the games database {name} belongs to Discord application {new} already")
    elif old is None:
        print(f"the games database {name} now belongs to Discord application {new}")
    else:
        print(f"the games database {name} now belongs to Discord application {new} (it "
              f"belonged to application {old}); invite application {new} to the servers "
              "the games are in, then start the bot")
    return 0


__all__ = ["adopt", "adopt_application"]
