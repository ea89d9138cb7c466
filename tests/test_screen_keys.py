"""A DM screen is redrawn only when its key changes, so the key must hold everything the
picture shows: along played games, positions with equal keys have equal pictures."""

from __future__ import annotations

import pytest

from bot.games import game_ui
from rules.record import replay
from scripts.ai_match import play


@pytest.mark.parametrize("name, seats", [("giants", 4), ("giganten", 3)])
def test_equal_keys_draw_equal_screens(name: str, seats: int) -> None:
    ui = game_ui(name)
    record = play(name, seats, 0, 5, []).record()
    lines = record.splitlines()
    seen: dict[tuple[str, str], bytes] = {}
    redraws = checked = 0
    for upto in range(1, len(lines), max(1, len(lines) // 40)):
        game, _ = replay("\n".join(lines[:upto + 1]))
        for colour in game.header.seats:
            view = game.header.module.view(game.state, colour)
            key = repr(ui.screen_key(view, colour))
            picture = ui.screen(view, colour, "en")
            assert picture is not None
            if (key, colour) in seen:
                checked += 1
                assert seen[(key, colour)] == picture, (upto, colour)
            else:
                redraws += 1
            seen[(key, colour)] = picture
    assert checked > 20 and redraws > 10, (checked, redraws)
