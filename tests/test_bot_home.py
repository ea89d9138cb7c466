"""A game's home heals: a deleted thread, a deleted lobby card or a missing permission never
silences a game, and never costs more than a few Discord calls.

Each test plays through the simulator: a moderator deletes the game's thread (Discord sends
``THREAD_DELETE``) or its lobby card, or takes a permission from the bot in the game's
channel; the table, the pings and the DMs come back by themselves (the next reconcile, the
start-up one after a restart, or the tick: no command from anyone). What a broken home costs
is counted in the calls the simulator sees over an hour of ticks.
"""

from __future__ import annotations

from typing import Any

import discord
import pytest
from simcord.backend.models import Overwrite
from simcord.enums import OverwriteType

from bot.adapter.refusals import Refusals
from bot.constants import REFUSED_FIRST, REFUSED_MOST
from bot.host.clock import ManualClock
from bot.host.store import MessageRow, Store
from render.i18n import LANGUAGES, t
from tests.helpers.bots import (
    custom_ids,
    dm_messages,
    dm_prompt,
    live_table,
    mine,
)
from tests.helpers.hidden import HANDED_IN, bid_in_dm, open_giants, session_in
from tests.helpers.outbox import Game, assert_caught_up, open_game, ready_lobby, sticky
from tests.helpers.store_rows import CHANNEL, FIELDS

MOVED = "The table moved here: its previous thread was deleted."


# --- what a moderator does ---------------------------------------------------------------------

def moderator(env, guild) -> Any:
    return guild.add_member(env.create_user("mod"), roles=[guild.create_role(
        "mods", permissions=discord.Permissions(manage_messages=True, manage_threads=True))])


async def delete_thread(env, thread) -> None:
    """A moderator deletes the game's thread: Discord sends ``THREAD_DELETE``."""
    env.backend.delete_channel(thread.id)
    await env.settle()


async def deny(env, channel, *names: str) -> None:
    """The bot loses these permissions in the channel (and its threads): Discord sends
    ``CHANNEL_UPDATE``."""
    denied = discord.Permissions(**dict.fromkeys(names, True))
    env.backend.set_overwrite(channel.id, Overwrite(target_id=env.bot.user.id,
                                                    type=OverwriteType.MEMBER, allow=0,
                                                    deny=denied.value))
    await env.settle()


async def grant_again(env, channel) -> None:
    env.backend.delete_overwrite(channel.id, env.bot.user.id)
    await env.settle()


async def an_hour_of_ticks(env, settings) -> None:
    """An hour goes by, a reconcile tick at a time, the bot's clock with it."""
    for _ in range(int(3600 // settings.reconcile_tick)):
        settings.clock.advance(settings.reconcile_tick)
        await env.advance_time(settings.reconcile_tick)


def calls_to(env, channel_id: int, since: int = 0) -> list[str]:
    """The bot's calls to a channel (its messages included), from ``since`` on."""
    prefix = f"/channels/{channel_id}"
    return [f"{r.method} {r.path}" for r in env.http_requests[since:]
            if r.path == prefix or r.path.startswith(prefix + "/")]


def in_place(place) -> list[discord.Message]:
    return [m for m in place.history() if not m.flags.ephemeral]


def tables_in(env, place) -> list[discord.Message]:
    return [m for m in mine(env, in_place(place))
            if m.embeds and any(a.filename == "board.png" for a in m.attachments)]


# --- the thread ---------------------------------------------------------------------------------

async def test_a_thread_deleted_during_a_sealed_bid_comes_back_by_itself(simcord_env,
                                                                       settings):
    """Giants, both humans' bid prompts out in their DMs: a moderator deletes the thread. A new
    thread opens under the lobby card at once, with a note and the table; the prompts stay
    live, a bid handed in shows on the new table, the ping for the late bidder comes there,
    and nothing is posted into the old thread's messages again."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("giants")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    session = await open_giants(env, channel, alice, bob, ai_seats=1)
    assert session.kind() == "bid"
    [old] = channel.threads
    prompts = {dm_prompt(env, alice).id, dm_prompt(env, bob).id}
    old_table = live_table(env, channel)
    await delete_thread(env, old)
    [new] = channel.threads
    assert new.name == old.name
    shown = in_place(new)
    assert shown and shown[0].content == MOVED, [m.content for m in shown]
    [table] = tables_in(env, new)
    assert table.id != old_table.id and has_lock_button(table)
    assert {dm_prompt(env, alice).id, dm_prompt(env, bob).id} == prompts, "no prompt again"
    stored = await env.bot.games.store.messages(session.id)
    assert stored["live"].message_id == table.id
    await bid_in_dm(env, alice, 1)
    [table] = tables_in(env, new)
    assert "▶ ● **Red** has sealed a bid." in "\n".join(f.value for f in table.embeds[0].fields)
    settings.clock.advance(settings.ping_after)
    await env.advance_time(settings.reconcile_tick)
    assert [m for m in mine(env, in_place(new)) if bob.mention in m.content], "bob is pinged"
    await bid_in_dm(env, bob, 0)
    assert session_in(env, channel).kind() != "bid"
    assert [m.content for m in in_place(new)].count(MOVED) == 1
    game = Game(env, channel, alice, bob, session_in(env, channel))
    await assert_caught_up(game)
    assert not env.bot.unexpected_errors


def has_lock_button(table: discord.Message) -> bool:
    """The new table carries the 🔒 button (players with closed DMs still bid)."""
    return any(i.endswith(":open") for i in custom_ids(table))


async def test_a_thread_deleted_while_the_bot_is_down_comes_back_at_start(simcord_env, new_bot,
                                                                        monkeypatch):
    """The thread goes while the bot is not showing anything (the event is lost with the
    process): the next start finds it gone, opens a new one and shows the table and the note;
    the bids go on by DM."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("giants")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    await open_giants(env, channel, alice, bob, ai_seats=1)
    await bid_in_dm(env, alice, 1)
    monkeypatch.setattr(env.bot.outbox, "kick", lambda game_id: None)
    [old] = channel.threads
    await delete_thread(env, old)
    assert channel.threads == [], "nothing shown yet"
    await env.restart_bot(new_bot())
    await env.settle()
    [new] = channel.threads
    shown = in_place(new)
    assert shown and shown[0].content == MOVED
    assert len(tables_in(env, new)) == 1
    await bid_in_dm(env, bob, 0)
    assert session_in(env, channel).kind() != "bid"
    assert [m.content for m in in_place(new)].count(MOVED) == 1
    assert len(tables_in(env, new)) >= 1
    game = Game(env, channel, alice, bob, session_in(env, channel))
    await assert_caught_up(game)
    assert not env.bot.unexpected_errors


async def test_a_thread_found_gone_by_a_post_moves_on_the_next_reconcile(simcord_env, settings):
    """Discord answers 404 Unknown Channel to a post into the thread (its delete event was
    missed): the table moves at the next reconcile, once."""
    env = simcord_env
    game = await open_game(env, "makemake")
    thread = game.place()
    fault = sticky(env, "POST", f"/channels/{thread.id}/messages", status=404, code=10003)
    env.backend.faults[-1]["message"] = "Unknown Channel"
    assert "Played" in await game.play()
    env.backend.faults.remove(fault)
    await env.advance_time(settings.reconcile_tick)
    [new] = game.channel.threads  # Discord gives a thread the id of its first message
    after = [m.content for m in in_place(new)]
    assert after.count(MOVED) == 1
    assert game.shows_turn_of("Blue") and game.table().id > in_place(new)[after.index(MOVED)].id
    await assert_caught_up(game)
    assert not env.bot.unexpected_errors


async def test_without_the_lobby_card_the_table_moves_into_the_channel(simcord_env):
    env = simcord_env
    game = await open_game(env, "makemake")
    mod = moderator(env, game.channel.guild)
    card = next(m for m in game.channel.history() if m.id == game.session.row.lobby_message_id)
    await mod.delete(card)
    await delete_thread(env, game.place())
    assert game.channel.threads == []
    shown = mine(env, in_place(game.channel))
    assert [m.content for m in shown].count(MOVED) == 1
    assert len(tables_in(env, game.channel)) == 1 and game.shows_turn_of("Red")
    await assert_caught_up(game)
    assert "Played" in await game.play()
    assert game.shows_turn_of("Blue")
    assert not env.bot.unexpected_errors


async def test_a_card_that_takes_no_second_thread_is_replaced(simcord_env):
    """Discord may refuse a second thread under the same card (400: a thread was made from
    it already): the table moves into a thread under a new card, and the old card goes."""
    env = simcord_env
    game = await open_game(env, "makemake")
    old_card = game.session.row.lobby_message_id
    env.inject_error("POST", f"/channels/{game.channel.id}/messages/{old_card}/threads",
                     status=400, code=160004, times=1,
                     message="A thread has already been created for this message")
    await delete_thread(env, game.place())
    [card] = [m for m in mine(env, in_place(game.channel)) if m.embeds]
    assert card.id != old_card and card.embeds[0].title == "Make Make: started"
    [thread] = game.channel.threads
    assert thread.id == card.id and game.now().row.home_id == thread.id
    assert f"<#{thread.id}>" in [f.value for f in card.embeds[0].fields]
    assert in_place(thread)[0].content == MOVED
    assert game.shows_turn_of("Red")
    await assert_caught_up(game)
    assert "Played" in await game.play()
    assert not env.bot.unexpected_errors


def test_the_note_speaks_every_language() -> None:
    notes = {lang: t("bot.home.moved", lang) for lang in LANGUAGES}
    assert notes["en"] == MOVED
    assert len(set(notes.values())) == len(LANGUAGES)


# --- the DMs never wait for the table -------------------------------------------------------------

@pytest.mark.parametrize("status", [403, 500])
async def test_the_dms_do_not_wait_for_the_table(simcord_env, status):
    """Every post and edit in the thread fails: a bid handed in still closes its prompt and
    updates the bidder's screen in the same pass, and the other player's prompt stays."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("giants")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    session = await open_giants(env, channel, alice, bob, ai_seats=1)
    [thread] = channel.threads
    code = 50013 if status == 403 else 0
    for method, path in (("POST", f"/channels/{thread.id}/messages"),
                         ("PATCH", f"/channels/{thread.id}/messages/*")):
        sticky(env, method, path, status=status, code=code)
    screen = next(m for m in dm_messages(env, alice) if m.content.startswith("Your screen in"))
    prompt = dm_prompt(env, alice)
    await alice.user.send_dm("bid 1m")
    assert session.view(None)["bids"]["red"] == "submitted"
    now = next(m for m in dm_messages(env, alice) if m.id == prompt.id)
    assert HANDED_IN in now.content and not now.components
    after = next(m for m in dm_messages(env, alice) if m.id == screen.id)
    assert after.content != screen.content or after.attachments != screen.attachments
    assert dm_prompt(env, bob) is not None


async def test_a_refusing_channel_holds_up_no_dm(simcord_env, settings):
    """The bot may no longer see the game's channel (403 Missing Access): alice's bid costs a
    refused call there; bob's bid, within the wait, costs none, and both bids close their
    prompts and show on the screens all the same; the permission given back shows the table
    at once."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("giants")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    session = await open_giants(env, channel, alice, bob, ai_seats=1)
    [thread] = channel.threads
    await deny(env, channel, "view_channel")
    sent = len(env.http_requests)
    await alice.user.send_dm("bid 1m")
    assert len(calls_to(env, thread.id, sent)) == 1, "tried once"
    sent = len(env.http_requests)
    screen = next(m for m in dm_messages(env, bob) if m.content.startswith("Your screen in"))
    prompt = dm_prompt(env, bob)
    await bob.user.send_dm("bid 1m")
    assert session.kind() != "bid"
    assert calls_to(env, thread.id, sent) == [], "the channel waits"
    now = next(m for m in dm_messages(env, bob) if m.id == prompt.id)
    assert HANDED_IN in now.content and not now.components
    after = next(m for m in dm_messages(env, bob) if m.id == screen.id)
    assert after.content != screen.content or after.attachments != screen.attachments
    await grant_again(env, channel)
    table = live_table(env, channel)
    assert "sealed bid" not in (table.embeds[0].title or "").lower()
    game = Game(env, channel, alice, bob, session)
    await assert_caught_up(game)
    assert not env.bot.unexpected_errors


# --- the lobby card -------------------------------------------------------------------------------

async def test_a_lobby_card_deleted_before_the_start_comes_back(simcord_env, settings):
    env = simcord_env
    channel, _, _, lobby = await ready_lobby(env, "makemake", "lobby")
    mod = moderator(env, channel.guild)
    await mod.delete(lobby)
    await env.settle()
    cards = [m for m in mine(env, in_place(channel)) if m.embeds]
    assert len(cards) == 1 and cards[0].id != lobby.id
    [card] = cards
    assert card.embeds[0].title == "Make Make: new game" and "Join" in [
        c.label for row in card.components for c in row.children]
    sent = len(env.http_requests)
    await an_hour_of_ticks(env, settings)
    assert [c for c in calls_to(env, channel.id, sent) if str(lobby.id) in c] == []
    cleo = channel.guild.add_member(env.create_user("cleo"))
    joined = await cleo.click(card, label="Join")
    assert not joined.followups
    assert len(session_in(env, channel).seats) == 4
    assert not env.bot.unexpected_errors


@pytest.mark.parametrize("seen", [True, False])
async def test_a_deleted_card_of_a_running_game_costs_at_most_one_call(
        simcord_env, settings, new_bot, seen):
    """The card of a running game is deleted, seen by the bot or while it does not watch (the
    event is lost, as while it is down): it is forgotten and never edited again, over an hour
    of ticks, a seat that changes hands (which the card would show) and moves."""
    env = simcord_env
    game = await open_game(env, "makemake")
    card_id = game.session.row.lobby_message_id
    card = next(m for m in game.channel.history() if m.id == card_id)
    mod = moderator(env, game.channel.guild)
    if not seen:
        await env.bot.remove_cog("Watch")
    await mod.delete(card)
    if not seen:
        await env.restart_bot(new_bot())
        await env.settle()
    sent = len(env.http_requests)
    await game.bob.slash(game.place(), "game leave")  # blue's seat goes to the AI
    assert "Played" in await game.play()
    await an_hour_of_ticks(env, settings)
    assert "Played" in await game.play()
    edits = [c for c in calls_to(env, game.channel.id, sent) if c.endswith(f"/{card_id}")]
    assert len(edits) == (0 if seen else 1), edits
    assert game.now().row.lobby_message_id is None
    assert game.shows_turn_of("Red")
    await assert_caught_up(game)
    assert not env.bot.unexpected_errors


# --- a missing permission -------------------------------------------------------------------------

async def test_a_missing_permission_costs_a_few_calls_an_hour(simcord_env, settings):
    """The bot loses Send Messages (in the channel and its threads) in one game's channel.
    That game's table is tried again only after a growing interval, not on every tick; a game
    in another channel is shown at once all along; the permission given back shows the table
    at once."""
    env = simcord_env
    game = await open_game(env, "makemake")
    other = await open_game(env, "makemake")
    thread = game.place()
    await deny(env, game.channel, "send_messages", "send_messages_in_threads")
    sent = len(env.http_requests)
    assert "Played" in await game.play()  # the next stage needs a new message: refused
    await an_hour_of_ticks(env, settings)
    calls = calls_to(env, thread.id, sent)
    posts = [c for c in calls if c.startswith("POST ")]
    assert len(posts) == 6, calls  # at the move, then after 1, 3, 7, 15 and 31 minutes
    assert len(calls) <= 7, calls  # and the edit that closed the previous stage
    assert "Played" in await other.play()
    assert other.shows_turn_of("Blue"), "another channel's game is not held up"
    await grant_again(env, game.channel)
    assert game.shows_turn_of("Blue"), "shown as soon as the permission is back"
    await assert_caught_up(game)
    assert not env.bot.unexpected_errors


def test_a_refusing_channel_waits_a_minute_doubling_to_an_hour() -> None:
    clock = ManualClock()
    refusals = Refusals(clock)
    waits = [refusals.refused(7, guild_id=1) for _ in range(8)]
    assert waits == [60, 120, 240, 480, 960, 1920, 3600, 3600]
    assert (REFUSED_FIRST, REFUSED_MOST) == (60, 3600)
    assert refusals.waiting(7) and not refusals.waiting(8)
    clock.advance(3599)
    assert refusals.waiting(7)
    clock.advance(1)
    assert not refusals.waiting(7), "tried again once its wait is over"
    assert refusals.refused(7, guild_id=1) == 3600, "and waits as long again when refused"
    refusals.allowed(7)
    assert not refusals.waiting(7) and refusals.refused(7, guild_id=1) == 60, "success resets"
    refusals.refused(8, guild_id=1)
    refusals.refused(9, guild_id=2)
    assert refusals.changed(1, channel_id=8) == [8]
    assert refusals.changed(1) == [7] and refusals.waiting(9), "a role: only its server"


# --- the store -----------------------------------------------------------------------------------

async def test_both_stores_forget_a_card_and_keep_an_owed_note(store: Store) -> None:
    """What the outbox keeps of a broken home, the same on SQLite and PostgreSQL: a card set
    to none is forgotten; a note owed (the slot ``moved`` without a message yet) is kept and
    never found as a deleted message's slot."""
    game = await store.create_game(channel_id=CHANNEL, **FIELDS)
    await store.set_lobby_message(game.id, 777)
    await store.set_thread(game.id, 777)
    await store.set_lobby_message(game.id, None)
    row = await store.game(game.id)
    assert row is not None and (row.lobby_message_id, row.thread_id) == (None, 777)
    await store.set_message(game.id, MessageRow("moved", 777, 0))
    assert (await store.messages(game.id))["moved"] == MessageRow("moved", 777, 0)
    assert await store.slot_of(888) is None
