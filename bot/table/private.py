"""The private side of a game: who owes what, and the DM prompt of a secret decision.

The one place that says which humans owe a decision and where they make it: a secret one (the
game's ``private_kinds``: Giants bids and end-of-round answers, the Giganten payment) by a DM
prompt or the channel's 🔒 button; a public one on the live table (and, for ``dm_kinds``, typed
in a DM too). Everything is built from the seat's own view and the legal actions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.constants import MAX_BUTTONS, MAX_CONTENT, MAX_OPTIONS, SMALL_CHOICE
from bot.games import MAX_CHOICE_NAME, Button, Choice, Component, Form, Select, game_ui
from bot.host.sessions import Seat, Session
from bot.table.steps import chooser
from bot.table.words import colour_name, game_name
from render.i18n import t

PREFIX_CHARS = "#:"
"""``#12 bid 0m`` or ``12: bid 0m`` in a DM names the game."""


def private_language(session: Session, user_id: int | None,
                     languages: Mapping[int, str]) -> str:
    """The language of a private message about ``session`` to this user: their own (from their
    latest interaction, ``languages``) once it is known, else the game's."""
    known = languages.get(user_id) if user_id is not None else None
    return known or session.row.language


def pending_humans(session: Session) -> list[Seat]:
    """The human seats that must act now, in seat order."""
    if session.status != "running" or session.game is None:
        return []
    pending = set(session.pending())
    return [s for s in session.seats if s.colour in pending and not s.is_ai]


def secret_now(session: Session) -> bool:
    """Whether the decision now pending is a secret one (made in private)."""
    return session.game is not None and game_ui(session.row.game).is_private(session.kind())


def owes_secret(session: Session, seat: Seat) -> bool:
    """Whether ``seat`` must make a secret choice in ``session`` now."""
    return not seat.is_ai and secret_now(session) and seat in pending_humans(session)


def typed_decisions(sessions: list[Session], user_id: int) -> list[tuple[Session, Seat]]:
    """Every running game where this user may type a choice in a DM now (a secret choice, or
    a public one the game takes from DMs too), oldest game first."""
    out = []
    for session in sorted(sessions, key=lambda s: s.id):
        seat = session.seat_of(user_id)
        if seat is None or seat not in pending_humans(session):
            continue
        if game_ui(session.row.game).typed_in_dm(session.kind()):
            out.append((session, seat))
    return out


def split_prefix(text: str) -> tuple[int | None, str]:
    """``"#12 bid 0m"`` -> ``(12, "bid 0m")``; text without a game number -> ``(None, text)``."""
    words = text.strip().split(maxsplit=1)
    if not words:
        return None, ""
    head = words[0].strip(PREFIX_CHARS)
    if head.isdecimal() and words[0] != head:
        return int(head), words[1] if len(words) > 1 else ""
    if head.isdecimal() and len(words) > 1 and not words[1][:1].isdecimal():
        return int(head), words[1]
    return None, text.strip()


# --- the prompt of a secret decision ---------------------------------------------------------

def encode(picks: list[int]) -> str:
    return ".".join(str(i) for i in picks)


def decode(state: str, form: Form) -> list[int] | None:
    """The picks a component carries; None when they no longer fit the form."""
    try:
        picks = [int(p) for p in state.split(".")] if state else []
    except ValueError:
        return None
    return picks if form.valid(picks) else None


@dataclass(frozen=True)
class Prompt:
    """A secret decision's prompt: words and components (ops ``f<i>`` toggle or pick a form
    field, ``ok`` submits, ``a<i>`` plays legal action i, ``act`` is a select of actions;
    ``arg`` carries the form's picks so far; ``step`` and ``back`` are a choice by taps,
    :mod:`bot.table.steps`)."""

    colour: str
    turn: int
    text: str
    components: tuple[Component, ...]


def prompt(session: Session, seat: Seat, lang: str, picks: list[int] | None = None) -> Prompt:
    """The text and components of ``seat``'s secret choice, from its own view."""
    ui = game_ui(session.row.game)
    kind = session.kind()
    view = session.view(seat.colour)
    head = t("bot.hidden.prompt.head", lang, game=game_name(session.row.game, lang),
             channel=f"<#{session.row.home_id}>", id=session.id,
             colour=colour_name(seat.colour, lang))
    lines = [head, ui.prompt_text(kind, view, seat.colour, lang)]
    legal = session.legal_lines(seat.colour)
    items: list[Component] = []
    form = ui.private_form(kind, view, seat.colour, lang)
    if form is not None:
        picks = picks if picks is not None and form.valid(picks) else [0] * len(form.fields)
        lines.append(t("bot.hidden.prompt.so_far", lang, line=form.compose(picks)))
        items = _form_items(form, picks, lang)
    elif len(legal) <= SMALL_CHOICE:
        items = [Button(f"a{i}", ui.move_label(action, lang)) for i, action in enumerate(legal)]
    elif len(legal) <= MAX_OPTIONS:
        items = [Select("act", t("bot.hidden.prompt.pick", lang), tuple(
            Choice(ui.move_label(a, lang, MAX_CHOICE_NAME), str(i)) for i, a in enumerate(legal)))]
    elif legal:  # more than one select holds: a choice by taps, in steps
        items = list(chooser(ui, kind, legal, [], lang).components)
    if legal:
        lines.append(t("bot.hidden.prompt.type", lang, example=legal[0], id=session.id))
    return Prompt(seat.colour, session.turns(seat.colour), "\n".join(lines)[:MAX_CONTENT],
                  tuple(items))


def _form_items(form: Form, picks: list[int], lang: str) -> list[Component]:
    state = encode(picks)
    items: list[Component] = []
    for i, field in enumerate(form.fields):
        if len(field.choices) < 2:
            continue
        if field.toggle:
            on = picks[i] != 0
            items.append(Button(f"f{i}", ("✓ " if on else "") + field.label, state,
                                "success" if on else "secondary"))
        else:
            items.append(Select(f"f{i}", field.label, tuple(
                Choice(t("bot.hidden.prompt.choice", lang, field=field.label, value=label)[:100],
                       str(j), default=j == picks[i])
                for j, (_, label) in enumerate(field.choices[:MAX_OPTIONS])), state))
    if len(items) < MAX_BUTTONS:
        items.append(Button("ok", t("bot.hidden.submit", lang), state))
    return items


def resolve(session: Session, seat: Seat, what: str, state: str, value: str | None,
            lang: str) -> tuple[str | None, Prompt | None]:
    """What a click or pick on ``seat``'s prompt means: notation to play, or the prompt with
    one field changed (toggles and picks stay in the components until Submit)."""
    ui = game_ui(session.row.game)
    legal = session.legal_lines(seat.colour)
    if what.startswith("a") and what[1:].isdecimal():
        return _nth(legal, int(what[1:])), None
    if what == "act":
        return (_nth(legal, int(value)) if value and value.isdecimal() else None), None
    form = ui.private_form(session.kind(), session.view(seat.colour), seat.colour, lang)
    if form is None:
        return None, None
    picks = decode(state, form) or [0] * len(form.fields)
    if what == "ok":
        return form.compose(picks), None
    if what.startswith("f") and what[1:].isdecimal() and int(what[1:]) < len(picks):
        i = int(what[1:])
        choices = len(form.fields[i].choices)
        picks[i] = (picks[i] + 1) % choices if value is None else \
            int(value) if value.isdecimal() and int(value) < choices else picks[i]
        return None, prompt(session, seat, lang, picks)
    return None, None


def _nth(items: list[str], i: int) -> str | None:
    return items[i] if 0 <= i < len(items) else None
