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


def test_a_guided_step_s_labels_count_for_the_table_and_its_height_does_not() -> None:
    """Where a decision's places are spread over the board, the player names them on the
    message of a guided step (its places close up): those labels are the table's, while the
    table's height is the live message's alone."""
    board = {"natural": [1383, 1530], "shown": [302, 334]}
    close = {"natural": [504, 378], "shown": [302, 226]}
    shots = [shot(1, "table", "a", {"height": 800, "images": [board]}, []),
             shot(1, "step", "b", {"height": 1000, "images": [close]}, [12.0, 14.0]),
             shot(2, "table", "c", {"height": 820, "images": [close]}, [13.0])]
    found = summary(shots)
    assert shots[0].label_pt_min is None, "a decision naming no place has no label to read"
    assert found["table"]["label_pt_min"] == pytest.approx(12 * 302 / 504, abs=0.01)
    assert found["table"]["table_screens"] == table_screens(820)
    assert found["step"]["table_screens"] == table_screens(1000)
    assert found["table_screens"] == table_screens(820)
