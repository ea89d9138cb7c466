"""A stub Discord for running ``python -m bot`` as a process: just enough REST (who am I, the
application) and gateway (HELLO, READY, RESUMED, heartbeat ACKs) for the bot to start and stop;
and an outage on demand (:meth:`StubDiscord.down`, :meth:`StubDiscord.up`), on the same port.

The process is pointed at it by a ``sitecustomize.py`` (:meth:`StubDiscord.hook`) that sets
discord.py's REST base and default gateway: the bot itself has no setting for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

BOT_ID = "111111111111111111"
APP_ID = "222222222222222222"
USER = {"id": BOT_ID, "username": "rapanui", "discriminator": "0", "global_name": None,
        "avatar": None, "bot": True, "flags": 0}


class StubDiscord:
    """Start with :meth:`start` inside a test's event loop; ``requests`` lists what the bot
    asked for (method and path), ``identified`` counts IDENTIFYs, ``closed`` the sockets the
    bot closed."""

    def __init__(self, app_id: str = APP_ID) -> None:
        self.app_id = app_id
        """The application the token logs in as (change it to log in as another one)."""
        self.requests: list[str] = []
        self.commands: dict[str, list[str]] = {}
        """Where commands were put (``global`` or a server id) -> their names."""
        self.identified = 0
        self.closed = 0
        self.port = 0
        self.resumed = 0
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self._sockets: set[web.WebSocketResponse] = set()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/gateway", self.gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self.rest)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await self.up()

    async def up(self) -> None:
        """Answer again (the first time: on a free port), on the same port as before."""
        assert self._runner is not None
        self._site = web.TCPSite(self._runner, "127.0.0.1", self.port, reuse_address=True)
        await self._site.start()
        if not self.port:
            [address] = self._runner.addresses
            self.port = address[1]

    async def down(self) -> None:
        """An outage: nothing listens on the port any more (connections are refused), and
        the gateway connections and the bot's kept-alive HTTP connections close, as a
        network failure would close them (the bot reconnects, backing off)."""
        if self._site is not None:  # first: a reconnect must not find it still listening
            site, self._site = self._site, None
            await site.stop()
        for socket in list(self._sockets):
            await socket.close(code=1001)
        assert self._runner is not None and self._runner.server is not None
        for connection in list(self._runner.server.connections):
            connection.force_close()  # kept alive for the bot's next request: not any more

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def hook(self, folder: Path) -> dict[str, str]:
        """Write ``sitecustomize.py`` into ``folder``; the environment for the process."""
        (folder / "sitecustomize.py").write_text(
            "import discord.gateway, discord.http, yarl\n"
            f"discord.http.Route.BASE = {self.base + '/api/v10'!r}\n"
            "discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = "
            f"yarl.URL({self.base.replace('http', 'ws') + '/gateway'!r})\n")
        return {"PYTHONPATH": str(folder)}

    async def rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        self.requests.append(f"{request.method} {path}")
        answer: Any
        if path == "/users/@me":
            answer = USER
        elif path == "/oauth2/applications/@me":
            answer = {"id": self.app_id, "name": "rapanui", "description": "", "icon": None,
                      "bot_public": True, "bot_require_code_grant": False, "owner": USER,
                      "verify_key": "0" * 64, "flags": 0, "summary": "",
                      "interactions_endpoint_url": None}
        elif path == "/gateway/bot":
            answer = {"url": self.base.replace("http", "ws") + "/gateway", "shards": 1,
                      "session_start_limit": {"total": 1000, "remaining": 1000,
                                              "reset_after": 0, "max_concurrency": 1}}
        elif request.method == "PUT" and path.startswith(f"/applications/{self.app_id}/") \
                and path.endswith("/commands"):
            parts = path.split("/")
            where = parts[4] if parts[3] == "guilds" else "global"
            sent = await request.json()
            self.commands[where] = [c["name"] for c in sent]
            answer = [{"id": str(n + 1), "application_id": self.app_id, "name": c["name"],
                       "description": c.get("description", ""), "type": c.get("type", 1)}
                      for n, c in enumerate(sent)]
        else:
            return _json({"message": "404: Not Found", "code": 0}, status=404)
        return _json(answer)

    async def gateway(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self._sockets.add(socket)
        await socket.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}}))
        sequence = 0
        async for message in socket:
            if message.type != WSMsgType.TEXT:
                continue
            payload = json.loads(message.data)
            if payload["op"] == 1:
                await socket.send_str(json.dumps({"op": 11}))
            elif payload["op"] == 2:
                self.identified += 1
                sequence += 1
                await socket.send_str(json.dumps({"op": 0, "t": "READY", "s": sequence, "d": {
                    "v": 10, "user": USER, "guilds": [], "session_id": "stub",
                    "resume_gateway_url": self.base.replace("http", "ws") + "/gateway",
                    "application": {"id": self.app_id, "flags": 0}, "shard": [0, 1]}}))
            elif payload["op"] == 6:
                self.resumed += 1
                sequence += 1
                await socket.send_str(json.dumps({"op": 0, "t": "RESUMED", "s": sequence,
                                                  "d": {}}))
        self._sockets.discard(socket)
        self.closed += 1
        return socket


def _json(answer: Any, status: int = 200) -> web.Response:
    """discord.py decodes a body only when its type is exactly ``application/json``."""
    return web.Response(body=json.dumps(answer).encode(), status=status,
                        headers={"Content-Type": "application/json"})
