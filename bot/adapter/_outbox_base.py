"""What every part of the outbox (:mod:`bot.adapter.outbox`) shares: what it keeps between
passes, its Discord calls (each one counted; 429, 5xx and Discord out of reach become
:class:`Retry`), the rows it stores for the messages it sends, and the pictures a pass draws
early in the render pool.

Discord refuses some calls for reasons of its own, and none of them may stall a game or
loop: an edit of a message older than an hour past a count (30046) makes that message one
the outbox leaves alone for a while (the caller posts a fresh one instead; the components
left on the old one are stripped later, a few tries at most); an attachment too large
(40005) is sent with the picture at half its size, else without it and with a note.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

import aiohttp
import discord
from PIL import Image

from bot.adapter.items import embed_of
from bot.adapter.port import App
from bot.adapter.refusals import Refusals
from bot.host.sessions import Session
from bot.host.store import MessageRow
from bot.table import Desired, Post
from render.i18n import t

log = logging.getLogger("bot.adapter.outbox")  # one name for the outbox's lines, as documented

T = TypeVar("T")

EDITS_CAPPED = 30046
"""Discord's code for "Maximum number of edits to messages older than 1 hour reached"."""
TOO_LARGE = 40005
"""Discord's code for "Request entity too large" (an attachment past the upload limit)."""
CAPPED_WAIT = timedelta(minutes=10)
"""How long a message whose edits Discord capped is left alone before it is tried again
(Discord says only "try again later"); each refusal after that doubles it."""
STRIP_TRIES = 3
"""How many times the outbox tries to strip the components of a message whose edits are
capped before it leaves them: a stale button is refused as stale anyway, never played."""


def refused(error: BaseException | None, *codes: int) -> bool:
    """Whether Discord refused a call with one of these JSON error codes."""
    return isinstance(error, discord.HTTPException) and error.code in codes


@dataclass
class Capped:
    """A message Discord refuses to edit for now (30046): where it is, when it may be tried
    again, and how often it was refused."""

    channel_id: int
    message_id: int
    due: datetime
    tries: int = 1
    strip: bool = False
    """Whether it still carries components that the outbox means to strip."""


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
        self._capped: dict[int, Capped] = {}
        """Messages (by id) whose edits Discord capped (30046), until they may be tried
        again; see :meth:`_edit` and :meth:`_strip_capped`."""

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
                    new_picture: bool, lang: str = "en") -> bool:
        """Edit a stored message to ``post``; False when it is gone (deleted by hand) or
        Discord refuses it more edits for now (see :meth:`capped`): either way the caller
        shows ``post`` in a fresh message when it needs one. ``lang``: the language of the
        note that a picture too large is left out."""
        if self.capped(row.message_id):
            return False
        message = await self._message(row.channel_id, row.message_id)
        if message is None:
            return False
        kwargs: dict[str, Any] = {"content": post.content or None, "embed": embed_of(post),
                                  "view": view}
        try:
            if new_picture:
                await self._sized(post, lang, lambda files, note: self._call(message.edit(
                    **{**kwargs, "attachments": files, "content": noted(post.content, note)})))
            else:
                await self._call(message.edit(**kwargs))
        except discord.NotFound:
            return False
        except discord.HTTPException as error:
            if not refused(error, EDITS_CAPPED):
                raise
            self._cap(row)
            return False
        self._capped.pop(row.message_id, None)
        return True

    def capped(self, message_id: int) -> bool:
        """Whether Discord refused edits of this message (30046) and its wait is not over."""
        known = self._capped.get(message_id)
        return known is not None and self.bot.settings.clock() < known.due

    def _cap(self, row: MessageRow) -> None:
        """Discord refused an edit of ``row``'s message (30046): it is left alone for a
        while, longer each time."""
        known = self._capped.get(row.message_id)
        tries = known.tries + 1 if known is not None else 1
        wait = CAPPED_WAIT * 2 ** (tries - 1)
        log.info("message %s: Discord refuses more edits of it (30046); left for %d s",
                 row.message_id, wait.total_seconds())
        self._capped[row.message_id] = Capped(row.channel_id, row.message_id,
                                              self.bot.settings.clock() + wait, tries,
                                              known.strip if known is not None else False)

    def _owe_strip(self, row: MessageRow) -> None:
        """The components of ``row``'s capped message are stripped once Discord allows."""
        if row.message_id not in self._capped:
            self._cap(row)
        self._capped[row.message_id].strip = True

    async def _strip_capped(self) -> None:
        """Strip the components of the capped messages whose wait is over (whichever game
        they were left by: a strip is the same for all); a message refused
        :data:`STRIP_TRIES` times keeps them (a stale button is refused as stale, never
        played). Nothing here stops a pass."""
        now = self.bot.settings.clock()
        for known in list(self._capped.values()):
            if not known.strip or now < known.due:
                continue
            try:
                if await self._strip(MessageRow("capped", known.channel_id, known.message_id)):
                    continue
            except (Retry, discord.HTTPException) as error:
                log.info("message %s: its components stay for now (%s)", known.message_id,
                         error)
                self._cap(MessageRow("capped", known.channel_id, known.message_id))
            if self._capped[known.message_id].tries > STRIP_TRIES:
                log.info("message %s: its components stay; Discord refused to strip them "
                         "%d times", known.message_id, STRIP_TRIES)
                del self._capped[known.message_id]

    async def _sized(self, post: Post, lang: str,
                     send: Callable[[list[discord.File], str | None], Awaitable[T]]) -> T:
        """Send ``post`` with its picture (``send`` is given the files and a note to add);
        when Discord refuses it as too large (40005), once more with the picture at half its
        size, and then without it and with a note saying so; never again for this picture
        (the next one is tried at full size again)."""
        png = await self._png(post)
        name = post.picture.filename if post.picture else ""
        for picture in (png, await asyncio.to_thread(smaller, png) if png else None):
            if not picture:
                continue
            try:
                return await send([discord.File(io.BytesIO(picture), filename=name)], None)
            except discord.HTTPException as error:
                if not (refused(error, TOO_LARGE) or error.status == 413):
                    raise
                log.info("Discord refused %s (%d bytes) as too large", name, len(picture))
        return await send([], t("bot.refused.picture_too_large", lang) if png else None)

    async def _delete(self, row: MessageRow) -> None:
        self._capped.pop(row.message_id, None)
        message = await self._message(row.channel_id, row.message_id)
        if message is None:
            return
        with contextlib.suppress(discord.NotFound):
            await self._call(message.delete())

    async def _strip(self, row: MessageRow) -> bool:
        """Strip the message's components; False when Discord refuses more edits of it
        (30046): it then owes the strip, tried again later (:meth:`_strip_capped`). A
        message gone counts as stripped."""
        if self.capped(row.message_id):
            self._owe_strip(row)
            return False
        message = await self._message(row.channel_id, row.message_id)
        if message is None:
            self._capped.pop(row.message_id, None)
            return True
        try:
            await self._call(message.edit(view=None))
        except discord.NotFound:
            pass
        except discord.HTTPException as error:
            if not refused(error, EDITS_CAPPED):
                raise
            self._cap(row)
            self._owe_strip(row)
            return False
        self._capped.pop(row.message_id, None)
        return True

    async def _last_edit(self, row: MessageRow, **fields: Any) -> None:
        """A last edit of a message the outbox forgets after it (a retired prompt, a DM of a
        seat that changed hands): a message gone, closed to the bot, or whose edits Discord
        caps (30046) is left as it is."""
        message = await self._message(row.channel_id, row.message_id)
        if message is None:
            return
        try:
            await self._call(message.edit(**fields))
        except (discord.NotFound, discord.Forbidden):
            return
        except discord.HTTPException as error:
            if not refused(error, EDITS_CAPPED):
                raise
            log.info("message %s: Discord refuses more edits of it (30046); left as it is",
                     row.message_id)

    async def _png(self, post: Post) -> bytes | None:
        """The post's picture, drawn in the render pool (None: none, or its drawing failed,
        which is logged: the post is shown without it)."""
        picture = post.picture
        if picture is None:
            return None
        try:
            early = self._early.get((picture.filename, picture.key))
            return await (asyncio.shield(early) if early is not None
                          else self.bot.renders.picture(picture))
        except Exception:
            log.exception("drawing %s failed: shown without it", picture.filename)
            return None

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


def smaller(png: bytes) -> bytes | None:
    """The picture at half its width and height, as a PNG (None: it cannot be read)."""
    try:
        with Image.open(io.BytesIO(png)) as image:
            half = image.resize((max(1, image.width // 2), max(1, image.height // 2)),
                                Image.Resampling.LANCZOS)
    except (OSError, ValueError):
        return None
    out = io.BytesIO()
    half.save(out, format="PNG", optimize=True)
    return out.getvalue()


def noted(content: str, note: str | None) -> str | None:
    """A message's text with a note below it (None: no text at all)."""
    return "\n".join(part for part in (content, note) if part) or None


def picture_changed(row: MessageRow, post: Post) -> bool:
    old = row.digest.partition(":")[2]
    return post.picture is not None and old != post.picture.key


__all__ = ["EDITS_CAPPED", "TOO_LARGE", "OutboxBase", "Retry", "digest_of", "heard_of",
           "in_thread", "log", "noted", "picture_changed", "refused", "sent_row",
           "smaller"]
