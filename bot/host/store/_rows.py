"""What both backends of the store share: the rows they return, the errors they raise, the
constants of the schema (the pure helpers that build rows from what a query read are
:mod:`bot.host.store._reading`).

Nothing here touches a database: the SQLite and the PostgreSQL backends read their rows their
own way and hand them to the same builders, so the host cannot tell them apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import orjson

SCHEMA_VERSION = 15
"""The schema both backends migrate to (their numbered migrations end here)."""
ACTIVE = ("lobby", "running")
STATUSES = ("lobby", "running", "finished", "aborted")
FORMER_ID = 0
"""The user id a forgotten player's seats, seat changes and games keep (no Discord user has
it): the record stays, "a former player" held the seat."""
FORMER_PLAYER = "former"
"""How a forgotten player's results name them (``results.player`` holds user ids as text)."""
GAME_TABLES = ("seats", "actions", "snapshots", "messages", "hidden_seats", "takebacks",
               "seat_changes", "results", "kick_holds")
"""Every table whose rows belong to one game (``game_id``)."""


EVERY_GAME = 0
"""What a :meth:`Store.listen` callback hears instead of a game id when notifications may
have been missed (the listening connection dropped and was opened again): every game may have
changed, reconcile them all. No game has this id."""
CLAIM_LEASE = 120
"""Seconds the host pushes a turn deadline back when it claims it (:meth:`Store.claim_deadline`):
long enough for the claimer to play the timeout and arm the next deadline; should it die first,
the turn falls due again after this long and another process claims it."""

@dataclass(frozen=True)
class GameRow:
    id: int
    channel_id: int
    guild_id: int | None
    game: str
    options: str
    seed: int
    """The secret seed every chance line is drawn from (:mod:`rules.fair`): 128 bits, kept
    as text in the ``secret_seed`` column; it leaves the bot only in the finished record."""
    header: str | None
    status: str
    creator_id: int
    language: str
    ai_level: str
    created_at: str
    updated_at: str
    turn_seconds: int | None = None
    """Time each turn may take; None: no deadline."""
    deadline_at: str | None = None
    """When the pending humans' time runs out (absolute, from the injected clock)."""
    reminded: int = 0
    thread_id: int | None = None
    """Where the table lives once the game started: a thread under the lobby message, or the
    lobby's channel itself (then equal to ``channel_id``); None before the outbox decided."""
    lobby_message_id: int | None = None
    paused_by: int | None = None
    """Who paused the game (None: it is not paused)."""
    paused_left: int | None = None
    """Seconds of turn time that were left when it was paused (None: nobody was on the clock)."""

    @property
    def home_id(self) -> int:
        """The channel (or thread) the table is shown in."""
        return self.thread_id or self.channel_id


@dataclass
class Seat:
    """A seat of a game: what the store keeps of it, and what the host keeps in memory (one
    type: the host changes its copy only after the store committed the same values)."""

    colour: str
    user_id: int | None
    ai_level: str | None = None
    name: str = ""
    """The player's display name when they joined: images cannot show mentions."""
    acted_at: str | None = None
    """When the human last acted in this game (ISO, from the injected clock; joining counts)."""
    timeouts: int = 0
    """Turns in a row on which this human's time ran out."""
    away: bool = False
    """Timed out too many times in a row (the host decides how many): the AI plays for them
    at once until they act again (``/game back``, or any move of their own)."""
    was_human: bool = False
    """A human held this seat before the AI took it over (they left or were removed)."""
    joined: int = 0
    """The seat's place in the order seats were added (the lobby's newest AI seat goes to a
    late joiner)."""

    @property
    def is_ai(self) -> bool:
        return self.user_id is None


@dataclass(frozen=True)
class SeatChangeRow:
    """A seat changed hands. ``what``: ``left``, ``kicked`` (turned over to the AI), ``took``
    (a player took it over), ``handed`` (the creator gave it to a player), ``replaced`` (a
    late joiner got a lobby's AI seat), ``removed`` (an AI seat left the lobby), ``dropped``
    (a player was removed from the lobby). ``user_id`` is the seat's new holder (None: the
    AI or nobody), ``old_id`` the previous one, ``by_id`` who made the change, ``seq`` how
    many actions had been applied."""

    seq: int
    colour: str
    what: str
    user_id: int | None
    old_id: int | None
    by_id: int | None
    at: str = ""


@dataclass(frozen=True)
class Forgotten:
    """What :meth:`Store.forget_user` removed or made anonymous."""

    settings: int
    """User settings rows deleted (language, turn DMs): 0 or 1."""
    ratings: int
    """Rating rows deleted (one per server and game)."""
    results: int
    """Finished games whose result no longer names the player."""


@dataclass(frozen=True)
class Purged:
    """What :meth:`Store.delete_guild` deleted for one server."""

    guild_id: int
    games: int
    ratings: int


@dataclass(frozen=True)
class Snapshot:
    seq: int
    state: dict[str, Any]


class _LogFields(NamedTuple):
    seq: int
    line: str
    events_json: str
    """The events as stored (JSON text)."""
    by: str
    sealed: str | None


class LogRow(_LogFields):
    """One applied action as stored: ``sealed`` names the seat it is still private to. Its
    events are kept as the stored JSON text and decoded on first use of :attr:`events` (a
    start reads the logs of every running game; most of their events are never looked at).
    Immutable and compared by its fields; a tuple underneath, so that many are made quickly."""

    @classmethod
    def of(cls, seq: int, line: str, events: list[dict[str, Any]], by: str,
           sealed: str | None) -> LogRow:
        """A row from decoded events."""
        row = cls(seq, line, dump(events), by, sealed)
        row.__dict__["events"] = events
        return row

    @cached_property
    def events(self) -> list[dict[str, Any]]:
        decoded: list[dict[str, Any]] = json.loads(self.events_json)
        return decoded


@dataclass(frozen=True)
class TakebackRow:
    """One ``/game undo``: ``colour`` took back the log rows after ``at`` (as they were)."""

    at: int
    colour: str
    rows: list[LogRow]
    taken_at: str


@dataclass(frozen=True)
class ActiveGame:
    """A game in a lobby or running, with everything the host needs to load it
    (:meth:`Store.load_active`): each part equal to what the store's per-game read returns.
    ``damage``: None, or why :meth:`Store.log` refuses the game's log (a gap in it)."""

    row: GameRow
    seats: list[Seat]
    dm_closed: set[str]
    changes: list[SeatChangeRow]
    snapshot: Snapshot | None
    log: list[LogRow]
    takebacks: list[TakebackRow]
    damage: str | None = None


MarkSeat = tuple[str, int | None, str | None, bool]
"""A seat as a :class:`GameMark` holds it: colour, holder (None: the AI), AI level, away."""


class GameMark(NamedTuple):
    """What a copy of a game kept in memory must agree with to be the game as stored
    (:meth:`Store.stored_marks`): everything of it that changes, summed up. Another process
    changed the game since the copy was made when the two marks differ. The sequence number
    alone would not tell: a seat handed over, a pause or a new deadline leave it as it was,
    and a take-back followed by a new move brings the same number back with another game
    behind it (the count of take-backs tells that one)."""

    status: str
    seq: int
    """The snapshot's action count (0: none yet)."""
    takebacks: int
    changes: int
    """How many seat changes were recorded."""
    seats: tuple[MarkSeat, ...]
    """By colour."""
    dm_closed: tuple[str, ...]
    """The colours whose DMs were found closed, sorted."""
    creator_id: int
    turn_seconds: int | None
    deadline_at: str | None
    reminded: bool
    paused_by: int | None
    paused_left: int | None
    thread_id: int | None
    lobby_message_id: int | None


def mark_of(row: GameRow, seq: int, takebacks: int, changes: int, seats: Iterable[MarkSeat],
            dm_closed: Iterable[str]) -> GameMark:
    """The mark of a game from its parts: the store builds it from what it read, the host
    from its copy, so that both say the same of the same game."""
    return GameMark(row.status, seq, takebacks, changes,
                    tuple(sorted((c, u, a, bool(w)) for c, u, a, w in seats)),
                    tuple(sorted(dm_closed)), row.creator_id, row.turn_seconds,
                    row.deadline_at, bool(row.reminded), row.paused_by, row.paused_left,
                    row.thread_id, row.lobby_message_id)


@dataclass(frozen=True)
class MessageRow:
    """A Discord message the outbox keeps up to date for one game (see :class:`Store`): where
    it is and the digest of what it last showed, and, each in a field of its own, what the
    outbox decides the message's next change from (the fields another kind of message has no
    use for keep their defaults). The slot names the kind: ``live``, ``ping``, ``lobby``,
    ``screen:<colour>``, ``prompt:<colour>``, ``turn:<colour>``, ``dm_note``, ``moved``, ``locked``,
    ``final``."""

    slot: str
    channel_id: int
    message_id: int
    digest: str = ""
    stage: str = ""
    """The live message: the key of the stage it shows (``GameUI.stage``); a stage that
    changes closes it and opens a new one."""
    stage_start: int = 0
    """The live message: the first action played in its stage (0: not known)."""
    holder: int | None = None
    """A DM screen or prompt: the user it was sent to (None: stored before messages said
    so); a seat that changes hands retires its previous holder's."""
    turn: int | None = None
    """A DM prompt or a "your turn" DM: the seat's count of actions played when it was sent,
    which names the decision it is for (None: not known)."""
    mentions: tuple[int, ...] = ()
    """The ping: the users it mentioned (fewer is an edit, anyone new a new ping)."""
    reminder: bool = False
    """The ping: whether it was sent as the reminder that the turn time is nearly up."""


def message_values(row: MessageRow) -> tuple[Any, ...]:
    """What the store writes for ``row``: the ``messages`` columns in its fields' order
    (``mentions`` kept as comma-separated user ids, ``reminder`` as 0 or 1)."""
    return (row.slot, row.channel_id, row.message_id, row.digest, row.stage, row.stage_start,
            row.holder, row.turn, ",".join(str(user) for user in row.mentions),
            int(row.reminder))


def message_row(read: Iterable[Any]) -> MessageRow:
    """A :class:`MessageRow` from its ``messages`` columns as a query read them, in its
    fields' order."""
    slot, channel_id, message_id, digest, stage, start, holder, turn, mentions, reminder = read
    return MessageRow(slot, channel_id, message_id, digest, stage, start, holder, turn,
                      tuple(int(user) for user in mentions.split(",") if user),
                      bool(reminder))


@dataclass(frozen=True)
class ResultRow:
    """One seat's outcome in a finished game: ``player`` is the user id as text, or
    ``ai:<level>`` for an AI seat; ``place`` 1 is first, tied seats share a place."""

    colour: str
    player: str
    place: int
    score: int
    won: bool


@dataclass(frozen=True)
class Rating:
    """A player's Weng-Lin rating in one game on one server, and how many seats it played."""

    player: str
    mu: float
    sigma: float
    plays: int


@dataclass(frozen=True)
class PlayerStats:
    """A player's finished games of one game on one server, summed."""

    game: str
    plays: int
    wins: int
    place_total: int
    score_total: int


@dataclass(frozen=True)
class Heartbeat:
    """A running bot as its heartbeat row says: which process on which host, since when, and
    when it last beat (ISO timestamps from its clock), and the gateway shards it runs."""

    instance: str
    pid: int
    host: str
    started_at: str
    beat_at: str
    shard_count: int | None = None
    """The shards of the whole bot (None: not sharded, one connection)."""
    shard_ids: tuple[int, ...] = ()
    """The shards this process runs (all of them, when it runs alone)."""

    def age(self, now: datetime) -> float:
        """Seconds since the last beat (negative if the clocks disagree)."""
        return (now - datetime.fromisoformat(self.beat_at)).total_seconds()

    @property
    def shards(self) -> str:
        """The shards it runs, as the commands print them (``shards 0,1 of 4``; empty when
        the bot is not sharded)."""
        if self.shard_count is None:
            return ""
        return f"shards {shard_list(self.shard_ids)} of {self.shard_count}"


def shard_list(ids: Iterable[int]) -> str:
    """Shard numbers for people: ``0,1`` or, for a run of three or more, ``0-7,9``."""
    parts: list[str] = []
    run: list[int] = []
    for shard in [*sorted(ids), None]:
        if shard is not None and run and shard == run[-1] + 1:
            run.append(shard)
            continue
        if len(run) >= 3:
            parts.append(f"{run[0]}-{run[-1]}")
        else:
            parts += map(str, run)
        run = [shard] if shard is not None else []
    return ",".join(parts)


def shard_column(ids: Iterable[int]) -> str:
    """The ``heartbeat.shard_ids`` column: the numbers, comma-separated (empty: none)."""
    return ",".join(map(str, ids))


def heartbeat(row: Any) -> Heartbeat:
    """A heartbeat from its ``SELECT *`` row (``sqlite3.Row`` or ``asyncpg.Record``); the row
    of a database older than schema 12 has no shard columns: that bot was not sharded."""
    keys = set(row.keys())
    ids = row["shard_ids"] if "shard_ids" in keys else ""
    return Heartbeat(row["instance"], row["pid"], row["host"], row["started_at"],
                     row["beat_at"], row["shard_count"] if "shard_count" in keys else None,
                     tuple(int(shard) for shard in ids.split(",") if shard))


@dataclass(frozen=True)
class Absence:
    """A server with games that was missing from Discord's list of the bot's servers at one
    start or more: on how many starts (each process start counts once), the first and the
    latest (ISO timestamps from the store's clock)."""

    guild_id: int
    starts: int
    first_at: str
    last_at: str

    def days(self) -> float:
        """Days between the first start it was missing at and the latest."""
        return (datetime.fromisoformat(self.last_at)
                - datetime.fromisoformat(self.first_at)).total_seconds() / 86400


@dataclass(frozen=True)
class DatabaseInfo:
    """What ``python -m bot check`` learns from a database without changing it."""

    version: int
    """Its schema (0: empty, the bot creates the tables)."""
    integrity: list[str]
    """SQLite's integrity check: ``["ok"]``, else what it found (the first lines); empty for
    PostgreSQL, which checks its own pages."""
    games: int
    application_id: int | None = None
    """The Discord application the database belongs to (None: none recorded yet, the first
    login records it)."""

    @property
    def pending(self) -> int:
        """Migrations the bot applies when it next opens it (negative: newer than the bot)."""
        return SCHEMA_VERSION - self.version


@dataclass(frozen=True)
class BackupInfo:
    """A backup written: where, its size in bytes, its games and its schema."""

    path: Path
    size: int
    games: int
    version: int


class SchemaTooNew(RuntimeError):
    """The database was written by a newer bot: this one must not touch it."""


class InstanceRunning(Exception):
    """Another process holds the database's instance lock: a bot is running on it."""

    def __init__(self, lock_path: Path) -> None:
        super().__init__(f"{lock_path} is held by another process")
        self.lock_path = lock_path


Rate = Callable[[dict[str, Rating | None]], dict[str, tuple[float, float]]]
"""From each player's rating before a game (None: unrated), their ``(mu, sigma)`` after it."""



# --- the store's own errors ----------------------------------------------------------------------

class ChannelBusy(Exception):
    """The channel already has a game in its lobby or running."""


class StaleGame(Exception):
    """Another writer applied this sequence number of the game first: the caller's copy of the
    game is behind the store (reload it), and nothing was written. Both backends raise it from
    :meth:`Store.append_action`, so no action is ever applied twice."""

    def __init__(self, game_id: int, seq: int) -> None:
        super().__init__(f"game {game_id}: action {seq} is taken already")
        self.game_id = game_id
        self.seq = seq


class StoreClosed(RuntimeError):
    """The store was closed: it takes no more work."""

def dump(state: Any) -> str:
    """JSON as the store keeps it: compact, UTF-8 as is, sets as lists. orjson writes it
    several times faster than ``json``, the same text; ``json`` writes what orjson cannot (an
    integer past 64 bits)."""
    try:
        return orjson.dumps(state, default=list, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(state, separators=(",", ":"), ensure_ascii=False, default=list)
