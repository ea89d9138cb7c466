"""A move sent twice plays once, and clear answers (through the simulator, the real bot).

A typed line (``/play``, a DM) carries no mark of the position it was meant for: the same line
from the same player again within :data:`REPEAT_SECONDS` is refused as a repeat, also when both
sends are in flight at once. A ``/play`` suggestion carries the game's action count and is
refused as stale once the game has moved on. A database that cannot take a write (locked, full)
is answered as "not saved", the game untouched; a bad Giants ``faces=`` and a typed option
outside the slash command's range are answered in words; a forged custom_id is refused, never
raised; an expired interaction (10062) is a warning.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import random
import re
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.constants import REPEAT_SECONDS
from bot.exts import lobby as lobby_ext
from bot.host.sessions import Host, Refusal, Session, option_refusal
from bot.host.store import Store, unavailable
from bot.table.words import SEAT_CHANGES
from render.i18n import LANGUAGES, catalogue, t
from rules import ai
from rules.registry import GAME_NAMES, game_module
from tests.helpers.bots import dm_messages, home
from tests.helpers.giganten_table import ephemeral_text, open_game, session_in

BOT_DIR = Path(__file__).resolve().parent.parent / "bot"
REPEAT = t("bot.refuse.repeat", "en", line="").split(":")[0]
"""How a repeat refusal begins in English ("Already played")."""
NOT_SAVED = t("bot.error.not_saved", "en")


# --- driving a Giganten game to a position ----------------------------------------------------

def alice_colour(session: Session, user_id: int) -> str:
    seat = session.seat_of(user_id)
    assert seat is not None
    return seat.colour


def legal_twice(session: Session, colour: str, line: str) -> bool:
    """``line`` is legal for ``colour`` now and, once played, again at once (``loco 1``)."""
    if colour not in session.pending() or line not in session.legal_lines(colour):
        return False
    module = session.module
    assert session.game is not None
    after, _ = module.apply(session.game.state, colour, module.parse(line))
    return module.pending(after).seats == (colour,) and line in [
        str(a) for a in module.legal(after, colour)]


async def play_until(env, channel, member, done: Callable[[Session], bool]) -> Session:
    """The member plays the greedy AI's choices through ``/play`` suggestions' values (each
    marked with its position) until ``done`` holds; the AI seats play in between."""
    rng = random.Random(3)
    for _ in range(300):
        session = session_in(env, channel)
        if done(session):
            return session
        colour = alice_colour(session, member.id)
        assert colour in session.pending(), (session.pending(), session.kind())
        assert session.game is not None
        action = str(ai.choose(session.module, session.game.state, colour, "greedy", rng))
        result = await member.slash(home(channel), "play", notation=f"{action} @{session.seq}")
        assert ephemeral_text(result).startswith("Played"), ephemeral_text(result)
    raise AssertionError("the position never came")


async def giganten(env) -> tuple[Any, Any]:
    """A Giganten game of alice's with two AI seats, started."""
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(env.create_user("alice"))
    await open_game(env, channel, alice, ai_seats=2)
    return channel, alice


def seat_user(session: Session, colour: str) -> int:
    seat = session.seat(colour)
    assert seat is not None and seat.user_id is not None
    return seat.user_id


def human_lines(session: Session, colour: str, after: int) -> list[str]:
    return [s.line for s in session.log[after:] if s.actor == colour and s.by == "human"]


class Held:
    """Holds the first send to the host until :meth:`release`: the second send comes in while
    the first is still in flight, so both are under way at once."""

    def __init__(self, env, monkeypatch: pytest.MonkeyPatch) -> None:
        self.gate = asyncio.Event()
        self.held = 0
        host = env.bot.games
        real = host._play

        async def gated(*args: Any, **kwargs: Any) -> Any:
            if not self.held:
                self.held += 1
                await env.external_wait(self.gate.wait(), reason="the first send, in flight")
            return await real(*args, **kwargs)

        monkeypatch.setattr(host, "_play", gated)

    async def release(self, env) -> None:
        self.gate.set()
        await env.settle()


# --- a double send plays once ---------------------------------------------------------------------

async def test_loco_sent_twice_at_once_with_play_is_played_once(simcord_env, monkeypatch):
    env = simcord_env
    channel, alice = await giganten(env)
    session = await play_until(env, channel, alice,
                               lambda s: legal_twice(s, alice_colour(s, alice.id), "loco 1"))
    colour, before = alice_colour(session, alice.id), session.seq
    held = Held(env, monkeypatch)
    first = await alice.slash(home(channel), "play", notation="loco 1")
    assert first.deferred and not first.followups, "the first is still in flight"
    second = await alice.slash(home(channel), "play", notation="loco 1")
    assert ephemeral_text(second) == "Played: advance the locomotive 1 space\nAs notation: `loco 1`"
    await held.release(env)
    told = ephemeral_text(first)
    assert told.startswith(REPEAT) and "`loco 1`" in told, told
    assert human_lines(session_in(env, channel), colour, before) == [f"{colour} loco 1"]
    assert not env.bot.unexpected_errors


async def test_a_bid_typed_twice_at_once_in_a_dm_is_played_once(simcord_env, monkeypatch):
    env = simcord_env
    channel, alice = await giganten(env)
    session = await play_until(env, channel, alice, lambda s: s.kind() == "bid" and alice_colour(
        s, alice.id) in s.pending())
    colour, before = alice_colour(session, alice.id), session.seq
    bid = next(line for line in session.legal_lines(colour) if line.startswith("bid "))
    held = Held(env, monkeypatch)
    seen = {m.id for m in dm_messages(env, alice)}
    await alice.send_dm(bid)
    await alice.send_dm(bid)
    await held.release(env)
    said = [m.content for m in dm_messages(env, alice) if m.id not in seen and m.content]
    assert any(m.startswith(REPEAT) and f"`{bid}`" in m for m in said), said
    assert human_lines(session_in(env, channel), colour, before)[:1] == [f"{colour} {bid}"]
    assert human_lines(session_in(env, channel), colour, before).count(f"{colour} {bid}") == 1
    assert not env.bot.unexpected_errors


async def test_the_same_line_again_after_the_window_is_played(simcord_env, new_bot):
    """One after the other: the second is a repeat; once the window has passed, the player
    who does mean it again may send it again."""
    env = simcord_env
    channel, alice = await giganten(env)
    session = await play_until(env, channel, alice,
                               lambda s: legal_twice(s, alice_colour(s, alice.id), "loco 1"))
    colour, before = alice_colour(session, alice.id), session.seq
    place = home(channel)
    assert ephemeral_text(await alice.slash(place, "play", notation="loco 1")).startswith("Played")
    again = ephemeral_text(await alice.slash(place, "play", notation=f"{colour} LOCO  1"))
    assert again.startswith(REPEAT), again
    assert session_in(env, channel).seq == before + 1
    new_bot.settings.clock.advance(REPEAT_SECONDS)
    later = ephemeral_text(await alice.slash(place, "play", notation="loco 1"))
    assert later.startswith("Played"), later
    assert human_lines(session_in(env, channel), colour, before) == [f"{colour} loco 1"] * 2


async def test_a_suggestion_from_an_earlier_position_is_refused(simcord_env):
    env = simcord_env
    channel, alice = await giganten(env)
    session = await play_until(env, channel, alice,
                               lambda s: legal_twice(s, alice_colour(s, alice.id), "loco 1"))
    place = home(channel)
    choices = await alice.autocomplete(place, "play", "notation", "loco")
    [value] = [c["value"] for c in choices if c["value"].startswith("loco 1 ")]
    assert value == f"loco 1 @{session.seq}"
    assert all(" @" not in c["name"] for c in choices), "the mark is not shown"
    played = await alice.slash(place, "play", notation=value)
    assert ephemeral_text(played) == "Played: advance the locomotive 1 space\nAs notation: `loco 1`"
    before = session_in(env, channel).seq
    stale = ephemeral_text(await alice.slash(place, "play", notation=value))
    assert stale == t("bot.refuse.stale_choice", "en")
    assert session_in(env, channel).seq == before
    assert not env.bot.unexpected_errors


# --- a busy or full database ----------------------------------------------------------------------

def locked() -> BaseException:
    return sqlite3.OperationalError("database is locked")


def full() -> BaseException:
    return sqlite3.OperationalError("database or disk is full")


def no_space() -> BaseException:
    return OSError(errno.ENOSPC, "No space left on device")


def pg_full() -> BaseException:
    return asyncpg.DiskFullError("could not extend file: No space left on device")


def pg_lock() -> BaseException:
    return asyncpg.LockNotAvailableError("canceling statement due to lock timeout")


FAILURES = [locked, full, no_space, pg_full, pg_lock]


@pytest.mark.parametrize("failure", FAILURES)
def test_what_counts_as_a_database_that_cannot_write_now(failure) -> None:
    error = failure()
    assert unavailable(error) in ("busy", "full")
    try:
        raise RuntimeError("the write failed") from error
    except RuntimeError as wrapped:
        assert unavailable(wrapped) == unavailable(error)
    assert unavailable(ValueError("a bug")) is None
    assert unavailable(TimeoutError()) is None, "a timeout elsewhere is no database's"
    assert unavailable(sqlite3.OperationalError("no such table: games")) is None


@pytest.mark.parametrize("raised", ["TimeoutError()", "ConnectionRefusedError(111, 'refused')"])
def test_a_timeout_or_a_lost_connection_inside_the_store_is_a_busy_database(raised: str) -> None:
    """A pool that lent no connection in time, a server that does not answer: raised on the
    store's way, they are the database's."""
    inside: dict[str, Any] = {"__name__": "bot.host.store._postgres_store"}
    exec(f"def write():\n    raise {raised}\n", inside)  # a frame of the store
    with pytest.raises(OSError) as caught:
        inside["write"]()
    assert unavailable(caught.value) == "busy"


def failing(monkeypatch: pytest.MonkeyPatch, store: Store, name: str,
            failure: Callable[[], BaseException]) -> list[int]:
    """``store.<name>`` raises ``failure()`` until the returned list is given an item."""
    healed: list[int] = []
    real = getattr(store, name)

    async def broken(*args: Any, **kwargs: Any) -> Any:
        if not healed:
            raise failure()
        return await real(*args, **kwargs)

    monkeypatch.setattr(store, name, broken)
    return healed


@pytest.mark.parametrize("failure", FAILURES)
async def test_a_move_the_database_could_not_take_is_answered_not_saved(
        simcord_env, monkeypatch, caplog, failure):
    env = simcord_env
    channel, alice = await giganten(env)
    session = session_in(env, channel)
    colour = alice_colour(session, alice.id)
    move = session.legal_lines(colour)[0]
    before = (session.seq, list(session.game.lines), session.game.state)
    healed = failing(monkeypatch, env.bot.games.store, "append_action", failure)
    with caplog.at_level(logging.WARNING):
        result = await alice.slash(home(channel), "play", notation=move)
    assert ephemeral_text(result) == NOT_SAVED
    assert "went wrong" not in ephemeral_text(result)
    now = session_in(env, channel)
    assert (now.seq, now.game.lines, now.game.state) == before, "the game is untouched"
    warned = [r for r in caplog.records if r.levelno == logging.WARNING
              and r.getMessage().startswith("not saved")]
    assert warned and str(failure()) in warned[0].getMessage(), caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert not env.bot.unexpected_errors
    env.errors  # noqa: B018  # seen: the tree's error handler had it
    healed.append(1)
    again = await alice.slash(home(channel), "play", notation=f"{move} @{before[0]}")
    assert ephemeral_text(again).startswith("Played"), "then it plays as usual"


async def test_a_dm_choice_and_a_click_the_database_could_not_take(simcord_env, monkeypatch,
                                                                   caplog):
    env = simcord_env
    channel, alice = await giganten(env)
    session = await play_until(env, channel, alice, lambda s: s.kind() == "bid" and alice_colour(
        s, alice.id) in s.pending())
    before = session.seq
    bid = next(line for line in session.legal_lines(alice_colour(session, alice.id))
               if line.startswith("bid "))
    failing(monkeypatch, env.bot.games.store, "append_action", locked)
    seen = {m.id for m in dm_messages(env, alice)}
    with caplog.at_level(logging.WARNING):
        await alice.send_dm(bid)
        bob = env.guild.add_member(env.create_user("bob"))
        other = await bob.slash(env.guild.create_text_channel("more"), "game new",
                                game="makemake")
        failing(monkeypatch, env.bot.games.store, "add_seat", full)
        joined = await alice.click(other.response, label="Join")
    said = [m.content for m in dm_messages(env, alice) if m.id not in seen]
    assert said == [NOT_SAVED]
    assert session_in(env, channel).seq == before
    assert ephemeral_text(joined) == NOT_SAVED
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert not env.bot.unexpected_errors


# --- lobby options --------------------------------------------------------------------------------

async def test_a_bad_faces_option_is_refused_in_words(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(env.create_user("alice"))
    result = await alice.slash(channel, "game new", game="giants", options="faces=0149")
    text = ephemeral_text(result)
    assert "bot.refuse" not in text
    assert text == t("bot.refuse.option_faces", "en", option="faces", typed="0149",
                     example="011223")
    assert "1 to 12 digits" in text and "`faces=011223`" in text
    for lang in LANGUAGES:
        assert "bot.refuse" not in t("bot.refuse.option_faces", lang, option="faces",
                                     typed="9", example="011223")


@pytest.mark.parametrize(("game", "typed", "low", "high", "example"), [
    ("makemake", "5000", 1, 1000, "100"),
    ("makemake", "0", 1, 1000, "100"),
    ("makemake", "ten", 1, 1000, "100"),
    ("giants", "500", 1, 99, "25"),
])
async def test_typed_options_keep_the_slash_commands_range(simcord_env, game, typed, low, high,
                                                           example):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(env.create_user("alice"))
    result = await alice.slash(channel, "game new", game=game, options=f"round_limit={typed}")
    text = ephemeral_text(result)
    assert text == (f"The option `round_limit` takes a whole number from {low} to {high}, not"
                    f" “{typed}”. Example: `round_limit={example}`."), text
    assert env.bot.games.in_channel(channel.id) is None
    fits = await alice.slash(channel, "game new", game=game, options=f"round_limit={high}")
    assert fits.response is not None and not fits.ephemeral, "the edge of the range is fine"


def test_the_ranges_come_from_the_slash_command() -> None:
    ranges = lobby_ext.slash_ranges(lobby_ext.new)
    assert ranges["round_limit"] == (1, 1000)
    with pytest.raises(Refusal) as refused:
        lobby_ext.check_ranges("makemake", {"round_limit": "1001"}, ranges)
    assert refused.value.key == "bot.refuse.option_range"
    lobby_ext.check_ranges("makemake", {"round_limit": "1000", "turn_minutes": "9"}, ranges)


# --- every refusal key is in every catalogue ----------------------------------------------------

KEY = re.compile(r"""["'](bot\.(?:[a-z_]+\.)?(?:refuse|error)\.[a-z0-9_.]+)["']""")


def used_keys() -> set[str]:
    """Every ``bot.refuse.*`` and ``bot.error.*`` key (and a game's own, such as
    ``bot.giganten.refuse.*``) written out in the bot's code, and the ones it builds: an
    option's refusal for every option of every game, and a seat gone for every way a seat
    changes hands."""
    found = {key for path in BOT_DIR.rglob("*.py")
             for key in KEY.findall(path.read_text(encoding="utf-8"))}
    for name in GAME_NAMES:
        for option in game_module(name).OPTIONS:
            found.add(option_refusal(option, "x").key)
            found.add(option_refusal(option, "x", 1, 2).key)
    found.update(f"bot.refuse.seat_gone_{what}" for what in SEAT_CHANGES)
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_key_the_code_uses_is_in_every_catalogue(lang: str) -> None:
    keys = used_keys()
    assert {"bot.refuse.option_faces", "bot.refuse.repeat", "bot.error.not_saved"} <= keys
    assert sorted(keys - catalogue(lang).keys()) == []


# --- forged components and expired interactions --------------------------------------------------

@pytest.mark.parametrize("forged", [
    "lobby:{big}:join", "t:{big}:0:act:loco 1", "t:1:{big}:act:done", "hopen:{big}",
    "p:{big}:red:0:bid:", "forget:{big}",
    "k:{big}:t:0:s:1", "k:1:e:{big}:b:", "ks:1:red:{big}:"])  # the taps of a guided choice
async def test_a_forged_custom_id_is_refused_whatever_its_numbers(simcord_env, caplog, forged):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(env.create_user("alice"))
    card = (await alice.slash(channel, "game new", game="makemake")).response
    custom_id = forged.format(big=2**64)
    stored = env.backend.get_message(channel.id, card.id)
    stored.components[0]["components"][0]["custom_id"] = custom_id  # a tampered client
    with caplog.at_level(logging.WARNING):
        result = await alice.click(card, custom_id=custom_id)
    assert ephemeral_text(result) == t("bot.refuse.forged", "en")
    assert "forged custom_id" in caplog.text
    assert not env.bot.unexpected_errors
    assert not env.errors


async def test_an_expired_interaction_is_a_warning_not_an_error(simcord_env, caplog):
    env = simcord_env
    channel, alice = await giganten(env)
    env.inject_error("POST", "/interactions/*/callback", status=404, code=10062,
                     message="Unknown interaction")
    with caplog.at_level(logging.WARNING):
        await alice.slash(home(channel), "play", notation="done")
    warned = [r for r in caplog.records if "10062" in r.getMessage()]
    assert [r.levelno for r in warned] == [logging.WARNING] and not warned[0].exc_info
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert not env.bot.unexpected_errors
    env.errors  # noqa: B018  # seen: the tree's error handler had it


# --- the host on both stores: two sends at once --------------------------------------------------

async def test_two_typed_sends_at_once_are_judged_under_the_games_lock(store: Store) -> None:
    host = Host(store)
    session = await host.create(channel_id=9, guild_id=1, game="giganten", options={},
                                creator_id=1, language="en")
    for user in (2, 3):
        await host.join(session.id, user)
    await host.start(session.id, 1)
    rng = random.Random(1)
    for _ in range(300):
        colour = session.pending()[0]
        if legal_twice(session, colour, "loco 1"):
            break
        assert session.game is not None
        action = ai.choose(session.module, session.game.state, colour, "greedy", rng)
        await host.play_game(session.id, seat_user(session, colour), str(action))
    colour = session.pending()[0]
    user, before = seat_user(session, colour), session.seq
    sends: list[Awaitable[Any]] = [host.play_game(session.id, user, "loco 1",
                                                  repeat_within=REPEAT_SECONDS)
                                   for _ in range(2)]
    outcomes = await asyncio.gather(*sends, return_exceptions=True)
    refused = [o for o in outcomes if isinstance(o, Refusal)]
    assert len(refused) == 1 and refused[0].key == "bot.refuse.repeat", outcomes
    assert human_lines(session, colour, before) == [f"{colour} loco 1"]
    assert [r.line for r in await store.log(session.id)][before:].count(f"{colour} loco 1") == 1
