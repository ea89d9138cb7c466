"""The games this project knows: one entry per game says where each of its parts lives.

A game is a rules package (the engine contract, DESIGN.md), a greedy AI, a renderer, a Discord
presentation, its words and the options its lobby offers. Each layer finds its own part from the
game's entry and imports only that part, by the module name the entry gives: ``rules`` never
imports ``render`` or ``bot`` (the entry only names them), so the layers still point one way.

Adding a game is its own packages and one entry in :data:`GAMES`; a test registers a game of its
own with :func:`registered` (a context manager: the game is gone again when it ends). Whoever
keeps something derived from the entries (the merged catalogues) asks :func:`on_change` to be
told when they change.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rules.core import GameModule, Option

LEVELS = ("random", "greedy", "strong")
"""Every AI level; ``strong`` searches with helpers of the game's own (its entry's ``strong``)."""


@dataclass(frozen=True)
class GameEntry:
    """Where one game's parts live, by module name (imported by the layer that needs them)."""

    name: str
    """The game's name in records (``game <name> ...``) and in ``/game new``."""
    rules: str
    """The engine: a module with the functions of :class:`rules.core.GameModule`."""
    ai: str
    """The module whose ``greedy(view, seat, actions, rng)`` is the greedy AI (``random`` and
    ``strong`` need nothing of the game's own)."""
    strong: str | None
    """The module with the ``strong`` AI's helpers (determinisation, evaluation, rollout policy:
    :class:`rules.ismcts.StrongGame`); None: the game offers the ``random`` and ``greedy``
    levels only."""
    renderer: str
    """The module whose ``board(view, ...)`` draws the public board (``render.<game>``)."""
    presentation: str
    """The module whose ``UI`` (a ``bot.games.GameUI``) words the game on Discord."""
    catalogues: str | None = None
    """A package holding ``<locale>/*.json`` catalogue files with the game's own words (None:
    its words are in the shared catalogues of ``data/i18n``)."""
    lobby: tuple[str, ...] | None = None
    """The options ``/game new`` offers as parameters of its own, in this order (None: every
    yes/no and number option of the rules' table); any option may still be typed in
    ``options:``."""
    playable: bool = True
    """Offered by ``/game new`` (an engine without a presentation yet is not)."""

    def module(self) -> GameModule:
        """The rules module, imported once."""
        return game_module(self.name)

    def levels(self) -> tuple[str, ...]:
        """The AI levels this game's AI seats may play at."""
        return LEVELS if self.strong else tuple(level for level in LEVELS if level != "strong")

    def lobby_options(self) -> tuple[Option, ...]:
        """The options ``/game new`` offers for this game, from the rules' option table."""
        table = self.module().OPTIONS
        if self.lobby is None:
            return tuple(o for o in table if o.kind in ("bool", "int"))
        known = {o.name: o for o in table}
        return tuple(known[name] for name in self.lobby)


def _builtin(name: str, **more: Any) -> GameEntry:
    """An entry of a game laid out as the three built-in games are (``more`` says where it
    differs)."""
    parts: dict[str, Any] = {
        "rules": f"rules.{name}", "ai": f"rules.{name}.ai", "strong": f"rules.{name}.strong",
        "renderer": f"render.{name}", "presentation": f"bot.games.{name}"}
    return GameEntry(name, **{**parts, **more})


GAMES: tuple[GameEntry, ...] = (
    _builtin("makemake"),
    _builtin("giants"),
    _builtin("giganten", lobby=()),
)
"""The games the bot hosts, in the order ``/game new`` offers them."""

GAME_NAMES = tuple(sorted(entry.name for entry in GAMES))
"""The built-in games by name (the rules CLI's choices; tests run over each)."""

_ENTRIES: dict[str, GameEntry] = {entry.name: entry for entry in GAMES}
_MODULES: dict[str, GameModule] = {}
"""The modules found so far: a host asks for a game's module at every step."""
_LISTENERS: list[Callable[[], None]] = []


def entries() -> tuple[GameEntry, ...]:
    """Every known game's entry: the built-in ones, then those registered since."""
    return tuple(_ENTRIES.values())


def entry(name: str) -> GameEntry:
    """The entry of game ``name`` (KeyError for a game nobody registered)."""
    return _ENTRIES[name]


def game_module(name: str) -> GameModule:
    found = _MODULES.get(name)
    if found is None:
        found = _MODULES[name] = importlib.import_module(entry(name).rules)
    return found


def on_change(listener: Callable[[], None]) -> None:
    """Call ``listener`` whenever a game is registered or removed."""
    _LISTENERS.append(listener)


def _changed() -> None:
    for listener in _LISTENERS:
        listener()


def register(game: GameEntry) -> None:
    """Add a game (a name already known is refused: an entry is never replaced unseen)."""
    if game.name in _ENTRIES:
        raise ValueError(f"a game named {game.name!r} is already registered")
    _ENTRIES[game.name] = game
    _changed()


def unregister(name: str) -> None:
    """Forget a game :func:`register` added (a built-in game stays)."""
    if any(builtin.name == name for builtin in GAMES):
        raise ValueError(f"{name!r} is a built-in game")
    _ENTRIES.pop(name, None)
    _MODULES.pop(name, None)
    _changed()


@contextmanager
def registered(game: GameEntry) -> Iterator[GameEntry]:
    """The game is known inside the ``with`` block only (a test's own game)."""
    register(game)
    try:
        yield game
    finally:
        unregister(game.name)
