"""The Giants game state, setup (spec sections 2, 3, 8) and its JSON form.

The state is plain data (dicts, lists, numbers) so that JSON round-trips exactly; ``apply``
works on a copy, which keeps every rejected action from touching the caller's state. The copy
knows each field's shape (``_copied``): a field, or a container inside one, that changes shape
needs its line there too (the copy property tests fail on any container left shared).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.core import JSON, Option, Options
from rules.giants.actions import COLOURS
from rules.giants.board import AHUS, HEADDRESS_QUARRY, MOAI_QUARRY
from rules.plain import clone, columns, rows

NAME = "giants"
MIN_SEATS, MAX_SEATS = 3, 5
SCHEMA = 1
BASES = {3: 7, 4: 6, 5: 5}
MOAI_SUPPLY = {"1": 17, "2": 12, "3": 6}
HEADDRESSES, LOGS, RONGO = 14, 27, 30
WORKERS, MARKERS = 6, 6
STRENGTH = {"worker": 1, "sorcerer": 1, "chief": 3}


@dataclass(frozen=True)
class _Limited(Option):
    """An integer option with an upper bound too (``round_limit`` is 1-99)."""

    maximum: int = 99

    def parse(self, text: str) -> Any:
        value = super().parse(text)
        if value > self.maximum:
            raise ValueError(f"{self.name} must be at most {self.maximum}, not {text!r}")
        return value


@dataclass(frozen=True)
class _Faces(Option):
    """The die faces: 1-12 digits, each 0-3, kept as the digit string."""

    def parse(self, text: str) -> Any:
        if not 1 <= len(text) <= 12 or any(c not in "0123" for c in text):
            raise ValueError(f"{self.name} must be 1-12 digits 0-3, not {text!r}")
        return text


OPTIONS: tuple[Option, ...] = (
    Option("quick", "bool", False),
    Option("running_score", "bool", False),
    Option("chief_split", "bool", True),
    _Limited("round_limit", "int", 25, minimum=1, maximum=99),
    _Faces("faces", "str", "011223"),
)


@dataclass
class State:
    seats: list[str]
    options: dict[str, Any]
    seed: int = 0
    """The game line's ``seed``: the dice a record leaves out follow from it (spec section 8)."""
    round: int = 1
    phase: str = "draw"
    first: int = 0
    current: str | None = None
    dice: list[int] | None = None
    offer: list[int] = field(default_factory=list)
    supply: dict[str, Any] = field(default_factory=dict)
    players: dict[str, dict[str, Any]] = field(default_factory=dict)
    bids: dict[str, dict[str, Any]] = field(default_factory=dict)
    revealed: bool = False
    choosing: dict[str, Any] | None = None
    hexes: dict[str, dict[str, Any]] = field(default_factory=dict)
    harvested: list[str] = field(default_factory=list)
    ahus: dict[str, dict[str, Any]] = field(default_factory=dict)
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    next_moai: int = 1
    next_hat: int = 1
    quarried: dict[str, list[str]] = field(default_factory=dict)
    endround: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    end: str | None = None
    winners: list[str] = field(default_factory=list)
    final: dict[str, dict[str, int]] | None = None

    def copy(self) -> State:
        """A copy that shares no dict or list with this state."""
        return State(**_copied(self))


def _copied(s: State) -> dict[str, Any]:
    """Every field of ``s`` in field order, each copied by its shape; scalars are shared."""
    return {
        "seats": s.seats.copy(),
        "options": s.options.copy(),
        "seed": s.seed, "round": s.round, "phase": s.phase, "first": s.first,
        "current": s.current,
        "dice": None if s.dice is None else s.dice.copy(),
        "offer": s.offer.copy(),
        "supply": {**s.supply, "moai": s.supply["moai"].copy()},
        "players": {seat: _player(p) for seat, p in s.players.items()},
        "bids": rows(s.bids),
        "revealed": s.revealed,
        "choosing": clone(s.choosing),
        "hexes": {label: {**spot, "figures": [f.copy() for f in spot["figures"]]}
                  for label, spot in s.hexes.items()},
        "harvested": s.harvested.copy(),
        "ahus": rows(s.ahus),
        "items": rows(s.items),
        "next_moai": s.next_moai, "next_hat": s.next_hat,
        "quarried": columns(s.quarried),
        "endround": clone(s.endround),
        "end": s.end,
        "winners": s.winners.copy(),
        "final": None if s.final is None else rows(s.final),
    }


def _player(p: dict[str, Any]) -> dict[str, Any]:
    out = p.copy()
    for key in ("screen", "urn", "committed", "peeked"):
        out[key] = p[key].copy()
    return out


def new(seats: list[str], options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """A game at the start of round 1 (spec section 3); ``seed`` draws the dice a record omits."""
    if not MIN_SEATS <= len(seats) <= MAX_SEATS or len(set(seats)) != len(seats) \
            or set(seats) != set(COLOURS[: len(seats)]):
        raise ValueError("Giants needs 3-5 seats: the first N of " + ", ".join(COLOURS))
    opts = Options.build(OPTIONS, options).values
    start_workers = 2 if opts["quick"] else 1
    players = {
        seat: {
            "screen": {"workers": start_workers, "chief": True, "sorcerer": True,
                       "markers": 2, "logs": 0, "bases": BASES[len(seats)]},
            "urn": {"workers": WORKERS - start_workers, "markers": MARKERS - 2},
            "committed": _empty_committed(),
            "rongo": 0, "prestige": 0, "passed": False, "peeked": [],
        } for seat in seats}
    return State(
        seats=list(seats), options=opts, seed=seed,
        supply={"moai": dict(MOAI_SUPPLY), "headdresses": HEADDRESSES, "logs": LOGS,
                "rongo": RONGO},
        players=players,
        ahus={a: {"reserved": None, "moai": None, "headdress": None, "owner": None}
              for a in AHUS})


def _empty_committed() -> dict[str, Any]:
    return {"workers": 0, "chief": False, "sorcerer": False, "markers": 0}


def options_of(state: State) -> Options:
    return Options.build(OPTIONS, state.options)


def seats_of(state: State) -> tuple[str, ...]:
    return tuple(state.seats)


def to_json(state: State) -> JSON:
    data = _copied(state)
    data["schema"] = SCHEMA
    data["game"] = NAME
    return data


def from_json(data: JSON) -> State:
    if data.get("schema") != SCHEMA:
        raise ValueError(f"unsupported Giants state schema {data.get('schema')!r}")
    fields = {k: v for k, v in data.items() if k not in ("schema", "game")}
    return State(**fields).copy()  # the copy keeps nothing of ``data``


# --- small questions every phase asks ---------------------------------------------------------

def turn_order(state: State) -> list[str]:
    """This round's order: the first player, then leftwards."""
    n = len(state.seats)
    return [state.seats[(state.first + i) % n] for i in range(n)]


def after(order: list[str], seat: str) -> list[str]:
    """The seats of ``order`` after ``seat``, cyclically, ending with ``seat`` itself."""
    i = order.index(seat)
    return order[i + 1:] + order[: i + 1]


def bases_allotted(state: State) -> int:
    return BASES[len(state.seats)]


def erected_by(state: State, seat: str) -> list[str]:
    return [a for a in AHUS if state.ahus[a]["moai"] and state.ahus[a]["owner"] == seat]


def quarry_of(item: dict[str, Any]) -> str:
    return MOAI_QUARRY if item["kind"] == "moai" else HEADDRESS_QUARRY


def new_committed() -> dict[str, Any]:
    return _empty_committed()
