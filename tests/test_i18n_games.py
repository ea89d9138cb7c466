"""Whole games in all five languages through the simulated Discord: every text the bot sends
(channel, threads, DMs, ephemerals, buttons, selects, autocomplete) is in the game's language,
with no English outside notation (but in English), no key or placeholder left unfilled and no
"(s)" standing in for a plural; and the channel and DM transcripts say moves in words, with
notation only in what answers ``/play`` and in one "as notation: …" line.

The players' Discord locale is the game's language, so what only they see is in it too.
"""

from __future__ import annotations

import re

import pytest

import bot.adapter.outbox
from render.i18n import t
from scripts import table_report
from tests.helpers.giganten_table import small_board
from tests.helpers.notation import leaks, notation_in
from tests.helpers.words import english_words, locale_words

GAMES = {"makemake": ["round_limit=3"], "giants": ["round_limit=2"], "giganten": []}
HUMANS = {"makemake": 3, "giants": 3, "giganten": 2}
"""Humans at each table, the other seats AI (four seats in all): Giganten, played to its end
with no round limit, with two (one with open DMs, one with closed DMs), so that its five
whole games stay within the suite's time."""
LOCALES = {"en": "en-US", "es": "es-ES", "ru": "ru", "zh-CN": "zh-CN", "zh-TW": "zh-TW"}
KEY = re.compile(r"\b(?:bot|render|rules|term|count)\.[a-z_]+\.[a-z_.]+")
PLACEHOLDER = re.compile(r"\{[a-z_]+(?::[a-z_.]+)?\}")
PLAYERS = re.compile(r"\bplayer\d+\b")
"""The players' display names (``scripts/table_report.py`` names them so): theirs, not the
bot's words, though the table names each seat's player."""


def problems(texts: list[str], lang: str) -> list[tuple[str, str]]:
    allowed = locale_words(lang)
    found = []
    for text in texts:
        if lang != "en" and (words := english_words(PLAYERS.sub(" ", text), allowed, lang)):
            found.append((f"English {sorted(words)}", text))
        if KEY.search(text) or PLACEHOLDER.search(text):
            found.append(("unfilled", text))
        if "(s)" in text:
            found.append(("(s)", text))
    return found


@pytest.mark.parametrize("lang", LOCALES)
@pytest.mark.parametrize("game", GAMES)
async def test_a_whole_game_speaks_one_language(game: str, lang: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text of a whole game; its boards are stand-ins (drawing hundreds of real ones
    would make fifteen games slow: the pictures' own words are checked in every language by
    tests/test_render_languages.py)."""
    monkeypatch.setitem(bot.adapter.outbox.RENDERERS, game, small_board)
    texts: list[str] = []
    shown: list[tuple[str, str]] = []
    report = await table_report.run(game, HUMANS[game], 4 - HUMANS[game], 1, lang, GAMES[game],
                                    texts=texts,
                                    locale=LOCALES[lang], shown=shown)
    assert report["finished"]
    assert len(texts) > 50
    assert problems(texts, lang) == []
    assert any(where == "play" for where, _ in shown), "the humans also typed /play"
    assert sorted(set(leaks(shown, lang))) == []


def test_the_check_finds_english_and_gaps() -> None:
    found = problems(["Solo tienes 2 markers tras tu pantalla", "la partida está en el paso place",
                      "Ход: {who}", "bot.giants.phase.bid", "2 ficha(s)",
                      "Escribe `place worker K8`"], "es")
    assert [what for what, _ in found] == ["English ['markers']", "English ['place']",
                                           "unfilled", "English ['bid', 'phase']", "unfilled",
                                           "(s)"]
    assert problems(["你的屏风后只有2个markers"], "zh-TW")


def test_the_check_finds_notation_outside_play() -> None:
    assert notation_in("Ход сделан: `place B5 2`", "ru") == ["place B5 2"]
    assert notation_in("已執行：loco 9", "zh-TW") == ["loco 9"]
    assert notation_in("✅ Handed in for game #1: `bid 1m 1w sorcerer`.", "en") == [
        "bid 1m 1w sorcerer"]
    assert notation_in("`endround` keeps everything as it is", "en") == ["endround"]
    assert notation_in("Now: **Red** placed 2 workers on K8 with 2 logs; `round_limit=3`",
                       "en") == []
    assert notation_in("move moai1 to M8, erect it on ahu tongariki", "en") == []
    assert notation_in(t("bot.words.as_notation", "es", line="place worker K8"), "es") == []
    assert leaks([("play", "Played: `place D5 1 chief`"),
                  ("table", "sell 1 (paying automatically)")], "en") == [
        ("sell 1", "sell 1 (paying automatically)")]
