"""The games this project knows, by name."""

from __future__ import annotations

import importlib

from rules.core import GameModule

GAME_NAMES = ("giants", "giganten", "makemake")


_MODULES: dict[str, GameModule] = {}
"""The modules found so far: a host asks for a game's module at every step."""


def game_module(name: str) -> GameModule:
    found = _MODULES.get(name)
    if found is None:
        if name not in GAME_NAMES:
            raise KeyError(name)
        found = _MODULES[name] = importlib.import_module(f"rules.{name}")
    return found
