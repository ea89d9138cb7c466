"""AI seats. An AI sees only its own view and its legal actions, like a player does.

``random`` and ``greedy`` decide at once; ``strong`` searches (ISMCTS, :mod:`rules.ismcts`) within
a :class:`~rules.ismcts.Budget`, drawing every state it searches from the seat's view alone.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from rules.core import GameModule
from rules.ismcts import Budget, search
from rules.registry import LEVELS as LEVELS
from rules.registry import entry


def choose(module: GameModule, state: Any, seat: str, level: str, rng: random.Random,
           budget: Budget | None = None) -> Any:
    """The action an AI of ``level`` takes for ``seat`` (which must be pending)."""
    actions = module.legal(state, seat)
    if not actions:
        raise ValueError(f"{seat} has nothing to do")
    if level == "random" or len(actions) == 1:
        return rng.choice(actions)
    if level == "strong":
        return search(module, module.view(state, seat), seat, actions, rng, budget).action
    if level != "greedy":
        raise ValueError(f"unknown AI level {level!r}")
    game_ai = importlib.import_module(entry(module.NAME).ai)
    return game_ai.greedy(module.view(state, seat), seat, actions, rng)
