"""The suite's own shape: what tests share lives in ``tests/helpers/``, never in a test module.

A test module imported by another runs its tests twice under two names and drags its fixtures
along as imports that linters call unused (hence the ``noqa`` that hid them); a fixture shared
through a plugin that ``tests/conftest.py`` names is found by its name alone."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests import conftest

TESTS = Path(__file__).resolve().parent
HELPERS = TESTS / "helpers"


def modules() -> list[Path]:
    return sorted(TESTS.rglob("*.py"))


def imported(path: Path) -> set[str]:
    """The ``tests.…`` modules a file imports, by their full names."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in names if name.startswith("tests.")}


def test_no_test_module_is_imported_by_another_file() -> None:
    found = {f"{path.relative_to(TESTS)}: {name}" for path in modules()
             for name in imported(path) if name.split(".")[-1].startswith("test_")}
    assert not found, sorted(found)


def test_no_fixture_is_imported_to_be_found() -> None:
    """No ``noqa`` for pyflakes' unused import (one kept for its side effect: a fixture) or
    redefinition (a test's argument named like such an import) anywhere in the tests."""
    found = [f"{path.relative_to(TESTS)}:{n}" for path in modules()
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"noqa:.*\bF(401|811)\b", line)]
    assert not found, found


def fixtures_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.name for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and any("fixture" in ast.unparse(d) for d in node.decorator_list)]


@pytest.mark.parametrize("path", sorted(HELPERS.glob("*.py")), ids=lambda p: p.name)
def test_a_helper_holds_no_test_and_its_fixtures_come_from_a_plugin(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert not [node.name for node in tree.body
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name.startswith("test_")]
    if fixtures_of(path):
        assert f"tests.helpers.{path.stem}" in conftest.pytest_plugins, path.name
