"""``python -m bot health``: exit 0 while the running bot's heartbeat in the database is fresh,
else 1 (PostgreSQL: the bot on this host)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from bot.cli.common import STORE_ERRORS, ago, with_shards
from bot.constants import HEARTBEAT, HEARTBEAT_STALE
from bot.host.clock import Clock
from bot.host.store import Heartbeat, read_heartbeats, read_postgres_heartbeats, shard_list
from bot.settings import redacted


def health(db_path: Path, clock: Clock) -> tuple[int, str]:
    """(0, "ok: ...") while a heartbeat is fresher than :data:`HEARTBEAT_STALE` intervals,
    else (1, "down: ..." or "stale: ..."). Reads the database without creating it."""
    try:
        beats = read_heartbeats(db_path)
    except sqlite3.Error as exc:
        return 1, f"down: cannot read {db_path} ({exc})"
    if not beats:
        return 1, "down: no heartbeat"
    return fresh(beats[0], clock)


def health_postgres(url: str, clock: Clock, host: str,
                    shards: tuple[int, tuple[int, ...]] | None = None) -> tuple[int, str]:
    """:func:`health` for a PostgreSQL database that several bots share: the latest heartbeat
    of a bot on ``host`` (a container's health check runs beside its bot) that runs these
    ``shards`` (count and numbers, as the settings say; None: any)."""
    try:
        beats = asyncio.run(read_postgres_heartbeats(url))
    except STORE_ERRORS as exc:
        return 1, f"down: cannot read {redacted(url)} ({exc})"
    mine = [beat for beat in beats if beat.host == host]
    if shards is not None:
        count, ids = shards
        mine = [beat for beat in mine if (beat.shard_count, beat.shard_ids) == (count, ids)]
        if not mine:
            return 1, f"down: no heartbeat from {host} for shards {shard_list(ids)} of {count}"
    if not mine:
        return 1, f"down: no heartbeat from {host}"
    return fresh(mine[0], clock)


def fresh(beat: Heartbeat, clock: Clock) -> tuple[int, str]:
    age = beat.age(clock())
    if age > HEARTBEAT * HEARTBEAT_STALE:
        return 1, (f"stale: last heartbeat {ago(age)} ago (pid {beat.pid} on "
                   f"{beat.host}{with_shards(beat)})")
    return 0, (f"ok: bot pid {beat.pid} on {beat.host}{with_shards(beat)}, heartbeat "
               f"{ago(age)} ago")


def is_fresh(beat: Heartbeat, clock: Clock) -> bool:
    return beat.age(clock()) <= HEARTBEAT * HEARTBEAT_STALE


__all__ = ["fresh", "health", "health_postgres", "is_fresh"]
