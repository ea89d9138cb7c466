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
import contextlib
import logging
import math
import random
import time
from collections.abc import AsyncIterator, Callable, Collection, Hashable, Iterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from bot.host import ratings
from bot.host.clock import iso
from bot.host.store import (
    ACTIVE,
    AWAY_AFTER,
    EVERY_GAME,
    FORMER_ID,
    ActiveGame,
    ChannelBusy,
    Forgotten,
    GameMark,
    GameRow,
    Listener,
    LogRow,
    Purged,
    SeatChangeRow,
    SeatRow,
    Snapshot,
    StaleGame,
    Store,
    mark_of,
)
from bot.host.thinking import Thinking
from rules import ai, fair
from rules.core import (
    CHANCE,
    Event,
    GameModule,
    IllegalAction,
    Option,
    Options,
    Result,
    hidden_line,
    reveals,
    sealed_by,
    split_words,
)
from rules.record import (
    Game,
    Header,
    RecordError,
    format_line,
    parse_header,
    parse_line,
    replay_lines,
)
from rules.registry import game_module

log = logging.getLogger(__name__)
T = TypeVar("T")

REMIND_AFTER = 0.75
"""A turn reminder goes out once this share of the turn time has passed."""
KEEP_STATES = 24
"""Recent positions a session keeps in memory, so the table can show a stage's final board."""
KEEP_WORKED_OUT = 4
"""Positions whose views and legal actions a session remembers (:meth:`Session.worked_out`):
the current one, and the few before it that the table may still show."""


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
    timeouts: int = 0
    """Turns in a row on which this human's time ran out."""
    away: bool = False
    """Timed out :data:`AWAY_AFTER` times in a row: the AI plays for them at once until they
    act again (``/game back``, or any move of their own)."""
    was_human: bool = False
    """A human held this seat before the AI took it over (they left or were removed)."""
    joined: int = 0
    """The seat's place in the order seats were added (the lobby's newest AI seat goes to a
    late joiner)."""

    @property
    def is_ai(self) -> bool:
        return self.user_id is None


@dataclass(eq=False)
class Step:
    """One applied action. ``by`` is ``human``, ``forced`` (applied for a human), ``ai`` or
    ``chance``, ``timeout`` (the AI played for a human whose time ran out) or ``away`` (the
    AI played for a human marked away). ``sealed``
    names the seat the line is still private to (the engine's events say so, and a later
    revealing event clears it)."""

    actor: str
    line: str
    given_events: list[Event] | None
    """The events as applied (None: not decoded yet from ``row``, see :attr:`events`)."""
    by: str
    seq: int = 0
    sealed: str | None = None
    row: LogRow | None = field(default=None, repr=False)
    """The stored row a loaded step came from."""
    shown: dict[Any, str] = field(default_factory=dict, init=False, repr=False)
    """The step in words, kept by the table (``bot.table.words.step_line``) under everything
    the words depend on besides the step: a stage's log shows the same lines after every
    move. The step itself never reads it."""

    @property
    def events(self) -> list[Event]:
        """The engine's events of the action: a step loaded at a start decodes them from its
        stored row on first use (most old steps are never looked at)."""
        if self.given_events is None:
            assert self.row is not None
            self.given_events = self.row.events
        return self.given_events

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Step):
            return NotImplemented
        return (self.actor, self.line, self.events, self.by, self.seq, self.sealed) == (
            other.actor, other.line, other.events, other.by, other.seq, other.sealed)

    __hash__ = None  # type: ignore[assignment]  # mutable: ``sealed`` changes on a reveal

    @classmethod
    def of(cls, row: LogRow) -> Step:
        return cls(row.line.split(" ", 1)[0], row.line, None, row.by, row.seq, row.sealed, row)


@dataclass(frozen=True)
class Takeback:
    """``colour`` took back their move (``/game undo``): the steps after action ``at``, the
    first of them theirs, the rest AI or forced steps that followed it."""

    at: int
    colour: str
    steps: list[Step]

    def comment(self) -> str:
        """The take-back as a record comment (a sealed line stays sealed)."""
        lines = [hidden_line(s.line) if s.sealed else s.line for s in self.steps]
        return f"# {self.colour} took back: {', '.join(lines)}"


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
    takebacks: list[Takeback] = field(default_factory=list)
    """Every ``/game undo`` of the game, oldest first (the log no longer holds their steps)."""
    changes: list[SeatChangeRow] = field(default_factory=list)
    """Every change of hands (left, removed, taken over...), oldest first."""
    _memo: dict[int, tuple[Any, dict[Hashable, Any]]] = field(
        default_factory=dict, repr=False, compare=False)
    """What was worked out for the latest few positions (:meth:`worked_out`): by the state's
    ``id``, the state itself (so that the id stays its own) and the answers by question."""
    _kept: dict[str, tuple[Hashable, Any]] = field(default_factory=dict, repr=False,
                                                   compare=False)
    """What :meth:`kept` remembers: by name, the key it was worked out for and the answer."""

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
    def paused(self) -> bool:
        return self.row.paused_by is not None

    def away(self) -> list[Seat]:
        """The human seats the AI plays for until they are back."""
        return [s for s in self.seats if s.away and not s.is_ai]

    @property
    def seq(self) -> int:
        """How many actions have been applied (0 in the lobby)."""
        return len(self.game.lines) if self.game else 0

    def seat_of(self, user_id: int) -> Seat | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    def mark(self) -> GameMark:
        """What this copy holds of the game, summed up as the store sums it up
        (:meth:`Store.stored_marks`): another process changed the game when they differ."""
        return mark_of(self.row, self.seq, len(self.takebacks), len(self.changes),
                       ((s.colour, s.user_id, s.ai_level, s.away) for s in self.seats),
                       self.dm_closed)

    def seat(self, colour: str) -> Seat | None:
        return next((s for s in self.seats if s.colour == colour), None)

    def gone(self, user_id: int, colour: str | None = None) -> Refusal | None:
        """Why this user no longer holds a seat (``colour``: that seat), as a refusal; None
        when they never held it or hold one still."""
        if colour is None and self.seat_of(user_id) is not None:
            return None
        if colour is not None and (seat := self.seat(colour)) and seat.user_id == user_id:
            return None
        change = next((c for c in reversed(self.changes) if c.old_id == user_id
                       and colour in (None, c.colour)), None)
        if change is None:
            return None
        what = "kicked" if change.what == "dropped" else change.what
        return Refusal(f"bot.refuse.seat_gone_{what}", seat=change.colour, id=self.id,
                       new=change.user_id, by=change.by_id)

    def timed_out(self, colour: str) -> bool:
        """Whether the AI played this seat's latest action because its holder's time ran out
        (since they hold it: a new holder starts with a clean slate)."""
        own = next((s for s in reversed(self.log) if s.actor == colour), None)
        return own is not None and own.by == "timeout" and not any(
            c.colour == colour and c.seq >= own.seq for c in self.changes)

    def pending(self) -> tuple[str, ...]:
        if self.game is None:
            return ()
        return self._now(("pending",), lambda state: self.module.pending(state).seats)

    def kind(self) -> str:
        """What kind of decision is pending (``bid``, ``place``...; empty in the lobby)."""
        if self.game is None:
            return ""
        return self._now(("kind",), lambda state: self.module.pending(state).kind)

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
        """What ``colour`` (None: anyone) may know now. Worked out once per position: one
        table asks for the same view many times (the stage, the status, the board, the
        screens). The same dict for the same position, so a caller must not change it."""
        assert self.game is not None
        return self._now(("view", colour), lambda state: self.module.view(state, colour))

    def view_of(self, state: Any, colour: str | None = None) -> dict[str, Any]:
        """:meth:`view` of another position (a recent one, such as the end of the previous
        stage), also remembered among the latest few."""
        return self.worked_out(state, ("view", colour),
                               lambda state: self.module.view(state, colour))

    def result(self) -> Result | None:
        return self.module.result(self.game.state) if self.game else None

    def legal(self, colour: str) -> list[Any]:
        """The seat's legal actions now, worked out once per position (the table's buttons,
        autocomplete and a refusal's suggestions ask for the same list); a copy, so a
        caller may change it."""
        if self.game is None or self.status != "running":
            return []
        return list(self._now(("legal", colour),
                              lambda state: self.module.legal(state, colour)))

    def legal_lines(self, colour: str) -> list[str]:
        """:meth:`legal` in notation (what buttons, autocomplete and suggestions show), also
        worked out once per position; a copy."""
        if self.game is None or self.status != "running":
            return []
        return list(self._now(("lines", colour),
                              lambda state: [str(a) for a in self.legal(colour)]))

    def _now(self, question: Hashable, work: Callable[[Any], T]) -> T:
        assert self.game is not None
        return self.worked_out(self.game.state, question, work)

    def worked_out(self, state: Any, question: Hashable, work: Callable[[Any], T]) -> T:
        """``work(state)``, remembered under ``question`` while ``state`` is one of the latest
        few positions asked about: one move's table asks for the same views, legal actions
        and board keys many times, and the next one for the previous position's again (the
        end of a stage). ``work`` must be a pure function of the position: states are never
        changed in place (a move, a take-back or a reload brings another state object)."""
        kept = self._memo.get(id(state))
        if kept is None or kept[0] is not state:
            kept = (state, {})
            if len(self._memo) >= KEEP_WORKED_OUT:
                del self._memo[next(iter(self._memo))]  # the oldest position asked about
            self._memo[id(state)] = kept
        answers = kept[1]
        if question not in answers:
            answers[question] = work(state)
        return answers[question]

    def kept(self, name: str, key: Hashable, work: Callable[[], T]) -> T:
        """``work()``, remembered under ``name`` while ``key`` stays equal: for what depends
        on more than the position, and changes far less often (the table's lobby card). The
        key must hold everything the answer depends on."""
        found = self._kept.get(name)
        if found is not None and found[0] == key:
            return found[1]
        answer = work()
        self._kept[name] = (key, answer)
        return answer

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
        """The complete record (seed and all) once the game is over; secret before that. The
        game as played: a take-back is a comment after the line it went back to."""
        if self.game is None or self.status != "finished":
            return None
        text = self.game.record()
        if not self.takebacks:
            return text
        head, *lines = text.splitlines()
        out = [head]
        for seq in range(len(lines) + 1):
            if seq:
                out.append(lines[seq - 1])
            out += [tb.comment() for tb in self.takebacks if tb.at == seq]
        return "\n".join(out) + "\n"


@dataclass(frozen=True)
class Forgot:
    """What ``/game forget-me`` did: the store's part (settings, ratings, finished games) and
    the host's (``lobbies``: seats freed; ``handed``: running games whose seat went to the AI;
    ``ended``: games closed because nobody else could carry them on)."""

    stored: Forgotten
    lobbies: list[Session]
    handed: list[Report]
    ended: list[Session]


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


def ai_seed(seed: int, seq: int) -> str:
    """What seeds the AI's RNG for the action numbered ``seq`` (:func:`ai_rng`): plain text, so
    a worker process (:mod:`bot.host.thinking`) seeds the same RNG from it."""
    return f"{seed}/{seq}/ai"


def ai_rng(seed: int, seq: int) -> random.Random:
    """The AI's RNG for the action numbered ``seq``: a pure function of the secret seed and the
    count, so AI moves replay identically after a restart (a strong search within a time
    budget may still decide otherwise the second time). Chance lines are drawn by
    :func:`rules.fair.chance_rng` (through :meth:`rules.record.Game.next_chance`)."""
    return random.Random(ai_seed(seed, seq))


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


class Host:
    """All sessions of one bot. Create with :meth:`__init__`, then ``await load()``."""

    def __init__(self, store: Store, seed_source: Callable[[], int] = lambda: 0,
                 thinking: Thinking | None = None,
                 committed: Callable[[str, float], None] | None = None) -> None:
        self.store = store
        self.committed = committed or (lambda game, seconds: None)
        """Told of every action committed: its game's name and the commit's seconds (the
        bot's metrics count them)."""
        self.seed_source = seed_source
        self.thinking = thinking or Thinking(workers=0)
        """Where AI seats decide (strong ones in worker processes when the bot runs; in a
        thread by default, for tests and the store's tools)."""
        self.sessions: dict[int, Session] = {}
        self._by_channel: dict[int, int] = {}
        self.notify: set[int] = set()
        """Users who want a DM when it is their turn (``/game notify``)."""
        self.stale: set[int] = set()
        """Games in memory that another process changed since (a shared store's
        notifications say so, :meth:`heard`): read again before they are shown or used."""
        self._loading: dict[int, asyncio.Future[Session]] = {}
        self.reloads = 0
        """Copies read again because another process had changed their game (tests and the
        live benchmark read it: one process over a store never needs to)."""
        self._listeners: list[Listener] = []

    # --- the one seam after commit -----------------------------------------------------------

    def listen(self, callback: Listener) -> None:
        """From now on, call ``callback(game_id)`` after every change this host commits to a
        game (the same shape as :meth:`Store.listen`, which reports the changes of OTHER
        processes). Every change goes through :meth:`_hold` (or :meth:`_announcing`), which
        compares the copy in memory before and after: memory changes only after a commit, so
        a changed copy is a committed change, and nobody has to remember to say so."""
        self._listeners.append(callback)

    def _announce(self, game_id: int) -> None:
        for callback in self._listeners:
            try:
                callback(game_id)
            except Exception:
                log.exception("game %s: a listener to its commits failed", game_id)

    @contextlib.contextmanager
    def _announcing(self, session: Session) -> Iterator[None]:
        """Announce the game when the block changed its copy in memory (even when it then
        raised: what was committed before stands)."""
        before = _stamp(session)
        try:
            yield
        finally:
            if _stamp(session) != before:
                self._announce(session.id)

    # --- loading -------------------------------------------------------------------------------

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

    async def _rate_missed(self) -> None:
        """Results and ratings of games that finished while the bot could not record them
        (and, once after the upgrade to schema 8, of the games finished before it)."""
        for row in await self.store.unrated_finished():
            try:
                await self.rate(await self._load(row))
            except Exception:
                log.exception("game %s: its result could not be recorded", row.id)

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
        session = Session(row, [_seat(s) for s in active.seats], dm_closed=set(active.dm_closed),
                          changes=list(active.changes))
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

    # What the outbox records of what Discord shows, as it shows it: not announced (the outbox
    # is the one showing it, in the same pass).

    async def set_home(self, game_id: int, thread_id: int) -> None:
        """The table of this game lives in ``thread_id`` (a thread, or the lobby's channel)."""
        session = await self._session(game_id)
        await self.store.set_thread(game_id, thread_id)
        session.row = _with(session.row, thread_id=thread_id)
        if session.status in ("lobby", "running"):
            self._by_channel[thread_id] = session.id

    async def set_lobby_message(self, game_id: int, message_id: int | None) -> None:
        """The game's lobby card is this message (None: it was deleted, and is forgotten)."""
        session = await self._session(game_id)
        await self.store.set_lobby_message(game_id, message_id)
        session.row = _with(session.row, lobby_message_id=message_id)

    async def set_dm_closed(self, game_id: int, colour: str, closed: bool) -> None:
        session = await self._session(game_id)
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

    # --- several processes over one store --------------------------------------------------------

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
            session.row = _with(session.row, status="aborted")
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
        session.seats = [_seat(s) for s in active.seats]
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
            raise Refusal("bot.refuse.bad_ai", level=ai_level, levels=list(ai.LEVELS))
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
        await self.store.add_seat(session.id, seat.colour, user_id, ai_level, name)
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
            session.row = _with(session.row, status="running", header=header.line())
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
            session.row = _with(session.row, status="aborted")
            self._forget(session)
            log.info("game %s (%s) aborted by user %s", session.id, session.row.game, user_id)
            return session

    # --- seats changing hands --------------------------------------------------------------------

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
            if session.status == "lobby":
                await self._drop(session, seat, "dropped", by_id)
                return Report(session, [])
            session = self._changing(session)
            _not_last(session, seat)
            return await self._handed(session, seat, None, "", "kicked", by_id)

    async def take(self, game_id: int, user_id: int, colour: str, *, for_id: int | None = None,
                   name: str = "", is_admin: bool = False) -> Report:
        """``user_id`` takes over the seat ``colour`` (or, with ``for_id``, gives it to that
        user). Anyone not playing may take an AI seat that a player left or was removed from,
        or a seat whose player's time ran out on their latest turn; the creator (or a server
        manager) may give any seat to anyone not playing, themselves included."""
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
            if seat.is_ai and not (seat.was_human or approved):
                raise Refusal("bot.refuse.seat_ai_from_start", seat=seat.colour,
                              creator=creator)
            if not seat.is_ai and not (approved or session.timed_out(seat.colour)):
                raise Refusal("bot.refuse.seat_held", seat=seat.colour, holder=seat.user_id,
                              creator=creator)
            what = "took" if taker == user_id else "handed"
            return await self._handed(session, seat, taker, name, what, user_id)

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
        waiting = [(s.colour, s.user_id) for s in self._humans_pending(session)]
        await self._hand(session, seat, user_id, name, what, by_id)
        steps = await self._advance_safely(session)
        if steps or waiting != [(s.colour, s.user_id) for s in self._humans_pending(session)]:
            await self._arm_safely(session)  # others waiting keep the time they had
        return Report(session, steps, before)

    async def _hand(self, session: Session, seat: Seat, user_id: int | None, name: str,
                    what: str, by_id: int) -> None:
        """COMMIT the seat's new holder (None: the AI at the game's level), then memory."""
        now = iso(self.store.clock())
        level = None if user_id is not None else session.row.ai_level
        change = SeatChangeRow(session.seq, seat.colour, what, user_id, seat.user_id, by_id,
                               now)
        await self.store.change_seat(session.id, seat.colour, change, user_id=user_id,
                                     ai_level=level, name=name)
        seat.was_human = seat.was_human or seat.user_id is not None
        seat.user_id, seat.ai_level = user_id, level
        if user_id is not None:
            seat.name = name
        seat.acted_at = now if user_id is not None else None
        session.dm_closed.discard(seat.colour)
        session.changes.append(change)

    # --- privacy -------------------------------------------------------------------------------

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
                session.row = _with(session.row, status="aborted")
                self._forget(session)
                log.info("game %s (%s) aborted: %s", session.id, session.row.game, why)
        return session

    async def _anonymise(self, session: Session, user_id: int) -> None:
        """The session in memory as the store keeps it after :meth:`Store.forget_user`."""
        row = session.row
        if user_id in (row.creator_id, row.paused_by):
            session.row = _with(row, creator_id=FORMER_ID if row.creator_id == user_id
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

    # --- play ----------------------------------------------------------------------------------

    def stalled(self) -> list[Session]:
        """Running games where nobody human is to act: a crash or a failed step came between
        a human's move and the chance or AI moves after it."""
        return [s for s in self.sessions.values()
                if s.status == "running" and s.game is not None and self._host_moves(s)]

    def _host_moves(self, session: Session) -> bool:
        assert session.game is not None
        pending = session.pending()
        return pending == (CHANCE,) or any((s := session.seat(c)) and (s.is_ai or s.away)
                                           for c in pending)

    async def resume(self, game_id: int) -> Report:
        """Play the chance and AI moves a stalled game is waiting for (none if it is not)."""
        session = await self._session(game_id)
        async with self._hold(session):
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
        except StaleGame as stale:  # another process got there first (a shared store)
            log.warning("%s; the game is reloaded and resumed later", stale)
            session.stalled = True
            with contextlib.suppress(Exception):
                await self._reload(session)
            return []
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
        if session.paused:
            return  # the time left is kept until the game resumes
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
            session.row = _with(row, reminded=1)
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
                if not await self.store.claim_deadline(session.id, row.deadline_at):
                    return Report(session, [])
                session.row = _with(row, reminded=1)  # as claimed: the next deadline is armed
            steps: list[Step] = []
            before = session.stage()
            for seat in self._humans_pending(session):
                if seat.colour not in session.pending():
                    continue
                action = await self.thinking.choose(
                    session.module, session.game.state, seat.colour, row.ai_level,
                    ai_seed(row.seed, session.seq))
                steps.append(await self._apply(session, seat.colour, action, "timeout"))
            steps += await self._advance_safely(session)
            await self._arm_safely(session)
            return Report(session, steps, before)

    # --- pace: pause, turn time, away, take-backs ----------------------------------------------

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
            session.row = _with(row, paused_by=user_id, paused_left=left, deadline_at=None)
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
            if row.turn_seconds and self._humans_pending(session):
                left = row.paused_left if row.paused_left is not None else row.turn_seconds
                deadline = iso(self.store.clock() + timedelta(seconds=left))
            await self.store.set_paused(session.id, None, None, deadline)
            session.row = _with(row, paused_by=None, paused_left=None, deadline_at=deadline)
            return session

    async def set_turn_time(self, channel_id: int, user_id: int, seconds: int | None,
                            is_admin: bool = False) -> Session:
        """A new time per turn (None: no deadline); the current turn starts on it afresh."""
        session = self.channel_session(channel_id)
        async with self._hold(session):
            self._may_pace(session, user_id, is_admin)
            seconds = seconds or None
            deadline = left = None
            if seconds and session.status == "running" and self._humans_pending(session):
                if session.paused:
                    left = seconds
                else:
                    deadline = iso(self.store.clock() + timedelta(seconds=seconds))
            await self.store.set_turn_time(session.id, seconds, deadline, left)
            session.row = _with(session.row, turn_seconds=seconds, deadline_at=deadline,
                                paused_left=left, reminded=0)
            return session

    async def back(self, channel_id: int, user_id: int) -> Seat:
        """The player is back: the AI no longer plays for them."""
        session = self._running(channel_id)
        async with self._hold(session):
            seat = self.seat_for_play(session, user_id)
            if not seat.away:
                raise Refusal("bot.refuse.not_away")
            await self.store.set_away(session.id, seat.colour, False)
            seat.away, seat.timeouts = False, 0
            return seat

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

    async def undo(self, channel_id: int, user_id: int) -> Report:
        """Take back the user's most recent move with the AI and forced steps after it, while
        nobody else has acted and nothing hidden has come out since (see :func:`undo_point`).
        The store keeps what was taken back; the game goes on from the position before it."""
        session = self._running(channel_id)
        async with self._hold(session):
            if session.status != "running" or session.game is None:
                raise Refusal("bot.refuse.no_game")
            seat = self.seat_for_play(session, user_id)
            if session.paused:
                raise Refusal("bot.refuse.paused")
            at = undo_point(session, seat.colour)
            game = session.game
            module = session.module
            state = session.state_at(at)
            if state is None:
                assert session.row.header is not None
                state = (await asyncio.to_thread(replay_lines, session.row.header,
                                                 game.lines[:at])).state
            before = session.stage()
            await self.store.take_back(session.id, at, session.seq, seat.colour,
                                       module.to_json(state))
            takeback = Takeback(at, seat.colour, session.log[at:])
            session.log = session.log[:at]
            game.lines = game.lines[:at]
            game.state = state
            session.states = {k: v for k, v in session.states.items() if k < at}
            session.takebacks.append(takeback)
            seat.acted_at = iso(self.store.clock())
            seat.timeouts, seat.away = 0, False
            steps = await self._advance_safely(session)
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
            raise session.gone(user_id) or Refusal("bot.refuse.not_player")
        return seat

    def legal_texts(self, channel_id: int, user_id: int) -> list[str]:
        """What this user may play now, in notation without the colour (for autocomplete)."""
        session = self.in_channel(channel_id)
        if session is None or session.game is None or session.status != "running":
            return []
        seat = session.seat_of(user_id)
        if seat is None or seat.colour not in session.pending():
            return []
        return session.legal_lines(seat.colour)

    async def play(self, channel_id: int, user_id: int, text: str,
                   expect_seq: int | None = None, game_id: int | None = None,
                   expect_turn: int | None = None,
                   repeat_within: float | None = None) -> Report:
        """A human's action typed as notation (``place B2 3``; a leading own colour is allowed).

        ``expect_seq`` (from a button) refuses a click on an outdated prompt; ``game_id`` (from
        a button) refuses a click that belongs to another game in this channel;
        ``repeat_within`` (a typed line, which carries no mark of the position it was meant
        for) refuses the line when it is the one this player had played in the last that many
        seconds: a double send (see :func:`repeated`).
        """
        session = self._running(channel_id)
        if game_id is not None and game_id != session.id:
            raise Refusal("bot.refuse.stale")
        return await self._play(session, user_id, text, expect_seq, expect_turn,
                                repeat_within=repeat_within)

    async def play_game(self, game_id: int, user_id: int, text: str,
                        expect_turn: int | None = None,
                        expect_seq: int | None = None,
                        repeat_within: float | None = None) -> Report:
        """The same as :meth:`play`, for a game named by id (buttons, DMs). ``expect_turn``
        is the seat's :meth:`Session.turns` when a private prompt was made: other seats'
        submissions do not make it outdated, its own do; ``expect_seq`` is the action count
        of a table component."""
        session = await self.get(game_id)
        return await self._play(session, user_id, text, expect_seq, expect_turn,
                                closed="bot.refuse.game_closed", repeat_within=repeat_within)

    async def _play(self, session: Session, user_id: int, text: str, expect_seq: int | None,
                    expect_turn: int | None, closed: str = "bot.refuse.no_game",
                    repeat_within: float | None = None) -> Report:
        """The move, checked against the game as it stands (with a shared store: as stored,
        once the lock is held, so that a double send through two processes is judged on the
        same log and seats). Should the store find its number taken all the same (another
        process got there first: the database is the judge), the game is reloaded and the
        move checked again, so that it is applied at most once and a move that was made
        already is refused as the game now stands."""
        async with self._hold(session):
            try:
                return await self._play_now(session, user_id, text, expect_seq, expect_turn,
                                            closed, repeat_within)
            except StaleGame as stale:
                if not self.store.shared:
                    raise
                log.warning("%s; the game is reloaded and the move checked again", stale)
                await self._reload(session)
            return await self._play_now(session, user_id, text, expect_seq, expect_turn,
                                        closed, repeat_within)

    async def _play_now(self, session: Session, user_id: int, text: str,
                        expect_seq: int | None, expect_turn: int | None,
                        closed: str, repeat_within: float | None = None) -> Report:
        if session.status != "running":
            raise Refusal(closed)
        seat = self.seat_for_play(session, user_id)
        if session.paused:
            raise Refusal("bot.refuse.paused")
        if expect_seq is not None and expect_seq != session.seq:
            raise Refusal("bot.refuse.stale")
        if expect_turn is not None and expect_turn != session.turns(seat.colour):
            raise Refusal("bot.refuse.stale")
        words = split_words(text)
        if len(words) > 1 and words[0].lower() == seat.colour:
            words = words[1:]
        if repeat_within is not None and (line := repeated(
                session, seat, words, self.store.clock(), repeat_within)) is not None:
            raise Refusal("bot.refuse.repeat", line=line)
        pending = session.pending()
        if seat.colour not in pending:
            raise Refusal("bot.refuse.not_your_turn", pending=list(pending))
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
        result = module.result(state)
        finished = result is not None
        seq = len(game.lines) + 1
        secret, revealing = sealed_by(events), reveals(events)
        began = time.perf_counter()
        await self.store.append_action(session.id, seq, line, module.to_json(state), finished,
                                       events=events, by=by, actor=actor, sealed=secret,
                                       reveals=revealing)
        self.committed(session.row.game, time.perf_counter() - began)
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
            seat.timeouts, seat.away = 0, False
        if by == "timeout" and (seat := session.seat(actor)) is not None:
            seat.timeouts += 1
            seat.away = seat.away or seat.timeouts >= AWAY_AFTER
        if finished:
            session.row = _with(session.row, status="finished")
            self._forget(session)
            assert result is not None
            log.info("game %s (%s) ended after %s actions: won by %s (%s)", session.id,
                     session.row.game, seq, ", ".join(result.winners) or "nobody",
                     ", ".join(f"{colour} {score}" for colour, score in result.scores.items()))
            await self._rate_safely(session)
        return step

    # --- results and ratings -------------------------------------------------------------------

    async def rate(self, session: Session) -> bool:
        """Record a finished game's places and scores and update its players' ratings, once:
        False when it had been recorded already (or is not finished)."""
        result = session.result()
        if session.status != "finished" or result is None:
            return False
        seats = [(s.colour, ratings.player_key(s.user_id, s.ai_level)) for s in session.seats]
        rows = ratings.result_rows(seats, result)
        return await self.store.record_results(
            session.id, session.row.guild_id or 0, session.row.game, rows,
            lambda before: ratings.rate(rows, before))

    async def _rate_safely(self, session: Session) -> None:
        """:meth:`rate` after the final commit: a failure leaves the game unrated until the
        next start (:meth:`load`), never undoes its end."""
        try:
            await self.rate(session)
        except Exception:
            log.exception("game %s: its result could not be recorded; it will be at the next"
                          " start", session.id)

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
            bots = [s for c in pending if (s := session.seat(c)) and (s.is_ai or s.away)]
            if bots:
                seat = bots[0]
                level = seat.ai_level or (session.row.ai_level if seat.away else "random")
                action = await self.thinking.choose(module, game.state, seat.colour, level,
                                                    ai_seed(session.row.seed, seq))
                steps.append(await self._apply(session, seat.colour, action,
                                               "ai" if seat.is_ai else "away"))
                continue
            if len(pending) == 1:
                only = session.legal(pending[0])
                if len(only) == 1 and str(only[0]).split()[0] == "pass":
                    steps.append(await self._apply(session, pending[0], only[0], "forced"))
                    continue
            break
        return steps


def repeated(session: Session, seat: Seat, words: list[str], now: datetime,
             within: float) -> str | None:
    """The line (without the colour) when ``words`` are the move this seat's holder played
    last, less than ``within`` seconds before ``now``: the same line sent twice (a double
    click on send, a retried request, two processes each given one copy). None otherwise.
    The seat's ``acted_at`` says when its holder last acted, and its last human line in the
    log what they played; a take-back or a change of hands since then (which also set
    ``acted_at``) leaves nothing to repeat."""
    if seat.acted_at is None or not words:
        return None
    if (now - datetime.fromisoformat(seat.acted_at)).total_seconds() >= within:
        return None
    last = next((s for s in reversed(session.log)
                 if s.actor == seat.colour and s.by == "human"), None)
    if last is None or any(tb.at >= last.seq for tb in session.takebacks) \
            or any(c.colour == seat.colour and c.seq >= last.seq for c in session.changes):
        return None
    played = last.line.split(" ", 1)[1] if " " in last.line else ""
    typed = " ".join(words)
    if typed.lower() == played.lower():
        return played
    game = session.game
    try:
        action = session.module.parse(typed)
        forms = {format_line(seat.colour, action)}
        if game is not None:
            forms.add(format_line(seat.colour, session.module.canonical(
                game.state, seat.colour, action)))
    except (IllegalAction, RecordError, KeyError, TypeError, ValueError):
        return None
    return played if last.line in forms else None


def undo_point(session: Session, colour: str) -> int:
    """How many actions stay when ``colour`` takes back their most recent move; a Refusal
    says why it cannot be taken back. Only steps whose events show everything qualify: the
    move itself reveals nothing and shows nobody a secret (its own sealed submission is fine),
    and every step after it is an AI or forced step that drew nothing, revealed nothing and
    is not secret, so replaying them after another move tells nobody anything new."""
    mine = [i for i, step in enumerate(session.log)
            if step.actor == colour and step.by == "human"]
    if not mine:
        raise Refusal("bot.refuse.undo_nothing")
    at = mine[-1]
    if _shows_something(session.log[at].events, own=True):
        raise Refusal("bot.refuse.undo_hidden")
    for step in session.log[at + 1:]:
        if step.by == "chance":
            raise Refusal("bot.refuse.undo_chance")
        if step.by not in ("ai", "forced"):
            raise Refusal("bot.refuse.undo_other", pending=[step.actor])
        if step.sealed or _shows_something(step.events, own=False):
            raise Refusal("bot.refuse.undo_hidden")
    return at


def _shows_something(events: list[Event], own: bool) -> bool:
    """Whether events reveal sealed lines, carry a secret for a seat (a peek, a deal), or
    (``own`` off) are a sealed submission themselves."""
    return reveals(events) or any("private" in e for e in events) \
        or (not own and sealed_by(events) is not None)


def _who(seat: Seat) -> str:
    """A seat as the log names it: ``red user 1234`` or ``blue AI greedy``."""
    return f"{seat.colour} AI {seat.ai_level}" if seat.is_ai else f"{seat.colour} user " \
        f"{seat.user_id}"


def _seat(row: SeatRow) -> Seat:
    return Seat(row.colour, row.user_id, row.ai_level, row.name, row.acted_at,
                timeouts=row.timeouts, away=bool(row.away), was_human=row.was_human,
                joined=row.joined)



def _stamp(session: Session) -> tuple[Any, ...]:
    """What a commit changes in a copy, summed up: the game's row (replaced on every change),
    its position (a new state object per action), its log, seats, take-backs, changes of
    hands and closed DMs."""
    game = session.game
    return (session.row, id(game.state) if game else None, session.seq, session.status,
            len(session.takebacks), len(session.changes), frozenset(session.dm_closed),
            tuple((s.colour, s.user_id, s.ai_level, s.name, s.away, s.timeouts, s.acted_at)
                  for s in session.seats))


def _full(session: Session) -> bool:
    module = session.module
    taken = {s.colour for s in session.seats}
    return len(session.seats) >= module.MAX_SEATS or all(c in taken for c in module.COLOURS)


def _not_last(session: Session, seat: Seat) -> None:
    """The last human may not go: the AI would play the game out alone (abort it instead)."""
    if all(s.is_ai for s in session.seats if s is not seat):
        raise Refusal("bot.refuse.seat_last_human", holder=seat.user_id)


def _with(row: GameRow, **changes: Any) -> GameRow:
    return GameRow(**{**row.__dict__, **changes})


def _option_words(text: str) -> dict[str, str]:
    return dict(word.partition("=")[::2] for word in text.split())


__all__ = ["Host", "IllegalAction", "Refusal", "Report", "Seat", "Session", "Step", "Takeback",
           "ai_rng", "ai_seed", "option_refusal", "parse_options", "repeated", "undo_point"]
