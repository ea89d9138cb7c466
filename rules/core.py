"""The engine contract shared by every game (see DESIGN.md, "The engine contract").

A game module (``rules.makemake``, ...) exposes module-level functions with the same names as
:class:`GameModule` below. Everything here is pure: no I/O, no clocks, no global randomness.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

CHANCE = "*"
"""The actor that plays dice, shuffles, deals and reveals."""

Event = dict[str, Any]
"""Something that happened, for messages and logs: ``{"kind": ..., **details}``.

Two keys say what is secret about the recorded line itself (DESIGN.md, "The engine contract"):
``SEALED: <colour>`` -- the line just applied is a submission to a simultaneous decision, private
to that seat; ``REVEALS: True`` -- every sealed line recorded so far is public from now on. A host
keeps that mark per log row and prints a sealed line as ``<colour> <verb> ?``; it never replays a
game to find out. ``"private"`` marks a secret *inside* an event (the whole event for one seat,
or ``{"seat": colour, ...}`` for a part of it).
"""

SEALED = "sealed"
REVEALS = "reveals"


def sealed_by(events: list[Event]) -> str | None:
    """The seat a just-applied line is private to (None: the line is public)."""
    return next((e[SEALED] for e in events if e.get(SEALED)), None)


def reveals(events: list[Event]) -> bool:
    """Whether these events make every sealed line recorded so far public."""
    return any(e.get(REVEALS) for e in events)


def every_line_public(state: Any, line: str, seat: str | None = None) -> str:
    """``public_line`` of a game whose record lines hide nothing beyond sealed submissions."""
    return line


def public_events(events: list[Event]) -> list[Event]:
    """The events everyone may read, each without its private part: an event private to one
    seat (``"private": colour``) and a sealed submission are left out."""
    return [{k: v for k, v in e.items() if k != "private"} for e in events
            if not isinstance(e.get("private"), str) and not e.get(SEALED)]


def hidden_line(line: str) -> str:
    """A sealed line as others may read it: ``red bid 2m 1w`` -> ``red bid ?``."""
    return " ".join([*line.split()[:2], "?"])

JSON = dict[str, Any]


class IllegalAction(Exception):
    """A rejected action. ``key`` is a message key; ``params`` fill its message."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params

    def __str__(self) -> str:
        if not self.params:
            return self.key
        details = ", ".join(f"{k}={_plain(v)}" for k, v in self.params.items())
        return f"{self.key} ({details})"


def _plain(value: Any) -> str:
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value)
    return str(value)


@dataclass(frozen=True)
class Pending:
    """Who must act now and what kind of decision it is.

    ``seats`` is ``("*",)`` for chance, several colours for a simultaneous decision, and empty once
    the game is over.
    """

    seats: tuple[str, ...]
    kind: str


@dataclass(frozen=True)
class Result:
    scores: dict[str, int]
    winners: list[str]
    reason: str


@dataclass(frozen=True)
class Option:
    """One game-line option: ``kind`` is ``"bool"`` (yes/no) or ``"int"`` (with ``minimum``)."""

    name: str
    kind: str
    default: Any
    minimum: int = 0

    def parse(self, text: str) -> Any:
        if self.kind == "bool":
            low = text.lower()
            if low not in ("yes", "no"):
                raise ValueError(f"{self.name} must be yes or no, not {text!r}")
            return low == "yes"
        if not text.isdecimal() or int(text) < self.minimum:
            raise ValueError(f"{self.name} must be a whole number >= {self.minimum}, not {text!r}")
        return int(text)

    def print(self, value: Any) -> str:
        if self.kind == "bool":
            return "yes" if value else "no"
        return str(value)


@dataclass
class Options:
    """Validated options of one game, in the spec's table order."""

    spec: tuple[Option, ...]
    values: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(cls, spec: tuple[Option, ...], given: Mapping[str, Any] | None = None) -> Options:
        known = {o.name: o for o in spec}
        values = {o.name: o.default for o in spec}
        for key, raw in (given or {}).items():
            if key not in known:
                raise ValueError(f"unknown option {key!r}")
            values[key] = known[key].parse(raw) if isinstance(raw, str) else raw
        return cls(spec, values)

    def non_default(self) -> list[str]:
        return [f"{o.name}={o.print(self.values[o.name])}" for o in self.spec
                if self.values[o.name] != o.default]


class GameModule(Protocol):
    """What every ``rules.<game>`` module offers."""

    NAME: str
    COLOURS: tuple[str, ...]
    MIN_SEATS: int
    MAX_SEATS: int
    OPTIONS: tuple[Option, ...]

    def new(self, seats: list[str], options: Mapping[str, Any] | None = None,
            seed: int = 0) -> Any: ...
    def pending(self, state: Any) -> Pending: ...
    def legal(self, state: Any, seat: str) -> list[Any]: ...
    def apply(self, state: Any, actor: str, action: Any) -> tuple[Any, list[Event]]: ...
    def view(self, state: Any, seat: str | None) -> JSON: ...
    def result(self, state: Any) -> Result | None: ...
    def parse(self, text: str) -> Any: ...
    def canonical(self, state: Any, actor: str, action: Any) -> Any: ...
    def chance(self, state: Any, rng: random.Random) -> Any: ...
    def to_json(self, state: Any) -> JSON: ...
    def from_json(self, data: JSON) -> Any: ...
    def options_of(self, state: Any) -> Options: ...
    def seats_of(self, state: Any) -> tuple[str, ...]: ...
    def public_line(self, state: Any, line: str, seat: str | None = None) -> str: ...


def forced(legal: Sequence[Any]) -> Any | None:
    """The action a seat has no choice but to play, which a host applies for it: its only
    legal action, when the engine marks that kind of action ``FORCED`` (a pass: nothing to
    decide). None when the seat has a choice to make."""
    return legal[0] if len(legal) == 1 and getattr(legal[0], "FORCED", False) else None


def split_words(text: str) -> list[str]:
    """The words of a notation line: comments dropped, blanks folded, case kept."""
    return text.split("#", 1)[0].split()
