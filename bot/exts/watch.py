"""Watching the table's messages: one deleted by hand (a moderator tidying up) comes back.

The outbox only edits what it remembers; when Discord says a remembered message is gone, the
game forgets it and the outbox shows the table again, so a game is never left without its live
message and buttons.
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
"""Slots shown again after a deletion; a deleted ping or lobby card is only forgotten."""


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
        if slot in KEPT:
            self.bot.outbox.kick(game_id)


async def setup(bot: GameBot) -> None:
    await bot.add_cog(Watch(bot))
