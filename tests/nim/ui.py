"""Sealed Nim on Discord: the take is a secret choice made by DM (or the table's 🔒 button);
the facts are the pile; everything else is :class:`bot.games.GameUI`'s defaults."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.games import GameUI
from render.i18n import t
from tests.nim import render


class NimUI(GameUI):
    name = "nim"
    private_kinds = frozenset({"take"})
    has_chance = False

    def facts(self, view: dict[str, Any], lang: str, names: dict[str, str]) -> list[str]:
        return [t("bot.nim.pile", lang, count=view["pile"])]

    def screen_art(self) -> Callable[[dict[str, Any], str, str], bytes | None]:
        return render.screen

    def screen_key(self, view: dict[str, Any], seat: str) -> Any:
        return view.get("mine")

    def screen_text(self, view: dict[str, Any], seat: str, lang: str) -> str:
        mine = view.get("mine")
        return t("bot.nim.screen", lang, pile=view["pile"]) if mine is None else \
            t("bot.nim.screen_taken", lang, pile=view["pile"], count=mine)

    def move_words(self, notation: str, lang: str) -> str:
        words = notation.split()
        if len(words) == 2 and words[0] == "take" and words[1].isdecimal():
            return t("bot.nim.move.take", lang, count=int(words[1]))
        return notation


UI = NimUI()
