"""Game records: the game line, action lines, replaying a record and verifying its chance lines
(DESIGN.md, "Game records").

A :class:`Game` couples a game module with its state; the chance lines a record leaves out are
drawn from the game line's seed by :mod:`rules.fair`, the one derivation the bot's host uses
too. It is what the CLI, the tests and the bot's session host all drive.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rules import fair
from rules.core import CHANCE, Event, GameModule, IllegalAction, Options, split_words
from rules.registry import game_module


class RecordError(ValueError):
    """The record (its game line) cannot be read at all."""


@dataclass(frozen=True)
class Header:
    module: GameModule
    seats: list[str]
    options: Options
    seed: int

    def line(self) -> str:
        words = ["game", self.module.NAME, *self.seats, *self.options.non_default()]
        if self.seed:
            words.append(f"seed={self.seed}")
        return " ".join(words)


def parse_header(text: str) -> Header:
    words = [w.lower() for w in split_words(text)]
    if len(words) < 2 or words[0] != "game":
        raise RecordError("the first line must be: game <name> <colour> ... [key=value ...]")
    try:
        module = game_module(words[1])
    except KeyError as exc:
        raise RecordError(f"unknown game {words[1]!r}") from exc
    seats: list[str] = []
    given: dict[str, str] = {}
    seed = 0
    for word in words[2:]:
        if "=" in word:
            key, _, value = word.partition("=")
            if key in given:
                raise RecordError(f"option {key!r} is given twice")
            given[key] = value
            continue
        if given:
            raise RecordError(f"colour {word!r} comes after the options")
        if word not in module.COLOURS:
            raise RecordError(f"{word!r} is not a colour of {module.NAME}")
        if word in seats:
            raise RecordError(f"colour {word!r} is given twice")
        seats.append(word)
    if not module.MIN_SEATS <= len(seats) <= module.MAX_SEATS:
        raise RecordError(
            f"{module.NAME} needs {module.MIN_SEATS}-{module.MAX_SEATS} seats, not {len(seats)}")
    if "seed" in given:
        raw = given.pop("seed")
        if not raw.isdecimal():
            raise RecordError(f"seed must be a whole number >= 0, not {raw!r}")
        seed = int(raw)
    try:
        options = Options.build(module.OPTIONS, given)
    except ValueError as exc:
        raise RecordError(str(exc)) from exc
    return Header(module, seats, options, seed)


def parse_line(module: GameModule, text: str) -> tuple[str, Any]:
    """``"red place B2 3"`` -> ``("red", <action>)``; raises IllegalAction('syntax')."""
    words = split_words(text)
    if len(words) < 2:
        raise IllegalAction("syntax", text=text.strip())
    actor = words[0].lower()
    if actor != CHANCE and actor not in module.COLOURS:
        raise IllegalAction("syntax", text=text.strip())
    return actor, module.parse(" ".join(words[1:]))


def format_line(actor: str, action: Any) -> str:
    return f"{actor} {action}"


@dataclass
class Game:
    """A game in progress: the state plus the log of applied lines."""

    header: Header
    state: Any
    lines: list[str] = field(default_factory=list)

    @classmethod
    def start(cls, header: Header) -> Game:
        """The game at its start; a RecordError when the engine will not seat these colours."""
        try:
            state = header.module.new(header.seats, header.options.values, seed=header.seed)
        except ValueError as exc:
            raise RecordError(str(exc)) from exc
        return cls(header, state, [])

    @property
    def module(self) -> GameModule:
        return self.header.module

    def pending(self) -> tuple[str, ...]:
        return self.module.pending(self.state).seats

    def apply(self, actor: str, action: Any) -> list[Event]:
        action = self.module.canonical(self.state, actor, action)
        self.state, events = self.module.apply(self.state, actor, action)
        self.lines.append(format_line(actor, action))
        return events

    def apply_text(self, text: str) -> list[Event]:
        """Apply one record line; chance lines missing before a seat's line are drawn first."""
        actor, action = parse_line(self.module, text)
        events: list[Event] = []
        if actor != CHANCE:
            events += self.draw_chance()
        return events + self.apply(actor, action)

    def next_chance(self) -> Any:
        """The chance action the seed draws now (chance must be pending): :func:`rules.fair.draw`
        of this position, reached after ``len(lines)`` lines."""
        return fair.draw(self.module, self.state, self.header.seed, len(self.lines))

    def draw_chance(self) -> list[Event]:
        """Play chance, as the seed draws it, while chance is pending."""
        events: list[Event] = []
        while self.pending() == (CHANCE,):
            events += self.apply(CHANCE, self.next_chance())
        return events

    def record(self) -> str:
        return "\n".join([self.header.line(), *self.lines]) + "\n"


@dataclass(frozen=True)
class Rejection:
    number: int
    error: IllegalAction

    def __str__(self) -> str:
        return f"line {self.number}: {self.error}"


def replay(text: str, keep_going: bool = False) -> tuple[Game, list[Rejection]]:
    """Apply a whole record. Raises RecordError when there is no readable game line."""
    game: Game | None = None
    rejections: list[Rejection] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not split_words(raw):
            continue
        if game is None:
            game = Game.start(parse_header(raw))
            continue
        try:
            game.apply_text(raw)
        except IllegalAction as exc:
            rejections.append(Rejection(number, exc))
            if not keep_going:
                break
    if game is None:
        raise RecordError("the record has no game line")
    return game, rejections


@dataclass(frozen=True)
class Mismatch:
    """Why a record does not verify: the first line (numbered as in the file) that fails."""

    number: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.number}: {self.reason}"


def verify(text: str, commitment: str) -> tuple[Game, Mismatch | None]:
    """Check a record against the commitment shown before the game: SHA-256 of
    ``<game>:<seed>`` (the game line's seed) must be ``commitment``, and every chance line must
    be the one the seed draws at its position (chance lines the record leaves out are drawn
    from the seed, so they are fair by construction). Gives the game as far as it was checked
    and the first line that fails (None: the record verifies). Raises RecordError when there
    is no readable game line."""
    game: Game | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        if not split_words(raw):
            continue
        if game is None:
            game = Game.start(parse_header(raw))
            name, seed = game.module.NAME, game.header.seed
            digest = fair.commitment(name, seed)
            if digest != commitment.strip().lower():
                return game, Mismatch(number, f"SHA-256 of {name}:{seed} is {digest}, not the "
                                              f"commitment {commitment.strip()}")
            continue
        try:
            actor, action = parse_line(game.module, raw)
            if actor == CHANCE and game.pending() == (CHANCE,):
                expected = _canonical_chance(game, game.next_chance())
                given = _canonical_chance(game, action)
                if given != expected:
                    return game, Mismatch(number, f"the seed draws `{expected}`, not `{given}`")
            game.apply_text(raw)
        except IllegalAction as exc:
            return game, Mismatch(number, str(exc))
    if game is None:
        raise RecordError("the record has no game line")
    return game, None


def _canonical_chance(game: Game, action: Any) -> str:
    return format_line(CHANCE, game.module.canonical(game.state, CHANCE, action))


def replay_lines(header_line: str, lines: Iterable[str]) -> Game:
    """Rebuild a game from lines that are known to be legal (the bot's stored log)."""
    game = Game.start(parse_header(header_line))
    for line in lines:
        actor, action = parse_line(game.module, line)
        game.apply(actor, action)
    return game
