"""CI runs exactly README's test command, and that command installs the tests' lock with its
hashes: what CI tests is what a contributor following README gets, file for file."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALL = ("pip install --require-hashes -r requirements-test.lock && "
           "pip install --no-deps -e .")
"""The locked dependencies, each file checked against its hash, then the code itself."""


def readme_test_command() -> str:
    """The one line of README's "Run the tests" block."""
    text = (ROOT / "README.md").read_text("utf-8")
    section = text.split("**Run the tests**", 1)[1]
    [block] = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)[:1]
    [line] = block.splitlines()
    return line


def ci_commands() -> list[str]:
    """``.ci/run``'s commands outside its PostgreSQL set-up: lines that are neither comments
    nor part of the shell's ``if`` around the installation of PostgreSQL."""
    lines = (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
    end = max(i for i, line in enumerate(lines) if line.strip() == "fi")
    return [line for line in lines[end + 1:] if line.strip() and not line.startswith("#")]


def test_ci_runs_readme_s_test_command_exactly() -> None:
    assert ci_commands() == [readme_test_command()]


def test_the_test_command_installs_the_test_lock_with_its_hashes() -> None:
    command = readme_test_command()
    assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert f"&& {INSTALL} &&" in command
    assert command.endswith("&& ruff check . && mypy && pytest")
    assert 'pip install -e ".[test]"' not in command, "unlocked: whatever the index has today"
