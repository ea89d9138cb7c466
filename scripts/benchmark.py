"""Speed figures, measured: engine apply, SQLite commit, board render, AI games, many games at once.

    python scripts/benchmark.py [--games 10] [--parallel 20] [--only makemake] [--quick]

For each game: one greedy seat against random seats plays a game whose record is then measured
(apply every line; commit every line; render the middle and the last position, against a bare PNG
encode of the same canvas), then whole AI games per second; last, many Make Make games at once
through the session host and the store. Every figure is measured when the script runs.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import io
import json
import sqlite3
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from isal import isal_zlib
from PIL import Image

from bot.host.clock import iso
from bot.host.sessions import Host
from bot.host.store import Seat, SqliteStore, Store
from render import palette
from rules.core import GameModule
from rules.record import Game, parse_line, replay
from rules.registry import GAME_NAMES, game_module
from scripts.ai_match import play
from scripts.live import live, startup

SEATS = {"makemake": 4, "giants": 5, "giganten": 4}
"""Seats of the measured games (the figures in docs were taken with these); any other game
plays with its most seats (:func:`seats_of`)."""


def seats_of(name: str) -> int:
    return SEATS.get(name, game_module(name).MAX_SEATS)


QUICK_REPEAT = 2
"""With ``--quick``: calls per timed figure (and the workloads below shrink to match)."""
quick = False
"""Whether ``--quick`` asked for the script's shape with tiny workloads (the figures mean
little; the suite checks that every one is still printed)."""


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    """Wall-clock milliseconds of each of ``repeat`` calls (:data:`QUICK_REPEAT` with
    ``--quick``)."""
    repeat = min(repeat, QUICK_REPEAT) if quick else repeat
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def show(name: str, ms: list[float]) -> None:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    print(f"  {name:<42} median {statistics.median(ms):8.3f} ms   p95 {p95:8.3f} ms"
          f"   (n={len(ms)})")


def bench_apply(module: GameModule, game: Game) -> None:
    state = module.new(list(game.header.seats), game.header.options.values,
                       seed=game.header.seed)
    actions = [parse_line(module, line) for line in game.lines]
    start = time.perf_counter()
    for actor, action in actions:
        state, _ = module.apply(state, actor, action)
    per = (time.perf_counter() - start) * 1000 / len(actions)
    print(f"  {'apply (mean over one game)':<42} mean   {per:8.3f} ms"
          f"   ({len(actions)} actions)")


def bench_copies(module: GameModule, game: Game) -> None:
    """Per action, side by side: ``apply``, the state's copy (which ``apply`` makes) and
    ``to_json`` (which the host stores after every action), then ``from_json`` of that JSON."""
    state = module.new(list(game.header.seats), game.header.options.values,
                       seed=game.header.seed)
    costs: dict[str, list[float]] = {"apply": [], "state copy": [], "to_json": [], "from_json": []}
    for actor, action in (parse_line(module, line) for line in game.lines):
        data = module.to_json(state)
        costs["state copy"] += timed(state.copy, 1)
        costs["to_json"] += timed(partial(module.to_json, state), 1)
        costs["from_json"] += timed(partial(module.from_json, data), 1)
        start = time.perf_counter()
        state, _ = module.apply(state, actor, action)
        costs["apply"].append((time.perf_counter() - start) * 1000)
    floor = statistics.median(costs["apply"])
    for label, ms in costs.items():
        print(f"  {label + ' (per action)':<42} median {statistics.median(ms):8.3f} ms"
              f"   {statistics.median(ms) / floor:5.2f}x apply   (n={len(ms)})")


RAW_STATEMENTS = (
    "INSERT INTO actions (game_id, seq, line, sealed, events, by) VALUES (?, ?, ?, ?, ?, ?)",
    "INSERT OR REPLACE INTO snapshots (game_id, seq, state) VALUES (?, ?, ?)",
    "UPDATE games SET updated_at = ? WHERE id = ?",
    "UPDATE seats SET acted_at = ? WHERE game_id = ? AND colour = ?",
    "UPDATE seats SET timeouts = 0, away = 0 WHERE game_id = ? AND colour = ?",
)
"""What :meth:`Store.append_action` runs for a human's action: the raw floor runs the same."""
CONCURRENT = 50
"""Games committing at once in the concurrent figure."""
COMMITS = 200
"""At least this many commits for each median: the record's lines over again if it is short."""


def _lines(game: Game) -> list[str]:
    """The record's lines, repeated up to :data:`COMMITS` (the rows need not replay)."""
    if quick:
        return game.lines[:QUICK_REPEAT * 5]
    return [game.lines[i % len(game.lines)] for i in range(max(COMMITS, len(game.lines)))]


async def _store_game(store: Store, module: GameModule, game: Game, channel: int) -> int:
    """A started game in ``store`` with the record's seats (humans), for committing into."""
    row = await store.create_game(channel_id=channel, guild_id=1, game=module.NAME, options="",
                                  seed=0, creator_id=1, language="en", ai_level="greedy")
    for user, colour in enumerate(game.header.seats, start=1):
        await store.add_seat(row.id, colour, user, None, f"p{user}")
    await store.start_game(row.id, game.header.line(), module.to_json(game.state))
    return row.id


def _raw_commit(db: sqlite3.Connection, game_id: int, seq: int, line: str, state: str) -> None:
    """One action as :meth:`Store.append_action` writes it, with bare ``sqlite3``."""
    actor = line.split(" ", 1)[0]
    now = "2026-01-01T00:00:00+00:00"
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(RAW_STATEMENTS[0], (game_id, seq, line, None, "[]",
                                       "chance" if actor == "*" else "human"))
        db.execute(RAW_STATEMENTS[1], (game_id, seq, state))
        db.execute(RAW_STATEMENTS[2], (now, game_id))
        if actor != "*":
            db.execute(RAW_STATEMENTS[3], (now, game_id, actor))
            db.execute(RAW_STATEMENTS[4], (game_id, actor))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _raw_connection(path: Path, synchronous: str) -> sqlite3.Connection:
    """A bare connection to a database the store made, with the store's pragmas (no
    checkpoint inside a commit: the store folds the log in on its reader's thread)."""
    db = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode = WAL", f"synchronous = {synchronous}", "foreign_keys = ON",
                   "busy_timeout = 5000", "wal_autocheckpoint = 0"):
        db.execute(f"PRAGMA {pragma}")
    return db


async def _raw_games(path: Path, module: GameModule, game: Game, count: int) -> list[int]:
    """``count`` started games (seats included), made by the store, for the raw floor."""
    store = await SqliteStore.open(path)
    ids = [await _store_game(store, module, game, channel) for channel in range(count)]
    await store.close()
    return ids


def _encode(state: dict[str, Any]) -> str:
    """The snapshot's JSON text, as the store encodes it."""
    return json.dumps(state, separators=(",", ":"), ensure_ascii=False, default=list)


async def bench_commit(module: GameModule, game: Game) -> None:
    """The store's commit against the raw ``sqlite3`` floor (same pragmas, statements and
    ``synchronous``, one transaction each) for FULL and NORMAL, interleaved (a store commit,
    then a raw one, ...: both see the same machine), then :data:`CONCURRENT` games committing
    at once. The store also encodes the snapshot's JSON; that is timed on its own beside."""
    state = module.to_json(game.state)
    dumped = _encode(state)
    lines = _lines(game)
    for synchronous in ("FULL", "NORMAL"):
        with tempfile.TemporaryDirectory() as tmp:
            store = await SqliteStore.open(Path(tmp) / "store.sqlite3", synchronous=synchronous)
            game_id = await _store_game(store, module, game, 1)
            [raw_id] = await _raw_games(Path(tmp) / "raw.sqlite3", module, game, 1)
            db = _raw_connection(Path(tmp) / "raw.sqlite3", synchronous)
            ms: list[float] = []
            raw: list[float] = []
            encode: list[float] = []
            for seq, line in enumerate(lines, start=1):
                ms += await _store_commits(store, game_id, [line], state, seq)
                start = time.perf_counter()
                _raw_commit(db, raw_id, seq, line, dumped)
                raw.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                _encode(state)
                encode.append((time.perf_counter() - start) * 1000)
            db.close()
            await store.close()
        show(f"commit, store, synchronous={synchronous}", ms)
        show(f"commit, raw sqlite3, synchronous={synchronous}", raw)
        show("  the snapshot's JSON encode (in the store's)", encode)
        floor = statistics.median(raw)
        with_encode = statistics.median([r + e for r, e in zip(raw, encode, strict=True)])
        print(f"  {'commit, store / raw (medians)':<42} ratio  {statistics.median(ms) / floor:8.2f}"
              f"   (store / (raw + encode): {statistics.median(ms) / with_encode:.2f})")
        await bench_concurrent(module, game, synchronous)


async def _store_commits(store: Store, game_id: int, lines: list[str],
                         state: dict[str, Any], first: int = 1) -> list[float]:
    """Each line committed through the store (log rows ``first``, ...): milliseconds each."""
    ms = []
    for seq, line in enumerate(lines, start=first):
        actor = line.split(" ", 1)[0]
        by = "chance" if actor == "*" else "human"
        seat = None if actor == "*" else Seat(actor, 1, acted_at=iso(store.clock()))
        start = time.perf_counter()
        await store.append_action(game_id, seq, line, state, by=by, seat=seat)
        ms.append((time.perf_counter() - start) * 1000)
    return ms


CONCURRENT_COMMITS = 20
"""Commits per game in the concurrent figure."""
ROUNDS = 3
"""Store and raw take turns this many times in the concurrent figure (the median counts)."""


async def bench_concurrent(module: GameModule, game: Game, synchronous: str) -> None:
    """:data:`CONCURRENT` games committing :data:`CONCURRENT_COMMITS` rows each at once
    (``asyncio.gather``) through the store, against one raw connection committing the same
    rows one after another (a single writer: the most SQLite does), with each snapshot
    encoded as the store does and without; they take turns :data:`ROUNDS` times."""
    state = module.to_json(game.state)
    dumped = _encode(state)
    lines = _lines(game)[:QUICK_REPEAT if quick else CONCURRENT_COMMITS]
    games = QUICK_REPEAT if quick else CONCURRENT
    total = games * len(lines)
    rates: dict[str, list[float]] = {"store": [], "raw": [], "raw + encode": []}
    for _ in range(1 if quick else ROUNDS):
        with tempfile.TemporaryDirectory() as tmp:
            store = await SqliteStore.open(Path(tmp) / "store.sqlite3", synchronous=synchronous)
            ids = [await _store_game(store, module, game, n) for n in range(games)]
            start = time.perf_counter()
            await asyncio.gather(*(_store_commits(store, i, lines, state) for i in ids))
            rates["store"].append(total / (time.perf_counter() - start))
            await store.close()
            for label, encoding in (("raw", False), ("raw + encode", True)):
                path = Path(tmp) / f"{label}.sqlite3"
                raw_ids = await _raw_games(path, module, game, games)
                db = _raw_connection(path, synchronous)
                start = time.perf_counter()
                for seq, line in enumerate(lines, start=1):
                    for game_id in raw_ids:
                        _raw_commit(db, game_id, seq, line, _encode(state) if encoding
                                    else dumped)
                rates[label].append(total / (time.perf_counter() - start))
                db.close()
    store_rate, raw_rate, encoded_rate = (statistics.median(rates[k]) for k in rates)
    label = f"{games} games at once, synchronous={synchronous}"
    print(f"  {label:<42} store {store_rate:6.0f} commits/s, raw {raw_rate:6.0f}"
          f" (raw / store {raw_rate / store_rate:4.2f}), raw + encode {encoded_rate:6.0f}"
          f" ({encoded_rate / store_rate:4.2f})   (n={total}, median of {ROUNDS})")


def bare_png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def bench_render(module: GameModule, record: str) -> None:
    renderer = importlib.import_module(f"render.{module.NAME}")
    lines = record.splitlines()
    for label, upto in (("middle", len(lines) // 2), ("end", len(lines))):
        game, _ = replay("\n".join(lines[:upto]))
        bench_render_view(renderer, module.view(game.state, None), label)


def bench_render_view(renderer: Any, view: dict[str, Any], label: str) -> None:
    renderer.board(view)  # the first render builds the static layer, palette and bands once
    image = renderer.canvas(view)
    design: palette.Palette = renderer.palette()
    indexed = design.quantize(image)
    raw = palette.scanlines(indexed)
    show(f"render {label}: canvas (pieces on cache)", timed(lambda: renderer.canvas(view), 10))
    show(f"render {label}:   floor, image.copy() of it", timed(image.copy, 10))
    show(f"render {label}: board (canvas + PNG)", timed(lambda: renderer.board(view), 10))
    show(f"render {label}: the board's PNG encode, its bands kept",
         timed(lambda: palette.encode(design, image), 10))
    show(f"render {label}: the board's PNG encode, no band kept",
         timed(lambda: palette.encode(design, image, palette.Bands()), 10))
    show(f"render {label}:   palette quantize, whole picture",
         timed(lambda: design.quantize(image), 10))
    show(f"render {label}:   ISA-L level 1 (the encoder's), whole picture",
         timed(lambda: isal_zlib.compress(raw, palette.LEVEL), 10))
    show(f"render {label}: bare PNG save, same canvas", timed(lambda: bare_png(image), 5))
    for name, compress, levels in (("ISA-L", isal_zlib.compress, (0, 1, 2, 3)),
                                   ("zlib", zlib.compress, (1, 3, 6, 9))):
        for level in levels:
            size = len(compress(raw, level))
            show(f"render {label}:   {name} level {level} ({size / 1024:.0f} KiB)",
                 timed(lambda c=compress, level=level: c(raw, level), 5))  # type: ignore[misc]
    png = renderer.board(view)
    print(f"  render {label}: {image.width}x{image.height} px, PNG {len(png) / 1024:.0f} KiB")


def bench_games(module: GameModule, games: int) -> None:
    seats = seats_of(module.NAME)
    for greedy_seat, label in ((None, "all random"), (0, "one greedy")):
        start = time.perf_counter()
        for i in range(games):
            play(module.NAME, seats, greedy_seat, i, [])
        rate = games / (time.perf_counter() - start)
        print(f"  {'AI games, ' + label:<42} {rate:8.2f} games/s   ({seats} seats, n={games})")


async def bench_parallel(count: int, level: str) -> None:
    """``count`` all-AI Make Make games in ``count`` channels at once, through the host.

    With random seats the figure is the host's own cost (lock, apply, commit); with greedy seats
    it is mostly the AI's thinking.
    """
    with tempfile.TemporaryDirectory() as tmp:
        store = await SqliteStore.open(Path(tmp) / "bench.sqlite3")
        host = Host(store, seed_source=iter(range(1, 10**6)).__next__)
        await host.load()
        sessions = []
        for channel in range(count):
            session = await host.create(channel_id=channel, guild_id=1, game="makemake",
                                        options={"round_limit": "30"}, creator_id=1,
                                        language="en", ai_level=level, join=False)
            for _ in range(3):
                await host.add_ai(session.id, 1)
            sessions.append(session)
        start = time.perf_counter()
        reports = await asyncio.gather(*(host.start(s.id, 1) for s in sessions))
        elapsed = time.perf_counter() - start
        actions = sum(len(r.steps) for r in reports)
        await store.close()
    print(f"  {count} {level} AI games at once: {actions} actions committed in {elapsed:.2f} s"
          f" = {actions / elapsed:.0f} actions/s, {count / elapsed:.2f} games/s")


def main() -> int:
    global quick
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=None,
                        help="AI games per figure (10); with --live: live games (100)")
    parser.add_argument("--parallel", type=int, default=20)
    parser.add_argument("--only", choices=GAME_NAMES)
    parser.add_argument("--live", action="store_true",
                        help="many live games through the host, store, outbox and renders")
    parser.add_argument("--interval", type=float, default=10.0,
                        help="with --live: seconds between a game's moves (0: at once)")
    parser.add_argument("--seconds", type=float, default=30.0,
                        help="with --live: how long the load is measured")
    parser.add_argument("--workers", type=int, default=None,
                        help="with --live: render processes (default: one per core)")
    parser.add_argument("--store", choices=("sqlite", "postgresql"), default="sqlite",
                        help="with --live: where the games are kept (postgresql: a throwaway"
                             " server of its own, unless --database-url names one)")
    parser.add_argument("--processes", type=int, default=1,
                        help="with --live --store postgresql: bot processes sharing the store")
    parser.add_argument("--database-url", default=None,
                        help="with --live --store postgresql: an empty database to use")
    parser.add_argument("--startup", type=int, metavar="GAMES",
                        help="time a start on a store of this many games (a tenth running)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true",
                        help="tiny workloads: every figure printed, none worth reading")
    args = parser.parse_args()
    quick = args.quick
    if args.live or args.startup:
        figures: dict[str, object] = {}
        if args.live:
            if args.store == "sqlite" and (args.processes != 1 or args.database_url):
                parser.error("--processes and --database-url need --store postgresql")
            figures.update(asyncio.run(live(args.games or 100, args.interval, args.seconds,
                                            args.workers, store=args.store,
                                            processes=args.processes,
                                            database_url=args.database_url)))
        if args.startup:
            figures.update(startup(args.startup))
        if args.json:
            print(json.dumps(figures))
        else:
            for key, value in figures.items():
                print(f"  {key:<20} {value}")
        return 0
    args.games = args.games or 10
    for name in [args.only] if args.only else GAME_NAMES:
        module = game_module(name)
        record = play(name, seats_of(name), 0, 3, []).record()
        game, _ = replay(record)
        print(f"{name}, {seats_of(name)} seats, a game of one greedy seat against random seats:")
        bench_apply(module, game)
        bench_copies(module, game)
        asyncio.run(bench_commit(module, game))
        bench_render(module, record)
        bench_games(module, args.games)
    print("makemake, many games at once through the host and the store:")
    for level in ("random", "greedy"):
        asyncio.run(bench_parallel(args.parallel, level))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
