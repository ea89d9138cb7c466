"""The touch-only table report (issue 32): humans who never type finish a game by taps alone,
within the taps per decision the issue allows."""

from __future__ import annotations

from bot.games import game_ui
from scripts import table_report
from scripts.tables import touch

PLACES = [f"place {h} {n}" for h in ("A1", "B1", "B2") for n in (1, 2)] + ["withdraw C1"]


def test_the_taps_to_a_move_are_planned_as_the_bot_builds_its_steps() -> None:
    ui = game_ui("makemake")
    assert touch.plan(ui, "domination", PLACES, "place B2 2", "en") == [(2, "place B2"),
                                                                         (1, "2")]
    assert touch.plan(ui, "domination", PLACES, "withdraw C1", "en") == [(3, "withdraw C1")]
    assert touch.plan(ui, "domination", PLACES, "place E9 1", "en") is None
    many = [f"place {r}{n} 1" for r, top in zip("ABCDE", (5, 6, 7, 8, 9), strict=True)
            for n in range(1, top + 1)]
    assert touch.plan(ui, "domination", many, "place D3 1", "en") == [(3, ""), (2, "place D3")]
    alone = [f"place A{n} 1" for n in range(1, 27)] + ["place B1 1", "place B1 2"]
    assert touch.plan(ui, "domination", alone, "place B1 2", "en") == [(2, ""), (1, "2")]


def test_percentiles_are_nearest_rank() -> None:
    assert touch.percentile([], 0.5) == 0
    assert touch.percentile([3, 1, 2, 9], 0.5) == 2
    assert touch.percentile(list(range(1, 21)), 0.95) == 19


async def test_a_short_make_make_game_by_touch_alone() -> None:
    report = await table_report.run("makemake", 3, 1, 1, "en", ["round_limit=2"],
                                    touch_only=True)
    assert report["finished"] and report["typed"] == 0
    assert report["human_actions"] == 6
    assert 1 <= report["taps_per_decision_p50"] <= 3
    assert report["taps_per_decision_p95"] <= 6
    assert report["live_component_messages_max"] == 1
    assert set(report) == set(table_report.REPORT_KEYS)
