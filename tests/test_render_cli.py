"""``python -m render``: writes the board of a record and returns the documented exit codes."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

import render.__main__ as cli

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
GOOD = "game makemake red blue green\nred place A1 2 chief\nblue place E9 1\n"
REJECTED = "game makemake red blue green\nred place C2 2 chief\n\nblue place C2 5\n"


@pytest.fixture
def record(tmp_path: Path):
    def write(text: str) -> Path:
        path = tmp_path / "game.txt"
        path.write_text(text, encoding="utf-8")
        return path
    return write


def run(*args: str | Path) -> int:
    return cli.main([str(a) for a in args])


def test_writes_the_board_and_exits_0(record, tmp_path: Path) -> None:
    out = tmp_path / "board.png"
    assert run(record(GOOD), "-o", out) == 0
    data = out.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert Image.open(out).width >= 1200


def test_a_seat_view_and_a_language_are_accepted(record, tmp_path: Path) -> None:
    out = tmp_path / "board.png"
    assert run(record(GOOD), "--seat", "RED", "--lang", "es", "-o", out) == 0
    assert out.read_bytes().startswith(PNG_SIGNATURE)


def test_highlight_rings_the_given_labels(record, tmp_path: Path) -> None:
    plain, lit = tmp_path / "plain.png", tmp_path / "lit.png"
    assert run(record(GOOD), "-o", plain) == 0
    assert run(record(GOOD), "--highlight", "A1,S01,Q9", "-o", lit) == 0
    assert lit.read_bytes() != plain.read_bytes()
    assert run(record(GOOD), "--highlight", "Q9,", "-o", lit) == 0
    assert lit.read_bytes() == plain.read_bytes()


def test_the_map_a_focus_and_the_smallest_label(record, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    board, island, focus = tmp_path / "board.png", tmp_path / "map.png", tmp_path / "focus.png"
    assert run(record(GOOD), "-o", board) == 0
    assert run(record(GOOD), "--map", "--labels", "-o", island) == 0
    assert "px on a phone 340 px across" in capsys.readouterr().out
    assert Image.open(island).width == Image.open(board).width
    assert Image.open(island).height < Image.open(board).height
    assert run(record(GOOD), "--focus", "A1,S01", "--labels", "-o", focus) == 0
    assert Image.open(focus).size == (504, 378)
    said = capsys.readouterr().out
    shown = float(said.split(": ")[-1].split(" px")[0])
    assert shown >= 7, said


def test_reads_standard_input(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(GOOD))
    out = tmp_path / "board.png"
    assert run("-", "-o", out) == 0
    assert out.exists()


def test_rejected_line_is_printed_exits_1_and_still_writes(record, tmp_path: Path,
                                                           capsys) -> None:
    out = tmp_path / "board.png"
    assert run(record(REJECTED), "-o", out) == 1
    assert capsys.readouterr().out.splitlines() == [
        "line 4: too_weak (hex=C2, attack=5, defence=5)"]
    assert out.read_bytes().startswith(PNG_SIGNATURE)


@pytest.mark.parametrize("text", ["", "# only a comment\n", "game chess white black\n",
                                  "game makemake red\n"])
def test_unreadable_record_exits_2(record, tmp_path: Path, text: str) -> None:
    out = tmp_path / "board.png"
    assert run(record(text), "-o", out) == 2
    assert not out.exists()


def test_missing_file_exits_2(tmp_path: Path) -> None:
    assert run(tmp_path / "nothing.txt", "-o", tmp_path / "board.png") == 2


def test_seat_not_in_the_game_exits_2(record, tmp_path: Path) -> None:
    assert run(record(GOOD), "--seat", "yellow", "-o", tmp_path / "board.png") == 2


def test_game_without_renderer_exits_2(record, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(cli, "renderer", lambda game: None)
    out = tmp_path / "board.png"
    assert run(record(GOOD), "-o", out) == 2
    assert not out.exists()


def test_renderer_is_found_by_game_name() -> None:
    assert cli.renderer("makemake").__name__ == "render.makemake"
    assert cli.renderer("no_such_game") is None


def test_runs_as_a_module(record, tmp_path: Path) -> None:
    out = tmp_path / "board.png"
    done = subprocess.run([sys.executable, "-m", "render", str(record(REJECTED)), "-o", str(out)],
                          capture_output=True, text=True, cwd=Path(__file__).parent.parent,
                          check=False)
    assert done.returncode == 1
    assert done.stdout.startswith("line 4: too_weak")
    assert out.exists()
