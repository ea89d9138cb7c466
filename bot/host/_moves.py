"""Moves: a human's action checked and applied, chance and AI seats played on, take-backs, and
"I'm back". The only code that writes actions to the store; it owns when a human acted, their
timeouts in a row and whether they are away.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from dataclasses import replace
from datetime import datetime
from typing import Any

from bot.host._cache import GameCache
from bot.host._session import (
    KEEP_STATES,
    Refusal,
    Report,
    Seat,
    Session,
    Step,
    Takeback,
    with_row,
)
from bot.host.clock import iso
from bot.host.store import (
    StaleGame,
)
from rules.core import (
    CHANCE,
    Event,
    IllegalAction,
    forced,
    reveals,
    sealed_by,
    split_words,
)
from rules.record import (
    RecordError,
    format_line,
    replay_lines,
)

log = logging.getLogger("bot.host.sessions")  # one name for the host's lines, as documented


AWAY_AFTER = 2
"""Timeouts in a row after which a seat is marked away (the AI plays for it at once)."""


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


class Moves(GameCache):
    """Moves: the only code that writes actions to the store."""

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
        if revealing:
            secret = None  # the reveal makes every line public, its own included
        seat = session.seat(actor)
        paced = _paced(seat, by, iso(self.store.clock())) if seat is not None else None
        began = time.perf_counter()
        await self.store.append_action(session.id, seq, line, module.to_json(state), finished,
                                       events=events, by=by, seat=paced, sealed=secret,
                                       reveals=revealing)
        self.committed(session.row.game, time.perf_counter() - began)
        session.states[seq - 1] = game.state
        session.states.pop(seq - 1 - KEEP_STATES, None)
        game.state = state
        game.lines.append(line)
        if revealing:
            for step in session.log:
                step.sealed = None
        step = Step(actor, line, events, by, seq, secret)
        session.log.append(step)
        if seat is not None and paced is not None:
            seat.acted_at, seat.timeouts, seat.away = paced.acted_at, paced.timeouts, paced.away
        if finished:
            session.row = with_row(session.row, status="finished")
            self._forget(session)
            assert result is not None
            log.info("game %s (%s) ended after %s actions: won by %s (%s)", session.id,
                     session.row.game, seq, ", ".join(result.winners) or "nobody",
                     ", ".join(f"{colour} {score}" for colour, score in result.scores.items()))
            await self._rate_safely(session)
        return step

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
            if len(pending) == 1 and (action := forced(session.legal(pending[0]))) is not None:
                steps.append(await self._apply(session, pending[0], action, "forced"))
                continue
            break
        return steps

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
            acted = replace(seat, acted_at=iso(self.store.clock()), timeouts=0, away=False)
            await self.store.take_back(session.id, at, session.seq, seat.colour,
                                       module.to_json(state), acted)
            takeback = Takeback(at, seat.colour, session.log[at:])
            session.log = session.log[:at]
            game.lines = game.lines[:at]
            game.state = state
            session.states = {k: v for k, v in session.states.items() if k < at}
            session.takebacks.append(takeback)
            seat.acted_at, seat.timeouts, seat.away = acted.acted_at, 0, False
            steps = await self._advance_safely(session)
            await self._arm_safely(session)
            return Report(session, steps, before)

    async def back(self, channel_id: int, user_id: int) -> Seat:
        """The player is back: the AI no longer plays for them."""
        session = self._running(channel_id)
        async with self._hold(session):
            seat = self.seat_for_play(session, user_id)
            if not seat.away:
                raise Refusal("bot.refuse.not_away")
            await self.store.set_away(session.id, seat.colour, False, 0)
            seat.away, seat.timeouts = False, 0
            return seat


def _paced(seat: Seat, by: str, now: str) -> Seat | None:
    """The acting seat as it is after its action (None: unchanged): a human's own action
    stamps when they acted and forgets their timeouts and being away; a timeout counts one
    more, and :data:`AWAY_AFTER` in a row mark them away (the AI then plays for them at once).
    The host decides this; the store writes the values."""
    if by == "human":
        return replace(seat, acted_at=now, timeouts=0, away=False)
    if by == "timeout":
        return replace(seat, timeouts=seat.timeouts + 1,
                       away=seat.away or seat.timeouts + 1 >= AWAY_AFTER)
    return None


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
