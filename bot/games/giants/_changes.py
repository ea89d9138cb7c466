"""What a Giants action changed on the board: the labels the table's image highlights.

Hexes where a figure was placed or a hex action taken, every hex of a transport path (its start
and its end included), the ahus where a moai was erected or crowned, reserved or peeked at, and
the quarries when statues join or leave them. Only what every player may know: an event marked
private to a seat (the sealed bid, what an urn still held, an owner seen by peeking) is skipped,
and the private part of an event is never read.
"""

from __future__ import annotations

from rules.core import Event, public_events
from rules.giants.board import AHUS, HEADDRESS_QUARRY, HEXES, MOAI_QUARRY

QUARRY_EVENTS = {"rolled": "sizes", "auction_closed": "returned", "statue_taken": "item"}
"""Events that put statues in the moai quarry's offer or take them out, with the detail that
says whether any moved (none rolled, none returned: the quarry stays as it was)."""
_HEXES = frozenset(HEXES)
_AHUS = frozenset(AHUS)


def _quarry(item: object) -> str | None:
    """The quarry an item goes back to, from its id (``moai12``, ``hat3``)."""
    if not isinstance(item, str):
        return None
    if item.startswith("moai"):
        return MOAI_QUARRY
    return HEADDRESS_QUARRY if item.startswith("hat") else None


def changed(events: list[Event]) -> set[str]:
    """The board labels (hexes and ahus) the events touched."""
    labels: set[object] = set()
    for event in public_events(events):
        kind = event.get("kind")
        if kind in ("placed", "hex_action"):
            labels.add(event.get("hex"))
            gained = event.get("gained")
            if isinstance(gained, dict):
                labels.add(gained.get("reserved"))
        elif kind == "moved":
            labels.update(event.get("path") or ())
        elif kind in ("erected", "crowned", "peeked"):
            labels.add(event.get("ahu"))
        elif kind in QUARRY_EVENTS and event.get(QUARRY_EVENTS[kind], True):
            labels.add(MOAI_QUARRY)
        elif kind == "endround_resolved":
            marks = event.get("marks") or {}
            labels.update(_quarry(i) for items in marks.values() for i in items)
    return {label for label in labels
            if isinstance(label, str) and (label in _HEXES or label in _AHUS)}
