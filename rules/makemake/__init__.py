"""Make Make: clans fighting for Rapa Nui (``../shared/rules/makemake.md``)."""

from rules.core import every_line_public
from rules.makemake.actions import Action, Manu, Moai, Pass, Place, Withdraw, parse
from rules.makemake.engine import (
    COLOURS,
    MAX_SEATS,
    MIN_SEATS,
    NAME,
    OPTIONS,
    State,
    apply,
    canonical,
    chance,
    from_json,
    legal,
    new,
    options_of,
    pending,
    result,
    seats_of,
    to_json,
    view,
)

public_line = every_line_public
"""Every record line is public (sealed submissions aside: their events mark them)."""

__all__ = [
    "COLOURS", "MAX_SEATS", "MIN_SEATS", "NAME", "OPTIONS", "Action", "Manu", "Moai", "Pass",
    "Place", "State", "Withdraw", "apply", "canonical", "chance", "from_json", "legal", "new",
    "options_of", "parse", "pending", "public_line", "result", "seats_of", "to_json", "view",
]
