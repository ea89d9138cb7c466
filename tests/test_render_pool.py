"""Pictures drawn in worker processes are the pictures drawn here; a picture wanted twice is
drawn once; a broken pool costs no picture."""

from __future__ import annotations

import asyncio
import itertools
import os
import pickle
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.host.sessions import Host
from bot.host.store import SqliteStore
from bot.table import Picture, desired
from bot.table.pool import (
    _LENGTH,
    BOARDS,
    GIVE_UP,
    NICENESS,
    SPILL,
    RenderPool,
    _Reader,
    cores,
)
from render import frames
from rules.registry import GAME_NAMES, game_module


@pytest.fixture
def pool() -> Iterator[RenderPool]:
    made = RenderPool(1)
    yield made
    made.close()


def opening_board(name: str) -> Picture:
    module = game_module(name)
    view = module.view(module.new(list(module.COLOURS[:module.MIN_SEATS]), None, seed=3), None)
    return Picture("board.png", name, BOARDS[name], (view, "es", {}),
                   {"highlight": frozenset()})


async def test_a_worker_draws_the_same_bytes(pool: RenderPool) -> None:
    frames.forget()  # this process draws afresh too, whatever the tests before it drew
    for name in GAME_NAMES:
        picture = opening_board(name)
        assert await pool.picture(picture) == picture.draw()
    assert pool.drawn == len(GAME_NAMES)


async def test_a_worker_steps_back_for_the_bot(pool: RenderPool) -> None:
    """Drawing yields the cores to the event loop: the worker runs at a lower priority."""
    worker = await pool.draw(os.getpid)
    assert worker != os.getpid()
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, int(worker)) == min(ours + NICENESS, 19)
    assert os.getpriority(os.PRIO_PROCESS, 0) == ours, "the bot keeps its own priority"


async def test_a_picture_wanted_twice_is_drawn_once(pool: RenderPool) -> None:
    picture = opening_board("makemake")
    first = await pool.picture(picture)
    again = await pool.picture(Picture("board.png", "makemake", BOARDS["makemake"],
                                       picture.args, picture.kwargs))
    assert again == first and pool.drawn == 1
    other = Picture("screen.png", "makemake", BOARDS["makemake"], picture.args, picture.kwargs)
    await pool.picture(other)
    assert pool.drawn == 2, "the same key for another file is another picture"


async def test_a_broken_pool_still_draws_and_is_replaced(pool: RenderPool) -> None:
    picture = opening_board("giants")
    await pool.draw(os.getpid)
    worker = await pool.draw(os.getpid)
    assert worker is not None and worker != os.getpid()
    os.kill(int(worker), signal.SIGKILL)
    assert await pool.draw(picture.art, *picture.args, **picture.kwargs) == picture.draw()
    again = await pool.draw(os.getpid)
    assert again is not None and again not in (worker, os.getpid()), "a new worker"


async def test_no_workers_draws_in_this_process() -> None:
    pool = RenderPool(0)
    assert await pool.draw(os.getpid) == os.getpid()
    assert RenderPool().workers == cores()


async def test_every_picture_of_a_table_can_go_to_a_worker(tmp_path: Path) -> None:
    """What a worker gets is pickled: every board and screen of a game in progress."""
    store = await SqliteStore.open(tmp_path / "games.sqlite3")
    try:
        host = Host(store, seed_source=iter(range(1, 99)).__next__)
        for channel, name in enumerate(GAME_NAMES, start=1):
            module = game_module(name)
            session = await host.create(channel_id=channel, guild_id=1, game=name,
                                        options={}, creator_id=channel * 10, language="ru")
            for k in range(1, module.MIN_SEATS):
                await host.join(session.id, channel * 10 + k)
            await host.start(session.id, channel * 10)
            want = desired(session, store.clock(), {}, BOARDS[name])
            pictures = [p.picture for p in (want.live, *(v.screen for v in want.privates))
                        if p is not None and p.picture is not None]
            assert pictures and any(p.filename == "board.png" for p in pictures)
            for picture in pictures:
                art, args, kwargs = pickle.loads(pickle.dumps(
                    (picture.art, picture.args, picture.kwargs)))
                assert art(*args, **kwargs) == picture.draw()
    finally:
        await store.close()


async def test_a_pool_that_keeps_breaking_gives_way_to_threads(pool: RenderPool) -> None:
    picture = opening_board("makemake")
    for _ in range(GIVE_UP):
        worker = await pool.draw(os.getpid)
        assert worker is not None and worker != os.getpid()
        os.kill(int(worker), signal.SIGKILL)
        assert await pool.draw(picture.art, *picture.args, **picture.kwargs) == picture.draw()
    assert pool.workers == 0
    assert await pool.draw(os.getpid) == os.getpid(), "drawn in this process now"


async def test_a_screen_is_never_kept_for_another_game(tmp_path: Path) -> None:
    """Two Giants games in the same position give their red seats the same screen content;
    their screen pictures still have keys of their own, so the pool's kept pictures never
    hand one game's private picture to the other."""
    store = await SqliteStore.open(tmp_path / "games.sqlite3")
    try:
        host = Host(store, seed_source=lambda: 5)
        keys = []
        for channel in (1, 2):
            session = await host.create(channel_id=channel, guild_id=1, game="giants",
                                        options={}, creator_id=channel * 10, language="en")
            for k in (1, 2):
                await host.join(session.id, channel * 10 + k)
            await host.start(session.id, channel * 10)
            want = desired(session, store.clock(), {}, BOARDS["giants"])
            [red] = [p for p in want.privates if p.colour == "red"]
            assert red.screen is not None and red.screen.picture is not None
            keys.append((red.screen.picture.key, red.screen.picture.args))
        assert keys[0][1] == keys[1][1], "the same screen content in both games"
        assert keys[0][0] != keys[1][0]
    finally:
        await store.close()


async def test_a_streams_pictures_go_to_one_worker_unless_it_is_busy() -> None:
    """A stream's worker keeps the bands of its previous picture, so each stream has one; a
    worker with a queue hands the picture to the least busy one."""
    pool = RenderPool(2)
    try:
        first = {game: await pool.draw(os.getpid, stream=game) for game in (4, 5, 6, 7)}
        assert first[4] == first[6] != first[5] == first[7]
        assert {await pool.draw(os.getpid, stream=4) for _ in range(3)} == {first[4]}
        busy = pool._slots[4 % 2]
        assert busy is not None
        loop = asyncio.get_running_loop()
        queued = {-n: loop.create_future() for n in range(1, SPILL + 1)}
        busy.waiting.update(queued)
        assert await pool.draw(os.getpid, stream=4) == first[5], "the least busy worker"
        for number in queued:
            del busy.waiting[number]
        assert await pool.draw(os.getpid, stream=4) == first[4], "its own again"
    finally:
        pool.close()


async def test_a_failing_picture_raises_its_error_here(pool: RenderPool) -> None:
    with pytest.raises(ZeroDivisionError):
        await pool.draw(divmod, 1, 0)
    assert await pool.draw(os.getpid) != os.getpid(), "the worker goes on"


def test_the_reader_takes_frames_in_any_pieces() -> None:
    """Answers arrive as the socket gives them: a length cut in two, a PNG in many reads;
    each frame is read into its own buffer and settles its own future."""
    heard: list[tuple[int, bool, Any]] = []

    class Worker:
        def answer(self, number: int, ok: bool, value: Any) -> None:
            heard.append((number, ok, value))

    frames = b"".join(_LENGTH.pack(len(body)) + body for body in (
        pickle.dumps((1, True, b"\x89PNG" + bytes(range(256)) * 300)),
        pickle.dumps((2, False, ValueError("no"))), pickle.dumps((3, True, None))))
    reader = _Reader(Worker())  # type: ignore[arg-type]
    at = 0
    for size in itertools.cycle((1, 3, 7, 1000, 65536)):
        if at == len(frames):
            break
        buffer = reader.get_buffer(-1)
        n = min(size, len(buffer), len(frames) - at)
        buffer[:n] = frames[at:at + n]
        reader.buffer_updated(n)
        at += n
    assert [(n, ok) for n, ok, _ in heard] == [(1, True), (2, False), (3, True)]
    assert heard[0][2] == b"\x89PNG" + bytes(range(256)) * 300
    assert isinstance(heard[1][2], ValueError) and heard[2][2] is None
