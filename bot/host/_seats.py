"""Seats changing hands in a running game: a player steps down or is kicked (the AI takes the
seat over), someone takes a seat or is given one.
"""

from __future__ import annotations

from dataclasses import replace

from bot.host._cache import GameCache
from bot.host._session import (
    Refusal,
    Report,
    Seat,
    Session,
    humans_pending,
)
from bot.host.clock import iso
from bot.host.store import (
    SeatChangeRow,
)


class Seats(GameCache):
    """Seats changing hands in a running game."""

    async def step_down(self, game_id: int, user_id: int) -> Report:
        """A player leaves a running game: the AI plays their seat from now on, at the game's
        AI level (at once, if the seat is to act)."""
        session = await self._session(game_id)
        async with self._hold(session):
            session = self._changing(session)
            seat = self.seat_for_play(session, user_id)
            _not_last(session, seat)
            return await self._handed(session, seat, None, "", "left", user_id)

    async def kick(self, game_id: int, by_id: int, user_id: int,
                   is_admin: bool = False) -> Report:
        """The creator (or a server manager) removes a player: from the lobby, their seat
        goes; in a running game, the AI takes it over."""
        session = await self._session(game_id)
        async with self._hold(session):
            if session.status not in ("lobby", "running"):
                raise Refusal("bot.refuse.game_closed")
            if by_id != session.row.creator_id and not is_admin:
                raise Refusal("bot.refuse.seat_kick_denied", creator=session.row.creator_id)
            if by_id == user_id:
                raise Refusal("bot.refuse.seat_kick_self")
            seat = session.seat_of(user_id)
            if seat is None:
                raise Refusal("bot.refuse.seat_kick_not_player", holder=user_id)
            if session.status == "running":
                session = self._changing(session)
                _not_last(session, seat)
            # the hold first: should the seat change fail, they still hold the seat anyway
            await self.store.hold_kick(session.id, user_id, by_id)
            if session.status == "lobby":
                await self._drop(session, seat, "dropped", by_id)
                return Report(session, [])
            return await self._handed(session, seat, None, "", "kicked", by_id)

    async def allow(self, game_id: int, by_id: int, user_id: int,
                    is_admin: bool = False) -> bool:
        """The creator (or a server manager) lifts a kick's hold: the player may join or take
        a seat again. Whether there was a hold."""
        session = await self._session(game_id)
        async with self._hold(session, quiet=True):
            if session.status not in ("lobby", "running"):
                raise Refusal("bot.refuse.game_closed")
            if by_id != session.row.creator_id and not is_admin:
                raise Refusal("bot.refuse.kick_allow_denied", creator=session.row.creator_id)
            return await self.store.lift_kick(session.id, user_id)

    async def take(self, game_id: int, user_id: int, colour: str, *, for_id: int | None = None,
                   name: str = "", is_admin: bool = False) -> Report:
        """``user_id`` takes over the seat ``colour`` (or, with ``for_id``, gives it to that
        user). Anyone not playing may take an AI seat that a player left or was removed from,
        or a seat whose player's time ran out on their latest turn; the creator (or a server
        manager) may give any seat to anyone not playing, themselves included. A player kicked
        from the game takes none until one of those gives them a seat (which lifts the hold) or
        lets them back (:meth:`allow`)."""
        session = await self._session(game_id)
        async with self._hold(session):
            if session.status == "lobby":
                raise Refusal("bot.refuse.seat_take_lobby")
            session = self._changing(session)
            creator = session.row.creator_id
            approved = user_id == creator or is_admin
            taker = user_id if for_id is None else for_id
            if taker != user_id and not approved:
                raise Refusal("bot.refuse.seat_give_denied", creator=creator)
            seat = session.seat(colour.strip().lower())
            if seat is None:
                raise Refusal("bot.refuse.seat_unknown", seat=colour,
                              colours=[s.colour for s in session.seats])
            if (held := session.seat_of(taker)) is not None:
                if taker == user_id:
                    raise Refusal("bot.refuse.seat_already_yours", seat=held.colour)
                raise Refusal("bot.refuse.seat_target_seated", holder=taker, seat=held.colour)
            await self._unheld(session, taker, approved)
            if seat.is_ai and not (seat.was_human or approved):
                raise Refusal("bot.refuse.seat_ai_from_start", seat=seat.colour,
                              creator=creator)
            if not seat.is_ai and not (approved or session.timed_out(seat.colour)):
                raise Refusal("bot.refuse.seat_held", seat=seat.colour, holder=seat.user_id,
                              creator=creator)
            what = "took" if taker == user_id else "handed"
            return await self._handed(session, seat, taker, name, what, user_id)

    async def _unheld(self, session: Session, taker: int, approved: bool) -> None:
        """A kicked player takes no seat on their own; the creator or a server manager giving
        them one lifts the hold (their giving it says so)."""
        by = await self.store.kick_hold(session.id, taker)
        if by is None:
            return
        if not approved:
            raise Refusal("bot.refuse.kick_held", by=by, id=session.id,
                          creator=session.row.creator_id)
        await self.store.lift_kick(session.id, taker)

    def _changing(self, session: Session) -> Session:
        if session.status == "lobby":
            raise Refusal("bot.refuse.not_started")
        if session.status != "running" or session.game is None:
            raise Refusal("bot.refuse.game_closed")
        return session

    async def _handed(self, session: Session, seat: Seat, user_id: int | None, name: str,
                      what: str, by_id: int) -> Report:
        """The seat changes hands in a running game; then chance and AI play on as usual (the
        AI at once, if the seat it now holds is to act)."""
        before = session.stage()
        waiting = [(s.colour, s.user_id) for s in humans_pending(session)]
        await self._hand(session, seat, user_id, name, what, by_id)
        steps = await self._advance_safely(session)
        if steps or waiting != [(s.colour, s.user_id) for s in humans_pending(session)]:
            await self._arm_safely(session)  # others waiting keep the time they had
        return Report(session, steps, before)

    async def _hand(self, session: Session, seat: Seat, user_id: int | None, name: str,
                    what: str, by_id: int) -> None:
        """COMMIT the seat's new holder (None: the AI at the game's level), then memory. The
        seat remembers a human held it; its name stays when the AI takes over (a new holder
        brings theirs); a new holder acted now (the AI never acts)."""
        now = iso(self.store.clock())
        human = user_id is not None
        after = replace(seat, user_id=user_id,
                        ai_level=None if human else session.row.ai_level,
                        name=name if human else seat.name, acted_at=now if human else None,
                        was_human=seat.was_human or not seat.is_ai)
        change = SeatChangeRow(session.seq, seat.colour, what, user_id, seat.user_id, by_id,
                               now)
        await self.store.change_seat(session.id, after, change)
        seat.user_id, seat.ai_level, seat.name = after.user_id, after.ai_level, after.name
        seat.acted_at, seat.was_human = after.acted_at, after.was_human
        session.dm_closed.discard(seat.colour)
        session.changes.append(change)


def _not_last(session: Session, seat: Seat) -> None:
    """The last human may not go: the AI would play the game out alone (abort it instead)."""
    if all(s.is_ai for s in session.seats if s is not seat):
        raise Refusal("bot.refuse.seat_last_human", holder=seat.user_id)
