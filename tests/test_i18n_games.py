"""Whole games in Spanish, Russian and both Chinese scripts through the simulated Discord: every
text the bot sends (channel, threads, DMs, ephemerals, buttons, selects, autocomplete) is in the
game's language, with no English outside notation, no key or placeholder left unfilled and no
"(s)" standing in for a plural.

The players' Discord locale is the game's language, so what only they see is in it too.
"""

from __future__ import annotations

import re

import pytest

from scripts import table_report
from tests.helpers.words import english_words, locale_words

GAMES = {"makemake": ["round_limit=3"], "giants": ["round_limit=2"], "giganten": []}
LOCALES = {"es": "es-ES", "ru": "ru", "zh-CN": "zh-CN", "zh-TW": "zh-TW"}
KEY = re.compile(r"\b(?:bot|render|rules|term|count)\.[a-z_]+\.[a-z_.]+")
PLACEHOLDER = re.compile(r"\{[a-z_]+(?::[a-z_.]+)?\}")


def problems(texts: list[str], lang: str) -> list[tuple[str, str]]:
    allowed = locale_words(lang)
    found = []
    for text in texts:
        if words := english_words(text, allowed, lang):
            found.append((f"English {sorted(words)}", text))
        if KEY.search(text) or PLACEHOLDER.search(text):
            found.append(("unfilled", text))
        if "(s)" in text:
            found.append(("(s)", text))
    return found


@pytest.mark.parametrize("lang", LOCALES)
@pytest.mark.parametrize("game", GAMES)
async def test_a_whole_game_speaks_one_language(game: str, lang: str) -> None:
    texts: list[str] = []
    report = await table_report.run(game, 3, 1, 1, lang, GAMES[game], texts=texts,
                                    locale=LOCALES[lang])
    assert report["finished"]
    assert len(texts) > 50
    assert problems(texts, lang) == []


def test_the_check_finds_english_and_gaps() -> None:
    found = problems(["Solo tienes 2 markers tras tu pantalla", "la partida está en el paso place",
                      "Ход: {who}", "bot.giants.phase.bid", "2 ficha(s)",
                      "Escribe `place worker K8`"], "es")
    assert [what for what, _ in found] == ["English ['markers']", "English ['place']",
                                           "unfilled", "English ['bid', 'phase']", "unfilled",
                                           "(s)"]
    assert problems(["你的屏风后只有2个markers"], "zh-TW")
