"""The game cache and lock: the games in memory by id and by channel, read from the store
once however many ask, each changed under its lock (:meth:`GameCache._hold`, which announces
the change), and caught up when another process over a shared store changed them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from typing import Any

from bot.host._base import HostBase
from bot.host._session import (
    KEEP_STATES,
    Refusal,
    Seat,
    Session,
    Step,
    Takeback,
    with_row,
)
from bot.host.store import (
    ACTIVE,
    EVERY_GAME,
    ActiveGame,
    GameMark,
    GameRow,
    Snapshot,
    StaleGame,
)
from rules.core import (
    IllegalAction,
    reveals,
)
from rules.record import (
    Game,
    RecordError,
    parse_header,
    parse_line,
    replay_lines,
)

log = logging.getLogger("bot.host.sessions")  # one name for the host's lines, as documented


class GameCache(HostBase):
    """The games in memory: loaded once, locked one change at a time, caught up when another
    process changed them."""

    async def load(self) -> list[Session]:
        """Reload every game in a lobby or running, e.g. after a restart."""
        self.notify = await self.store.notified_users()
        loaded = []
        for active in await self.store.load_active():
            row = active.row
            try:
                session = await self._loaded(active)
            except Exception:
                log.exception("game %s (channel %s) could not be reloaded", row.id,
                              row.channel_id)
                continue
            self._remember(session)
            loaded.append(session)
        log.info("reloaded %d game(s)", len(loaded))
        await self._rate_missed()
        return loaded

    async def _load(self, row: GameRow) -> Session:
        """One game, read from the store by itself (a finished game to rate, a late click)."""
        seats = await self.store.seats(row.id)
        dm_closed = await self.store.closed_dms(row.id)
        changes = await self.store.seat_changes(row.id)
        if row.header is None:
            return await self._loaded(ActiveGame(row, seats, dm_closed, changes, None, [], []))
        return await self._loaded(ActiveGame(
            row, seats, dm_closed, changes, await self.store.snapshot(row.id),
            await self.store.log(row.id), await self.store.takebacks(row.id)))

    async def _loaded(self, active: ActiveGame) -> Session:
        """A session from what the store read of its game; a log with a gap is refused."""
        row = active.row
        if active.damage is not None:
            raise ValueError(active.damage)
        session = Session(row, list(active.seats),
                          dm_closed=set(active.dm_closed), changes=list(active.changes))
        if row.header is not None:
            session.log = [Step.of(r) for r in active.log]
            session.game = await self._rebuild(row, [r.line for r in active.log],
                                               active.snapshot)
            session.takebacks = [Takeback(tb.at, tb.colour, [Step.of(r) for r in tb.rows])
                                 for tb in active.takebacks]
        return session

    async def _rebuild(self, row: GameRow, lines: list[str],
                       snapshot: Snapshot | None) -> Game:
        """The game from its latest snapshot when the snapshot is of the log's last action (a
        start reads, it does not replay); replayed from the log when the snapshot is missing,
        of another action or unreadable. :meth:`check` compares the two later."""
        assert row.header is not None
        header = parse_header(row.header)
        module = header.module
        if snapshot is not None and snapshot.seq == len(lines):
            try:
                return Game(header, module.from_json(snapshot.state), list(lines))
            except (KeyError, TypeError, ValueError) as error:
                log.warning("game %s: its snapshot does not load (%s); using the log",
                            row.id, error)
        else:
            log.warning("game %s: its snapshot is not of action %s; using the log", row.id,
                        len(lines))
        return await asyncio.to_thread(replay_lines, row.header, lines)

    async def check(self, game_id: int) -> bool:
        """Replay a running game's log and compare it with the position it was loaded with
        (its snapshot): True when they agree. When they do not, the log wins: the game goes
        on from the replayed position, which is stored as its snapshot, and the disagreement
        is logged. The replay runs in a thread; the game's lock is held only to compare and
        repair."""
        session = self.sessions.get(game_id)
        if session is None or session.game is None or session.row.header is None:
            return True
        module = session.module
        lines = list(session.game.lines)
        replayed = await asyncio.to_thread(replay_lines, session.row.header, lines)
        async with self._hold(session):
            game = session.game
            if game is None or game.lines != lines:
                return True  # it moved on meanwhile: its new snapshot came from a commit
            if module.to_json(replayed.state) == module.to_json(game.state):
                return True
            log.warning("game %s: its snapshot disagrees with the action log; the log wins",
                        game_id)
            await self.store.write_snapshot(game_id, len(lines), module.to_json(replayed.state))
            game.state = replayed.state
            session.states.clear()
            return False

    async def check_all(self, pause: float = 0.0) -> int:
        """:meth:`check` every game loaded from the store, one after the other, ``pause``
        seconds apart (after a start, in the background, so that the checks never crowd out
        the moves); returns how many were repaired."""
        repaired = 0
        for game_id in list(self.sessions):
            try:
                repaired += not await self.check(game_id)
            except Exception:
                log.exception("game %s could not be checked against its log", game_id)
            if pause:
                await asyncio.sleep(pause)
        if repaired:
            log.warning("%d game(s) repaired from their logs", repaired)
        return repaired

    def _remember(self, session: Session) -> None:
        self.sessions[session.id] = session
        if session.status in ("lobby", "running"):
            self._by_channel[session.row.channel_id] = session.id
            if session.row.thread_id:
                self._by_channel[session.row.thread_id] = session.id

    def _forget(self, session: Session) -> None:
        """A closed game leaves the channel map; the outbox still shows its end (it keeps the
        session) and a late click on its buttons reloads it read-only."""
        for channel in (session.row.channel_id, session.row.thread_id):
            if channel and self._by_channel.get(channel) == session.id:
                del self._by_channel[channel]

    def drop(self, game_id: int) -> None:
        """Forget a closed game entirely, once Discord shows its end."""
        session = self.sessions.get(game_id)
        if session is not None and session.status not in ("lobby", "running"):
            self.sessions.pop(game_id, None)

    async def set_home(self, game_id: int, thread_id: int) -> None:
        """The table of this game lives in ``thread_id`` (a thread, or the lobby's channel)."""
        session = await self._session(game_id)
        await self.store.set_thread(game_id, thread_id)
        session.row = with_row(session.row, thread_id=thread_id)
        if session.status in ("lobby", "running"):
            self._by_channel[thread_id] = session.id

    async def set_lobby_message(self, game_id: int, message_id: int | None) -> None:
        """The game's lobby card is this message (None: it was deleted, and is forgotten)."""
        session = await self._session(game_id)
        await self.store.set_lobby_message(game_id, message_id)
        session.row = with_row(session.row, lobby_message_id=message_id)

    async def set_dm_closed(self, game_id: int, colour: str, closed: bool) -> None:
        session = await self._session(game_id)
        if (colour in session.dm_closed) == closed:
            return
        await self.store.set_dm_closed(game_id, colour, closed)
        if closed:
            session.dm_closed.add(colour)
        else:
            session.dm_closed.discard(colour)

    def in_channel(self, channel_id: int) -> Session | None:
        game_id = self._by_channel.get(channel_id)
        return self.sessions.get(game_id) if game_id is not None else None

    def channel_session(self, channel_id: int) -> Session:
        session = self.in_channel(channel_id)
        if session is None:
            raise Refusal("bot.refuse.no_game")
        return session

    def _running(self, channel_id: int) -> Session:
        session = self.channel_session(channel_id)
        if session.status == "lobby":
            raise Refusal("bot.refuse.not_started")
        return session

    def seat_for_play(self, session: Session, user_id: int) -> Seat:
        seat = session.seat_of(user_id)
        if seat is None:
            raise session.gone(user_id) or Refusal("bot.refuse.not_player")
        return seat

    async def get(self, game_id: int) -> Session:
        """A game by id (from memory, else the store), whatever its status. With a shared
        store, a copy that another process changed (as its notification said, :attr:`stale`)
        catches up first."""
        session = await self._session(game_id)
        if game_id in self.stale:
            session = await self.catch_up(game_id) or session
        return session

    async def _session(self, game_id: int) -> Session:
        """A game by id, from memory as it is, else read from the store (once, however many
        ask at the same time: a second copy of a game would have a lock of its own)."""
        session = self.sessions.get(game_id)
        if session is not None:
            return session
        loading = self._loading.get(game_id)
        if loading is None:
            loading = asyncio.ensure_future(self._read(game_id))
            self._loading[game_id] = loading
            loading.add_done_callback(lambda _: self._loading.pop(game_id, None))
        return await asyncio.shield(loading)

    async def _read(self, game_id: int) -> Session:
        row = await self.store.game(game_id)
        if row is None:
            raise Refusal("bot.refuse.unknown_game")
        session = await self._load(row)
        if session.status in ACTIVE:
            self._remember(session)
        return session

    async def recorded(self, channel_id: int) -> Session:
        """The game whose record this channel or thread gives (``/game record``): its game in
        play, else the latest game that started here (finished or aborted)."""
        session = self.in_channel(channel_id)
        if session is not None and session.game is not None:
            return session
        row = await self.store.latest_started(channel_id)
        if row is None:
            raise Refusal("bot.refuse.no_record")
        return await self.get(row.id)

    @asynccontextmanager
    async def _hold(self, session: Session, quiet: bool = False) -> AsyncIterator[None]:
        """The game's lock around a change: this process's lock and, with a shared store, the
        game's lock across processes, inside which the copy first catches up with the store
        (another process may have moved the game on, handed a seat over, paused it...). A
        :class:`StaleGame` that escapes (the store found an action's number taken: under the
        lock it should not happen, but the database is the judge) leaves the copy reloaded.
        With SQLite nothing is added: no query, no other lock. Whatever the block commits
        is announced (:meth:`listen`) unless ``quiet`` (a new lobby, shown by its creator's
        answer until that card is adopted)."""
        async with session.lock:
            with contextlib.nullcontext() if quiet else self._announcing(session):
                if not self.store.shared:
                    yield
                    return
                async with self.store.game_lock(session.id):
                    await self._catch_up(session)
                    try:
                        yield
                    except StaleGame:
                        await self._reload(session)
                        raise

    def heard(self, game_id: int) -> None:
        """Another process changed this game (:data:`EVERY_GAME`: any game): the copy in
        memory is stale until it catches up (:meth:`get`, :meth:`catch_up`, or the next change,
        which catches up anyway)."""
        if game_id == EVERY_GAME:
            self.stale.update(self.sessions)
        elif game_id in self.sessions:
            self.stale.add(game_id)

    async def catch_up(self, game_id: int) -> Session | None:
        """The game as stored now: the copy in memory brought up to date when another process
        changed it, or read from the store when this process has not seen it yet. None when
        the store has no such game, or it is not in a lobby or running and not in memory."""
        session = self.sessions.get(game_id)
        if session is None:
            row = await self.store.game(game_id)
            if row is None or row.status not in ACTIVE:
                return None
            return await self._session(game_id)
        async with session.lock:
            await self._catch_up(session)
        return session if self.sessions.get(game_id) is session else None

    async def compare(self, game_ids: Collection[int] | None = None) -> dict[int, GameMark]:
        """Which of these games in memory (None: all of them) another process changed, in one
        query, with their marks as stored: they are marked :attr:`stale` (a game the store no
        longer has is dropped)."""
        ids = [i for i in (self.sessions if game_ids is None else game_ids)
               if i in self.sessions]
        marks = await self.store.stored_marks(ids)
        changed = {}
        for game_id in ids:
            session = self.sessions.get(game_id)
            if session is None:
                continue
            mark = marks.get(game_id)
            if mark is None:
                self._gone(session)
            elif mark != session.mark():
                changed[game_id] = mark
        self.stale.update(changed)
        return changed

    async def seated(self, user_id: int) -> list[Session]:
        """Every game in a lobby or running where the user holds a seat as stored (with a
        shared store another process may have seated them), each caught up: what a DM from
        them may be about."""
        ids = await self.store.seated_games(user_id)
        for game_id in ids:
            with contextlib.suppress(Refusal):
                await self._session(game_id)
        for game_id in await self.compare(ids):
            await self.catch_up(game_id)
        return [self.sessions[i] for i in sorted(ids) if i in self.sessions]

    def evict(self, game_id: int) -> None:
        """Drop a copy this process does not show from memory: it is read again when needed."""
        session = self.sessions.pop(game_id, None)
        self.stale.discard(game_id)
        if session is not None:
            self._forget(session)

    async def _catch_up(self, session: Session) -> bool:
        """Compare the copy with the store (one query) and reload it when another process
        changed the game; True when it was behind. Called with the session's lock held."""
        self.stale.discard(session.id)
        mark = (await self.store.stored_marks([session.id])).get(session.id)
        if mark is None:
            self._gone(session)
            return True
        if mark == session.mark():
            return False
        await self._reload(session)
        return True

    def _gone(self, session: Session) -> None:
        """The store no longer has the game (its server's games were deleted)."""
        if session.status in ACTIVE:
            session.row = with_row(session.row, status="aborted")
        self.evict(session.id)

    async def _reload(self, session: Session) -> None:
        """The copy, in place, as stored: the game's row, seats, seat changes and closed DMs,
        and the log rows after the ones it holds, played on from its position (so the
        positions in between are kept for the table, as after a move of its own; from the
        snapshot when there are more than :data:`KEEP_STATES`). Read whole after a take-back
        (the log it holds no longer starts the stored one), or when the new rows do not follow
        on. Called with the session's lock held."""
        self.reloads += 1
        after = session.seq if session.game is not None else 0
        active = await self.store.load_game(session.id, after)
        moved = None
        if active is not None and after:
            moved = self._moved_on(session, active, after)
            if moved is None:
                after = 0
                active = await self.store.load_game(session.id, 0)
        if active is None:
            self._gone(session)
            return
        if active.damage is not None:
            raise ValueError(active.damage)
        row = active.row
        rebuilt = None  # read whole: built before anything changes (the outbox reads on)
        if moved is None and row.header is not None:
            rebuilt = await self._rebuild(row, [r.line for r in active.log], active.snapshot)
        session.row = row
        session.seats = list(active.seats)
        session.dm_closed = set(active.dm_closed)
        session.changes = list(active.changes)
        if moved is not None:
            state, states = moved
            steps = [Step.of(r) for r in active.log]
            if any(reveals(step.events) for step in steps):
                for step in session.log:
                    step.sealed = None
            assert session.game is not None
            session.log.extend(steps)
            session.game.lines.extend(r.line for r in active.log)
            session.game.state = state
            session.states.update(states)
            for seq in [k for k in session.states if k < session.seq - KEEP_STATES]:
                del session.states[seq]
        elif row.header is None:
            session.game, session.log, session.states = None, [], {}
        else:
            session.log = [Step.of(r) for r in active.log]
            session.game = rebuilt
            session.states = {}
        if moved is None:
            session.takebacks = [Takeback(tb.at, tb.colour, [Step.of(r) for r in tb.rows])
                                 for tb in active.takebacks]
        if row.status in ACTIVE:
            self._remember(session)
        else:
            self._forget(session)

    def _moved_on(self, session: Session, active: ActiveGame,
                  after: int) -> tuple[Any, dict[int, Any]] | None:
        """Where the log rows after the copy's ``after`` lead: the position after the last one
        and the positions before each (played on from the copy's position when there are few
        enough to keep, else the snapshot's position and none). None when they do not follow
        on from the copy: a take-back came between, or a row does not apply."""
        snapshot = active.snapshot
        rows = active.log
        if active.damage is not None or len(active.takebacks) != len(session.takebacks) \
                or snapshot is None or snapshot.seq != after + len(rows):
            return None
        game = session.game
        assert game is not None
        module = session.module
        if len(rows) > KEEP_STATES:
            try:
                return module.from_json(snapshot.state), {}
            except (KeyError, TypeError, ValueError):
                return None
        state = game.state
        states: dict[int, Any] = {}
        try:
            for row in rows:
                actor, action = parse_line(module, row.line)
                states[row.seq - 1] = state
                state, _ = module.apply(state, actor, module.canonical(state, actor, action))
        except (IllegalAction, RecordError, KeyError, TypeError, ValueError) as error:
            log.warning("game %s: the new log rows do not follow on from this copy (%s);"
                        " it is read whole", session.id, error)
            return None
        return state, states
