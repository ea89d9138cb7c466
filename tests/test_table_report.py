"""The table report plays a whole game through the simulated Discord, humans acting only
through what the bot shows them, and the table stays calm (issue limits per round)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scripts import table_report

ROOT = Path(__file__).resolve().parent.parent


async def test_a_short_make_make_game_is_calm() -> None:
    report = await table_report.run("makemake", 3, 1, 1, "en", ["round_limit=4"])
    assert report["finished"] and report["rounds"] == 4
    assert report["live_component_messages_max"] == 1
    assert report["stale_components_at_end"] == 0
    assert report["per_round"]["channel_messages"] <= 4
    assert report["per_round"]["channel_images"] <= 4
    assert report["human_actions"] >= 3 * 4 and report["gestures"] >= report["human_actions"]
    assert set(report) == set(table_report.REPORT_KEYS)


async def test_giants_in_spanish_with_a_closed_dm_player_is_calm() -> None:
    report = await table_report.run("giants", 3, 1, 2, "es", ["round_limit=2"])
    assert report["finished"] and report["rounds"] == 2
    assert report["live_component_messages_max"] == 1
    assert report["stale_components_at_end"] == 0
    assert report["per_round"]["channel_messages"] <= 6.5  # the lobby card counts in 2 rounds
    assert report["per_round"]["channel_images"] <= 5
    assert report["per_round"]["dms_most"] <= 3 and report["per_round"]["mentions_most"] <= 2
    assert report["dms"]["player3"] <= 1, "the closed-DM player is tried once, then remembered"


def test_the_script_prints_one_json_object() -> None:
    done = subprocess.run([sys.executable, "scripts/table_report.py", "makemake",
                           "round_limit=2", "--humans", "2", "--ai", "1", "--seed", "3",
                           "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["finished"] is True and report["rounds"] == 2
