"""Make Make actions and their notation (rules spec section 9.2)."""

from __future__ import annotations

from dataclasses import dataclass

from rules.core import IllegalAction
from rules.makemake.board import HEXES, SITES


@dataclass(frozen=True)
class Place:
    hex: str
    count: int
    chief: bool = False

    def __str__(self) -> str:
        text: str | None = self.__dict__.get("_text")  # the same places are listed each turn
        if text is None:
            text = f"place {self.hex} {self.count}" + (" chief" if self.chief else "")
            object.__setattr__(self, "_text", text)
        return text


@dataclass(frozen=True)
class Withdraw:
    hex: str

    def __str__(self) -> str:
        return f"withdraw {self.hex}"


@dataclass(frozen=True)
class Pass:
    FORCED = True
    """A pass that is a seat's only legal action is no decision: the host plays it for the
    seat (:func:`rules.core.forced`)."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class Moai:
    hex: str

    def __str__(self) -> str:
        return f"moai {self.hex}"


@dataclass(frozen=True)
class Manu:
    sites: tuple[str, ...]
    """Ascending; a site typed twice stays twice, so the rules can reject it."""

    def __str__(self) -> str:
        return "manu " + " ".join(sorted(self.sites))


Action = Place | Withdraw | Pass | Moai | Manu

_HEXES = frozenset(HEXES)
_SITES = frozenset(SITES)


def parse(text: str) -> Action:
    """The action part of a line, e.g. ``"place B2 3 chief"``; raises IllegalAction('syntax')."""
    words = text.split("#", 1)[0].split()
    if not words:
        raise IllegalAction("syntax", text=text.strip())
    verb, args = words[0].lower(), [w.upper() for w in words[1:]]
    if verb == "place" and len(args) in (2, 3) and args[0] in _HEXES and args[1].isdecimal() \
            and args[1].isascii() and (len(args) == 2 or args[2] == "CHIEF"):
        return Place(args[0], int(args[1]), len(args) == 3)
    if verb == "withdraw" and len(args) == 1 and args[0] in _HEXES:
        return Withdraw(args[0])
    if verb == "pass" and not args:
        return Pass()
    if verb == "moai" and len(args) == 1 and args[0] in _HEXES:
        return Moai(args[0])
    if verb == "manu" and args and all(a in _SITES for a in args):
        return Manu(tuple(sorted(args)))
    raise IllegalAction("syntax", text=text.strip())
