"""Strong AI seats think in worker processes of their own (``bot/host/thinking.py``): a whole
game through Discord with strong seats, a search in flight that holds up no other game, a worker
that dies and a game that goes on, and ``ai=strong`` offered in the lobby in every language."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from bot.host.clock import ManualClock
from bot.host.sessions import Host, Session, ai_rng, ai_seed
from bot.host.store import SqliteStore, Store
from bot.host.thinking import Thinking, decide, process_pool
from bot.settings import BadSettings, Settings
from render.i18n import LANGUAGES, t
from rules import ai
from rules.ismcts import Budget
from rules.record import replay_lines
from rules.registry import game_module
from tests.helpers.bots import make_settings
from tests.helpers.tables import fresh, host_of, open_game, play_first_legal, session_in, start

ITERATIONS = 2
"""A tiny search: the tests are about where decisions are made, not how well."""


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """The bot of these tests thinks in one real worker process, for a few iterations."""
    return dataclasses.replace(make_settings(tmp_path / "games.sqlite3"), ai_workers=1,
                               ai_iterations=ITERATIONS)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await SqliteStore.open(tmp_path / "host.sqlite3", ManualClock())
    yield opened
    await opened.close()


async def running(host: Host, channel: int, humans: int, ai_seats: int, level: str,
                  **options: str) -> Session:
    """A started Make Make game with ``humans`` human seats (users 1, 2, ...) and AI seats."""
    session = await host.create(channel_id=channel, guild_id=1, game="makemake",
                                options=options, creator_id=1, language="en", ai_level=level,
                                join=False)
    for user in range(1, humans + 1):
        await host.join(session.id, user)
    for _ in range(ai_seats):
        await host.add_ai(session.id, 1)
    return (await host.start(session.id, 1)).session


def thinking_of(host: Host, **kwargs: Any) -> Thinking:
    host.thinking = Thinking(budget_ms=None, iterations=ITERATIONS, **kwargs)
    return host.thinking


def test_the_ai_settings() -> None:
    default = Settings.from_env({})
    assert (default.ai_budget_ms, default.ai_workers, default.ai_iterations) == (1000, None, None)
    chosen = Settings.from_env({"AI_BUDGET_MS": "250", "AI_WORKERS": "3"})
    assert (chosen.ai_budget_ms, chosen.ai_workers) == (250, 3)
    assert Settings.from_env({"AI_WORKERS": "Auto"}).ai_workers is None
    for name, bad in (("AI_WORKERS", "0"), ("AI_WORKERS", "65"), ("AI_BUDGET_MS", "0"),
                      ("AI_BUDGET_MS", "1.5"), ("AI_BUDGET_MS", "60001")):
        with pytest.raises(BadSettings, match=f"bad setting {name}: "):
            Settings.from_env({name: bad})
    assert Thinking().workers >= 1, "auto: one process per core, at least one"


# --- the worker's side ----------------------------------------------------------------------------

def test_a_worker_decides_from_plain_data_as_the_host_would() -> None:
    """The worker gets JSON and text and answers notation; with an iteration budget its
    decision is the one ``rules.ai.choose`` makes in the host's process for the same seed."""
    module = game_module("makemake")
    state = module.new(["red", "blue", "green"], None, seed=3)
    budget = Budget(iterations=5)
    for seq in range(4):
        here = ai.choose(module, state, "red", "strong", ai_rng(9, seq), budget)
        there = decide("makemake", module.to_json(state), "red", "strong", ai_seed(9, seq), 5,
                       None)
        assert module.parse(there) == here


# --- the host's side ----------------------------------------------------------------------------

class Held(Executor):
    """A pool whose decisions wait until the test lets them go (none is lost meanwhile)."""

    def __init__(self) -> None:
        self.waiting: list[tuple[Future[str], Callable[..., str], tuple[Any, ...]]] = []
        self.asked = asyncio.Event()
        self.free = False

    def submit(self, fn: Callable[..., str], /, *args: Any, **kwargs: Any) -> Future[str]:
        future: Future[str] = Future()
        if self.free:
            future.set_result(fn(*args))
        else:
            self.waiting.append((future, fn, args))
            self.asked.set()
        return future

    def release(self) -> None:
        self.free = True
        for future, fn, args in self.waiting:
            future.set_result(fn(*args))


async def test_a_search_in_flight_holds_up_no_other_game(store: Store) -> None:
    """While one game's strong seat thinks, another game's human moves and its AI answers."""
    host = Host(store, seed_source=lambda: 4)
    held = Held()
    thinking = thinking_of(host, executor=lambda workers: held)
    thinking_game = await running(host, 10, humans=1, ai_seats=2, level="strong")
    other = await running(host, 20, humans=2, ai_seats=1, level="greedy")
    assert thinking_game.pending() == ("red",) and other.pending() == ("red",)

    move = asyncio.create_task(host.play(10, 1, "place A1 1"))
    await held.asked.wait()  # blue's search is in the pool now
    assert not move.done() and thinking_game.pending() == ("blue",)
    report = await host.play(20, 1, "place A1 1")
    assert [step.by for step in report.steps] == ["human"]
    await host.play(20, 2, "place A2 1")  # and the greedy AI answers at once
    assert other.seq == 3 and other.pending() == ("red",)
    assert not move.done() and thinking_game.seq == 1, "the searching game waits for its search"

    held.release()
    report = await move
    assert [step.by for step in report.steps] == ["human", "ai", "ai"]
    assert thinking_game.pending() == ("red",)
    assert (thinking.searched, thinking.fallbacks) == (2, 0)


async def test_a_human_out_of_time_is_played_for_at_the_games_level_strong_too(
        store: Store) -> None:
    host = Host(store, seed_source=lambda: 8)
    held = Held()
    held.free = True
    thinking = thinking_of(host, executor=lambda workers: held)
    session = await host.create(channel_id=40, guild_id=1, game="makemake", options={},
                                creator_id=1, language="en", ai_level="strong",
                                turn_seconds=60)
    await host.add_ai(session.id, 1)
    await host.add_ai(session.id, 1)
    await host.start(session.id, 1)
    clock = store.clock
    assert isinstance(clock, ManualClock)
    clock.advance(61)
    report = await host.timeout(session.id, clock())
    assert [step.by for step in report.steps] == ["timeout", "ai", "ai"]
    assert thinking.searched == 3, "the timed-out turn and both AI seats, all searched"


class DiesOnce(ProcessPoolExecutor):
    """A real worker process pool whose first decision kills its worker, as an out-of-memory
    kill would: the pool is broken for every decision it holds."""

    deaths = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if DiesOnce.deaths == 0:
            DiesOnce.deaths += 1
            return super().submit(os._exit, 1)
        return super().submit(fn, *args, **kwargs)


async def test_a_worker_that_dies_is_replaced_and_the_game_goes_on(
        store: Store, caplog: pytest.LogCaptureFixture) -> None:
    host = Host(store, seed_source=lambda: 6)
    made: list[Executor] = []

    def pool(workers: int) -> Executor:
        made.append(DiesOnce(max_workers=workers) if not made else process_pool(workers))
        return made[-1]

    thinking = thinking_of(host, workers=1, executor=pool)
    try:
        with caplog.at_level(logging.ERROR, logger="bot.host.thinking"):
            session = await running(host, 30, humans=0, ai_seats=3, level="strong",
                                    round_limit="1")
    finally:
        thinking.close()
    assert session.status == "finished", "no decision was lost"
    assert len(made) == 2 and thinking.restarts == 1 and thinking.fallbacks == 1
    assert thinking.searched == len(session.log) - 1 - sum(s.by == "chance" for s in session.log)
    assert any("worker died" in r.getMessage() and "greedy" in r.getMessage()
               for r in caplog.records)
    assert {s.by for s in session.log} <= {"ai", "chance", "forced"}
    replayed = replay_lines(session.row.header, session.game.lines)
    assert replayed.state == session.game.state


# --- through Discord ----------------------------------------------------------------------------

async def test_a_whole_game_with_strong_seats_thinks_in_the_worker_pool(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("island")
    alice = guild.add_member(env.create_user("alice"))
    lobby = await open_game(env, channel, alice, ai_seats=2, ai="strong", round_limit=1)
    card = fresh(channel, lobby)
    assert card.embeds[0].fields[0].value.splitlines()[1:] == [
        "Blue (AI, strong)", "Green (AI, strong)"]
    await start(env, channel, alice, lobby)
    game_id = session_in(env, channel).id
    for _ in range(40):
        if (await host_of(env).get(game_id)).status != "running":
            break
        await play_first_legal(env, channel, {alice.id: alice})
    session = await host_of(env).get(game_id)
    assert session.status == "finished"
    thinking = env.bot.thinking
    ai_steps = [s for s in session.log if s.by == "ai"]
    assert ai_steps and thinking.searched == len(ai_steps) and thinking.fallbacks == 0
    assert thinking.workers == 1 and thinking._pool is not None, "in the process pool"
    assert not env.bot.unexpected_errors
    thinking.close()


def test_every_language_names_the_strong_level_apart_from_the_others() -> None:
    assert ai.LEVELS == ("random", "greedy", "strong")
    for lang in LANGUAGES:
        names = [t(f"term.ai.{level}", lang) for level in ai.LEVELS]
        assert len(set(names)) == 3 and "term.ai" not in names[2], (lang, names)
    assert [t("term.ai.strong", lang) for lang in LANGUAGES] == [
        "strong", "fuerte", "сильный", "高手", "高手"]
