"""Shared fixtures and helpers for the Discord tests (simcord drives the real bot offline)."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot import create_bot
from bot.bot import GameBot
from bot.clock import ManualClock
from bot.exts.play import matches
from bot.settings import Settings


def make_settings(db_path: Path, first_seed: int = 7) -> Settings:
    seeds = itertools.count(first_seed)
    return Settings(db_path=db_path, clock=ManualClock(), seed_source=lambda: next(seeds))


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path / "games.sqlite3")


class Bots:
    """Builds bots on one database and closes their stores at the end: the simulator does not
    call ``close()``, and an open SQLite connection keeps its worker thread alive."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.made: list[GameBot] = []

    def __call__(self) -> GameBot:
        bot = create_bot(self.settings)
        self.made.append(bot)
        return bot

    async def close(self) -> None:
        for bot in self.made:
            if bot.store is not None:
                await bot.store.close()
                bot.store = None


@pytest.fixture
async def new_bot(settings: Settings) -> AsyncIterator[Bots]:
    bots = Bots(settings)
    yield bots
    await bots.close()


@pytest.fixture
def simcord_bot(new_bot: Bots) -> GameBot:
    return new_bot()


def test_autocomplete_filter_prefers_prefixes() -> None:
    actions = ["place A1 1", "place A1 1 chief", "place B2 3", "withdraw B2", "pass"]
    assert matches("", actions) == actions
    assert matches("PLACE  a1", actions) == ["place A1 1", "place A1 1 chief"]
    assert matches("b2", actions) == ["place B2 3", "withdraw B2"]
    assert len(matches("", [f"x {i}" for i in range(100)])) == 25


def test_a_game_without_presentation_never_shows_secret_lines() -> None:
    from bot.announce import step_lines
    from bot.games import game_ui
    from bot.sessions import Seat, Step

    session = SimpleNamespace(row=SimpleNamespace(game="giants"), seats=[Seat("red", 1)])
    step = Step("red", "red bid 2m 1w chief", [{"kind": "bid", "seat": "red"}], "human")
    [line] = step_lines(session, [step], "en")  # type: ignore[arg-type]
    assert "bid" not in line and "Red" in line
    assert not game_ui("giants").public_lines and game_ui("makemake").public_lines
