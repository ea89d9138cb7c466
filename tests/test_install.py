"""The project installed as an admin installs it: not editable, into a fresh venv, used from
another folder. The venv is installed exactly as the Dockerfile installs the image (from what
the build context holds: the lock first, each file checked against its hash, then the code
with ``--no-deps``), and the wheel built from a used checkout holds every catalogue and font
and no database.

These tests build and install the project, so they need the package index (CI has it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image

from render.i18n import LANGUAGES, t
from rules.data import BOARDS
from tests.helpers.dockerfile import DOCKERFILE, copies
from tests.helpers.dockerignore import context_files

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("giganten", "giants", "makemake")
KEY = "bot.lobby.button.join"


def clean_env() -> dict[str, str]:
    """The environment without anything that would point Python at this checkout."""
    return {name: value for name, value in os.environ.items()
            if name not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=clean_env(), text=True,
                          capture_output=True)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done


@dataclass
class Installed:
    python: Path
    site_packages: Path
    work: Path
    """A folder outside the checkout, where the installed commands run."""
    pip_check: str


def image_source(into: Path) -> Path:
    """What the Dockerfile's COPY instructions put in the image: from the build context (the
    checkout as ``.dockerignore`` leaves it), each source to its destination."""
    sent = list(context_files(ROOT))
    for sources, destination in copies():
        for source in sources:
            files = [p for p in sent if p == source or p.startswith(source + "/")]
            assert files, f"COPY {source}: nothing in the build context"
            for path in files:
                target = into / destination / (Path(path).name if path == source
                                               else Path(path).relative_to(source))
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / path, target)
    return into


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("install")
    source = image_source(base / "src")
    run(sys.executable, "-m", "venv", base / "venv", cwd=base)
    python = base / "venv" / "bin" / "python"
    pip = (python, "-m", "pip")
    # The Dockerfile's two installs, word for word.
    lock_install = "pip install --no-cache-dir --require-hashes -r requirements.lock"
    code_install = "pip install --no-cache-dir --no-deps ."
    assert ("RUN", lock_install) in DOCKERFILE
    assert ("RUN", code_install + " && pip check") in DOCKERFILE
    run(*pip, *lock_install.split()[1:], cwd=source)
    run(*pip, *code_install.split()[1:], cwd=source)
    checked = run(*pip, "check", cwd=source).stdout
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
               cwd=base).stdout.strip()
    work = base / "elsewhere"
    work.mkdir()
    yield Installed(python, Path(site), work, checked)


def test_the_install_is_consistent(installed: Installed) -> None:
    assert "No broken requirements found" in installed.pip_check


def test_the_code_and_data_come_from_the_install(installed: Installed) -> None:
    where = run(installed.python, "-c",
                "import bot, render, rules, rapanui_data; "
                "print('\\n'.join(m.__file__ for m in (bot, render, rules, rapanui_data)))",
                cwd=installed.work).stdout.split()
    assert len(where) == 4
    for path in where:
        assert Path(path).is_relative_to(installed.site_packages), path
    assert not (installed.site_packages / "data").exists()


def test_the_installed_catalogues_translate(installed: Installed) -> None:
    script = ("import sys; from render.i18n import t; "
              "print('\\n'.join(t(sys.argv[1], lang) for lang in sys.argv[2:]))")
    said = run(installed.python, "-c", script, KEY, *LANGUAGES,
               cwd=installed.work).stdout.splitlines()
    assert said == [t(KEY, lang) for lang in LANGUAGES]
    assert KEY not in said and len(set(said)) >= 4  # each language its own word


def test_the_installed_data_has_no_problem(installed: Installed) -> None:
    out = run(installed.python, "-c",
              "from render.assets import problems; print(len(problems())); print(problems())",
              cwd=installed.work).stdout
    assert out.splitlines()[0] == "0", out


def test_the_installed_bot_checks_out_without_the_network(installed: Installed) -> None:
    """``DISCORD_TOKEN=x python -m bot check`` from another folder: every finding ok, exit 0,
    and the database it would use is only named, not created."""
    env = clean_env() | {"DISCORD_TOKEN": "x", "GAMES_DB": str(installed.work / "games.sqlite3")}
    env = {name: value for name, value in env.items()
           if name not in ("BOT_LANGUAGE", "GUILD_ID", "LOG_LEVEL", "SYNC_COMMANDS",
                           "SQLITE_SYNCHRONOUS", "PURGE_AFTER_DAYS")}
    done = subprocess.run([str(installed.python), "-m", "bot", "check"], cwd=installed.work,
                          env=env, text=True, capture_output=True, timeout=60)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert lines and not [line for line in lines if line.startswith("problem")], lines
    assert "ok: catalogues and fonts" in lines
    assert not (installed.work / "games.sqlite3").exists()


def test_the_installed_tree_holds_no_database(installed: Installed) -> None:
    data = installed.site_packages / "rapanui_data"
    assert sorted(p.name for p in (data / "i18n").iterdir()) == sorted(LANGUAGES)
    assert not [p for p in installed.site_packages.rglob("*")
                if ".sqlite3" in p.name or p.suffix == ".bak"]


def render_all(installed: Installed, game: str) -> dict[str, bytes]:
    """``python -m rules play GAME --seats 3 > g.txt``, then the board in every language."""
    folder = installed.work / game
    folder.mkdir()
    with open(folder / "g.txt", "w", encoding="utf-8") as record:
        done = subprocess.run([str(installed.python), "-m", "rules", "play", game, "--seats",
                               "3"], cwd=folder, env=clean_env(), stdout=record,
                              stderr=subprocess.PIPE, text=True)
    assert done.returncode == 0, done.stderr
    assert (folder / "g.txt").read_text("utf-8").startswith(f"game {game} ")

    def draw(lang: str) -> bytes:
        out = f"b-{lang}.png"
        run(installed.python, "-m", "render", "g.txt", "--lang", lang, "-o", out, cwd=folder)
        return (folder / out).read_bytes()

    with ThreadPoolExecutor(max_workers=3) as pool:
        return dict(zip(LANGUAGES, pool.map(draw, LANGUAGES), strict=True))


@pytest.mark.parametrize("game", GAMES)
def test_the_installed_commands_draw_a_board_in_every_language(installed: Installed,
                                                               game: str) -> None:
    images = render_all(installed, game)
    for lang, png in images.items():
        with Image.open(installed.work / game / f"b-{lang}.png") as image:
            image.verify()
        with Image.open(installed.work / game / f"b-{lang}.png") as image:
            assert image.format == "PNG", lang
            assert image.width >= 600 and image.height >= 400, (lang, image.size)
        assert len(png) > 20_000, lang
    assert len(set(images.values())) == len(LANGUAGES), "each language draws its own legend"


# --- the wheel ------------------------------------------------------------------------------

PLANTED = ("data/games.sqlite3", "data/games.sqlite3-wal", "data/games.sqlite3-shm",
           "data/games.sqlite3.v4.bak", "data/i18n/en/bot.json.bak", "data/notes.txt")
"""What a used checkout holds next to the shipped data (the wheel must not take it)."""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    base = tmp_path_factory.mktemp("wheel")
    checkout = base / "checkout"
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True,
                             text=True).stdout.split()
    for path in tracked:
        if (ROOT / path).is_file():
            (checkout / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / path, checkout / path)
    for path in ("data/__init__.py", "requirements.lock", ".dockerignore"):
        shutil.copy2(ROOT / path, checkout / path)  # in case they are not committed yet
    for path in PLANTED:
        (checkout / path).write_text("not shipped", "utf-8")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "-w", base / "out",
        checkout, cwd=base)
    [built] = (base / "out").glob("rapanui_games-*.whl")
    with zipfile.ZipFile(built) as archive:
        return archive.namelist()


def test_the_wheel_holds_every_catalogue_font_and_board(wheel: list[str]) -> None:
    shipped = set(wheel)
    catalogues = sorted(p.relative_to(ROOT / "data").as_posix()
                        for p in (ROOT / "data" / "i18n").glob("*/*.json"))
    assert len(catalogues) >= 5 * 17
    fonts = sorted(p.name for p in (ROOT / "data" / "fonts").iterdir())
    assert {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "wqy-microhei.ttc", "LICENSE-DejaVu.txt",
            "LICENSE-WenQuanYi.txt"} <= set(fonts)
    expected = {f"rapanui_data/{path}" for path in catalogues}
    expected |= {f"rapanui_data/fonts/{name}" for name in fonts}
    expected |= {f"rapanui_data/{name}" for name in BOARDS} | {"rapanui_data/__init__.py"}
    assert sorted(expected - shipped) == []
    assert sorted(p for p in shipped if p.startswith("rapanui_data/")) == sorted(expected)


def test_the_wheel_holds_every_module(wheel: list[str]) -> None:
    modules = {p.relative_to(ROOT).as_posix() for top in ("rules", "render", "bot")
               for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts}
    assert sorted(modules - set(wheel)) == []


def test_the_wheel_holds_no_database_and_nothing_else(wheel: list[str]) -> None:
    assert not [p for p in wheel if ".sqlite3" in p or p.endswith(".bak") or "notes" in p]
    tops = {p.split("/")[0] for p in wheel}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"rules", "render", "bot",
                                                                  "rapanui_data"}
