"""The translation catalogues and the translation function.

Every catalogue file a language has must carry every key of the English file of the same name,
with the same placeholders. A file that a language does not have yet is simply not compared:
its keys fall back to English until it is written.
"""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest

from render import i18n
from render.i18n import I18N_DIR, LANGUAGES, language, t

OTHERS = [lang for lang in LANGUAGES if lang != "en"]
ENGLISH_FILES = sorted(p.name for p in (I18N_DIR / "en").glob("*.json"))
REQUIRED = ("rules.json", "giants.json", "giganten.json", "render.json", "render_giants.json",
            "render_giganten.json")
"""Files every language must have; any other English file is compared once it is translated."""


def load(lang: str, name: str) -> dict[str, str]:
    return json.loads((I18N_DIR / lang / name).read_text(encoding="utf-8"))


def placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}


def translated_files() -> list[tuple[str, str]]:
    """Each (language, file) pair where the language has its own copy of an English file."""
    return [(lang, name) for lang in OTHERS for name in ENGLISH_FILES
            if (I18N_DIR / lang / name).exists()]


def test_the_english_catalogues_exist() -> None:
    assert set(REQUIRED) <= set(ENGLISH_FILES)


@pytest.mark.parametrize("lang", OTHERS)
def test_every_language_has_the_required_files(lang: str) -> None:
    missing = [name for name in REQUIRED if not (I18N_DIR / lang / name).exists()]
    assert not missing, f"{lang} lacks {missing}"


@pytest.mark.parametrize(("lang", "name"), translated_files())
def test_a_translation_has_every_english_key_and_no_other(lang: str, name: str) -> None:
    english, translated = load("en", name), load(lang, name)
    assert sorted(set(english) - set(translated)) == []
    assert sorted(set(translated) - set(english)) == []


@pytest.mark.parametrize(("lang", "name"), translated_files())
def test_a_translation_keeps_the_placeholders(lang: str, name: str) -> None:
    english, translated = load("en", name), load(lang, name)
    wrong = {key: (sorted(placeholders(english[key])), sorted(placeholders(text)))
             for key, text in translated.items()
             if key in english and placeholders(text) != placeholders(english[key])}
    assert wrong == {}


@pytest.mark.parametrize(("lang", "name"), translated_files())
def test_a_translation_is_filled_in(lang: str, name: str) -> None:
    assert [key for key, text in load(lang, name).items() if not text.strip()] == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_template_formats_with_its_placeholders(lang: str) -> None:
    for key, template in i18n.catalogue(lang).items():
        params = {name: "X" for name in placeholders(template)}
        assert "{" not in t(key, lang, **params).replace("{{", ""), key


def test_chinese_text_is_in_chinese() -> None:
    assert t("render.colour.red", "zh") == "红色"
    assert t("render.round", "zh", round=3) == "第3轮"


def test_a_missing_key_falls_back_to_english(monkeypatch: pytest.MonkeyPatch) -> None:
    original = i18n.catalogue
    spanish = dict(original("es"))
    spanish.pop("render.round")
    monkeypatch.setattr(i18n, "catalogue", lambda lang: spanish if lang == "es" else original(lang))
    assert t("render.round", "es", round=4) == "Round 4"
    assert t("render.colour.red", "es") == "Rojo"


def test_a_key_missing_everywhere_shows_the_key() -> None:
    assert t("no.such.key", "ru") == "no.such.key"


def test_an_untranslated_file_falls_back_to_english(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "en").mkdir()
    (tmp_path / "zh").mkdir()
    (tmp_path / "en" / "extra.json").write_text('{"extra.hello": "Hello {name}"}', "utf-8")
    monkeypatch.setattr(i18n, "I18N_DIR", tmp_path)
    i18n.catalogue.cache_clear()
    try:
        assert t("extra.hello", "zh", name="Li") == "Hello Li"
    finally:
        monkeypatch.undo()
        i18n.catalogue.cache_clear()


@pytest.mark.parametrize(("locale", "lang"), [
    ("es-ES", "es"), ("es-419", "es"), ("zh-CN", "zh"), ("zh-TW", "zh"), ("ru", "ru"),
    ("en-US", "en"), ("en-GB", "en"), ("pt-BR", "en"), ("", "en"), (None, "en")])
def test_discord_locales_map_to_a_language(locale: str | None, lang: str) -> None:
    assert language(locale) == lang
