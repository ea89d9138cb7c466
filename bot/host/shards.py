"""Which bot process shows a game when several share one store: the one connected to the
shard that the game's server is on.

Discord sends each server's events (its slash commands, buttons, channel messages) to one
shard, ``(server id >> 22) % shard count``, and every DM to shard 0. The process holding a
server's shard answers its commands, so it also owns the game's messages: the table in the
channel, and the players' DMs too (a DM may be sent from any process, but two processes
reconciling the same DM slot could both post it). A move may still be applied by another
process (a DM choice arrives at shard 0's): the store tells the showing one, which shows it.
"""

from __future__ import annotations

from collections.abc import Collection


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard a server's events come on (Discord's rule); shard 0 for a game outside any
    server, whose messages are all DMs."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


def shows(guild_id: int | None, shard_count: int | None,
          shard_ids: Collection[int] | None) -> bool:
    """Whether the process that runs ``shard_ids`` of ``shard_count`` shards shows the games
    of this server. One shard, or every shard (``shard_ids`` None): every game."""
    if shard_count is None or shard_count < 2 or shard_ids is None:
        return True
    return shard_of(guild_id, shard_count) in shard_ids


__all__ = ["shard_of", "shows"]
