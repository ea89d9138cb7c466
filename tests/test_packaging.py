"""pyproject.toml names every package the code has, and ships the data folder as a package."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = ("rules", "render", "bot")


def setuptools_table() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]


def code_packages() -> set[str]:
    """Every folder of the code that holds a module (with or without an ``__init__.py``)."""
    found = set()
    for top in CODE:
        for module in (ROOT / top).rglob("*.py"):
            if "__pycache__" not in module.parts:
                found.add(".".join(module.parent.relative_to(ROOT).parts))
    return found


def test_every_package_of_the_code_is_listed() -> None:
    listed = set(setuptools_table()["packages"])
    assert listed - {"rapanui_data"} == code_packages()
    assert {"rules", "render", "bot", "bot.exts", "bot.host", "rules.giants"} <= listed
    every_init = {".".join(p.parent.relative_to(ROOT).parts)
                  for top in CODE for p in (ROOT / top).rglob("__init__.py")}
    assert every_init <= listed


def test_the_data_folder_is_the_package_rapanui_data() -> None:
    table = setuptools_table()
    assert "rapanui_data" in table["packages"]
    assert table["package-dir"] == {"rapanui_data": "data"}
    assert (ROOT / "data" / "__init__.py").read_text("utf-8").startswith('"""')
    globs = table["package-data"]["rapanui_data"]
    assert "i18n/*/*.json" in globs
    assert not any("sqlite" in glob or "bak" in glob or glob in ("*", "**/*") for glob in globs)
