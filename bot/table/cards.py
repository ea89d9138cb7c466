"""The channel's other messages: the lobby card (the game's card to the end), the ping of the
humans who must act, the note on closed DMs, and the result with the game's record."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.constants import MAX_CONTENT, MAX_EMBED_DESCRIPTION, MAX_EMBED_FIELD, SEAT_LINES
from bot.games import Button, game_ui
from bot.host.sessions import Seat, Session
from bot.table.live import cut
from bot.table.post import Embed, Post
from bot.table.private import pending_humans, secret_now
from bot.table.words import (
    ai_name,
    change_line,
    game_name,
    mentions,
    options_notation,
    result_title,
    seat_label,
    standings,
    user_text,
)
from render.i18n import t


def lobby_post(session: Session, lang: str | None = None) -> Post:
    """The lobby card, in the game's language (``lang``: a copy shown to one user). Built
    again only when something it shows changed: the table is worked out after every move,
    the card changes a few times a game."""
    lang = lang or session.row.language
    # everything the card shows: the row (status, options, thread, seed...), the seats and
    # the latest changes of hands; a finished game's result is final once its row says so
    key = (lang, session.row, tuple((s.colour, s.user_id, s.ai_level) for s in session.seats),
           tuple(session.changes[-SEAT_LINES:]))
    return session.kept("lobby", key, lambda: _lobby_post(session, lang))


def _lobby_post(session: Session, lang: str) -> Post:
    module = session.module
    status = session.status
    title_key = "bot.lobby.title" if status == "lobby" else f"bot.lobby.title_{status}"
    fields = [(t("bot.lobby.seats", lang, count=len(session.seats), max=module.MAX_SEATS),
               "\n".join(seat_label(s, lang) for s in session.seats)
               or t("bot.lobby.empty", lang)),
              (t("bot.lobby.options", lang),
               options_notation(session.row.options) or t("bot.lobby.defaults", lang)),
              (t("bot.lobby.ai_level", lang), ai_name(session.row.ai_level, lang))]
    if session.row.turn_seconds:
        fields.append((t("bot.lobby.turn_time", lang),
                       t("bot.lobby.minutes", lang, minutes=session.row.turn_seconds // 60)))
    if status == "running" and session.row.thread_id \
            and session.row.thread_id != session.row.channel_id:
        fields.append((t("bot.lobby.table", lang), f"<#{session.row.thread_id}>"))
    if session.changes:
        fields.append((t("bot.seats.lobby.changes", lang), cut("\n".join(
            change_line(session, c, lang) for c in session.changes[-SEAT_LINES:]),
            MAX_EMBED_FIELD)))
    if status != "lobby" and game_ui(session.row.game).has_chance:
        fields.append(commitment_field(session, lang))
    if status == "finished":
        fields.append((t("bot.lobby.result", lang), cut(
            "\n".join([result_title(session, lang), *standings(session, lang)]),
            MAX_EMBED_FIELD)))
    description = t("bot.lobby.description", lang, min=module.MIN_SEATS, max=module.MAX_SEATS,
                    creator=user_text(session.row.creator_id, lang)) if status == "lobby" else ""
    embed = Embed(title=t(title_key, lang, game=game_name(session.row.game, lang)),
                  description=cut(description, MAX_EMBED_DESCRIPTION), fields=tuple(fields))
    ops = [("join", "success"), ("leave", "secondary"), ("ai", "secondary")]
    if any(s.is_ai for s in session.seats):
        ops.append(("drop", "secondary"))
    buttons = tuple(Button(op, t(f"bot.lobby.button.{op}", lang), style=style)
                    for op, style in (*ops, ("start", "primary"))) if status == "lobby" else ()
    return Post(embed=embed, components=buttons)


def record_name(session: Session) -> str:
    """The file name of a game's record: ``giants-12.txt``."""
    return f"{session.row.game}-{session.id}.txt"


def commitment_field(session: Session, lang: str) -> tuple[str, str]:
    """The dice commitment shown from the start: the digest, how to check it at the end, and
    once the game is over the seed itself (never before)."""
    digest, game = session.commitment, session.row.game
    text = f"`{digest}`"
    if session.status == "running":
        text += "\n" + t("bot.fair.running", lang, game=game, file=record_name(session))
    elif session.status == "finished":
        text += "\n" + t("bot.fair.finished", lang, game=game, seed=session.row.seed,
                         file=record_name(session), digest=digest)
    return t("bot.fair.commitment", lang), cut(text, MAX_EMBED_FIELD)


def ping_post(session: Session, now: datetime, ping_after: float, lang: str) -> Post | None:
    """Mentions of the humans who must act and have not acted for ``ping_after`` seconds (or
    whose turn time is nearly up); None when nobody needs a nudge."""
    if session.status != "running" or session.paused:
        return None
    due: list[Seat] = []
    for seat in pending_humans(session):
        idle = seat.acted_at is None or now - datetime.fromisoformat(seat.acted_at) \
            >= timedelta(seconds=ping_after)
        if idle or session.row.reminded:
            due.append(seat)
    if not due:
        return None
    who = ", ".join(f"<@{s.user_id}>" for s in due)
    closed = any(s.colour in session.dm_closed for s in due)
    where = t("bot.ping.table", lang) if not secret_now(session) \
        else t("bot.ping.secret_closed" if closed else "bot.ping.secret", lang)
    text = t("bot.ping.text", lang, who=who, game=game_name(session.row.game, lang),
             id=session.id, where=where)
    if session.row.reminded and session.row.deadline_at:
        deadline = int(datetime.fromisoformat(session.row.deadline_at).timestamp())
        text += " " + t("bot.ping.deadline", lang, deadline=f"<t:{deadline}:R>")
    return Post(content=text[:MAX_CONTENT],
                mentions=tuple(s.user_id for s in due if s.user_id is not None))


def dm_note(session: Session, lang: str) -> Post | None:
    """Once per game: whose DMs are closed, and that the 🔒 button serves them instead."""
    closed = [s.colour for s in session.seats if s.colour in session.dm_closed and not s.is_ai]
    if not closed or session.status != "running" or not game_ui(session.row.game).has_screen():
        return None  # a game without a private side needs no DMs (a turn DM is a courtesy)
    return Post(content=t("bot.hidden.dm_closed", lang, who=mentions(session, closed, lang)))


def final_post(session: Session, lang: str) -> Post:
    record = session.record() or ""
    return Post(content=cut("\n".join([result_title(session, lang),
                                        *standings(session, lang)]), MAX_CONTENT),
                attachment=(record_name(session), record))
