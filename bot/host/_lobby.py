"""The lobby: a new game in a channel, humans and AI seats joining and leaving, the start (then
chance and AI play on) and the abort.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from bot.host._cache import GameCache
from bot.host._session import (
    Refusal,
    Report,
    Seat,
    Session,
    with_row,
)
from bot.host.clock import iso
from bot.host.store import (
    ChannelBusy,
    SeatChangeRow,
)
from rules.core import (
    GameModule,
    Option,
    Options,
)
from rules.record import (
    Game,
    Header,
)
from rules.registry import entry, game_module

log = logging.getLogger("bot.host.sessions")  # one name for the host's lines, as documented


def parse_options(module: GameModule, given: Mapping[str, str]) -> Options:
    """Options as typed (``{"round_limit": "5"}``); a Refusal names the first bad one."""
    known = {o.name for o in module.OPTIONS}
    for key in given:
        if key not in known:
            raise Refusal("bot.refuse.unknown_option", option=key, game=module.NAME,
                          known=sorted(known))
    for option in module.OPTIONS:
        typed = given.get(option.name)
        if typed is None:
            continue
        try:
            option.parse(typed)
        except ValueError as exc:
            raise option_refusal(option, typed) from exc
    return Options.build(module.OPTIONS, dict(given))


def option_refusal(option: Option, typed: str, minimum: int | None = None,
                   maximum: int | None = None) -> Refusal:
    """Why a typed option value is refused, with an example: a number outside a range names
    the range (``minimum`` and ``maximum`` narrow the option's own, e.g. to a slash command's);
    an option of its own format (Giants ``faces``) has a message of its own."""
    low = max(option.minimum, minimum) if minimum is not None else option.minimum
    most = getattr(option, "maximum", None)
    high = min(most, maximum) if most is not None and maximum is not None \
        else maximum if maximum is not None else most
    params: dict[str, Any] = {"option": option.name, "typed": typed, "minimum": low,
                              "example": option.print(option.default)}
    if option.kind == "int" and high is not None:
        return Refusal("bot.refuse.option_range", maximum=high, **params)
    if option.kind in ("int", "bool"):
        return Refusal(f"bot.refuse.option_{option.kind}", **params)
    return Refusal(f"bot.refuse.option_{option.name}", **params)


class Lobby(GameCache):
    """The lobby: a new game, its seats before the start, the start, an abort."""

    async def create(self, *, channel_id: int, guild_id: int | None, game: str,
                     options: Mapping[str, str], creator_id: int, language: str,
                     ai_level: str = "greedy", join: bool = True,
                     creator_name: str = "", turn_seconds: int | None = None) -> Session:
        """A new lobby in the channel; the creator takes the first seat unless ``join`` is off.

        ``turn_seconds`` puts every turn on the clock: when it runs out, the AI plays for the
        player (a reminder goes out before)."""
        try:
            module = game_module(game)
        except KeyError as exc:
            raise Refusal("bot.refuse.unknown_game_name", game=game) from exc
        if ai_level not in (levels := entry(game).levels()):
            raise Refusal("bot.refuse.bad_ai", level=ai_level, levels=list(levels))
        parsed = parse_options(module, options)
        if self.in_channel(channel_id) is not None:
            raise Refusal("bot.refuse.channel_busy")
        try:
            row = await self.store.create_game(
                channel_id=channel_id, guild_id=guild_id, game=game,
                options=" ".join(parsed.non_default()), seed=self.seed_source(),
                creator_id=creator_id, language=language, ai_level=ai_level,
                turn_seconds=turn_seconds or None)
        except ChannelBusy as exc:
            raise Refusal("bot.refuse.channel_busy") from exc
        session = Session(row, [])
        self._remember(session)
        log.info("game %s (%s) created in channel %s of server %s by user %s", row.id, game,
                 channel_id, guild_id, creator_id)
        if join:  # not announced: the answer to its creator posts the lobby card
            async with self._hold(session, quiet=True):
                await self._join(session, creator_id, creator_name)
        return session

    async def _lobby(self, game_id: int) -> Session:
        session = await self._session(game_id)
        if session.status != "lobby":
            raise Refusal("bot.refuse.not_in_lobby" if session.status == "running"
                          else "bot.refuse.game_closed")
        return session

    async def join(self, game_id: int, user_id: int, name: str = "") -> Seat:
        """Seat a human; ``name`` is remembered for places that cannot mention (images)."""
        session = await self._session(game_id)
        async with self._hold(session):
            return await self._join(session, user_id, name)

    async def _join(self, session: Session, user_id: int, name: str) -> Seat:
        session = await self._lobby(session.id)
        if seat := session.seat_of(user_id):
            raise Refusal("bot.refuse.already_seated", colour=seat.colour)
        if (by := await self.store.kick_hold(session.id, user_id)) is not None:
            raise Refusal("bot.refuse.kick_held", by=by, id=session.id,
                          creator=session.row.creator_id)
        ais = [s for s in session.seats if s.is_ai]
        if _full(session) and ais:  # a late friend gets the newest AI seat
            newest = max(ais, key=lambda s: s.joined)
            await self._hand(session, newest, user_id, name, "replaced", user_id)
            return newest
        return await self._add_seat(session, user_id, None, name)

    async def add_ai(self, game_id: int, user_id: int, level: str | None = None) -> Seat:
        session = await self._session(game_id)
        async with self._hold(session):
            session = await self._lobby(game_id)
            if user_id != session.row.creator_id and not session.seat_of(user_id):
                raise Refusal("bot.refuse.not_player")
            return await self._add_seat(session, None, level or session.row.ai_level)

    async def _add_seat(self, session: Session, user_id: int | None,
                        ai_level: str | None, name: str = "") -> Seat:
        module = session.module
        taken = {s.colour for s in session.seats}
        free = [c for c in module.COLOURS if c not in taken]
        if _full(session):
            raise Refusal("bot.refuse.full", max=module.MAX_SEATS)
        seat = Seat(free[0], user_id, ai_level, name,
                    joined=max((s.joined for s in session.seats), default=0) + 1)
        # joining counts as acting, in the store (memory stamps every seat when the game starts)
        joined_at = iso(self.store.clock()) if user_id is not None else None
        await self.store.add_seat(session.id, seat.colour, user_id, ai_level, name,
                                  acted_at=joined_at)
        session.seats.append(seat)
        return seat

    async def leave(self, game_id: int, user_id: int) -> Seat:
        session = await self._session(game_id)
        async with self._hold(session):
            session = await self._lobby(game_id)
            seat = session.seat_of(user_id)
            if seat is None:
                raise Refusal("bot.refuse.not_player")
            await self.store.remove_seat(session.id, seat.colour)
            session.seats.remove(seat)
            return seat

    async def remove_ai(self, game_id: int, user_id: int, is_admin: bool = False) -> Seat:
        """The creator takes the newest AI seat out of the lobby."""
        session = await self._session(game_id)
        async with self._hold(session):
            session = await self._lobby(game_id)
            if user_id != session.row.creator_id and not is_admin:
                raise Refusal("bot.refuse.seat_remove_ai_denied", creator=session.row.creator_id)
            ais = [s for s in session.seats if s.is_ai]
            if not ais:
                raise Refusal("bot.refuse.seat_no_ai")
            seat = max(ais, key=lambda s: s.joined)
            await self._drop(session, seat, "removed", user_id)
            return seat

    async def _drop(self, session: Session, seat: Seat, what: str, by_id: int) -> None:
        """A seat leaves the lobby, with the change that says so."""
        change = SeatChangeRow(session.seq, seat.colour, what, None, seat.user_id, by_id,
                               iso(self.store.clock()))
        await self.store.remove_seat(session.id, seat.colour, change)
        session.seats.remove(seat)
        session.changes.append(change)

    async def start(self, game_id: int, user_id: int) -> Report:
        """Lobby -> running, then chance and AI play until a human must act."""
        session = await self._session(game_id)
        async with self._hold(session):
            session = await self._lobby(game_id)
            module = session.module
            if user_id != session.row.creator_id:
                raise Refusal("bot.refuse.only_creator")
            if len(session.seats) < module.MIN_SEATS:
                raise Refusal("bot.refuse.too_few", min=module.MIN_SEATS,
                              seated=len(session.seats))
            order = sorted(session.seats, key=lambda s: module.COLOURS.index(s.colour))
            options = parse_options(module, _option_words(session.row.options))
            header = Header(module, [s.colour for s in order], options, session.row.seed)
            game = Game.start(header)
            await self.store.start_game(session.id, header.line(), module.to_json(game.state))
            session.seats = order
            session.game = game
            session.row = with_row(session.row, status="running", header=header.line())
            for seat in session.seats:
                seat.acted_at = seat.acted_at or iso(self.store.clock())
            log.info("game %s (%s) started: %s", session.id, session.row.game,
                     ", ".join(map(_who, session.seats)))
            steps = await self._advance_safely(session)
            await self._arm_safely(session)
            return Report(session, steps)

    async def abort(self, channel_id: int, user_id: int, is_admin: bool = False) -> Session:
        session = self.channel_session(channel_id)
        async with self._hold(session):
            if session.status not in ("lobby", "running"):
                raise Refusal("bot.refuse.no_game")
            if user_id != session.row.creator_id and not is_admin:
                raise Refusal("bot.refuse.abort_denied")
            await self.store.set_status(session.id, "aborted")
            session.row = with_row(session.row, status="aborted")
            self._forget(session)
            log.info("game %s (%s) aborted by user %s", session.id, session.row.game, user_id)
            return session


def _who(seat: Seat) -> str:
    """A seat as the log names it: ``red user 1234`` or ``blue AI greedy``."""
    return f"{seat.colour} AI {seat.ai_level}" if seat.is_ai else f"{seat.colour} user " \
        f"{seat.user_id}"


def _full(session: Session) -> bool:
    module = session.module
    taken = {s.colour for s in session.seats}
    return len(session.seats) >= module.MAX_SEATS or all(c in taken for c in module.COLOURS)


def _option_words(text: str) -> dict[str, str]:
    return dict(word.partition("=")[::2] for word in text.split())
