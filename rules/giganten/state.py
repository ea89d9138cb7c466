"""The Giganten state: plain JSON-shaped fields, so that saving and loading is exact.

Everything secret (tile values, licence hands, the licence draw pile's mix) lives here; only
``view`` decides who may see what.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.core import JSON, IllegalAction, Option, Options
from rules.giganten.board import (
    BEIGE,
    CHIPS,
    COLOURS,
    COMPANIES,
    DERRICKS,
    LICENCES,
    MAX_SEATS,
    MIN_SEATS,
    PRICE_START,
    RAIL_FIRST,
    RED,
    START_MONEY,
    THREE_PLAYER_EMPTY,
    TILE_SPACES,
    TILE_TYPE,
)
from rules.plain import clone, columns, rows

NAME = "giganten"
OPTIONS = (Option("unlimited_chips", "bool", False),)
SCHEMA = 1


class SetupError(IllegalAction, ValueError):
    """A bad game line: a rule key for players, and a ValueError for callers of ``new``."""


@dataclass
class State:
    """One Giganten position. ``index`` points into the round order for the sequential steps."""

    seats: list[str]
    options: dict[str, Any]
    round: int = 0
    phase: str = "setup"
    decision: str = "tiles"
    index: int = 0
    prices: dict[str, int] = field(default_factory=dict)
    black: int = RAIL_FIRST
    supply: int = CHIPS
    spaces: dict[str, dict[str, Any]] = field(default_factory=dict)
    """label -> {type, state, value, owner, chips}; ``value`` is secret while ``hidden``."""
    peeks: dict[str, list[str]] = field(default_factory=dict)
    beige_draw: list[str] = field(default_factory=list)
    beige_discard: list[str] = field(default_factory=list)
    red_draw: list[str] = field(default_factory=list)
    red_discard: list[str] = field(default_factory=list)
    licence_draw: dict[str, int] = field(default_factory=dict)
    licence_discard: dict[str, int] = field(default_factory=dict)
    display: list[str] = field(default_factory=list)
    players: dict[str, dict[str, Any]] = field(default_factory=dict)
    """colour -> {money, loco, truck, derricks, hand (ascending values), card, storage}."""
    turn: dict[str, Any] | None = None
    auction: dict[str, Any] | None = None
    """{company, eligible, participants, passed, high_bid, high_bidder, to_act, winner, paid}."""
    winners: list[str] = field(default_factory=list)
    final: dict[str, dict[str, int]] | None = None

    def copy(self) -> State:
        """A copy that shares no dict or list with this state (``_copied``)."""
        return State(**_copied(self))

    @property
    def n(self) -> int:
        return len(self.seats)

    @property
    def order(self) -> list[str]:
        """This round's order, starting with its starting player."""
        start = (max(self.round, 1) - 1) % self.n
        return self.seats[start:] + self.seats[:start]

    @property
    def current(self) -> str:
        return self.order[self.index]

    def unlimited(self) -> bool:
        return bool(self.options["unlimited_chips"])


def _copied(s: State) -> dict[str, Any]:
    """Every field of ``s`` in field order, each copied by its shape; scalars are shared.

    A field, or a container inside one, that changes shape needs its line here too (the copy
    property tests fail on any container left shared).
    """
    return {
        "seats": s.seats.copy(),
        "options": s.options.copy(),
        "round": s.round, "phase": s.phase, "decision": s.decision, "index": s.index,
        "prices": s.prices.copy(),
        "black": s.black, "supply": s.supply,
        "spaces": rows(s.spaces),
        "peeks": columns(s.peeks),
        "beige_draw": s.beige_draw.copy(), "beige_discard": s.beige_discard.copy(),
        "red_draw": s.red_draw.copy(), "red_discard": s.red_discard.copy(),
        "licence_draw": s.licence_draw.copy(), "licence_discard": s.licence_discard.copy(),
        "display": s.display.copy(),
        "players": {seat: _player(p) for seat, p in s.players.items()},
        "turn": clone(s.turn),
        "auction": clone(s.auction),
        "winners": s.winners.copy(),
        "final": None if s.final is None else rows(s.final),
    }


def _player(p: dict[str, Any]) -> dict[str, Any]:
    out = p.copy()
    out["hand"] = p["hand"].copy()
    out["storage"] = p["storage"].copy()
    return out


def new(seats: list[str], options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """The game before its first chance line (spec section 3).

    ``seed`` changes nothing here: the chance lines a record leaves out are drawn by ``chance``
    from the RNG it is handed.
    """
    if not MIN_SEATS <= len(seats) <= MAX_SEATS or len(set(seats)) != len(seats) \
            or any(s not in COLOURS for s in seats):
        raise SetupError("game.seats", seats=list(seats))
    try:
        opts = Options.build(OPTIONS, options).values
    except ValueError as exc:
        raise SetupError("game.option", option=str(exc)) from None
    three = len(seats) == 3
    spaces = {label: {"type": TILE_TYPE[label],
                      "state": "unused" if three and label in THREE_PLAYER_EMPTY else "hidden",
                      "value": None, "owner": None, "chips": 0} for label in TILE_SPACES}
    players: dict[str, dict[str, Any]] = {
        s: {"money": START_MONEY, "loco": RAIL_FIRST, "truck": None, "derricks": DERRICKS,
            "hand": [], "card": None, "storage": {c: 0 for c in COMPANIES}}
        for s in seats}
    return State(
        seats=list(seats), options=dict(opts), prices={c: PRICE_START for c in COMPANIES},
        spaces=spaces, peeks={s: [] for s in seats}, beige_draw=list(BEIGE), red_draw=list(RED),
        licence_draw=dict(LICENCES), licence_discard={k: 0 for k in LICENCES}, players=players)


def options_of(state: State) -> Options:
    return Options.build(OPTIONS, state.options)


def seats_of(state: State) -> tuple[str, ...]:
    return tuple(state.seats)


def to_json(state: State) -> JSON:
    return {"schema": SCHEMA, "game": NAME, **_copied(state)}


def from_json(data: JSON) -> State:
    if data.get("schema") != SCHEMA or data.get("game") != NAME:
        raise ValueError(f"unsupported Giganten state schema {data.get('schema')!r}")
    fields = {k: v for k, v in data.items() if k not in ("schema", "game")}
    state = State(**fields).copy()  # the copy keeps nothing of ``data``
    # Key order carries meaning for nothing, but keep board, seat and company order anyway,
    # so that a store which sorts JSON keys gives back the same state.
    state.spaces = {label: state.spaces[label] for label in TILE_SPACES}
    state.players = {seat: state.players[seat] for seat in state.seats}
    state.peeks = {seat: state.peeks[seat] for seat in state.seats}
    state.prices = {c: state.prices[c] for c in COMPANIES}
    for p in state.players.values():
        p["storage"] = {c: p["storage"][c] for c in COMPANIES}
    state.licence_draw = {k: state.licence_draw[k] for k in LICENCES}
    state.licence_discard = {k: state.licence_discard[k] for k in LICENCES}
    return state
