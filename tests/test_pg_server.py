"""The test server's own rules: which PostgreSQL it runs, and that a missing one fails the
tests marked postgres with what to install (they are never skipped)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import pg_server


def fake(folder: Path, version: str) -> Path:
    """A PostgreSQL's programs in ``folder/<major>/bin``: an initdb that tells its version."""
    binaries = folder / version.split(".")[0] / "bin"
    binaries.mkdir(parents=True)
    for name in ("initdb", "pg_ctl", "postgres"):
        program = binaries / name
        program.write_text(f"#!/bin/sh\necho '{name} (PostgreSQL) {version}'\n")
        program.chmod(0o755)
    return binaries


def test_a_missing_postgresql_fails_the_tests_and_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(pg_server, "SEARCHED", (tmp_path / "nothing",))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y postgresql"):
        pg_server.find_binaries()


def test_version_15_is_preferred_and_an_older_one_refused(monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    monkeypatch.setattr(pg_server, "SEARCHED", (tmp_path,))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    fake(tmp_path, "14.9")
    with pytest.raises(pytest.fail.Exception, match=r"bin: 14"):
        pg_server.find_binaries()
    newest = fake(tmp_path, "17.2")
    assert pg_server.find_binaries() == newest
    fifteen = fake(tmp_path, "15.18")
    assert pg_server.find_binaries() == fifteen
