"""Places, ratings and records of finished games, without Discord: the rating model, the store
(once per game, in one transaction) and the host (when the last move is committed, and at the
next start for a game whose result was missed), on both backends."""

from __future__ import annotations

import asyncio

import pytest

from bot.host import ratings
from bot.host.clock import ManualClock
from bot.host.sessions import Host
from bot.host.store import Rating, ResultRow, Store
from rules.core import Result
from tests.helpers.stores import Backend

CHANNEL = 300
GUILD = 1


def test_places_put_winners_first_and_share_ties() -> None:
    result = Result({"red": 10, "blue": 7, "green": 7, "yellow": 3}, ["red"], "victory")
    assert ratings.places(result, ["red", "blue", "green", "yellow"]) == {
        "red": 1, "blue": 2, "green": 2, "yellow": 4}
    # a tie-break winner comes first even on equal scores; shared wins share first place
    broken = Result({"red": 5, "blue": 5, "green": 5}, ["blue"], "round_limit")
    assert ratings.places(broken, ["red", "blue", "green"]) == {"blue": 1, "red": 2, "green": 2}
    shared = Result({"red": 5, "blue": 5, "green": 1}, ["red", "blue"], "round_limit")
    assert ratings.places(shared, ["red", "blue", "green"]) == {"red": 1, "blue": 1, "green": 3}


def test_the_plackett_luce_update_rewards_places() -> None:
    rows = [ResultRow("red", "1", 1, 9, True), ResultRow("blue", "2", 2, 5, False),
            ResultRow("green", "ai:greedy", 3, 1, False)]
    after = ratings.rate(rows, {"1": None, "2": None, "ai:greedy": None})
    mus = {player: mu for player, (mu, _) in after.items()}
    assert mus["1"] > 25 > mus["ai:greedy"] and mus["1"] > mus["2"] > mus["ai:greedy"]
    assert all(sigma < ratings.MODEL.sigma for _, sigma in after.values()), "surer after a game"
    assert ratings.conservative(Rating("x", 25.0, 25 / 3, 0)) == pytest.approx(0.0)


def test_two_seats_of_one_ai_level_move_its_rating_by_both() -> None:
    rows = [ResultRow("red", "1", 1, 9, True), ResultRow("blue", "ai:greedy", 2, 5, False),
            ResultRow("green", "ai:greedy", 3, 1, False)]
    after = ratings.rate(rows, {"1": None, "ai:greedy": Rating("ai:greedy", 30.0, 5.0, 4)})
    alone = ratings.rate(rows[:2], {"1": None, "ai:greedy": Rating("ai:greedy", 30.0, 5.0, 4)})
    assert after["ai:greedy"][0] < alone["ai:greedy"][0] < 30.0
    assert after["ai:greedy"][1] < alone["ai:greedy"][1] < 5.0
    assert ratings.player_key(None, "random") == "ai:random" and ratings.player_key(7, None) == "7"
    assert ratings.ai_level_of("ai:random") == "random" and ratings.ai_level_of("7") is None


async def test_results_are_written_once_with_the_ratings(store: Store,
                                                         backend: Backend) -> None:
    game = await store.create_game(channel_id=CHANNEL, guild_id=GUILD, game="giants",
                                   options="", seed=1, creator_id=1, language="en",
                                   ai_level="greedy")
    rows = [ResultRow("red", "1", 1, 30, True), ResultRow("blue", "ai:greedy", 2, 20, False),
            ResultRow("green", "ai:greedy", 2, 20, False)]
    seen: list[dict] = []

    def rate(before):
        seen.append(before)
        return ratings.rate(rows, before)

    assert await store.record_results(game.id, GUILD, "giants", rows, rate)
    assert seen == [{"1": None, "ai:greedy": None}]
    assert not await store.record_results(game.id, GUILD, "giants", rows, rate), "only once"
    assert len(seen) == 1
    assert await store.results(game.id) == rows
    assert await backend.committed("SELECT COUNT(*) FROM results") == [(3,)]
    greedy = await store.rating(GUILD, "giants", "ai:greedy")
    assert greedy is not None and greedy.plays == 2
    stats = await store.player_stats(GUILD, "ai:greedy")
    assert [(s.game, s.plays, s.wins, s.place_total, s.score_total) for s in stats] == [
        ("giants", 2, 0, 4, 40)]
    board = await store.leaderboard(GUILD, "giants", ratings.Z, 10)
    assert [r.player for r in board] == ["1", "ai:greedy"]
    assert await store.leaderboard(2, "giants", ratings.Z, 10) == [], "per server"
    assert await store.player_stats(2, "1") == []


async def ai_game(host: Host, channel: int = CHANNEL) -> int:
    """A Make Make game of three AI seats (two greedy, one random), one round: the host plays
    it to the end as soon as it starts."""
    session = await host.create(channel_id=channel, guild_id=GUILD, game="makemake",
                                options={"round_limit": "1"}, creator_id=1, language="en",
                                join=False)
    await host.add_ai(session.id, 1)
    await host.add_ai(session.id, 1)
    await host.add_ai(session.id, 1, "random")
    report = await host.start(session.id, 1)
    assert report.finished
    return session.id


async def test_the_host_rates_a_game_when_its_last_move_is_committed(
        store: Store) -> None:
    host = Host(store, seed_source=lambda: 11)
    game_id = await ai_game(host)
    rows = await store.results(game_id)
    assert sorted(r.player for r in rows) == ["ai:greedy", "ai:greedy", "ai:random"]
    assert [r.place for r in rows] == sorted(r.place for r in rows) and rows[0].place == 1
    greedy = await store.rating(GUILD, "makemake", "ai:greedy")
    random_ai = await store.rating(GUILD, "makemake", "ai:random")
    assert greedy is not None and greedy.plays == 2
    assert random_ai is not None and random_ai.plays == 1
    session = await host.get(game_id)
    assert not await host.rate(session), "rating a game twice changes nothing"
    assert await store.rating(GUILD, "makemake", "ai:greedy") == greedy


async def test_a_result_missed_at_the_end_is_recorded_at_the_next_start(
        backend: Backend) -> None:
    clock = ManualClock()
    opened = await backend.open(clock)
    host = Host(opened, seed_source=lambda: 11)

    async def down(*args, **kwargs):
        raise OSError("disk full")

    opened.record_results = down  # type: ignore[method-assign]
    game_id = await ai_game(host)
    game = await opened.game(game_id)
    assert game is not None and game.status == "finished", "the end stands"
    assert await opened.results(game_id) == []
    await opened.close()

    for _ in range(2):  # the first start records it, the second finds nothing to do
        again = await backend.open(clock)
        await Host(again).load()
        assert len(await again.results(game_id)) == 3
        greedy = await again.rating(GUILD, "makemake", "ai:greedy")
        assert greedy is not None and greedy.plays == 2
        await again.close()


async def test_two_games_finishing_at_once_both_count_in_the_ratings(store: Store,
                                                                     backend: Backend) -> None:
    """Two stores (two processes, with PostgreSQL) record two games of the same players at
    once: each rates from the other's result, none is lost."""
    other = await backend.open()
    try:
        games = [await s.create_game(channel_id=CHANNEL + n, guild_id=GUILD, game="giants",
                                     options="", seed=1, creator_id=1, language="en",
                                     ai_level="greedy") for n, s in enumerate((store, other))]
        rows = [ResultRow("red", "1", 1, 30, True), ResultRow("blue", "2", 2, 20, False)]

        def rate(before: dict[str, Rating | None]) -> dict[str, tuple[float, float]]:
            return {p: (r.mu + 1 if r else 26.0, 8.0) for p, r in before.items()}

        done = await asyncio.gather(*(s.record_results(g.id, GUILD, "giants", rows, rate)
                                      for s, g in zip((store, other), games, strict=True)))
        assert done == [True, True]
        first = await store.rating(GUILD, "giants", "1")
        assert first is not None and (first.mu, first.plays) == (27.0, 2)
    finally:
        await other.close()
