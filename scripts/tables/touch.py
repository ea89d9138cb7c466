"""How a human of the table report reaches a move by touch alone (``--touch-only``): what the
bot shows, read as a phone user reads it, and tapped.

A move is reached through one of the components the bot offers: a button of the move itself
(its custom_id ends with the notation, or names the legal action's number), a select whose
option's value is the move, an amount asked in a modal (the one thing a human may type), or a
choice by taps, whose every button's custom_id and option's value say which part of the move
it adds (:mod:`bot.table.steps`). The way through a choice by taps is planned over the legal
moves as the bot builds its steps (:func:`plan`); each planned tap is checked against what is
shown before it is made.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from bot.games import Chosen, GameUI, Step, guide

TAPS = ("k:", "ks:")
"""The custom_id prefixes of a choice by taps (buttons, selects)."""


def plan(ui: GameUI, kind: str, legal: Sequence[str], want: str,
         lang: str) -> list[tuple[int, str]] | None:
    """The taps that reach ``want`` through a choice by taps: per step, the number of the
    option and the part it adds ("" for a group). None when ``want`` is not among ``legal``."""
    if want not in legal:
        return None
    parts = ui.move_parts(kind, want)
    taps: list[tuple[int, str]] = []
    found = guide(ui, kind, legal, (), lang)
    while isinstance(found, Step):
        if found.groups:
            index = next(i for i, option in enumerate(found.options)
                         if parts[len(found.chosen)] in _inside(ui, kind, legal, found,
                                                                option.group, lang))
            taps.append((index, ""))
            found = guide(ui, kind, legal, found.chosen, lang, found.options[index].group)
            continue
        part = parts[len(found.chosen)]
        index = next(i for i, option in enumerate(found.options) if option.part == part)
        taps.append((index, part))
        found = guide(ui, kind, legal, (*found.chosen, part), lang)
    return taps


def _inside(ui: GameUI, kind: str, legal: Sequence[str], step: Step, group: str,
            lang: str) -> set[str]:
    """The parts a group of ``step`` holds (a group of one is taken at once: its part)."""
    inner = guide(ui, kind, legal, step.chosen, lang, group)
    at = len(step.chosen)
    if isinstance(inner, Chosen):
        return {ui.move_parts(kind, inner.notation)[at]}
    if inner.group == group:
        return {option.part for option in inner.options}
    return {inner.chosen[at]}


def rows(message: Any) -> list[list[dict[str, Any]]]:
    """A message's component rows as plain dicts (a stored message or a discord.py one)."""
    out = []
    for row in getattr(message, "components", []):
        if isinstance(row, dict):
            out.append(row.get("components", []))
        else:
            out.append([c.to_dict() for c in row.children])
    return out


def components(message: Any) -> list[dict[str, Any]]:
    return [c for row in rows(message) for c in row if not c.get("disabled")]


def tap_target(message: Any, index: int, part: str) -> tuple[str, str | None] | None:
    """The component (custom_id) and, for a select, the value that make the planned tap
    ``(index, part)`` on a choice by taps; None when the message shows no such option."""
    for c in components(message):
        cid = str(c.get("custom_id", ""))
        if not cid.startswith(TAPS):
            continue
        if c.get("type") == 3:
            for option in c.get("options", []):
                number, _, shown = str(option["value"]).partition(":")
                if number == str(index) and shown == part:
                    return cid, str(option["value"])
        elif cid.startswith("k:") and cid.split(":")[4] == "s":
            taps, _, shown = cid.split(":", 5)[5].partition(":")
            if taps.split(".")[-1] == str(index) and shown == part:
                return cid, None
    return None


def play_target(message: Any, want: str, legal: Sequence[str]) -> tuple[str, str | None] | None:
    """A component that plays ``want`` at once: a button whose custom_id ends with it or
    names its number among the legal actions, or a select option whose value is one of
    them; a choice by taps whose one move is ``want`` (a button with no taps yet)."""
    number = str(legal.index(want)) if want in legal else None
    for c in components(message):
        cid = str(c.get("custom_id", ""))
        if c.get("type") == 2:
            fields = cid.split(":")
            if cid.startswith("t:") and fields[3:4] == ["act"] and ":".join(fields[4:]) == want:
                return cid, None
            if cid.startswith("t:") and fields[3:4] == ["pick"] and fields[4:5] == [number]:
                return cid, None
            if cid.startswith("p:") and fields[4:5] == [f"a{number}"]:
                return cid, None
        elif c.get("type") == 3 and not cid.startswith(TAPS):
            for option in c.get("options", []):
                if option["value"] in (want, f"#{number}") or (
                        cid.startswith("ps:") and cid.split(":")[4] == "act"
                        and option["value"] == number):
                    return cid, str(option["value"])
    return None


def amount_button(message: Any) -> str | None:
    """The button that asks for an amount in a modal (``other``), if the message has one."""
    for c in components(message):
        cid = str(c.get("custom_id", ""))
        if c.get("type") == 2 and cid.startswith("t:") and cid.split(":")[3:4] == ["other"]:
            return cid
    return None


def percentile(values: Sequence[int], share: float) -> int:
    """The nearest-rank percentile (0 for no values)."""
    if not values:
        return 0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]
