"""Each game's Discord presentation, one package per game; :func:`game_ui` finds it from the
game's registry entry (:mod:`rules.registry`), so a new game needs no line here."""

from __future__ import annotations

import importlib

from bot.games._guide import (
    back,
    guide,
    within,
)
from bot.games._ui import (
    DONE,
    MAX_CHOICE_NAME,
    Button,
    Choice,
    Chosen,
    Component,
    Field,
    Form,
    GameUI,
    Select,
    StaleChoice,
    Step,
    StepOption,
    choice_name,
    colour_name,
    component_key,
)
from rules.registry import GAMES, GameEntry, entries, entry

PLAYABLE = tuple(game.name for game in entries() if game.playable)
"""The built-in games offered by ``/game new``: those with both an engine and a Discord
presentation (:func:`playable` also names the games registered since)."""

_UIS: dict[str, tuple[GameEntry | None, GameUI]] = {}
"""The presentations found so far, by game, with the entry each was found from (a game
registered again, as tests do, is looked up afresh)."""

_BUILT_IN = tuple(importlib.import_module(game.presentation) for game in GAMES)
"""The built-in games' presentations (and the pictures they import), loaded with this package
as before the registry: the first move after a start waits for no import."""


def playable() -> tuple[str, ...]:
    """Every game ``/game new`` offers now, in the registry's order."""
    return tuple(game.name for game in entries() if game.playable)


def game_ui(game: str) -> GameUI:
    """The presentation of ``game`` (the ``UI`` of the module its entry names); a game without
    one gets the plain default."""
    try:
        found: GameEntry | None = entry(game)
    except KeyError:
        found = None
    kept = _UIS.get(game)
    if kept is not None and kept[0] is found:
        return kept[1]
    if found is not None:
        ui: GameUI = importlib.import_module(found.presentation).UI
    else:
        ui = GameUI()
        ui.name = game
    _UIS[game] = (found, ui)
    return ui


__all__ = ["DONE", "MAX_CHOICE_NAME", "PLAYABLE", "Button", "Choice", "Chosen", "Component",
           "Field", "Form", "GameUI", "Select", "StaleChoice", "Step", "StepOption", "back",
           "choice_name", "colour_name", "component_key", "game_ui", "guide", "playable",
           "within"]
