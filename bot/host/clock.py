"""Time for the bot, injectable so that tests never sleep and stored timestamps are predictable."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

Clock = Callable[[], datetime]
"""Returns the current time as an aware UTC datetime."""


def system_clock() -> datetime:
    """The real wall clock, for production."""
    return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told to: for tests and simulations."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def iso(moment: datetime) -> str:
    """An ISO timestamp for the store (sorts as text, readable in any SQLite tool)."""
    return moment.isoformat(timespec="seconds")


def stamp(clock: Clock) -> str:
    return iso(clock())
