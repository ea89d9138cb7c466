"""The games this project knows, by name."""

from __future__ import annotations

import importlib

from rules.core import GameModule

GAME_NAMES = ("giants", "giganten", "makemake")


def game_module(name: str) -> GameModule:
    if name not in GAME_NAMES:
        raise KeyError(name)
    return importlib.import_module(f"rules.{name}")
