"""The whole bot on PostgreSQL, through the simulated Discord: the host and the extensions
cannot tell the backends apart, so whole games (restarts, turn timers, sealed bids and DMs
included) are the very tests that run on SQLite, with the settings naming a PostgreSQL
database of the test server instead (``DATABASE_URL``)."""

from __future__ import annotations

import itertools

import pytest

from bot.host.clock import ManualClock
from bot.settings import Settings
from tests.helpers.hidden import a_restart_during_the_bids_keeps_them_secret_and_the_forms_working
from tests.helpers.tables import (
    three_player_game_with_ai_and_restart_to_the_end,
    turn_timer_reminds_then_lets_the_ai_play_even_after_a_restart,
)

pytestmark = pytest.mark.postgres


@pytest.fixture
def settings(pg_url: str) -> Settings:
    """The Discord tests' settings, on a fresh PostgreSQL database."""
    seeds = itertools.count(7)
    return Settings(database_url=pg_url, clock=ManualClock(), seed_source=lambda: next(seeds),
                    render_workers=0)


def test_the_settings_name_postgresql(settings: Settings, pg_url: str) -> None:
    assert settings.database == pg_url and settings.sqlite_path is None


async def test_three_player_game_with_ai_and_restart_to_the_end(simcord_env, new_bot):
    await three_player_game_with_ai_and_restart_to_the_end(simcord_env, new_bot)


async def test_turn_timer_reminds_then_lets_the_ai_play_even_after_a_restart(
        simcord_env, settings, new_bot):
    await turn_timer_reminds_then_lets_the_ai_play_even_after_a_restart(
        simcord_env, settings, new_bot)


async def test_a_restart_during_the_bids_keeps_them_secret_and_the_forms_working(
        simcord_env, new_bot):
    await a_restart_during_the_bids_keeps_them_secret_and_the_forms_working(simcord_env, new_bot)
