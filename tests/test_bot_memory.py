"""The serving process's collector: fewer collections, the loaded games frozen; a process
that did not ask for it (tests) keeps Python's defaults."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from bot.host import memory


@pytest.fixture
def restored() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.set_threshold(*thresholds)
    gc.unfreeze()
    memory._tuned = False


def test_settle_does_nothing_in_an_untuned_process(restored: None) -> None:
    before = gc.get_freeze_count()
    memory.settle()
    assert gc.get_freeze_count() == before
    assert gc.get_threshold() != memory.THRESHOLDS


def test_a_serving_process_collects_less_and_freezes_what_it_loaded(restored: None) -> None:
    memory.collect_less()
    assert gc.get_threshold() == memory.THRESHOLDS
    loaded = [{"game": n, "log": [str(n)]} for n in range(1000)]
    memory.settle()
    assert gc.get_freeze_count() >= len(loaded)
    assert not any(gc.is_tracked(x) and x in gc.get_objects(0) for x in loaded[:3])
