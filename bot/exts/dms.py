"""Choices typed in a DM: ``bid 2m 1w chief``, or ``#12 bid 0m`` when several games wait.

A secret choice (or a public one the game also takes from DMs, a Giganten auction bid) is
played like any other move; the typed message gets a ✅ reaction as its one confirmation, and
the DM prompt above it shows what was handed in. ``help`` explains what can be typed here.
Every answer here speaks the user's language (from their latest interaction), else the game's.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.adapter.answer import report_dm, wording
from bot.constants import MAX_CONTENT, REPEAT_SECONDS
from bot.table.private import private_language, split_prefix, typed_decisions
from bot.table.words import colour_name, game_name, private_lines, refusal_text
from render.i18n import t

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)

HELP_WORDS = frozenset({"help", "?", "ayuda", "помощь", "帮助", "幫助"})
DONE = "✅"


class Dms(commands.Cog):
    """Secret choices typed in DMs."""

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.guild is not None or message.author.bot or not message.content.strip():
            return
        try:
            await self.typed(message)
        except Exception as error:  # to the one handler: a refusal is answered in the DM
            await report_dm(message, error, self.bot.language_of(
                message.author.id, self.bot.settings.language))

    async def typed(self, message: discord.Message) -> None:
        host = self.bot.games
        game_id, text = split_prefix(message.content)
        if host.store.shared:  # every DM comes to shard 0's process: the games it is about
            await host.seated(message.author.id)  # may be shown, and moved, by another
        found = typed_decisions(list(host.sessions.values()), message.author.id)
        if game_id is not None:
            found = [(s, seat) for s, seat in found if s.id == game_id]
        user = message.author.id
        lang = private_language(found[0][0], user, self.bot.languages) if found \
            else self.bot.language_of(user, self.bot.settings.language)
        running = [s for s in host.sessions.values() if s.status == "running"]
        if not found and text.strip().lower() not in HELP_WORDS \
                and not any(s.seat_of(message.author.id) for s in running):
            gone = [(s, why) for s in sorted(running, key=lambda s: -s.id)  # a seat that
                    if game_id in (None, s.id)                              # changed hands
                    and (why := s.gone(message.author.id)) is not None]
            if gone:
                session, why = gone[0]
                await message.channel.send(refusal_text(
                    session, why, private_language(session, user, self.bot.languages))
                    [:MAX_CONTENT])
                return
        if text.strip().lower() in HELP_WORDS or not found or not text:
            key = "bot.dm.help" if found else "bot.hidden.dm.nothing"
            example = str(found[0][0].legal(found[0][1].colour)[0]) if found else ""
            await message.channel.send(t(key, lang, example=example,
                                         id=found[0][0].id if found else 0)[:MAX_CONTENT])
            return
        if len(found) > 1:
            games = "\n".join(t("bot.hidden.dm.game", lang, id=s.id,
                                game=game_name(s.row.game, lang),
                                channel=f"<#{s.row.home_id}>",
                                colour=colour_name(seat.colour, lang))
                              for s, seat in found)
            await message.channel.send(t("bot.hidden.dm.which", lang, games=games,
                                         id=found[0][0].id)[:MAX_CONTENT])
            return
        session, seat = found[0]
        with wording(session, typed=text, lang=lang):
            report = await host.play_game(session.id, message.author.id, text,
                                          repeat_within=REPEAT_SECONDS)
        try:
            await message.add_reaction(DONE)
        except discord.HTTPException as error:
            log.info("could not confirm a typed choice: %s", error)
        secrets = private_lines(report.session, report.steps, seat.colour, lang)
        if secrets:
            await message.channel.send("\n".join(secrets)[:MAX_CONTENT])


async def setup(bot: GameBot) -> None:
    await bot.add_cog(Dms(bot))

