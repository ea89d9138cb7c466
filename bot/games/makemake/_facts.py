"""The few Make Make numbers a phone user needs now, one short line each, for the status embed.

Made from the public view only (Make Make has no secrets, but the rule is the same everywhere).
"""

from __future__ import annotations

from typing import Any

from render.i18n import t
from rules.makemake.engine import OPTIONS

GOAL = 6
"""Progress that wins: Make Make and all five Tangata Manu on the board."""
ROUND_CAP = next(o.default for o in OPTIONS if o.name == "round_limit")
"""The default round limit: a safety net against stalled games, not the game's length."""


def _names(view: dict[str, Any], lang: str, names: dict[str, str]) -> dict[str, str]:
    return {s: names.get(s) or t(f"render.colour.{s}", lang) for s in view["seats"]}


def facts(view: dict[str, Any], lang: str, names: dict[str, str]) -> list[str]:
    """The last round when the players set one (the default limit is a safety net, and the
    title says the round), Moai left, who holds Make Make, each player's progress."""
    shown = _names(view, lang, names)
    holder = view.get("makemake")
    progress = " · ".join(t("bot.makemake.fact.seat_progress", lang, name=shown[s],
                            progress=view["scores"][s], goal=GOAL) for s in view["seats"])
    limit = view["options"]["round_limit"]
    return [
        *([t("bot.makemake.fact.round", lang, limit=limit)] if limit != ROUND_CAP else []),
        t("bot.makemake.fact.moai", lang, n=view["moai_left"]),
        (t("bot.makemake.fact.holder", lang, name=shown[holder]) if holder in shown
         else t("bot.makemake.fact.centre", lang)),
        t("bot.makemake.fact.progress", lang, scores=progress),
    ]
