"""What every part of the outbox (:mod:`bot.adapter.outbox`) shares: what it keeps between
passes, its Discord calls (each one counted; 429, 5xx and Discord out of reach become
:class:`Retry`), the rows it stores for the messages it sends, and the pictures a pass draws
early in the render pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aiohttp
import discord

from bot.adapter.items import embed_of
from bot.adapter.port import App
from bot.adapter.refusals import Refusals
from bot.host.sessions import Session
from bot.host.store import MessageRow
from bot.table import Desired, Post

log = logging.getLogger("bot.adapter.outbox")  # one name for the outbox's lines, as documented

T = TypeVar("T")


class Retry(Exception):
    """Discord answered 429 or 5xx: try this game again later."""


class OutboxBase:
    """The outbox's state and its Discord calls; each part of a pass is a mixin over it
    (:mod:`bot.adapter._outbox_home`, :mod:`bot.adapter._outbox_live`,
    :mod:`bot.adapter._outbox_dms`)."""

    def __init__(self, bot: App) -> None:
        self.bot = bot
        self._locks: dict[int, asyncio.Lock] = {}
        self._dirty: set[int] = set()
        self._running: dict[int, asyncio.Task[None]] = {}
        self._backoff: dict[int, float] = {}
        self._retrying: dict[int, asyncio.Task[None]] = {}
        self._elsewhere: set[int] = set()
        """Games another process shows, as found out since the last tick: their
        notifications need no look at the store."""
        self._background: set[asyncio.Task[None]] = set()
        self._early: dict[tuple[str, str], asyncio.Future[bytes | None]] = {}
        """Pictures a pass asked for as soon as it knew it needs them (see
        :meth:`_draw_early`), by their file name and key, until the pass takes them."""
        self.calls = 0
        """Discord calls made (posts, edits, deletes, DMs): tests read it."""
        self.stopped = False
        """Set by :meth:`drain`: the bot is stopping, nothing new is started."""
        self.refusals = Refusals(lambda: bot.settings.clock())
        """Channels that refused the bot a permission, and how long they wait."""
        self._homeless: set[int] = set()
        """Games whose thread Discord says is gone: the next pass moves the table."""
        self._cardless: set[int] = set()
        """Games whose lobby card Discord says is gone: the next pass forgets it."""

    def shows(self, session: Session) -> bool:
        """Whether this process shows the game (see :mod:`bot.adapter.outbox`)."""
        return self.bot.shows(session.row.guild_id)

    async def _call(self, call: Awaitable[T]) -> T:
        """One Discord call: 429 and 5xx become :class:`Retry`, and so does Discord out of
        reach (one line in the log, not a traceback per game during an outage); others are
        the caller's."""
        self.calls += 1
        try:
            return await call
        except (aiohttp.ClientConnectionError, TimeoutError) as error:
            log.warning("Discord unreachable (%s: %s); retrying later", type(error).__name__,
                        error)
            raise Retry from error
        except discord.HTTPException as error:
            self.bot.metrics.discord_error(error.status, error.code)
            if error.status == 429 or error.status >= 500:
                log.info("Discord answered %s; retrying later", error.status)
                raise Retry from error
            raise

    async def _remember(self, session: Session, slot: str, message: discord.Message,
                        post: Post) -> None:
        await self._keep(session, sent_row(slot, message, post))

    async def _keep(self, session: Session, row: MessageRow) -> None:
        """From now on the outbox keeps the message ``row`` names up to date."""
        await self.bot.games.store.set_message(session.id, row)

    def _channel(self, channel_id: int) -> discord.abc.Messageable | None:
        channel = self.bot.get_channel(channel_id)
        return channel if isinstance(channel, discord.abc.Messageable) else None

    async def _message(self, channel_id: int, message_id: int) -> discord.PartialMessage | None:
        channel: object = self._channel(channel_id)
        if channel is None:
            try:
                channel = await self._call(self.bot.fetch_channel(channel_id))
            except (discord.NotFound, discord.Forbidden):
                return None
        getter: Callable[[int], discord.PartialMessage] | None = getattr(
            channel, "get_partial_message", None)
        return getter(message_id) if getter else None

    async def _place(self, channel_id: int) -> discord.abc.Messageable:
        """A channel or thread to post in, from the cache or else from Discord (which raises
        NotFound when it is gone, Forbidden when it is hidden from the bot)."""
        channel = self._channel(channel_id)
        if channel is not None:
            return channel
        fetched = await self._call(self.bot.fetch_channel(channel_id))
        if not isinstance(fetched, discord.abc.Messageable):
            raise TypeError(f"channel {channel_id} takes no messages")
        return fetched

    async def _edit(self, row: MessageRow, post: Post, view: discord.ui.View | None,
                    new_picture: bool) -> bool:
        """Edit a stored message to ``post``; False when it is gone (deleted by hand)."""
        message = await self._message(row.channel_id, row.message_id)
        if message is None:
            return False
        kwargs: dict[str, Any] = {"content": post.content or None, "embed": embed_of(post),
                                  "view": view}
        if new_picture:
            files = await self._files(post)
            kwargs["attachments"] = files
        try:
            await self._call(message.edit(**kwargs))
        except discord.NotFound:
            return False
        return True

    async def _delete(self, row: MessageRow) -> None:
        message = await self._message(row.channel_id, row.message_id)
        if message is None:
            return
        with contextlib.suppress(discord.NotFound):
            await self._call(message.delete())

    async def _strip(self, row: MessageRow) -> None:
        message = await self._message(row.channel_id, row.message_id)
        if message is not None:
            with contextlib.suppress(discord.NotFound):
                await self._call(message.edit(view=None))

    async def _files(self, post: Post) -> list[discord.File]:
        """The post's picture, drawn in the render pool (a failed drawing: shown without)."""
        picture = post.picture
        if picture is None:
            return []
        try:
            early = self._early.get((picture.filename, picture.key))
            png = await (asyncio.shield(early) if early is not None
                         else self.bot.renders.picture(picture))
        except Exception:
            log.exception("drawing %s failed: shown without it", picture.filename)
            return []
        return [discord.File(io.BytesIO(png), filename=picture.filename)] if png else []

    def _draw_early(self, session: Session, want: Desired, stored: dict[str, MessageRow],
                    public: bool) -> list[tuple[str, str]]:
        """Ask the render pool at once for every picture this pass is going to show (a new
        board, the screens that changed), so that they are drawn side by side in the
        workers while the pass goes on, not one after the other as it reaches them; returns
        their keys."""
        wanted: list[Post] = []
        live = stored.get("live")
        if public and want.live is not None and (live is None
                                                 or picture_changed(live, want.live)):
            wanted.append(want.live)
        for private in want.privates:
            row = stored.get(f"screen:{private.colour}")
            if private.screen is not None and private.colour not in session.dm_closed and (
                    row is None or picture_changed(row, private.screen)):
                wanted.append(private.screen)
        keys = []
        for post in wanted:
            picture = post.picture
            if picture is None:
                continue
            key = (picture.filename, picture.key)
            if key not in self._early:
                future = asyncio.ensure_future(self.bot.renders.picture(picture))
                future.add_done_callback(heard_of)
                self._early[key] = future
                keys.append(key)
        return keys


def in_thread(session: Session) -> bool:
    """Whether the game's table lives in a thread of its own (not in the channel)."""
    row = session.row
    return row.thread_id is not None and row.thread_id != row.channel_id


def sent_row(slot: str, message: discord.Message, post: Post) -> MessageRow:
    """The row of a message just sent to show ``post`` in ``slot``."""
    return MessageRow(slot, message.channel.id, message.id, digest_of(post))


def heard_of(future: asyncio.Future[Any]) -> None:
    """For a picture drawn early that its pass did not take (it stopped first): its failure
    is the pass's to log, or nobody's."""
    if not future.cancelled():
        future.exception()


def digest_of(post: Post) -> str:
    return f"{post.digest()}:{post.picture.key if post.picture else ''}"


def picture_changed(row: MessageRow, post: Post) -> bool:
    old = row.digest.partition(":")[2]
    return post.picture is not None and old != post.picture.key


__all__ = ["OutboxBase", "Retry", "digest_of", "heard_of", "in_thread", "log",
           "picture_changed", "sent_row"]
