"""The catalogues as a native reader needs them: complete, plural where a number is counted, one
word per game term, no English left in a translated sentence, Traditional Chinese written in
Traditional characters, and every character drawn on a board present in its font.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from pathlib import Path

import opencc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from render import i18n
from render.i18n import (
    CATEGORIES,
    COUNT,
    DEFAULT,
    LANGUAGES,
    avoided,
    catalogue,
    needed_categories,
    t,
)
from tests.helpers.words import english_words, forms, locale_words

OTHERS = [lang for lang in LANGUAGES if lang != DEFAULT]
ENGLISH = catalogue(DEFAULT)


def fields(text: str) -> Iterator[tuple[str, str]]:
    for _, name, spec, _ in string.Formatter().parse(text):
        if name is not None:
            yield name, spec or ""


def test_the_locales_are_discords() -> None:
    assert LANGUAGES == ("en", "es", "ru", "zh-CN", "zh-TW")
    folders = {path.name for path in i18n.I18N_DIR.iterdir() if path.is_dir()}
    assert folders == set(LANGUAGES)


@pytest.mark.parametrize("lang", OTHERS)
def test_every_catalogue_has_every_key(lang: str) -> None:
    own = catalogue(lang)
    assert sorted(ENGLISH.keys() - own.keys()) == []
    assert sorted(own.keys() - ENGLISH.keys()) == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_plural_message_has_the_categories_its_locale_needs(lang: str) -> None:
    needed = needed_categories(lang)
    wrong = {}
    for key, template in catalogue(lang).items():
        if isinstance(template, dict):
            have = set(template) - {COUNT}
            if not needed <= have or not have <= set(CATEGORIES):
                wrong[key] = sorted(have)
    assert wrong == {}, f"{lang} needs {sorted(needed)}"


def test_the_locales_need_the_cldr_categories() -> None:
    assert needed_categories("ru") == {"one", "few", "many", "other"}
    assert needed_categories("es") == {"one", "other"}
    assert needed_categories("en") == {"one", "other"}
    assert needed_categories("zh-CN") == needed_categories("zh-TW") == {"other"}


@pytest.mark.parametrize("lang", OTHERS)
def test_a_count_message_is_plural_in_every_locale_on_the_same_count(lang: str) -> None:
    wrong = []
    for key, english in ENGLISH.items():
        own = catalogue(lang).get(key)
        if isinstance(english, dict) and (not isinstance(own, dict) or own.get(
                COUNT, "count") != english.get(COUNT, "count")):
            wrong.append(key)
    assert wrong == []


@pytest.mark.parametrize("lang", OTHERS)
def test_translations_use_the_english_placeholders(lang: str) -> None:
    """A translation may leave a placeholder out, never invent one the code does not pass."""
    wrong = {}
    for key, english in ENGLISH.items():
        given = {name for form in forms(english) for name, _ in fields(form)}
        if isinstance(english, dict):
            given.add(english.get(COUNT, "count"))
        own = catalogue(lang).get(key, "")
        used = {name for form in forms(own) for name, _ in fields(form)}
        if used - given:
            wrong[key] = sorted(used - given)
    assert wrong == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_counted_phrase_exists_and_is_plural(lang: str) -> None:
    wrong = []
    for key, template in catalogue(lang).items():
        for form in forms(template):
            for _, spec in fields(form):
                if spec and not isinstance(catalogue(lang).get(spec), dict):
                    wrong.append((key, spec))
    assert wrong == []


def test_russian_agrees_with_every_number() -> None:
    assert t("bot.end.points", "ru", score=1).endswith("очко")
    assert t("bot.end.points", "ru", score=3).endswith("очка")
    assert t("bot.end.points", "ru", score=5).endswith("очков")
    assert t("bot.end.points", "ru", score=21).endswith("очко")
    assert t("bot.end.points", "en", score=1) == "1 point"
    assert t("bot.end.points", "en", score=2) == "2 points"


def test_a_counted_phrase_inside_a_sentence() -> None:
    urn = t("render.giants.screen.urn", "en", workers=1, markers=3)
    assert urn == "In the urn: 1 worker, 3 tribe markers"


# --- no English inside a translated sentence --------------------------------------------------

@pytest.mark.parametrize("lang", OTHERS)
def test_no_english_game_word_outside_backticks(lang: str) -> None:
    own = catalogue(lang)
    allowed = locale_words(lang)
    found = {key: sorted(words) for key, template in own.items() if not key.startswith("bot.cmd")
             for form in forms(template) if (words := english_words(form, allowed, lang))}
    assert found == {}


def written(word: str, text: str) -> bool:
    """Whether ``word`` stands in ``text``: as a word where words have spaces between them, as
    a run of characters in Chinese."""
    if word.isascii() or not any("\u4e00" <= c <= "\u9fff" for c in word):
        return re.search(rf"(?i)\b{re.escape(word)}", text) is not None
    return word in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_avoided_word_is_written(lang: str) -> None:
    avoid = avoided(lang)
    found = {key: word for key, template in catalogue(lang).items() for form in forms(template)
             for word in avoid if written(word, form)}
    assert found == {}


def test_spanish_takes_and_never_catches() -> None:
    assert "coger" in avoided("es")


# --- Traditional Chinese -----------------------------------------------------------------------

TRADITIONAL_TOO = frozenset("台占")
"""Traditional characters OpenCC's per-character table maps on all the same: 台 (Taiwan writes
台 beside the formal 臺) and 占 (占 is Traditional; 佔 is only its variant for "occupy")."""


def test_traditional_chinese_holds_no_simplified_only_character() -> None:
    converter = opencc.OpenCC("s2tw")
    text = "".join(form for template in catalogue("zh-TW").values() for form in forms(template))
    simplified = sorted({c for c in text if "\u4e00" <= c <= "\u9fff"
                         and converter.convert(c) != c and c not in TRADITIONAL_TOO})
    assert simplified == []


def test_simplified_chinese_holds_no_traditional_only_character() -> None:
    converter = opencc.OpenCC("t2s")
    text = "".join(form for template in catalogue("zh-CN").values() for form in forms(template))
    traditional = sorted({c for c in text if "\u4e00" <= c <= "\u9fff"
                          and converter.convert(c) != c})
    assert traditional == []


def test_the_glossary_files_exist() -> None:
    for lang in LANGUAGES:
        assert (Path(i18n.I18N_DIR) / lang / i18n.GLOSSARY).is_file(), lang


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_form_of_a_plural_shows_its_number(lang: str) -> None:
    """The form is chosen by a number; each form says it (no form drops the count). A term
    (a piece's name agreeing with a refusal's number) is the word alone."""
    wrong = []
    for key, template in catalogue(lang).items():
        if isinstance(template, dict) and not key.startswith("term."):
            count = template.get(COUNT, "count")
            for category, form in template.items():
                if category != COUNT and count not in {name for name, _ in fields(form)}:
                    wrong.append((key, category))
    assert wrong == []


@given(st.integers(min_value=0, max_value=10**6) | st.floats(min_value=0, max_value=1000,
                                                             allow_nan=False))
def test_a_plural_picks_the_form_of_babels_category(count: float) -> None:
    for lang in LANGUAGES:
        template = catalogue(lang)["bot.end.points"]
        assert isinstance(template, dict)
        chosen = i18n.choose(template, {"score": count}, lang)
        category = i18n.plural_category(count, lang)
        assert chosen == template.get(category, template["other"])
        shown = i18n.number(count, lang) if isinstance(count, float) else str(count)
        assert shown in t("bot.end.points", lang, score=count)
