"""The pace of a game in words: a pause, the seats that are away, the take-backs in the stage's
log, and the "your turn" DM of a player who asked for one (``/game notify``).

Discord-free, from the session only (see :mod:`bot.table`, which puts these into posts).
"""

from __future__ import annotations

from collections.abc import Collection

from bot.games import GameUI
from bot.host.sessions import Seat, Session, Step, Takeback
from bot.table.private import owes_secret, pending_humans
from bot.table.words import colour_name, game_name, mentions, step_line, user_text
from render.i18n import t


def paused_text(session: Session, lang: str) -> str:
    """What the table says while the game is paused (instead of whose turn it is)."""
    return t("bot.pace.paused", lang, who=user_text(session.row.paused_by, lang))


def away_text(session: Session, lang: str) -> str:
    """Who is away (the AI plays for them until they are back); empty when nobody is."""
    away = [s.colour for s in session.away()]
    return t("bot.pace.away", lang, who=mentions(session, away, lang)) if away else ""


def step_words(ui: GameUI, step: Step, lang: str, names: dict[str, str]) -> str:
    """A log line without the mark of who played it (``▶``, ``🤖``...)."""
    line = step_line(ui, step, lang, names)
    return line.removeprefix(t(f"bot.step.by_{step.by}", lang)).strip()


def takeback_line(ui: GameUI, takeback: Takeback, lang: str, names: dict[str, str]) -> str:
    """``↩️ Red took back a move: ...`` (a sealed choice stays unsaid)."""
    who = names.get(takeback.colour, colour_name(takeback.colour, lang))
    first = takeback.steps[0]
    if first.sealed:
        return t("bot.pace.took_back_sealed", lang, who=who)
    key = "bot.pace.took_back_more" if len(takeback.steps) > 1 else "bot.pace.took_back"
    return t(key, lang, who=who, what=step_words(ui, first, lang, names))


def takeback_notes(session: Session, ui: GameUI, steps: list[Step], lang: str,
                   names: dict[str, str]) -> dict[int, list[str]]:
    """The take-backs made within a stretch of the log, in words, by the action count they
    went back to (each goes after that action's line; one at the stretch's start first)."""
    low = steps[0].seq - 1 if steps else session.seq
    high = steps[-1].seq if steps else session.seq
    notes: dict[int, list[str]] = {}
    for takeback in session.takebacks:
        if low <= takeback.at <= high:
            notes.setdefault(takeback.at, []).append(takeback_line(ui, takeback, lang, names))
    return notes


def turn_dm_due(session: Session, seat: Seat, notify: Collection[int]) -> bool:
    """Whether ``seat`` should get a "your turn" DM now: they asked for it, their turn has
    come, and no secret-choice prompt (a DM of its own) is on the way."""
    return (seat.user_id in notify and session.status == "running" and not session.paused
            and not seat.away and seat.colour not in session.dm_closed
            and seat in pending_humans(session) and not owes_secret(session, seat))


def turn_dm_text(session: Session, ui: GameUI, seat: Seat, lang: str) -> str:
    return t("bot.pace.your_turn", lang, game=game_name(session.row.game, lang), id=session.id,
             colour=colour_name(seat.colour, lang), phase=ui.phase_name(session.kind(), lang),
             channel=f"<#{session.row.home_id}>")


def turn_key(session: Session, seat: Seat) -> str:
    """Names the decision a "your turn" DM is for: a new key means a new DM."""
    return str(session.turns(seat.colour))


__all__ = [
    "away_text",
    "paused_text",
    "takeback_line",
    "takeback_notes",
    "turn_dm_due",
    "turn_dm_text",
    "turn_key",
]
