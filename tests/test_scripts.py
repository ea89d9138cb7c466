"""The measuring scripts keep working: each runs end to end on a tiny workload."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*argv: str) -> str:
    done = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_benchmark_prints_every_figure() -> None:
    out = run("scripts/benchmark.py", "--games", "1", "--parallel", "2", "--quick")
    for game in ("makemake", "giants", "giganten"):
        assert f"{game}, " in out
    for figure in ("apply", "commit", "render end: canvas", "bare PNG save", "games/s",
                   "random AI games at once", "greedy AI games at once"):
        assert figure in out


def test_ai_match_reports_a_win_rate() -> None:
    out = run("scripts/ai_match.py", "makemake", "--games", "3", "--seats", "3")
    assert "greedy win rate:" in out and "games/s" in out


def test_the_live_benchmark_prints_its_figures() -> None:
    """Three live games (one of each kind) through the host, the store, the outbox and a
    render worker, and a start from a store of 30 games."""
    out = run("scripts/benchmark.py", "--live", "--games", "3", "--interval", "0",
              "--seconds", "2", "--workers", "1", "--startup", "30", "--json")
    figures = json.loads(out)
    for key in ("p50_ms", "p99_ms", "moves_per_s", "loop_lag_max_ms", "cpu_cores", "rss_mb",
                "startup_s"):
        assert key in figures, key
    assert figures["moves"] > 0 and figures["p99_ms"] >= figures["p50_ms"] > 0
    assert figures["render_workers"] == 1 and figures["renders_per_move"] > 0
    assert figures["lost"] == 0 and figures["double_applied"] == 0
    assert figures["games"] == 30 and figures["loaded"] == figures["running"] > 0


@pytest.mark.postgres
def test_the_live_benchmark_runs_two_processes_over_postgresql() -> None:
    """Three live games over a PostgreSQL server of the benchmark's own, shown by two bot
    processes (the games spread over their shards); the Giants game's sealed bids go to
    process 0, as DMs do, and its own process shows them. Nothing acknowledged is lost or
    applied twice."""
    out = run("scripts/benchmark.py", "--live", "--games", "3", "--interval", "0",
              "--seconds", "3", "--workers", "1", "--store", "postgresql", "--processes", "2",
              "--json")
    figures = json.loads(out)
    assert figures["store"] == "postgresql" and figures["processes"] == 2
    assert figures["moves"] > 0 and all(n > 0 for n in figures["moves_by_process"])
    assert figures["forwarded"] > 0, "a secret choice went to process 0"
    assert figures["acknowledged"] >= figures["moves"]
    assert figures["lost"] == 0 and figures["double_applied"] == 0
