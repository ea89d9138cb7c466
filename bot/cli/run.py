"""``python -m bot run`` (the default): the bot, until SIGTERM or SIGINT stops it cleanly."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import aiohttp
import discord

from bot import create_bot
from bot.application import WrongApplication
from bot.cli.common import (
    REFUSED_TOKEN,
    STORE_ERRORS,
    Refused,
    sole_bot,
    unusable,
    wrong_application,
)
from bot.constants import CLOSE_WITHIN
from bot.host import memory
from bot.settings import Settings
from bot.web import CannotServe

log = logging.getLogger("bot")


def run(settings: Settings) -> int:
    """The bot until a signal stops it; refused (2) while another bot runs on the SQLite file
    (PostgreSQL takes no instance lock: several bots may share one database)."""
    try:
        lock = sole_bot(settings)
    except Refused as refused:
        return refused.status
    memory.collect_less()
    try:
        return asyncio.run(serve(settings))
    except CannotServe as exc:
        print(f"{exc}: choose another HTTP_PORT, or stop what uses it", file=sys.stderr)
        return 1
    except STORE_ERRORS as exc:
        print(unusable(settings, exc), file=sys.stderr)
        return 1
    finally:
        if lock is not None:
            lock.release()


async def serve(settings: Settings) -> int:
    """Run the bot; SIGTERM and SIGINT close it (:meth:`GameBot.close`) and it returns 0.

    The stop is bounded whatever Discord's state: the close (the outbox's drain, the store)
    gets :data:`CLOSE_WITHIN` seconds, and the connection loop, which during an outage sleeps
    out discord.py's reconnect back-off (or waits a minute for a gateway that does not
    answer), is cancelled once the close is done rather than waited for."""
    assert settings.token is not None
    bot = create_bot(settings)
    loop = asyncio.get_running_loop()
    received: list[str] = []
    stopping: set[asyncio.Task[None]] = set()
    connection: list[asyncio.Task[None]] = []

    async def bounded_stop() -> None:
        closing = asyncio.ensure_future(bot.close())
        done, _ = await asyncio.wait({closing}, timeout=CLOSE_WITHIN)
        if not done:
            log.warning("the close took more than %s s; stopping without waiting for it",
                        CLOSE_WITHIN)
        elif closing.exception() is not None:
            log.error("the close failed: %r", closing.exception())
        if connection and not connection[0].done():
            await asyncio.wait(connection, timeout=CONNECTION_GRACE)
            connection[0].cancel()  # still reconnecting: Discord is unreachable

    def stop(signum: signal.Signals) -> None:
        if received:
            log.info("%s: already stopping", signum.name)
            return
        received.append(signum.name)
        log.info("%s: stopping", signum.name)
        task = loop.create_task(bounded_stop(), name="stop")
        stopping.add(task)
        task.add_done_callback(stopping.discard)

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop, signum)
    try:
        async with bot:
            connection.append(loop.create_task(bot.start(settings.token), name="discord"))
            await asyncio.wait(connection)
            if connection[0].cancelled():
                log.info("the connection to Discord was given up while reconnecting")
            else:
                connection[0].result()  # what it raised, if anything
            if stopping:  # a signal: the stop bounds the close
                await asyncio.wait(stopping)
            elif not received:  # Discord closed the connection: the rest of the stop
                await bot.close()
    except discord.LoginFailure:
        print(REFUSED_TOKEN, file=sys.stderr)
        return 2
    except WrongApplication as exc:
        print(wrong_application(exc), file=sys.stderr)
        return 2
    except aiohttp.ClientConnectionError as exc:
        if received:  # stopped while it was still connecting
            log.info("stopped on %s", received[0])
            return 0
        print(f"cannot reach Discord ({exc}); check the network and try again.",
              file=sys.stderr)
        return 1
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
    log.info("stopped on %s", received[0] if received else "Discord closing the connection")
    return 0


CONNECTION_GRACE = 0.5
"""Seconds the connection loop gets to end by itself after a close (a connected bot's does at
once) before it is cancelled."""


__all__ = ["CONNECTION_GRACE", "run", "serve"]
