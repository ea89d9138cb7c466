"""Per-game presentation for the Discord adapter: event summaries and which prompts get buttons.

Everything here reads views and events, never a raw state. A game without its own module gets
:class:`GameUI`, which still works: it shows each applied line as notation.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from bot.constants import MAX_BUTTONS, SMALL_CHOICE
from render.i18n import has, t
from rules.core import Event


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

    def channel_items(self, session: Any) -> list[Any]:
        """Extra components (``discord.ui.Item``) under the channel's turn message, for a game
        whose choices deserve more than one button per legal action. None by default."""
        return []

    def screen(self, view: dict[str, Any], seat: str, lang: str) -> bytes | None:
        """A PNG of what only ``seat`` sees (sent by DM after each phase); None: nothing."""
        return None

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


def game_ui(game: str) -> GameUI:
    """The presentation of ``game``: ``bot.games.<game>.UI`` if it exists, else the default."""
    try:
        module = importlib.import_module(f"bot.games.{game}")
    except ModuleNotFoundError:
        ui = GameUI()
        ui.name = game
        return ui
    return module.UI


PLAYABLE = ("makemake", "giants", "giganten")
"""Games offered by ``/game new``: those with both an engine and a Discord presentation."""
