"""``python -m bot`` as a process against the stub Discord: the environment it runs with, how
long a start and a stop may take, and a wait that polls without sleeping longer than needed."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from tests.helpers.stub_discord import StubDiscord

START_WITHIN = 60.0
"""Seconds a bot may take to start (importing everything on a slow machine)."""

STOP_WITHIN = 5.0

POLL = 0.05


def bot_env(stub: StubDiscord, folder: Path, db_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("GUILD_ID", "BOT_LANGUAGE", "LOG_LEVEL", "SQLITE_SYNCHRONOUS")}
    env.update(stub.hook(folder))
    env.update(DISCORD_TOKEN="stub-token", GAMES_DB=str(db_path), SYNC_COMMANDS="no",
               LOG_LEVEL="INFO")
    return env


async def until(condition: object, what: str, within: float = START_WITHIN) -> None:
    """Poll ``condition()`` (tiny waits) until it is true, for at most ``within`` seconds."""
    assert callable(condition)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"not within {within} s: {what}")
        await asyncio.sleep(POLL)
