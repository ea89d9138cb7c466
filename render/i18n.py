"""The one translation function. Every user-facing string goes through :func:`t`.

Catalogues are flat JSON files in ``data/i18n/<lang>/*.json`` (one file per area: rules of each
game, bot, images) mapping message keys to templates with ``{name}`` placeholders. A key missing
in a language falls back to English, then to the key itself, so a missing translation is visible
but never crashes a game.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from rules.core import IllegalAction

I18N_DIR = Path(__file__).resolve().parent.parent / "data" / "i18n"
LANGUAGES = ("en", "es", "zh", "zh-TW", "ru")
"""Catalogue languages: ``zh`` is Simplified Chinese, ``zh-TW`` Traditional Chinese (Taiwan)."""
DEFAULT = "en"
LIST_SEPARATOR = {"zh": "、", "zh-TW": "、"}
"""How a list given as a parameter is joined, where a language differs from ", "."""


@cache
def catalogue(lang: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for path in sorted((I18N_DIR / lang).glob("*.json")):
        merged.update(json.loads(path.read_text(encoding="utf-8")))
    return merged


TRADITIONAL_CHINESE = frozenset({"tw", "hk", "mo", "hant"})
"""Subtags of a Chinese locale written in Traditional characters: Taiwan's catalogue serves them."""


def language(locale: str | None) -> str:
    """A Discord locale such as ``es-ES``, ``zh-CN`` or ``zh-TW`` -> one of LANGUAGES.

    Chinese goes by its script: Taiwan, Hong Kong, Macau and ``zh-Hant`` get Traditional
    (``zh-TW``), every other Chinese locale Simplified (``zh``).
    """
    if not locale:
        return DEFAULT
    tag = str(locale).split(".")[0].split("@")[0]  # a system locale's ``.UTF-8`` or ``@euro``
    base, *subtags = tag.replace("_", "-").lower().split("-")
    if base == "zh":
        return "zh-TW" if TRADITIONAL_CHINESE & set(subtags) else "zh"
    return base if base in LANGUAGES else DEFAULT


def has(key: str, lang: str = DEFAULT) -> bool:
    return key in catalogue(lang) or key in catalogue(DEFAULT)


def t(key: str, lang: str = DEFAULT, /, **params: Any) -> str:
    template = catalogue(lang).get(key) or catalogue(DEFAULT).get(key)
    if template is None:
        return key
    shown = {k: _show(v, lang) for k, v in params.items()}
    try:
        return template.format(**shown)
    except (KeyError, IndexError, ValueError):
        return template


def _show(value: Any, lang: str = DEFAULT) -> str:
    if isinstance(value, list | tuple):
        return LIST_SEPARATOR.get(lang, ", ").join(str(v) for v in value)
    if value is None:
        return "-"
    return str(value)


def rule_error(game: str, error: IllegalAction, lang: str = DEFAULT) -> str:
    """A rejection in words: the game's own key first, then the keys shared by all games."""
    for key in (f"rules.{game}.{error.key}", f"rules.{error.key}"):
        if has(key, lang):
            return t(key, lang, **error.params)
    return str(error)
