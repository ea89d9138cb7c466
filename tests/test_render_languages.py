"""Board images in every language, and fonts that can draw every language's text."""

from __future__ import annotations

import contextlib
import functools
import io
import json
from pathlib import Path
from typing import Any

import pytest
from fontTools.ttLib import TTCollection, TTFont
from PIL import Image, ImageChops, ImageDraw, ImageFont

import rules.__main__ as rules_cli
from render import (
    common,
    giants,
    giants_art,
    giants_screen,
    giganten,
    giganten_art,
    giganten_hand,
    makemake,
)
from render.common import font, text_lang
from render.i18n import I18N_DIR, LANGUAGES, t
from rules.record import replay
from tests.helpers.words import forms

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DRAWERS = {"makemake": makemake, "giants": giants, "giganten": giganten}
CODE_SYMBOLS = "★▶✓·…×±–−$%#()/:;,.0123456789"
"""Characters the renderers add to translated text themselves (badges, cut text, counts)."""


def greedy_record(game: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = rules_cli.main(["play", game, "--seats", "4", "--seed", "3", "--ai", "greedy"])
    assert code == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def games() -> dict[str, dict[str, Any]]:
    """Per game: the replayed game early on (80 lines) and at its end."""
    found: dict[str, dict[str, Any]] = {}
    for name in DRAWERS:
        record = greedy_record(name)
        found[name] = {}
        for when, text in (("early", "\n".join(record.splitlines()[:80])), ("end", record)):
            game, rejections = replay(text)
            assert not rejections
            found[name][when] = game
    return found


def png(data: bytes) -> Image.Image:
    assert data.startswith(PNG_SIGNATURE)
    return Image.open(io.BytesIO(data))


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", DRAWERS)
def test_every_board_renders_in_every_language(games: dict[str, dict[str, Any]], name: str,
                                               lang: str) -> None:
    for game in games[name].values():
        image = png(DRAWERS[name].board(game.module.view(game.state, None), lang))
        assert image.width >= 1200


@pytest.mark.parametrize("name", DRAWERS)
def test_a_translated_board_differs_from_the_english_one(games: dict[str, dict[str, Any]],
                                                         name: str) -> None:
    game = games[name]["early"]
    view = game.module.view(game.state, None)
    english = png(DRAWERS[name].board(view, "en")).convert("RGB")
    drawn = {}
    for lang in [lang for lang in LANGUAGES if lang != "en"]:
        other = png(DRAWERS[name].board(view, lang)).convert("RGB")
        assert other.size == english.size
        assert ImageChops.difference(english, other).getbbox() is not None, lang
        drawn[lang] = other
    assert ImageChops.difference(drawn["zh-CN"], drawn["zh-TW"]).getbbox() is not None, \
        "Traditional Chinese is drawn in its own characters"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_private_images_render_in_every_language(games: dict[str, dict[str, Any]],
                                                 lang: str) -> None:
    for game in (games["giants"]["early"], games["giganten"]["early"]):
        for seat in game.header.seats:
            view = game.module.view(game.state, seat)
            data = (giants.screen(view, seat, lang) if game.module.NAME == "giants"
                    else giganten.hand(view, seat, lang))
            assert png(data).width == (giants_screen.WIDTH if game.module.NAME == "giants"
                                       else giganten_hand.HAND_WIDTH)  # a phone's column


# --- fonts -------------------------------------------------------------------------------------

NOTDEF = "\U0010fffd"
"""A private-use code point no shipped font draws: what a missing glyph looks like."""


def draws(face: ImageFont.FreeTypeFont, char: str) -> bool:
    """Whether ``face`` has a real glyph for ``char`` (not the empty or missing-glyph box)."""
    mask = face.getmask(char)
    if mask.getbbox() is None:
        return False
    missing = face.getmask(NOTDEF)
    return (mask.size, bytes(mask)) != (missing.size, bytes(missing))


def catalogue_text(lang: str) -> str:
    """Every character of a language's image texts (the catalogues the renderers use)."""
    text = ""
    for path in sorted((I18N_DIR / lang).glob("render*.json")):
        text += "".join(form for template in json.loads(path.read_text("utf-8")).values()
                        for form in forms(template))
    return text


def test_the_chinese_font_is_shipped_with_its_licence() -> None:
    assert (common.FONT_DIR / common.CJK_FONT).is_file()
    assert (common.FONT_DIR / "LICENSE-WenQuanYi.txt").is_file()


def test_the_chinese_font_has_glyphs_the_label_font_lacks() -> None:
    chinese, label = font(20, lang="zh-CN"), font(20)
    for char in "摩艾石像部落标记木简首领鸟人井架许可证" + "標記木簡頭領鳥許證屏風輪":
        assert draws(chinese, char), char
        assert not draws(label, char), char
    assert font(20, lang="zh-TW") is chinese, "Traditional Chinese uses the same CJK font"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_symbol_keys_fit_the_picture(lang: str) -> None:
    """Every key entry, the marks of what to choose and what changed included, ends inside the
    picture: the right margin below the legend stays bare paper."""
    bases = [(makemake.static_layers(lang, 4).base, makemake.TABLE_Y),
             (giants.static_layers(lang, 5).base, giants.TABLE_Y),
             (giganten.static_base(lang, 4, False), giganten.Layout(4).key_y)]
    for base, top in bases:
        margin = base.crop((base.width - 14, top, base.width, base.height))
        assert ImageChops.difference(margin, Image.new("RGB", margin.size, common.PAPER)) \
            .getbbox() is None


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_image_text_can_be_drawn_in_its_language(lang: str) -> None:
    chars = sorted(set(catalogue_text(lang) + CODE_SYMBOLS) - set(" \u3000"))
    for bold in (False, True):
        face = font(20, bold, lang)
        assert [c for c in chars if not draws(face, c)] == []


def test_labels_keep_the_same_font_in_every_language() -> None:
    for lang in LANGUAGES:
        assert font(16, True, lang) is font(16, True) or lang in common.CJK_LANGUAGES
    assert font(16, True, "zh-CN") is not font(16, True)
    assert Path(font(16, lang="zh-CN").path).name == common.CJK_FONT
    assert Path(font(16, True, "ru").path).name == "DejaVuSans-Bold.ttf"
    with pytest.raises(ValueError):
        font(common.MIN_FONT - 1, lang="zh-CN")


def test_text_with_chinese_characters_uses_the_chinese_font() -> None:
    assert text_lang("张伟", "en") == "zh-CN"
    assert text_lang(t("render.to_act", "ru", name="李娜"), "ru") == "zh-CN"
    assert text_lang("Hotu Matua", "en") == "en"
    assert text_lang("Красный", "ru") == "ru"
    assert text_lang("B2", "zh-CN") == "zh-CN"


def test_chinese_lists_use_the_chinese_separator() -> None:
    assert t("render.winners", "zh-CN", names=["红色", "蓝色"]) == "胜者：红色、蓝色"
    assert t("render.winners", "zh-TW", names=["紅色", "藍色"]) == "勝者：紅色、藍色"
    assert t("render.winners", "en", names=["Red", "Blue"]) == "Winners: Red, Blue"


def test_chinese_bold_is_heavier_than_chinese_regular() -> None:
    def ink(face: ImageFont.FreeTypeFont) -> int:
        return sum(bytes(face.getmask("轮到首领")))

    assert ink(font(20, True, "zh-CN")) > 1.15 * ink(font(20, False, "zh-CN"))


# --- every drawn character has a glyph (the font's cmap, not the eye) -------------------------

@functools.cache
def cmap(path: str, index: int) -> frozenset[int]:
    """The code points a font file maps to glyphs (one face of a collection)."""
    face = TTCollection(path).fonts[index] if path.endswith(".ttc") else TTFont(path)
    return frozenset(face.getBestCmap())


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_drawn_character_is_missing_from_its_font(games: dict[str, dict[str, Any]],
                                                     lang: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text the renderers draw on a board, a screen or a hand, in every language: each
    character is in the cmap of the font it is drawn with, so no board shows a tofu box."""
    drawn: list[tuple[str, str, int]] = []
    original = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: Any, words: Any, *args: Any, **kwargs: Any) -> Any:
        face = kwargs.get("font") or (args[1] if len(args) > 1 else None)
        if isinstance(face, ImageFont.FreeTypeFont) and isinstance(words, str):
            drawn.append((words, str(face.path), getattr(face, "index", 0)))
        return original(self, xy, words, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    for module in (common, giants, giganten, makemake, giants_art, giganten_art):
        for cached in vars(module).values():
            if hasattr(cached, "cache_clear") and cached is not common._load:
                cached.cache_clear()  # layers drawn before are drawn again, through the hook
    for name, drawer in DRAWERS.items():
        for game in games[name].values():
            drawer.board(game.module.view(game.state, None), lang)
    for game in (games["giants"]["early"], games["giganten"]["early"]):
        for seat in game.header.seats:
            view = game.module.view(game.state, seat)
            if game.module.NAME == "giants":
                giants.screen(view, seat, lang)
            else:
                giganten.hand(view, seat, lang)
    assert len(drawn) > 100
    missing = sorted({(c, Path(path).name) for words, path, index in drawn for c in words
                      if not c.isspace() and ord(c) not in cmap(path, index)})
    assert missing == []
