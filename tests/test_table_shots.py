"""The measures of ``scripts/table_shots.py``, without a browser: a label's shown size comes
from the picture's natural and shown widths, a message's screens from its height."""

from __future__ import annotations

import pytest

from scripts.table_shots import (
    PHONE,
    label_pt_min,
    shot,
    shown_px,
    summary,
    table_screens,
)


def test_a_label_is_scaled_with_its_picture() -> None:
    # the Giants board of issue 32: 1383 px wide, shown 253 px wide in an embed
    assert shown_px(20, 1383, 253) == pytest.approx(3.66, abs=0.01)
    assert shown_px(30, 1000, 500) == 15
    with pytest.raises(ValueError):
        shown_px(10, 0, 300)


def test_the_smallest_label_counts() -> None:
    assert label_pt_min([40, 21, 33], 1200, 300) == 5.25
    assert label_pt_min([0, 28], 400, 400) == 28  # an empty text is no label
    assert label_pt_min([], 400, 400) is None


def test_a_message_taller_than_the_phone_takes_more_than_one_screen() -> None:
    assert table_screens(PHONE[1]) == 1.0
    assert table_screens(1224) == 1.45
    assert table_screens(422) == 0.5


def test_a_shot_reads_the_largest_picture_of_the_message() -> None:
    measured = {"height": 900.4, "images": [
        {"natural": [96, 96], "shown": [40, 40]},  # an avatar
        {"natural": [1383, 1530], "shown": [302, 334]}], "parts": {"pictures": 334,
                                                                   "Scores": 48}}
    found = shot(3, "table", "03-table.png", measured, [32.0, 24.0])
    assert found.natural == (1383, 1530) and found.shown == (302, 334)
    assert found.label_pt_min == pytest.approx(24 * 302 / 1383, abs=0.01)
    assert found.table_screens == table_screens(900.4) > 1.0
    assert found.parts == {"pictures": 334, "Scores": 48}, "where the height goes"
    bare = shot(1, "dm", "01-dm.png", {"height": 120, "images": []}, [30.0])
    assert bare.label_pt_min is None and bare.natural is None


def test_the_summary_is_the_worst_stage_of_each_place() -> None:
    shots = [shot(1, "table", "a", {"height": 700, "images": [
                  {"natural": [1000, 1000], "shown": [300, 300]}]}, [30.0]),
             shot(2, "table", "b", {"height": 900, "images": [
                 {"natural": [1000, 1000], "shown": [300, 300]}]}, [20.0]),
             shot(1, "dm", "c", {"height": 300, "images": [
                 {"natural": [600, 200], "shown": [300, 100]}]}, [16.0])]
    found = summary(shots)
    assert found["table"] == {"label_pt_min": 6.0, "table_screens": table_screens(900),
                              "shots": 2}
    assert found["dm"]["label_pt_min"] == 8.0
    assert found["label_pt_min"] == 6.0 and found["table_screens"] == table_screens(900)
