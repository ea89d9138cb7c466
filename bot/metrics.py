"""The bot's metrics, in Prometheus' text format (``/metrics``, :mod:`bot.web`).

Each bot owns a registry of its own, never the library's global one: tests run several bots
in one process, and each counts only what it did. The counters and histograms are fed from
the narrowest points that already exist (the host's commit of an action, the outbox's Discord
calls and retries, the render pool's drawing); the gauges are read when Prometheus asks
(:meth:`Metrics.watch`), so nothing is counted twice or kept in step by hand.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)

CONTENT_TYPE = CONTENT_TYPE_LATEST
COMMIT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                  5.0)
"""A commit takes a millisecond or so on SQLite, a few on PostgreSQL: finer than the
default buckets at the low end."""
RENDER_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """One bot's metrics and the registry that serves them."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        registry = self.registry
        self.moves = Counter("rapanui_moves", "Actions applied and committed (human, AI and "
                             "chance alike), by game", ["game"], registry=registry)
        self.commit_seconds = Histogram(
            "rapanui_commit_seconds", "Time to commit one applied action to the store",
            buckets=COMMIT_BUCKETS, registry=registry)
        self.outbox_queue = Gauge(
            "rapanui_outbox_queue", "Games waiting for the outbox to show them on Discord "
            "(a pass running or due, or a retry waiting)", registry=registry)
        self.outbox_retries = Counter(
            "rapanui_outbox_retries", "Outbox passes put off for a retry with backoff "
            "(Discord answered 429 or 5xx)", registry=registry)
        self.discord_errors = Counter(
            "rapanui_discord_errors", "Discord calls refused, by HTTP status and Discord's "
            "error code (0: none given)", ["status", "code"], registry=registry)
        self.render_seconds = Histogram(
            "rapanui_render_seconds", "Time to draw one picture (board, screen or hand)",
            buckets=RENDER_BUCKETS, registry=registry)
        self.live_games = Gauge("rapanui_live_games", "Games in a lobby or running in this "
                                "process", registry=registry)
        self.gateway_latency = Gauge(
            "rapanui_gateway_latency_seconds", "Time between a gateway heartbeat and its "
            "acknowledgement (NaN while not connected)", registry=registry)
        ProcessCollector(registry=registry)  # the process's CPU time, memory and files

    def watch(self, *, queue: Callable[[], float], live: Callable[[], float],
              latency: Callable[[], float]) -> None:
        """Where the gauges are read each time Prometheus asks."""
        self.outbox_queue.set_function(queue)
        self.live_games.set_function(live)
        self.gateway_latency.set_function(lambda: _finite(latency()))

    def committed(self, game: str, seconds: float) -> None:
        """One action of a ``game`` committed in ``seconds``."""
        self.moves.labels(game=game).inc()
        self.commit_seconds.observe(seconds)

    def discord_error(self, status: int, code: int) -> None:
        self.discord_errors.labels(status=str(status), code=str(code)).inc()

    def exposition(self) -> bytes:
        """Everything, in Prometheus' text format."""
        return generate_latest(self.registry)


def _finite(value: float) -> float:
    return value if math.isfinite(value) else math.nan
