"""Make Make: clans fighting for Rapa Nui (``../shared/rules/makemake.md``)."""

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

__all__ = [
    "COLOURS", "MAX_SEATS", "MIN_SEATS", "NAME", "OPTIONS", "Action", "Manu", "Moai", "Pass",
    "Place", "State", "Withdraw", "apply", "canonical", "chance", "from_json", "legal", "new",
    "options_of", "parse", "pending", "result", "seats_of", "to_json", "view",
]
