"""Per-game presentation for the Discord adapter: event summaries and which prompts get buttons.

Everything here reads views and events, never a raw state. A game without its own module gets
:class:`GameUI`, which still works: it shows each applied line as notation.
"""

from __future__ import annotations

import importlib
from typing import Any

from bot.constants import MAX_BUTTONS, SMALL_CHOICE
from render.i18n import has, t
from rules.core import Event


class GameUI:
    """Defaults that suit any game; a game module overrides what it words better."""

    name = ""
    choice_phases: frozenset[str] = frozenset()
    """Pending kinds that are a pick from a short list: offered as buttons up to MAX_BUTTONS."""
    quiet_events: frozenset[str] = frozenset({"turn", "game_over"})
    """Events the summary leaves out (the turn line and the standings say them already)."""
    public_lines = False
    """True when every applied line may be shown to everyone. Off by default, because a
    sealed bid's line is a secret until the engine reveals it in an event."""

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


PLAYABLE = ("makemake",)
"""Games offered by ``/game new``: those with both an engine and a Discord presentation."""
