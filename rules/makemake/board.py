"""The Make Make board (rules spec section 4), loaded from ``data/makemake_board.json``."""

from __future__ import annotations

from rules.data import load

_BOARD = load("makemake_board.json")

CENTRE: str = _BOARD["centre"]
HEXES: tuple[str, ...] = tuple(h["id"] for h in _BOARD["hexes"])
"""All 35 labels in label order, the centre included."""
TERRITORIES: tuple[str, ...] = tuple(h["id"] for h in _BOARD["hexes"] if h["territory"])
SACRED: frozenset[str] = frozenset(_BOARD["sacred"])
NEIGHBOURS: dict[str, tuple[str, ...]] = {
    h["id"]: tuple(h["neighbours"]) for h in _BOARD["hexes"] if h["territory"]}
SEA_SIDES: dict[str, int] = {h["id"]: h["sea_sides"] for h in _BOARD["hexes"]}
CORNER_SITES: dict[str, tuple[str, ...]] = {h["id"]: tuple(h["sites"]) for h in _BOARD["hexes"]}
SITES: tuple[str, ...] = tuple(s["id"] for s in _BOARD["sites"])
SITE_TERRITORIES: dict[str, tuple[str, ...]] = {
    s["id"]: tuple(s["territories"]) for s in _BOARD["sites"]}
ORDER: dict[str, int] = {h: i for i, h in enumerate(HEXES)}
