"""Make Make decisions by taps: where (to place or withdraw), then how many with or without the
chief as one step; the Moai's hex; the Tangata Manu sites one by one.

The parts joined by spaces are the notation (``place B2`` + ``3 chief``); every word comes from
the ``bot.makemake.taps.*`` keys, and the hexes are grouped by row when more than 25 are legal.
"""

from __future__ import annotations

from render.i18n import t

_JOINED = ("place", "withdraw", "moai")
"""Verbs that make one decision with their hex."""


def parts(notation: str) -> tuple[str, ...]:
    """``place B2 3 chief`` -> ``("place B2", "3 chief")``; ``withdraw B2``, ``moai B2`` and
    ``pass`` are one part; ``manu S01 S05`` -> ``("manu", "S01", "S05")``."""
    words = notation.split()
    if words and words[0] in _JOINED and len(words) >= 2:
        rest = " ".join(words[2:])
        return (f"{words[0]} {words[1]}", rest) if rest else (f"{words[0]} {words[1]}",)
    return tuple(words)


def prompt(kind: str, chosen: tuple[str, ...], lang: str) -> str:
    """The question of the step after ``chosen``."""
    if not chosen:
        return t(f"bot.makemake.taps.ask.{kind if kind in ('moai', 'manu') else 'where'}",
                 lang)
    if chosen[0].startswith("place "):
        return t("bot.makemake.taps.ask.how_many", lang, hex=chosen[0].split()[1])
    return t("bot.makemake.taps.ask.manu" if len(chosen) == 1 else "bot.makemake.taps.ask.site",
             lang)


def label(chosen: tuple[str, ...], part: str, lang: str) -> str:
    """One option in words: a hex to place on or withdraw from, an amount, a site."""
    words = part.split()
    if not chosen:
        if words[0] in _JOINED and len(words) == 2:
            return t(f"bot.makemake.taps.{words[0]}", lang, hex=words[1])
        if words == ["pass"]:
            return t("move.makemake.pass", lang)
        return part
    if chosen[0].startswith("place ") and words and words[0].isdecimal():
        count = int(words[0])
        if "chief" in words[1:]:
            return t("bot.makemake.taps.chief_alone", lang) if count == 0 else \
                t("bot.makemake.taps.tokens_chief", lang, count=count)
        return t("bot.makemake.taps.tokens", lang, count=count)
    if chosen[0] == "manu":
        return t("bot.makemake.taps.site", lang, site=part)
    return part


def group(chosen: tuple[str, ...], part: str, lang: str) -> str:
    """A hex's row (``B2`` -> "Row B"), when a step lists more than 25 hexes."""
    words = part.split()
    if not chosen and len(words) == 2 and words[1][:1].isalpha():
        return t("bot.makemake.taps.row", lang, row=words[1][0])
    return ""
