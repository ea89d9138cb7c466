"""The outbox: the only path from a committed game to Discord.

After each commit (``kick``), at start-up and on a periodic tick, it computes the desired table
of a game (:func:`bot.table.desired`) from what is stored, compares it with what it last showed
(message ids and digests, kept in the store) and brings Discord to it: post, edit, delete, DM.
A second run with nothing new changes nothing. A Discord call that fails with 429 or 5xx stops
this run and schedules another with backoff; a message deleted by hand is posted again; a DM
that Discord refuses (``Forbidden``) marks the seat's DMs closed, after which the 🔒 button serves
it. Nothing here can lose or stall a game: the game is stored before the outbox runs, and the
same tick resumes chance and AI steps that a failure interrupted. Messages in the channel speak
the game's language; DMs speak their user's (:attr:`App.languages`), the game's while it
is not known.

A game's home heals by itself. A thread found deleted (the gateway's event, a 404 Unknown
Channel, or a lookup at start-up) has the table move into a new thread under the lobby card
(or the channel), where a note says why; what was remembered in the old thread is forgotten.
A lobby card found deleted is forgotten, never edited again (a lobby's is posted again). A
channel that refuses the bot a permission waits a growing interval before it is tried again
(:mod:`bot.adapter.refusals`). None of this holds up the game's DMs: the channel part and the
private part of a pass fail apart.

With several bot processes over one store, a game's messages (the table and its players'
DMs alike) are shown by one process only, the one whose shard its server is on
(:meth:`App.shows`, :mod:`bot.host.shards`): the stored message ids are per game, and two
processes reconciling the same game could both post. Another process may apply a move (a DM
choice arrives at shard 0's); the store's notification (:meth:`Outbox.heard`) then has the
showing process catch its copy up and show it at once, and the tick compares every copy with
the store in one query, for whatever a notification missed.
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

from bot import table
from bot.adapter.items import embed_of, lobby_view, or_missing, prompt_view, table_view
from bot.adapter.port import App
from bot.adapter.refusals import Refusals
from bot.constants import RETRY_FIRST, RETRY_MOST
from bot.host.sessions import Session
from bot.host.store import ACTIVE, EVERY_GAME, MessageRow
from bot.table import Desired, Post, Private
from bot.table.pool import BOARDS
from bot.table.private import private_language
from bot.table.words import ai_name, game_name, move_text, refusal_text
from render.i18n import t

log = logging.getLogger(__name__)

RENDERERS = BOARDS
UNKNOWN_CHANNEL = 10003
"""Discord's code for a channel or thread that does not exist (any more)."""
T = TypeVar("T")


class Retry(Exception):
    """Discord answered 429 or 5xx: try this game again later."""


class Outbox:
    """Reconciles every game's Discord messages with its stored state."""

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

    # --- scheduling ----------------------------------------------------------------------------

    def kick(self, game_id: int) -> None:
        """Show game ``game_id`` as stored now, soon; runs coalesce per game."""
        if self.stopped:
            return
        self._dirty.add(game_id)
        task = self._running.get(game_id)
        if task is None or task.done():
            self._running[game_id] = asyncio.create_task(self._drain(game_id),
                                                         name=f"outbox-{game_id}")

    async def _drain(self, game_id: int) -> None:
        while game_id in self._dirty:
            self._dirty.discard(game_id)
            await self.reconcile(game_id)

    def heard(self, game_id: int) -> None:
        """The store says another process changed this game (:data:`EVERY_GAME`: any game):
        the copy in memory is stale, and a game this process shows is shown again at once
        (caught up first). A game it has not seen is looked up once, in the background."""
        if self.stopped:
            return
        host = self.bot.games
        host.heard(game_id)
        if game_id == EVERY_GAME:
            self._elsewhere.clear()
            self._spawn(self._everything(), "outbox-every-game")
            return
        session = host.sessions.get(game_id)
        if session is not None:
            if self.shows(session):
                self.kick(game_id)
        elif game_id not in self._elsewhere:
            self._spawn(self._discover(game_id), f"outbox-discover-{game_id}")

    def shows(self, session: Session) -> bool:
        """Whether this process shows the game (see the module's docstring)."""
        return self.bot.shows(session.row.guild_id)

    def _spawn(self, work: Awaitable[None], name: str) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("%s failed; the next tick compares every game", name)

        task = asyncio.create_task(run(), name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _everything(self) -> None:
        """What was said while nobody listened: the games this process shows that it has
        not seen yet are read, then every game is compared and reconciled."""
        host = self.bot.games
        for row in await host.store.games_with_status(*ACTIVE):
            if row.id not in host.sessions and self.bot.shows(row.guild_id):
                await host.catch_up(row.id)
        await self.reconcile_all()

    async def _discover(self, game_id: int) -> None:
        """A game another process made or changed, not in memory here: shown from now on if
        this process shows it, else remembered as another's."""
        host = self.bot.games
        row = await host.store.game(game_id)
        if row is None or row.status not in ACTIVE:
            return
        if not self.bot.shows(row.guild_id):
            self._elsewhere.add(game_id)
            return
        if await host.catch_up(game_id) is not None:
            self.kick(game_id)

    async def settled(self, game_id: int) -> None:
        """Wait until what was kicked for the game so far is shown (or has failed and waits
        for its retry)."""
        while (task := self._running.get(game_id)) is not None and not task.done():
            await asyncio.shield(task)

    async def drain(self, timeout: float) -> bool:
        """For a clean stop: wait (at most ``timeout`` seconds) until every run under way,
        and every run kicked meanwhile, is done; retries waiting for their backoff are
        dropped (the next start reconciles every game anyway). True when nothing was left
        running; what is still running then is left to be cancelled."""
        for task in [*self._retrying.values(), *self._background]:
            task.cancel()
        self._retrying.clear()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            while pending := [t for t in self._running.values() if not t.done()]:
                left = deadline - loop.time()
                if left <= 0:
                    log.warning("stopping with %s game(s) still being shown", len(pending))
                    return False
                await asyncio.wait(pending, timeout=left)
            return True
        finally:
            self.stopped = True

    async def reconcile_all(self) -> None:
        """Every game in memory that this process shows: at start-up and on the tick. With a
        shared store every copy is compared with the store first, in one query (the games
        another process moved catch up as they are shown; one that ended elsewhere and is
        shown elsewhere leaves memory). Stalled games resume first."""
        host = self.bot.games
        if host.store.shared:
            self._elsewhere.clear()
            changed = await host.compare()
            for game_id, session in list(host.sessions.items()):
                status = changed[game_id].status if game_id in changed else session.status
                if status not in ACTIVE and not self.shows(session):
                    host.evict(game_id)
        for session in host.stalled():
            if not self.shows(session):
                continue
            try:
                await host.resume(session.id)
            except Exception:
                log.exception("game %s could not resume; trying again on the next tick",
                              session.id)
        for game_id in sorted(host.sessions):
            await self.reconcile(game_id)

    @property
    def waiting(self) -> int:
        """Games waiting to be shown: a pass running or due, or a retry waiting (the
        ``rapanui_outbox_queue`` metric)."""
        running = {g for g, task in self._running.items() if not task.done()}
        retrying = {g for g, task in self._retrying.items() if not task.done()}
        return len(running | retrying | self._dirty)

    def _retry_later(self, game_id: int) -> None:
        if self.stopped:
            return
        self.bot.metrics.outbox_retries.inc()
        delay = self._backoff.get(game_id, RETRY_FIRST / 2) * 2
        self._backoff[game_id] = min(delay, RETRY_MOST)
        if game_id in self._retrying and not self._retrying[game_id].done():
            return

        async def later() -> None:
            await asyncio.sleep(delay)
            self.kick(game_id)

        self._retrying[game_id] = asyncio.create_task(later(), name=f"outbox-retry-{game_id}")

    def lost_home(self, thread_id: int) -> None:
        """Discord says a thread was deleted: a game whose table lived there moves now."""
        for session in list(self.bot.games.sessions.values()):
            if session.row.thread_id == thread_id and _in_thread(session):
                self._homeless.add(session.id)
                self.kick(session.id)

    def lost_card(self, game_id: int) -> None:
        """Discord says the game's lobby card was deleted: forgotten now (a lobby's posted
        again), without trying to edit it first."""
        self._cardless.add(game_id)
        self.kick(game_id)

    def permissions_changed(self, guild_id: int, channel_id: int | None = None) -> None:
        """A channel's (or, for a role, the server's) permissions changed: the channels
        concerned that refused the bot are tried again now."""
        host = self.bot.games
        for channel in self.refusals.changed(guild_id, channel_id):
            log.info("channel %s: its permissions changed; showing its games again", channel)
            for session in list(host.sessions.values()):
                if session.row.channel_id == channel:
                    self.kick(session.id)

    async def adopt(self, game_id: int, slot: str, message: discord.Message,
                    post: Post) -> None:
        """A message an interaction posted itself (the lobby card, as the answer to
        ``/game new``): from now on the outbox keeps it up to date."""
        session = self.bot.games.sessions.get(game_id)
        if session is not None:
            await self._remember(session, slot, message, post)

    # --- one game ------------------------------------------------------------------------------

    async def reconcile(self, game_id: int) -> None:
        lock = self._locks.setdefault(game_id, asyncio.Lock())
        async with lock:
            try:
                done = await self._reconcile(game_id)
            except Retry:
                self._retry_later(game_id)
                return
            except Exception:
                log.exception("showing game %s failed; the next tick tries again", game_id)
                return
            self._backoff.pop(game_id, None)
            if done:
                self.bot.games.drop(game_id)
                self._locks.pop(game_id, None)

    async def _reconcile(self, game_id: int) -> bool:
        """One pass; True when the game is over and Discord shows all of its end.

        The channel part (the home, the lobby card, the live table, the ping, the notes)
        and the private part (DM screens, prompts, "your turn" DMs) fail apart: whatever
        stops the channel part, a refused permission, a deleted thread or a 5xx, the DMs of
        the same pass are still sent, and what stopped it is dealt with after them
        (:meth:`_trouble`). A channel that refused the bot is left alone until its wait is
        over (:mod:`bot.adapter.refusals`)."""
        host = self.bot.games
        session = host.sessions.get(game_id)
        if session is None or not self.shows(session):
            return False
        if game_id in host.stale:  # another process changed it
            session = await host.catch_up(game_id)
            if session is None:
                return False
        stored = await host.store.messages(game_id)
        names = self._names(session)
        renderer = RENDERERS.get(session.row.game)
        public = not self.refusals.waiting(session.row.channel_id)
        trouble: Exception | None = None
        home = None
        if public and session.status != "lobby" and session.game is not None:
            try:  # first: the lobby card and DMs link to it
                home = await self._home(session, stored)
            except Exception as error:
                trouble = error
        live_row = stored.get("live")
        want = table.desired(session, self.bot.settings.clock(), names, renderer,
                             live_row.stage if live_row else "", self.bot.settings.ping_after,
                             host.notify, self.bot.languages)
        early = self._draw_early(session, want, stored, public and trouble is None)
        private: Exception | None = None
        try:
            if public and trouble is None:
                trouble = await _caught(self._public(session, want, home, stored, names,
                                                     renderer))
            if want.live is not None:
                private = await _caught(self._private_part(session, want, stored))
                if public and trouble is None and home is not None:
                    trouble = await _caught(self._notes(session, want, home, stored))
        finally:
            for key in early:
                self._early.pop(key, None)
        stopped = trouble is not None
        if trouble is not None:
            trouble = self._trouble(session, trouble)
        failed = [error for error in (trouble, private) if error is not None]
        if failed:
            raise _worst(game_id, failed)
        if not public or stopped:
            return False
        self.refusals.allowed(session.row.channel_id)
        return home is not None and want.live is not None and session.status != "running"

    def _trouble(self, session: Session, error: Exception) -> Exception | None:
        """What stopped a pass's channel part: a refusal (403, or 404 for the channel itself)
        makes the channel wait; a thread found deleted (404 Unknown Channel) is moved away
        from on the next pass, soon (a retry with backoff); anything else is the caller's."""
        row = session.row
        if isinstance(error, discord.NotFound) and error.code == UNKNOWN_CHANNEL \
                and _in_thread(session):
            log.info("game %s: its thread %s is gone; the table moves", row.id, row.home_id)
            self._homeless.add(row.id)
            return Retry()
        if isinstance(error, discord.Forbidden | discord.NotFound):
            wait = self.refusals.refused(row.channel_id, row.guild_id)
            log.warning("game %s: Discord refuses the bot in channel %s (%s, code %s): its "
                        "table is tried again in %d s, its DMs go on", row.id, row.channel_id,
                        error.status, error.code, wait)
            return None
        return error

    def _draw_early(self, session: Session, want: Desired, stored: dict[str, MessageRow],
                    public: bool) -> list[tuple[str, str]]:
        """Ask the render pool at once for every picture this pass is going to show (a new
        board, the screens that changed), so that they are drawn side by side in the
        workers while the pass goes on, not one after the other as it reaches them; returns
        their keys."""
        wanted: list[Post] = []
        live = stored.get("live")
        if public and want.live is not None and (live is None
                                                 or _picture_changed(live, want.live)):
            wanted.append(want.live)
        for private in want.privates:
            row = stored.get(f"screen:{private.colour}")
            if private.screen is not None and private.colour not in session.dm_closed and (
                    row is None or _picture_changed(row, private.screen)):
                wanted.append(private.screen)
        keys = []
        for post in wanted:
            picture = post.picture
            if picture is None:
                continue
            key = (picture.filename, picture.key)
            if key not in self._early:
                future = asyncio.ensure_future(self.bot.renders.picture(picture))
                future.add_done_callback(_heard)
                self._early[key] = future
                keys.append(key)
        return keys

    async def _public(self, session: Session, want: Desired,
                      home: discord.abc.Messageable | None, stored: dict[str, MessageRow],
                      names: dict[str, str], renderer: table.Renderer | None) -> None:
        """The channel part before the DMs: the note of a moved table, the lobby card, the
        live message and the ping."""
        if home is not None:
            await self._moved(session, home, stored)
        await self._lobby(session, want, stored.get("lobby"))
        if want.live is None or home is None:
            return
        await self._live(session, want, home, stored.get("live"), names, renderer)
        await self._ping(session, want.ping, home, stored.get("ping"))

    async def _private_part(self, session: Session, want: Desired,
                            stored: dict[str, MessageRow]) -> None:
        """Every seat's DMs: screens, prompts and "your turn" DMs."""
        wanted = {p.colour: p.user_id for p in want.privates}
        for slot, row in list(stored.items()):  # seats that changed hands: the previous
            kind, _, colour = slot.partition(":")  # holder's DMs go first
            if kind in ("screen", "prompt") and (colour not in wanted or _holder(row) not in (
                    None, wanted[colour])):
                await self._hand_over(session, slot, row)
                del stored[slot]
        for private in want.privates:
            await self._private(session, private, stored)
            await self._turn(session, private, stored)

    async def _notes(self, session: Session, want: Desired, home: discord.abc.Messageable,
                     stored: dict[str, MessageRow]) -> None:
        """The channel part after the DMs: the note on closed DMs (those found closed in this
        pass count) and the result at the end."""
        note = table.dm_note(session, session.row.language)
        if note is not None and "dm_note" not in stored:
            message = await self._call(home.send(note.content,
                                                 allowed_mentions=discord.AllowedMentions.none()))
            await self._remember(session, "dm_note", message, note)
        if want.final is not None and "final" not in stored:
            assert want.final.attachment is not None
            name, record = want.final.attachment
            message = await self._call(home.send(
                want.final.content, file=discord.File(io.BytesIO(record.encode()), filename=name),
                allowed_mentions=discord.AllowedMentions.none()))
            await self._remember(session, "final", message, want.final)

    def _names(self, session: Session) -> dict[str, str]:
        """Colour -> a plain name for the board legend (images cannot show mentions)."""
        lang = session.row.language
        guild = self.bot.get_guild(session.row.guild_id) if session.row.guild_id else None
        out = {}
        for seat in session.seats:
            if seat.is_ai:
                out[seat.colour] = t("bot.legend.ai", lang, level=ai_name(seat.ai_level, lang))
                continue
            assert seat.user_id is not None
            member = guild.get_member(seat.user_id) if guild else None
            user = member or self.bot.get_user(seat.user_id)
            out[seat.colour] = (user.display_name if user else seat.name) \
                or t("bot.legend.player", lang)
        return out

    # --- Discord calls -------------------------------------------------------------------------

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
                        post: Post, stage: str = "") -> None:
        await self.bot.games.store.set_message(session.id, MessageRow(
            slot, message.channel.id, message.id, _digest(post), stage))

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

    # --- the parts -----------------------------------------------------------------------------

    async def _lobby(self, session: Session, want: Desired, row: MessageRow | None) -> None:
        message_id = session.row.lobby_message_id
        if message_id is None:
            return
        if row is None or row.message_id != message_id:  # not stored, or a new card
            row = MessageRow("lobby", session.row.channel_id, message_id)
        if session.id not in self._cardless:
            if row.digest == _digest(want.lobby):
                return
            view = lobby_view(session.id, want.lobby.components)
            if await self._edit(row, want.lobby, view, False):
                await self.bot.games.store.set_message(session.id, MessageRow(
                    "lobby", row.channel_id, row.message_id, _digest(want.lobby)))
                return
        await self._lost_card(session, want.lobby)

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
                if not _in_thread(session):
                    raise
                log.info("game %s: its thread %s is gone; the table moves", row.id,
                         row.home_id)
        if row.thread_id is not None:
            await self._forget_home(session, stored)
        thread = await self._open_thread(session)
        await self.bot.games.set_home(session.id, thread.id if thread else row.channel_id)
        self._homeless.discard(row.id)
        return thread or await self._place(row.channel_id)

    async def _forget_home(self, session: Session, stored: dict[str, MessageRow]) -> None:
        """The game's thread is gone: the messages remembered there are forgotten (a new
        thread may even get the old one's id), and a note is owed in the new home: the slot
        ``moved`` without a message until it is shown."""
        store = self.bot.games.store
        old = session.row.home_id
        for slot, row in list(stored.items()):
            if row.channel_id == old and not (slot == "moved" and not row.message_id):
                await store.drop_message(session.id, slot)
                del stored[slot]
        if "moved" not in stored:
            stored["moved"] = MessageRow("moved", old, 0)
            await store.set_message(session.id, stored["moved"])

    async def _moved(self, session: Session, home: discord.abc.Messageable,
                     stored: dict[str, MessageRow]) -> None:
        """The note owed in a new home: the table moved because its thread was deleted."""
        row = stored.get("moved")
        if row is None or row.message_id:
            return
        note = Post(content=t("bot.home.moved", session.row.language))
        message = await self._call(home.send(note.content,
                                             allowed_mentions=discord.AllowedMentions.none()))
        await self._remember(session, "moved", message, note)
        stored["moved"] = MessageRow("moved", message.channel.id, message.id, _digest(note))

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

    async def _live(self, session: Session, want: Desired, home: discord.abc.Messageable,
                    row: MessageRow | None, names: dict[str, str],
                    renderer: table.Renderer | None) -> None:
        assert want.live is not None
        if row is not None and row.stage != want.stage and not _went_back(row.stage,
                                                                          want.stage):
            start = table.parse_stage(want.stage)
            final = table.closing(session, row.stage, names, renderer,
                                  start[1] if start else session.seq + 1)
            if final is not None:
                await self._edit(row, final, None, _picture_changed(row, final))
            else:
                await self._strip(row)
            await self.bot.games.store.drop_message(session.id, "live")
            row = None
        view = table_view(session.id, want.live.seq, want.live.components)
        if row is not None:
            if row.digest == _digest(want.live):
                return
            if await self._edit(row, want.live, view, _picture_changed(row, want.live)):
                await self.bot.games.store.set_message(session.id, MessageRow(
                    "live", row.channel_id, row.message_id, _digest(want.live), want.stage))
                return
        files = await self._files(want.live)
        message = await self._call(home.send(
            content=want.live.content or None, embed=or_missing(embed_of(want.live)), files=files,
            view=view or discord.utils.MISSING, allowed_mentions=discord.AllowedMentions.none()))
        await self._remember(session, "live", message, want.live, want.stage)

    async def _strip(self, row: MessageRow) -> None:
        message = await self._message(row.channel_id, row.message_id)
        if message is not None:
            with contextlib.suppress(discord.NotFound):
                await self._call(message.edit(view=None))

    async def _ping(self, session: Session, want: Post | None, home: discord.abc.Messageable,
                    row: MessageRow | None) -> None:
        store = self.bot.games.store
        if want is None:
            if row is not None:
                await self._delete(row)
                await store.drop_message(session.id, "ping")
            return
        users = ",".join(str(u) for u in sorted(want.mentions))
        flag = "remind" if session.row.reminded else ""
        if row is not None:
            had_users, _, had_flag = row.stage.partition("|")
            had = set(had_users.split(",")) if had_users else set()
            if set(users.split(",")) <= had and had_flag == flag:
                # fewer to nudge: an edit, which notifies nobody
                if row.digest != _digest(want) and await self._edit(row, want, None, False):
                    await store.set_message(session.id, MessageRow(
                        "ping", row.channel_id, row.message_id, _digest(want), row.stage))
                return
            await self._delete(row)
        message = await self._call(home.send(
            want.content, allowed_mentions=discord.AllowedMentions(
                users=[discord.Object(u) for u in want.mentions], roles=False, everyone=False)))
        await self._remember(session, "ping", message, want, f"{users}|{flag}")

    async def _delete(self, row: MessageRow) -> None:
        message = await self._message(row.channel_id, row.message_id)
        if message is None:
            return
        with contextlib.suppress(discord.NotFound):
            await self._call(message.delete())

    async def _dm(self, session: Session, private: Private, send: Callable[
            [discord.User], Awaitable[discord.Message]]) -> discord.Message | None:
        """A new DM; None (and the seat's DMs marked closed) when Discord refuses it."""
        try:
            user = self.bot.get_user(private.user_id)
            if user is None:
                user = await self._call(self.bot.fetch_user(private.user_id))
            return await self._call(send(user))
        except discord.Forbidden:
            await self.bot.games.set_dm_closed(session.id, private.colour, True)
            return None

    async def _private(self, session: Session, private: Private,
                       stored: dict[str, MessageRow]) -> None:
        if private.colour in session.dm_closed:
            return
        store = self.bot.games.store
        screen = private.screen
        slot = f"screen:{private.colour}"
        row = stored.get(slot)
        holder = str(private.user_id)
        if screen is not None and row is not None and row.digest == _digest(screen) \
                and row.stage != holder:  # stored before screens named their holder
            row = MessageRow(slot, row.channel_id, row.message_id, row.digest, holder)
            await store.set_message(session.id, row)
        if screen is not None and (row is None or row.digest != _digest(screen)):
            edited = row is not None and await self._edit_dm(row, screen, None,
                                                              _picture_changed(row, screen))
            if edited:
                assert row is not None
                await store.set_message(session.id, MessageRow(
                    slot, row.channel_id, row.message_id, _digest(screen), holder))
            else:
                files = await self._files(screen)
                message = await self._dm(session, private, lambda user: user.send(
                    screen.content, files=files))
                if message is None:
                    return
                await self._remember(session, slot, message, screen, holder)
        owed = private.prompt
        slot = f"prompt:{private.colour}"
        row = stored.get(slot)
        if owed is None:
            if row is not None:
                await self._retire(session, private.colour, row)
            return
        if row is not None and _turn(row) == owed.turn:
            return
        if row is not None:
            await self._retire(session, private.colour, row)
        post = Post(content=owed.text, seq=owed.turn)
        view = prompt_view(session.id, owed)
        message = await self._dm(session, private, lambda user: user.send(
            owed.text, view=view or discord.utils.MISSING))
        if message is not None:
            await self._remember(session, slot, message, post, f"{owed.turn}@{holder}")

    async def _turn(self, session: Session, private: Private,
                    stored: dict[str, MessageRow]) -> None:
        """The "your turn" DM: one new DM per decision that becomes the player's; an older
        one stays as it was (it has no components)."""
        if private.turn is None or private.colour in session.dm_closed:
            return
        slot = f"turn:{private.colour}"
        row = stored.get(slot)
        if row is not None and row.stage == private.turn_key:
            return
        turn = private.turn
        message = await self._dm(session, private, lambda user: user.send(turn.content))
        if message is not None:
            await self._remember(session, slot, message, turn, private.turn_key)

    async def _edit_dm(self, row: MessageRow, post: Post, view: discord.ui.View | None,
                       new_picture: bool) -> bool:
        try:
            return await self._edit(row, post, view, new_picture)
        except discord.Forbidden:
            return False

    async def _retire(self, session: Session, colour: str, row: MessageRow) -> None:
        """A prompt whose decision is made (or gone) loses its components and says so, in
        the language of the user it was sent to."""
        seat = session.seat(colour)
        holder = _holder(row) or (seat.user_id if seat is not None else None)
        lang = private_language(session, holder, self.bot.languages)
        own = [s for s in session.log if s.actor == colour]
        turn = _turn(row)
        if session.status == "aborted":
            text = t("bot.hidden.aborted", lang)
        elif 0 <= turn < len(own):
            line = own[turn].line.split(" ", 1)[1] if " " in own[turn].line else own[turn].line
            key = "bot.hidden.played_by_ai" if own[turn].by == "timeout" else \
                "bot.hidden.submitted"
            text = t(key, lang, move=move_text(session, line, lang), id=session.id)
        else:
            text = t("bot.hidden.closed", lang)
        message = await self._message(row.channel_id, row.message_id)
        if message is not None:
            with contextlib.suppress(discord.NotFound, discord.Forbidden):
                await self._call(message.edit(content=text, view=None))
        await self.bot.games.store.drop_message(session.id, f"prompt:{colour}")

    async def _hand_over(self, session: Session, slot: str, row: MessageRow) -> None:
        """A seat changed hands: its previous holder's DM screen or prompt says they no
        longer hold it, why, and loses its picture and components (the secret stays with
        the seat)."""
        colour = slot.partition(":")[2]
        holder = _holder(row)
        if holder is None:  # stored before messages named their holder: the latest one out
            holder = next((c.old_id for c in reversed(session.changes)
                           if c.colour == colour and c.old_id is not None), None)
        gone = session.gone(holder, colour) if holder is not None else None
        lang = private_language(session, holder, self.bot.languages)
        text = refusal_text(session, gone, lang) if gone is not None \
            else t("bot.hidden.closed", lang)
        message = await self._message(row.channel_id, row.message_id)
        if message is not None:
            with contextlib.suppress(discord.NotFound, discord.Forbidden):
                await self._call(message.edit(content=text, embed=None, attachments=[],
                                              view=None))
        await self.bot.games.store.drop_message(session.id, slot)


async def _caught(work: Awaitable[None]) -> Exception | None:
    """Run one part of a pass; what stopped it, or None."""
    try:
        await work
    except Exception as error:
        return error
    return None


def _worst(game_id: int, failed: list[Exception]) -> Exception:
    """What a pass whose parts failed raises: a :class:`Retry` when any part asks for one
    (the pass is tried again soon), else the first error; the others are logged here."""
    worst = next((e for e in failed if isinstance(e, Retry)), failed[0])
    for error in failed:
        if error is not worst and not isinstance(error, Retry):
            log.error("showing game %s failed in part", game_id, exc_info=error)
    return worst


def _in_thread(session: Session) -> bool:
    """Whether the game's table lives in a thread of its own (not in the channel)."""
    row = session.row
    return row.thread_id is not None and row.thread_id != row.channel_id


def _holder(row: MessageRow) -> int | None:
    """Whom a DM screen or prompt was sent to (None: stored before messages said so)."""
    who = row.stage.rpartition("@")[2] if row.slot.startswith("prompt:") else row.stage
    return int(who) if who.isdecimal() else None


def _turn(row: MessageRow) -> int:
    """The seat's action count a DM prompt was made for (-1: unknown)."""
    turn = row.stage.partition("@")[0]
    return int(turn) if turn.isdecimal() else -1


def _heard(future: asyncio.Future[Any]) -> None:
    """For a picture drawn early that its pass did not take (it stopped first): its failure
    is the pass's to log, or nobody's."""
    if not future.cancelled():
        future.exception()


def _digest(post: Post) -> str:
    return f"{post.digest()}:{post.picture.key if post.picture else ''}"


def _went_back(shown: str, wanted: str) -> bool:
    """Whether the table went back to an earlier stage (a take-back, ``/game undo``): the live
    message is then edited to it, not closed and followed by a new one."""
    old, new = table.parse_stage(shown), table.parse_stage(wanted)
    return old is not None and new is not None and new[1] <= old[1]


def _picture_changed(row: MessageRow, post: Post) -> bool:
    old = row.digest.partition(":")[2]
    return post.picture is not None and old != post.picture.key




__all__ = ["Outbox", "Retry"]
