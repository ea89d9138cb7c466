"""Play one whole game through the offline Discord simulator and report what the table cost.

    python scripts/table_report.py giants --humans 3 --ai 1 --seed 1 [--lang en] --json

Scripted humans act only through what the bot shows them: the live table's buttons and selects,
``/play`` with its autocomplete choices, the DM prompts (their selects, toggles and Submit), and
choices typed in a DM; the last human has closed DMs and uses the table's 🔒 button instead.
What a human decides (which of the shown choices) comes from the greedy AI on that seat's own
position; each decision takes 20 s of the simulator's virtual time. Prints one JSON object
(see ``REPORT_KEYS``).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import discord
import simcord

from bot import create_bot
from bot.games import game_ui, playable
from bot.games._ui import CHOICE_SEPARATOR
from bot.host.clock import ManualClock
from bot.settings import Settings
from rules import ai

THINK = 20.0
"""Virtual seconds a human takes per decision."""
MAX_DECISIONS = 3000
SETTLE_WITHIN = 60.0
"""Real seconds the simulator waits for the bot to settle after an event (its default is 5):
drawing a board runs in a thread, and on a busy machine (the tests run on every core) the
first boards of a game can take longer than 5 s. A bot that never settles still fails."""
REPORT_KEYS = ("finished", "rounds", "channel_messages", "channel_posts", "channel_images",
               "edits", "dms", "mentions", "live_component_messages_max",
               "stale_components_at_end", "human_actions", "gestures", "per_round")


class SimClock(ManualClock):
    """The bot's clock follows the simulator's virtual time."""

    def __init__(self, env: Any = None) -> None:
        super().__init__()
        self.env = env

    def __call__(self):  # type: ignore[no-untyped-def]
        return self.env.now() if self.env is not None else self.now


def _enabled(message: discord.Message) -> bool:
    return any(not getattr(c, "disabled", False) for row in message.components
               for c in getattr(row, "children", []))


def _mine(env: Any, messages: list[discord.Message]) -> list[discord.Message]:
    return [m for m in messages if m.author.id == env.bot.user.id and not m.flags.ephemeral]


class Table:
    """The game as the humans see it, and the report's counters."""

    def __init__(self, env: Any, channel: Any, humans: list[Any], closed: Any, seed: int) -> None:
        self.env, self.channel, self.humans, self.closed = env, channel, humans, closed
        self.rng = random.Random(f"table:{seed}")
        self.gestures = 0
        self.actions = 0
        self.live_max = 0
        self.typed_turns = itertools.count()

    # --- what a human sees ---------------------------------------------------------------------

    def places(self) -> list[Any]:
        return [self.channel, *self.channel.threads]

    def table_messages(self) -> list[discord.Message]:
        return [m for place in self.places() for m in _mine(self.env, place.history())]

    def dm_messages(self, member: Any) -> list[discord.Message]:
        return _mine(self.env, member.user.dm_channel.history())

    def live(self) -> discord.Message | None:
        live = [m for m in self.table_messages() if _enabled(m) and m.embeds
                and "#" in (m.embeds[0].title or "") and not (m.embeds[0].fields and any(
                    f.name.startswith("Seats") for f in m.embeds[0].fields))]
        return live[-1] if live else None

    def watch(self) -> None:
        """The most messages with live components at this moment, per place."""
        counts = [sum(_enabled(m) for m in self.table_messages())]
        counts += [sum(_enabled(m) for m in self.dm_messages(h)) for h in self.humans]
        self.live_max = max(self.live_max, *counts)

    # --- acting --------------------------------------------------------------------------------

    async def act(self, member: Any, session: Any) -> bool:
        """One decision of ``member``; False if nothing they were shown let them act."""
        seat = session.seat_of(member.id)
        module = session.module
        want = str(ai.choose(module, session.game.state, seat.colour, "greedy",
                             random.Random(f"{self.rng.random()}")))
        ui = game_ui(session.row.game)
        if ui.is_private(session.kind()):
            done = await self._private(member, session, seat, want)
        else:
            done = await self._public(member, session, want)
        if done:
            self.actions += 1
        return done

    async def _private(self, member: Any, session: Any, seat: Any, want: str) -> bool:
        if member is self.closed:
            live = self.live()
            if live is None:
                return False
            opened = await member.click(live, custom_id=_custom_id(live, ":open"))
            self.gestures += 1
            shown = (opened.followups or [opened.response])[-1]
            if shown is None:
                return False
            return await self._fill(member, session, seat, want, shown)
        prompts = [m for m in self.dm_messages(member) if _enabled(m)]
        if not prompts:
            return False
        if next(self.typed_turns) % 3 == 0:  # now and then the choice is typed in the DM
            await member.send_dm(want)
            self.gestures += 1
            return True
        return await self._fill(member.user, session, seat, want, prompts[-1])

    async def _fill(self, member: Any, session: Any, seat: Any, want: str, message: Any) -> bool:
        """Work a prompt's components into ``want``, then submit it (``member`` is the user
        for a DM, the guild member for an ephemeral prompt)."""
        ui = game_ui(session.row.game)
        form = ui.private_form(session.kind(), session.view(seat.colour), seat.colour,
                               session.row.language)
        words = want.split()
        if form is None:  # the legal actions themselves: button ``a<i>`` or option ``<i>``
            legal = [str(a) for a in session.legal(seat.colour)]
            number = str(legal.index(want)) if want in legal else None
            for row in _rows(message):
                for c in row:
                    if c.get("type") == 2 and c.get("custom_id", "").split(":")[4:5] \
                            == [f"a{number}"]:
                        await member.click(message, custom_id=c["custom_id"])
                        self.gestures += 1
                        return True
                    if c.get("type") == 3 and number in [o["value"] for o in c["options"]]:
                        await member.select(message, [number], custom_id=c["custom_id"])
                        self.gestures += 1
                        return True
            return False
        target = []
        for field in form.fields:
            tokens = [token for token, _ in field.choices]
            target.append(next((i for i, tok in enumerate(tokens) if tok and tok in words), 0))
        current = message
        for i, field in enumerate(form.fields):
            if len(field.choices) < 2:
                continue
            component = _find(current, f":f{i}:")
            if component is None:
                continue
            if component.get("type") == 3:
                chosen = next((o["value"] for o in component["options"] if o.get("default")), "0")
                if chosen != str(target[i]):
                    result = await member.select(current, [str(target[i])],
                                                 custom_id=component["custom_id"])
                    self.gestures += 1
                    current = _refreshed(result, current)
            else:
                on = "✓" in (component.get("label") or "")
                if on != bool(target[i]):
                    result = await member.click(current, custom_id=component["custom_id"])
                    self.gestures += 1
                    current = _refreshed(result, current)
        submit = _find(current, ":ok:")
        if submit is None:
            return False
        await member.click(current, custom_id=submit["custom_id"])
        self.gestures += 1
        return True

    async def _public(self, member: Any, session: Any, want: str) -> bool:
        live = self.live()
        if live is not None:
            for row in _rows(live):
                for c in row:
                    cid = c.get("custom_id", "")
                    if c.get("type") == 2 and not c.get("disabled") and cid.split(":", 4)[3:5] \
                            == ["act", want]:
                        await member.click(live, custom_id=cid)
                        self.gestures += 1
                        return True
        choices = await member.autocomplete(self.home(), "play", "notation", want)
        self.gestures += 1
        values = [c["value"] for c in choices]
        if want not in values:
            if not values:
                return False
            want = values[0]
        await member.slash(self.home(), "play", notation=want)
        self.gestures += 1
        return True

    def home(self) -> Any:
        threads = self.channel.threads
        return threads[-1] if threads else self.channel


def _rows(message: Any) -> list[list[dict[str, Any]]]:
    stored = message
    raw = getattr(stored, "components", [])
    out = []
    for row in raw:
        if isinstance(row, dict):
            out.append(row.get("components", []))
        else:
            out.append([c.to_dict() for c in row.children])
    return out


def _find(message: Any, part: str) -> dict[str, Any] | None:
    for row in _rows(message):
        for c in row:
            if part in c.get("custom_id", ""):
                return c
    return None


def _custom_id(message: Any, part: str) -> str:
    found = _find(message, part)
    assert found is not None
    return str(found["custom_id"])


def _refreshed(result: Any, old: Any) -> Any:
    response = result.response
    return response if response is not None else old


# --- the game ------------------------------------------------------------------------------

async def run(game: str, humans: int, ai_seats: int, seed: int, lang: str,
              options: list[str], *, texts: list[str] | None = None,
              locale: str | None = None,
              shown: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """Play the game; ``texts`` (when given) receives every text the bot sent, ``shown`` the
    same texts each with where it was shown (:func:`shown_texts`), and ``locale`` is the
    Discord locale of every human's interactions (the simulator's default otherwise)."""
    original = simcord.interactions.base_payload
    typed: set[str] = set()  # the tokens of /play interactions

    def localised(*args: Any, **kwargs: Any) -> Any:
        record, payload = original(*args, **kwargs)
        if locale is not None:
            payload["locale"] = locale
        if (payload.get("data") or {}).get("name") == "play":
            typed.add(str(payload.get("token")))
        return record, payload

    simcord.interactions.base_payload = localised
    try:
        report, sent = await _run(game, humans, ai_seats, seed, lang, options, typed)
    finally:
        simcord.interactions.base_payload = original
    if texts is not None:
        texts.extend(text for _, text in sent)
    if shown is not None:
        shown.extend(sent)
    return report


async def _run(game: str, humans: int, ai_seats: int, seed: int, lang: str,
               options: list[str], typed: set[str]) -> tuple[dict[str, Any],
                                                             list[tuple[str, str]]]:
    with tempfile.TemporaryDirectory() as folder:
        clock = SimClock()
        settings = Settings(db_path=Path(folder) / "games.sqlite3", language=lang,
                            clock=clock, seed_source=lambda: seed, render_workers=0)
        bot = create_bot(settings)
        try:
            async with simcord.run(bot, settle_timeout=SETTLE_WITHIN) as env:
                clock.env = env
                report = await _play(env, game, humans, ai_seats, seed, options)
                return report, shown_texts(env, typed)
        finally:
            if bot.store is not None:
                await bot.store.close()


async def _play(env: Any, game: str, humans: int, ai_seats: int, seed: int,
                options: list[str]) -> dict[str, Any]:
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
        await member.click(lobby, custom_id=f"lobby:{_game_id(lobby)}:join")
    for _ in range(ai_seats):
        await members[0].click(lobby, custom_id=f"lobby:{_game_id(lobby)}:ai")
    await members[0].click(lobby, custom_id=f"lobby:{_game_id(lobby)}:start")
    table = Table(env, channel, members, closed, seed)
    host = env.bot.games
    game_id = _game_id(lobby)
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
    return _report(env, table, channel, members, view, final.status == "finished")


def sent_texts(env: Any) -> list[str]:
    """Every text the bot sent or edited in, in order: contents, embeds, component labels and
    placeholders, select options and autocomplete choices."""
    return [text for _, text in shown_texts(env, set())]


def shown_texts(env: Any, typed: set[str]) -> list[tuple[str, str]]:
    """Every text the bot sent or edited in, in order, each with where it was shown:
    ``"play"`` for what answers ``/play`` (its autocomplete choices and its answers, the
    interactions whose tokens are ``typed``), ``"table"`` for everything else (the channel,
    its threads, DMs, ephemeral answers to taps)."""
    out: list[tuple[str, str]] = []
    for entry in env.http_requests:
        if entry.method not in ("POST", "PATCH") or not isinstance(entry.json, dict):
            continue
        parts = entry.path.strip("/").split("/")
        autocomplete = parts[-1] == "callback" and entry.json.get("type") == 8
        where = "play" if autocomplete or any(p in typed for p in parts) else "table"
        texts: list[str] = []
        _texts_of(entry.json, texts)
        out += [(where, text) for text in texts]
    return out


_TEXT_FIELDS = ("content", "title", "description", "name", "value", "label", "placeholder",
                "text")


def _texts_of(node: Any, out: list[str], parent: str = "") -> None:
    """The shown texts of a payload: an embed field's value is shown, a select option's or an
    autocomplete choice's value is not; a choice's name ends with the notation it stands for
    (marked as notation here, as Discord shows no backticks in a choice)."""
    if isinstance(node, dict):
        for key, value in node.items():
            shown = key in _TEXT_FIELDS and (key != "value" or parent == "fields")
            if shown and isinstance(value, str) and value:
                if parent == "choices" and key == "name" and value != node.get("value"):
                    words, _, notation = value.rpartition(CHOICE_SEPARATOR)
                    value = f"{words}{CHOICE_SEPARATOR}`{notation}`" if words else value
                out.append(value)
            elif isinstance(value, dict | list):
                _texts_of(value, out, key)
    elif isinstance(node, list):
        for item in node:
            _texts_of(item, out, parent)


def _game_id(lobby: discord.Message) -> int:
    for row in lobby.components:
        for c in row.children:
            match = re.match(r"lobby:(\d+):", c.custom_id or "")
            if match:
                return int(match[1])
    raise RuntimeError("the lobby has no buttons")


def _report(env: Any, table: Table, channel: Any, members: list[Any], view: dict[str, Any],
            finished: bool) -> dict[str, Any]:
    places = {p.id for p in table.places()}
    dm_of = {m.user.dm_channel.id: m for m in members}
    posts = images = edits = 0
    dms: Counter[str] = Counter()
    mentions: Counter[str] = Counter()
    for entry in env.http_requests:
        path, body = entry.path, entry.json if isinstance(entry.json, dict) else {}
        parts = path.strip("/").split("/")
        if entry.method == "PATCH" and "messages" in parts:
            edits += 1
            continue
        created = entry.method == "POST" and len(parts) == 3 and parts[0] == "channels" \
            and parts[2] == "messages"
        callback = entry.method == "POST" and parts[-1] == "callback" and body.get("type") == 4 \
            and not (body.get("data") or {}).get("flags", 0) & 64
        if (created and int(parts[1]) in places) or callback:
            posts += 1
            files = [a.get("filename") for a in body.get("attachments") or []]
            images += "board.png" in files
        elif created and int(parts[1]) in dm_of:
            dms[dm_of[int(parts[1])].name] += 1
        if created or callback:
            data = body.get("data", body) if callback else body
            allowed = data.get("allowed_mentions") or {}
            for member in members:
                if f"<@{member.id}>" in (data.get("content") or "") and (
                        "users" in allowed.get("parse", []) or str(member.id) in
                        [str(u) for u in allowed.get("users", [])]):
                    mentions[member.name] += 1
    remaining = table.table_messages()
    stale = sum(_enabled(m) for m in remaining) + sum(
        _enabled(m) for member in members for m in table.dm_messages(member))
    rounds = max(int(view.get("round") or 1), 1)
    return {"finished": finished, "rounds": view.get("round"),
            "channel_messages": len(remaining), "channel_posts": posts,
            "channel_images": images, "edits": edits,
            "dms": {m.name: dms[m.name] for m in members},
            "mentions": {m.name: mentions[m.name] for m in members},
            "live_component_messages_max": table.live_max,
            "stale_components_at_end": stale, "human_actions": table.actions,
            "gestures": table.gestures,
            "per_round": {"channel_messages": round(len(remaining) / rounds, 2),
                          "channel_images": round(images / rounds, 2),
                          "dms_most": round(max(dms.values(), default=0) / rounds, 2),
                          "mentions_most": round(max(mentions.values(), default=0) / rounds, 2)}}


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
    parser.add_argument("options", nargs="*", help="rule options as key=value")
    args = parser.parse_args(argv)
    texts: list[str] = []
    report = asyncio.run(run(args.game, args.humans, args.ai, args.seed, args.lang,
                             args.options, texts=texts, locale=args.locale))
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
