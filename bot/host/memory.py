"""The garbage collector, tuned for a process that holds many games.

A running bot keeps every live game in memory: states, logs, views, in all some millions of
objects that live for hours. CPython's collector scans all of them again and again: with its
default thresholds, 500 live games cost several seconds of CPU a minute in collections, and
a full one stops the event loop for hundreds of milliseconds (every game's move waits).
Nearly all garbage here is freed at once by reference counting; the collector is only for
the rare cycle. So a serving process (``python -m bot run``) collects young objects after
:data:`THRESHOLDS` allocations rather than 700, and freezes what it loaded at start-up
(:func:`settle`): the games it loaded are never scanned again. Tests, which build many bots
in one process, keep Python's defaults.
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 20)
"""Allocations before a young collection; young collections before a middle one; middle
ones before a full one (which Python also defers until a quarter of the old objects is
new)."""

_tuned = False


def collect_less() -> None:
    """Tune this process's collector for serving (see the module's docstring)."""
    global _tuned
    gc.set_threshold(*THRESHOLDS)
    _tuned = True


def settle() -> None:
    """After the start-up's loading: what is alive now is moved out of the collector's sight
    (``gc.freeze``), in a process tuned by :func:`collect_less` only."""
    if _tuned:
        gc.freeze()
