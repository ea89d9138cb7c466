"""What a Make Make action changed on the board: the labels the table's image highlights.

Territories (a claim, a capture, a withdrawal, a Moai raised) and sites (Tangata Manu placed or
removed); the centre when Make Make first leaves it. Only what every player may know: an event
marked private to a seat is skipped, and the private part of an event is never read.
"""

from __future__ import annotations

from rules.core import Event, public_events
from rules.makemake.board import CENTRE

HEX_EVENTS = frozenset({"claim", "capture", "withdraw", "moai"})


def changed(events: list[Event]) -> set[str]:
    """The board labels the events touched."""
    labels: set[str] = set()
    for event in public_events(events):
        kind = event.get("kind")
        if kind in HEX_EVENTS and isinstance(event.get("hex"), str):
            labels.add(event["hex"])
        elif kind == "manu_placed":
            labels.update(s for s in event.get("sites") or () if isinstance(s, str))
        elif kind == "manu_removed" and isinstance(event.get("site"), str):
            labels.add(event["site"])
        elif kind == "makemake" and event.get("previous") is None:
            labels.add(CENTRE)
    return labels
