"""Make Make played end to end through Discord, on the calm table: the lobby card, the table in a
thread under it (one live message per stage, edited within the stage), restarts, refusals,
pings, turn timers, two channels at once, status, abort and the end."""

from __future__ import annotations

from pathlib import Path

import discord
import pytest

import bot.adapter.outbox as outbox_module
from tests.helpers.bots import (
    custom_ids,
    home,
    live_components,
    table_messages,
)
from tests.helpers.tables import (
    LONG_BACKOFF,
    assert_calm,
    boards,
    buttons,
    calls,
    ephemeral_text,
    field,
    fresh,
    host_of,
    open_game,
    pings,
    public_words,
    results,
    sent,
    session_in,
    showing,
    start,
    three_player_game_with_ai_and_restart_to_the_end,
    turn_timer_reminds_then_lets_the_ai_play_even_after_a_restart,
)
from tests.helpers.words import SIMPLIFIED_ONLY

RECORDS = Path(__file__).parent / "records" / "makemake"


# --- driving a game -----------------------------------------------------------------------------


async def scripted(env, channel, by_colour, record: str, count: int) -> None:
    """Play the first ``count`` action lines of a rules example through /play in the thread."""
    lines = (RECORDS / record).read_text().splitlines()[1:count + 1]
    for line in lines:
        colour, action = line.split("#")[0].split(" ", 1)
        result = await by_colour[colour].slash(home(channel), "play", notation=action.strip())
        assert "Played" in ephemeral_text(result), ephemeral_text(result)


# --- a whole game ---------------------------------------------------------------------------------

async def test_three_player_game_with_ai_and_restart_to_the_end(simcord_env, new_bot):
    await three_player_game_with_ai_and_restart_to_the_end(simcord_env, new_bot)


@pytest.mark.parametrize("ending", ["finished", "aborted"])
async def test_once_the_game_is_over_no_table_message_asks_for_a_move(simcord_env, ending):
    """The end is shown on the last stage's message (edited), never on a new one that leaves
    the old one saying who must act."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("short")
    alice = guild.add_member(env.create_user("alice"))
    lobby = await open_game(env, channel, alice, ai_seats=2, round_limit=1)
    game_id = session_in(env, channel).id
    await start(env, channel, alice, lobby)
    if ending == "finished":
        await alice.slash(home(channel), "play", notation="place A1 1")
        assert (await host_of(env).get(game_id)).status == "finished"
    else:
        await alice.slash(home(channel), "game abort")
    asking = [m.embeds[0].title for m in boards(env, channel)
              if (m.embeds[0].description or "").startswith("Now: ")]
    assert asking == []
    [last] = boards(env, channel)  # the last stage's message shows the end
    said = last.embeds[0].description
    assert said.startswith("🏁 Game over") if ending == "finished" else \
        said == "This game was aborted."
    assert not any(m.components for m in table_messages(env, channel))
    assert len(results(env, channel)) == (ending == "finished")


# --- choices, refusals and outdated buttons -------------------------------------------------------

async def test_old_choice_buttons_work_after_restart(simcord_env, new_bot):
    """Example 10.8 of the rules: red must choose between two Moai; the live table offers the
    choice as buttons, which survive a restart; an illegal choice is refused with its reason
    and the closest legal moves, and changes nothing."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("moai")
    people = [guild.add_member(env.create_user(n)) for n in ("ana", "ben", "cai")]
    by_colour = dict(zip(("red", "blue", "green"), people, strict=True))
    lobby = await open_game(env, channel, people[0], *people[1:])
    await start(env, channel, people[0], lobby)
    thread = home(channel)

    await scripted(env, channel, by_colour, "10_8_choosing_the_order_of_moai.txt", 13)

    prompt = showing(env, channel)
    session = session_in(env, channel)
    seq, view = session.seq, session.view()
    assert buttons(prompt) == ["raise the Moai on E1", "raise the Moai on E2"]
    assert custom_ids(prompt) == [f"t:{session.id}:{seq}:act:moai E1",
                                  f"t:{session.id}:{seq}:act:moai E2"]
    assert prompt.embeds[0].description == ("Now: ● **Red** (ana), to "
                                            "choose where the Moai goes."), \
        "the buttons below offer every legal move: the status need not say so"
    assert field(prompt, "This stage").splitlines()[-1].endswith(
        "**Red** must choose where the Moai goes: E1, E2.")
    assert_calm(env, channel)

    since = len(env.http_requests)
    illegal = ephemeral_text(await by_colour["red"].slash(thread, "play", notation="moai D1"))
    assert "does not qualify" in illegal and "Did you mean `moai E1`, `moai E2`?" in illegal
    not_yours = await by_colour["blue"].click(prompt, label="raise the Moai on E1")
    assert "not your turn" in ephemeral_text(not_yours)
    assert (session.seq, session.view()) == (seq, view)
    assert calls(env, since) == [], "refusals are answered privately and change no message"

    await env.restart_bot(new_bot())
    since = len(env.http_requests)
    clicked = await by_colour["red"].click(prompt, label="raise the Moai on E1")
    assert not clicked.followups, clicked.followups[0].content
    after = session_in(env, channel)
    assert after.seq == seq + 1
    assert after.view()["moai_left"] == 10  # E1, then E2 automatically (rules example 10.8)
    assert after.view()["active"] == "blue"
    # Blue's turn is a new stage: red's message keeps its final board and log and loses its
    # buttons (one edit), and blue's turn gets one new message.
    assert calls(env, since) == [("PATCH", f"/channels/{thread.id}/messages/{prompt.id}"),
                                 ("POST", f"/channels/{thread.id}/messages")]
    edited = fresh(thread, prompt)
    assert buttons(edited) == [], "a used choice loses its buttons"
    assert not edited.embeds[0].description, "red's finished turn no longer asks for a move"
    assert "A Moai rises on E2 for **Red** (10 left)." in field(edited, "This stage")
    now = showing(env, channel)
    assert now.embeds[0].description.startswith("Now: ■ **Blue** (ben)")
    assert not any(cid.endswith(":moai E1") for m in table_messages(env, channel)
                   for cid in custom_ids(m))
    assert_calm(env, channel)
    assert not env.bot.unexpected_errors


async def test_site_choice_buttons_and_outdated_prompts(simcord_env, monkeypatch):
    """Example 10.9: six sites qualify and red has five Tangata Manu: six buttons. When the
    table could not be edited yet (Discord answered 503), the buttons still shown are out of
    date: a click on them is refused privately and changes nothing; the retry removes them."""
    env = simcord_env
    monkeypatch.setattr(outbox_module, "RETRY_FIRST", LONG_BACKOFF)
    guild = env.create_guild()
    channel = guild.create_text_channel("manu")
    people = [guild.add_member(env.create_user(n)) for n in ("ana", "ben", "cai")]
    by_colour = dict(zip(("red", "blue", "green"), people, strict=True))
    lobby = await open_game(env, channel, people[0], *people[1:])
    await start(env, channel, people[0], lobby)
    thread = home(channel)
    await scripted(env, channel, by_colour, "10_9_choosing_tangata_manu_sites.txt", 19)
    prompt = showing(env, channel)
    shown = buttons(prompt)
    assert len(shown) == 6 and "place Tangata Manu on sites S05, S06, S10, S11, S15" in shown
    wrong = await by_colour["red"].slash(thread, "play", notation="manu S01 S05 S06 S10")
    assert "exactly 5 sites" in ephemeral_text(wrong)

    env.inject_error("PATCH", f"/channels/{thread.id}/messages/{prompt.id}", status=503)
    done = await by_colour["red"].slash(thread, "play", notation="manu S15 S11 S10 S06 S05")
    assert ephemeral_text(done) == ("Played: place Tangata Manu on sites S05, S06, S10, S11, S15"
                                    "\nAs notation: `manu S05 S06 S10 S11 S15`")
    session = session_in(env, channel)
    seq = session.seq
    assert session.view()["reserves"]["red"]["manu"] == 0, "committed before it is shown"
    assert buttons(fresh(thread, prompt)) == shown, "the edit failed: the old buttons remain"

    stale = await by_colour["red"].click(prompt, label=shown[0])
    assert "out of date" in ephemeral_text(stale)
    late = await by_colour["blue"].click(prompt, label=shown[1])
    assert "out of date" in ephemeral_text(late)
    assert session.seq == seq and session.view()["reserves"]["red"]["manu"] == 0

    await env.advance_time(LONG_BACKOFF)  # the outbox's retry
    edited = fresh(thread, prompt)
    assert buttons(edited) == []
    assert "**Red** places Tangata Manu on S05, S06, S10, S11, S15." in field(edited, "This stage")
    assert showing(env, channel).id != prompt.id, "the next player's turn has its own message"
    assert_calm(env, channel)
    assert not env.bot.unexpected_errors


async def test_refusals_are_ephemeral_and_specific(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    empty = guild.create_text_channel("empty")
    alice, bob, cleo, dan, eve = (guild.add_member(env.create_user(n))
                                  for n in ("alice", "bob", "cleo", "dan", "eve"))
    text = ephemeral_text(await alice.slash(empty, "play", notation="pass"))
    assert "no game in this channel" in text

    lobby = await open_game(env, channel, alice, bob)
    assert "already has a game" in ephemeral_text(
        await bob.slash(channel, "game new", game="makemake"))
    assert "already have a seat" in ephemeral_text(await bob.click(lobby, label="Join"))
    assert "Only the player who created" in ephemeral_text(await bob.click(lobby, label="Start"))
    assert "At least 3 seats" in ephemeral_text(await alice.click(lobby, label="Start"))
    assert "has not started" in ephemeral_text(
        await alice.slash(channel, "play", notation="pass"))
    await cleo.click(lobby, label="Join")
    await dan.click(lobby, label="Join")
    assert "full" in ephemeral_text(await eve.click(lobby, label="Join"))
    await dan.click(lobby, label="Leave")
    assert "not in this game" in ephemeral_text(await dan.click(lobby, label="Leave"))
    await start(env, channel, alice, lobby)
    thread = home(channel)

    session = session_in(env, channel)
    seq, view = session.seq, session.view()
    since = len(env.http_requests)
    posted = len(table_messages(env, channel))
    assert "not in this game" in ephemeral_text(
        await eve.slash(thread, "play", notation="place A1 1"))
    assert "not your turn: waiting for Red" in ephemeral_text(
        await bob.slash(thread, "play", notation="place A1 1"))
    centre = ephemeral_text(await alice.slash(thread, "play", notation="place C4 1"))
    assert "not allowed" in centre and "C4 is the centre" in centre
    assert "Did you mean `place " in centre, "the closest legal moves"
    unread = ephemeral_text(await alice.slash(thread, "play", notation="fly to the moon"))
    assert "could not read" in unread and "for example: `place " in unread
    garbage = ephemeral_text(await alice.slash(thread, "play", notation="blah 99"))
    assert "Did you mean" not in garbage, "no guess for garbage: the form and an example"
    assert "The form: `place" in garbage and "for example: `place " in garbage
    assert "cannot pass" in ephemeral_text(await alice.slash(channel, "play", notation="pass"))
    assert (session.seq, session.view()) == (seq, view)
    assert await bob.autocomplete(thread, "play", "notation", "") == []
    assert await eve.autocomplete(thread, "play", "notation", "pl") == []

    assert "creator" in ephemeral_text(await bob.slash(thread, "game abort"))
    assert calls(env, since) == [], "refusals post and edit nothing"
    assert len(table_messages(env, channel)) == posted
    assert not env.bot.unexpected_errors


# --- several games, status, abort -----------------------------------------------------------------

async def test_two_channels_play_at_once(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    north, south = guild.create_text_channel("north"), guild.create_text_channel("south")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    lobby_n = await open_game(env, north, alice, ai_seats=2)
    lobby_s = await open_game(env, south, bob, alice, ai_seats=1)
    await start(env, north, alice, lobby_n)
    await start(env, south, bob, lobby_s)
    n, s = session_in(env, north), session_in(env, south)
    assert n.id != s.id
    assert n.seat_of(alice.id).colour == "red" and s.seat_of(alice.id).colour == "blue"
    [thread_n], [thread_s] = north.threads, south.threads
    assert (thread_n.name, thread_s.name) == (f"Make Make #{n.id}", f"Make Make #{s.id}")

    await alice.slash(thread_n, "play", notation="place A1 2")
    await bob.slash(south, "play", notation="place E9 1")  # the parent channel works as well
    assert "not in this game" in ephemeral_text(
        await bob.slash(thread_n, "play", notation="place A2 1"))
    await alice.slash(thread_s, "play", notation="place A1 3")
    assert n.view()["board"]["A1"]["tokens"] == 2
    assert s.view()["board"]["A1"] == {"owner": "blue", "tokens": 3, "chief": False,
                                       "moai": False}
    assert s.view()["board"]["E9"]["owner"] == "red"
    assert n.view()["board"]["E9"]["owner"] is None

    north_words, south_words = public_words(env, north), public_words(env, south)
    assert f"Make Make #{n.id} ·" in north_words and f"Make Make #{s.id}" not in north_words
    assert f"Make Make #{s.id} ·" in south_words and f"Make Make #{n.id}" not in south_words
    assert "claims A1 with 2 tokens" in north_words and "E9" not in north_words
    assert "claims E9 with 1 token" in south_words
    assert "claims A1 with 3 tokens" in south_words
    assert {m.channel.id for m in boards(env, north)} == {thread_n.id}
    assert {m.channel.id for m in boards(env, south)} == {thread_s.id}
    assert_calm(env, north)
    assert_calm(env, south)
    assert not env.bot.unexpected_errors


async def test_status_and_abort(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(env.create_user("alice"))
    mods = guild.create_role("mods", permissions=discord.Permissions(manage_guild=True))
    mod = guild.add_member(env.create_user("mod"), roles=[mods])
    lobby = await open_game(env, channel, alice, ai_seats=1)
    shown = await alice.slash(channel, "game status")
    assert shown.ephemeral and shown.response.embeds[0].title == "Make Make: new game"
    aborted = await mod.slash(channel, "game abort")
    assert not aborted.ephemeral
    assert aborted.response.content == (f"The Make Make game in this channel was aborted by "
                                        f"{mod.mention}.")
    assert host_of(env).in_channel(channel.id) is None
    card = fresh(channel, lobby)
    assert card.embeds[0].title == "Make Make: aborted" and not card.components, \
        "an aborted lobby keeps no buttons"

    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    thread = home(channel)
    live = showing(env, channel)
    session = session_in(env, thread)
    since = len(env.http_requests)
    posted = len(table_messages(env, channel))
    status = await alice.slash(thread, "game status")
    board = status.response
    assert status.ephemeral and board.ephemeral
    assert board.content == (f"The live table: https://discord.com/channels/{guild.id}/"
                             f"{thread.id}/{live.id}")
    assert board.embeds[0].title == live.embeds[0].title
    assert board.embeds[0].description.startswith("Now: ● **Red** (alice)")
    assert calls(env, since) == [] and len(table_messages(env, channel)) == posted, \
        "a status look changes nothing on the table"

    aborted = await alice.slash(thread, "game abort")
    assert not aborted.ephemeral and "aborted" in aborted.response.content
    assert (await host_of(env).get(session.id)).status == "aborted"
    assert not any(live_components(m) for m in table_messages(env, channel))
    assert "This game was aborted." in public_words(env, channel)
    card = fresh(channel, lobby)
    assert card.embeds[0].title == "Make Make: aborted" and not card.components
    assert "no game" in ephemeral_text(await alice.slash(thread, "game status"))
    assert "no game" in ephemeral_text(await alice.slash(channel, "game status"))
    assert not results(env, channel), "an aborted game has no result"
    assert not env.bot.unexpected_errors


async def test_without_threads_the_table_stays_in_the_channel(simcord_env):
    """The server option (Manage Server only), and a channel where the bot may not create
    threads: either way the table lives in the lobby's channel."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("flat")
    locked = guild.create_text_channel("locked", overwrites={
        env.bot.user: discord.PermissionOverwrite(create_public_threads=False)})
    alice = guild.add_member(env.create_user("alice"))
    mods = guild.create_role("mods", permissions=discord.Permissions(manage_guild=True))
    mod = guild.add_member(env.create_user("mod"), roles=[mods])

    denied = await alice.slash(channel, "game threads", enabled=False)
    assert "not allowed" in ephemeral_text(denied)
    assert await env.bot.games.store.threads_allowed(guild.id)
    off = await mod.slash(channel, "game threads", enabled=False)
    assert "without a thread" in ephemeral_text(off)
    lobby = await open_game(env, channel, alice, ai_seats=2)
    first = await start(env, channel, alice, lobby)
    assert channel.threads == [] and first.channel.id == channel.id
    assert session_in(env, channel).row.thread_id == channel.id
    assert not field(fresh(channel, lobby), "Table"), "no thread to link to"
    await alice.slash(channel, "play", notation="place A1 1")
    assert "claims A1" in public_words(env, channel)
    assert_calm(env, channel)

    on = await mod.slash(channel, "game threads", enabled=True)
    assert "thread of their own" in ephemeral_text(on)
    lobby = await open_game(env, locked, alice, ai_seats=2)
    first = await start(env, locked, alice, lobby)
    assert locked.threads == [] and first.channel.id == locked.id
    assert_calm(env, locked)
    assert not env.bot.unexpected_errors


@pytest.mark.parametrize("typed", ["", "place", "PLACE b2", "withdraw"])
async def test_autocomplete_lists_legal_moves_only(simcord_env, typed):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(env.create_user("alice"))
    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    thread = home(channel)
    legal = set(host_of(env).legal_texts(thread.id, alice.id))
    assert legal == set(host_of(env).legal_texts(channel.id, alice.id))
    choices = await alice.autocomplete(thread, "play", "notation", typed)
    assert len(choices) <= 25
    seq = session_in(env, channel).seq
    assert all(c["value"].endswith(f" @{seq}") for c in choices), "marked with the position"
    played = [c["value"].removesuffix(f" @{seq}") for c in choices]
    assert set(played) <= legal
    if typed == "withdraw":
        assert choices == []
    else:
        assert choices and all(c["name"].endswith(" · " + p)
                               for c, p in zip(choices, played, strict=True))
        assert all(p.lower().startswith(typed.lower()) for p in played)


# --- the host plays on: crashes, forced passes, pings, timers -------------------------------------

@pytest.mark.parametrize("recovery", ["restart", "tick"])
async def test_ai_moves_interrupted_by_a_failure_are_played_later(simcord_env, settings,
                                                                  new_bot, recovery):
    """The human's move is committed and answered; the AI moves after it fail (the process
    dies, the database is locked...): the game is stalled, not lost, and the AI moves are
    played after a restart or on the outbox's next tick, and shown."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(env.create_user("alice"))
    lobby = await open_game(env, channel, alice, ai_seats=2)
    first = await start(env, channel, alice, lobby)
    thread = home(channel)
    host = host_of(env)

    async def crash(session):
        raise RuntimeError("the AI step failed here")

    host._advance = crash  # the human's move is committed, the AI moves are not
    result = await alice.slash(thread, "play", notation="place A1 1")
    assert ephemeral_text(result) == "Played: place 1 token on A1\nAs notation: `place A1 1`"
    session = session_in(env, channel)
    assert session.stalled and session.pending() == ("blue",)
    assert showing(env, channel).embeds[0].description == \
        "The AI is playing: ■ **Blue** (AI, standard)."
    assert not fresh(thread, first).components, "red's turn is over"
    del host._advance

    if recovery == "restart":
        await env.restart_bot(new_bot())
    else:
        await env.advance_time(settings.reconcile_tick)
    session = session_in(env, channel)
    assert not session.stalled
    assert session.pending() == ("red",) and session.seq == 3
    assert [step.by for step in session.log] == ["human", "ai", "ai"]
    now = showing(env, channel)
    assert now.id != first.id and now.embeds[0].title.endswith("Round 2 · Red's turn")
    assert now.embeds[0].description.startswith("Now: ● **Red** (alice)")
    shown = field(fresh(thread, first), "This stage") + "\n" + field(now, "This stage")
    assert shown.count("🤖") == 2, "both AI moves are shown"
    assert_calm(env, channel)
    assert not env.bot.unexpected_errors


async def test_forced_passes_are_played_and_announced(simcord_env):
    """Every clan spreads its 11 tokens one per territory (no site is ever all one colour), so
    from round 12 nobody has a move but ``pass``: the host passes for them to the round limit."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("passes")
    people = [guild.add_member(env.create_user(n)) for n in ("ana", "ben", "cai")]
    lobby = await open_game(env, channel, people[0], *people[1:], round_limit=12)
    await start(env, channel, people[0], lobby)
    plan = {  # the three classes of a proper 3-colouring of the hex grid; E9 lent to green
        0: ["A1", "A4", "B3", "B6", "C2", "C5", "D1", "D4", "D7", "E3", "E6"],
        1: ["A2", "A5", "B1", "B4", "C3", "C6", "D2", "D5", "D8", "E1", "E4"],
        2: ["A3", "B2", "B5", "C1", "C7", "D3", "D6", "E2", "E5", "E8", "E9"],
    }
    for turn in range(11):
        for seat, member in enumerate(people):
            result = await member.slash(home(channel), "play",
                                        notation=f"place {plan[seat][turn]} 1")
            assert "Played" in ephemeral_text(result), ephemeral_text(result)
    final = showing(env, channel)
    log = field(final, "This stage")
    assert log.splitlines()[-3:] == [f"⏭ (no other move) {m} **{c}** passes."
                                     for m, c in (("●", "Red"), ("■", "Blue"), ("✚", "Green"))]
    assert final.embeds[0].description.startswith("🏁 Game over (round limit reached)")
    [result] = results(env, channel)
    assert result.content.startswith("🏁 Game over (round limit reached)")
    store = env.bot.games.store
    game = (await store.games_with_status("finished"))[0]
    lines = await store.actions(game.id)
    assert lines[-3:] == ["red pass", "blue pass", "green pass"]
    assert [row.by for row in (await store.log(game.id))[-3:]] == ["forced"] * 3
    assert not any(m.components for m in table_messages(env, channel))
    assert not env.bot.unexpected_errors


async def test_a_quiet_player_is_pinged_once_and_the_ping_goes_when_they_act(
        simcord_env, settings, new_bot):
    env = simcord_env
    clock = settings.clock
    guild = env.create_guild()
    channel = guild.create_text_channel("pings")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    lobby = await open_game(env, channel, alice, bob, ai_seats=1)
    await start(env, channel, alice, lobby)
    thread = home(channel)
    since = len(env.http_requests)
    await alice.slash(thread, "play", notation="place A1 1")
    assert all(body.get("allowed_mentions") == {"parse": []} for body in sent(env, since)), \
        "the table itself never pings"

    clock.advance(settings.ping_after - 1)  # bob has not been quiet long enough
    await env.bot.outbox.reconcile_all()
    assert pings(env, channel) == []

    clock.advance(1)
    since = len(env.http_requests)
    await env.bot.outbox.reconcile_all()
    [ping] = pings(env, channel)
    game_id = session_in(env, channel).id
    assert ping.content == (f"⏰ {bob.mention}: your turn in Make Make #{game_id}, on the table "
                            "above.")
    assert ping.channel.id == thread.id
    [body] = sent(env, since)
    assert body["allowed_mentions"] == {"users": [bob.id], "parse": []}, "only bob is pinged"

    since = len(env.http_requests)
    await env.bot.outbox.reconcile_all()
    await env.advance_time(settings.reconcile_tick)  # the periodic tick
    await env.restart_bot(new_bot())
    assert calls(env, since) == [] and pings(env, channel) == [ping], "one ping, kept"

    clock.advance(30)
    await bob.slash(thread, "play", notation="place E9 1")  # then the AI; alice is quiet too
    [ping] = pings(env, channel)
    assert ping.content.startswith(f"⏰ {alice.mention}:") and bob.mention not in ping.content
    await alice.slash(thread, "play", notation="place A2 1")
    assert pings(env, channel) == [], "the ping goes once they act"
    await env.bot.outbox.reconcile_all()
    assert pings(env, channel) == [], "bob has just acted: no ping"
    assert_calm(env, channel)
    assert not env.bot.unexpected_errors


async def test_turn_timer_reminds_then_lets_the_ai_play_even_after_a_restart(
        simcord_env, settings, new_bot):
    await turn_timer_reminds_then_lets_the_ai_play_even_after_a_restart(
        simcord_env, settings, new_bot)


# --- a game in Traditional Chinese --------------------------------------------------------------

async def test_a_game_in_traditional_chinese_speaks_it_on_the_card_and_the_table(simcord_env):
    """``/game new language:zh-TW``: the lobby card, its buttons and the live table are in
    Traditional Chinese as written in Taiwan, with no Simplified character among them."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("island")
    alice = guild.add_member(env.create_user("alice"))
    opened = await alice.slash(channel, "game new", game="makemake", language="zh-TW")
    assert not opened.ephemeral
    lobby = fresh(channel, opened.response)
    card = lobby.embeds[0]
    assert card.title == "Make Make：新遊戲"
    assert card.description == (f"3至4名玩家。按「加入」入座，顏色依加入順序分配。{alice.mention}"
                                "可以新增AI座位並按「開始」。")
    assert [(f.name, f.value) for f in card.fields][:2] == [
        ("座位（1/4）", f"紅色（{alice.mention}）"), ("選項", "預設設定")]
    assert buttons(lobby) == ["加入", "離開", "新增AI", "開始"]

    for _ in range(2):
        await alice.click(lobby, label="新增AI")
    first = await alice.click(lobby, label="開始")
    assert not first.followups, first.followups[0].content
    session = session_in(env, channel)
    card = fresh(channel, lobby).embeds[0]
    assert card.title == "Make Make：已開始"
    assert card.fields[0].value.splitlines() == [
        f"紅色（{alice.mention}）", "藍色（AI，標準）", "綠色（AI，標準）"]
    [thread] = channel.threads
    assert f"<#{thread.id}>" in next(f.value for f in card.fields if f.name == "遊戲桌")

    live = showing(env, channel)
    table = live.embeds[0]
    assert table.title == f"Make Make #{session.id} · 第1輪 · 紅色的回合"
    assert table.description == "現在輪到● **紅色**（alice）：放置、撤回或放棄。"
    assert field(live, "玩家（標記）：分數") == (
        "● **紅色**（alice）：0 · ■ **藍色**（AI，標準）：0 · ✚ **綠色**（AI，標準）：0")
    assert field(live, "目前").splitlines()[:2] == [
        "剩餘摩艾石像：12", "Make Make仍在中心"], "the title says the round; no safety cap"
    assert live.attachments[0].filename == "board.png"

    played = await alice.slash(home(channel), "play", notation="place B2 3")
    assert played.ephemeral, "the player's own answers follow their Discord language"
    now = showing(env, channel)
    assert field(now, "本階段").startswith("▶ ● **紅色**以3個統治標記佔領B2。\n🤖 ■ **藍色**")
    shown = public_words(env, channel) + card.title + "".join(f.name + f.value for f in card.fields)
    assert not set(shown) & set(SIMPLIFIED_ONLY), sorted(set(shown) & set(SIMPLIFIED_ONLY))
    assert not env.bot.unexpected_errors
