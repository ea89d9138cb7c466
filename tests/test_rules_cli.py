"""``python -m rules``: replay, legal and play, their output and exit codes (DESIGN.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rules.__main__ import main

EXAMPLES = Path(__file__).parent / "records" / "makemake"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_play_then_replay_as_a_shell_pipeline(tmp_path: Path) -> None:
    record = tmp_path / "g.txt"
    with record.open("w") as out:
        played = subprocess.run([sys.executable, "-m", "rules", "play", "makemake", "--seats",
                                 "3", "--seed", "1"], stdout=out, check=False)
    assert played.returncode == 0
    replayed = subprocess.run([sys.executable, "-m", "rules", "replay", str(record)],
                              capture_output=True, text=True, check=False)
    assert replayed.returncode == 0, replayed.stdout
    assert "finished: true" in replayed.stdout


@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("ai", ["random", "greedy"])
@pytest.mark.parametrize("seed", range(4))
def test_played_games_replay_exactly(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                     seats: int, ai: str, seed: int) -> None:
    code, record = run(capsys, "play", "makemake", "--seats", str(seats), "--seed", str(seed),
                       "--ai", ai, "round_limit=30")
    assert code == 0
    assert record.splitlines()[0].startswith("game makemake red blue green")
    path = tmp_path / "g.txt"
    path.write_text(record)
    code, out = run(capsys, "replay", str(path), "--json")
    view = json.loads(out)
    assert code == 0 and view["finished"] and view["winners"]


def test_replay_reports_rejected_lines_by_file_line_number(capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text("# a comment\n\ngame makemake red blue green\nred place C2 2 chief\n"
                    "blue place C2 5\nblue place C2 6\n")
    code, out = run(capsys, "replay", str(path))
    assert code == 1 and out.startswith("line 5: too_weak")
    assert "blue place" not in out and "round: 1" in out
    code, out = run(capsys, "replay", str(path), "--keep-going", "--json")
    head, _, body = out.partition("{")
    assert code == 1 and head.strip() == "line 5: too_weak (hex=C2, attack=5, defence=5)"
    assert json.loads("{" + body)["board"]["C2"]["owner"] == "blue"


def test_the_rejection_example_with_keep_going(capsys: pytest.CaptureFixture[str]) -> None:
    (path,) = EXAMPLES.glob("10_11_*.txt")
    code, out = run(capsys, "replay", str(path), "--keep-going")
    numbers = [int(line.split()[1].rstrip(":")) for line in out.splitlines()
               if line.startswith("line ")]
    assert code == 1 and numbers == [2, 3, 4, 5, 6, 7, 9, 10, 11, 15, 17, 19, 23]


@pytest.mark.parametrize("text", ["", "# only a comment\n", "game makemake red\n",
                                  "game nothing red blue green\n"])
def test_unreadable_records_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                   text: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    assert run(capsys, "replay", str(path))[0] == 2
    assert run(capsys, "legal", str(path))[0] == 2


def test_missing_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, "replay", str(tmp_path / "none.txt"))[0] == 2


def test_legal_prints_record_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (path,) = EXAMPLES.glob("10_8_*.txt")
    partial = tmp_path / "partial.txt"
    partial.write_text("\n".join(path.read_text().splitlines()[:14]) + "\n")
    code, out = run(capsys, "legal", str(partial))
    assert code == 0 and out.splitlines() == ["red moai E1", "red moai E2"]
    code, out = run(capsys, "legal", str(partial), "--seat", "blue")
    assert code == 0 and out == ""


def test_replay_reads_standard_input(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    import io
    monkeypatch.setattr(sys, "stdin", io.StringIO("game makemake red blue green\nred pass\n"))
    code, out = run(capsys, "replay", "-")
    assert code == 1 and out.startswith("line 2: pass_not_allowed")


def test_a_seating_the_engine_refuses_exits_2(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    path = tmp_path / "g.txt"
    path.write_text("game giants red blue yellow\n")  # Giants seats the first N colours
    assert run(capsys, "replay", str(path))[0] == 2


def test_json_output_starts_at_the_view(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    path = tmp_path / "g.txt"
    path.write_text("game makemake red blue green\nred place {\n")
    code, out = run(capsys, "replay", str(path), "--keep-going", "--json")
    head, brace, body = out.partition("{")
    assert code == 1 and head.startswith("line 2: syntax")
    assert json.loads(brace + body)["pending"] == ["red"]


def test_play_with_the_strong_ai_repeats_itself_for_a_seed_and_iterations(
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("play", "makemake", "--seats", "3", "--seed", "2", "--ai", "strong",
            "--ai-iterations", "3", "round_limit=2")
    code, record = run(capsys, *argv)
    assert code == 0 and record.startswith("game makemake red blue green round_limit=2 seed=2")
    assert run(capsys, *argv) == (0, record)
    code, timed = run(capsys, "play", "makemake", "--seats", "3", "--ai", "strong",
                      "--ai-budget-ms", "1", "round_limit=1")
    assert code == 0 and timed.startswith("game makemake")
    with pytest.raises(SystemExit):
        main(["play", "makemake", "--seats", "3", "--ai", "strong", "--ai-iterations", "0"])
