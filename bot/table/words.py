"""The table's words: names, seat labels, step lines, refusals and standings, in one language.

Discord-free and built from views, events and the stored log only. A mention is written as
``<@id>``: Discord shows it as the member's name, and pings only where a message allows it.
"""

from __future__ import annotations

from typing import Any

from bot.constants import MAX_ECHO
from bot.games import GameUI, colour_name, game_ui
from bot.host.sessions import Refusal, Seat, Session, Step
from bot.host.store import FORMER_ID, SeatChangeRow
from render.i18n import has, join, rule_error, t, term
from render.marks import mark_symbol
from rules.core import IllegalAction


def user_text(user_id: int | None, lang: str) -> str:
    """A user as a mention (``<@id>``), or "a former player" for one who had the bot forget
    them (``/game forget-me``); ``-`` for nobody."""
    if user_id is None:
        return "-"
    return t("bot.privacy.former", lang) if user_id == FORMER_ID else f"<@{user_id}>"


def game_text(game: str, key: str, lang: str, /, **params: Any) -> str:
    """``bot.<key>`` in the game's own words when it has them (``bot.<game>.<key>``)."""
    own = f"bot.{game}.{key}"
    return t(own if has(own, lang) else f"bot.{key}", lang, **params)


def ai_name(level: str | None, lang: str) -> str:
    """An AI level (``greedy``, ``random``) in words."""
    return term("ai", str(level), lang)


def move_text(session: Session, line: str, lang: str) -> str:
    """A move a player chose (``line`` in notation, without its actor) in words: what a
    confirmation says, the notation being for ``/play`` and those who type."""
    return game_ui(session.row.game).move_words(line, lang)


def game_name(game: str, lang: str) -> str:
    key = f"bot.game.{game}"
    return t(key, lang) if has(key, lang) else game


def seat_label(seat: Seat, lang: str) -> str:
    """``Red (@alice)`` or ``Blue (AI, greedy)``."""
    if seat.is_ai:
        return t("bot.seat.ai", lang, colour=colour_name(seat.colour, lang),
                 level=ai_name(seat.ai_level, lang))
    return t("bot.seat.human", lang, colour=colour_name(seat.colour, lang),
             mention=user_text(seat.user_id, lang))


MARKDOWN = str.maketrans({c: "\\" + c for c in "\\*_~`|[]"})
"""Characters a display name must not bring into Discord's markdown (a name is typed by its
player)."""


def seat_name(seat: Seat, lang: str) -> str:
    """How the table names a seat's player in text: their display name when they joined (an
    embed shows a mention as a raw number on some clients, and a name is shorter), the mention
    when no name was kept, "a former player" after ``/game forget-me``."""
    if seat.user_id is None or seat.user_id == FORMER_ID or not seat.name:
        return user_text(seat.user_id, lang)
    return seat.name.translate(MARKDOWN)


def marked_label(seat: Seat, lang: str) -> str:
    """``● **Red** (Anna)`` or ``◆ **Yellow** (AI, standard)``: the seat's mark (the shape its
    pieces carry on the board), its colour and its player, so that no seat is named by colour
    alone."""
    colour = f"**{colour_name(seat.colour, lang)}**"
    if seat.is_ai:
        label = t("bot.seat.ai", lang, colour=colour, level=ai_name(seat.ai_level, lang))
    else:
        label = t("bot.seat.human", lang, colour=colour, mention=seat_name(seat, lang))
    return f"{mark_symbol(seat.colour)} {label}"


def marked_names(session: Session, colours: list[str] | tuple[str, ...], lang: str) -> str:
    """Some seats as :func:`marked_label` names them, joined in words; several seats by their
    marks and colours alone (``✚ **Green**, ● **Red**``: the players' line beside says who
    plays them, and a name each made the status a line of the phone's screen longer)."""
    seats = [s for c in colours if (s := session.seat(c))]
    if len(seats) > 1:
        return join([f"{mark_symbol(s.colour)} **{colour_name(s.colour, lang)}**"
                     for s in seats], lang)
    return join([marked_label(s, lang) for s in seats], lang)


def colour_names(session: Session, lang: str) -> dict[str, str]:
    """Colour -> how summaries name that seat (the colour, in bold)."""
    return {s.colour: f"**{colour_name(s.colour, lang)}**" for s in session.seats}


def mentions(session: Session, colours: list[str] | tuple[str, ...], lang: str) -> str:
    return join([seat_label(s, lang) for c in colours if (s := session.seat(c))], lang)


def options_notation(options: str) -> str:
    """A game's options as they are typed, each in backticks: `round_limit=3` `quick=yes`."""
    return " ".join(f"`{option}`" for option in options.split())


def echo(text: str) -> str:
    """User input repeated in an answer, cut so that no answer passes Discord's limits."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_ECHO else text[:MAX_ECHO - 1] + "…"


def refusal_text(session: Session | None, error: Refusal | IllegalAction, lang: str) -> str:
    """A refusal in words, in the user's language."""
    if isinstance(error, IllegalAction):
        game = session.row.game if session else ""
        typed = {k: echo(v) if isinstance(v, str) and k == "text" else v
                 for k, v in error.params.items()}  # what the user typed, cut
        return t("bot.refuse.illegal", lang,
                 reason=rule_error(game, IllegalAction(error.key, **typed), lang))
    params = dict(error.params)
    if "pending" in params and session is not None:
        params["pending"] = mentions(session, params["pending"], lang)
    for key in ("creator", "holder", "new", "by"):  # user ids
        if isinstance(params.get(key), int):
            params[key] = user_text(params[key], lang)
    if isinstance(params.get("seat"), str):  # a colour, and how to type it
        params["value"] = params["seat"]
        params["seat"] = colour_name(params["seat"], lang)
    if error.key == "bot.refuse.unknown_option":  # the game by name, the options as typed
        params["game"] = game_name(str(params["game"]), lang)
        params["known"] = [f"`{o}`" for o in params.get("known", [])]
    if isinstance(params.get("colours"), list):
        params["colours"] = [colour_name(c, lang) for c in params["colours"]]
    return t(error.key, lang, **params)


SEAT_CHANGES = ("left", "kicked", "took", "handed")
"""Changes of hands in a running game (the others happen in the lobby)."""


def change_line(session: Session, change: SeatChangeRow, lang: str) -> str:
    """A seat changing hands, in words: who left, was removed, took over."""
    what = change.what
    if what in ("took", "handed") and change.old_id is not None:
        what += "_from"  # from a human: a timed-out seat, or one the creator handed on
    return t(f"bot.seats.line.{what}", lang, seat=f"**{colour_name(change.colour, lang)}**",
             new=user_text(change.user_id, lang), old=user_text(change.old_id, lang),
             by=user_text(change.by_id, lang),
             level=ai_name(session.row.ai_level, lang))


def step_line(ui: GameUI, step: Step, lang: str, names: dict[str, str]) -> str:
    """One applied action in words, from its events (the notation when no event has words).

    A sealed line is only "has made their choice": its events say no more until the reveal.
    Worked out once per step and everything else the words depend on (kept on the step: its
    events never change, and a reveal changes ``sealed``, which is in the key)."""
    key = (ui.name, lang, step.sealed, tuple(names.items()))
    line = step.shown.get(key)
    if line is None:
        line = step.shown[key] = _step_line(ui, step, lang, names)
    return line


def _step_line(ui: GameUI, step: Step, lang: str, names: dict[str, str]) -> str:
    """The step's words after who acted (a person, the AI, chance) and the acting seat's
    mark, so that a line is told apart by more than its colour word."""
    words = [w for e in step.events  # a wholly secret event is never summarised
             if not isinstance(e.get("private"), str) and (w := ui.describe(e, lang, names))]
    who = names.get(step.actor, step.actor)
    if not words:
        words = [t("bot.step.plain", lang, who=who, line=step.line) if ui.public_lines
                 and not step.sealed else t("bot.step.acted", lang, who=who)]
    mark = f"{mark_symbol(step.actor)} " if step.actor in names else ""
    return f"{t(f'bot.step.by_{step.by}', lang)} {mark}{' '.join(words)}"


def step_lines(session: Session, steps: list[Step], lang: str) -> list[str]:
    ui = game_ui(session.row.game)
    names = colour_names(session, lang)
    return [step_line(ui, step, lang, names) for step in steps]


def private_lines(session: Session, steps: list[Step], colour: str, lang: str) -> list[str]:
    """The events of ``steps`` that only ``colour`` may read (a peek's answer...), in words."""
    ui = game_ui(session.row.game)
    names = colour_names(session, lang)
    return [w for step in steps for e in step.events
            if secret_seat(e) == colour and (w := ui.describe_private(e, lang, names))]


def secret_seat(event: dict[str, Any]) -> str | None:
    """Whose secret an event carries: ``"private": colour`` (the whole event is secret) or
    ``"private": {"seat": colour, ...}`` (only that part is; the summary tells the rest)."""
    secret = event.get("private")
    return secret.get("seat") if isinstance(secret, dict) else secret


def end_reason(game: str, reason: str, lang: str) -> str:
    for key in (f"bot.{game}.end.{reason}", f"bot.end.reason.{reason}"):
        if has(key, lang):
            return t(key, lang)
    return reason.replace("_", " ")


def standings(session: Session, lang: str) -> list[str]:
    """The final ranking, best first, each score with its unit."""
    result = session.result()
    assert result is not None
    ui = game_ui(session.row.game)
    order = sorted(session.seats, key=lambda s: -result.scores.get(s.colour, 0))
    return [t("bot.end.row", lang, rank=i + 1, who=seat_label(s, lang),
              score=ui.score_text(result.scores.get(s.colour, 0), lang))
            for i, s in enumerate(order)]


def result_title(session: Session, lang: str) -> str:
    result = session.result()
    assert result is not None
    winners = mentions(session, result.winners, lang)
    if result.reason == "victory":  # "Game over (victory). Winner: …" would say it twice
        return t("bot.end.title_won", lang, winners=winners)
    return t("bot.end.title", lang, reason=end_reason(session.row.game, result.reason, lang),
             winners=winners)
