"""A guided choice as components (issue 32): the step that a player's taps so far lead to.

Discord-free. A choice's state is the list of its taps, each the number of the option tapped
in its step (a group or a part): replayed over the legal moves (:func:`bot.games.guide`), the
taps give the step shown now, or the move they chose. The taps ride in the components'
custom_ids, so a chooser survives a restart; taps that no longer fit the legal moves are an
outdated chooser (:class:`bot.games.StaleChoice`).

Components (ops ``step`` and ``back``; ``arg`` is what the custom_id carries after the game,
the seat or table and the count): up to :data:`BUTTONS` options as buttons, more (or any on
the live table) as one select; an option that ends a move is labelled with the whole move in
words and plays it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.games import (
    Button,
    Choice,
    Chosen,
    Component,
    GameUI,
    Select,
    StaleChoice,
    Step,
    guide,
    within,
)
from bot.host.sessions import Session
from render.i18n import t

PATH = " › "
"""Between the options tapped so far, above a step's question."""
TAP = "."
"""Between two taps in a custom_id (``3.0.12``)."""
BUTTONS = 5
"""A step with at most this many options shows them as buttons (one row): one tap each."""
MOST_TAPS = 30
"""No guided choice has more steps: a longer list of taps was not sent by the bot."""


@dataclass(frozen=True)
class Chooser:
    """What a chooser shows after some taps: the question and its components, or the move
    the taps chose (``notation``, with its ``words``)."""

    text: str
    components: tuple[Component, ...] = ()
    notation: str = ""
    words: str = ""
    path: tuple[str, ...] = ()
    """The options tapped so far, in words (Back undoes the last)."""
    moves: tuple[str, ...] = ()
    """The legal moves this step's options lead to (their places are what the step is about
    on the board: :func:`bot.table.live.step_picture`)."""

    def message(self) -> str:
        """The question under the way to it: ``Row B › Place on B2`` then the question."""
        way = PATH.join(self.path)
        return f"{way}\n**{self.text}**" if way else self.text


def encode(taps: Sequence[int]) -> str:
    return TAP.join(str(tap) for tap in taps)


def decode(text: str) -> list[int] | None:
    """The taps a custom_id carries; None when they are not a list of small numbers."""
    if not text:
        return []
    taps = text.split(TAP)
    if len(taps) > MOST_TAPS or not all(tap.isdecimal() and len(tap) <= 3 for tap in taps):
        return None
    return [int(tap) for tap in taps]


def replay(ui: GameUI, kind: str, legal: Sequence[str], taps: Sequence[int],
           lang: str, part: str | None = None) -> Step | Chosen:
    """The step (or the move) that ``taps`` lead to; :class:`StaleChoice` when one of them
    names no option of its step any more, or the last one not the ``part`` it was shown
    with (when known: the legal moves are not the ones the chooser was built from)."""
    return _walk(ui, kind, legal, taps, lang, part)[0]


def _walk(ui: GameUI, kind: str, legal: Sequence[str], taps: Sequence[int], lang: str,
          part: str | None) -> tuple[Step | Chosen, tuple[str, ...]]:
    """:func:`replay`, with the labels of the options tapped on the way."""
    found = guide(ui, kind, legal, (), lang)
    path: list[str] = []
    for number, tap in enumerate(taps, 1):
        if not isinstance(found, Step) or not 0 <= tap < len(found.options):
            raise StaleChoice(encode(taps))
        option = found.options[tap]
        if number == len(taps) and part is not None and option.part != part:
            raise StaleChoice(encode(taps))
        path.append(option.label)
        if found.groups:
            found = guide(ui, kind, legal, found.chosen, lang, option.group)
        else:
            found = guide(ui, kind, legal, (*found.chosen, option.part), lang)
    return found, tuple(path)


def chooser(ui: GameUI, kind: str, legal: Sequence[str], taps: Sequence[int], lang: str,
            first: bool = False, part: str | None = None) -> Chooser:
    """What a chooser shows after ``taps`` (``first``: on the live table, where a step is one
    select, below the game's own buttons, and has no Back; ``part``: what the last tap was
    shown to add, checked)."""
    found, path = _walk(ui, kind, legal, taps, lang, part)
    if isinstance(found, Chosen):
        play = Button("step", found.words, encode(taps), "success")
        return Chooser(found.words, (play,), found.notation, found.words)
    options: list[tuple[str, str, str]] = []  # (label, part or "", style)
    for option in found.options:
        if found.groups:
            options.append((option.label, "", "secondary"))
            continue
        ends = guide(ui, kind, legal, (*found.chosen, option.part), lang)
        if isinstance(ends, Chosen):
            options.append((ends.words, option.part, "success"))
        else:
            options.append((option.label, option.part, "primary"))
    items: list[Component] = []
    if len(options) <= BUTTONS and not first:
        items += [Button("step", label, _arg([*taps, i], part), style)
                  for i, (label, part, style) in enumerate(options)]
    else:
        items.append(Select("step", found.prompt, tuple(
            Choice(label, f"{i}:{part}"[:100]) for i, (label, part, _) in enumerate(options)),
            encode(taps)))
    if taps and not first:
        items.append(Button("back", t("bot.taps.back", lang), encode(taps[:-1]), "secondary"))
    return Chooser(found.prompt, tuple(items), path=path, moves=within(ui, kind, legal, found))


def first_step(session: Session, ui: GameUI, colour: str, lang: str,
               shown: Sequence[Component]) -> list[Component]:
    """The live table's first step of ``colour``'s choice by taps, unless the game's own
    components (``shown``) offer every legal action already; worked out once per position."""
    assert session.game is not None

    def work(_: Any) -> list[Component]:
        legal = session.legal_lines(colour)
        if not legal or covers(shown, legal):
            return []
        return list(chooser(ui, session.kind(), legal, [], lang, first=True).components)

    return list(session.worked_out(session.game.state, ("first step", colour, lang), work))


def covers(shown: Sequence[Component], legal: Sequence[str]) -> bool:
    """Whether a game's components offer every legal action themselves: a button per action,
    or a select or a pick of its own (as the table's status line reads them)."""
    own = [c for c in shown if c.op not in ("info", "open")]
    offered = {c.arg for c in own if isinstance(c, Button) and c.op == "act"}
    picks = any(isinstance(c, Select) or c.op in ("pick", "other") for c in own)
    return bool(own) and (picks or set(legal) <= offered)


def _arg(taps: Sequence[int], part: str) -> str:
    """A button's taps, then the part it adds (for those who read custom_ids; never parsed)."""
    return f"{encode(taps)}:{part}" if part else encode(taps)


def claimed(arg: str, value: str | None) -> str | None:
    """The part a tap was shown to add: a select option's, a button's (None: not known, a
    Back, a move's one button, or a custom_id too long to carry it)."""
    if value is not None:
        _, colon, part = value.partition(":")
        return part if colon and len(value) < 100 else None
    _, colon, part = arg.partition(":")
    return part if colon else None


def tapped(arg: str, value: str | None) -> list[int] | None:
    """The taps a click carries: a button's own (``arg``), or a select's taps before and the
    option picked (``value``, ``<number>:<part>``); None when they are not the bot's."""
    taps = decode(arg.partition(":")[0])
    if taps is None or value is None:
        return taps
    number = value.partition(":")[0]
    if not number.isdecimal() or len(number) > 3:
        return None
    return [*taps, int(number)]


__all__ = ["BUTTONS", "Chooser", "chooser", "claimed", "covers", "decode", "encode",
           "first_step", "replay", "tapped"]
