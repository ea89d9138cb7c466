"""The shipped data is checked at start: ``render.assets.problems`` against a broken copy."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot import create_bot
from render import assets, common, i18n
from rules import data
from tests.helpers.bots import make_settings

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the shipped data that every loader and the check read instead."""
    root = tmp_path / "rapanui_data"
    shutil.copytree(Path(str(data.DATA_DIR)), root,
                    ignore=shutil.ignore_patterns("*.sqlite3*", "__pycache__"))
    monkeypatch.setattr(data, "DATA_DIR", root)
    monkeypatch.setattr(i18n, "I18N_DIR", root / "i18n")
    monkeypatch.setattr(common, "FONT_DIR", root / "fonts")
    i18n.catalogue.cache_clear()
    yield root
    monkeypatch.undo()
    i18n.catalogue.cache_clear()


def test_the_shipped_data_is_whole() -> None:
    assert assets.problems() == []


def test_the_data_is_read_from_the_installed_package() -> None:
    import rapanui_data

    assert Path(str(data.DATA_DIR)) == Path(rapanui_data.__file__).parent
    assert Path(str(i18n.I18N_DIR)) == Path(str(data.DATA_DIR)) / "i18n"
    assert Path(common.font_file(common.CJK_FONT)).is_file()


def test_an_install_without_the_data_package_says_what_to_do() -> None:
    script = "import sys; sys.modules['rapanui_data'] = None; import rules.data"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "ModuleNotFoundError: the package rapanui_data (the project's data/ folder) is not "
        "installed: install the project again (pip install . or pip install -e .)")


def test_an_intact_copy_has_no_problem(copy: Path) -> None:
    assert assets.problems() == []


def test_every_problem_is_named_in_one_line(copy: Path) -> None:
    (copy / "i18n" / "es" / "bot_pace.json").unlink()
    (copy / "i18n" / "ru" / "bot.json").write_text('{"bot.x": "unfinished', "utf-8")
    (copy / "i18n" / "zh-CN" / "moves.json").write_text('["a list"]', "utf-8")
    shutil.rmtree(copy / "i18n" / "zh-TW")
    (copy / "fonts" / common.CJK_FONT).write_bytes(b"not a font at all")
    (copy / "fonts" / common.LATIN_BOLD_FONT).unlink()
    (copy / "giants_board.json").unlink()
    (copy / "makemake_board.json").write_text("{", "utf-8")
    found = assets.problems()
    assert found[:3] == [
        "board giants_board.json: missing",
        "board makemake_board.json: cannot parse (Expecting property name enclosed in double "
        "quotes: line 1 column 2 (char 1))",
        "font DejaVuSans-Bold.ttf: missing",
    ]
    assert found[3].startswith("font wqy-microhei.ttc: cannot open (")  # Pillow's own words
    assert found[4:] == [
        "catalogue es: bot_pace.json missing",
        "catalogue ru: bot.json cannot parse (Unterminated string starting at: line 1 column "
        "11 (char 10))",
        "catalogue zh-CN: moves.json cannot parse (not a JSON object)",
        "catalogue zh-TW: folder missing",
    ]
    assert all("\n" not in line for line in found)


def test_a_missing_english_folder_is_named(copy: Path) -> None:
    shutil.rmtree(copy / "i18n" / "en")
    assert assets.problems() == ["catalogue en: folder missing"]


def test_a_file_only_a_translation_has_is_parsed_too(copy: Path) -> None:
    (copy / "i18n" / "es" / "extra.json").write_text("{,}", "utf-8")
    [line] = assets.problems()
    assert line.startswith("catalogue es: extra.json cannot parse (")


def test_a_locale_without_its_folder_falls_back_to_english_at_run_time(copy: Path) -> None:
    shutil.rmtree(copy / "i18n" / "ru")
    assert i18n.catalogue("ru") == {}
    assert i18n.t("bot.lobby.button.join", "ru") == i18n.t("bot.lobby.button.join", "en")


async def test_the_bot_does_not_start_on_broken_data(copy: Path, tmp_path: Path) -> None:
    (copy / "i18n" / "es" / "bot.json").unlink()
    (copy / "fonts" / common.LATIN_FONT).write_bytes(b"")
    settings = make_settings(tmp_path / "games.sqlite3")
    bot = create_bot(settings)
    with pytest.raises(RuntimeError) as raised:
        await bot.setup_hook()
    message = str(raised.value)
    assert "catalogue es: bot.json missing" in message
    assert "font DejaVuSans.ttf: cannot open (" in message
    assert bot.store is None and not settings.db_path.exists()  # nothing else happened
