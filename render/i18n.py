"""The one translation function. Every user-facing string goes through :func:`t`.

Catalogues are JSON files in ``data/i18n/<locale>/*.json`` (one file per area: rules of each
game, bot, images, moves; installed with the code in the package ``rapanui_data``), merged per
locale, mapping message keys to templates with ``{name}`` placeholders. A key missing in a
locale falls back to English, then to the key itself, so a missing translation is visible but
never crashes a game.

A template is a string or a **plural object**: the CLDR plural categories the locale needs
(``{"one": …, "few": …, "many": …, "other": …}``), chosen with Babel's plural rule for the locale
on the parameter that ``"#"`` names (``count`` when it names none). One sentence with two counts
inserts a counted phrase: ``{have:count.giants.marker}`` is the plural message
``count.giants.marker`` formatted with ``count=have``.

Each locale's ``glossary.json`` holds the game terms (``{"terms": {key: template}, "avoid":
{word: instead}}``): the terms join the catalogue, so every message and refusal draws its words
from one place; ``avoid`` lists words the locale never uses (checked by the tests).
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Mapping, Sequence
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from babel import Locale
from babel.numbers import format_decimal

from rules.core import IllegalAction
from rules.data import DATA_DIR
from rules.registry import entries, on_change

I18N_DIR: Traversable = DATA_DIR / "i18n"
"""One folder per locale, each holding that locale's catalogue files."""
LANGUAGES = ("en", "es", "ru", "zh-CN", "zh-TW")
"""The locales, named as Discord names them: ``zh-CN`` Simplified, ``zh-TW`` Traditional Chinese."""
DEFAULT = "en"
LIST_SEPARATOR = {"zh-CN": "、", "zh-TW": "、"}
"""How a list given as a parameter is joined, where a language differs from ", "."""
NAMES = {"en": "English", "es": "Español", "ru": "Русский", "zh-CN": "简体中文",
         "zh-TW": "繁體中文"}
"""Each locale in its own words (the language choice of ``/game new``)."""
GLOSSARY = "glossary.json"
COUNT = "#"
"""The key of a plural object that names its count parameter."""
CATEGORIES = ("zero", "one", "two", "few", "many", "other")
MAX_KEPT = 100_000
"""At most this many answers are kept by each of this module's small caches (counts and
templates come from a bounded set in practice; the bound keeps an odd caller from growing
them without end)."""

Template = str | dict[str, str]
COUNTED_PHRASE = re.compile(r"\{[^{}:]*:[^{}]+\}")
"""A placeholder with a counted phrase, ``{have:count.giants.marker}``."""


def catalogue_files(lang: str, folder: Traversable | None = None) -> list[Traversable]:
    """The catalogue files of ``lang`` under ``folder`` (the shared ones by default) in name
    order; none when it has no folder (a missing folder or file of the shared catalogues is
    reported at start by ``render.assets.problems``)."""
    place = (I18N_DIR if folder is None else folder) / lang
    if not place.is_dir():
        return []
    return sorted((path for path in place.iterdir() if path.name.endswith(".json")),
                  key=lambda path: path.name)


def game_folders() -> list[Traversable]:
    """The catalogue folders of the games that keep their words in a package of their own
    (their registry entry names it): a new game's words need no edit of the shared files."""
    return [files(game.catalogues) for game in entries() if game.catalogues]


@cache
def catalogue(lang: str) -> dict[str, Template]:
    """Every message of ``lang``: its files merged, the glossary's terms included, then each
    game's own catalogue files (read again when a game is registered)."""
    merged: dict[str, Template] = {}
    for path in catalogue_files(lang) + [path for folder in game_folders()
                                         for path in catalogue_files(lang, folder)]:
        data = json.loads(path.read_text(encoding="utf-8"))
        merged.update(data.get("terms", {}) if path.name == GLOSSARY else data)
    return merged


on_change(catalogue.cache_clear)


@cache
def avoided(lang: str) -> dict[str, str]:
    """Words ``lang`` never writes, each with the one it uses instead."""
    path = I18N_DIR / lang / GLOSSARY
    if not path.is_file():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8")).get("avoid", {}))


TRADITIONAL_CHINESE = frozenset({"tw", "hk", "mo", "hant"})
"""Subtags of a Chinese locale written in Traditional characters: Taiwan's catalogue serves them."""


def language(locale: str | None) -> str:
    """A Discord or system locale such as ``es-ES``, ``zh-CN`` or ``zh_TW.UTF-8`` -> a LANGUAGE.

    Chinese goes by its script: Taiwan, Hong Kong, Macau and ``zh-Hant`` get Traditional
    (``zh-TW``), every other Chinese locale Simplified (``zh-CN``).
    """
    if not locale:
        return DEFAULT
    tag = str(locale).split(".")[0].split("@")[0]  # a system locale's ``.UTF-8`` or ``@euro``
    base, *subtags = tag.replace("_", "-").lower().split("-")
    if base == "zh":
        return "zh-TW" if TRADITIONAL_CHINESE & set(subtags) else "zh-CN"
    return base if base in LANGUAGES else DEFAULT


@cache
def _babel_locale(lang: str) -> Locale:
    return Locale.parse(lang.replace("-", "_"))


_CATEGORY: dict[tuple[str, type, float], str] = {}
"""Plural categories found so far, by language, type and count: Babel works one out in tens
of microseconds, and a table asks for the same few counts over and over. The type is in the
key because ``1`` and ``1.0`` are equal but need not share a category (a written decimal
has visible fraction digits)."""


def plural_category(count: float, lang: str) -> str:
    """The CLDR plural category of ``count`` in ``lang`` (Babel's rule): one, few, many, other…"""
    key = (lang, type(count), count)
    found = _CATEGORY.get(key)
    if found is None:
        found = str(_babel_locale(lang).plural_form(count))
        if len(_CATEGORY) < MAX_KEPT:
            _CATEGORY[key] = found
    return found


@cache
def needed_categories(lang: str) -> frozenset[str]:
    """The categories a plural message of ``lang`` must hold: those of any whole count a game
    shows (0 to 10,000) and of a fraction, which is "other" everywhere."""
    return frozenset(plural_category(n, lang) for n in range(10_001)) | {"other"}


def has(key: str, lang: str = DEFAULT) -> bool:
    return key in catalogue(lang) or key in catalogue(DEFAULT)


def template_of(key: str, lang: str) -> tuple[Template, str] | None:
    """The template for ``key`` and the locale it came from (``lang``, else English)."""
    for where in (lang, DEFAULT):
        found = catalogue(where).get(key)
        if found is not None:
            return found, where
    return None


MAX_TEXTS = 20_000
"""Texts :func:`t` keeps per language (then it starts again): a table says the same few
hundred things after every move."""
_TEXTS: dict[str, tuple[tuple[Any, Any], dict[tuple[Any, ...], str]]] = {}
"""Per language: the catalogues (its own and English) the kept texts came from, and the texts
by key and parameters."""


def t(key: str, lang: str = DEFAULT, /, **params: Any) -> str:
    """The message ``key`` in ``lang`` with ``params`` filled in.

    A text whose parameters are all strings and whole numbers is kept, by key and parameters,
    while the catalogues it came from stay the same objects (a catalogue read again, as a test
    does, starts afresh): the table asks for the same texts after every move."""
    sources = (catalogue(lang), catalogue(DEFAULT))
    kept = _TEXTS.get(lang)
    if kept is None or kept[0][0] is not sources[0] or kept[0][1] is not sources[1] \
            or len(kept[1]) >= MAX_TEXTS:
        kept = _TEXTS[lang] = (sources, {})
    for value in params.values():
        kind = type(value)
        if kind is not str and kind is not int:  # 1, 1.0 and True are equal keys: only
            return _text(key, lang, params)      # exact strings and integers are kept
    memo = (key, *params.items())
    text = kept[1].get(memo)
    if text is None:
        text = kept[1][memo] = _text(key, lang, params)
    return text


def _text(key: str, lang: str, params: dict[str, Any]) -> str:
    found = template_of(key, lang)
    if found is None:
        return key
    template, where = found
    text = choose(template, params, where)
    shown = {k: _show(v, lang) for k, v in params.items()}
    try:
        if not _has_counted_phrase(text):  # the plain, much faster str.format
            return text.format(**shown)
        return _Formatter(lang, params).vformat(text, (), shown)
    except (KeyError, IndexError, ValueError, AttributeError):
        return text


_COUNTED: dict[str, bool] = {}


def _has_counted_phrase(text: str) -> bool:
    """Whether a template holds a counted phrase (remembered per template: the catalogues
    hold a few thousand)."""
    found = _COUNTED.get(text)
    if found is None:
        found = COUNTED_PHRASE.search(text) is not None
        if len(_COUNTED) < MAX_KEPT:
            _COUNTED[text] = found
    return found


def choose(template: Template, params: Mapping[str, Any], lang: str) -> str:
    """The form of ``template`` for the count among ``params`` (a string is its own form)."""
    if isinstance(template, str):
        return template
    count = _number(params.get(template.get(COUNT, "count")))
    form = template.get(plural_category(count, lang)) if count is not None else None
    return form if form is not None else template["other"]


def term(game: str, thing: str, lang: str = DEFAULT, /, **params: Any) -> str:
    """A game term from the glossary (``term.<game>.<thing>``), or ``thing`` itself: an engine
    word with no term is notation and shows as it is typed."""
    key = f"term.{game}.{thing}"
    return t(key, lang, **params) if has(key, lang) else thing


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        try:
            return float(value) if "." in value else int(value)
        except ValueError:
            return None
    return None


class _Formatter(string.Formatter):
    """``str.format`` plus ``{n:count.key}``: the plural phrase ``count.key`` for the number n."""

    def __init__(self, lang: str, raw: Mapping[str, Any]) -> None:
        self.lang = lang
        self.raw = raw

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]
                  ) -> tuple[Any, str]:
        self._current = field_name
        return super().get_field(field_name, args, kwargs)

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec and has(format_spec, self.lang):
            return t(format_spec, self.lang, count=self.raw.get(self._current, value))
        return super().format_field(value, format_spec)


STRONG_SEPARATOR = {"zh-CN": "；", "zh-TW": "；"}
"""How a list of items that hold commas themselves is joined, where a language differs from "; "."""


def join(items: Sequence[Any], lang: str = DEFAULT, strong: bool = False) -> str:
    """A list in running text, with the locale's separator (", ", "、"; "; ", "；")."""
    separator = STRONG_SEPARATOR.get(lang, "; ") if strong else LIST_SEPARATOR.get(lang, ", ")
    return separator.join(str(item) for item in items)


_NUMBER: dict[tuple[str, type, float], str] = {}
"""Numbers written so far, by language, type and value (Babel takes tens of microseconds for
each, and a table writes the same money and scores after every move)."""


def number(value: float, lang: str = DEFAULT) -> str:
    """A number as the locale writes it: 15,000 / 15.000 / 15 000, 1.5 / 1,5 (Babel, CLDR)."""
    key = (lang, type(value), value)
    found = _NUMBER.get(key)
    if found is None:
        found = str(format_decimal(value, locale=_babel_locale(lang)))
        if len(_NUMBER) < MAX_KEPT:
            _NUMBER[key] = found
    return found


def _show(value: Any, lang: str = DEFAULT) -> str:
    kind = type(value)
    if kind is str:  # the common cases first: names, labels, counts
        return value
    if kind is int:
        return str(value)
    if isinstance(value, list | tuple):
        return LIST_SEPARATOR.get(lang, ", ").join(_show(v, lang) for v in value)
    if value is None:
        return "-"
    if isinstance(value, float):  # a whole number is often an id or a label: shown as it is
        return number(value, lang)
    return str(value)


COLOUR_PARAMS = frozenset({"colour", "actor", "pending", "seat", "subject", "holder", "rival",
                           "owner", "who", "by", "furthest"})
"""Refusal parameters that name a seat by its colour: shown as the colour's name."""


def rule_error(game: str, error: IllegalAction, lang: str = DEFAULT) -> str:
    """A rejection in words: the game's own key first, then the keys shared by all games; each
    engine word among the parameters (a piece, a phase, a colour, a company) in the locale's
    term for it, never echoed from the engine."""
    params = {name: rule_word(game, name, value, lang, error.params)
              for name, value in error.params.items()}
    for key in (f"rules.{game}.{error.key}", f"rules.{error.key}"):
        if has(key, lang):
            return t(key, lang, **params)
    return str(error)


def rule_word(game: str, name: str, value: Any, lang: str,
              params: Mapping[str, Any] | None = None) -> Any:
    """One refusal parameter in words: ``term.<game>.<name>.<value>``, ``term.<game>.<value>``
    (a plural term takes its form from the refusal's own count, ``"#"``), a colour's name, or
    the value itself (a number, or notation such as a hex label)."""
    if isinstance(value, list | tuple):
        return [rule_word(game, name, v, lang, params) for v in value]
    if not isinstance(value, str):
        return value
    for key in (f"term.{game}.{name}.{value}", f"term.{game}.{value}"):
        if has(key, lang):
            return t(key, lang, **(params or {}))
    if name in COLOUR_PARAMS:
        colours = [c.strip() for c in value.split(",")]
        if all(has(f"bot.colour.{c}", lang) for c in colours):
            return LIST_SEPARATOR.get(lang, ", ").join(t(f"bot.colour.{c}", lang)
                                                       for c in colours)
    return value
