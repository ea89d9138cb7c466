"""Small pieces of the Discord layer checked on their own: the autocomplete filter, and the
secret lines a game without a presentation never shows. (The bot that simcord drives, and
what a player sees of it, are shared from ``tests/helpers/bots.py``.)"""

from __future__ import annotations

from types import SimpleNamespace

from bot.exts.play import matches
from bot.games import game_ui
from bot.host.sessions import Seat, Step
from bot.table.words import step_lines


def test_autocomplete_filter_prefers_prefixes() -> None:
    actions = ["place A1 1", "place A1 1 chief", "place B2 3", "withdraw B2", "pass"]
    assert matches("", actions) == actions
    assert matches("PLACE  a1", actions) == ["place A1 1", "place A1 1 chief"]
    assert matches("b2", actions) == ["place B2 3", "withdraw B2"]
    assert len(matches("", [f"x {i}" for i in range(100)])) == 25


def test_a_game_without_presentation_never_shows_secret_lines() -> None:
    session = SimpleNamespace(row=SimpleNamespace(game="giants"), seats=[Seat("red", 1)])
    step = Step("red", "red bid 2m 1w chief", [{"kind": "bid", "seat": "red"}], "human",
                sealed="red")
    [line] = step_lines(session, [step], "en")  # type: ignore[arg-type]
    assert "bid" not in line and "Red" in line
    assert not game_ui("giants").public_lines and game_ui("makemake").public_lines
