"""Watching the table's home: a message deleted by hand (a moderator tidying up) comes back, a
deleted thread moves the table, and a change of permissions lets a refusing channel be tried
again at once.

The outbox only edits what it remembers; when Discord says a remembered message is gone, the
game forgets it and the outbox shows the table again, so a game is never left without its live
message and buttons. A deleted lobby card is forgotten at once (a lobby's is posted again,
see :meth:`Outbox.lost_card`), never edited again. A deleted thread (``THREAD_DELETE``, which
the ``guilds`` intent carries) has the outbox open a new one and show the table there
(:meth:`Outbox.lost_home`). A channel's or a role's update (the ``guilds`` intent too) ends the
wait of the channels that refused the bot (:mod:`bot.adapter.refusals`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)

KEPT = ("live", "final", "dm_note")
"""Slots shown again after a deletion; a deleted ping or note is only forgotten, a deleted
lobby card too once the game has started."""


class Watch(commands.Cog):
    def __init__(self, bot: GameBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        store = self.bot.games.store
        found = await store.slot_of(payload.message_id)
        if found is None:
            return
        game_id, slot = found
        log.info("game %s: its %s message was deleted", game_id, slot)
        await store.drop_message(game_id, slot, payload.message_id)  # unless replaced already
        if slot == "lobby":
            self.bot.outbox.lost_card(game_id)
        elif slot in KEPT:
            self.bot.outbox.kick(game_id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        self.bot.outbox.lost_home(payload.thread_id)

    @commands.Cog.listener()
    async def on_guild_channel_update(self, before: discord.abc.GuildChannel,
                                      after: discord.abc.GuildChannel) -> None:
        self.bot.outbox.permissions_changed(after.guild.id, after.id)

    @commands.Cog.listener()
    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        self.bot.outbox.permissions_changed(after.guild.id)


async def setup(bot: GameBot) -> None:
    await bot.add_cog(Watch(bot))
