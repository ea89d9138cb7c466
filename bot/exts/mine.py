"""``/game mine``: every game of the asker, in every server, those waiting on them first.

One place for a player of several asynchronous games to see where a decision waits on them:
each lobby and running game in which they hold a seat, wherever it is, with how long it has
waited on them (on the bot's clock: since the game last moved while their decision is due) and
a link to its live table (the lobby card before the start). The answer is private, in the
asker's language, and the command works in DMs and for users who installed the bot for
themselves (the group's :data:`~bot.exts._group.ANYWHERE`), since it names no channel.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.adapter.act import bot_of, user_lang
from bot.adapter.answer import unless_refused
from bot.adapter.port import App
from bot.constants import MAX_CONTENT
from bot.exts import _group
from bot.host.sessions import Session
from bot.table.words import game_name
from bot.translator import ls
from render.i18n import t

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)

ACTIVE = ("lobby", "running")


@dataclass(frozen=True)
class Mine:
    """One of the asker's games: ``waited`` seconds a decision has waited on them (None: none
    does), where it is and the link to its table."""

    session: Session
    waited: float | None
    server: str
    url: str

    def order(self) -> tuple[int, float, int]:
        """Waiting on them first, the longest wait first; then running games; then lobbies."""
        if self.waited is not None:
            return (0, -self.waited, self.session.id)
        return (1 if self.session.status == "running" else 2, 0.0, self.session.id)


def waited_words(seconds: float, lang: str) -> str:
    """A wait in words: minutes below an hour, hours below two days, then days."""
    minutes = max(1, int(seconds // 60))
    if minutes < 60:
        return t("bot.mine.minutes", lang, count=minutes)
    if minutes < 48 * 60:
        return t("bot.mine.hours", lang, count=minutes // 60)
    return t("bot.mine.days", lang, count=minutes // (24 * 60))


def mine_line(entry: Mine, lang: str) -> str:
    session = entry.session
    params = {"game": game_name(session.row.game, lang), "id": session.id,
              "server": entry.server, "url": entry.url}
    if entry.waited is not None:
        return t("bot.mine.waiting", lang, waited=waited_words(entry.waited, lang), **params)
    return t("bot.mine.playing" if session.status == "running" else "bot.mine.lobby", lang,
             **params)


def mine_text(found: list[Mine], lang: str) -> str:
    """The answer: a title, then one line per game in :meth:`Mine.order`, cut to one message
    (the games left out are counted)."""
    if not found:
        return t("bot.mine.none", lang)
    lines = [t("bot.mine.title", lang)]
    ordered = sorted(found, key=Mine.order)
    for i, entry in enumerate(ordered):
        line = mine_line(entry, lang)
        rest = len(ordered) - i
        more = t("bot.mine.more", lang, count=rest - 1) if rest > 1 else ""
        if len("\n".join([*lines, line, more])) > MAX_CONTENT:
            lines.append(t("bot.mine.more", lang, count=rest))
            break
        lines.append(line)
    return "\n".join(lines)


async def my_games(bot: App, user_id: int) -> list[Mine]:
    """Every lobby and running game in which ``user_id`` holds a seat."""
    store = bot.games.store
    now = bot.settings.clock()
    found = []
    for game_id in sorted(await store.seated_games(user_id)):
        session = await unless_refused(bot.games.get(game_id))
        row = await store.game(game_id)  # the stored row: when the game last moved
        seat = session.seat_of(user_id) if session is not None else None
        if session is None or row is None or seat is None or session.status not in ACTIVE:
            continue
        waiting = session.status == "running" and not session.paused \
            and seat.colour in session.pending()
        waited = (now - datetime.fromisoformat(row.updated_at)).total_seconds() \
            if waiting else None
        guild = bot.get_guild(row.guild_id or 0)
        server = f"**{guild.name}**" if guild is not None else f"<#{row.channel_id}>"
        found.append(Mine(session, waited, server, await _url(bot, session)))
    return found


async def _url(bot: App, session: Session) -> str:
    """The live table's message, else the lobby card, else the game's home."""
    guild = session.row.guild_id or "@me"
    live = (await bot.games.store.messages(session.id)).get("live")
    if live is not None:
        return f"https://discord.com/channels/{guild}/{live.channel_id}/{live.message_id}"
    if session.row.lobby_message_id:
        return (f"https://discord.com/channels/{guild}/{session.row.channel_id}/"
                f"{session.row.lobby_message_id}")
    return f"https://discord.com/channels/{guild}/{session.row.home_id}"


@app_commands.command(name=ls("bot.cmd.mine.name"), description=ls("bot.cmd.mine.description"),
                      extras={_group.ANYWHERE: True})
async def mine(interaction: discord.Interaction) -> None:
    """Your games everywhere, those waiting on you first (only you see the answer)."""
    await interaction.response.defer(ephemeral=True, thinking=True)
    found = await my_games(bot_of(interaction), interaction.user.id)
    await interaction.followup.send(mine_text(found, user_lang(interaction)), ephemeral=True)


async def setup(bot: GameBot) -> None:
    """The command joins the shared ``/game`` group."""
    _group.game.add_command(mine, override=True)
