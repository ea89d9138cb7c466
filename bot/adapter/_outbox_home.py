"""The outbox's home of a game: its lobby card, kept up to date and posted again when a lobby's
is deleted, and where its table lives (a thread under the card, or the channel), moved with a
note when the thread is found deleted. A thread that Discord archived (after its inactivity,
or by hand) is unarchived when it refuses a post or an edit (50083); one that is locked, or
that the bot may not unarchive, leaves the table to the channel, with a note saying so.
"""

from __future__ import annotations

import contextlib

import discord

from bot import table
from bot.adapter._outbox_base import (
    STRIP_TRIES,
    OutboxBase,
    digest_of,
    in_thread,
    log,
    refused,
)
from bot.adapter.items import embed_of, lobby_view, or_missing
from bot.host.sessions import Session
from bot.host.store import MessageRow
from bot.table import Desired, Post
from bot.table.words import game_name
from render.i18n import t

THREAD_ARCHIVED = 50083
"""Discord's code for "Thread is archived": a post or an edit in it refused."""
CANNOT_REOPEN = (50001, 50013, 50083)
"""Discord's codes for an unarchive refused: no access, no permission (a locked thread needs
Manage Threads), the thread still archived."""
NOTES = {"moved": "bot.home.moved", "locked": "bot.refused.thread_locked"}
"""The notes a table's new home owes (the slot that remembers each), and what they say: its
thread was deleted, or is locked (or cannot be unarchived)."""


class Homes(OutboxBase):
    """The lobby card and the table's home, for :class:`bot.adapter.outbox.Outbox`."""

    async def _lobby(self, session: Session, want: Desired, row: MessageRow | None) -> None:
        message_id = session.row.lobby_message_id
        if message_id is None:
            return
        if row is None or row.message_id != message_id:  # not stored, or a new card
            row = MessageRow("lobby", session.row.channel_id, message_id)
        if session.id not in self._cardless:
            if row.digest == digest_of(want.lobby):
                return
            view = lobby_view(session.id, want.lobby.components)
            if await self._edit(row, want.lobby, view, False):
                await self.bot.games.store.set_message(session.id, MessageRow(
                    "lobby", row.channel_id, row.message_id, digest_of(want.lobby)))
                return
            if row.message_id in self._capped:  # 30046: edited once Discord allows
                await self._card_capped(session, row, want.lobby)
                return
        await self._lost_card(session, want.lobby)

    async def _card_capped(self, session: Session, row: MessageRow, card: Post) -> None:
        """Discord refuses edits of the lobby card (30046): it is tried again once its wait
        is over (a game over stays in memory for it), and left as it is after
        :data:`STRIP_TRIES` refusals (stored as shown: a later change of the card tries
        again)."""
        if self._capped[row.message_id].tries <= STRIP_TRIES:
            return
        log.info("game %s: Discord refused edits of its lobby card %d times; left as it is",
                 session.id, STRIP_TRIES)
        del self._capped[row.message_id]
        await self.bot.games.store.set_message(session.id, MessageRow(
            "lobby", row.channel_id, row.message_id, digest_of(card)))

    async def _lost_card(self, session: Session, card: Post) -> None:
        """The lobby card is gone (deleted by hand): forgotten, never edited again. A game
        still in its lobby gets a new card at once, since players join, add AI seats and
        start with its buttons. A game that has started goes on without one: its card has
        no buttons any more (the table carries every decision's), what the card says the
        table and ``/game status`` say too, and posting again what a moderator removed would
        undo their tidying; a thread that must move then moves into the channel. (A new
        card that cannot be posted leaves the old one remembered: the next pass finds it gone
        again and tries again.)"""
        host = self.bot.games
        log.info("game %s: its lobby card is gone%s", session.id,
                 "; posting it again" if session.status == "lobby" else "")
        if session.status == "lobby":
            await self._post_card(session, card)
        else:
            await host.set_lobby_message(session.id, None)
            await host.store.drop_message(session.id, "lobby")
        self._cardless.discard(session.id)

    async def _post_card(self, session: Session, card: Post) -> int:
        """A new lobby card in the game's channel, kept up to date from now on; its id."""
        channel = await self._place(session.row.channel_id)
        message = await self._call(channel.send(
            embed=or_missing(embed_of(card, image=False)),
            view=or_missing(lobby_view(session.id, card.components)),
            allowed_mentions=discord.AllowedMentions.none()))
        await self.bot.games.set_lobby_message(session.id, message.id)
        await self._remember(session, "lobby", message, card)
        return message.id

    async def _home(self, session: Session,
                    stored: dict[str, MessageRow]) -> discord.abc.Messageable:
        """Where the table lives: decided when the game has started, and again when its
        thread is found deleted (Discord's event, or a 404 Unknown Channel), which costs the
        old home's remembered messages and owes a note in the new one (:meth:`_moved`).
        Raises what Discord answered when the home is hidden from the bot (403) or the
        channel itself is gone (404)."""
        row = session.row
        if row.thread_id is not None and row.id not in self._homeless:
            try:
                return await self._place(row.home_id)
            except discord.NotFound:
                if not in_thread(session):
                    raise
                log.info("game %s: its thread %s is gone; the table moves", row.id,
                         row.home_id)
        if row.thread_id is not None:
            await self._forget_home(session, stored)
        thread = await self._open_thread(session)
        await self.bot.games.set_home(session.id, thread.id if thread else row.channel_id)
        self._homeless.discard(row.id)
        return thread or await self._place(row.channel_id)

    async def _forget_home(self, session: Session, stored: dict[str, MessageRow],
                           why: str = "moved") -> None:
        """The game's thread is gone (or locked): the messages remembered there are
        forgotten (a new thread may even get the old one's id), and a note is owed in the
        new home: the slot ``why`` (see :data:`NOTES`) without a message until it is
        shown."""
        store = self.bot.games.store
        old = session.row.home_id
        for slot, row in list(stored.items()):
            if row.channel_id == old and not (slot in NOTES and not row.message_id):
                await store.drop_message(session.id, slot)
                del stored[slot]
        if why not in stored:
            stored[why] = MessageRow(why, old, 0)
            await store.set_message(session.id, stored[why])

    async def _moved(self, session: Session, home: discord.abc.Messageable,
                     stored: dict[str, MessageRow]) -> None:
        """The notes owed in a new home: the table moved because its thread was deleted, or
        is locked."""
        for slot, key in NOTES.items():
            row = stored.get(slot)
            if row is None or row.message_id:
                continue
            note = Post(content=t(key, session.row.language))
            message = await self._call(home.send(
                note.content, allowed_mentions=discord.AllowedMentions.none()))
            await self._remember(session, slot, message, note)
            stored[slot] = MessageRow(slot, message.channel.id, message.id, digest_of(note))

    async def _reopen(self, session: Session,
                      stored: dict[str, MessageRow]) -> discord.abc.Messageable:
        """The game's thread refused a post or an edit because it is archived (50083):
        unarchived, the table goes on there. A thread that is locked (a moderator closed
        it), or that the bot may not unarchive (403: 50001, 50013), leaves the table to the
        channel, where a note says so (:meth:`_moved`); the messages in the thread stay as
        they are. Returns the table's home now."""
        row = session.row
        thread = await self._place(row.home_id)
        if isinstance(thread, discord.Thread) and not thread.locked:
            try:
                await self._call(thread.edit(archived=False))
            except discord.HTTPException as error:
                if not isinstance(error, discord.Forbidden) and not refused(error,
                                                                             *CANNOT_REOPEN):
                    raise
                log.info("game %s: its thread %s cannot be unarchived (%s)", row.id,
                         row.home_id, error)
            else:
                log.info("game %s: its thread %s was archived; unarchived", row.id,
                         row.home_id)
                return thread
        log.info("game %s: its thread %s is closed to the bot; the table moves to the "
                 "channel", row.id, row.home_id)
        await self._forget_home(session, stored, "locked")
        await self.bot.games.set_home(session.id, row.channel_id)
        return await self._place(row.channel_id)

    async def _open_thread(self, session: Session) -> discord.Thread | None:
        """A thread under the lobby card, where the server allows threads and the bot may
        open one; under a new card when Discord refuses a thread under the old one (400:
        the card had a thread already). None: the table lives in the channel (also when
        the card is gone, which is then forgotten)."""
        row = session.row
        if row.lobby_message_id is None or not await self.bot.games.store.threads_allowed(
                row.guild_id):
            return None
        channel = self.bot.get_channel(row.channel_id)
        if not isinstance(channel, discord.TextChannel):
            return None
        me = channel.guild.me
        if me is None or not channel.permissions_for(me).create_public_threads \
                or not channel.permissions_for(me).send_messages_in_threads:
            return None
        lang = row.language
        name = t("bot.table.thread", lang, game=game_name(row.game, lang), id=row.id)[:100]
        try:
            thread = await self._call(channel.get_partial_message(row.lobby_message_id)
                                      .create_thread(name=name))
        except discord.NotFound:
            log.info("game %s: its lobby card is gone; the table lives in the channel", row.id)
            await self._lost_card(session, table.lobby_post(session))
            return None
        except discord.Forbidden as error:
            log.info("game %s: no thread (%s); the table stays in the channel", row.id, error)
            return None
        except discord.HTTPException as error:  # 429 and 5xx are Retry already
            log.info("game %s: no thread under its card (%s); a new card", row.id, error)
            old = row.lobby_message_id
            card = await self._post_card(session, table.lobby_post(session))
            with contextlib.suppress(discord.HTTPException):
                await self._call(channel.get_partial_message(old).delete())
            thread = await self._call(channel.get_partial_message(card).create_thread(
                name=name))
        return thread


__all__ = ["THREAD_ARCHIVED", "Homes"]
