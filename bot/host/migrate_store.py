"""Moving a bot from SQLite to PostgreSQL (``python -m bot migrate-store``): the copy of every
table (the store's, :func:`bot.host.store.copy_to_postgres`), then a check that every started
game on the target replays to its snapshot, made by the session host itself.

The check is the one a start of the bot makes (:meth:`Host.check`), for every game that has
a log, finished ones too, and it says more than a start would: a game whose log has a gap or
does not replay, and a snapshot that is not of the log's last action, are reported by game
rather than only logged. Where the host finds a snapshot that disagrees with its log, it does
what a start does: the log wins, and the target's snapshot follows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.host.sessions import Host
from bot.host.store import STATUSES, Copied, Store, copy_to_postgres, open_store, prepare


@dataclass(frozen=True)
class GameProblem:
    """One game that does not replay to its snapshot, and why."""

    game_id: int
    problem: str


@dataclass(frozen=True)
class Moved:
    """What ``migrate-store`` did: the copy, the started games checked, and those that
    failed the check."""

    copied: Copied
    checked: int
    problems: list[GameProblem]


async def migrate_store(source: Path, url: str) -> Moved:
    """Copy the SQLite file ``source`` into the empty PostgreSQL database at ``url``, then
    check every copied game there. Raises what :func:`prepare` and
    :func:`copy_to_postgres` raise (a missing source, a target that is not empty, a database
    that cannot be reached or is of a newer bot)."""
    await prepare(source, url)
    copied = await copy_to_postgres(source, url)
    store = await open_store(url, pool_size=2)
    try:
        checked, problems = await check_games(store)
    finally:
        await store.close()
    return Moved(copied, checked, problems)


async def check_games(store: Store) -> tuple[int, list[GameProblem]]:
    """Every game of the store with a log (a lobby has none), one after the other: its log
    must be whole, its snapshot of its last action and equal to the log replayed. Returns how
    many were checked and the problems found."""
    host = Host(store)
    checked = 0
    problems: list[GameProblem] = []
    for row in await store.games_with_status(*STATUSES):
        if row.header is None:
            continue
        checked += 1
        problem = await _problem(host, row.id)
        if problem is not None:
            problems.append(GameProblem(row.id, problem))
        host.sessions.pop(row.id, None)  # one game at a time in memory
    return checked, problems


async def _problem(host: Host, game_id: int) -> str | None:
    store = host.store
    try:
        log = await store.log(game_id)
    except RuntimeError as exc:  # a gap in the numbers
        return str(exc).removeprefix(f"game {game_id}: ")
    snapshot = await store.snapshot(game_id)
    if snapshot is None:
        return "it has no snapshot"
    if snapshot.seq != len(log):
        return f"its snapshot is of action {snapshot.seq}, its log ends at action {len(log)}"
    try:
        session = await host.get(game_id)
        host.sessions[game_id] = session  # the host checks the games it holds
        agrees = await host.check(game_id)
    except Exception as exc:  # an action of the log that the game refuses
        return f"its log does not replay ({type(exc).__name__}: {exc})"
    if not agrees:
        return ("its snapshot disagrees with its log (the log wins: the copy's snapshot now "
                "follows it, as a start of the bot would have it)")
    return None
