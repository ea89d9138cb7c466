"""Bot processes racing on the same games over one PostgreSQL database: each process of its own
(scripts/fleet.py: its own store, host and outbox, Discord stubbed) and shard of its own, so
it shows the games of that shard's servers; any of them may apply any move.

No action is applied twice, none acknowledged is lost (acknowledged: the call returned), and
every game's log replays to its snapshot. Nothing here sleeps: a test waits for an answer or
an event, bounded by :data:`WAIT` only so that a broken build fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import pytest

from bot.constants import REPEAT_SECONDS
from bot.host.clock import ManualClock, iso
from bot.host.sessions import Host
from bot.host.shards import shard_of
from bot.host.store import PostgresStore
from scripts import fleet
from scripts.fleet import Remote, Running

pytestmark = pytest.mark.postgres

WAIT = 120.0
"""Most seconds a test waits for an answer (they come in milliseconds; starting a process
takes a second or two)."""
START = ManualClock().now


def guild_on(shard: int, count: int) -> int:
    """A server whose events come on that shard."""
    guild = next(g << 22 for g in range(1, 100) if shard_of(g << 22, count) == shard)
    assert shard_of(guild, count) == shard
    return guild


@asynccontextmanager
async def processes(url: str, count: int) -> AsyncIterator[list[Running]]:
    """``count`` bot processes on the database, process ``i`` on shard ``i``, each with a
    manual clock at :data:`START`."""
    folder = tempfile.mkdtemp(prefix="rapanui-fleet-")  # short: a socket path has a limit
    running: list[Running] = []
    try:
        running = list(await asyncio.wait_for(asyncio.gather(*(
            fleet.start(fleet.Config(url, index, count, folder, clock=START.isoformat()))
            for index in range(count))), WAIT))
        yield running
    finally:
        for process in running:
            await asyncio.wait_for(process.stop(), WAIT)
        shutil.rmtree(folder, ignore_errors=True)


async def ask(remote: Remote, op: str, **args: Any) -> dict[str, Any]:
    return await asyncio.wait_for(remote.ask(op, **args), WAIT)


async def call(remote: Remote, op: str, **args: Any) -> Any:
    return await asyncio.wait_for(remote.call(op, **args), WAIT)


async def replays(url: str, *games: int) -> list[str]:
    """Each game as stored, read by a fresh host: its snapshot is its log replayed (the
    host's check); returns the games' logs, line by line."""
    store = await PostgresStore.open(url, pool_size=2)
    try:
        host = Host(store)
        out = []
        for game in games:
            session = await host.get(game)
            assert await host.check(game), f"game {game}: the snapshot is not its log"
            assert session.game is not None
            out.append(session.game.lines)
        return out
    finally:
        await store.close()


async def test_the_same_move_sent_to_two_processes_at_once_is_applied_once(
        pg_url: str) -> None:
    async with processes(pg_url, 2) as (first, second):
        made = await call(first.remote, "create", kind="makemake", channel=100,
                          guild=guild_on(0, 2), humans=3, ai=0)
        game = made["game"]
        applied = []
        for _ in range(8):  # eight turns, each move sent twice at once
            view = await call(second.remote, "view", game=game)
            [[_colour, user, legal]] = view["pending"]
            answers = await asyncio.gather(*(ask(p.remote, "play", game=game, user=user,
                                                 text=legal[0]) for p in (first, second)))
            done = [a["value"] for a in answers if "value" in a]
            refused = [a["refused"] for a in answers if "refused" in a]
            assert len(done) == 1 and len(refused) == 1, answers
            assert refused[0] in ("bot.refuse.not_your_turn", "bot.refuse.stale"), refused
            applied.append(done[0])
        [lines] = await replays(pg_url, game)
        assert len(lines) == 8
        assert [lines[a["seq"] - 1] for a in applied] == [a["line"] for a in applied]


async def test_a_typed_line_sent_to_two_processes_at_once_is_played_once(pg_url: str) -> None:
    """Giganten's ``loco 1`` is often legal twice in a row: sent to both processes at once, a
    typed line was applied twice. Typed (judged under the game's lock, on the store's seats
    and log), one is played and the other refused as a repeat. The same double sends without
    the window, as before, show what it prevents."""
    async with processes(pg_url, 2) as (first, second):
        made = await call(first.remote, "create", kind="giganten", channel=150,
                          guild=guild_on(0, 2), humans=3, ai=0)
        game = made["game"]
        twice = {None: 0, REPEAT_SECONDS: 0}
        sent = {None: 0, REPEAT_SECONDS: 0}
        now = START
        for _ in range(200):
            if min(sent.values()) >= 4:
                break
            view = await call(second.remote, "view", game=game)
            [_colour, user, legal], *_ = view["pending"]
            if "loco 1" not in legal:
                await call(first.remote, "play", game=game, user=user,
                           text=next(m for m in legal if m != "loco 1"))
                continue
            window = None if sent[None] <= sent[REPEAT_SECONDS] else REPEAT_SECONDS
            answers = await asyncio.gather(*(ask(p.remote, "play", game=game, user=user,
                                                 text="loco 1", repeat=window)
                                             for p in (first, second)))
            done = [a["value"] for a in answers if "value" in a]
            assert done and all("error" not in a for a in answers), answers
            sent[window] += 1
            twice[window] += len(done) - 1
            now += timedelta(seconds=REPEAT_SECONDS)  # the next double send is another
            for process in (first, second):
                await call(process.remote, "clock", now=iso(now))
            if window is not None:
                assert [a.get("refused") for a in answers].count("bot.refuse.repeat") == 1, \
                    answers
        assert min(sent.values()) >= 4, sent
        assert twice[REPEAT_SECONDS] == 0, "typed: played once"
        assert twice[None] > 0, "without the window the same double sends were played twice"
        [lines] = await replays(pg_url, game)
        assert len(lines) == (await call(first.remote, "view", game=game))["seq"]


async def test_two_seats_of_a_sealed_decision_in_two_processes_at_once(pg_url: str) -> None:
    """Giants' sealed bids: the three humans bid at once, two through one process and one
    through the other (and one of them through both): every bid is applied once, and both
    processes see the round go on after the last one."""
    async with processes(pg_url, 2) as (first, second):
        made = await call(second.remote, "create", kind="giants", channel=200,
                          guild=guild_on(1, 2), humans=3, ai=1)
        game = made["game"]
        view = await call(first.remote, "view", game=game)
        assert view["secret"] and len(view["pending"]) == 3
        humans = [colour for colour, _, _ in view["pending"]]
        (_, a, bids_a), (_, b, bids_b), (_, c, bids_c) = view["pending"]
        answers = await asyncio.gather(
            ask(first.remote, "play", game=game, user=a, text=bids_a[0]),
            ask(second.remote, "play", game=game, user=b, text=bids_b[-1]),
            ask(first.remote, "play", game=game, user=c, text=bids_c[0]),
            ask(second.remote, "play", game=game, user=c, text=bids_c[0]))
        done = [x["value"] for x in answers if "value" in x]
        assert len(done) == 3, answers
        assert [x.get("refused") for x in answers[2:]].count(None) == 1, "c's bid: once"
        [lines] = await replays(pg_url, game)
        bids = [line for line in lines if " bid " in line and line.split()[0] in humans]
        assert sorted(line.split()[0] for line in bids) == sorted(humans), "one bid each"
        for answer in done:
            assert lines[answer["seq"] - 1] == answer["line"]
        assert len(lines) == made["seq"] + 3
        for process in (first, second):
            after = await call(process.remote, "view", game=game)
            assert after["seq"] == len(lines) and after["lines"] == lines
            assert not any(" bid " in move for _, _, legal in after["pending"]
                           for move in legal), "the bids are in: the round goes on"


async def test_a_dm_move_applied_by_one_process_is_shown_by_the_other(pg_url: str) -> None:
    """A secret choice comes to process 0 (DMs come on shard 0); the game's server is on
    shard 1, so process 1 shows it: the store's notification has it catch up and show the
    table at once, and process 0 posts nothing of that game."""
    async with processes(pg_url, 2) as (first, second):
        made = await call(second.remote, "create", kind="giants", channel=300,
                          guild=guild_on(1, 2), humans=3, ai=1)
        game = made["game"]
        assert await call(second.remote, "shown", game=game, seq=made["seq"]) >= made["seq"]
        posted = await call(second.remote, "posts")
        view = await call(first.remote, "view", game=game)
        last = 0
        for _, user, bids in view["pending"]:
            answer = await call(first.remote, "play", game=game, user=user, text=bids[0])
            last = answer["last"]
            assert await call(second.remote, "shown", game=game, seq=last) >= last
        assert await call(first.remote, "posts") == {}, "process 0 shows none of it"
        after = await call(second.remote, "posts")
        assert after != posted, "the table and the screens moved on where the game is shown"
        shown = await call(second.remote, "view", game=game)
        assert shown["seq"] == last


async def test_a_process_killed_mid_move_loses_nothing_it_acknowledged(pg_url: str) -> None:
    """Four games move as fast as process 1 takes the moves; it is killed (SIGKILL) with
    moves under way. Every move it acknowledged is in the store, each game's log replays to
    its snapshot, and process 0 carries the games on (the dead process's locks went with its
    connections)."""
    async with processes(pg_url, 2) as (first, second):
        games = [(await call(second.remote, "create", kind="makemake", channel=400 + n,
                             guild=guild_on(1, 2), humans=3, ai=0))["game"] for n in range(4)]
        acks: list[dict[str, Any]] = []
        enough = asyncio.Event()

        async def play_on(game: int) -> None:
            while True:
                view = await call(first.remote, "view", game=game)
                [[_, user, legal]] = view["pending"]
                answer = await second.remote.ask("play", game=game, user=user, text=legal[0])
                acks.append({"game": game, **answer["value"]})
                if len(acks) >= 20:
                    enough.set()

        players = [asyncio.create_task(play_on(game)) for game in games]
        await asyncio.wait_for(enough.wait(), WAIT)
        second.process.kill()  # moves of the other three games are under way
        outcomes = await asyncio.gather(*players, return_exceptions=True)
        assert all(isinstance(o, ConnectionError) for o in outcomes), outcomes
        await asyncio.to_thread(second.process.join, WAIT)
        logs = dict(zip(games, await replays(pg_url, *games), strict=True))
        for ack in acks:
            assert logs[ack["game"]][ack["seq"] - 1] == ack["line"], ack
        for game in games:
            view = await call(first.remote, "view", game=game)
            [[_, user, legal]] = view["pending"]
            answer = await call(first.remote, "play", game=game, user=user, text=legal[0])
            assert answer["seq"] == len(logs[game]) + 1


async def test_a_due_deadline_is_played_once_of_three_processes(pg_url: str) -> None:
    """A turn with a deadline: of three processes whose ticks all find it due, one sends
    the reminder and one plays the timeout."""
    async with processes(pg_url, 3) as many:
        made = await call(many[0].remote, "create", kind="makemake", channel=500,
                          guild=guild_on(0, 3), humans=3, ai=0, turn_seconds=60)
        game = made["game"]
        for process in many:
            await call(process.remote, "view", game=game)
        for process in many:
            await call(process.remote, "clock", now=iso(START + timedelta(seconds=50)))
        sent = await asyncio.gather(*(call(p.remote, "remind", game=game) for p in many))
        assert sent.count(True) == 1
        for process in many:
            await call(process.remote, "clock", now=iso(START + timedelta(seconds=61)))
        steps = await asyncio.gather(*(call(p.remote, "timeout", game=game) for p in many))
        assert [n > 0 for n in steps].count(True) == 1, steps
        [lines] = await replays(pg_url, game)
        store = await PostgresStore.open(pg_url, pool_size=2)
        try:
            rows = await store.log(game)
        finally:
            await store.close()
        assert [r.by for r in rows].count("timeout") == 1 and len(lines) == len(rows)
