"""Each game's Discord presentation, one package per game; :func:`game_ui` finds it by name."""

from __future__ import annotations

from bot.games import giants, giganten, makemake
from bot.games._ui import (
    MAX_CHOICE_NAME,
    Button,
    Choice,
    Component,
    Field,
    Form,
    GameUI,
    Select,
    choice_name,
    colour_name,
    component_key,
)

_UIS: dict[str, GameUI] = {"giants": giants.UI, "giganten": giganten.UI, "makemake": makemake.UI}

PLAYABLE = ("makemake", "giants", "giganten")
"""Games offered by ``/game new``: those with both an engine and a Discord presentation."""


def game_ui(game: str) -> GameUI:
    """The presentation of ``game``; a game without one gets the plain default."""
    ui = _UIS.get(game)
    if ui is None:
        ui = GameUI()
        ui.name = game
    return ui


__all__ = ["MAX_CHOICE_NAME", "PLAYABLE", "Button", "Choice", "Component", "Field", "Form",
           "GameUI", "Select", "choice_name", "colour_name", "component_key", "game_ui"]
