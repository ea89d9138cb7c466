"""Turn timers and pace: the deadline of the humans to act (stored as an absolute time, so a
restart keeps it), its reminder, the timeout (the AI plays for them), pause, the time per turn,
and who wants a DM when it is their turn.
"""

from __future__ import annotations

import logging
import math
from datetime import datetime, timedelta

from bot.host._cache import GameCache
from bot.host._moves import ai_seed
from bot.host._session import (
    Refusal,
    Report,
    Session,
    Step,
    humans_pending,
    with_row,
)
from bot.host.clock import iso
from bot.host.store import CLAIM_LEASE

log = logging.getLogger("bot.host.sessions")  # one name for the host's lines, as documented


REMIND_AFTER = 0.75
"""A turn reminder goes out once this share of the turn time has passed."""


class Timers(GameCache):
    """Turn deadlines, reminders and timeouts, and the pace of a game."""

    async def _arm_safely(self, session: Session) -> None:
        try:
            await self._arm(session)
        except Exception:
            log.exception("game %s: the turn deadline could not be stored", session.id)

    async def _arm(self, session: Session) -> None:
        """Start the clock for the humans now pending (or stop it); stored as an absolute time,
        so a restart keeps every deadline."""
        if session.paused:
            return  # the time left is kept until the game resumes
        seconds = session.row.turn_seconds
        deadline = None
        if seconds and session.status == "running" and humans_pending(session):
            deadline = iso(self.store.clock() + timedelta(seconds=seconds))
        if deadline != session.row.deadline_at or session.row.reminded:
            await self.store.set_deadline(session.id, deadline)
            session.row = with_row(session.row, deadline_at=deadline, reminded=0)

    def due(self, now: datetime) -> list[tuple[Session, str]]:
        """Games whose turn time is up (``timeout``) or nearly up (``remind``) at ``now``."""
        out = []
        for session in list(self.sessions.values()):
            row = session.row
            if session.status != "running" or not row.deadline_at or not row.turn_seconds \
                    or session.paused:
                continue
            deadline = datetime.fromisoformat(row.deadline_at)
            if now >= deadline:
                out.append((session, "timeout"))
            elif not row.reminded and now >= deadline - timedelta(
                    seconds=row.turn_seconds * (1 - REMIND_AFTER)):
                out.append((session, "remind"))
        return out

    async def remind(self, game_id: int) -> Session | None:
        """Mark the reminder of the current turn as sent; None if it went out already. With a
        shared store it is claimed (:meth:`Store.claim_reminder`): of several processes that
        find it due, one sends it."""
        session = await self._session(game_id)
        async with self._hold(session):
            row = session.row
            if session.status != "running" or row.reminded or not row.deadline_at:
                return None
            if self.store.shared:
                if not await self.store.claim_reminder(session.id, row.deadline_at):
                    return None
            else:
                await self.store.mark_reminded(session.id)
            session.row = with_row(row, reminded=1)
            return session

    async def timeout(self, game_id: int, now: datetime) -> Report:
        """The AI plays for every human whose time is up, then the game goes on as usual."""
        session = await self._session(game_id)
        async with self._hold(session):
            row = session.row
            if session.status != "running" or session.game is None or not row.deadline_at \
                    or session.paused or now < datetime.fromisoformat(row.deadline_at):
                return Report(session, [])
            if self.store.shared:  # of several processes, the one that claims it plays it
                lease = iso(self.store.clock() + timedelta(seconds=CLAIM_LEASE))
                if not await self.store.claim_deadline(session.id, row.deadline_at, lease):
                    return Report(session, [])
                session.row = with_row(row, reminded=1)  # as claimed: the next deadline is armed
            steps: list[Step] = []
            before = session.stage()
            for seat in humans_pending(session):
                if seat.colour not in session.pending():
                    continue
                action = await self.thinking.choose(
                    session.module, session.game.state, seat.colour, row.ai_level,
                    ai_seed(row.seed, session.seq))
                steps.append(await self._apply(session, seat.colour, action, "timeout"))
            steps += await self._advance_safely(session)
            await self._arm_safely(session)
            return Report(session, steps, before)

    def _may_pace(self, session: Session, user_id: int, is_admin: bool) -> None:
        if user_id != session.row.creator_id and not is_admin:
            raise Refusal("bot.refuse.pace_denied")

    async def pause(self, channel_id: int, user_id: int, is_admin: bool = False) -> Session:
        """Stop the game's clock: the turn time left is kept, moves wait for :meth:`unpause`."""
        session = self._running(channel_id)
        async with self._hold(session):
            self._may_pace(session, user_id, is_admin)
            if session.paused:
                raise Refusal("bot.refuse.already_paused")
            row = session.row
            left = None
            if row.deadline_at:
                rest = datetime.fromisoformat(row.deadline_at) - self.store.clock()
                left = max(0, math.ceil(rest.total_seconds()))
            await self.store.set_paused(session.id, user_id, left, None)
            session.row = with_row(row, paused_by=user_id, paused_left=left, deadline_at=None)
            return session

    async def unpause(self, channel_id: int, user_id: int, is_admin: bool = False) -> Session:
        """Go on after :meth:`pause`: the time that was left counts again."""
        session = self._running(channel_id)
        async with self._hold(session):
            self._may_pace(session, user_id, is_admin)
            row = session.row
            if not session.paused:
                raise Refusal("bot.refuse.not_paused")
            deadline = None
            if row.turn_seconds and humans_pending(session):
                left = row.paused_left if row.paused_left is not None else row.turn_seconds
                deadline = iso(self.store.clock() + timedelta(seconds=left))
            await self.store.set_paused(session.id, None, None, deadline)
            session.row = with_row(row, paused_by=None, paused_left=None, deadline_at=deadline)
            return session

    async def set_turn_time(self, channel_id: int, user_id: int, seconds: int | None,
                            is_admin: bool = False) -> Session:
        """A new time per turn (None: no deadline); the current turn starts on it afresh."""
        session = self.channel_session(channel_id)
        async with self._hold(session):
            self._may_pace(session, user_id, is_admin)
            seconds = seconds or None
            deadline = left = None
            if seconds and session.status == "running" and humans_pending(session):
                if session.paused:
                    left = seconds
                else:
                    deadline = iso(self.store.clock() + timedelta(seconds=seconds))
            await self.store.set_turn_time(session.id, seconds, deadline, left)
            session.row = with_row(session.row, turn_seconds=seconds, deadline_at=deadline,
                                paused_left=left, reminded=0)
            return session

    async def set_notify(self, user_id: int, on: bool) -> None:
        """Whether this user gets a DM when it is their turn (in every game)."""
        await self.store.set_notify(user_id, on)
        if on:
            self.notify.add(user_id)
        else:
            self.notify.discard(user_id)
        for session in list(self.sessions.values()):  # their "your turn" DMs change
            if session.seat_of(user_id) is not None:
                self._announce(session.id)
