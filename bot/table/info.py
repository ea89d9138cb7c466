"""What ``/game help``, ``rules``, ``list``, ``stats`` and ``leaderboard`` show, Discord-free.

Each answer is one :class:`~bot.table.Embed` that keeps within Discord's limits (a description
of at most 4096 characters, fields of at most 1024, 6000 in all). Help tells what to do now in
the live table's own words (:func:`bot.table.now_text`); a rules summary is written from the
games' specifications and says which rules are decisions of ours.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.constants import MAX_EMBED_DESCRIPTION, MAX_EMBED_FIELD
from bot.games import game_ui
from bot.host.ratings import ai_level_of, conservative
from bot.host.sessions import Session
from bot.host.store import FORMER_PLAYER, PlayerStats, Rating
from bot.table import Embed, now_text
from bot.table.live import marks_field
from bot.table.private import owes_secret, pending_humans
from bot.table.words import (
    ai_name,
    colour_name,
    game_name,
    mentions,
    options_notation,
    seat_label,
    user_text,
)
from render.i18n import join, t

MAX_EMBED_TOTAL = 6000
MAX_FIELDS = 25
EXAMPLES = 3
"""Legal moves a player is shown as examples."""
TOP = 10
"""Rows of a leaderboard."""


@dataclass(frozen=True)
class Command:
    """A slash command as help lists it: its full name and its description, in one language."""

    name: str
    description: str


@dataclass(frozen=True)
class Listed:
    """A game in ``/game list``: the session and when it last changed (ISO, from the store)."""

    session: Session
    updated_at: str


def size(embed: Embed) -> int:
    """The characters Discord counts towards an embed's 6000."""
    return len(embed.title) + len(embed.description) + sum(len(n) + len(v)
                                                           for n, v in embed.fields)


def fits(embed: Embed) -> bool:
    return (len(embed.title) <= 256 and len(embed.description) <= MAX_EMBED_DESCRIPTION
            and len(embed.fields) <= MAX_FIELDS and size(embed) <= MAX_EMBED_TOTAL
            and all(len(n) <= 256 and 0 < len(v) <= MAX_EMBED_FIELD for n, v in embed.fields))


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _chunks(lines: Sequence[str], most: int = MAX_EMBED_FIELD) -> list[str]:
    """Lines packed into as few texts of at most ``most`` characters as they fit."""
    out: list[str] = []
    for line in lines:
        line = _cut(line, most)
        if out and len(out[-1]) + 1 + len(line) <= most:
            out[-1] += "\n" + line
        else:
            out.append(line)
    return out


def _timestamp(iso_time: str) -> str:
    """A Discord timestamp that every reader sees in their own words ("3 hours ago")."""
    try:
        moment = datetime.fromisoformat(iso_time)
    except ValueError:
        return "-"
    return f"<t:{int(moment.timestamp())}:R>"


# --- help --------------------------------------------------------------------------------------

def help_embed(session: Session | None, user_id: int, lang: str,
               commands: Sequence[Command]) -> Embed:
    """The commands, and what this user can do in this channel's game now."""
    lines = [_situation(session, user_id, lang)]
    fields: list[tuple[str, str]] = []
    listed = [t("bot.info.help.command", lang, name=c.name, description=c.description)
              for c in commands]
    for i, chunk in enumerate(_chunks(listed)):
        fields.append((t("bot.info.help.commands" if i == 0 else "bot.info.help.commands_more",
                         lang), chunk))
    fields.append((t("bot.info.help.moves", lang), t("bot.info.help.moves_text", lang)))
    if session is not None and session.game is not None:  # the marks, explained once
        fields.insert(0, marks_field(session, lang))
    return Embed(title=t("bot.info.help.title", lang),
                 description=_cut("\n\n".join(w for w in lines if w), MAX_EMBED_DESCRIPTION),
                 fields=tuple(fields[:MAX_FIELDS]))


def _situation(session: Session | None, user_id: int, lang: str) -> str:
    if session is None:
        return t("bot.info.help.no_game", lang)
    game = game_name(session.row.game, lang)
    seat = session.seat_of(user_id)
    if session.status == "lobby" or session.game is None:
        module = session.module
        card = session.row.language  # the card's buttons speak the game's language
        text = t("bot.info.help.lobby", lang, game=game, seated=len(session.seats),
                 max=module.MAX_SEATS, min=module.MIN_SEATS,
                 creator=user_text(session.row.creator_id, lang),
                 join=t("bot.lobby.button.join", card), start=t("bot.lobby.button.start", card),
                 ai=t("bot.lobby.button.ai", card))
        if seat is not None:
            text += " " + t("bot.info.help.seated", lang, colour=colour_name(seat.colour, lang))
        return text
    parts = [t("bot.info.help.game", lang, game=game, id=session.id,
               table=f"<#{session.row.home_id}>"), now_text(session, lang)]
    if seat is None:
        parts.append(t("bot.info.help.watching", lang))
        return "\n".join(p for p in parts if p)
    colour = colour_name(seat.colour, lang)
    legal = session.legal_lines(seat.colour)
    if seat in pending_humans(session) and owes_secret(session, seat):
        parts.append(t("bot.info.help.your_secret", lang, colour=colour,
                       example=legal[0] if legal else "help"))
    elif seat in pending_humans(session):
        parts.append(t("bot.info.help.your_turn", lang, colour=colour))
        if legal:
            parts.append(t("bot.info.help.examples", lang,
                           moves=join([f"`{m}`" for m in legal[:EXAMPLES]], lang)))
    else:
        parts.append(t("bot.info.help.waiting", lang, colour=colour))
    return "\n".join(p for p in parts if p)


# --- rules -------------------------------------------------------------------------------------

def rules_embed(game: str, lang: str, options: str | None = None) -> Embed:
    """A one-screen summary of ``game``'s rules; ``options``: those of the game running here
    (None: no game of this kind runs here)."""
    fields = [(t("bot.info.rules.decisions", lang), t(f"bot.rules.{game}.decisions", lang))]
    if options is not None:
        fields.append((t("bot.info.rules.options", lang),
                       options_notation(options) or t("bot.info.rules.defaults", lang)))
    return Embed(title=t(f"bot.rules.{game}.title", lang),
                 description=t(f"bot.rules.{game}.body", lang), fields=tuple(fields))


# --- the games of a server ---------------------------------------------------------------------

def list_embed(games: Sequence[Listed], lang: str) -> Embed:
    """The server's open lobbies and running games: where, who sits, whose turn, since when."""
    title = t("bot.info.list.title", lang)
    if not games:
        return Embed(title=title, description=t("bot.info.list.none", lang))
    rows = [_listed(entry, lang) for entry in games]
    parts: list[str] = []
    for i, row in enumerate(rows):
        rest = len(rows) - i - 1
        tail = "\n\n" + t("bot.info.list.more", lang, count=rest) if rest else ""
        if len("\n\n".join([*parts, row])) + len(tail) > MAX_EMBED_DESCRIPTION:
            parts.append(t("bot.info.list.more", lang, count=rest + 1))
            break
        parts.append(row)
    return Embed(title=title, description="\n\n".join(parts))


def _listed(entry: Listed, lang: str) -> str:
    session = entry.session
    game = game_name(session.row.game, lang)
    where = f"<#{session.row.home_id}>"
    seats = join([seat_label(s, lang) for s in session.seats], lang) or "-"
    since = _timestamp(entry.updated_at)
    if session.status == "lobby" or session.game is None:
        return t("bot.info.list.lobby", lang, game=game, id=session.id, where=where,
                 seats=seats, since=since)
    who = mentions(session, session.pending(), lang) or "-"
    return t("bot.info.list.running", lang, game=game, id=session.id, where=where,
             seats=seats, who=who, round=session.view(None).get("round"), since=since)


# --- records and ratings -----------------------------------------------------------------------

def player_name(player: str, lang: str) -> str:
    """A rated player in words: a mention for a human, ``AI (greedy)`` for an AI level."""
    level = ai_level_of(player)
    if level is None:
        return t("bot.privacy.former", lang) if player == FORMER_PLAYER else f"<@{player}>"
    return t("bot.info.ai", lang, level=ai_name(level, lang))


def _number(value: float) -> str:
    rounded = round(value, 1)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:.1f}"


def stats_embed(name: str, stats: Sequence[PlayerStats],
                rated: dict[str, Rating | None], lang: str) -> Embed:
    """Per game: plays, wins, average place and score, and the rating (``name``: how the
    player is called; ``rated``: their rating per game)."""
    title = t("bot.info.stats.title", lang, name=name)
    if not stats:
        return Embed(title=title, description=t("bot.info.stats.none", lang, name=name))
    fields = []
    for row in stats[:MAX_FIELDS]:
        score = row.score_total / row.plays
        shown = round(score, 1)
        rating = rated.get(row.game)
        text = t("bot.info.stats.row", lang, plays=row.plays, wins=row.wins,
                 place=_number(row.place_total / row.plays),
                 score=game_ui(row.game).score_text(
                     int(shown) if shown == int(shown) else shown, lang))
        if rating is not None:
            text += "\n" + t("bot.info.stats.rating", lang, rating=_number(conservative(rating)),
                             mu=_number(rating.mu), sigma=_number(rating.sigma))
        fields.append((game_name(row.game, lang), _cut(text, MAX_EMBED_FIELD)))
    return Embed(title=title, fields=tuple(fields))


def leaderboard_embed(game: str, board: Sequence[Rating], lang: str) -> Embed:
    """The best-rated players of ``game`` here, by conservative rating, with their plays."""
    name = game_name(game, lang)
    title = t("bot.info.board.title", lang, game=name)
    if not board:
        return Embed(title=title, description=t("bot.info.board.none", lang, game=name))
    rows = [t("bot.info.board.row", lang, rank=i + 1, who=player_name(r.player, lang),
              rating=_number(conservative(r)), plays=r.plays)
            for i, r in enumerate(board[:TOP])]
    text = "\n".join(rows) + "\n\n" + t("bot.info.board.note", lang)
    return Embed(title=title, description=_cut(text, MAX_EMBED_DESCRIPTION))


__all__ = ["Command", "Listed", "fits", "help_embed", "leaderboard_embed", "list_embed",
           "player_name", "rules_embed", "size", "stats_embed"]
