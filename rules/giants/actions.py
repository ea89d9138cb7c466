"""Giants actions and their notation (rules spec section 9).

``parse`` only checks the shape of a line: an unknown hex, ahu or item is reported by the engine
(``unknown_hex`` and friends) so that every implementation gives the same first rejection.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.core import IllegalAction

COLOURS = ("red", "blue", "green", "yellow", "purple")
FIGURES = ("worker", "sorcerer", "chief")
SPECIALS = ("recruit", "marker", "headdress", "logs", "reserve")

_HEX = re.compile(r"^[A-Z]{1,2}[0-9]{1,3}$")
_AHU = re.compile(r"^[a-z][a-z'-]*$")
_ITEM = re.compile(r"^(moai|hat|pukao)([0-9]{1,4})$")
_LOGS = re.compile(r"^([0-9]+)logs$")
_COUNT = re.compile(r"^([0-9]+)([mw])$")


def item_key(item: str) -> tuple[int, int]:
    """Canonical item order: moai by number, then headdresses by number."""
    if item.startswith("moai"):
        return (0, int(item[4:]))
    return (1, int(item[3:]))


def _logs(n: int) -> str:
    return f" {n}logs" if n else ""


@dataclass(frozen=True)
class Dice:
    faces: tuple[int, ...]

    def __str__(self) -> str:
        return "dice " + " ".join(str(f) for f in self.faces)


@dataclass(frozen=True)
class Bid:
    markers: int
    workers: int = 0
    chief: bool = False
    sorcerer: bool = False

    @property
    def strength(self) -> int:
        return self.workers + self.sorcerer + 3 * self.chief

    def __str__(self) -> str:
        words = ["bid", f"{self.markers}m"]
        if self.workers:
            words.append(f"{self.workers}w")
        if self.chief:
            words.append("chief")
        if self.sorcerer:
            words.append("sorcerer")
        return " ".join(words)


@dataclass(frozen=True)
class Take:
    size: int

    def __str__(self) -> str:
        return f"take {self.size}"


@dataclass(frozen=True)
class Done:
    def __str__(self) -> str:
        return "done"


@dataclass(frozen=True)
class Place:
    """Option A: a figure onto a hex, no action."""

    figure: str
    hex: str
    logs: int = 0

    def __str__(self) -> str:
        return f"place {self.figure} {self.hex}{_logs(self.logs)}"


@dataclass(frozen=True)
class Special:
    """Options B (sorcerer) and C (chief): a hex's action."""

    figure: str
    action: str
    hex: str | None = None
    ahu: str | None = None
    logs: int = 0

    def __str__(self) -> str:
        words = [self.figure, self.action]
        if self.ahu is not None:
            words.append(self.ahu)
        if self.hex is not None and self.action in ("logs", "reserve"):
            words.append(self.hex)
        return " ".join(words) + _logs(self.logs)


@dataclass(frozen=True)
class Rongo:
    def __str__(self) -> str:
        return "rongo"


@dataclass(frozen=True)
class Pass:
    FORCED = True
    """A pass that is a seat's only legal action is no decision: the host plays it for the
    seat (:func:`rules.core.forced`)."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class Move:
    item: str
    path: tuple[str, ...] = ()
    deliver: str | None = None
    """``"erect"``, ``"crown"`` or None."""
    ahu: str | None = None
    mark: bool = False
    favour: str | None = None

    def __str__(self) -> str:
        words = ["move", self.item, *self.path]
        if self.deliver:
            words += [self.deliver, str(self.ahu)]
        if self.mark:
            words.append("mark")
        if self.favour:
            words.append(f"favour={self.favour}")
        return " ".join(words)


@dataclass(frozen=True)
class Mark:
    item: str

    def __str__(self) -> str:
        return f"mark {self.item}"


@dataclass(frozen=True)
class Peek:
    ahu: str

    def __str__(self) -> str:
        return f"peek {self.ahu}"


@dataclass(frozen=True)
class EndRound:
    mark: tuple[str, ...] = ()
    recall: tuple[str, ...] = ()
    """Both in canonical order; a repeated item stays repeated so the rules can reject it."""

    def __str__(self) -> str:
        words = ["endround"]
        if self.mark:
            words.append("mark=" + ",".join(self.mark))
        if self.recall:
            words.append("recall=" + ",".join(self.recall))
        return " ".join(words)


Action = (Dice | Bid | Take | Done | Place | Special | Rongo | Pass | Move | Mark | Peek
          | EndRound)


class _Syntax(Exception):
    pass


def _item(word: str) -> str:
    m = _ITEM.match(word.lower())
    if not m:
        raise _Syntax
    kind = "moai" if m.group(1) == "moai" else "hat"
    return f"{kind}{int(m.group(2))}"


def _hex(word: str) -> str:
    if not _HEX.match(word.upper()):
        raise _Syntax
    return word.upper()


def _ahu(word: str) -> str:
    if not _AHU.match(word.lower()):
        raise _Syntax
    return word.lower()


def _split_logs(args: list[str]) -> tuple[list[str], int]:
    """A trailing ``<n>logs`` token (0-2)."""
    if args:
        m = _LOGS.match(args[-1].lower())
        if m:
            n = int(m.group(1))
            if n > 2:
                raise _Syntax
            return args[:-1], n
    return args, 0


def parse(text: str) -> Action:
    """The action part of a line, e.g. ``"move moai4 L7 K8 erect oroi"``."""
    words = text.split("#", 1)[0].split()
    try:
        if not words:
            raise _Syntax
        return _parse(words[0].lower(), words[1:])
    except (_Syntax, ValueError):
        raise IllegalAction("syntax", text=text.strip()) from None


def _parse(verb: str, args: list[str]) -> Action:
    low = [a.lower() for a in args]
    if verb == "dice":
        if not args or not all(a.isdecimal() and a.isascii() for a in args):
            raise _Syntax
        return Dice(tuple(int(a) for a in args))
    if verb == "bid":
        return _parse_bid(low)
    if verb == "take" and len(low) == 1 and low[0] in ("1", "2", "3"):
        return Take(int(low[0]))
    if verb in ("done", "rongo", "pass") and not args:
        simple: dict[str, type[Done | Rongo | Pass]] = {"done": Done, "rongo": Rongo, "pass": Pass}
        return simple[verb]()
    if verb == "place":
        rest, logs = _split_logs(args)
        if len(rest) != 2 or rest[0].lower() not in FIGURES:
            raise _Syntax
        return Place(rest[0].lower(), _hex(rest[1]), logs)
    if verb in ("sorcerer", "chief"):
        return _parse_special(verb, args)
    if verb == "move":
        return _parse_move(args)
    if verb == "mark" and len(args) == 1:
        return Mark(_item(args[0]))
    if verb == "peek" and len(args) == 1:
        return Peek(_ahu(args[0]))
    if verb == "endround":
        return _parse_endround(low)
    raise _Syntax


def _parse_bid(low: list[str]) -> Bid:
    found: dict[str, int] = {}
    for word in low:
        m = _COUNT.match(word)
        key = m.group(2) if m else word
        if key not in ("m", "w", "chief", "sorcerer") or key in found:
            raise _Syntax
        value = int(m.group(1)) if m else 1
        if value > 6:
            raise _Syntax
        found[key] = value
    if "m" not in found:
        raise _Syntax
    return Bid(found["m"], found.get("w", 0), "chief" in found, "sorcerer" in found)


def _parse_special(figure: str, args: list[str]) -> Special:
    rest, logs = _split_logs(args)
    if not rest or rest[0].lower() not in SPECIALS:
        raise _Syntax
    action = rest[0].lower()
    if action in ("recruit", "marker", "headdress") and len(rest) == 1:
        return Special(figure, action, logs=logs)
    if action == "logs" and len(rest) == 2:
        return Special(figure, action, hex=_hex(rest[1]), logs=logs)
    if action == "reserve" and len(rest) == 3:
        return Special(figure, action, hex=_hex(rest[2]), ahu=_ahu(rest[1]), logs=logs)
    raise _Syntax


def _parse_move(args: list[str]) -> Move:
    if not args:
        raise _Syntax
    item = _item(args[0])
    i, path = 1, []
    tail = ("erect", "crown", "mark")
    while i < len(args) and args[i].lower() not in tail and "=" not in args[i]:
        path.append(_hex(args[i]))
        i += 1
    deliver = ahu = favour = None
    mark = False
    while i < len(args):
        word = args[i].lower()
        if word in ("erect", "crown") and deliver is None and i + 1 < len(args):
            deliver, ahu = word, _ahu(args[i + 1])
            i += 2
            continue
        if word == "mark" and not mark:
            mark = True
        elif word.partition("=")[0] in ("favour", "favor") and favour is None:
            favour = word.partition("=")[2]
            if favour not in COLOURS:
                raise _Syntax
        else:
            raise _Syntax
        i += 1
    return Move(item, tuple(path), deliver, ahu, mark, favour)


def _parse_endround(low: list[str]) -> EndRound:
    lists: dict[str, tuple[str, ...]] = {}
    for word in low:
        key, eq, value = word.partition("=")
        if not eq or key not in ("mark", "recall") or key in lists or not value:
            raise _Syntax
        lists[key] = tuple(sorted((_item(v) for v in value.split(",")), key=item_key))
    return EndRound(lists.get("mark", ()), lists.get("recall", ()))
