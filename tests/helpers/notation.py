"""Notation where a player reads words: what a transcript must not hold outside ``/play``.

Players read the move in words; the notation (``place B5 2``, ``loco 9``) belongs to ``/play``
(its autocomplete and its answers), the records, and one "as notation: …" line for those who
type. A text holds notation when a span of it in backticks, or a run of plain ASCII words in it,
is a whole action that one of the games' parsers reads (so ``place 2 workers on K8`` is words,
``place worker K8 2logs`` is notation, and ``round_limit=3`` is neither).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from render.i18n import t
from rules.core import IllegalAction
from rules.registry import GAME_NAMES, game_module

TICKED = re.compile(r"`([^`\n]+)`")
RUN = re.compile(r"(?<![\w=+-])[a-z]+(?: [A-Za-z0-9][\w=,+:-]*)+")
"""A run of ASCII words that starts as a verb does (lower case) and goes on with arguments."""


def parses(text: str) -> bool:
    """Whether ``text`` (maybe after ``#id`` and a colour) is an action of some game."""
    text = " ".join(text.split())
    if not text:
        return False
    candidates = {text, text.split(" ", 1)[-1] if text.startswith("#") else text}
    for name in GAME_NAMES:
        module = game_module(name)
        for candidate in list(candidates):
            words = candidate.split(" ", 1)
            tail = [words[1]] if len(words) == 2 and words[0] in module.COLOURS else []
            for line in (candidate, *tail):
                try:
                    module.parse(line)
                except IllegalAction:
                    continue
                return True
    return False


def notation_in(text: str, lang: str) -> list[str]:
    """The notation ``text`` holds, but for an "as notation: …" line of ``lang``."""
    marker = t("bot.words.as_notation", lang, line="").split("`")[0].strip()
    found: list[str] = []
    for line in text.splitlines():
        if marker and marker in line:
            continue
        found += [span for span in TICKED.findall(line) if parses(span)]
        bare = TICKED.sub(" ", line)
        found += [run for run in RUN.findall(bare) if parses(run)]
    return found


def leaks(shown: Iterable[tuple[str, str]], lang: str) -> list[tuple[str, str]]:
    """(notation, text) for each text shown outside ``/play`` that holds notation."""
    return [(found, text) for where, text in shown if where != "play"
            for found in notation_in(text, lang)]
