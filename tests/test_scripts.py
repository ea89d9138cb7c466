"""The measuring scripts keep working: each runs end to end on a tiny workload."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*argv: str) -> str:
    done = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_benchmark_prints_every_figure() -> None:
    out = run("scripts/benchmark.py", "--games", "1", "--parallel", "2")
    for game in ("makemake", "giants", "giganten"):
        assert f"{game}, " in out
    for figure in ("apply", "commit", "render end: canvas", "bare PNG save", "games/s",
                   "random AI games at once", "greedy AI games at once"):
        assert figure in out


def test_ai_match_reports_a_win_rate() -> None:
    out = run("scripts/ai_match.py", "makemake", "--games", "3", "--seats", "3")
    assert "greedy win rate:" in out and "games/s" in out
