"""The host's types: a game in memory (:class:`Session`), its seats and applied steps, the
take-backs, what a request did (:class:`Report`) and what the host refuses (:class:`Refusal`).

A session holds the game as committed; what the table works out of its positions is its
:class:`~bot.host._memo.Memo`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bot.host._memo import Memo
from bot.host.store import (
    Forgotten,
    GameMark,
    GameRow,
    LogRow,
    Seat,
    SeatChangeRow,
    mark_of,
)
from rules import fair
from rules.core import (
    Event,
    GameModule,
    Result,
    hidden_line,
)
from rules.record import (
    Game,
)
from rules.registry import game_module

T = TypeVar("T")

KEEP_STATES = 24
"""Recent positions a session keeps in memory, so the table can show a stage's final board."""

class Refusal(Exception):
    """A request the host turns down: ``key`` is a ``bot.refuse.*`` message key."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


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
    memo: Memo = field(default_factory=Memo, repr=False, compare=False)
    """What the table worked out of this game's latest positions (:meth:`worked_out`,
    :meth:`kept`): not the game, only answers that can be worked out again."""

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
        """``work(state)`` through the game's :class:`Memo` (:meth:`Memo.worked_out`)."""
        return self.memo.worked_out(state, question, work)

    def kept(self, name: str, key: Hashable, work: Callable[[], T]) -> T:
        """``work()`` through the game's :class:`Memo` (:meth:`Memo.kept`)."""
        return self.memo.kept(name, key, work)

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


def humans_pending(session: Session) -> list[Seat]:
    """The human seats the game waits for now."""
    return [s for c in session.pending() if (s := session.seat(c)) and not s.is_ai]


def stamp(session: Session) -> tuple[Any, ...]:
    """What a commit changes in a copy, summed up: the game's row (replaced on every change),
    its position (a new state object per action), its log, seats, take-backs, changes of
    hands and closed DMs."""
    game = session.game
    return (session.row, id(game.state) if game else None, session.seq, session.status,
            len(session.takebacks), len(session.changes), frozenset(session.dm_closed),
            tuple((s.colour, s.user_id, s.ai_level, s.name, s.away, s.timeouts, s.acted_at)
                  for s in session.seats))


def with_row(row: GameRow, **changes: Any) -> GameRow:
    return GameRow(**{**row.__dict__, **changes})
