"""Giganten actions and their notation (spec section 9).

``str(action)`` is the canonical line without the actor; ``parse`` accepts any case and any order
where the order carries no meaning, and keeps duplicates so that the rules can reject them.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.core import IllegalAction
from rules.giganten.board import BEIGE, COLOURS, COMPANIES, FACES, LABELS, ORDER, RED, card_number

_LABELS = frozenset(LABELS)
_CARDS = frozenset((*BEIGE, *RED))


def _values(values: tuple[int, ...]) -> str:
    return "".join(f" {v}" for v in values)


def card_key(card: str) -> tuple[int, int]:
    """Red before beige, then by number: the printing order of ``* reveal``."""
    return (0 if card.startswith("r") else 1, card_number(card))


# --- chance lines --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Tiles:
    tiles: tuple[tuple[str, int], ...]
    """(label, value) in board order."""

    def __str__(self) -> str:
        return "tiles " + " ".join(f"{label}={value}" for label, value in self.tiles)


@dataclass(frozen=True)
class Prices:
    faces: tuple[str, str, str]

    def __str__(self) -> str:
        return "prices " + " ".join(self.faces)


@dataclass(frozen=True)
class Reveal:
    red: str
    beige: tuple[str, ...]
    """In printing order; the first card is kept apart because it must be the red one."""

    def __str__(self) -> str:
        return "reveal " + " ".join((self.red, *self.beige))


@dataclass(frozen=True)
class Licences:
    seat: str
    values: tuple[int, ...]

    def __str__(self) -> str:
        return f"licences {self.seat}{_values(self.values)}"


@dataclass(frozen=True)
class Forfeit:
    seat: str
    values: tuple[int, ...]

    def __str__(self) -> str:
        return f"forfeit {self.seat}{_values(self.values)}"


# --- seat lines ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Take:
    card: str

    def __str__(self) -> str:
        return f"take {self.card}"


@dataclass(frozen=True)
class Drive:
    path: tuple[str, ...]

    def __str__(self) -> str:
        return "drive " + " ".join(self.path)


@dataclass(frozen=True)
class Peek:
    label: str

    def __str__(self) -> str:
        return f"peek {self.label}"


@dataclass(frozen=True)
class Loco:
    steps: int

    def __str__(self) -> str:
        return f"loco {self.steps}"


@dataclass(frozen=True)
class Price:
    company: str
    change: int
    """Signed, never 0."""

    def __str__(self) -> str:
        return f"price {self.company} {self.change:+d}"


@dataclass(frozen=True)
class Oil:
    company: str

    def __str__(self) -> str:
        return f"oil {self.company}"


@dataclass(frozen=True)
class Done:
    def __str__(self) -> str:
        return "done"


@dataclass(frozen=True)
class Build:
    label: str

    def __str__(self) -> str:
        return f"build {self.label}"


@dataclass(frozen=True)
class Skip:
    def __str__(self) -> str:
        return "skip"


@dataclass(frozen=True)
class Entry:
    """Where one derrick's chip goes: ``company`` None means drop; ``via`` black or a colour."""

    label: str
    company: str | None
    via: str | None = None

    def __str__(self) -> str:
        if self.company is None:
            return f"{self.label}=drop"
        return f"{self.label}={self.company}" + (f":{self.via}" if self.via else "")


@dataclass(frozen=True)
class Produce:
    entries: tuple[Entry, ...]
    """In board order."""

    def __str__(self) -> str:
        return "produce " + " ".join(str(e) for e in self.entries)


@dataclass(frozen=True)
class Bid:
    amount: int

    def __str__(self) -> str:
        return f"bid {self.amount}"


@dataclass(frozen=True)
class Pass:
    FORCED = True
    """A pass that is a seat's only legal action is no decision: the host plays it for the
    seat (:func:`rules.core.forced`)."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class Pay:
    values: tuple[int, ...]

    def __str__(self) -> str:
        return f"pay{_values(self.values)}"


@dataclass(frozen=True)
class Sell:
    count: int

    def __str__(self) -> str:
        return f"sell {self.count}"


ChanceAction = Tiles | Prices | Reveal | Licences | Forfeit
SeatAction = (Take | Drive | Peek | Loco | Price | Oil | Done | Build | Skip | Produce | Bid | Pass
              | Pay | Sell)
Action = ChanceAction | SeatAction


def verb(action: Action) -> str:
    return str(action).split()[0]


# --- parsing -------------------------------------------------------------------------------------

class _Bad(Exception):
    pass


def _label(word: str) -> str:
    word = word.upper()
    if len(word) < 2 or not word[1:].isdecimal() or not word[1:].isascii():
        raise _Bad
    label = f"{word[0]}{int(word[1:])}"
    if label not in _LABELS:
        raise _Bad
    return label


def _uint(word: str, least: int = 0) -> int:
    if not word.isdecimal() or not word.isascii() or int(word) < least:
        raise _Bad
    return int(word)


def _lic(words: list[str]) -> tuple[int, ...]:
    if any(w not in ("1", "2") for w in words):
        raise _Bad
    return tuple(sorted(int(w) for w in words))


def _pick(word: str, allowed: tuple[str, ...] | frozenset[str]) -> str:
    if word not in allowed:
        raise _Bad
    return word


def _entry(word: str) -> Entry:
    label, eq, rest = word.partition("=")
    if not eq:
        raise _Bad
    if rest == "drop":
        return Entry(_label(label), None)
    company, colon, via = rest.partition(":")
    _pick(company, COMPANIES)
    if colon:
        _pick(via, ("black", *COLOURS))
        return Entry(_label(label), company, via)
    return Entry(_label(label), company)


def _tile(word: str) -> tuple[str, int]:
    label, eq, value = word.partition("=")
    if not eq or value not in ("2", "3", "4", "5", "6"):
        raise _Bad
    return _label(label), int(value)


def _parse(verb_: str, args: list[str]) -> Action:
    n = len(args)
    if verb_ == "tiles" and n:
        return Tiles(tuple(sorted((_tile(a) for a in args), key=lambda t: ORDER[t[0]])))
    if verb_ == "prices" and n == 3:
        a, b, c = (_pick(w, FACES) for w in args)
        return Prices((a, b, c))
    if verb_ == "reveal" and n:
        cards = [_pick(w, _CARDS) for w in args]
        return Reveal(cards[0], tuple(sorted(cards[1:], key=card_key)))
    if verb_ in ("licences", "forfeit") and n >= (1 if verb_ == "licences" else 2):
        seat = _pick(args[0], COLOURS)
        return (Licences if verb_ == "licences" else Forfeit)(seat, _lic(args[1:]))
    if verb_ == "take" and n == 1:
        return Take(_pick(args[0], _CARDS))
    if verb_ == "drive" and n:
        return Drive(tuple(_label(a) for a in args))
    if verb_ == "peek" and n == 1:
        return Peek(_label(args[0]))
    if verb_ == "loco" and n == 1:
        return Loco(_uint(args[0], 1))
    if verb_ == "price" and n == 2 and args[1][:1] in ("+", "-"):
        return Price(_pick(args[0], COMPANIES),
                     _uint(args[1][1:], 1) * (1 if args[1][0] == "+" else -1))
    if verb_ == "oil" and n == 1:
        return Oil(_pick(args[0], COMPANIES))
    if verb_ == "build" and n == 1:
        return Build(_label(args[0]))
    if verb_ == "produce" and n:
        return Produce(tuple(sorted((_entry(a) for a in args), key=lambda e: ORDER[e.label])))
    if verb_ == "bid" and n == 1:
        return Bid(_uint(args[0], 1))
    if verb_ == "pay" and n:
        return Pay(_lic(args))
    if verb_ == "sell" and n == 1:
        return Sell(_uint(args[0]))
    simple: dict[str, type[Done | Skip | Pass]] = {"done": Done, "skip": Skip, "pass": Pass}
    if verb_ in simple and not n:
        return simple[verb_]()
    raise _Bad


def parse(text: str) -> Action:
    """The action part of a line, e.g. ``"drive C1 C2"``; raises IllegalAction('syntax')."""
    words = text.split("#", 1)[0].lower().split()
    try:
        if not words:
            raise _Bad
        return _parse(words[0], words[1:])
    except _Bad:
        raise IllegalAction("syntax", text=text.strip()) from None
