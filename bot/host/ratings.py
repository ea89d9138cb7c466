"""Places and ratings of finished games, for ``/game stats`` and ``/game leaderboard``.

Every seat of a finished game gets a place: the winners first, then by score, and seats that
tie share a place (1, 2, 2, 4). The ratings are Weng-Lin's Bayesian approximation with the
Plackett-Luce model (the ``openskill`` package), made for free-for-all games of several
players: each seat is a team of one, ranked by its place. Humans are rated per user, AI seats
per level (``ai:greedy``), both per game and per server. When one player holds several seats
of a game (two AI seats of the same level), each seat is rated from the same prior and the
player's rating moves by the sum of the seats' changes.

The leaderboard orders by the conservative estimate ``mu - 3 * sigma``: a new player starts at
0 (25 - 3 x 8.33) and climbs as their games make the rating surer.
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

from bot.host.store import Rating, ResultRow
from rules.core import Result

MODEL = PlackettLuce()
Z = 3.0
"""How many deviations below the mean the leaderboard's conservative rating lies."""


def player_key(user_id: int | None, ai_level: str | None) -> str:
    """Who a seat's result belongs to: the user id as text, or ``ai:<level>``."""
    return str(user_id) if user_id is not None else f"ai:{ai_level or 'random'}"


def ai_level_of(player: str) -> str | None:
    """The level of an AI player key; None for a human."""
    return player.removeprefix("ai:") if player.startswith("ai:") else None


def places(result: Result, colours: Sequence[str]) -> dict[str, int]:
    """Each colour's final place: winners before everyone else, then the higher score; equal
    seats share the better place."""
    def key(colour: str) -> tuple[bool, int]:
        return (colour not in result.winners, -result.scores.get(colour, 0))

    return {c: 1 + sum(1 for other in colours if key(other) < key(c)) for c in colours}


def result_rows(seats: Sequence[tuple[str, str]], result: Result) -> list[ResultRow]:
    """``seats`` are ``(colour, player key)`` at the end of the game."""
    place = places(result, [colour for colour, _ in seats])
    return [ResultRow(colour, player, place[colour], int(result.scores.get(colour, 0)),
                      colour in result.winners) for colour, player in seats]


def rate(rows: Sequence[ResultRow], before: dict[str, Rating | None]
         ) -> dict[str, tuple[float, float]]:
    """Every player's ``(mu, sigma)`` after the game whose results are ``rows``."""
    prior = {player: MODEL.rating(mu=r.mu, sigma=r.sigma) if r else MODEL.rating()
             for player, r in before.items()}
    teams = [[MODEL.rating(mu=prior[row.player].mu, sigma=prior[row.player].sigma)]
             for row in rows]
    rated = MODEL.rate(teams, ranks=[row.place for row in rows])
    after: dict[str, tuple[float, float]] = {}
    for row, [new] in zip(rows, rated, strict=True):
        old = prior[row.player]
        mu, sigma = after.get(row.player, (old.mu, old.sigma))
        after[row.player] = (mu + new.mu - old.mu, sigma * new.sigma / old.sigma)
    return after


def conservative(rating: Rating) -> float:
    return rating.mu - Z * rating.sigma


__all__ = ["MODEL", "Z", "ai_level_of", "conservative", "places", "player_key", "rate",
           "result_rows"]
