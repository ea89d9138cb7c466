"""Giants: carving and raising moai on Easter Island (``../shared/rules/giants.md``)."""

from rules.core import every_line_public
from rules.giants.actions import (
    COLOURS,
    Action,
    Bid,
    Dice,
    Done,
    EndRound,
    Mark,
    Move,
    Pass,
    Peek,
    Place,
    Rongo,
    Special,
    Take,
    parse,
)
from rules.giants.auction import chance, roll
from rules.giants.engine import apply, canonical, pending, result
from rules.giants.legal import legal
from rules.giants.state import (
    MAX_SEATS,
    MIN_SEATS,
    NAME,
    OPTIONS,
    State,
    from_json,
    new,
    options_of,
    seats_of,
    to_json,
)
from rules.giants.view import view

public_line = every_line_public
"""Every record line is public (sealed submissions aside: their events mark them)."""

__all__ = [
    "COLOURS", "MAX_SEATS", "MIN_SEATS", "NAME", "OPTIONS", "Action", "Bid", "Dice", "Done",
    "EndRound", "Mark", "Move", "Pass", "Peek", "Place", "Rongo", "Special", "State", "Take",
    "apply", "canonical", "chance", "from_json", "legal", "new", "options_of", "parse", "pending",
    "public_line",
    "result", "roll", "seats_of", "to_json", "view",
]
