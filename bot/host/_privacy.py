"""Privacy: ``/game forget-me`` (seats freed or handed to the AI, then the store forgets the
user), and the games of a server the bot left (aborted, then deleted after a while).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from bot.host._cache import GameCache
from bot.host._session import (
    Forgot,
    Refusal,
    Report,
    Session,
    with_row,
)
from bot.host.store import (
    FORMER_ID,
    Purged,
)

log = logging.getLogger("bot.host.sessions")  # one name for the host's lines, as documented


class Privacy(GameCache):
    """Forgetting a user, and the games of a server the bot left."""

    async def forget(self, user_id: int) -> Forgot:
        """``/game forget-me``: in every lobby the user's seat is freed (a lobby they opened
        is closed: nobody else could start it); in every running game their seat goes to the
        AI as with ``/game leave`` (a game with no other human is aborted); then the store
        deletes their settings and ratings and leaves the games an anonymous former player
        (:meth:`Store.forget_user`), and memory follows."""
        lobbies: list[Session] = []
        handed: list[Report] = []
        ended: list[Session] = []
        if self.store.shared:  # games another process started since are seats of theirs too
            await self.seated(user_id)
        for session in sorted(self.sessions.values(), key=lambda s: s.id):
            if session.status == "lobby" and session.row.creator_id == user_id:
                ended.append(await self._close(session, "its creator asked to be forgotten"))
            elif session.status == "lobby" and session.seat_of(user_id) is not None:
                await self.leave(session.id, user_id)
                lobbies.append(session)
            elif session.status == "running" and session.seat_of(user_id) is not None:
                try:
                    handed.append(await self.step_down(session.id, user_id))
                except Refusal:  # the last human: the AI would play it out alone
                    ended.append(await self._close(
                        session, "its last human player asked to be forgotten"))
        stored = await self.store.forget_user(user_id)
        self.notify.discard(user_id)
        for session in list(self.sessions.values()):
            with self._announcing(session):
                await self._anonymise(session, user_id)
        return Forgot(stored, lobbies, handed, ended)

    async def _close(self, session: Session, why: str) -> Session:
        async with self._hold(session):
            if session.status in ("lobby", "running"):
                await self.store.set_status(session.id, "aborted")
                session.row = with_row(session.row, status="aborted")
                self._forget(session)
                log.info("game %s (%s) aborted: %s", session.id, session.row.game, why)
        return session

    async def _anonymise(self, session: Session, user_id: int) -> None:
        """The session in memory as the store keeps it after :meth:`Store.forget_user`."""
        row = session.row
        if user_id in (row.creator_id, row.paused_by):
            session.row = with_row(row, creator_id=FORMER_ID if row.creator_id == user_id
                                else row.creator_id,
                                paused_by=FORMER_ID if row.paused_by == user_id
                                else row.paused_by)
        if any(user_id in (c.user_id, c.old_id, c.by_id) for c in session.changes):
            session.changes = await self.store.seat_changes(session.id)
        stored = {s.colour: s for s in await self.store.seats(session.id)}
        for seat in session.seats:
            if seat.colour in stored:
                seat.user_id, seat.name = stored[seat.colour].user_id, stored[seat.colour].name

    async def end_guild(self, guild_id: int) -> list[Session]:
        """The bot was removed from a server: its games can no longer be shown, so those in a
        lobby or running are aborted at once and leave memory."""
        ended = []
        for session in sorted(self.sessions.values(), key=lambda s: s.id):
            if session.row.guild_id == guild_id:
                ended.append(await self._close(session, f"the bot left server {guild_id}"))
                self.sessions.pop(session.id, None)
        return ended

    async def purge(self, now: datetime, after_days: int) -> list[Purged]:
        """Delete every game of each server the bot left at least ``after_days`` days before
        ``now`` (0: at once), with everything kept of that server."""
        purged = []
        for guild_id, left_at in (await self.store.departures()).items():
            if datetime.fromisoformat(left_at) + timedelta(days=after_days) > now:
                continue
            await self.end_guild(guild_id)
            purged.append(await self.store.delete_guild(guild_id))
            log.info("server %s: its games are deleted (%s days after the bot left)",
                     guild_id, after_days)
        return purged
