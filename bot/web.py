"""Health and metrics over HTTP (``HTTP_PORT``), served by aiohttp inside the bot's own event
loop, so that an answer proves the loop answers:

- ``/healthz``: 200 while the event loop answers (serving the request is the proof). A probe
  costs a request, not a Python start, which is what a container's health check wants.
- ``/readyz``: 200 when the bot is connected to Discord (the gateway is ready and not closed,
  every shard of this process) and the store answers a trivial query within
  :data:`STORE_WITHIN` seconds; else 503, with a short text that says which is down.
- ``/metrics``: the bot's own registry in Prometheus' text format (:mod:`bot.metrics`).

The server knows the bot only through the three small callables it is given, so it imports
nothing of the rest of the bot.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from bot.metrics import CONTENT_TYPE

log = logging.getLogger(__name__)

STORE_WITHIN = 2.0
"""Seconds the store has to answer ``/readyz``'s query."""


class CannotServe(RuntimeError):
    """The HTTP server cannot listen where it is told (the port is taken, the address is not
    this machine's): a setting to change, said in one line."""


class StatusServer:
    """``/healthz``, ``/readyz`` and ``/metrics`` on ``host:port``: :meth:`start`, then
    :meth:`stop` (both from the bot's event loop)."""

    def __init__(self, host: str, port: int, *, connected: Callable[[], bool],
                 store_ping: Callable[[], Awaitable[None]],
                 metrics: Callable[[], bytes], store_within: float = STORE_WITHIN) -> None:
        self.host, self.port = host, port
        self.store_within = store_within
        self._connected = connected
        self._store_ping = store_ping
        self._metrics = metrics
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/readyz", self.readyz)
        app.router.add_get("/metrics", self.metrics)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port, reuse_address=True).start()
        except OSError as exc:
            await runner.cleanup()
            raise CannotServe(f"cannot serve HTTP on {self.host}:{self.port} (HTTP_HOST, "
                              f"HTTP_PORT): {exc.strerror or exc}") from exc
        self._runner = runner
        self.port = runner.addresses[0][1]  # the one given, or the one found for 0
        log.info("serving /healthz, /readyz and /metrics on %s:%s", self.host, self.port)

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def readyz(self, request: web.Request) -> web.Response:
        down = []
        if not self._connected():
            down.append("discord: not connected")
        try:
            await asyncio.wait_for(self._store_ping(), self.store_within)
        except TimeoutError:
            down.append(f"store: no answer within {self.store_within:g} s")
        except Exception as exc:
            down.append(f"store: {type(exc).__name__}: {exc}".rstrip(": "))
        if down:
            return web.Response(status=503, text="\n".join(down) + "\n")
        return web.Response(text="ok\n")

    async def metrics(self, request: web.Request) -> web.Response:
        return web.Response(body=self._metrics(), headers={"Content-Type": CONTENT_TYPE})
