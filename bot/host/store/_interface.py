"""The store's interface: what the host and the extensions may ask of the games database,
whichever backend holds it (:class:`Store`). SQLite (one bot process, the default) and
PostgreSQL (several processes over one server) both implement every method, with the same
arguments, the same rows returned and the same errors raised (:class:`ChannelBusy`,
:class:`StaleGame`, :class:`SchemaTooNew`, :class:`StoreClosed`, and ``RuntimeError`` for a
damaged log or a take-back that comes too late).

Besides the games, the interface holds what several processes need to share games safely:
:attr:`Store.shared`, :meth:`Store.game_lock`, :meth:`Store.stored_seq`,
:meth:`Store.stored_marks`, :meth:`Store.load_game`, :meth:`Store.seated_games`,
:meth:`Store.listen`, :meth:`Store.claim_deadline` and :meth:`Store.claim_reminder`. With
SQLite one process writes (the instance lock says so), and they are trivial or never needed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

from bot.host.clock import Clock
from bot.host.store._interface_holds import KickHolds
from bot.host.store._rows import (
    Absence,
    ActiveGame,
    Forgotten,
    GameMark,
    GameRow,
    Heartbeat,
    LogRow,
    MessageRow,
    PlayerStats,
    Purged,
    Rate,
    Rating,
    ResultRow,
    Seat,
    SeatChangeRow,
    Snapshot,
    TakebackRow,
)

Listener = Callable[[int], None]
"""Called with the id of a game another process changed (or :data:`EVERY_GAME`)."""


class Transaction(ABC):
    """A write transaction held open across awaits (:meth:`Store.transaction`). Statements are
    written with ``?`` for each parameter, in either backend."""

    @abstractmethod
    async def run(self, sql: str, params: tuple[Any, ...] = ()) -> int | None:
        """Execute one statement; returns the last inserted row id where the backend tells
        it (SQLite), else None."""

    @abstractmethod
    async def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        """The rows of one query: each maps column names (and positions) to values."""


async def run(db: Transaction, sql: str, params: tuple[Any, ...] = ()) -> int | None:
    """Execute one statement in a held transaction; returns the last inserted row id."""
    return await db.run(sql, params)


class Store(KickHolds, ABC):
    """Async access to the games database: open one with :func:`open_store`, close it with
    :meth:`close`. ``clock`` stamps every time the store writes (created, updated, acted...).

    A write that says "in ONE transaction" is applied whole or not at all, whatever happens to
    the task that awaits it."""

    clock: Clock

    @property
    @abstractmethod
    def shared(self) -> bool:
        """Whether other processes may write the same games (PostgreSQL): then a change takes
        :meth:`game_lock`, checks :meth:`stored_seq` against its copy, and listens for the
        others' changes. False for SQLite, whose one writer is this process."""

    @abstractmethod
    async def close(self) -> None:
        """Close once the transactions under way have ended (each commits or rolls back as it
        would have). Once: closing again does nothing; any other call raises
        :class:`StoreClosed`."""

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        """BEGIN ... COMMIT held open across awaits (each statement a round trip), or
        ROLLBACK on any error (cancellation included). For repairs and tests: the store's own
        writes never need it."""

    # --- several processes -----------------------------------------------------------------------

    @abstractmethod
    def game_lock(self, game_id: int) -> AbstractAsyncContextManager[None]:
        """Hold the game's lock across processes for the block: no other process holding it
        at the same time. The lock goes with the holder's connection, so a process that dies
        holding it lets go of it. SQLite: nothing to hold (one process writes)."""

    @abstractmethod
    async def stored_seq(self, game_id: int) -> int:
        """The latest committed sequence number of the game, as its snapshot says (0: none
        yet), in one cheap query: compared with a cached copy's, it says whether another
        process moved the game on."""

    @abstractmethod
    async def stored_marks(self, game_ids: Collection[int]) -> dict[int, GameMark]:
        """The mark of each of these games as stored (:class:`GameMark`), in one query for
        them all: a copy whose own mark differs is behind the store. A game that is not there
        (deleted) is left out."""

    @abstractmethod
    async def load_game(self, game_id: int, after: int = 0) -> ActiveGame | None:
        """One game with all that :meth:`load_active` gives of each, in one read transaction
        (one consistent moment), its log only from row ``after + 1`` on: a copy that holds
        the first ``after`` rows catches up with the rest. ``damage`` says when those rows do
        not follow on from ``after``. None: there is no such game."""

    @abstractmethod
    async def seated_games(self, user_id: int) -> set[int]:
        """The games in a lobby or running where this user holds a seat now."""

    @abstractmethod
    async def listen(self, callback: Listener) -> None:
        """From now on, call ``callback(game_id)`` whenever ANOTHER process commits a change
        to that game (this store's own changes are not reported back). Should the listening
        connection drop, the store opens it again and calls ``callback(EVERY_GAME)``: what
        changed meanwhile was not heard, so every game must be reconciled. SQLite: accepted,
        and never called."""

    @abstractmethod
    async def claim_deadline(self, game_id: int, deadline_at: str, until: str) -> bool:
        """Take the game's turn deadline ``deadline_at`` to play the timeout: True for exactly
        one caller among all processes, while that deadline is the game's and the game runs
        unpaused; False otherwise. Claiming moves the stored deadline to ``until`` and marks
        its reminder sent, so nobody else fires it meanwhile; the claimer then plays the
        timeout and arms the next deadline (:meth:`set_deadline`). Should it die before, the
        deadline falls due again at ``until``. The host decides both: it claims a deadline
        that has come, for :data:`CLAIM_LEASE` seconds."""

    @abstractmethod
    async def claim_reminder(self, game_id: int, deadline_at: str) -> bool:
        """Take the reminder of the turn whose deadline is ``deadline_at``: True for exactly
        one caller among all processes (the reminder is then marked sent, as
        :meth:`mark_reminded` does), False when it was sent already, the deadline changed or
        the game is not running unpaused."""

    # --- running instances -----------------------------------------------------------------------

    @abstractmethod
    async def start_heartbeat(self, instance: str, pid: int, host: str, *,
                              shard_count: int | None = None,
                              shard_ids: Sequence[int] = ()) -> None:
        """This process runs the bot now: its heartbeat row, started and beaten now, with the
        gateway shards it runs (``shard_count`` None: the bot is not sharded). SQLite
        deletes every other row (only the holder of the instance lock writes there, so any
        other row was left by a process that died); PostgreSQL, shared by several bots,
        deletes only a row this host's process of the same id left."""

    @abstractmethod
    async def beat(self, instance: str) -> None:
        """The heartbeat: this instance is alive now."""

    @abstractmethod
    async def end_heartbeat(self, instance: str) -> None:
        """A clean stop: the instance's row goes."""

    @abstractmethod
    async def heartbeats(self) -> list[Heartbeat]:
        """Every heartbeat row, the latest beat first."""

    # --- whose games these are --------------------------------------------------------------------

    @abstractmethod
    async def application_id(self) -> int | None:
        """The Discord application the database belongs to (None: none recorded yet)."""

    @abstractmethod
    async def claim_application(self, application_id: int) -> int | None:
        """Record ``application_id`` as the database's application unless one is recorded
        already (atomically: of two processes logging in at once, the first records it);
        returns the one recorded before the call (None: none was, this one is now)."""

    @abstractmethod
    async def set_application(self, application_id: int) -> int | None:
        """Record ``application_id`` in place of the recorded one (the games move to another
        application on purpose); returns the one recorded before (None: none was)."""

    @abstractmethod
    async def ping(self) -> None:
        """The most trivial query: it returns once the database answers (``/readyz``)."""

    # --- where the slash commands are ------------------------------------------------------------

    @abstractmethod
    async def synced_guilds(self) -> set[int]:
        """The servers the slash commands were copied to (and not cleared since)."""

    @abstractmethod
    async def set_synced_guild(self, guild_id: int, synced: bool) -> None:
        """Remember (now) or forget that the commands were copied to this server."""

    # --- games -----------------------------------------------------------------------------------

    @abstractmethod
    async def create_game(self, *, channel_id: int, guild_id: int | None, game: str,
                          options: str, seed: int, creator_id: int, language: str,
                          ai_level: str, turn_seconds: int | None = None) -> GameRow:
        """A new lobby, returned as stored. Raises :class:`ChannelBusy` if the channel already
        has an active game."""

    @abstractmethod
    async def game(self, game_id: int) -> GameRow | None:
        """The game with this id (None: there is none)."""

    @abstractmethod
    async def active_game(self, channel_id: int) -> GameRow | None:
        """The channel's game in its lobby or running (None: there is none)."""

    @abstractmethod
    async def latest_started(self, channel_id: int) -> GameRow | None:
        """The newest game that started in this channel, or whose table is this thread."""

    @abstractmethod
    async def games_with_status(self, *statuses: str) -> list[GameRow]:
        """Every game with one of these statuses, oldest first."""

    @abstractmethod
    async def set_status(self, game_id: int, status: str) -> None:
        """A new status (one of :data:`STATUSES`)."""

    @abstractmethod
    async def start_game(self, game_id: int, header: str, state: dict[str, Any]) -> None:
        """Lobby -> running: the game line is fixed and the initial snapshot (seq 0) written,
        in ONE transaction."""

    @abstractmethod
    async def set_deadline(self, game_id: int, deadline: str | None) -> None:
        """A new turn deadline (None: nobody is on the clock); its reminder is not sent yet."""

    @abstractmethod
    async def mark_reminded(self, game_id: int) -> None:
        """The reminder of the current turn went out."""

    @abstractmethod
    async def set_paused(self, game_id: int, paused_by: int | None, left: int | None,
                         deadline: str | None) -> None:
        """Pause (``paused_by`` set, the time ``left`` kept, no deadline) or resume (the
        deadline re-armed); the turn's reminder mark stays as it was."""

    @abstractmethod
    async def set_turn_time(self, game_id: int, seconds: int | None, deadline: str | None,
                            left: int | None) -> None:
        """A new time per turn: the current turn starts again on it (``deadline``, or ``left``
        while the game is paused)."""

    # --- seats -----------------------------------------------------------------------------------

    @abstractmethod
    async def seats(self, game_id: int) -> list[Seat]:
        """The game's seats in the order they were taken."""

    @abstractmethod
    async def add_seat(self, game_id: int, colour: str, user_id: int | None,
                       ai_level: str | None, name: str = "", *,
                       acted_at: str | None = None) -> None:
        """A seat joins the lobby, after the others; ``acted_at`` as the host gives it."""

    @abstractmethod
    async def remove_seat(self, game_id: int, colour: str,
                          change: SeatChangeRow | None = None) -> None:
        """A seat leaves the lobby (``change``: recorded with it, for the lobby card)."""

    @abstractmethod
    async def change_seat(self, game_id: int, seat: Seat, change: SeatChangeRow) -> None:
        """The seat passes to its new holder, with the change that says so, in ONE
        transaction. ``seat`` is the seat as it is after: its holder, level, name, ``acted_at``
        and ``was_human`` are written as given, as is every change's ``at`` (the host decides
        them). DMs found closed were the previous holder's, so the mark goes."""

    @abstractmethod
    async def seat_changes(self, game_id: int) -> list[SeatChangeRow]:
        """Every change of hands in the game, oldest first."""

    @abstractmethod
    async def set_away(self, game_id: int, colour: str, away: bool, timeouts: int) -> None:
        """The seat's away mark and timeouts in a row, as given (the host decides them)."""

    # --- actions and snapshots -------------------------------------------------------------------

    @abstractmethod
    async def append_action(self, game_id: int, seq: int, line: str, state: dict[str, Any],
                            finished: bool = False, *, events: list[dict[str, Any]] | None = None,
                            by: str = "human", seat: Seat | None = None,
                            sealed: str | None = None, reveals: bool = False,
                            before_commit: Callable[[], None] | None = None) -> None:
        """Log row ``seq`` and the snapshot after it, in ONE transaction, one round trip.

        ``seq`` must be the next number (1 for the first action): when it is taken already,
        another writer applied an action first, and :class:`StaleGame` is raised without
        anything changed. ``finished`` ends the game. ``sealed`` keeps the line private to
        that seat; ``reveals`` makes every earlier sealed row of the game public (the host
        says both, from the engine's events). ``seat`` is the acting seat as it is after the
        action: its ``acted_at``, ``timeouts`` and ``away`` are written as given (None: the
        seat is unchanged). The store decides none of these: it writes values.
        ``before_commit`` (run inside the transaction, just before COMMIT) lets tests simulate
        a crash there."""

    @abstractmethod
    async def actions(self, game_id: int) -> list[str]:
        """The log's lines in order; a gap in the numbers (a damaged database) raises
        ``RuntimeError``."""

    @abstractmethod
    async def log(self, game_id: int) -> list[LogRow]:
        """The whole log with each row's events and secrecy mark, in order; a gap raises
        ``RuntimeError``."""

    @abstractmethod
    async def take_back(self, game_id: int, at: int, expect_seq: int, colour: str,
                        state: dict[str, Any], seat: Seat | None = None) -> None:
        """``colour`` takes back every log row after ``at``: in ONE transaction the rows are
        kept as they were in ``takebacks``, leave the live log, and the snapshot becomes
        ``state`` (the position after row ``at``); ``seat`` (the taker's, as it is after) has its
        ``acted_at``, ``timeouts`` and ``away`` written as given. The log
        must end at ``expect_seq`` (else another writer got there first, nothing changes and
        ``RuntimeError`` is raised)."""

    @abstractmethod
    async def takebacks(self, game_id: int) -> list[TakebackRow]:
        """Every take-back of the game, oldest first."""

    @abstractmethod
    async def snapshot(self, game_id: int) -> Snapshot | None:
        """The game's latest snapshot (None before it started)."""

    @abstractmethod
    async def write_snapshot(self, game_id: int, seq: int, state: dict[str, Any]) -> None:
        """Replace a game's snapshot (a repair: the log had the last word)."""

    @abstractmethod
    async def load_active(self) -> list[ActiveGame]:
        """Every game in a lobby or running, with all that :meth:`seats`, :meth:`closed_dms`,
        :meth:`seat_changes`, :meth:`snapshot`, :meth:`log` and :meth:`takebacks` return for
        it, in a handful of queries for them all (one read transaction: one consistent
        moment), oldest game first. A game whose log has a gap comes with ``damage`` said
        (what :meth:`log` raises) and the rows as they are."""

    # --- where a game is shown -------------------------------------------------------------------

    @abstractmethod
    async def set_lobby_message(self, game_id: int, message_id: int | None) -> None:
        """The lobby card's message (None: it is gone, deleted by hand, and forgotten)."""

    @abstractmethod
    async def set_thread(self, game_id: int, thread_id: int) -> None:
        """Where the table lives (a thread, or the lobby's channel itself)."""

    @abstractmethod
    async def messages(self, game_id: int) -> dict[str, MessageRow]:
        """The game's Discord messages by slot."""

    @abstractmethod
    async def set_message(self, game_id: int, row: MessageRow) -> None:
        """The slot now names this message (replacing the one it named)."""

    @abstractmethod
    async def slot_of(self, message_id: int) -> tuple[int, str] | None:
        """Which game shows this message, and as what; None for any other message."""

    @abstractmethod
    async def drop_message(self, game_id: int, slot: str, message_id: int | None = None) -> None:
        """Forget a slot's message (``message_id``: only if the slot still holds that one)."""

    # --- private side ----------------------------------------------------------------------------

    @abstractmethod
    async def closed_dms(self, game_id: int) -> set[str]:
        """The colours of the game whose DMs were found closed."""

    @abstractmethod
    async def set_dm_closed(self, game_id: int, colour: str, closed: bool) -> None:
        """Whether the seat's DMs were found closed."""

    # --- results and ratings ---------------------------------------------------------------------

    @abstractmethod
    async def record_results(self, game_id: int, guild_id: int, game: str,
                             rows: list[ResultRow], rate: Rate) -> bool:
        """Write a finished game's results and the ratings they change, in ONE transaction,
        once: False (and nothing written) when the game has its results already. ``rate`` gets
        every player's rating before the game, read inside the transaction (a pure function:
        it may run on a thread of the store's)."""

    @abstractmethod
    async def results(self, game_id: int) -> list[ResultRow]:
        """A finished game's results by place, then colour."""

    @abstractmethod
    async def unrated_finished(self) -> list[GameRow]:
        """Finished games without results (the bot stopped between the last move and them)."""

    @abstractmethod
    async def player_stats(self, guild_id: int, player: str) -> list[PlayerStats]:
        """Per game (by name), the player's plays, wins and summed places and scores here."""

    @abstractmethod
    async def rating(self, guild_id: int, game: str, player: str) -> Rating | None:
        """The player's rating in this game here (None: unrated)."""

    @abstractmethod
    async def leaderboard(self, guild_id: int, game: str, z: float,
                          limit: int) -> list[Rating]:
        """The best ``limit`` players of a game here by ``mu - z * sigma``."""

    @abstractmethod
    async def guild_games(self, guild_id: int, *statuses: str) -> list[GameRow]:
        """A server's games with these statuses, the longest-waiting first."""

    # --- user settings ---------------------------------------------------------------------------

    @abstractmethod
    async def notified_users(self) -> set[int]:
        """The users who want a DM when it is their turn."""

    @abstractmethod
    async def set_notify(self, user_id: int, on: bool) -> None:
        """Whether the user wants a DM when it is their turn."""

    @abstractmethod
    async def user_languages(self) -> dict[int, str]:
        """Every user whose language is known: user id -> the language of their Discord
        locale when they last interacted with the bot."""

    @abstractmethod
    async def set_user_language(self, user_id: int, language: str) -> None:
        """The language of the user's latest interaction."""

    # --- server settings -------------------------------------------------------------------------

    @abstractmethod
    async def threads_allowed(self, guild_id: int | None) -> bool:
        """Whether games in this server get a thread of their own (on unless turned off)."""

    @abstractmethod
    async def set_threads_allowed(self, guild_id: int, allowed: bool) -> None:
        """Turn threads on or off for the server's new games."""

    # --- privacy ---------------------------------------------------------------------------------

    @abstractmethod
    async def forget_user(self, user_id: int) -> Forgotten:
        """Remove a user from the database in ONE transaction: their settings and ratings are
        deleted; wherever a game keeps them (a seat, its name, a seat change, the creator,
        who paused it, a message's holder, a result) the game stays and holds
        :data:`FORMER_ID` (or :data:`FORMER_PLAYER`, and an empty name) instead; a kick hold
        on them goes, one they set is kept as set by :data:`FORMER_ID`. Lobbies and
        running games are the host's to settle first (their seats are freed or go to the AI);
        what is left of the user there is made anonymous the same way."""

    @abstractmethod
    async def set_departure(self, guild_id: int) -> None:
        """The bot was removed from this server (now, by the store's clock)."""

    @abstractmethod
    async def cancel_departure(self, guild_id: int) -> bool:
        """The bot is back in this server: nothing of it is deleted. True if it had left."""

    @abstractmethod
    async def departures(self) -> dict[int, str]:
        """Server id -> when the bot was removed from it, for every server not purged yet."""

    @abstractmethod
    async def note_absence(self, guild_id: int) -> Absence:
        """The server was missing from Discord's list of the bot's servers at a start (now, by
        the store's clock): one more start counted; returns the record as it is now."""

    @abstractmethod
    async def clear_absence(self, guild_id: int) -> bool:
        """The server is listed again (or was judged): its record goes. True if it had one."""

    @abstractmethod
    async def absences(self) -> dict[int, Absence]:
        """Server id -> its record, for every server missing at a start and not cleared."""

    @abstractmethod
    async def guilds_with_games(self) -> set[int]:
        """Every server that has a game in the store."""

    @abstractmethod
    async def delete_guild(self, guild_id: int) -> Purged:
        """Everything the bot keeps of one server, in ONE transaction: its games with their
        seats, actions, snapshots, messages, results and seat changes, its ratings, its
        settings, its departure mark and its absence record."""

