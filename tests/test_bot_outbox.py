"""Nothing after a commit can silence or stall a game.

A move is stored before anything is shown; the outbox alone brings Discord to the stored game.
Each test breaks one Discord call (a 5xx or a 429 from ``env.inject_error``), the database, or
the process itself right after a commit, and checks that the table catches up by itself (the
outbox's retry with backoff, or its periodic tick: no command from anyone), that nothing is
posted twice, and that the next human can act. Answers to the acting user are best effort: when
one fails the move still stands. Also: a reconcile with nothing new makes no Discord call, a
table message deleted by hand comes back, and echoed input never makes an answer too long.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import discord
import pytest

from bot.constants import MAX_CONTENT, RETRY_FIRST
from tests.helpers.bots import (
    custom_ids,
    dm_messages,
    dm_prompt,
    mine,
    places,
    table_messages,
)
from tests.helpers.outbox import (
    Game,
    assert_caught_up,
    heal,
    open_game,
    ready_lobby,
    sticky,
)

# --- what the bot sent ---------------------------------------------------------------------


def requests(env, method: str, path: str, since: int = 0) -> list:
    return [r for r in env.http_requests[since:] if r.method == method and r.path == path]


def posts_to(env, channel_id: int, since: int = 0) -> list:
    return requests(env, "POST", f"/channels/{channel_id}/messages", since)


def assert_no_duplicates(game: Game) -> None:
    """One message per table stage: no stage title twice, and only the newest is live."""
    titles = [m.embeds[0].title for m in game.tables()]
    assert len(titles) == len(set(titles)), titles
    live = [m for m in table_messages(game.env, game.channel) if custom_ids(m)]
    assert len(live) <= 1, [m.embeds[0].title if m.embeds else m.content for m in live]


async def next_human_acts(game: Game) -> None:
    before = game.now().seq
    assert "Played" in await game.play()
    assert game.now().seq > before


# --- answers to the acting user: best effort, the table shows the move anyway ---------------

async def test_a_failed_play_answer_loses_only_the_answer(simcord_env):
    env = simcord_env
    game = await open_game(env, "makemake")
    seq = game.session.seq
    sent = len(env.http_requests)
    fault = sticky(env, "POST", "/webhooks/*/*")  # the "Played: ..." follow-up
    assert await game.play() == "", "the answer is lost"
    heal(env, fault)
    assert [r.path.split("/")[1] for r in env.http_requests[sent:]].count("webhooks") == 1, \
        "an answer is not retried"
    assert game.now().seq > seq, "the move stands"
    assert game.shows_turn_of("Blue")
    await assert_caught_up(game)
    assert_no_duplicates(game)
    await next_human_acts(game)
    assert not env.bot.unexpected_errors


async def test_a_failed_click_answer_loses_only_the_answer(simcord_env):
    """The last card taken deals the licences: the clicker's "You were dealt ..." follow-up
    fails, the table and the DM screen show the deal anyway."""
    env = simcord_env
    game = await open_game(env, "giganten", ai_seats=2)
    await click_first_card(game, game.alice)
    screen = dm_messages(env, game.bob)[0]
    assert "no licence cards" in screen.content
    fault = sticky(env, "POST", "/webhooks/*/*")
    result = await click_first_card(game, game.bob)
    heal(env, fault)
    assert not result.followups, "the secret answer is lost"
    assert game.now().view("grey")["you"]["licences"], "the cards were dealt"
    screen = next(m for m in dm_messages(env, game.bob) if m.id == screen.id)
    assert "cards, total" in screen.content, "the DM screen shows the hand"
    assert game.shows_turn_of("Red")
    await assert_caught_up(game)
    assert_no_duplicates(game)
    await next_human_acts(game)
    assert not env.bot.unexpected_errors


async def click_first_card(game: Game, member):
    live = game.table()
    take = next(c for c in custom_ids(live) if ":act:take " in c)
    return await member.click(live, custom_id=take)


async def test_a_failed_deferral_plays_nothing_and_the_click_works_again(simcord_env):
    """Before any commit: when the deferral fails, Discord shows the click as failed (the
    apology cannot reach the player either), nothing is played, and the same button then
    works."""
    env = simcord_env
    game = await open_game(env, "giganten", ai_seats=2)
    seq, posted = game.session.seq, len(game.tables())
    fault = sticky(env, "POST", "/interactions/*/*/callback")
    first = await click_first_card(game, game.alice)
    heal(env, fault)
    assert not first.acknowledged
    assert game.now().seq == seq
    again = await click_first_card(game, game.alice)
    assert again.deferred and not again.followups
    assert game.now().seq > seq and game.shows_turn_of("Grey")
    assert len(game.tables()) == posted
    await assert_caught_up(game)
    assert_no_duplicates(game)
    await next_human_acts(game)
    assert all(isinstance(e, discord.HTTPException) and e.status == 500
               for e in env.bot.unexpected_errors)


async def test_a_failed_reply_to_a_typed_choice_loses_only_the_reply(simcord_env):
    """A bid typed in a DM: its ✅ reaction fails, the bid stands and the table says so; a
    bogus text of almost 2,000 characters gets a refusal that stays within Discord's limit."""
    env = simcord_env
    game = await open_game(env, "giants", ai_seats=1)
    dm = game.bob.user.dm_channel
    before = len(dm_messages(env, game.bob))
    await game.bob.send_dm("bid " + "x" * 1990)
    [refused] = dm_messages(env, game.bob)[before:]
    assert "could not read" in refused.content and len(refused.content) <= MAX_CONTENT
    assert game.now().view(None)["bids"]["blue"] == "waiting"

    fault = sticky(env, "PUT", f"/channels/{dm.id}/messages/*/reactions/*")
    typed = await game.bob.send_dm("bid 0m")
    heal(env, fault)
    typed = next(m for m in dm.history() if m.id == typed.id)
    assert not typed.reactions, "the confirmation is lost"
    assert game.now().view(None)["bids"]["blue"] == "submitted", "the bid stands"
    assert "▶ ■ **Blue** has sealed a bid." in "\n".join(
        f.value for f in game.table().embeds[0].fields), "the table tells that blue bid"
    await assert_caught_up(game)
    assert_no_duplicates(game)
    prompt = dm_prompt(env, game.alice)
    assert prompt is not None, "alice can still bid"
    assert await submit(game.alice, prompt)
    assert game.now().kind() != "bid"
    assert not env.bot.unexpected_errors


async def submit(member, prompt) -> bool:
    ok = next(c for c in custom_ids(prompt) if ":ok:" in c)
    result = await member.user.click(prompt, custom_id=ok)
    return result.acknowledged and not result.followups


# --- Discord calls of the outbox: retried with backoff, or by the tick --------------------------

async def test_the_lobby_card_edit_failing_at_start(simcord_env, settings):
    env = simcord_env
    channel, alice, bob, lobby = await ready_lobby(env, "makemake", "start")
    fault = sticky(env, "PATCH", f"/channels/{channel.id}/messages/{lobby.id}")
    started = await alice.click(lobby, label="Start")
    assert started.deferred and not started.followups
    session = env.bot.games.in_channel(channel.id)
    assert session is not None and session.status == "running", "the start is stored"
    await env.advance_time(RETRY_FIRST * 4)
    assert not [m for place in places(channel) for m in mine(env, place.history())
                if m.embeds and any(a.filename == "board.png" for a in m.attachments)], \
        "no table yet"
    heal(env, fault)
    await env.advance_time(settings.reconcile_tick)  # no command: the retry or the tick
    card = next(m for m in channel.history() if m.id == lobby.id)
    assert card.embeds[0].title == "Make Make: started" and not custom_ids(card)
    assert [t.name for t in channel.threads] == [f"Make Make #{session.id}"]
    game = Game(env, channel, alice, bob, session)
    assert len(game.tables()) == 1 and game.shows_turn_of("Red")
    await assert_caught_up(game)
    await next_human_acts(game)
    assert not env.bot.unexpected_errors


@pytest.mark.parametrize("status", [429, 500])
async def test_the_table_post_failing(simcord_env, settings, status):
    env = simcord_env
    game = await open_game(env, "makemake")
    thread = game.place()
    assert thread.id != game.channel.id
    assert "Played" in await game.play()  # red's turn is over
    posted = len(game.tables())
    fault = sticky(env, "POST", f"/channels/{thread.id}/messages", status=status)
    sent = len(env.http_requests)
    assert "Played" in await game.play()  # blue's too: the next stage needs a new message
    await env.advance_time(RETRY_FIRST * 4)
    assert len(game.tables()) == posted, "not shown yet"
    assert len(posts_to(env, thread.id, sent)) >= 2, "retried with backoff"
    heal(env, fault)
    await env.advance_time(settings.reconcile_tick)
    assert len(game.tables()) == posted + 1
    assert game.shows_turn_of("Red")
    await assert_caught_up(game)
    assert_no_duplicates(game)
    await next_human_acts(game)
    assert not env.bot.unexpected_errors


@pytest.mark.parametrize("path", ["dm", "@original"])
async def test_the_dm_prompt_edit_failing(simcord_env, settings, path):
    """Alice hands in her bid; editing her DM prompt to "Handed in" fails (the outbox's edit,
    or the confirmation of the click itself): the prompt is closed later, nothing is sent
    twice, and bob can still bid."""
    env = simcord_env
    game = await open_game(env, "giants", ai_seats=1)
    prompt = dm_prompt(env, game.alice)
    assert prompt is not None
    dms = len(dm_messages(env, game.alice))
    where = f"/channels/{game.alice.user.dm_channel.id}/messages/*" if path == "dm" \
        else "/webhooks/*/*/messages/@original"
    fault = sticky(env, "PATCH", where)
    sent = len(env.http_requests)
    assert await submit(game.alice, prompt)
    assert game.now().view(None)["bids"]["red"] == "submitted"
    await env.advance_time(RETRY_FIRST * 4)
    heal(env, fault)
    dm = f"/channels/{game.alice.user.dm_channel.id}/messages/"
    edits = [r for r in env.http_requests[sent:] if r.method == "PATCH"
             and (r.path.endswith("/@original") if path == "@original"
                  else r.path.startswith(dm))]  # her screen (the bid is on it) comes first
    assert len(edits) >= (1 if path == "@original" else 2), "the edit was tried (and retried)"
    await env.advance_time(settings.reconcile_tick)
    closed = next(m for m in dm_messages(env, game.alice) if m.id == prompt.id)
    assert "Handed in" in closed.content and not custom_ids(closed)
    assert len(dm_messages(env, game.alice)) == dms, "no second DM"
    await assert_caught_up(game)
    assert_no_duplicates(game)
    other = dm_prompt(env, game.bob)
    assert other is not None and await submit(game.bob, other)
    assert game.now().kind() != "bid"
    assert not env.bot.unexpected_errors


# --- the database and the process --------------------------------------------------------------

async def test_a_locked_database_during_an_ai_step(simcord_env, settings, monkeypatch):
    """Bob's move is committed; storing the AI's answer finds the database locked. Bob's move
    shows at once; the tick plays the AI's move, and alice can act."""
    env = simcord_env
    game = await open_game(env, "makemake")
    assert "Played" in await game.play()  # alice
    store = env.bot.games.store
    real = store.append_action
    locked: list[str] = []

    async def append_action(*args: Any, **kwargs: Any) -> None:
        if args[2].startswith("green ") and not locked:  # the AI's step
            locked.append(args[2])
            raise sqlite3.OperationalError("database is locked")
        await real(*args, **kwargs)

    monkeypatch.setattr(store, "append_action", append_action)
    bob_line = game.first_legal()
    assert "Played" in await game.play()
    assert locked, "the AI step failed"
    lines = await store.actions(game.id)
    assert lines[-1] == f"blue {bob_line}", "bob's move is stored, the AI's is not"
    assert game.now().pending() == ("green",)
    assert game.table().embeds[0].description.startswith("The AI is playing: ✚ **Green**")
    await assert_caught_up(game)
    await env.advance_time(settings.reconcile_tick)  # no command: the tick resumes the game
    lines = await store.actions(game.id)
    assert lines[-1].startswith("green "), lines[-3:]
    assert game.now().pending() == ("red",) and game.shows_turn_of("Red")
    await assert_caught_up(game)
    assert_no_duplicates(game)
    await next_human_acts(game)
    assert not env.bot.unexpected_errors


async def test_a_restart_between_commit_and_post(simcord_env, new_bot, monkeypatch):
    """The process dies after alice's move is stored and before the outbox ran: the new
    process shows it at start-up, once."""
    env = simcord_env
    game = await open_game(env, "makemake")
    before = {m.id for m in game.tables()}
    monkeypatch.setattr(env.bot.outbox, "kick", lambda game_id: None)
    assert "Played" in await game.play()
    assert game.shows_turn_of("Red"), "nothing shown yet"
    assert {m.id for m in game.tables()} == before
    seq = game.now().seq
    sent = len(env.http_requests)
    await env.restart_bot(new_bot())
    await env.settle()
    assert game.now().seq == seq
    assert game.shows_turn_of("Blue")
    new = [m for m in game.tables() if m.id not in before]
    assert len(new) <= 1 and len(posts_to(env, game.place().id, sent)) == len(new), \
        "at most the new stage's message is posted, once"
    await assert_caught_up(game)
    assert_no_duplicates(game)
    await next_human_acts(game)
    assert not env.bot.unexpected_errors


# --- idempotence ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["makemake", "giants", "giganten"])
async def test_a_second_reconcile_with_nothing_new_makes_no_call(simcord_env, settings,
                                                                 name):
    env = simcord_env
    game = await open_game(env, name, ai_seats=2 if name == "giganten" else 1)
    await assert_caught_up(game)
    sent, calls = len(env.http_requests), env.bot.outbox.calls
    await env.advance_time(settings.reconcile_tick * 2)  # two ticks of the outbox
    assert env.http_requests[sent:] == [] and env.bot.outbox.calls == calls
    assert "Played" in await game.play()
    await assert_caught_up(game)
    assert not env.bot.unexpected_errors


async def test_a_table_message_deleted_by_hand_is_posted_again(simcord_env, settings):
    env = simcord_env
    game = await open_game(env, "makemake")
    guild = game.channel.guild
    mod = guild.add_member(env.create_user("mod"), roles=[guild.create_role(
        "mods", permissions=discord.Permissions(manage_messages=True))])
    gone = game.table()
    sent = len(env.http_requests)
    await mod.delete(gone)
    await env.advance_time(settings.reconcile_tick)  # at the latest, the next reconcile
    [again] = game.tables()
    assert len(posts_to(env, game.place().id, sent)) == 1, "posted again, once"
    assert again.id != gone.id and again.embeds[0].title == gone.embeds[0].title
    assert game.shows_turn_of("Red")
    await assert_caught_up(game)
    await next_human_acts(game)
    assert game.shows_turn_of("Blue")
    assert_no_duplicates(game)
    assert not env.bot.unexpected_errors


async def test_echoed_input_never_makes_an_answer_too_long(simcord_env):
    env = simcord_env
    game = await open_game(env, "makemake")
    seq = game.now().seq
    bogus = "place " + "Z9" * 97
    assert len(bogus) == 200
    answer = await game.play(notation=bogus)
    assert "could not read" in answer and len(answer) <= MAX_CONTENT
    assert game.now().seq == seq
    await next_human_acts(game)
    assert not env.bot.unexpected_errors


# --- pictures ------------------------------------------------------------------------------

async def test_the_pictures_of_one_pass_are_drawn_side_by_side(simcord_env, monkeypatch):
    """A pass that shows a new board and new screens asks for them all at once (they are
    drawn together in the render workers), and each is drawn once."""
    env = simcord_env
    channel, alice, bob, lobby = await ready_lobby(env, "giants")
    renders = env.bot.renders
    drawing, most, asked = 0, 0, []
    picture = renders.picture

    async def counted(wanted):
        nonlocal drawing, most
        asked.append((wanted.filename, wanted.key))
        drawing += 1
        most = max(most, drawing)
        try:
            return await picture(wanted)
        finally:
            drawing -= 1

    monkeypatch.setattr(renders, "picture", counted)
    await alice.click(lobby, label="Start")
    session = env.bot.games.in_channel(channel.id)
    assert session is not None and session.status == "running"
    assert {name for name, _ in asked} >= {"board.png", "screen.png"}
    assert most >= 3  # the board and both humans' screens at once
    assert len(asked) == len(set(asked))
    assert dm_messages(env, alice) and dm_messages(env, bob)
    assert not env.bot.unexpected_errors
