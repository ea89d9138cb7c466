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

from bot.games import Button, Choice, Chosen, Component, GameUI, Select, StaleChoice, Step, guide
from render.i18n import t

TAP = "."
"""Between two taps in a custom_id (``3.0.12``)."""
BUTTONS = 5
"""A step with at most this many options shows them as buttons (one row): one tap each."""
MOST_TAPS = 12
"""No guided choice has more steps: a longer list of taps was not sent by the bot."""


@dataclass(frozen=True)
class Chooser:
    """What a chooser shows after some taps: the question and its components, or the move
    the taps chose (``notation``, with its ``words``)."""

    text: str
    components: tuple[Component, ...] = ()
    notation: str = ""
    words: str = ""


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
           lang: str) -> Step | Chosen:
    """The step (or the move) that ``taps`` lead to; :class:`StaleChoice` when one of them
    names no option of its step any more."""
    found = guide(ui, kind, legal, (), lang)
    for tap in taps:
        if not isinstance(found, Step) or not 0 <= tap < len(found.options):
            raise StaleChoice(encode(taps))
        option = found.options[tap]
        if found.groups:
            found = guide(ui, kind, legal, found.chosen, lang, option.group)
        else:
            found = guide(ui, kind, legal, (*found.chosen, option.part), lang)
    return found


def chooser(ui: GameUI, kind: str, legal: Sequence[str], taps: Sequence[int], lang: str,
            first: bool = False) -> Chooser:
    """What a chooser shows after ``taps`` (``first``: on the live table, where a step is one
    select, below the game's own buttons, and has no Back)."""
    found = replay(ui, kind, legal, taps, lang)
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
    return Chooser(found.prompt, tuple(items))


def _arg(taps: Sequence[int], part: str) -> str:
    """A button's taps, then the part it adds (for those who read custom_ids; never parsed)."""
    return f"{encode(taps)}:{part}" if part else encode(taps)


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


__all__ = ["BUTTONS", "Chooser", "chooser", "decode", "encode", "replay", "tapped"]
