"""What a Giganten action changed on the board: the labels the table's image highlights.

Spaces: every space a truck drove through (where it stopped included), a tile looked at, a
derrick built, a derrick that produced. Companies (as the notation names them): a price moved by
the die or a special, a chip of oil added, chips sold or sent back over the storage limit. Only
what every player may know: an event marked private to a seat is skipped, and the private part
of an event (a dealt hand, a peeked value) is never read.
"""

from __future__ import annotations

from rules.core import Event, public_events
from rules.giganten.board import COMPANIES, LABELS

SPACE_EVENTS = frozenset({"peek", "build", "produce"})
COMPANY_EVENTS = frozenset({"price", "oil", "sell", "overfill"})
_LABELS = frozenset(LABELS) | frozenset(COMPANIES)


def changed(events: list[Event]) -> set[str]:
    """The board labels (spaces and companies) the events touched."""
    labels: set[object] = set()
    for event in public_events(events):
        kind = event.get("kind")
        if kind == "drive":
            labels.update(event.get("path") or ())
        elif kind in SPACE_EVENTS:
            labels.add(event.get("label"))
        elif kind in COMPANY_EVENTS:
            labels.add(event.get("company"))
        elif kind == "prices":
            labels.update(event.get("prices") or {})
    return {label for label in labels if isinstance(label, str) and label in _LABELS}
