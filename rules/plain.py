"""Copies of plain data: the dicts, lists and scalars the engines' states and JSON are made of.

``copy.deepcopy`` is general and slow (a memo, a dispatch per object). The engines' states hold
only dicts with string keys, lists, tuples and the immutable scalars below, with no object
reachable twice, so a copy can walk them directly and share whatever is immutable. Engines whose
state has a fixed shape copy each field by that shape (much faster still) with :func:`rows` and
:func:`columns`; :func:`clone` is the generic walk, for irregular or untrusted data.
"""

from __future__ import annotations

from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")

SCALARS: frozenset[type] = frozenset({str, int, float, bool, type(None)})
"""Immutable leaves: shared, never copied."""


def clone(value: Any) -> Any:
    """A deep copy of plain data that shares no dict or list with ``value``.

    Scalars are shared, and so is a tuple whose items are all immutable. Anything else (a set,
    an object) raises ``TypeError``: plain data never holds one, and sharing it would be wrong.
    """
    kind = type(value)
    if kind is dict:
        out = value.copy()
        for key, item in out.items():
            if type(item) not in SCALARS:
                out[key] = clone(item)
        return out
    if kind is list:
        out = value.copy()
        for i, item in enumerate(out):
            if type(item) not in SCALARS:
                out[i] = clone(item)
        return out
    if kind in SCALARS:
        return value
    if kind is tuple:
        copies = tuple(clone(item) for item in value)
        return value if all(c is v for c, v in zip(copies, value, strict=True)) else copies
    raise TypeError(f"not plain data: {kind.__name__}")


def rows(table: dict[K, dict[str, V]]) -> dict[K, dict[str, V]]:
    """A copy of a table of flat rows (each row a dict of scalars)."""
    return {key: row.copy() for key, row in table.items()}


def columns(table: dict[K, list[V]]) -> dict[K, list[V]]:
    """A copy of a table of flat lists (each a list of scalars)."""
    return {key: items.copy() for key, items in table.items()}
