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
from render.giganten import money
from render.i18n import I18N_DIR, LANGUAGES, language, t
from tests.helpers.words import SIMPLIFIED_ONLY, forms

OTHERS = [lang for lang in LANGUAGES if lang != "en"]
ENGLISH_FILES = sorted(p.name for p in (I18N_DIR / "en").glob("*.json"))
REQUIRED = ("rules.json", "giants.json", "giganten.json", "render.json", "render_giants.json",
            "render_giganten.json")
"""Files every language must have; any other English file is compared once it is translated."""


def load(lang: str, name: str) -> dict[str, i18n.Template]:
    data = json.loads((I18N_DIR / lang / name).read_text(encoding="utf-8"))
    return data["terms"] if name == i18n.GLOSSARY else data


def placeholders(template: i18n.Template) -> set[str]:
    """The parameters a template uses, in any of its forms (a plural's count included)."""
    found = {field for form in forms(template)
             for _, field, _, _ in string.Formatter().parse(form) if field is not None}
    if isinstance(template, dict):
        found.add(template.get(i18n.COUNT, "count"))
    return found


def text(template: i18n.Template) -> str:
    return "".join(forms(template))


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
    assert [key for key, template in load(lang, name).items()
            if not all(form.strip() for form in forms(template))] == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_template_formats_with_its_placeholders(lang: str) -> None:
    for key, template in i18n.catalogue(lang).items():
        params = {name: 2 for name in placeholders(template)}
        assert "{" not in t(key, lang, **params).replace("{{", ""), key


def test_chinese_text_is_in_chinese() -> None:
    assert t("render.colour.red", "zh-CN") == "红色"
    assert t("render.round", "zh-CN", round=3) == "第3轮"
    assert t("render.colour.red", "zh-TW") == "紅色"
    assert t("render.round", "zh-TW", round=3) == "第3輪"


# --- Chinese: Simplified (zh) and Traditional as used in Taiwan (zh-TW) ------------------------

MISCONVERTED = ("游戲", "頻道里", "這隻", "最多隻", "私信", "子區", "許可權")
"""What converting Simplified text character by character gets wrong: 遊戲 (not 游 of 上游),
頻道裡, 只, and the words Taiwan's Discord uses instead (私訊, 討論串, 權限)."""


def test_the_simplified_only_list_finds_simplified_text() -> None:
    simplified = set("".join(text(v) for v in i18n.catalogue("zh-CN").values()))
    assert len(set(SIMPLIFIED_ONLY) & simplified) > 40


@pytest.mark.parametrize("name", ENGLISH_FILES)
def test_traditional_chinese_has_every_file_and_exactly_the_english_keys(name: str) -> None:
    assert (I18N_DIR / "zh-TW" / name).exists(), f"zh-TW lacks {name}"
    assert set(load("zh-TW", name)) == set(load("en", name))


def test_traditional_chinese_is_complete_and_has_no_other_file() -> None:
    assert sorted(p.name for p in (I18N_DIR / "zh-TW").glob("*.json")) == ENGLISH_FILES
    assert set(i18n.catalogue("zh-TW")) == set(i18n.catalogue("en"))


@pytest.mark.parametrize("name", ENGLISH_FILES)
def test_traditional_chinese_has_no_simplified_only_character(name: str) -> None:
    texts = {key: text(template) for key, template in load("zh-TW", name).items()}
    found = {key: sorted(set(words) & set(SIMPLIFIED_ONLY))
             for key, words in texts.items() if set(words) & set(SIMPLIFIED_ONLY)}
    assert found == {}
    wrong = {key: [w for w in MISCONVERTED if w in words]
             for key, words in texts.items() if any(w in words for w in MISCONVERTED)}
    assert wrong == {}


def test_traditional_chinese_is_its_own_text_not_a_copy() -> None:
    simplified, traditional = i18n.catalogue("zh-CN"), i18n.catalogue("zh-TW")
    chinese = [key for key, template in simplified.items()
               if any("\u4e00" <= c <= "\u9fff" for c in text(template))]
    assert len(chinese) > 500
    same = [key for key in chinese if traditional[key] == simplified[key]]
    assert len(same) < len(chinese) / 4, "most Chinese texts differ between the two scripts"


def test_traditional_chinese_keeps_command_names_and_formats() -> None:
    simplified, traditional = i18n.catalogue("zh-CN"), i18n.catalogue("zh-TW")
    names = [key for key in simplified if key.startswith("bot.cmd.") and key.endswith(".name")]
    assert names and {k: traditional[k] for k in names} == {k: simplified[k] for k in names}
    for key, template in simplified.items():
        ascii_runs = [part for part in text(template).split("`")[1::2] if part.isascii()]
        for run in ascii_runs:  # code in backticks (commands, notation) is the same
            assert run in text(traditional[key]), (key, run)


def test_taiwan_words_for_discord_things() -> None:
    traditional = i18n.catalogue("zh-TW")
    assert "私訊" in traditional["bot.table.secret"]
    assert "討論串" in traditional["bot.cmd.threads.description"]
    assert "伺服器" in traditional["bot.info.list.title"]
    assert "按鈕" in traditional["bot.table.how_both"]
    assert "頻道" in traditional["bot.refuse.no_game"]
    assert t("render.giants.key.marker", "zh-TW") == "部落標記"
    assert t("render.giants.col.headdresses", "zh-TW") == "石帽"
    assert "屏風" in t("render.giants.screen.behind", "zh-TW")
    assert t("render.makemake.key.moai", "zh-TW") == "摩艾石像"


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
    (tmp_path / "zh-CN").mkdir()
    (tmp_path / "en" / "extra.json").write_text('{"extra.hello": "Hello {name}"}', "utf-8")
    monkeypatch.setattr(i18n, "I18N_DIR", tmp_path)
    i18n.catalogue.cache_clear()
    try:
        assert t("extra.hello", "zh-CN", name="Li") == "Hello Li"
    finally:
        monkeypatch.undo()
        i18n.catalogue.cache_clear()


@pytest.mark.parametrize(("locale", "lang"), [
    ("es-ES", "es"), ("es-419", "es"), ("zh-CN", "zh-CN"), ("zh", "zh-CN"), ("zh-TW", "zh-TW"),
    ("zh-HK", "zh-TW"), ("zh_TW", "zh-TW"), ("zh-Hant-TW", "zh-TW"), ("zh-Hans", "zh-CN"),
    ("ru", "ru"), ("en-US", "en"), ("en-GB", "en"), ("pt-BR", "en"), ("", "en"), (None, "en")])
def test_discord_locales_map_to_a_language(locale: str | None, lang: str) -> None:
    assert language(locale) == lang


def test_numbers_are_written_as_the_locale_writes_them() -> None:
    assert money(15000, "en") == "$15,000"
    assert money(15000, "es") == "$15.000"
    assert money(15000, "ru") == "$15\u00a0000"
    assert t("bot.end.points", "ru", score=1.5) == "1,5 очка"


def test_plural_categories_are_babels_for_each_language_and_count() -> None:
    """Categories are kept once found, each under its own language and count: asked twice
    (the second time from what was kept), every answer is still Babel's rule."""
    counts = (0, 1, 2, 3, 5, 11, 21, 22, 25, 101, 1.5, 2.0, 0.5)
    for _ in range(2):
        for lang in LANGUAGES:
            rule = i18n._babel_locale(lang).plural_form
            assert [i18n.plural_category(n, lang) for n in counts] == [str(rule(n))
                                                                       for n in counts]
    assert [i18n.plural_category(n, "ru") for n in (21, 22, 25, 1.5)] == [
        "one", "few", "many", "other"]
    assert [i18n.plural_category(n, "en") for n in (21, 22)] == ["other", "other"]


def test_a_number_once_written_is_kept_for_its_own_language() -> None:
    assert [i18n.number(1.5, lang) for lang in ("en", "es", "en", "es")] == [
        "1.5", "1,5", "1.5", "1,5"]
    assert [i18n.number(n, "en") for n in (15000, 15000.5, 15000)] == [
        "15,000", "15,000.5", "15,000"]


def test_a_counted_phrase_is_found_in_each_template() -> None:
    for _ in range(2):  # the second time from what was kept
        assert i18n._has_counted_phrase("{have:count.giants.marker} left")
        assert not i18n._has_counted_phrase("{have} left")
    assert [t("bot.giganten.card.numbers", "en", licences=n, mp=3) for n in (1, 2)] == [
        "1 licence · 3 MP", "2 licences · 3 MP"]


def test_a_kept_text_follows_its_parameters_and_catalogues(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert [t("render.round", "en", round=n) for n in (4, 5, 4)] == [
        "Round 4", "Round 5", "Round 4"]
    assert t("render.round", "es", round=4) != t("render.round", "en", round=4)
    assert [t("render.round", "en", round=v) for v in (1, True, 1.0, 1)] == [
        "Round 1", "Round True", "Round 1", "Round 1"], "equal keys, each shown as it is"
    original = i18n.catalogue
    english = {**original("en"), "render.round": "Turn {round}"}
    monkeypatch.setattr(i18n, "catalogue", lambda lang: english if lang == "en"
                        else original(lang))
    assert t("render.round", "en", round=4) == "Turn 4", "another catalogue: read again"
    monkeypatch.undo()
    assert t("render.round", "en", round=4) == "Round 4"
