"""The session host: the games of every channel, their locks, and the only path to change them.

Every change goes load -> lock -> check -> apply (pure) -> COMMIT -> update memory, and only then
does the caller answer; what Discord shows follows from the stored game (the outbox). The host
plays chance and AI seats itself until a human must act; when one of those steps fails (a locked
database, a full disk), the human's committed move stands and the game is left *stalled* for the
next :meth:`Host.resume` (the outbox's tick) to finish. It is generic over the engine contract
(``rules.core.GameModule``): it never looks inside a game's state, only at ``pending``,
``legal``, ``apply``, ``view`` and ``result``, so games with simultaneous sealed decisions plug
in unchanged. It knows nothing of Discord: refusals are
:class:`Refusal` (a message key and parameters) or the engine's ``IllegalAction``.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from bot.host.clock import iso
from bot.host.store import ChannelBusy, GameRow, LogRow, SeatRow, Store
from rules import ai, fair
from rules.core import (
    CHANCE,
    Event,
    GameModule,
    IllegalAction,
    Options,
    Result,
    hidden_line,
    reveals,
    sealed_by,
    split_words,
)
from rules.record import Game, Header, format_line, parse_header, replay_lines
from rules.registry import game_module

log = logging.getLogger(__name__)

REMIND_AFTER = 0.75
"""A turn reminder goes out once this share of the turn time has passed."""
KEEP_STATES = 24
"""Recent positions a session keeps in memory, so the table can show a stage's final board."""


class Refusal(Exception):
    """A request the host turns down: ``key`` is a ``bot.refuse.*`` message key."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass
class Seat:
    colour: str
    user_id: int | None
    ai_level: str | None = None
    name: str = ""
    acted_at: str | None = None
    """When the human last acted in this game (ISO, from the injected clock)."""

    @property
    def is_ai(self) -> bool:
        return self.user_id is None


@dataclass
class Step:
    """One applied action. ``by`` is ``human``, ``forced`` (applied for a human), ``ai`` or
    ``chance``, or ``timeout`` (the AI played for a human whose time ran out). ``sealed``
    names the seat the line is still private to (the engine's events say so, and a later
    revealing event clears it)."""

    actor: str
    line: str
    events: list[Event]
    by: str
    seq: int = 0
    sealed: str | None = None

    @classmethod
    def of(cls, row: LogRow) -> Step:
        return cls(row.line.split(" ", 1)[0], row.line, row.events, row.by, row.seq, row.sealed)


@dataclass
class Session:
    """One game in one channel, as the host keeps it in memory."""

    row: GameRow
    seats: list[Seat]
    game: Game | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    log: list[Step] = field(default_factory=list)
    """Every applied action with its events, in order (``log[i].seq == i + 1``)."""
    states: dict[int, Any] = field(default_factory=dict)
    """A few recent positions by sequence number (see :data:`KEEP_STATES`)."""
    stalled: bool = False
    """A chance or AI step after a commit failed: :meth:`Host.resume` must finish it."""
    dm_closed: set[str] = field(default_factory=set)
    """Colours whose DMs were found closed: their private side goes through the channel."""

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def status(self) -> str:
        return self.row.status

    @property
    def module(self) -> GameModule:
        return game_module(self.row.game)

    @property
    def seq(self) -> int:
        """How many actions have been applied (0 in the lobby)."""
        return len(self.game.lines) if self.game else 0

    def seat_of(self, user_id: int) -> Seat | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    def seat(self, colour: str) -> Seat | None:
        return next((s for s in self.seats if s.colour == colour), None)

    def pending(self) -> tuple[str, ...]:
        return self.game.pending() if self.game else ()

    def kind(self) -> str:
        """What kind of decision is pending (``bid``, ``place``...; empty in the lobby)."""
        return self.module.pending(self.game.state).kind if self.game else ""

    def stage(self) -> tuple[Any, Any]:
        """``(round, phase)`` of the public view: a change means a new phase began."""
        if self.game is None:
            return (None, None)
        view = self.view(None)
        return (view.get("round"), view.get("phase"))

    def turns(self, colour: str) -> int:
        """How many actions ``colour`` has played. A pending seat stays pending until it acts,
        so this count names its current decision without changing when others act (a
        simultaneous decision keeps its prompts valid while the other seats submit)."""
        if self.game is None:
            return 0
        prefix = f"{colour} "
        return sum(1 for line in self.game.lines if line.startswith(prefix))

    def view(self, colour: str | None = None) -> dict[str, Any]:
        assert self.game is not None
        return self.module.view(self.game.state, colour)

    def result(self) -> Result | None:
        return self.module.result(self.game.state) if self.game else None

    def legal(self, colour: str) -> list[Any]:
        if self.game is None or self.status != "running":
            return []
        return self.module.legal(self.game.state, colour)

    def public_record(self, seat: str | None = None) -> str | None:
        """The record as ``seat`` (None: anyone) may read it now. While the game runs the seed
        stays out, a sealed line reads ``<colour> <verb> ?`` (the engine's events marked it)
        and every other line goes through the engine's ``public_line``."""
        if self.game is None:
            return None
        if self.status == "finished":
            return self.game.record()
        header = self.game.header
        head = " ".join(["game", header.module.NAME, *header.seats,
                         *header.options.non_default()])
        state = self.game.state
        lines = [hidden_line(step.line) if step.sealed and step.sealed != seat
                 else self.module.public_line(state, step.line, seat) for step in self.log]
        return "\n".join([head, *lines]) + "\n"

    def state_at(self, seq: int) -> Any | None:
        """The position after action ``seq`` if it is still kept in memory."""
        if self.game is not None and seq == self.seq:
            return self.game.state
        return self.states.get(seq)

    @property
    def commitment(self) -> str:
        """What the table shows from the start: SHA-256 (hex) of ``<game>:<seed>``; the seed
        itself comes out with the finished record (:mod:`rules.fair`)."""
        return fair.commitment(self.row.game, self.row.seed)

    def record(self) -> str | None:
        """The complete record (seed and all) once the game is over; secret before that."""
        if self.game is None or self.status != "finished":
            return None
        return self.game.record()


@dataclass(frozen=True)
class Report:
    """What one request did: the steps applied (in order) and the session after them."""

    session: Session
    steps: list[Step]
    before: tuple[Any, Any] | None = None
    """The session's :meth:`Session.stage` before these steps (None: unknown)."""

    @property
    def finished(self) -> bool:
        return self.session.status == "finished"

    @property
    def new_stage(self) -> bool:
        """Whether a new phase or round began (or the game ended) during these steps."""
        return self.before is None or self.finished or self.session.stage() != self.before


def ai_rng(seed: int, seq: int) -> random.Random:
    """The AI's RNG for the action numbered ``seq``: a pure function of the secret seed and the
    count, so AI moves replay identically after a restart. Chance lines are drawn by
    :func:`rules.fair.chance_rng` (through :meth:`rules.record.Game.next_chance`)."""
    return random.Random(f"{seed}/{seq}/ai")


def parse_options(module: GameModule, given: Mapping[str, str]) -> Options:
    """Options as typed (``{"round_limit": "5"}``); a Refusal names the first bad one."""
    known = {o.name for o in module.OPTIONS}
    for key in given:
        if key not in known:
            raise Refusal("bot.refuse.unknown_option", option=key, game=module.NAME,
                          known=sorted(known))
    try:
        return Options.build(module.OPTIONS, dict(given))
    except ValueError as exc:
        raise Refusal("bot.refuse.bad_option", detail=str(exc)) from exc


class Host:
    """All sessions of one bot. Create with :meth:`__init__`, then ``await load()``."""

    def __init__(self, store: Store, seed_source: Callable[[], int] = lambda: 0) -> None:
        self.store = store
        self.seed_source = seed_source
        self.sessions: dict[int, Session] = {}
        self._by_channel: dict[int, int] = {}

    # --- loading -------------------------------------------------------------------------------

    async def load(self) -> list[Session]:
        """Reload every game in a lobby or running, e.g. after a restart."""
        loaded = []
        for row in await self.store.games_with_status("lobby", "running"):
            try:
                session = await self._load(row)
            except Exception:
                log.exception("game %s (channel %s) could not be reloaded", row.id,
                              row.channel_id)
                continue
            self._remember(session)
            loaded.append(session)
        log.info("reloaded %d game(s)", len(loaded))
        return loaded

    async def _load(self, row: GameRow) -> Session:
        seats = [_seat(s) for s in await self.store.seats(row.id)]
        session = Session(row, seats, dm_closed=await self.store.closed_dms(row.id))
        if row.header is not None:
            log_rows = await self.store.log(row.id)
            session.log = [Step.of(r) for r in log_rows]
            session.game = await self._rebuild(row, [r.line for r in log_rows])
        return session

    async def _rebuild(self, row: GameRow, lines: list[str]) -> Game:
        """The game from its snapshot, checked against the log (the log wins a disagreement)."""
        assert row.header is not None
        header = parse_header(row.header)
        module = header.module
        snapshot = await self.store.snapshot(row.id)
        replayed = replay_lines(row.header, lines)
        if snapshot is None or snapshot.seq != len(lines) \
                or module.to_json(replayed.state) != snapshot.state:
            log.warning("game %s: snapshot disagrees with the action log; using the log", row.id)
            return replayed
        return Game(header, module.from_json(snapshot.state), list(lines))

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
        session = await self.get(game_id)
        await self.store.set_thread(game_id, thread_id)
        session.row = _with(session.row, thread_id=thread_id)
        if session.status in ("lobby", "running"):
            self._by_channel[thread_id] = session.id

    async def set_lobby_message(self, game_id: int, message_id: int) -> None:
        session = await self.get(game_id)
        await self.store.set_lobby_message(game_id, message_id)
        session.row = _with(session.row, lobby_message_id=message_id)

    async def set_dm_closed(self, game_id: int, colour: str, closed: bool) -> None:
        session = await self.get(game_id)
        if (colour in session.dm_closed) == closed:
            return
        await self.store.set_dm_closed(game_id, colour, closed)
        if closed:
            session.dm_closed.add(colour)
        else:
            session.dm_closed.discard(colour)

    # --- finding -------------------------------------------------------------------------------

    def in_channel(self, channel_id: int) -> Session | None:
        game_id = self._by_channel.get(channel_id)
        return self.sessions.get(game_id) if game_id is not None else None

    def channel_session(self, channel_id: int) -> Session:
        session = self.in_channel(channel_id)
        if session is None:
            raise Refusal("bot.refuse.no_game")
        return session

    async def get(self, game_id: int) -> Session:
        """A game by id (from memory, else the store), whatever its status."""
        session = self.sessions.get(game_id)
        if session is None:
            row = await self.store.game(game_id)
            if row is None:
                raise Refusal("bot.refuse.unknown_game")
            session = await self._load(row)
            if session.status in ("lobby", "running"):
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

    # --- lobby ---------------------------------------------------------------------------------

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
        if ai_level not in ai.LEVELS:
            raise Refusal("bot.refuse.bad_option", detail=f"ai={ai_level}")
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
        if join:
            await self.join(session.id, creator_id, creator_name)
        return session

    async def _lobby(self, game_id: int) -> Session:
        session = await self.get(game_id)
        if session.status != "lobby":
            raise Refusal("bot.refuse.not_in_lobby" if session.status == "running"
                          else "bot.refuse.game_closed")
        return session

    async def join(self, game_id: int, user_id: int, name: str = "") -> Seat:
        """Seat a human; ``name`` is remembered for places that cannot mention (images)."""
        session = await self.get(game_id)
        async with session.lock:
            session = await self._lobby(game_id)
            if seat := session.seat_of(user_id):
                raise Refusal("bot.refuse.already_seated", colour=seat.colour)
            return await self._add_seat(session, user_id, None, name)

    async def add_ai(self, game_id: int, user_id: int, level: str | None = None) -> Seat:
        session = await self.get(game_id)
        async with session.lock:
            session = await self._lobby(game_id)
            if user_id != session.row.creator_id and not session.seat_of(user_id):
                raise Refusal("bot.refuse.not_player")
            return await self._add_seat(session, None, level or session.row.ai_level)

    async def _add_seat(self, session: Session, user_id: int | None,
                        ai_level: str | None, name: str = "") -> Seat:
        module = session.module
        taken = {s.colour for s in session.seats}
        free = [c for c in module.COLOURS if c not in taken]
        if len(session.seats) >= module.MAX_SEATS or not free:
            raise Refusal("bot.refuse.full", max=module.MAX_SEATS)
        seat = Seat(free[0], user_id, ai_level, name)
        await self.store.add_seat(session.id, seat.colour, user_id, ai_level, name)
        session.seats.append(seat)
        return seat

    async def leave(self, game_id: int, user_id: int) -> Seat:
        session = await self.get(game_id)
        async with session.lock:
            session = await self._lobby(game_id)
            seat = session.seat_of(user_id)
            if seat is None:
                raise Refusal("bot.refuse.not_player")
            await self.store.remove_seat(session.id, seat.colour)
            session.seats.remove(seat)
            return seat

    async def start(self, game_id: int, user_id: int) -> Report:
        """Lobby -> running, then chance and AI play until a human must act."""
        session = await self.get(game_id)
        async with session.lock:
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
            session.row = _with(session.row, status="running", header=header.line())
            for seat in session.seats:
                seat.acted_at = seat.acted_at or iso(self.store.clock())
            steps = await self._advance_safely(session)
            await self._arm_safely(session)
            return Report(session, steps)

    async def abort(self, channel_id: int, user_id: int, is_admin: bool = False) -> Session:
        session = self.channel_session(channel_id)
        async with session.lock:
            if session.status not in ("lobby", "running"):
                raise Refusal("bot.refuse.no_game")
            if user_id != session.row.creator_id and not is_admin:
                raise Refusal("bot.refuse.abort_denied")
            await self.store.set_status(session.id, "aborted")
            session.row = _with(session.row, status="aborted")
            self._forget(session)
            return session

    # --- play ----------------------------------------------------------------------------------

    def stalled(self) -> list[Session]:
        """Running games where nobody human is to act: a crash or a failed step came between
        a human's move and the chance or AI moves after it."""
        return [s for s in self.sessions.values()
                if s.status == "running" and s.game is not None and self._host_moves(s)]

    def _host_moves(self, session: Session) -> bool:
        assert session.game is not None
        pending = session.pending()
        return pending == (CHANCE,) or any((s := session.seat(c)) and s.is_ai for c in pending)

    async def resume(self, game_id: int) -> Report:
        """Play the chance and AI moves a stalled game is waiting for (none if it is not)."""
        session = await self.get(game_id)
        async with session.lock:
            if session.status != "running" or session.game is None:
                return Report(session, [])
            before = session.stage()
            session.stalled = False
            steps = await self._advance(session)
            await self._arm(session)
            return Report(session, steps, before)

    async def _advance_safely(self, session: Session) -> list[Step]:
        """:meth:`_advance` after a committed human move: a failure here leaves the game
        stalled for :meth:`resume` instead of losing the human's move or its answer."""
        try:
            return await self._advance(session)
        except Exception:
            log.exception("game %s: a chance or AI step failed; it will be retried",
                          session.id)
            session.stalled = True
            return []

    # --- turn timers ---------------------------------------------------------------------------

    def _humans_pending(self, session: Session) -> list[Seat]:
        return [s for c in session.pending() if (s := session.seat(c)) and not s.is_ai]

    async def _arm_safely(self, session: Session) -> None:
        try:
            await self._arm(session)
        except Exception:
            log.exception("game %s: the turn deadline could not be stored", session.id)

    async def _arm(self, session: Session) -> None:
        """Start the clock for the humans now pending (or stop it); stored as an absolute time,
        so a restart keeps every deadline."""
        seconds = session.row.turn_seconds
        deadline = None
        if seconds and session.status == "running" and self._humans_pending(session):
            deadline = iso(self.store.clock() + timedelta(seconds=seconds))
        if deadline != session.row.deadline_at or session.row.reminded:
            await self.store.set_deadline(session.id, deadline)
            session.row = _with(session.row, deadline_at=deadline, reminded=0)

    def due(self, now: datetime) -> list[tuple[Session, str]]:
        """Games whose turn time is up (``timeout``) or nearly up (``remind``) at ``now``."""
        out = []
        for session in list(self.sessions.values()):
            row = session.row
            if session.status != "running" or not row.deadline_at or not row.turn_seconds:
                continue
            deadline = datetime.fromisoformat(row.deadline_at)
            if now >= deadline:
                out.append((session, "timeout"))
            elif not row.reminded and now >= deadline - timedelta(
                    seconds=row.turn_seconds * (1 - REMIND_AFTER)):
                out.append((session, "remind"))
        return out

    async def remind(self, game_id: int) -> Session | None:
        """Mark the reminder of the current turn as sent; None if it went out already."""
        session = await self.get(game_id)
        async with session.lock:
            if session.status != "running" or session.row.reminded \
                    or not session.row.deadline_at:
                return None
            await self.store.mark_reminded(session.id)
            session.row = _with(session.row, reminded=1)
            return session

    async def timeout(self, game_id: int, now: datetime) -> Report:
        """The AI plays for every human whose time is up, then the game goes on as usual."""
        session = await self.get(game_id)
        async with session.lock:
            row = session.row
            if session.status != "running" or session.game is None or not row.deadline_at \
                    or now < datetime.fromisoformat(row.deadline_at):
                return Report(session, [])
            steps: list[Step] = []
            before = session.stage()
            for seat in self._humans_pending(session):
                if seat.colour not in session.pending():
                    continue
                action = await asyncio.to_thread(
                    ai.choose, session.module, session.game.state, seat.colour, row.ai_level,
                    ai_rng(row.seed, session.seq))
                steps.append(await self._apply(session, seat.colour, action, "timeout"))
            steps += await self._advance_safely(session)
            await self._arm_safely(session)
            return Report(session, steps, before)

    def _running(self, channel_id: int) -> Session:
        session = self.channel_session(channel_id)
        if session.status == "lobby":
            raise Refusal("bot.refuse.not_started")
        return session

    def seat_for_play(self, session: Session, user_id: int) -> Seat:
        seat = session.seat_of(user_id)
        if seat is None:
            raise Refusal("bot.refuse.not_player")
        return seat

    def legal_texts(self, channel_id: int, user_id: int) -> list[str]:
        """What this user may play now, in notation without the colour (for autocomplete)."""
        session = self.in_channel(channel_id)
        if session is None or session.game is None or session.status != "running":
            return []
        seat = session.seat_of(user_id)
        if seat is None or seat.colour not in session.pending():
            return []
        return [str(a) for a in session.legal(seat.colour)]

    async def play(self, channel_id: int, user_id: int, text: str,
                   expect_seq: int | None = None, game_id: int | None = None,
                   expect_turn: int | None = None) -> Report:
        """A human's action typed as notation (``place B2 3``; a leading own colour is allowed).

        ``expect_seq`` (from a button) refuses a click on an outdated prompt; ``game_id`` (from
        a button) refuses a click that belongs to another game in this channel.
        """
        session = self._running(channel_id)
        if game_id is not None and game_id != session.id:
            raise Refusal("bot.refuse.stale")
        return await self._play(session, user_id, text, expect_seq, expect_turn)

    async def play_game(self, game_id: int, user_id: int, text: str,
                        expect_turn: int | None = None,
                        expect_seq: int | None = None) -> Report:
        """The same as :meth:`play`, for a game named by id (buttons, DMs). ``expect_turn``
        is the seat's :meth:`Session.turns` when a private prompt was made: other seats'
        submissions do not make it outdated, its own do; ``expect_seq`` is the action count
        of a table component."""
        session = await self.get(game_id)
        if session.status != "running":
            raise Refusal("bot.refuse.game_closed")
        return await self._play(session, user_id, text, expect_seq, expect_turn)

    async def _play(self, session: Session, user_id: int, text: str, expect_seq: int | None,
                    expect_turn: int | None) -> Report:
        async with session.lock:
            if session.status != "running":
                raise Refusal("bot.refuse.no_game")
            seat = self.seat_for_play(session, user_id)
            if expect_seq is not None and expect_seq != session.seq:
                raise Refusal("bot.refuse.stale")
            if expect_turn is not None and expect_turn != session.turns(seat.colour):
                raise Refusal("bot.refuse.stale")
            pending = session.pending()
            if seat.colour not in pending:
                raise Refusal("bot.refuse.not_your_turn", pending=list(pending))
            words = split_words(text)
            if len(words) > 1 and words[0].lower() == seat.colour:
                words = words[1:]
            action = session.module.parse(" ".join(words))
            before = session.stage()
            steps = [await self._apply(session, seat.colour, action, "human")]
            steps += await self._advance_safely(session)
            await self._arm_safely(session)
            return Report(session, steps, before)

    async def _apply(self, session: Session, actor: str, action: Any, by: str) -> Step:
        """Apply and COMMIT one action; memory changes only after the commit succeeded."""
        game = session.game
        assert game is not None
        module = session.module
        action = module.canonical(game.state, actor, action)
        state, events = module.apply(game.state, actor, action)
        line = format_line(actor, action)
        finished = module.result(state) is not None
        seq = len(game.lines) + 1
        secret, revealing = sealed_by(events), reveals(events)
        await self.store.append_action(session.id, seq, line, module.to_json(state), finished,
                                       events=events, by=by, actor=actor, sealed=secret,
                                       reveals=revealing)
        session.states[seq - 1] = game.state
        session.states.pop(seq - 1 - KEEP_STATES, None)
        game.state = state
        game.lines.append(line)
        if revealing:
            for step in session.log:
                step.sealed = None
        step = Step(actor, line, events, by, seq, None if revealing else secret)
        session.log.append(step)
        if by == "human" and (seat := session.seat(actor)) is not None:
            seat.acted_at = iso(self.store.clock())
        if finished:
            session.row = _with(session.row, status="finished")
            self._forget(session)
        return step

    async def _advance(self, session: Session) -> list[Step]:
        """Chance, AI seats and forced passes, until a human must choose or the game is over."""
        steps: list[Step] = []
        game = session.game
        assert game is not None
        module = session.module
        while session.status == "running":
            pending = game.pending()
            if not pending:
                break
            seq = len(game.lines)
            if pending == (CHANCE,):
                action = game.next_chance()  # the seed's alone (rules.fair)
                steps.append(await self._apply(session, CHANCE, action, "chance"))
                continue
            bots = [session.seat(c) for c in pending if (s := session.seat(c)) and s.is_ai]
            if bots:
                seat = bots[0]
                assert seat is not None
                action = await asyncio.to_thread(
                    ai.choose, module, game.state, seat.colour, seat.ai_level or "random",
                    ai_rng(session.row.seed, seq))
                steps.append(await self._apply(session, seat.colour, action, "ai"))
                continue
            if len(pending) == 1:
                only = module.legal(game.state, pending[0])
                if len(only) == 1 and str(only[0]).split()[0] == "pass":
                    steps.append(await self._apply(session, pending[0], only[0], "forced"))
                    continue
            break
        return steps


def _seat(row: SeatRow) -> Seat:
    return Seat(row.colour, row.user_id, row.ai_level, row.name, row.acted_at)


def _with(row: GameRow, **changes: Any) -> GameRow:
    return GameRow(**{**row.__dict__, **changes})


def _option_words(text: str) -> dict[str, str]:
    return dict(word.partition("=")[::2] for word in text.split())


__all__ = ["Host", "IllegalAction", "Refusal", "Report", "Seat", "Session", "Step",
           "ai_rng", "parse_options"]
