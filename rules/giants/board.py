"""The Giants board (rules spec section 4), loaded from ``data/giants_board.json``.

The file holds no adjacency lists: neighbours follow the odd-r rule of spec 4.1, so a
transcription of the real board only has to list hexes and ahus.
"""

from __future__ import annotations

from rules.data import load

_BOARD = load("giants_board.json")

HEXES: tuple[str, ...] = tuple(h["label"] for h in _BOARD["hexes"])
"""Every land label, in the file's order (north to south, west to east)."""
COORDS: dict[str, tuple[int, int]] = {h["label"]: (h["col"], h["row"]) for h in _BOARD["hexes"]}
KIND: dict[str, str] = {h["label"]: h["kind"] for h in _BOARD["hexes"]}
FOREST_LOGS: dict[str, int] = {h["label"]: h["logs"] for h in _BOARD["hexes"]
                               if h["kind"] == "forest"}
FOREST: tuple[str, ...] = tuple(_BOARD["forest"])
MOAI_QUARRY: str = _BOARD["moai_quarry"]
HEADDRESS_QUARRY: str = _BOARD["headdress_quarry"]
VILLAGE: str = _BOARD["village"]
HUT: str = _BOARD["hut"]

AHUS: tuple[str, ...] = tuple(a["id"] for a in _BOARD["ahus"])
AHU_NAMES: dict[str, str] = {a["id"]: a["name"] for a in _BOARD["ahus"]}
AHU_HEXES: dict[str, tuple[str, ...]] = {a["id"]: tuple(a["hexes"]) for a in _BOARD["ahus"]}
BLACK: dict[str, int] = {a["id"]: a["black"] for a in _BOARD["ahus"]}
RED: dict[str, int] = {a["id"]: a["red"] for a in _BOARD["ahus"]}
AHUS_AT: dict[str, tuple[str, ...]] = {
    h: tuple(a for a in AHUS if h in AHU_HEXES[a]) for h in HEXES}
"""The ahus each hex serves, in board order."""

ORDER: dict[str, int] = {h: i for i, h in enumerate(HEXES)}
_AT: dict[tuple[int, int], str] = {c: h for h, c in COORDS.items()}


def _offsets(row: int) -> tuple[tuple[int, int], ...]:
    if row % 2 == 0:
        return ((1, 0), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1))
    return ((1, 0), (1, -1), (0, -1), (-1, 0), (0, 1), (1, 1))


def _neighbours(label: str) -> tuple[str, ...]:
    col, row = COORDS[label]
    cells = ((col + dc, row + dr) for dc, dr in _offsets(row))
    return tuple(_AT[c] for c in cells if c in _AT)


NEIGHBOURS: dict[str, tuple[str, ...]] = {h: _neighbours(h) for h in HEXES}


def label_of(col: int, row: int) -> str:
    """Spreadsheet-style column letters plus the 1-based row (spec 4.1)."""
    letters = ""
    n = col + 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return f"{letters}{row + 1}"


def distances(start: str) -> dict[str, int]:
    """Fewest steps over land from ``start`` to every hex."""
    seen = {start: 0}
    frontier = [start]
    while frontier:
        nxt: list[str] = []
        for h in frontier:
            for n in NEIGHBOURS[h]:
                if n not in seen:
                    seen[n] = seen[h] + 1
                    nxt.append(n)
        frontier = nxt
    return seen
