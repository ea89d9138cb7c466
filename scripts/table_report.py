"""Play one whole game through the offline Discord simulator and report what the table cost.

    python scripts/table_report.py giants --humans 3 --ai 1 --seed 1 [--touch-only] --json

Scripted humans act only through what the bot shows them: the live table's buttons and selects,
``/play`` with its autocomplete choices, the DM prompts (their selects, toggles and Submit), and
choices typed in a DM; the last human has closed DMs and uses the table's 🔒 button instead.
What a human decides (which of the shown choices) comes from the greedy AI on that seat's own
position; each decision takes 20 s of the simulator's virtual time. Prints one JSON object
(see ``REPORT_KEYS``).

With ``--touch-only`` the humans never type (no ``/play``, no typed DM, no modal text but an
amount): they tap what the bot shows, a choice by taps included (:mod:`scripts.tables.touch`); a
move they could not reach so is typed after all and counted in ``typed``. ``taps_per_decision_p50``
and ``_p95`` count the gestures per decision (a select is one, opening a chooser is one, an
amount typed in a modal is one).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import simcord

from bot import create_bot
from bot.games import playable
from bot.host.clock import ManualClock
from bot.settings import Settings
from scripts.tables.counting import game_of, sent_texts, summary
from scripts.tables.humans import Table

THINK = 20.0
"""Virtual seconds a human takes per decision."""
MAX_DECISIONS = 3000
SETTLE_WITHIN = 60.0
"""Real seconds the simulator waits for the bot to settle after an event (its default is 5):
drawing a board runs in a thread, and on a busy machine (the tests run on every core) the
first boards of a game can take longer than 5 s. A bot that never settles still fails."""
REPORT_KEYS = ("finished", "rounds", "channel_messages", "channel_posts", "channel_images",
               "edits", "dms", "mentions", "live_component_messages_max",
               "stale_components_at_end", "human_actions", "gestures", "per_round", "typed",
               "taps_per_decision_p50", "taps_per_decision_p95")


class SimClock(ManualClock):
    """The bot's clock follows the simulator's virtual time."""

    def __init__(self, env: Any = None) -> None:
        super().__init__()
        self.env = env

    def __call__(self):  # type: ignore[no-untyped-def]
        return self.env.now() if self.env is not None else self.now


async def run(game: str, humans: int, ai_seats: int, seed: int, lang: str,
              options: list[str], *, texts: list[str] | None = None,
              locale: str | None = None, touch_only: bool = False) -> dict[str, Any]:
    """Play the game; ``texts`` (when given) receives every text the bot sent, ``locale``
    is the Discord locale of every human's interactions (the simulator's default otherwise),
    and ``touch_only`` has the humans tap, never type."""
    original = simcord.interactions.base_payload

    def localised(*args: Any, **kwargs: Any) -> Any:
        record, payload = original(*args, **kwargs)
        if locale is not None:
            payload["locale"] = locale
        return record, payload

    simcord.interactions.base_payload = localised
    try:
        report, sent = await _run(game, humans, ai_seats, seed, lang, options, touch_only)
    finally:
        simcord.interactions.base_payload = original
    if texts is not None:
        texts.extend(sent)
    return report


async def _run(game: str, humans: int, ai_seats: int, seed: int, lang: str,
               options: list[str], touch_only: bool) -> tuple[dict[str, Any], list[str]]:
    with tempfile.TemporaryDirectory() as folder:
        clock = SimClock()
        settings = Settings(db_path=Path(folder) / "games.sqlite3", language=lang,
                            clock=clock, seed_source=lambda: seed, render_workers=0)
        bot = create_bot(settings)
        try:
            async with simcord.run(bot, settle_timeout=SETTLE_WITHIN) as env:
                clock.env = env
                report = await _play(env, game, humans, ai_seats, seed, options, touch_only)
                return report, sent_texts(env)
        finally:
            if bot.store is not None:
                await bot.store.close()


async def _play(env: Any, game: str, humans: int, ai_seats: int, seed: int,
                options: list[str], touch_only: bool) -> dict[str, Any]:
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    members = [guild.add_member(env.create_user(f"player{i + 1}")) for i in range(humans)]
    closed = members[-1] if humans > 1 else None
    if closed is not None:
        env.inject_error("POST", f"/channels/{closed.user.dm_channel.id}/messages", status=403,
                         code=50007, message="Cannot send messages to this user", times=None)
    given = dict(word.partition("=")[::2] for word in options)
    extra = {"options": " ".join(f"{k}={v}" for k, v in given.items())} if given else {}
    result = await members[0].slash(channel, "game new", game=game, **extra)
    lobby = next(m for m in channel.history() if m.id == result.response.id)
    for member in members[1:]:
        await member.click(lobby, custom_id=f"lobby:{game_of(lobby)}:join")
    for _ in range(ai_seats):
        await members[0].click(lobby, custom_id=f"lobby:{game_of(lobby)}:ai")
    await members[0].click(lobby, custom_id=f"lobby:{game_of(lobby)}:start")
    table = Table(env, channel, members, closed, seed, touch_only)
    host = env.bot.games
    game_id = game_of(lobby)
    by_id = {m.id: m for m in members}
    decisions = 0
    while decisions < MAX_DECISIONS:
        table.watch()
        session = host.sessions.get(game_id)
        if session is None or session.status != "running":
            break
        pending = [s for s in session.seats if s.colour in session.pending() and not s.is_ai]
        if not pending:
            await env.advance_time(THINK)
            continue
        await env.advance_time(THINK)
        session = host.sessions.get(game_id)
        if session is None or session.status != "running":
            break
        seat = next((s for s in session.seats if s.colour in session.pending() and not s.is_ai),
                    None)
        if seat is None:
            continue
        acted = await table.act(by_id[seat.user_id], session)
        decisions += 1
        if not acted:
            raise RuntimeError(f"{seat.colour} could not act on what the bot shows "
                               f"({session.kind()})")
    await env.advance_time(300)
    table.watch()
    final = await host.get(game_id)
    view = final.view() if final.game else {}
    return summary(env, table, channel, members, view, final.status == "finished")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=playable())
    parser.add_argument("--humans", type=int, default=3)
    parser.add_argument("--ai", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--json", action="store_true", help="print JSON (the only output)")
    parser.add_argument("--texts", action="store_true",
                        help="print every distinct text the bot sent instead, one per paragraph")
    parser.add_argument("--locale", help="the humans' Discord locale (e.g. es-ES, ru, zh-TW)")
    parser.add_argument("--touch-only", action="store_true",
                        help="the humans only tap what the bot shows, never type")
    parser.add_argument("options", nargs="*", help="rule options as key=value")
    args = parser.parse_args(argv)
    texts: list[str] = []
    report = asyncio.run(run(args.game, args.humans, args.ai, args.seed, args.lang,
                             args.options, texts=texts, locale=args.locale,
                             touch_only=args.touch_only))
    if args.texts:
        print("\n\n".join(dict.fromkeys(texts)))
    elif args.json:
        print(json.dumps(report))
    else:
        for key in REPORT_KEYS:
            print(f"{key}: {report[key]}")
    return 0 if report["finished"] else 1


if __name__ == "__main__":
    sys.exit(main())
