"""Make Make on Discord: Moai and Tangata Manu choices get buttons; events read as sentences."""

from __future__ import annotations

from typing import Any

from bot.games import GameUI
from render.i18n import t
from rules.core import Event


class MakeMakeUI(GameUI):
    name = "makemake"
    choice_phases = frozenset({"moai", "manu"})
    public_lines = True  # open information (rules spec section 7)

    def describe(self, event: Event, lang: str, names: dict[str, str]) -> str | None:
        kind = event.get("kind")
        if kind == "choice":
            return t(f"bot.makemake.event.choice_{event.get('choice')}", lang,
                     **self.params(event, names))
        if kind == "makemake" and event.get("previous") is None:
            return t("bot.makemake.event.makemake_first", lang, **self.params(event, names))
        return super().describe(event, lang, names)

    def params(self, event: Event, names: dict[str, str]) -> dict[str, Any]:
        out = super().params(event, names)
        out["with_chief"] = " + chief" if event.get("chief") else ""
        return out


UI = MakeMakeUI()
