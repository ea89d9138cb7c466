"""The live load's parts: Discord stubbed at its edge (a post or an edit is accepted at once,
its files read as an upload would), the scripted players of a game, and what a run measures.
Used by scripts/live.py in one process and by scripts/fleet.py in each of several.

A player makes a human's move and waits until its table shows it. With several processes a
secret choice (what Discord delivers as a DM, so to shard 0's process) is sent to process 0,
and the player waits until its own process, which shows the game, has heard of it from the
store and shown it.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import resource
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord

from bot.adapter.outbox import Outbox
from bot.constants import PING_AFTER
from bot.host import shards
from bot.host.clock import Clock, system_clock
from bot.host.sessions import Host, Refusal, Session
from bot.host.store import Store
from bot.table import Picture
from bot.table.private import secret_now
from rules.core import IllegalAction
from rules.registry import GAME_NAMES, game_module

KINDS = GAME_NAMES
SEATS = {kind: min(4, game_module(kind).MAX_SEATS) for kind in KINDS}
"""Seats per game (four where it may): all humans (scripted) but one AI seat."""
AI_LEVEL = "greedy"
CHANNELS = 10**17
"""The first game's channel; game ``i`` plays in channel ``CHANNELS + i``."""


def guild_of(game: int) -> int:
    """Game ``i``'s server: one server a game, spread over the shards as Discord spreads
    servers (``(id >> 22) % shards``: game ``i`` lands on shard ``(i + 1) % shards``)."""
    return (game + 1) << 22


# --- Discord, stubbed at its edge ----------------------------------------------------------------

class StubMessage:
    def __init__(self, channel: StubChannel, message_id: int) -> None:
        self.channel = channel
        self.id = message_id

    async def edit(self, **kwargs: Any) -> StubMessage:
        self.channel.sink.take(kwargs)
        return self

    async def delete(self) -> None:
        self.channel.sink.calls += 1


class StubChannel(discord.abc.Messageable):
    """A channel, thread or DM that accepts every message."""

    def __init__(self, channel_id: int, sink: Sink) -> None:
        self.id = channel_id
        self.sink = sink

    async def _get_channel(self) -> Any:
        return self

    async def send(self, content: Any = None, **kwargs: Any) -> StubMessage:  # type: ignore[override]
        self.sink.take(kwargs)
        self.sink.posts[self.id] = self.sink.posts.get(self.id, 0) + 1
        return StubMessage(self, next(self.sink.ids))

    def get_partial_message(self, message_id: int) -> StubMessage:
        return StubMessage(self, message_id)


class StubUser:
    def __init__(self, user_id: int, sink: Sink) -> None:
        self.id = user_id
        self.display_name = f"player {user_id}"
        self.dm = StubChannel(user_id, sink)

    async def send(self, content: Any = None, **kwargs: Any) -> StubMessage:
        return await self.dm.send(content, **kwargs)


@dataclass
class Sink:
    """Counts what would have gone to Discord."""

    calls: int = 0
    files: int = 0
    bytes: int = 0
    posts: dict[int, int] = field(default_factory=dict)
    """New messages by channel (a DM's channel is its user's id)."""
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(10**18))

    def take(self, kwargs: dict[str, Any]) -> None:
        self.calls += 1
        files = list(kwargs.get("files") or kwargs.get("attachments") or [])
        if kwargs.get("file") is not None:
            files.append(kwargs["file"])
        for item in files:
            if isinstance(item, discord.File):
                self.files += 1
                self.bytes += len(item.fp.read())


class BlankRenders:
    """A render pool that draws nothing (the tests: what is shown is the point, not the
    pixels), with the figures a run reads."""

    workers = 0

    def __init__(self) -> None:
        self.drawn = 0
        self.pids: list[int] = []

    async def picture(self, picture: Picture) -> bytes:
        self.drawn += 1
        return b"\x89PNG"

    def start(self) -> None:
        """Nothing to start."""

    def close(self) -> None:
        """Nothing to stop."""


class StubBot:
    """What the outbox asks of the bot, with Discord's side stubbed. ``shard`` of ``shards``:
    the shard this process would be connected to; it shows the games of that shard's
    servers."""

    def __init__(self, host: Host, renders: Any, clock: Clock = system_clock,
                 shard: int = 0, shards: int = 1) -> None:
        self.games = host
        self.renders = renders
        self.settings = SimpleNamespace(clock=clock, ping_after=PING_AFTER)
        self.languages: dict[int, str] = {}
        self.sink = Sink()
        self.shard = shard
        self.shard_count = shards
        self._channels: dict[int, StubChannel] = {}
        self._users: dict[int, StubUser] = {}

    def get_guild(self, guild_id: int) -> None:
        return None

    def shows(self, guild_id: int | None) -> bool:
        return shards.shows(guild_id, self.shard_count, [self.shard])

    def get_channel(self, channel_id: int) -> StubChannel:
        if channel_id not in self._channels:
            self._channels[channel_id] = StubChannel(channel_id, self.sink)
        return self._channels[channel_id]

    def get_user(self, user_id: int) -> StubUser:
        if user_id not in self._users:
            self._users[user_id] = StubUser(user_id, self.sink)
        return self._users[user_id]

    async def fetch_channel(self, channel_id: int) -> StubChannel:
        return self.get_channel(channel_id)

    async def fetch_user(self, user_id: int) -> StubUser:
        return self.get_user(user_id)


class ShowingOutbox(Outbox):
    """The outbox, which also says up to which action each game's table was shown, so that a
    player whose move another process applied can wait until this process shows it."""

    def __init__(self, bot: Any) -> None:
        super().__init__(bot)
        self.shown: dict[int, int] = {}
        self._news = asyncio.Condition()

    async def reconcile(self, game_id: int) -> None:
        await super().reconcile(game_id)
        session = self.bot.games.sessions.get(game_id)
        if session is None or not self.shows(session) or game_id in self.bot.games.stale:
            return
        async with self._news:
            self.shown[game_id] = max(self.shown.get(game_id, 0), session.seq)
            self._news.notify_all()

    async def showing(self, game_id: int, seq: int) -> None:
        """Wait until the game's table was shown at action ``seq`` or later."""
        async with self._news:
            await self._news.wait_for(lambda: self.shown.get(game_id, -1) >= seq)


# --- the games -----------------------------------------------------------------------------------

async def new_game(host: Host, channel: int, kind: str, guild: int = 1) -> Session:
    """A game in ``channel`` with scripted humans and one AI seat, started."""
    creator = channel * 10
    session = await host.create(channel_id=channel, guild_id=guild, game=kind, options={},
                                creator_id=creator, language="en", ai_level=AI_LEVEL,
                                creator_name="p0")
    for k in range(1, SEATS[kind] - 1):
        await host.join(session.id, creator + k, f"p{k}")
    await host.add_ai(session.id, creator)
    await host.start(session.id, creator)
    return session


def human_move(session: Session, rng: random.Random) -> tuple[int, str] | None:
    """A pending human and a random legal action of theirs (None: no human must act)."""
    humans = [seat for colour in session.pending()
              if (seat := session.seat(colour)) is not None and not seat.is_ai]
    if not humans:
        return None
    seat = rng.choice(humans)
    legal = session.legal(seat.colour)
    assert seat.user_id is not None and legal
    return seat.user_id, str(rng.choice(legal))


Ack = tuple[int, int, str]
"""A move acknowledged to its player: the game, the action's number and its line."""
Forward = Callable[[int, int, str], Awaitable[dict[str, Any]]]
"""Sends a move (game, user, text) to process 0: its answer has the action's ``seq`` and
``line`` and the game's ``last`` action after it, or ``refused``."""


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    commits: list[float] = field(default_factory=list)
    steps: int = 0
    games_ended: int = 0
    lag_max: float = 0.0
    acks: list[Ack] = field(default_factory=list)
    """Every move acknowledged to a player, in the window or not."""
    refused: int = 0
    forwarded: int = 0


async def watch_lag(figures: Figures, stop: asyncio.Event, every: float = 0.01) -> None:
    """The event loop's lag: how late a 10 ms sleep wakes up."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        start = loop.time()
        await asyncio.sleep(every)
        figures.lag_max = max(figures.lag_max, loop.time() - start - every)


@dataclass
class Window:
    """The measured time: every game is started and shown before it opens."""

    go: asyncio.Event = field(default_factory=asyncio.Event)
    ready: int = 0
    start: float = 0.0
    end: float = 0.0


async def player(host: Host, outbox: Outbox, channel: int, kind: str, interval: float,
                 window: Window, figures: Figures, rng: random.Random, guild: int = 1,
                 forward: Forward | None = None) -> None:
    """One channel's game: a human moves every ``interval`` seconds (jittered); each move
    waits until the table shows it. ``forward``: where secret choices go (process 0)."""
    session = await new_game(host, channel, kind, guild)
    outbox.kick(session.id)
    await outbox.settled(session.id)
    window.ready += 1
    await window.go.wait()
    due = window.start + rng.uniform(0, interval)
    while True:
        now = time.perf_counter()
        if now >= window.end:
            return
        if due > now:  # not past the window's end: a run ends when its last move does
            await asyncio.sleep(min(due, window.end) - now)
            continue
        await asyncio.sleep(0)
        if session.status != "running":
            await outbox.settled(session.id)
            figures.games_ended += 1
            session = await new_game(host, channel, kind, guild)
            outbox.kick(session.id)
            await outbox.settled(session.id)
            continue
        move = human_move(session, rng)
        if move is None:  # the host is still playing chance or AI steps: resume it
            await host.resume(session.id)
            continue
        began = time.perf_counter()
        if forward is not None and secret_now(session):
            answer = await forward(session.id, *move)
            if "refused" in answer:
                figures.refused += 1
                await host.catch_up(session.id)
                continue
            figures.forwarded += 1
            committed = time.perf_counter()
            figures.acks.append((session.id, answer["seq"], answer["line"]))
            assert isinstance(outbox, ShowingOutbox)
            await outbox.showing(session.id, answer["last"])
            steps = answer["last"] - answer["seq"] + 1
        else:
            try:
                report = await host.play_game(session.id, move[0], move[1])
            except (Refusal, IllegalAction):
                figures.refused += 1
                continue
            committed = time.perf_counter()
            figures.acks.append((session.id, report.steps[0].seq, report.steps[0].line))
            outbox.kick(session.id)
            await outbox.settled(session.id)
            steps = len(report.steps)
        shown = time.perf_counter()
        due = began + interval * rng.uniform(0.5, 1.5)
        figures.latencies.append((shown - began) * 1000)  # every move begun in the window
        figures.commits.append((committed - began) * 1000)
        figures.steps += steps


async def unaccounted(store: Store, acks: Iterable[Ack]) -> tuple[int, int]:
    """``(lost, double_applied)`` counted from the store: moves acknowledged to a player that
    it does not hold as acknowledged, and humans' actions it holds that no acknowledgement
    accounts for (applied twice, or applied and not acknowledged)."""
    by_game: dict[int, dict[int, str]] = {}
    doubled = 0
    for game, seq, line in acks:
        known = by_game.setdefault(game, {})
        doubled += seq in known
        known[seq] = line
    lost = 0
    for game, known in by_game.items():
        rows = {row.seq: row for row in await store.log(game)}
        lost += sum(1 for seq, line in known.items()
                    if seq not in rows or rows[seq].line != line)
        doubled += sum(1 for seq, row in rows.items() if row.by == "human" and seq not in known)
    return lost, doubled


# --- what a process costs ------------------------------------------------------------------------

def cpu_of(pid: int) -> float:
    """User + system CPU seconds of a process (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_main() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def cpu_total(renders: Any) -> float:
    return cpu_main() + sum(cpu_of(p) for p in renders.pids)


__all__ = ["KINDS", "Ack", "BlankRenders", "Figures", "ShowingOutbox", "Sink", "StubBot",
           "Window", "cpu_main", "cpu_of", "cpu_total", "guild_of", "human_move", "new_game",
           "player", "rss_mb", "unaccounted", "watch_lag"]
