"""The engines say what a forced action is (``rules.core.forced``): a seat whose only legal
action is a pass has nothing to decide, and the host plays it for them. The host never reads a
move's words to find out."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from rules.core import forced
from rules.giants.actions import Pass as GiantsPass
from rules.giganten.actions import Pass as GigantenPass
from rules.makemake.actions import Pass as MakemakePass


@dataclass(frozen=True)
class Word:
    """An action that reads "pass" but is not marked forced."""

    def __str__(self) -> str:
        return "pass"


@pytest.mark.parametrize("cls", [GiantsPass, GigantenPass, MakemakePass])
def test_every_game_marks_its_pass_forced(cls: type) -> None:
    assert forced([cls()]) == cls()
    assert str(cls()) == "pass" and cls() == cls(), "the action itself is unchanged"


def test_only_a_marked_only_action_is_forced() -> None:
    assert forced([]) is None
    assert forced([MakemakePass(), Word()]) is None, "a choice"
    assert forced([Word()]) is None, "the words do not make it forced"
