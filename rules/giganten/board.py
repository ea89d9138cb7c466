"""Giganten facts (spec sections 2 and 4), loaded from ``data/giganten_data.json``.

Cards, board, rail and prices are data so that a corrected transcription needs no code change.
"""

from __future__ import annotations

from typing import Any

from rules.data import load

_DATA: dict[str, Any] = load("giganten_data.json")

ROWS: tuple[str, ...] = tuple(_DATA["rows"])
COLUMNS: int = _DATA["columns"]
LABELS: tuple[str, ...] = tuple(f"{r}{c}" for r in ROWS for c in range(1, COLUMNS + 1))
"""Every space in board order: row A to L, then column 1 to 20."""
ORDER: dict[str, int] = {label: i for i, label in enumerate(LABELS)}
TERRAIN: dict[str, str] = dict(_DATA["grid"])
COST: dict[str, int] = {label: _DATA["terrain_cost"][TERRAIN[label]] for label in LABELS}

TILE_SPACES: tuple[str, ...] = tuple(
    sorted(_DATA["tile_spaces"], key=lambda label: ORDER[label]))
TILE_TYPE: dict[str, int] = {k: v["type"] for k, v in _DATA["tile_spaces"].items()}
THREE_PLAYER_EMPTY: frozenset[str] = frozenset(
    k for k, v in _DATA["tile_spaces"].items() if v["three_player_empty"])
TILE_VALUES: dict[int, tuple[int, ...]] = {
    int(t): tuple(v["values"]) for t, v in _DATA["tile_types"].items()}
BUILD_COST: dict[int, int] = {int(t): v["build_cost"] for t, v in _DATA["tile_types"].items()}
PEEKABLE: dict[int, bool] = {int(t): v["peekable"] for t, v in _DATA["tile_types"].items()}

RAIL_FIRST: int = _DATA["rail"]["first"]
RAIL_LAST: int = _DATA["rail"]["last"]
HARBOUR: int = _DATA["rail"]["harbour"]
RAIL_COST: dict[int, int] = {int(k): v for k, v in _DATA["rail"]["enter_cost"].items()}

PRICE_TABLE: tuple[int, ...] = tuple(_DATA["prices"]["table"])
PRICE_START: int = PRICE_TABLE.index(_DATA["prices"]["start"])
ZONES: dict[str, tuple[int, int]] = {k: (v[0], v[1]) for k, v in _DATA["prices"]["zones"].items()}
DIE: dict[str, tuple[int, str]] = {d["face"]: (d["pips"], d["colour"]) for d in _DATA["die"]}
FACES: tuple[str, ...] = tuple(d["face"] for d in _DATA["die"])

COMPANIES: tuple[str, ...] = tuple(c["id"] for c in _DATA["companies"])
COLOURS: tuple[str, ...] = tuple(_DATA["colours"])

CARDS: dict[str, dict[str, Any]] = {
    c["id"]: {**c, "deck": "red" if "black" in c else "beige"}
    for c in [*_DATA["beige_cards"], *_DATA["red_cards"]]}
BEIGE: tuple[str, ...] = tuple(c["id"] for c in _DATA["beige_cards"])
RED: tuple[str, ...] = tuple(c["id"] for c in _DATA["red_cards"])
LICENCES: dict[str, int] = dict(_DATA["licence_cards"])

_K: dict[str, Any] = _DATA["constants"]
START_MONEY: int = _K["start_money"]
DERRICKS: int = _K["derricks_per_player"]
CHIPS: int = _K["oil_chips"]
FEE: int = _K["transport_fee"]
STORAGE_LIMIT: int = _K["storage_limit"]
OVERFILL: int = _K["overfill_compensation"]
DERRICK_BONUS: tuple[int, ...] = tuple(_K["derrick_bonus"])
CHIP_VALUE: int = _K["end_chip_value"]
MAX_BID: int = _K["max_bid"]
MIN_SEATS: int = _K["players_min"]
MAX_SEATS: int = _K["players_max"]


def column(label: str) -> int:
    return int(label[1:])


def neighbours(label: str) -> tuple[str, ...]:
    """The orthogonally adjacent spaces, in board order."""
    found = _NEIGHBOURS.get(label)
    return found if found is not None else _neighbours(label)


def _neighbours(label: str) -> tuple[str, ...]:
    row, col = ROWS.index(label[0]), column(label)
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        r, c = row + dr, col + dc
        if 0 <= r < len(ROWS) and 1 <= c <= COLUMNS:
            out.append(f"{ROWS[r]}{c}")
    return tuple(out)


_NEIGHBOURS: dict[str, tuple[str, ...]] = {
    f"{r}{c}": _neighbours(f"{r}{c}") for r in ROWS for c in range(1, COLUMNS + 1)}
"""Every space's neighbours, worked out once: a drive's search asks for them at every step."""


def adjacent(a: str, b: str) -> bool:
    return b in neighbours(a)


def rail_cost(start: int, steps: int) -> int:
    """MP to move a locomotive from ``start`` forward ``steps`` positions (all on the table)."""
    return sum(RAIL_COST[p] for p in range(start + 1, start + steps + 1))


def card_number(card: str) -> int:
    return int(card[1:])


def zone(index: int) -> str:
    dollars = PRICE_TABLE[index]
    return next(name for name, (lo, hi) in ZONES.items() if lo <= dollars <= hi)
