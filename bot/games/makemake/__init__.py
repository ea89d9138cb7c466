"""Make Make on Discord: Moai and Tangata Manu choices get buttons, every other decision is
made by taps in steps (where, then how many); events read as sentences."""

from __future__ import annotations

from typing import Any

from bot.games._ui import GameUI, places_in
from bot.games.makemake import _changes, _facts, _moves, _steps
from render import makemake as art
from render.i18n import has, t
from rules.core import Event

PLACES = frozenset(art.HEX_XY) | frozenset(art.SITE_XY)
"""The territories and sites of the board: what a focus picture can show."""


class MakeMakeUI(GameUI):
    name = "makemake"
    choice_phases = frozenset({"moai", "manu"})
    public_lines = True  # open information (rules spec section 7)
    has_chance = False  # no dice, no cards: nothing for a seed to draw

    def changed(self, events: list[Event]) -> set[str]:
        return _changes.changed(events)

    def move_words(self, notation: str, lang: str) -> str:
        return _moves.words(notation, lang)

    def move_parts(self, kind: str, notation: str) -> tuple[str, ...]:
        return _steps.parts(notation)

    def part_prompt(self, kind: str, chosen: tuple[str, ...], lang: str) -> str:
        return _steps.prompt(kind, chosen, lang)

    def part_label(self, kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
        return _steps.label(chosen, part, lang)

    def part_group(self, kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
        return _steps.group(chosen, part, lang)

    def facts(self, view: dict[str, Any], lang: str, names: dict[str, str]) -> list[str]:
        return _facts.facts(view, lang, names)

    def focus_places(self, kind: str, view: dict[str, Any], legal: list[str]) -> list[str]:
        """The territories and sites the legal moves name."""
        return places_in(legal, PLACES)

    def stage(self, view: dict[str, Any]) -> str:
        """Each player's turn is a stage (their Moai and Tangata Manu choices included)."""
        return f"{view.get('round')}:{view.get('active')}"

    def stage_name(self, view: dict[str, Any], lang: str) -> str:
        active = str(view.get("active"))
        key = f"bot.colour.{active}"
        return t("bot.makemake.stage.turn", lang, who=t(key, lang) if has(key, lang) else active)

    def describe(self, event: Event, lang: str, names: dict[str, str]) -> str | None:
        kind = event.get("kind")
        params = self.params(event, names)
        params["with_chief"] = t("bot.makemake.with_chief", lang) if event.get("chief") else ""
        if kind == "choice":
            return t(f"bot.makemake.event.choice_{event.get('choice')}", lang, **params)
        if kind == "makemake" and event.get("previous") is None:
            return t("bot.makemake.event.makemake_first", lang, **params)
        if kind in self.quiet_events or not has(f"bot.makemake.event.{kind}", lang):
            return None
        return t(f"bot.makemake.event.{kind}", lang, **params)


UI = MakeMakeUI()
