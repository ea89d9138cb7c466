"""Edits Discord refuses never stall a game, never loop, and the table comes back right.

A long asynchronous game meets refusals that no retry cures: edits of a message older than an
hour are capped (30046), threads archive themselves after a while (50083) and a moderator may
lock one, interaction tokens expire after 15 minutes (50027), and an attachment may be too
large (40005). Each test injects one of them into a game played through the simulator and
checks that the game goes on, that its table shows the latest position with its components
(one live message), that nothing is lost, that no error is logged, and that another reconcile
has nothing left to do. The clock is the bot's manual one: nothing sleeps.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
import pytest

from bot.adapter._outbox_base import CAPPED_WAIT, STRIP_TRIES
from render.i18n import t
from tests.helpers.bots import (
    custom_ids,
    dm_messages,
    dm_prompt,
    live_components,
    live_table,
    mine,
)
from tests.helpers.hidden import HANDED_IN, bid_in_dm, fill_bid, in_dm, open_giants, session_in
from tests.helpers.outbox import Game, assert_caught_up, heal, open_game

CAPPED = "Maximum number of edits to messages older than 1 hour reached. Try again later"
LOCKED = t("bot.refused.thread_locked", "en")
TOO_LARGE = t("bot.refused.picture_too_large", "en")


# --- what Discord refuses ---------------------------------------------------------------------

def refuse(env, method: str, path: str, status: int, code: int, message: str,
           times: int | None = None) -> dict[str, Any]:
    """Discord refuses matching calls (for good: ``times=None``) until :func:`heal`."""
    env.inject_error(method, path, status=status, code=code, message=message, times=times)
    return env.backend.faults[-1]


def cap_edits(env, message: discord.Message) -> dict[str, Any]:
    """Discord refuses every edit of ``message`` (an hour old, edited too often): 30046."""
    return refuse(env, "PATCH", f"/channels/{message.channel.id}/messages/{message.id}", 400,
                  30046, CAPPED)


def archive(env, thread, *, locked: bool = False) -> list[dict[str, Any]]:
    """The thread archives itself (``locked``: a moderator locks it too): posts and edits in
    it are refused with 50083 until it is unarchived (a PATCH of the thread with
    ``archived=false``, which heals them)."""
    env.backend.edit_channel(thread.id, {}, thread_metadata={"archived": True,
                                                             "locked": locked})
    faults = [refuse(env, method, path, 400, 50083, "Thread is archived")
              for method, path in (("POST", f"/channels/{thread.id}/messages"),
                                   ("PATCH", f"/channels/{thread.id}/messages/*"))]
    edit_channel = env.backend.edit_channel

    def unarchived(channel_id: int, changes: Any, **more: Any) -> Any:
        if channel_id == thread.id and (more.get("thread_metadata") or {}).get(
                "archived") is False:
            for fault in faults:
                heal(env, fault)
        return edit_channel(channel_id, changes, **more)

    env.backend.edit_channel = unarchived
    return faults


def requests(env, method: str, path: str, since: int = 0) -> list:
    return [r for r in env.http_requests[since:] if r.method == method and r.path == path]


def tables_in(env, place) -> list[discord.Message]:
    """The table messages in a channel or thread (with or without their picture), oldest
    first."""
    return [m for m in mine(env, place.history()) if m.embeds and not m.flags.ephemeral
            and m.embeds[0].title and (m.attachments or TOO_LARGE in (m.content or ""))]


def live_in(env, place) -> list[discord.Message]:
    return [m for m in tables_in(env, place) if live_components(m)]


def no_errors(env, caplog: pytest.LogCaptureFixture) -> None:
    """Nothing logged as an error (a refusal handled is an info line), nothing unexpected."""
    logged = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]
    assert logged == []
    assert not env.bot.unexpected_errors


async def later(env, settings, seconds: float) -> None:
    """Time goes by, the outbox's tick with it."""
    settings.clock.advance(seconds)
    await env.advance_time(settings.reconcile_tick)


async def play_on(game: Game, moves: int) -> None:
    """The humans play ``moves`` more moves (the AI seats answer), each shown at once."""
    for _ in range(moves):
        session = game.now()
        if session.status != "running":
            return
        before = session.seq
        assert "Played" in await game.play()
        assert game.now().seq > before


# --- 30046: edits of an old message capped ----------------------------------------------------

async def test_a_capped_table_is_followed_by_a_fresh_one_and_stripped_later(
        simcord_env, settings, caplog):
    """Make Make: Discord refuses more edits of the live message when its turn ends (30046).
    The next turn's table is posted all the same, with its buttons; the old one keeps its
    buttons until Discord allows an edit again, then loses them, and the game goes on."""
    env = simcord_env
    caplog.set_level(logging.INFO)
    game = await open_game(env, "makemake")
    thread = game.place()
    old = live_table(env, game.channel)
    fault = cap_edits(env, old)
    await play_on(game, 1)
    assert list(game.now().pending()) == ["blue"]
    fresh = live_in(env, thread)
    assert [m.id for m in fresh] == [old.id, tables_in(env, thread)[-1].id], \
        "the old table keeps its buttons for now; a fresh one carries the turn's"
    assert game.shows_turn_of("Blue")
    stored = await env.bot.games.store.messages(game.id)
    assert stored["live"].message_id == fresh[-1].id
    edits = len(requests(env, "PATCH", f"/channels/{thread.id}/messages/{old.id}"))
    await env.advance_time(settings.reconcile_tick)
    assert len(requests(env, "PATCH", f"/channels/{thread.id}/messages/{old.id}")) == edits, \
        "no edit of the capped message before its wait is over"
    heal(env, fault)
    await later(env, settings, CAPPED_WAIT.total_seconds())
    assert [m.id for m in live_in(env, thread)] == [fresh[-1].id], "the old one is stripped"
    await play_on(game, 3)
    assert live_table(env, game.channel).id == tables_in(env, thread)[-1].id
    await assert_caught_up(game)
    no_errors(env, caplog)


async def test_a_strip_refused_for_good_is_given_up(simcord_env, settings, caplog):
    """The old table's edits stay capped: its buttons are tried a few times, then left (a
    click on them is refused as stale); the table goes on."""
    env = simcord_env
    caplog.set_level(logging.INFO)
    game = await open_game(env, "makemake")
    thread = game.place()
    old = live_table(env, game.channel)
    cap_edits(env, old)
    await play_on(game, 1)
    route = f"/channels/{thread.id}/messages/{old.id}"
    for _ in range(STRIP_TRIES + 3):
        await later(env, settings, CAPPED_WAIT.total_seconds() * 2 ** STRIP_TRIES)
    tries = len(requests(env, "PATCH", route))
    assert 1 < tries <= STRIP_TRIES + 1, tries
    await later(env, settings, CAPPED_WAIT.total_seconds() * 2 ** STRIP_TRIES)
    assert len(requests(env, "PATCH", route)) == tries, "given up"
    seq = game.now().seq
    [select] = [c for row in old.components for c in row.children]
    await game.alice.select(old, [select.options[0].value], custom_id=select.custom_id)
    assert game.now().seq == seq, "a button left on the old table plays nothing"
    await play_on(game, 2)
    assert game.table().id == live_in(env, thread)[-1].id
    await assert_caught_up(game)
    no_errors(env, caplog)


async def test_a_capped_table_within_a_stage_gets_a_fresh_one(simcord_env, settings, caplog):
    """Giants, the sealed bids: the table is edited when a bid is handed in, and Discord caps
    it (30046). A fresh table of the same stage says who has bid, with the 🔒 button; the
    bids go on, and the round after them is shown as usual."""
    env = simcord_env
    caplog.set_level(logging.INFO)
    guild = env.create_guild()
    channel = guild.create_text_channel("giants")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    seq = (await open_giants(env, channel, alice, bob, ai_seats=1)).seq
    [thread] = channel.threads
    old = live_table(env, channel)
    fault = cap_edits(env, old)
    await bid_in_dm(env, alice, 1)
    table = tables_in(env, thread)[-1]
    assert table.id != old.id and table.embeds[0].title == old.embeds[0].title
    assert "▶ ● **Red** has sealed a bid." in "\n".join(f.value for f in table.embeds[0].fields)
    assert any(i.endswith(":open") for i in custom_ids(table))
    heal(env, fault)
    await later(env, settings, CAPPED_WAIT.total_seconds())
    assert live_table(env, channel).id == table.id
    await bid_in_dm(env, bob, 0)
    assert session_in(env, channel).kind() != "bid"
    assert live_table(env, channel).id == tables_in(env, thread)[-1].id
    game = Game(env, channel, alice, bob, session_in(env, channel))
    assert game.now().seq > seq
    await assert_caught_up(game)
    no_errors(env, caplog)


async def test_a_capped_dm_screen_is_sent_again(simcord_env, settings, caplog):
    """Giganten: a player's DM screen can no longer be edited (30046): when their hand
    changes, a fresh screen shows it."""
    env = simcord_env
    caplog.set_level(logging.INFO)
    game = await open_game(env, "giganten", ai_seats=2)
    screen = dm_messages(env, game.bob)[0]
    assert "no licence cards" in screen.content
    cap_edits(env, screen)
    for member in (game.alice, game.bob):
        live = game.table()
        take = next(c for c in custom_ids(live) if ":act:take " in c)
        await member.click(live, custom_id=take)
    screens = [m for m in dm_messages(env, game.bob) if "licence cards" in m.content
               or "cards, total" in m.content]
    assert len(screens) == 2 and "cards, total" in screens[-1].content, \
        [m.content[:60] for m in screens]
    assert "no licence cards" in screens[0].content, "the capped one stays as it was"
    await play_on(game, 2)
    await assert_caught_up(game)
    no_errors(env, caplog)


# --- 50083: an archived thread, a locked one --------------------------------------------------

async def test_an_archived_thread_is_unarchived_and_the_game_goes_on(simcord_env, caplog):
    """Make Make: the game's thread archived itself while the players were away. The next
    move's table is refused (50083): the bot unarchives the thread and shows the move there;
    nothing goes to the channel."""
    env = simcord_env
    caplog.set_level(logging.INFO)
    game = await open_game(env, "makemake")
    thread = game.place()
    in_channel = len(mine(env, game.channel.history()))
    archive(env, thread)
    await play_on(game, 1)
    assert requests(env, "PATCH", f"/channels/{thread.id}"), "unarchived"
    assert not env.backend.channels[thread.id].thread_metadata.archived
    assert game.shows_turn_of("Blue")
    assert [m.id for m in live_in(env, thread)] == [tables_in(env, thread)[-1].id]
    assert len(mine(env, game.channel.history())) == in_channel
    archive(env, thread)
    await play_on(game, 3)
    assert [m.id for m in live_in(env, thread)] == [tables_in(env, thread)[-1].id]
    await assert_caught_up(game)
    no_errors(env, caplog)


@pytest.mark.parametrize("kind", ["makemake", "giganten"])
async def test_a_locked_thread_sends_the_table_to_the_channel(simcord_env, caplog, kind):
    """Make Make: a moderator locks and archives the game's thread; Giganten: the thread
    archived itself, and the bot may not unarchive it (403, 50013). The table goes on in the
    channel, under a note saying why, with its buttons; the game goes on there."""
    env = simcord_env
    caplog.set_level(logging.INFO)
    game = await open_game(env, kind, ai_seats=1 if kind == "makemake" else 2)
    thread = game.place()
    archive(env, thread, locked=kind == "makemake")
    refuse(env, "PATCH", f"/channels/{thread.id}", 403, 50013, "Missing Permissions")
    since = len(env.http_requests)
    member = game.pending_member()
    if kind == "makemake":
        assert "Played" in await game.play(member)
    else:
        live = live_table(env, game.channel)
        take = next(c for c in custom_ids(live) if ":act:take " in c)
        await member.click(live, custom_id=take)
    unarchive = requests(env, "PATCH", f"/channels/{thread.id}", since)
    assert len(unarchive) == (kind == "giganten"), "a locked thread is left locked"
    shown = mine(env, game.channel.history())
    notes = [m for m in shown if m.content == LOCKED]
    assert len(notes) == 1
    [table] = live_in(env, game.channel)
    assert table.id > notes[0].id
    stored = await env.bot.games.store.messages(game.id)
    assert stored["live"].message_id == table.id
    assert game.now().row.home_id == game.channel.id
    for _ in range(3):
        session = game.now()
        live = live_in(env, game.channel)[-1]
        seat = session.seat(session.pending()[0])
        assert seat is not None and seat.user_id in game.members
        acts = [c for c in custom_ids(live) if ":act:" in c]
        before = session.seq
        if acts:
            await game.members[seat.user_id].click(live, custom_id=acts[0])
        else:
            await game.members[seat.user_id].slash(game.channel, "play",
                                                   notation=game.first_legal())
        assert game.now().seq > before
        assert len(live_in(env, game.channel)) == 1
    assert [m.content for m in mine(env, game.channel.history())].count(LOCKED) == 1
    await assert_caught_up(game)
    no_errors(env, caplog)


# --- 50027: an interaction token expired ------------------------------------------------------

async def test_an_expired_token_confirms_by_a_plain_edit(simcord_env, caplog, monkeypatch):
    """Giants: a bid handed in with the DM prompt's Submit, but the interaction's token no
    longer works (50027): the prompt says the bid is handed in all the same, by an edit of
    the message itself (the outbox is held back here, so the answer alone shows it)."""
    env = simcord_env
    caplog.set_level(logging.INFO)
    guild = env.create_guild()
    channel = guild.create_text_channel("giants")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    await open_giants(env, channel, alice, bob, ai_seats=1)
    prompt = dm_prompt(env, alice)
    assert prompt is not None
    refuse(env, "PATCH", "/webhooks/*/*/messages/@original", 401, 50027,
           "Invalid Webhook Token")
    outbox = env.bot.outbox
    kick = outbox.kick
    monkeypatch.setattr(outbox, "kick", lambda game_id: None)
    await fill_bid(alice.user, prompt, 1)
    assert requests(env, "PATCH", f"/channels/{prompt.channel.id}/messages/{prompt.id}")
    handed = in_dm(env, alice, prompt.id)
    assert HANDED_IN in handed.content and not handed.components, handed.content
    monkeypatch.setattr(outbox, "kick", kick)
    await outbox.reconcile(session_in(env, channel).id)
    assert "▶ ● **Red** has sealed a bid." in "\n".join(
        f.value for f in live_table(env, channel).embeds[0].fields)
    await bid_in_dm(env, bob, 0)
    assert session_in(env, channel).kind() != "bid"
    await assert_caught_up(Game(env, channel, alice, bob, session_in(env, channel)))
    no_errors(env, caplog)


# --- 40005: an attachment too large -----------------------------------------------------------

@pytest.mark.parametrize("refusals", [1, 2])
async def test_a_picture_too_large_is_sent_smaller_or_left_out_once(simcord_env, settings,
                                                                     caplog, refusals):
    """Make Make: Discord refuses the next table's picture as too large (40005). The table is
    posted with the picture at half its size; refused again, without it, saying so. Either
    way with the turn's buttons, not tried again in a loop, and the next move's table has its
    picture at full size again."""
    env = simcord_env
    caplog.set_level(logging.INFO)
    game = await open_game(env, "makemake")
    thread = game.place()
    full = tables_in(env, thread)[-1].attachments[0]
    refuse(env, "POST", f"/channels/{thread.id}/messages", 413, 40005,
           "Request entity too large", times=refusals)
    posts = len(requests(env, "POST", f"/channels/{thread.id}/messages"))
    await play_on(game, 1)
    table = tables_in(env, thread)[-1]
    if refusals == 1:
        [picture] = table.attachments
        assert picture.filename == "board.png" and TOO_LARGE not in (table.content or "")
        assert 0 < picture.size < full.size / 2, (picture.size, full.size)
    else:
        assert TOO_LARGE in table.content and not table.attachments
    assert [m.id for m in live_in(env, thread)] == [table.id], "the new turn's buttons"
    assert table.embeds[0].description.startswith("Now: ■ **Blue** (bob)")
    sent = len(requests(env, "POST", f"/channels/{thread.id}/messages"))
    assert sent - posts == refusals + 1, "the refused posts, and the one that went through"
    await env.advance_time(settings.reconcile_tick * 3)
    assert len(requests(env, "POST", f"/channels/{thread.id}/messages")) == sent
    await assert_caught_up(game)
    await play_on(game, 1)
    table = tables_in(env, thread)[-1]
    assert [a.filename for a in table.attachments] == ["board.png"]
    assert table.attachments[0].size > full.size / 2, "at full size"
    assert TOO_LARGE not in (table.content or "")
    await assert_caught_up(game)
    no_errors(env, caplog)


# --- a whole game ----------------------------------------------------------------------------

async def test_a_whole_game_ends_in_an_archived_thread_under_a_capped_card(
        simcord_env, settings, caplog):
    """Make Make, one round: the thread archives itself before the last move and Discord caps
    the lobby card's edits (30046). The end is shown in the thread (unarchived), the record
    is posted once, and the card gets the result once Discord allows its edit again; only
    then does the game leave memory."""
    env = simcord_env
    caplog.set_level(logging.INFO)
    game = await open_game(env, "makemake", options="round_limit=1")
    thread = game.place()
    card_id = game.session.row.lobby_message_id
    card = next(m for m in game.channel.history() if m.id == card_id)
    fault = cap_edits(env, card)
    await play_on(game, 1)
    archive(env, thread)
    assert "Played" in await game.play()
    assert game.now().status == "finished"
    assert requests(env, "PATCH", f"/channels/{thread.id}"), "unarchived"
    records = [m for m in mine(env, thread.history())
               if any(a.filename.endswith(".txt") for a in m.attachments)]
    assert len(records) == 1
    assert not live_in(env, thread), "the last table has no buttons"
    shown = next(m for m in game.channel.history() if m.id == card_id)
    assert shown.embeds[0].to_dict() == card.embeds[0].to_dict(), "the card waits"
    assert game.id in env.bot.games.sessions
    heal(env, fault)
    await later(env, settings, CAPPED_WAIT.total_seconds())
    shown = next(m for m in game.channel.history() if m.id == card_id)
    assert shown.embeds[0].to_dict() != card.embeds[0].to_dict(), "the card shows the end"
    await env.advance_time(settings.reconcile_tick)
    assert game.id not in env.bot.games.sessions
    assert len([m for m in mine(env, thread.history())
                if any(a.filename.endswith(".txt") for a in m.attachments)]) == 1
    no_errors(env, caplog)


@pytest.mark.parametrize("lang", ["es", "zh-TW"])
async def test_the_note_of_a_locked_thread_speaks_the_games_language(simcord_env, caplog,
                                                                      lang):
    env = simcord_env
    caplog.set_level(logging.INFO)
    guild = env.create_guild()
    channel = guild.create_text_channel("makemake")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    opened = await alice.slash(channel, "game new", game="makemake", language=lang)
    card = opened.response
    game_id = env.bot.games.in_channel(channel.id).id
    await bob.click(card, custom_id=f"lobby:{game_id}:join")
    await alice.click(card, custom_id=f"lobby:{game_id}:ai")
    await alice.click(card, custom_id=f"lobby:{game_id}:start")
    game = Game(env, channel, alice, bob, env.bot.games.in_channel(channel.id))
    assert game.now().status == "running" and game.now().row.language == lang
    [thread] = channel.threads
    archive(env, thread, locked=True)
    refuse(env, "PATCH", f"/channels/{thread.id}", 403, 50013, "Missing Permissions")
    before = game.now().seq
    await alice.slash(thread, "play", notation=game.first_legal())
    assert game.now().seq > before
    note = t("bot.refused.thread_locked", lang)
    assert note != LOCKED
    assert [m.content for m in mine(env, channel.history())].count(note) == 1
    assert len(live_in(env, channel)) == 1
    await assert_caught_up(game)
    no_errors(env, caplog)
