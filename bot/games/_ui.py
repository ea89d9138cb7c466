"""What every game's presentation offers, and the Discord-free components it is made of.

Everything here reads views, events and legal actions, never a raw state. A game's package
(``bot/games/<game>/``) subclasses :class:`GameUI` and words what it can say better; the table
(:mod:`bot.table`) asks it for stages, status lines, summaries, components and private screens,
and the Discord adapter turns :class:`Button` and :class:`Select` into real components.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Container
from dataclasses import dataclass
from typing import Any

from bot.constants import MAX_BUTTONS, MAX_LABEL, SMALL_CHOICE
from render.crop import cropped
from render.i18n import has, t
from rules.core import Event

STYLES = ("primary", "secondary", "success", "danger")
MAX_CHOICE_NAME = 100
"""Discord's limit for an autocomplete choice's name and a select option's label."""
PATH_ARROW = "→"
"""Between the labels of a path in a move's words."""
CHOICE_SEPARATOR = " · "
"""Between a move's words and its notation in an autocomplete choice."""
MAX_OPTIONS = 25
"""Discord's limit for a select's options (and the buttons of a message): a guided step's most."""
DONE = "."
"""The part of the option that ends a move here when longer moves share its beginning."""


LIST_BREAKS = (", ", "、", "，", "; ", "；")
"""Where a list in a label may be cut: between its items, never inside a name."""


def fit(text: str, most: int) -> str:
    """``text`` within ``most`` characters, an ellipsis marking a cut (after the last whole item
    of a list when the cut falls in the second half)."""
    if len(text) <= most:
        return text
    head = text[:most - 1]
    end = max(head.rfind(b) for b in LIST_BREAKS)
    if end >= most // 2:
        head = head[:end]
    return head.rstrip() + "…"


def places_in(legal: list[str], known: Container[str], last: bool = False) -> list[str]:
    """The words of ``legal`` (``H7=jet`` counts as ``H7``) that are places of ``known``, in
    order and once each; with ``last``, only each move's last place (where a path ends)."""
    found: dict[str, None] = {}
    for move in legal:
        mine = [w for w in (word.partition("=")[0] for word in move.split()) if w in known]
        for place in mine[-1:] if last else mine:
            found[place] = None
    return list(found)


def colour_name(colour: str, lang: str) -> str:
    """A seat colour's name (``bot.colour.<colour>``), or the colour capitalised."""
    key = f"bot.colour.{colour}"
    return t(key, lang) if has(key, lang) else colour.capitalize()


def path_words(path: tuple[str, ...], lang: str, key: str, **params: str) -> str:
    """A move's path of labels in words: ``<key>.to`` with its last label, or ``<key>.via``
    with the labels before it (joined by arrows) and the last."""
    if len(path) == 1:
        return t(f"{key}.to", lang, to=path[-1], **params)
    return t(f"{key}.via", lang, via=PATH_ARROW.join(path[:-1]), to=path[-1], **params)


def choice_name(words: str, notation: str, most: int = MAX_CHOICE_NAME) -> str:
    """An autocomplete choice's name: the move in words, then its notation (what is typed).

    Words that are the notation itself are shown once; when both do not fit, the words are cut
    so that the notation stays whole (a very long notation leaves room for the words alone)."""
    if words == notation:
        return fit(notation, most)
    room = most - len(CHOICE_SEPARATOR) - len(notation)
    if room < most // 3:
        return fit(words, most)
    return fit(words, room) + CHOICE_SEPARATOR + notation


def _no_screen(view: dict[str, Any], seat: str, lang: str) -> bytes | None:
    """A game without private pictures draws none."""
    return None


@dataclass(frozen=True)
class Button:
    """A button of the live table. ``op`` and ``arg`` say what it does (``act`` plays the
    notation in ``arg``; ``pick`` the legal action numbered ``arg``; ``other`` asks for an
    amount; ``open`` shows the clicker's private side; ``info`` is a disabled label)."""

    op: str
    label: str
    arg: str = ""
    style: str = "primary"
    disabled: bool = False


@dataclass(frozen=True)
class Choice:
    label: str
    value: str
    description: str | None = None
    default: bool = False


@dataclass(frozen=True)
class Select:
    """A select of the live table: each choice's value is notation or ``#<legal index>``."""

    op: str
    placeholder: str
    choices: tuple[Choice, ...]
    arg: str = ""


Component = Button | Select


def component_key(items: list[Component] | tuple[Component, ...]) -> str:
    """A stable text of some components, for digests."""
    return json.dumps([item.__dict__ | {"type": type(item).__name__} for item in items],
                      default=lambda c: c.__dict__, sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Field:
    """One part of a private form: a pick among ``choices``, each ``(token, label)``; the
    token goes into the notation (an empty token adds nothing)."""

    name: str
    label: str
    choices: tuple[tuple[str, str], ...]
    toggle: bool = False
    """Two choices shown as one button that flips (e.g. "with the chief")."""


@dataclass(frozen=True)
class Form:
    """A secret choice built from a few picks, then submitted as one notation line."""

    verb: str
    fields: tuple[Field, ...]

    def compose(self, picks: list[int]) -> str:
        tokens = [self.verb, *(f.choices[i][0] for f, i in zip(self.fields, picks, strict=True))]
        return " ".join(token for token in tokens if token)

    def valid(self, picks: list[int]) -> bool:
        return len(picks) == len(self.fields) and all(
            0 <= i < len(f.choices) for f, i in zip(self.fields, picks, strict=True))


@dataclass(frozen=True)
class StepOption:
    """One option of a guided step (or, with an empty ``part``, one group of them)."""

    part: str
    """What this option adds to the move: one or more notation words ("K8", "3 chief")."""
    label: str
    """The option in words of the player's language (at most 80 characters)."""
    group: str = ""
    """Its group's label when the step has more than 25 options ("Row K", "North coast")."""


@dataclass(frozen=True)
class Step:
    """The next question of a guided choice: only legal options, at most 25 (groups first when
    there are more: then each option is a group, with an empty ``part``)."""

    prompt: str
    options: tuple[StepOption, ...]
    chosen: tuple[str, ...]
    """The parts chosen so far, the ones taken automatically included."""
    group: str = ""
    """The group whose options these are ("" when the step is not split, or lists the groups)."""

    @property
    def groups(self) -> bool:
        """Whether the options are groups (a tap on one opens its options)."""
        return bool(self.options) and not self.options[0].part


@dataclass(frozen=True)
class Chosen:
    """The end of a guided choice: one legal move."""

    notation: str
    words: str
    """The whole move in words (the last button's label, at most 80 characters)."""


class StaleChoice(ValueError):
    """The parts (or the group) chosen so far lead to no legal move any more: the chooser is
    outdated (the game moved on, or another tap was played first)."""


class GameUI:
    """Defaults that suit any game; a game module overrides what it words better.

    Secret choices: list their pending kinds in ``private_kinds``; the bot then DMs each human
    who owes one a prompt (``prompt_text`` above a ``private_form``, or the legal actions as
    buttons or a select), accepts the choice typed in the DM, and gives closed DMs an ephemeral
    form from the channel. ``screen`` (a PNG of the seat's own view) goes by DM when a phase
    begins; events marked ``"private": colour`` are worded by ``describe_private`` for that
    seat alone.
    """

    name = ""
    choice_phases: frozenset[str] = frozenset()
    """Pending kinds that are a pick from a short list: offered as buttons up to MAX_BUTTONS."""
    quiet_events: frozenset[str] = frozenset({"turn", "game_over"})
    """Events the summary leaves out (the turn line and the standings say them already)."""
    public_lines = False
    """True when every applied line may be shown to everyone. Off by default, because a
    sealed bid's line is a secret until the engine reveals it in an event."""

    has_chance = True
    """Whether the game has chance lines (dice, shuffles, deals): the table then shows the
    commitment to the game's secret seed (``rules.fair``)."""

    private_kinds: frozenset[str] = frozenset()
    """Pending kinds that are secret choices (sealed bids...): prompted by DM, never in the
    channel; the channel only learns who has submitted."""

    dm_kinds: frozenset[str] = frozenset()
    """Public decisions that may also be typed in a DM (an auction bid): played as if typed
    with /play, and announced in the channel as usual."""

    def is_private(self, kind: str) -> bool:
        return kind in self.private_kinds

    def typed_in_dm(self, kind: str) -> bool:
        return kind in self.private_kinds or kind in self.dm_kinds

    def prompt_text(self, kind: str, view: dict[str, Any], seat: str, lang: str) -> str:
        """What a private prompt says above its components (the seat's own view)."""
        return t("bot.hidden.prompt.generic", lang, phase=self.phase_name(kind, lang))

    def private_form(self, kind: str, view: dict[str, Any], seat: str,
                     lang: str) -> Form | None:
        """A form for a secret choice; None: the legal actions are offered as they are."""
        return None

    def components(self, kind: str, view: dict[str, Any], colour: str, legal: list[str],
                   lang: str) -> list[Component]:
        """The components of the live table for the pending human ``colour``'s public decision
        (``view`` is the public view). By default a button per action when the choice is
        small (:meth:`button_actions`), labelled with the move in words."""
        return [Button("act", self.move_label(action, lang), action)
                for action in self.button_actions(kind, legal) if ":" not in action]

    def move_parts(self, kind: str, notation: str) -> tuple[str, ...]:
        """The parts a guided choice picks one by one; joined by spaces they are the notation.
        By default the notation's words; a game merges words that make one decision
        (``3 chief``)."""
        return tuple(notation.split())

    def part_prompt(self, kind: str, chosen: tuple[str, ...], lang: str) -> str:
        """The question of the step after ``chosen`` ("Where?"); by default a plain "What
        next?"."""
        return t("bot.taps.prompt", lang)

    def part_label(self, kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
        """One option of the step after ``chosen`` in words; by default the part itself (and
        :data:`DONE` as "just this")."""
        return t("bot.taps.done", lang) if part == DONE else part

    def part_group(self, kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
        """The group of an option when its step has more than 25 ("Row K"); "" leaves the
        grouping to :func:`guide` (ranges of the options in their order)."""
        return ""

    def spread(self, kind: str, chosen: tuple[str, ...], parts: tuple[str, ...]) -> bool:
        """Whether a step's options (``parts``, after ``chosen``) are places spread over more
        of the board than one close-up shows: then they come in the game's groups even when
        they are 25 or fewer, so that each group's places are shown large enough to read on
        a phone (a drive's destinations over half the map). No by default."""
        return False

    def focus_places(self, kind: str, view: dict[str, Any], legal: list[str]) -> list[str]:
        """The board's places (hexes, ahus, spaces) the decision ``kind`` is about: where its
        legal moves go. The live table shows them close up, large enough to read on a phone;
        none (the default) shows the whole map."""
        return []

    def move_words(self, notation: str, lang: str) -> str:
        """One legal move in words of ``lang`` (``place worker K8`` -> "place a worker on
        K8"); the notation itself when the game has no words for it."""
        return notation

    def move_label(self, notation: str, lang: str, most: int = MAX_LABEL) -> str:
        """A move's words within a button label's (or, with ``most=100``, an option's)
        limit."""
        return fit(self.move_words(notation, lang), most)

    def stage(self, view: dict[str, Any]) -> str:
        """The stage the public view is in: the live table message changes with it. By
        default a stage per round and phase."""
        return f"{view.get('round')}:{view.get('phase')}"

    def stage_name(self, view: dict[str, Any], lang: str) -> str:
        """The stage in words (``bot.<game>.stage.<stage>``, else the phase's name)."""
        stage = self.stage(view).rpartition(":")[2]
        for key in (f"bot.{self.name}.stage.{stage}", f"bot.{self.name}.phase.{stage}"):
            if has(key, lang):
                return t(key, lang)
        return stage

    def facts(self, view: dict[str, Any], lang: str, names: dict[str, str]) -> list[str]:
        """The numbers that matter now, one short line each, for the status embed."""
        return []

    def score_text(self, score: float, lang: str) -> str:
        """A score with its unit (points by default)."""
        return t("bot.end.points", lang, score=score)

    def changed(self, events: list[Event]) -> set[str]:
        """Board labels that events changed (a move's path, a placed piece): highlighted."""
        return set()

    def screen_art(self) -> Callable[[dict[str, Any], str, str], bytes | None]:
        """The module-level function of ``render`` that draws :meth:`screen` (a worker
        process calls it with the same arguments)."""
        return _no_screen

    def screen(self, view: dict[str, Any], seat: str, lang: str) -> bytes | None:
        """A PNG of what only ``seat`` sees (its DM screen message), cut to its content;
        None: nothing."""
        return cropped(self.screen_art(), view, seat, lang)

    def has_screen(self) -> bool:
        """Whether the game has a private screen at all (so the 🔒 button is offered)."""
        return bool(self.private_kinds)

    def screen_key(self, view: dict[str, Any], seat: str) -> Any:
        """What :meth:`screen` draws, as plain data: the picture is redrawn only when this
        changes. By default the whole of the seat's view."""
        return view

    def screen_text(self, view: dict[str, Any], seat: str, lang: str) -> str:
        """The words beside the private picture (for phones and screen readers)."""
        return ""

    def phase_name(self, kind: str, lang: str) -> str:
        key = f"bot.{self.name}.phase.{kind}"
        return t(key, lang) if has(key, lang) else kind

    def describe_private(self, event: Event, lang: str, names: dict[str, str]) -> str | None:
        """An event only its ``private`` seat may read, in words (None: leave it out)."""
        key = f"bot.{self.name}.private.{event.get('kind', '')}"
        return t(key, lang, **self.params(event, names)) if has(key, lang) else None

    def describe(self, event: Event, lang: str, names: dict[str, str]) -> str | None:
        """One event in words, or None to leave it out."""
        kind = event.get("kind", "")
        if kind in self.quiet_events:
            return None
        key = f"bot.{self.name}.event.{kind}"
        if not has(key, lang):
            return None
        return t(key, lang, **self.params(event, names))

    def params(self, event: Event, names: dict[str, str]) -> dict[str, Any]:
        """Event fields for a message: colours become player names."""
        out: dict[str, Any] = {}
        for key, value in event.items():
            if isinstance(value, str) and value in names:
                out[key] = names[value]
            elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                out[key] = [names.get(v, v) for v in value]
            else:
                out[key] = value
        return out

    def button_actions(self, kind: str, legal: list[str]) -> list[str]:
        """The actions to offer as buttons for a pending decision of ``kind`` (maybe none)."""
        if len(legal) <= SMALL_CHOICE or (kind in self.choice_phases
                                          and len(legal) <= MAX_BUTTONS):
            return legal
        return []

