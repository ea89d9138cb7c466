"""Slash-command strings in every language stay within what Discord accepts.

Which catalogue keys are names and which are descriptions is read from the bot's own code: a key
given to ``ls()`` as ``name=`` (or inside ``app_commands.rename``) is a command, group or option
name; as ``description=`` (or inside ``app_commands.describe``) it is a description; as the name
of an ``app_commands.Choice`` it is a choice name. The commands the real bot syncs to the
simulator, the very data Discord would receive with every localization, are checked too.

Discord's rules: a name has 1-32 characters, letters (lowercase where the script has case),
digits, ``-`` or ``_`` only (``^[-_\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``); a description
and a choice name have 1-100 characters.
"""

from __future__ import annotations

import ast
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.translator import CatalogueTranslator, ls
from render.i18n import LANGUAGES, catalogue

BOT_DIR = Path(__file__).resolve().parent.parent / "bot"
MAX_NAME = 32
MAX_TEXT = 100
LOCALES = {"es": discord.Locale.spain_spanish, "zh-CN": discord.Locale.chinese,
           "zh-TW": discord.Locale.taiwan_chinese, "ru": discord.Locale.russian}
"""One Discord locale per translated language (``language()`` maps the others to the same)."""


# --- which keys are names, descriptions and choices ----------------------------------------------

def _call_name(node: ast.expr) -> str:
    """``describe`` for ``app_commands.describe(...)``, ``ls`` for ``ls(...)``."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _ls_key(node: ast.expr) -> str | None:
    """The key of ``ls("some.key")``, or None for anything else."""
    if isinstance(node, ast.Call) and _call_name(node.func) == "ls" and node.args \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


def _roles(source: str) -> Iterator[tuple[str, str]]:
    """``(key, role)`` for each ``ls()`` key in ``source``: role is name, description or choice."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        called = _call_name(node.func)
        for keyword in node.keywords:
            key = _ls_key(keyword.value)
            if key is None:
                continue
            if called == "Choice" and keyword.arg == "name":
                yield key, "choice"
            elif called == "rename" or keyword.arg == "name":
                yield key, "name"
            elif called == "describe" or keyword.arg == "description":
                yield key, "description"
            else:
                yield key, "unknown"


def command_keys() -> dict[str, set[str]]:
    """Role -> the catalogue keys the bot's code uses in that role."""
    found: dict[str, set[str]] = {"name": set(), "description": set(), "choice": set(),
                                  "unknown": set()}
    for path in sorted(BOT_DIR.rglob("*.py")):
        for key, role in _roles(path.read_text(encoding="utf-8")):
            found[role].add(key)
    # A command key the code does not use yet is still checked, by the shape of its key.
    english = catalogue("en")
    used = set().union(*found.values())
    for key in english:
        if key.startswith("bot.cmd.") and key not in used:
            found["name" if key.endswith(".name") else "description"].add(key)
    return found


KEYS = command_keys()


# --- Discord's rules ------------------------------------------------------------------------------

def _name_char(char: str) -> bool:
    if char in "-_":
        return True
    if unicodedata.category(char)[0] in "LN":  # \p{L} and \p{N}
        return True
    return "\u0900" <= char <= "\u097f" or "\u0e00" <= char <= "\u0e7f"  # Devanagari, Thai


def name_problem(text: str) -> str | None:
    """Why Discord would refuse ``text`` as a command or option name, or None."""
    if not 1 <= len(text) <= MAX_NAME:
        return f"{len(text)} characters"
    if text != text.lower():
        return "not lowercase"
    bad = sorted({c for c in text if not _name_char(c)})
    return f"characters {bad}" if bad else None


def text_problem(text: str) -> str | None:
    """Why Discord would refuse ``text`` as a description or choice name, or None."""
    if not text.strip():
        return "empty"
    return f"{len(text)} characters" if len(text) > MAX_TEXT else None


# --- the rules themselves -------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "ok"), [
    ("play", True), ("round_limit", True), ("jugar-ya", True), ("новая", True), ("新游戏", True),
    ("ход2", True), ("Play", False), ("Новая", False), ("new game", False), ("", False),
    ("a" * 32, True), ("a" * 33, False), ("play!", False), ("b2:3", False)])
def test_the_name_rule(text: str, ok: bool) -> None:
    assert (name_problem(text) is None) == ok


def test_the_code_gives_every_key_a_known_role() -> None:
    assert KEYS["unknown"] == set()
    assert {"bot.cmd.game.name", "bot.cmd.play.name"} <= KEYS["name"]
    assert {"bot.cmd.play.description", "bot.cmd.play.notation"} <= KEYS["description"]
    assert not KEYS["name"] & KEYS["description"], "a key cannot be both name and description"


def test_every_command_key_is_in_the_english_catalogue() -> None:
    english = catalogue("en")
    used = KEYS["name"] | KEYS["description"] | KEYS["choice"]
    assert sorted(key for key in used if key not in english) == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_command_and_option_names_follow_discord_rules(lang: str) -> None:
    texts = catalogue(lang)
    wrong = {key: (texts[key], problem) for key in sorted(KEYS["name"]) if key in texts
             if (problem := name_problem(texts[key]))}
    assert wrong == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_descriptions_and_choice_names_fit(lang: str) -> None:
    texts = catalogue(lang)
    wrong = {key: (texts[key], problem)
             for key in sorted(KEYS["description"] | KEYS["choice"]) if key in texts
             if (problem := text_problem(texts[key]))}
    assert wrong == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_game_names_fit_as_choices(lang: str) -> None:
    """``/game new`` offers the games by name."""
    texts = catalogue(lang)
    games = {key: text for key, text in texts.items() if key.startswith("bot.game.")}
    assert games
    assert {key: text for key, text in games.items() if text_problem(text)} == {}


# --- what Discord receives ------------------------------------------------------------------------

def _strings(payload: dict[str, Any], path: str = "") -> Iterator[tuple[str, str, str, str]]:
    """``(where, kind, locale, text)`` for every name, description and choice name in a payload;
    locale is "" for the default (English) text."""
    where = f"{path}/{payload['name']}"
    kinds = [("name", "name")]
    if "description" in payload:
        kinds.append(("description", "description"))
    for field, kind in kinds:
        yield where, kind, "", payload[field]
        for locale, text in (payload.get(f"{field}_localizations") or {}).items():
            yield where, kind, locale, text
    for choice in payload.get("choices") or []:
        yield f"{where}={choice['value']}", "choice", "", choice["name"]
        for locale, text in (choice.get("name_localizations") or {}).items():
            yield f"{where}={choice['value']}", "choice", locale, text
    for option in payload.get("options") or []:
        yield from _strings(option, where)


@pytest.fixture
def payloads(simcord_env) -> list[dict[str, Any]]:
    """The slash commands as the bot synced them (through its translator) to the simulator."""
    return [command for scope in simcord_env.backend.commands.values()
            for command in scope.values()]


async def test_the_payload_sent_to_discord_is_valid(payloads: list[dict[str, Any]]) -> None:
    strings = [s for payload in payloads for s in _strings(payload)]
    assert {where for where, *_ in strings} >= {"/game", "/game/new", "/play", "/play/notation"}
    assert {locale for _, _, locale, _ in strings} >= {loc.value for loc in LOCALES.values()}
    wrong = [(where, kind, locale, text) for where, kind, locale, text in strings
             if (name_problem(text) if kind == "name" else text_problem(text))]
    assert wrong == []


async def test_taiwan_gets_traditional_chinese_and_china_simplified(
        payloads: list[dict[str, Any]]) -> None:
    game = next(payload for payload in payloads if payload["name"] == "game")
    described = game["description_localizations"]
    assert described["zh-TW"] == catalogue("zh-TW")["bot.cmd.game.description"] == "本頻道的桌遊"
    assert described["zh-CN"] == catalogue("zh-CN")["bot.cmd.game.description"] == "本频道的桌游"
    new = next(option for option in game["options"] if option["name"] == "new")
    assert new["description_localizations"]["zh-TW"] == "在本頻道開一局新遊戲"
    language = next(option for option in new["options"] if option["name"] == "language")
    assert [choice["value"] for choice in language["choices"]] == list(LANGUAGES)
    assert {"zh-CN", "zh-TW"} <= set(LANGUAGES)


LOCATIONS = {"name": app_commands.TranslationContextLocation.command_name,
             "description": app_commands.TranslationContextLocation.command_description,
             "choice": app_commands.TranslationContextLocation.choice_name}


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
async def test_no_translation_is_dropped(lang: str) -> None:
    """The translator leaves out what Discord would refuse, silently: here every translated
    command string must come through, so a wrong catalogue entry is seen."""
    texts = catalogue(lang)
    translator = CatalogueTranslator()
    dropped = {}
    for role, location in LOCATIONS.items():
        context = app_commands.TranslationContext(location=location, data=None)
        for key in sorted(KEYS[role]):
            if key in texts and await translator.translate(ls(key), LOCALES[lang],
                                                           context) != texts[key]:
                dropped[key] = texts[key]
    assert dropped == {}
