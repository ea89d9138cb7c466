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
A thread found archived (50083) is unarchived and the pass goes on; one locked, or that the
bot may not unarchive, has the table move into the channel, with a note.
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

The outbox is one class over private modules, one per part of a pass:
:mod:`bot.adapter._outbox_base` (its state and Discord calls), :mod:`bot.adapter._outbox_home`
(the lobby card and the table's home), :mod:`bot.adapter._outbox_live` (the live table and the
ping) and :mod:`bot.adapter._outbox_dms` (the DMs); here are the scheduling (runs coalesced
per game, retries with backoff, other processes' notices) and the pass that puts them together.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable

import discord

from bot import table
from bot.adapter._outbox_base import Retry, in_thread, log, refused, sent_row
from bot.adapter._outbox_dms import Dms
from bot.adapter._outbox_home import THREAD_ARCHIVED, Homes
from bot.adapter._outbox_live import LiveTable, shown_stage
from bot.constants import RETRY_FIRST, RETRY_MOST
from bot.host.sessions import Session
from bot.host.store import ACTIVE, EVERY_GAME, MessageRow
from bot.table import Desired, Post
from bot.table.pool import BOARDS

RENDERERS = BOARDS
UNKNOWN_CHANNEL = 10003
"""Discord's code for a channel or thread that does not exist (any more)."""


class Outbox(Homes, LiveTable, Dms):
    """Reconciles every game's Discord messages with its stored state."""

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
            if session.row.thread_id == thread_id and in_thread(session):
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
                             shown_stage(live_row), self.bot.settings.ping_after,
                             host.notify, self.bot.languages)
        early = self._draw_early(session, want, stored, public and trouble is None)
        private: Exception | None = None
        try:
            if public and trouble is None:
                trouble = await _caught(self._public(session, want, home, stored, names,
                                                     renderer))
                home, trouble = await self._archived(session, want, home, stored, trouble,
                                                     names, renderer, notes=False)
            if want.live is not None:
                private = await _caught(self._private_part(session, want, stored))
                if public and trouble is None and home is not None:
                    trouble = await _caught(self._notes(session, want, home, stored))
                    home, trouble = await self._archived(session, want, home, stored,
                                                         trouble, names, renderer, notes=True)
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
        return home is not None and want.live is not None and session.status != "running" \
            and session.row.lobby_message_id not in self._capped

    async def _archived(self, session: Session, want: Desired,
                        home: discord.abc.Messageable | None, stored: dict[str, MessageRow],
                        trouble: Exception | None, names: dict[str, str],
                        renderer: table.Renderer | None, *, notes: bool
                        ) -> tuple[discord.abc.Messageable | None, Exception | None]:
        """When the game's thread refused a post or an edit because it is archived (50083):
        it is unarchived, or the table moves to the channel (:meth:`_reopen`), and the
        channel part goes once more in the home it has now (``notes``: its part after the
        DMs too). Returns that home and what stops the pass now."""
        if not refused(trouble, THREAD_ARCHIVED) or not in_thread(session):
            return home, trouble
        try:
            home = await self._reopen(session, stored)
            if not in_thread(session):  # moved: the lobby card's link follows next pass
                self.kick(session.id)
            await self._public(session, want, home, stored, names, renderer)
            if notes:
                await self._notes(session, want, home, stored)
        except Exception as error:
            return home, error
        return home, None

    def _trouble(self, session: Session, error: Exception) -> Exception | None:
        """What stopped a pass's channel part: a refusal (403, or 404 for the channel itself)
        makes the channel wait; a thread found deleted (404 Unknown Channel) is moved away
        from on the next pass, soon (a retry with backoff); anything else is the caller's."""
        row = session.row
        if isinstance(error, discord.NotFound) and error.code == UNKNOWN_CHANNEL \
                and in_thread(session):
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
        await self._strip_capped()

    async def _notes(self, session: Session, want: Desired, home: discord.abc.Messageable,
                     stored: dict[str, MessageRow]) -> None:
        """The channel part after the DMs: the note on closed DMs (those found closed in this
        pass count) and the result at the end."""
        note = table.dm_note(session, session.row.language)
        if note is not None and "dm_note" not in stored:
            message = await self._call(home.send(note.content,
                                                 allowed_mentions=discord.AllowedMentions.none()))
            await self._remember(session, "dm_note", message, note)
            stored["dm_note"] = sent_row("dm_note", message, note)
        if want.final is not None and "final" not in stored:
            assert want.final.attachment is not None
            name, record = want.final.attachment
            message = await self._call(home.send(
                want.final.content, file=discord.File(io.BytesIO(record.encode()), filename=name),
                allowed_mentions=discord.AllowedMentions.none()))
            await self._remember(session, "final", message, want.final)
            stored["final"] = sent_row("final", message, want.final)


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


__all__ = ["Outbox", "Retry"]
