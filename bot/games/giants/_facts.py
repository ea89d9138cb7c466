"""The few Giants numbers a phone user needs now, one short line each, for the status embed.

Made from the public view only: who owns an erected moai counts only where everyone may know it
(``running_score=yes``, or once the game is over), so a seat's own view gives the same lines.
"""

from __future__ import annotations

from typing import Any

from render.i18n import t
from rules.giants.state import OPTIONS

ROUND_CAP = next(o.default for o in OPTIONS if o.name == "round_limit")
"""The default round limit: a safety net against stalled games, not the game's length."""


def _names(view: dict[str, Any], lang: str, names: dict[str, str]) -> dict[str, str]:
    return {s: names.get(s) or t(f"render.colour.{s}", lang) for s in view["seats"]}


def _join(parts: list[str]) -> str:
    return " · ".join(parts)


DICE_PHASES = ("draw", "bid", "choose")
"""The phases the dice matter to: they put the statues on offer that are bid for and chosen."""
SUPPLY_PHASES = ("place",)
"""The phase the supplies matter to: a placement takes headdresses, logs and rongo halves (the
moai left in the supply are the board's to show)."""


def facts(view: dict[str, Any], lang: str, names: dict[str, str]) -> list[str]:
    """The last round when the players set one (the default limit is a safety net, and the
    title says the round); while the statues are bid for and chosen, this round's dice and the
    statues still on offer (what the dice mean: once, in the first round's bids); while placing,
    what is left in the supplies (rongo included); the moai erected (per player when that is
    public; while placing, only then: the board shows them). Only what the decision at hand
    needs: the message fits a phone's first screen."""
    shown = _names(view, lang, names)
    limit = view["options"]["round_limit"]
    lines = [t("bot.giants.fact.round", lang, limit=limit)] if limit != ROUND_CAP else []
    dice, offer = view.get("dice"), view.get("offer") or []
    phase = view.get("phase")
    if dice and not view["finished"] and phase in DICE_PHASES:
        faces = " ".join(str(f) for f in dice)
        key = "bot.giants.fact.dice_key_first" if view["round"] == 1 else \
            "bot.giants.fact.dice_key"
        words = [t("bot.giants.fact.offer", lang, faces=faces,
                   sizes=" ".join(str(s) for s in offer)) if offer
                 else t("bot.giants.fact.dice", lang, faces=faces)]
        if phase != "choose" and view["round"] == 1:  # explained once, in the first round
            words.append(t(key, lang))
        lines.append(" ".join(words))
    if phase in SUPPLY_PHASES:  # the statues placed come from the offer, not the supply
        supply = view["supply"]
        lines.append(t("bot.compact.giants.supply_place", lang,
                       headdresses=supply["headdresses"], logs=supply["logs"],
                       rongo=supply["rongo"]))
    erected = [a for a in view["ahus"].values() if a["moai"]]
    public = view["finished"] or view["options"].get("running_score")
    if phase in SUPPLY_PHASES and not public:  # the board shows the moai erected
        return lines
    if public and erected:
        counts = _join([t("bot.giants.fact.seat_moai", lang, name=shown[s],
                          n=sum(1 for a in erected if a["owner"] == s))
                        for s in view["seats"]])
        lines.append(t("bot.giants.fact.erected_by", lang, counts=counts))
    else:
        lines.append(t("bot.giants.fact.erected", lang, n=len(erected)))
    return lines
