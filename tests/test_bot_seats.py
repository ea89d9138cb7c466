"""Seats changing hands, played through Discord: leaving a running game (the AI takes the seat
over), taking a seat over, handing one on, kicking in the lobby and in a game, a late joiner who
replaces the newest AI seat, and the refusals that say who may and why. Secrets move with the
seat: the new holder gets the screen and the prompt by DM, the old one can no longer act or
see."""

from __future__ import annotations

import discord

import bot.adapter.outbox as outbox_module
from bot.host.sessions import Session
from tests.helpers.bots import (
    close_dms,
    dm_messages,
    dm_prompt,
    home,
    live_table,
    table_messages,
)
from tests.helpers.hidden import (
    HANDED_IN,
    OPEN_LABEL,
    ephemeral_text,
    fill_bid,
    ids_of,
    in_dm,
    open_giants,
    open_screen,
    screens,
    shown,
)
from tests.helpers.tables import (
    assert_calm,
    boards,
    buttons,
    fresh,
    open_game,
    play_first_legal,
    start,
)

LONG_BACKOFF = 60.0
"""A first retry delay long enough that the retry waits for virtual time."""


def session_in(env, channel) -> Session:
    session = env.bot.games.in_channel(channel.id)
    assert session is not None
    return session


answer_of = ephemeral_text
"""The ephemeral answer of a command (its last follow-up, else its response)."""


def field(message: discord.Message, name: str) -> str:
    return next((f.value or "" for f in message.embeds[0].fields if f.name == name), "")


def lobby_card(env, channel) -> discord.Message:
    return next(m for m in channel.history() if m.author.id == env.bot.user.id and m.embeds
                and not any(a.filename == "board.png" for a in m.attachments))


async def test_leave_then_take_over_mid_bid_moves_the_secrets_with_the_seat(simcord_env,
                                                                              monkeypatch):
    env = simcord_env
    monkeypatch.setattr(outbox_module, "RETRY_FIRST", LONG_BACKOFF)
    guild = env.create_guild()
    channel = guild.create_text_channel("giants")
    alice, bob, cleo, dave, erin = (guild.add_member(env.create_user(n))
                                    for n in ("alice", "bob", "cleo", "dave", "erin"))
    session = await open_giants(env, channel, alice, bob, cleo, ai_seats=1)
    thread = home(channel)
    assert session.kind() == "bid" and set(session.pending()) == {"red", "blue", "green"}
    bob_prompt, bob_screen = dm_prompt(env, bob), screens(env, bob)[0]
    assert bob_prompt is not None and bob_screen.attachments

    # bob leaves mid-bid: the AI bids for Blue at once; his DMs say he no longer holds it
    left = await bob.slash(thread, "game leave")
    assert answer_of(left) == ("You left Blue in game #1; the AI (standard) plays it now. Anyone "
                               "not playing may take it over with `/game take colour:blue`.")
    blue = session.seat("blue")
    assert blue is not None and blue.is_ai and blue.was_human
    assert session.view(None)["bids"]["blue"] == "submitted"
    assert [s.by for s in session.log if s.actor == "blue"] == ["ai"]
    gone = "You no longer hold Blue in game #1: you left it, and the AI plays it now."
    old_prompt, old_screen = in_dm(env, bob, bob_prompt.id), in_dm(env, bob, bob_screen.id)
    assert old_prompt.content == gone and not old_prompt.components
    assert old_screen.content == gone and not old_screen.attachments
    assert dm_prompt(env, bob) is None
    log = field(live_table(env, channel), "This stage")
    assert f"🚪 {bob.mention} left **Blue**; the AI (standard) plays it now." in log
    assert log.index("left **Blue**") < log.index("🤖 ■ **Blue** has sealed a bid"), log
    card = lobby_card(env, channel)
    assert "Blue (AI, standard)" in field(card, "Seats (4/5)")
    assert f"🚪 {bob.mention} left **Blue**" in field(card, "Seat changes")

    # bob can no longer act nor look
    played = await bob.slash(thread, "play", notation="bid 1m")
    assert answer_of(played) == gone
    looked = await bob.click(live_table(env, channel), label=OPEN_LABEL)
    assert answer_of(looked) == gone
    typed = await bob.send_dm("bid 1m")
    assert [m.content for m in dm_messages(env, bob) if m.id > typed.id] == [gone]

    # dave, not playing, takes Blue over (a player left it); Yellow was always an AI
    refused = await dave.slash(thread, "game take", colour="yellow")
    assert answer_of(refused) == (
        f"Yellow has been an AI seat from the start, so only the game's creator "
        f"({alice.mention}) can give it to someone: `/game take colour:yellow user:@player`. "
        "A seat that a player left or was removed from can be taken over by anyone not "
        "playing.")
    refused = await dave.slash(thread, "game take", colour="red")
    assert answer_of(refused).startswith(f"Red is played by {alice.mention}. You can take over")
    took = await dave.slash(thread, "game take", colour="blue")
    assert answer_of(took) == ("You now play Blue in game #1. Your screen and secret choices "
                               f"come by DM; the table is in {thread.mention}.")
    assert session.seat("blue").user_id == dave.id
    [dave_screen] = screens(env, dave)
    assert "(Blue, table in" in dave_screen.content and dave_screen.attachments
    assert dm_prompt(env, dave) is None, "Blue's bid is in already: nothing to choose"
    assert f"🪑 {dave.mention} took over **Blue**." in field(live_table(env, channel),
                                                           "This stage")

    # mid-bid, the creator hands Green from cleo to erin: the secret prompt moves with it.
    # Discord fails to edit cleo's prompt at first: her old form refuses her, with the reason
    cleo_prompt, [cleo_screen] = dm_prompt(env, cleo), screens(env, cleo)
    assert cleo_prompt is not None
    env.inject_error("PATCH", f"/channels/{cleo.user.dm_channel.id}/messages/*", status=503)
    refused = await bob.slash(thread, "game take", colour="green", user=erin)
    assert answer_of(refused) == (f"Only the game's creator ({alice.mention}) or someone with "
                                  "Manage Server can give a seat to someone else. Leave out "
                                  "user: to take a seat yourself.")
    handed = await alice.slash(thread, "game take", colour="green", user=erin)
    assert answer_of(handed) == f"{erin.mention} now plays Green in game #1."
    assert session.seat("green").user_id == erin.id and session.pending() == ("red", "green")
    stale = await cleo.user.select(cleo_prompt, ["2"], custom_id=next(
        i for i in ids_of(cleo_prompt) if ":f0:" in i))
    moved = f"You no longer hold Green in game #1: {alice.mention} gave it to {erin.mention}."
    assert shown(stale).content == moved
    now = in_dm(env, cleo, cleo_prompt.id)
    assert now.content == moved and not now.components
    assert "red" in session.pending() and "green" in session.pending(), "nothing was played"

    await env.advance_time(LONG_BACKOFF)  # the outbox's retry
    now = in_dm(env, cleo, cleo_screen.id)
    assert now.content == moved and not now.attachments, "cleo no longer sees Green's screen"
    erin_prompt = dm_prompt(env, erin)
    assert erin_prompt is not None and "you play Green" in erin_prompt.content
    [erin_screen] = screens(env, erin)
    assert "(Green, table in" in erin_screen.content
    await fill_bid(erin.user, erin_prompt, 1)
    assert HANDED_IN in in_dm(env, erin, erin_prompt.id).content
    await fill_bid(alice.user, dm_prompt(env, alice), 1)
    assert session.kind() != "bid", "every bid is in: the bids are revealed"
    log = "\n".join(field(m, "This stage") for m in table_messages(env, channel) if m.embeds
                    and any(a.filename == "board.png" for a in m.attachments))
    assert f"🪑 {alice.mention} gave **Green** to {erin.mention} in place of " \
           f"{cleo.mention}." in log
    assert [(c.what, c.colour, c.user_id, c.old_id) for c in session.changes] == [
        ("left", "blue", None, bob.id), ("took", "blue", dave.id, None),
        ("handed", "green", erin.id, cleo.id)]
    assert not env.bot.unexpected_errors


# --- Make Make: the lobby, kicks, timeouts --------------------------------------------------------

async def test_a_late_joiner_replaces_the_newest_ai_seat_and_the_creator_removes_ai_seats(
        simcord_env, monkeypatch):
    env = simcord_env
    monkeypatch.setattr(outbox_module, "RETRY_FIRST", LONG_BACKOFF)
    guild = env.create_guild()
    channel = guild.create_text_channel("lobby")
    alice, bob, cleo, dave, erin = (guild.add_member(env.create_user(n))
                                    for n in ("alice", "bob", "cleo", "dave", "erin"))
    lobby = await open_game(env, channel, alice, bob, ai_seats=2)
    card = fresh(channel, lobby)
    assert buttons(card) == ["Join", "Leave", "Add AI", "Remove AI", "Start"]
    assert field(card, "Seats (4/4)").splitlines() == [
        f"Red ({alice.mention})", f"Blue ({bob.mention})", "Green (AI, standard)",
        "Yellow (AI, standard)"]

    refused = await bob.click(lobby, label="Remove AI")
    assert answer_of(refused) == f"Only the game's creator ({alice.mention}) can remove AI seats."
    await alice.click(lobby, label="Remove AI")  # the newest AI seat goes
    card = fresh(channel, lobby)
    assert field(card, "Seats (3/4)").splitlines()[-1] == "Green (AI, standard)"
    assert field(card, "Seat changes") == f"➖ {alice.mention} removed the AI seat **Yellow**."
    await alice.click(lobby, label="Add AI")

    # the lobby is full: a late friend gets the newest AI seat instead of "full"
    joined = await cleo.click(lobby, label="Join")
    assert not joined.followups, joined.followups[0].content
    card = fresh(channel, lobby)
    assert field(card, "Seats (4/4)").splitlines() == [
        f"Red ({alice.mention})", f"Blue ({bob.mention})", "Green (AI, standard)",
        f"Yellow ({cleo.mention})"]
    assert field(card, "Seat changes").splitlines()[-1] == (
        f"🪑 {cleo.mention} joined the full lobby and took the AI seat **Yellow**.")
    env.inject_error("PATCH", f"/channels/{channel.id}/messages/{lobby.id}", status=503)
    await dave.click(lobby, label="Join")  # the card could not be edited at once
    assert "Remove AI" in buttons(fresh(channel, lobby))
    refused = await alice.click(lobby, label="Remove AI")
    assert answer_of(refused) == "There is no AI seat to remove."
    await env.advance_time(LONG_BACKOFF)  # the outbox's retry
    card = fresh(channel, lobby)
    assert f"Green ({dave.mention})" in field(card, "Seats (4/4)")
    assert "Remove AI" not in buttons(card), "no AI seat is left to remove"
    assert answer_of(await erin.click(lobby, label="Join")) == "The game is full (4 seats)."
    assert not env.bot.unexpected_errors


async def test_kick_in_the_lobby_and_in_a_game(simcord_env, new_bot):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("kicks")
    alice, bob, cleo, dave = (guild.add_member(env.create_user(n))
                              for n in ("alice", "bob", "cleo", "dave"))
    mods = guild.create_role("mods", permissions=discord.Permissions(manage_guild=True))
    mod = guild.add_member(env.create_user("mod"), roles=[mods])
    lobby = await open_game(env, channel, alice, bob, cleo)

    # the lobby: only the creator (or Manage Server) removes a player
    refused = await bob.slash(channel, "game kick", user=cleo)
    assert answer_of(refused) == (f"Only the game's creator ({alice.mention}) or someone with "
                                  "Manage Server can remove a player.")
    assert answer_of(await alice.slash(channel, "game kick", user=alice)) == (
        "You cannot remove yourself: use /game leave to give up your seat.")
    assert answer_of(await alice.slash(channel, "game kick", user=dave)) == (
        f"{dave.mention} has no seat in this game.")
    kicked = await alice.slash(channel, "game kick", user=cleo)
    assert answer_of(kicked) == (
        f"{cleo.mention} no longer has a seat in the lobby.\n{cleo.mention} cannot join or "
        "take a seat in this game again unless you give them one (`/game take colour: user:`) "
        "or let them back (`/game allow user:`).")
    card = fresh(channel, lobby)
    assert cleo.mention not in field(card, "Seats (2/4)")
    assert field(card, "Seat changes") == (f"🚪 {alice.mention} removed {cleo.mention} from "
                                           "the lobby.")
    await alice.click(lobby, label="Add AI")
    await start(env, channel, alice, lobby)
    thread = home(channel)
    session = session_in(env, channel)
    assert session.pending() == ("red",)
    await play_first_legal(env, channel, {alice.id: alice, bob.id: bob})
    assert session.pending() == ("blue",)

    # in the game: a server manager turns bob's seat over to the AI, which plays his turn
    refused = await bob.slash(thread, "game kick", user=alice)
    assert answer_of(refused).startswith("Only the game's creator")
    kicked = await mod.slash(thread, "game kick", user=bob)
    assert answer_of(kicked) == (
        f"{bob.mention} no longer plays Blue: the AI (standard) does. Anyone not playing may "
        f"take it over with `/game take colour:blue`.\n{bob.mention} cannot join or take a "
        "seat in this game again unless you give them one (`/game take colour: user:`) or let "
        "them back (`/game allow user:`).")
    assert session.seat("blue").is_ai and session.pending() == ("red",)
    assert [s.by for s in session.log if s.actor in ("blue", "green")] == ["ai", "ai"]
    log = "\n".join(field(m, "This stage") for m in boards(env, channel))
    assert f"🚪 {mod.mention} turned **Blue** over to the AI in place of {bob.mention}." in log
    assert "Blue (AI, standard)" in field(fresh(channel, lobby), "Seats (3/4)")
    gone = f"You no longer hold Blue in game #1: {mod.mention} removed you from it."
    assert answer_of(await bob.slash(thread, "play", notation="place A1 1")) == gone

    await env.restart_bot(new_bot())  # seats and their changes are in the store
    session = session_in(env, channel)
    blue = session.seat("blue")
    assert blue is not None and blue.is_ai and blue.was_human and blue.ai_level == "greedy"
    assert blue.name == "bob", "the seat keeps the name of its last human"
    assert [(c.what, c.colour, c.old_id, c.by_id) for c in session.changes] == [
        ("dropped", "green", cleo.id, alice.id), ("kicked", "blue", bob.id, mod.id)]
    assert answer_of(await bob.slash(thread, "play", notation="place A1 1")) == gone
    assert await bob.autocomplete(thread, "play", "notation", "") == []

    # the last human cannot be turned out: the AI would play the game out alone
    refused = await mod.slash(thread, "game kick", user=alice)
    assert answer_of(refused) == (f"{alice.mention} is the last human at the table: the AI would "
                                  "play the game out alone. End it with /game abort instead.")
    refused = await alice.slash(thread, "game leave")
    assert answer_of(refused).startswith(f"{alice.mention} is the last human at the table")

    # the kick holds, across the restart: bob cannot take Blue (nor any seat) back himself
    held = (f"{mod.mention} removed you from game #1, so you cannot take a seat in it again "
            f"unless its creator ({alice.mention}) or someone with Manage Server gives you one "
            "or lets you back (`/game allow`).")
    assert answer_of(await bob.slash(thread, "game take", colour="Blue")) == held
    assert answer_of(await bob.slash(thread, "game take", colour="green")) == held
    assert session.seat("blue").is_ai

    # the creator gives him his seat back, which lifts the hold
    given = await alice.slash(thread, "game take", colour="Blue", user=bob)
    assert answer_of(given) == f"{bob.mention} now plays Blue in game #1."
    assert session.seat("blue").user_id == bob.id
    assert await env.bot.games.store.kick_hold(session.id, bob.id) is None
    await play_first_legal(env, channel, {alice.id: alice, bob.id: bob})
    assert session.pending() == ("blue",)
    await play_first_legal(env, channel, {alice.id: alice, bob.id: bob})
    assert [s.by for s in session.log if s.actor == "blue"] == ["ai", "human"]
    assert_calm(env, channel)
    assert not env.bot.unexpected_errors


async def test_refusals_say_who_may_take_a_seat_and_why(simcord_env, settings):
    env = simcord_env
    clock = settings.clock
    guild = env.create_guild()
    channel = guild.create_text_channel("takes")
    alice, bob, cleo, dave = (guild.add_member(env.create_user(n))
                              for n in ("alice", "bob", "cleo", "dave"))
    helper = guild.add_member(env.create_user("helper", bot=True))
    lobby = await open_game(env, channel, alice, bob, ai_seats=1, turn_minutes=5)
    assert answer_of(await cleo.slash(channel, "game take", colour="green")) == (
        "The game has not started yet: press Join on the lobby card (when the lobby is full, "
        "you get the newest AI seat).")
    await start(env, channel, alice, lobby)
    thread = home(channel)
    session = session_in(env, channel)

    assert answer_of(await cleo.slash(thread, "game leave")) == "You are not in this game."
    assert answer_of(await bob.slash(thread, "game take", colour="green")) == (
        "You already play Blue in this game: one seat per player.")
    assert answer_of(await cleo.slash(thread, "game take", colour="purple")) == (
        "There is no seat “Purple” in this game. Seats: Red, Blue, Green.")
    assert answer_of(await cleo.slash(thread, "game take", colour="blue")) == (
        f"Blue is played by {bob.mention}. You can take over a seat that a player left or was "
        "removed from, or one whose player's time ran out on their latest turn; the game's "
        f"creator ({alice.mention}) can give any seat to someone.")
    assert answer_of(await cleo.slash(thread, "game take", colour="green", user=dave)) \
        .startswith("Only the game's creator")
    assert answer_of(await alice.slash(thread, "game take", colour="green", user=bob)) == (
        f"{bob.mention} already plays Blue in this game: one seat per player.")
    assert answer_of(await alice.slash(thread, "game take", colour="green", user=helper)) == (
        "A bot cannot take a seat.")
    choices = await cleo.autocomplete(thread, "game take", "colour", "")
    assert [c["name"] for c in choices] == ["Green: AI (standard)", "Red: alice", "Blue: bob"]
    assert session.changes == [], "refusals change nothing"

    # red plays, then bob lets his time run out: anyone not playing may take Blue over
    await play_first_legal(env, channel, {alice.id: alice, bob.id: bob})
    clock.advance(5 * 60)
    await env.advance_time(settings.timer_tick)
    assert [s.by for s in session.log if s.actor == "blue"] == ["timeout"]
    assert session.pending() == ("red",)
    took = await cleo.slash(thread, "game take", colour="blue")
    assert answer_of(took) == f"You now play Blue in game #1; the table is in {thread.mention}."
    assert f"🪑 {cleo.mention} took over **Blue** from {bob.mention}." in "\n".join(
        field(m, "This stage") for m in boards(env, channel))
    assert answer_of(await bob.slash(thread, "play", notation="place A1 1")) == (
        f"You no longer hold Blue in game #1: {cleo.mention} took it over.")
    assert answer_of(await dave.slash(thread, "game take", colour="blue")).startswith(
        f"Blue is played by {cleo.mention}."), "cleo has not let her time run out"

    # the creator, not playing Green, may give it away
    handed = await alice.slash(thread, "game take", colour="green", user=dave)
    assert answer_of(handed) == f"{dave.mention} now plays Green in game #1."
    assert [(c.what, c.colour, c.user_id, c.old_id) for c in session.changes] == [
        ("took", "blue", cleo.id, bob.id), ("handed", "green", dave.id, None)]
    assert not env.bot.unexpected_errors


async def test_a_kicked_player_with_closed_dms_loses_the_form_the_lock_button_showed(
        simcord_env):
    """bob's DMs are closed: the table's 🔒 button showed him his screen and bid form, only to
    him. Removed from the game, that form refuses him and no longer shows his screen."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("giants")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    close_dms(env, bob)
    session = await open_giants(env, channel, alice, bob, cleo)
    form = await open_screen(env, channel, bob)
    assert [a.filename for a in form.attachments] == ["screen.png"] and ids_of(form)

    kicked = await alice.slash(home(channel), "game kick", user=bob)
    assert answer_of(kicked).startswith(f"{bob.mention} no longer plays Blue")
    assert session.seat("blue").is_ai and session.view(None)["bids"]["blue"] == "submitted"
    clicked = await bob.click(form, label="Submit")
    refused = shown(clicked)
    assert refused.content == (f"You no longer hold Blue in game #1: {alice.mention} removed "
                               "you from it.")
    assert not refused.attachments and not ids_of(refused)
    looked = await bob.click(live_table(env, channel), label=OPEN_LABEL)
    assert answer_of(looked) == refused.content
    assert session.view(None)["bids"]["blue"] == "submitted" and session.kind() == "bid"
    assert not env.bot.unexpected_errors


async def test_a_player_kicked_from_the_lobby_joins_again_only_once_let_back(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("holds")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    lobby = await open_game(env, channel, alice, bob, cleo)
    await alice.slash(channel, "game kick", user=cleo)
    session = session_in(env, channel)

    joined = await cleo.click(fresh(channel, lobby), label="Join")
    assert answer_of(joined) == (
        f"{alice.mention} removed you from game #1, so you cannot take a seat in it again "
        f"unless its creator ({alice.mention}) or someone with Manage Server gives you one or "
        "lets you back (`/game allow`).")
    assert session.seat_of(cleo.id) is None
    refused = await bob.slash(channel, "game allow", user=cleo)
    assert answer_of(refused) == (f"Only the game's creator ({alice.mention}) or someone with "
                                  "Manage Server can let a removed player back.")
    allowed = await alice.slash(channel, "game allow", user=cleo)
    assert answer_of(allowed) == f"{cleo.mention} may join or take a seat in game #1 again."
    again = await alice.slash(channel, "game allow", user=cleo)
    assert answer_of(again) == (f"{cleo.mention} was not kept out of game #1: there was "
                                "nothing to lift.")
    await cleo.click(fresh(channel, lobby), label="Join")
    assert session.seat_of(cleo.id) is not None
    assert not env.bot.unexpected_errors
