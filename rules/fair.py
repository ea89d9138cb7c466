"""Provably fair chance: every chance line follows from a secret seed alone (DESIGN.md, "Game
records").

The one derivation, shared by the bot's host, ``python -m rules play``, replaying a record that
leaves chance lines out, and ``python -m rules verify``: the chance line played after ``seq``
lines (``seq`` counts every line applied before it, chance lines included) is

    module.chance(state, random.Random(f"{seed}/{seq}"))

a pure function of the seed and the position. A game's spec may pin its own rule "from a seed"
(Giants: the dice of round r come from ``random.Random(f"giants:{seed}:{r}")``, spec section
8); its ``chance`` then ignores the RNG it is given, and the line is still the seed's alone.

Before the game the host publishes the commitment, the SHA-256 hex digest of the UTF-8 text
``<game>:<seed>``; the finished record's game line carries ``seed=``, so anyone can check the
digest and redraw every chance line.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from rules.core import GameModule


def chance_rng(seed: int, seq: int) -> random.Random:
    """The RNG that draws the chance line after ``seq`` applied lines of the game ``seed``."""
    return random.Random(f"{seed}/{seq}")


def draw(module: GameModule, state: Any, seed: int, seq: int) -> Any:
    """The chance action the seed draws in ``state``, reached after ``seq`` lines."""
    return module.chance(state, chance_rng(seed, seq))


def commitment(game: str, seed: int) -> str:
    """What the host shows before the game: SHA-256 (hex) of ``<game>:<seed>``."""
    return hashlib.sha256(f"{game}:{seed}".encode()).hexdigest()


__all__ = ["chance_rng", "commitment", "draw"]
