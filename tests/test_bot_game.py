"""Make Make played end to end through Discord: slash commands, buttons, restarts, refusals."""

from __future__ import annotations

from pathlib import Path

import discord
import pytest

from bot.sessions import Session
from tests.test_bot_support import new_bot, settings, simcord_bot  # noqa: F401

RECORDS = Path(__file__).parent / "records" / "makemake"


def host_of(env):
    return env.bot.games


def session_in(env, channel) -> Session:
    session = host_of(env).in_channel(channel.id)
    assert session is not None
    return session


def buttons(message: discord.Message) -> list[str]:
    return [c.label for row in message.components for c in row.children
            if isinstance(c, discord.Button)]


def fresh(channel, message: discord.Message) -> discord.Message:
    return next(m for m in channel.history() if m.id == message.id)


def bot_messages(env, channel) -> list[discord.Message]:
    return [m for m in channel.history() if m.author.id == env.bot.user.id
            and not m.flags.ephemeral]


async def open_game(env, channel, creator, *joiners, ai_seats=0, **options):
    result = await creator.slash(channel, "game new", game="makemake", **options)
    lobby = result.response
    assert lobby is not None and not result.ephemeral
    for member in joiners:
        joined = await member.click(lobby, label="Join")
        assert not joined.followups, joined.followups[0].content
    for _ in range(ai_seats):
        await creator.click(lobby, label="Add AI")
    return lobby


async def start(env, channel, creator, lobby):
    before = len(bot_messages(env, channel))
    result = await creator.click(lobby, label="Start")
    assert not result.followups, result.followups[0].content
    posted = bot_messages(env, channel)[before:]
    assert posted, "starting posts the first board"
    return posted[-1]


def ephemeral_text(result) -> str:
    """The ephemeral answer of an interaction (its follow-ups, else its response)."""
    messages = result.followups or [result.response]
    messages = [m for m in messages if m is not None and m.content]
    assert messages, f"no answer: {result!r}"
    assert all(m.ephemeral for m in messages)
    return messages[-1].content


async def play_first_legal(env, channel, members: dict[int, object]) -> str:
    """The pending human plays: a button if the last board offers some, else the first
    autocomplete choice through /play. Returns the line played."""
    session = session_in(env, channel)
    colour = session.pending()[0]
    seat = session.seat(colour)
    assert seat is not None and seat.user_id is not None
    member = members[seat.user_id]
    last = bot_messages(env, channel)[-1]
    labels = buttons(last)
    if labels:
        result = await member.click(last, label=labels[0])
        assert not result.followups, result.followups[0].content
        return labels[0]
    choices = await member.autocomplete(channel, "play", "notation", "")
    assert 0 < len(choices) <= 25
    result = await member.slash(channel, "play", notation=choices[0]["value"])
    assert "Played" in ephemeral_text(result)
    return choices[0]["value"]


async def test_three_player_game_with_ai_and_restart_to_the_end(simcord_env, new_bot):  # noqa: F811
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("island")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    members = {alice.id: alice, bob.id: bob}

    lobby = await open_game(env, channel, alice, round_limit=3)
    await env.restart_bot(new_bot())  # the lobby's buttons survive a restart
    await bob.click(lobby, label="Join")
    await alice.click(lobby, label="Add AI")
    seats = session_in(env, channel).seats
    assert [(s.colour, s.user_id, s.ai_level) for s in seats] == [
        ("red", alice.id, None), ("blue", bob.id, None), ("green", None, "greedy")]
    first = await start(env, channel, alice, lobby)
    assert first.attachments and first.attachments[0].filename == "board.png"
    assert alice.mention in first.content

    played = 0
    restarted = False
    while host_of(env).in_channel(channel.id) is not None:
        before = len(bot_messages(env, channel))
        await play_first_legal(env, channel, members)
        played += 1
        turn = bot_messages(env, channel)[before:]
        assert len(turn) == 1, "one public message per move"
        assert turn[0].attachments[0].filename == "board.png"
        if played == 3 and not restarted:
            session = session_in(env, channel)
            seq, view = session.seq, session.view()
            await env.restart_bot(new_bot())
            restarted = True
            again = session_in(env, channel)
            assert again is not session
            assert (again.seq, again.view()) == (seq, view)
        assert played < 40, "round_limit=3 ends the game"

    assert restarted
    final = bot_messages(env, channel)[-1]
    assert "Game over" in final.content
    assert {a.filename for a in final.attachments} >= {"board.png"}
    record = next(a for a in final.attachments if a.filename.endswith(".txt"))
    assert record.filename.startswith("makemake-")
    store = env.bot.games.store
    game = await store.game(session.id)
    assert game is not None and game.status == "finished"
    lines = await store.actions(session.id)
    assert any(line.startswith("green ") for line in lines), "the AI seat played"
    assert sum(line.startswith(("red ", "blue ")) for line in lines) >= played
    refused = await alice.slash(channel, "play", notation="pass")
    assert "no game" in ephemeral_text(refused)
    assert not env.bot.unexpected_errors


async def test_old_choice_buttons_work_after_restart(simcord_env, new_bot):  # noqa: F811
    """Example 10.8 of the rules: red must choose between two Moai; the prompt survives a
    restart, an illegal choice is refused with its reason and changes nothing."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("moai")
    people = [guild.add_member(env.create_user(n)) for n in ("ana", "ben", "cai")]
    by_colour = dict(zip(("red", "blue", "green"), people, strict=True))
    lobby = await open_game(env, channel, people[0], *people[1:])
    await start(env, channel, people[0], lobby)

    await scripted(env, channel, by_colour, "10_8_choosing_the_order_of_moai.txt", 13)

    prompt = bot_messages(env, channel)[-1]
    assert buttons(prompt) == ["moai E1", "moai E2"]
    assert "must choose where the Moai goes" in prompt.content
    session = session_in(env, channel)
    seq, view = session.seq, session.view()

    illegal = await by_colour["red"].slash(channel, "play", notation="moai D1")
    assert "does not qualify" in ephemeral_text(illegal)
    not_yours = await by_colour["blue"].click(prompt, label="moai E1")
    assert "not your turn" in ephemeral_text(not_yours)
    assert (session.seq, session.view()) == (seq, view)

    await env.restart_bot(new_bot())
    clicked = await by_colour["red"].click(prompt, label="moai E1")
    assert not clicked.followups, clicked.followups[0].content
    after = session_in(env, channel)
    assert after.seq == seq + 1
    assert after.view()["moai_left"] == 10  # E1, then E2 automatically (rules example 10.8)
    assert after.view()["active"] == "blue"
    assert buttons(fresh(channel, prompt)) == [], "a used prompt loses its buttons"
    assert not env.bot.unexpected_errors


async def scripted(env, channel, by_colour, record: str, count: int) -> None:
    """Play the first ``count`` action lines of a rules example through /play."""
    lines = (RECORDS / record).read_text().splitlines()[1:count + 1]
    for line in lines:
        colour, action = line.split("#")[0].split(" ", 1)
        result = await by_colour[colour].slash(channel, "play", notation=action.strip())
        assert "Played" in ephemeral_text(result), ephemeral_text(result)


async def test_site_choice_buttons_and_outdated_prompts(simcord_env):
    """Example 10.9: six sites qualify and red has five Tangata Manu: six buttons."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("manu")
    people = [guild.add_member(env.create_user(n)) for n in ("ana", "ben", "cai")]
    by_colour = dict(zip(("red", "blue", "green"), people, strict=True))
    lobby = await open_game(env, channel, people[0], *people[1:])
    await start(env, channel, people[0], lobby)
    await scripted(env, channel, by_colour, "10_9_choosing_tangata_manu_sites.txt", 19)
    prompt = bot_messages(env, channel)[-1]
    assert len(buttons(prompt)) == 6 and "manu S05 S06 S10 S11 S15" in buttons(prompt)
    wrong = await by_colour["red"].slash(channel, "play", notation="manu S01 S05 S06 S10")
    assert "exactly 5 sites" in ephemeral_text(wrong)
    done = await by_colour["red"].slash(channel, "play", notation="manu S15 S11 S10 S06 S05")
    assert "red manu S05 S06 S10 S11 S15" in ephemeral_text(done)
    stale = await by_colour["red"].click(prompt, label=buttons(prompt)[0])
    assert "out of date" in ephemeral_text(stale)
    assert session_in(env, channel).view()["reserves"]["red"]["manu"] == 0
    assert not env.bot.unexpected_errors


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

    await alice.slash(north, "play", notation="place A1 2")
    await bob.slash(south, "play", notation="place E9 1")
    await alice.slash(south, "play", notation="place A1 3")
    assert n.view()["board"]["A1"]["tokens"] == 2
    assert s.view()["board"]["A1"] == {"owner": "blue", "tokens": 3, "chief": False,
                                       "moai": False}
    assert s.view()["board"]["E9"]["owner"] == "red"
    assert n.view()["board"]["E9"]["owner"] is None
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

    session = session_in(env, channel)
    seq, view = session.seq, session.view()
    assert "not in this game" in ephemeral_text(
        await eve.slash(channel, "play", notation="place A1 1"))
    assert "not your turn" in ephemeral_text(
        await bob.slash(channel, "play", notation="place A1 1"))
    centre = ephemeral_text(await alice.slash(channel, "play", notation="place C4 1"))
    assert "not allowed" in centre and "C4 is the centre" in centre
    assert "could not read" in ephemeral_text(
        await alice.slash(channel, "play", notation="fly to the moon"))
    assert "cannot pass" in ephemeral_text(await alice.slash(channel, "play", notation="pass"))
    assert (session.seq, session.view()) == (seq, view)
    assert await bob.autocomplete(channel, "play", "notation", "") == []
    assert await eve.autocomplete(channel, "play", "notation", "pl") == []

    assert "creator" in ephemeral_text(await bob.slash(channel, "game abort"))
    assert not env.bot.unexpected_errors


async def test_status_and_abort(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(env.create_user("alice"))
    mods = guild.create_role("mods", permissions=discord.Permissions(manage_guild=True))
    mod = guild.add_member(env.create_user("mod"), roles=[mods])
    await open_game(env, channel, alice, ai_seats=1)
    shown = await alice.slash(channel, "game status")
    assert shown.response.embeds[0].title == "Make Make: new game"
    aborted = await mod.slash(channel, "game abort")
    assert "aborted" in aborted.response.content
    assert host_of(env).in_channel(channel.id) is None
    assert "aborted" in ephemeral_text(await alice.click(shown.response, label="Join"))

    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    status = await alice.slash(channel, "game status")
    board = status.response
    assert board.attachments[0].filename == "board.png" and alice.mention in board.content
    assert "aborted" in (await alice.slash(channel, "game abort")).response.content
    assert "no game" in ephemeral_text(await alice.slash(channel, "game status"))
    assert not env.bot.unexpected_errors


@pytest.mark.parametrize("typed", ["", "place", "PLACE b2", "withdraw"])
async def test_autocomplete_lists_legal_moves_only(simcord_env, typed):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(env.create_user("alice"))
    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    legal = set(host_of(env).legal_texts(channel.id, alice.id))
    choices = await alice.autocomplete(channel, "play", "notation", typed)
    assert len(choices) <= 25
    assert {c["value"] for c in choices} <= legal
    if typed == "withdraw":
        assert choices == []
    else:
        assert choices and all(c["name"] == c["value"] for c in choices)
        assert all(c["value"].lower().startswith(typed.lower()) for c in choices)


async def test_ai_moves_interrupted_by_a_crash_are_played_after_the_restart(simcord_env,
                                                                            new_bot):  # noqa: F811
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(env.create_user("alice"))
    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    host = host_of(env)

    async def crash(session):
        raise RuntimeError("the process died here")

    host._advance = crash  # the human's move is committed, the AI moves are not
    result = await alice.slash(channel, "play", notation="place A1 1")
    assert "something went wrong" in ephemeral_text(result)
    env.errors  # noqa: B018 - acknowledge the simulated crash
    env.bot.unexpected_errors.clear()
    assert session_in(env, channel).pending() == ("blue",)

    posted = len(bot_messages(env, channel))
    await env.restart_bot(new_bot())
    session = session_in(env, channel)
    assert session.pending() == ("red",) and session.seq == 3
    resumed = bot_messages(env, channel)[posted:]
    assert len(resumed) == 1 and alice.mention in resumed[0].content
    assert "🤖" in resumed[0].content and resumed[0].attachments
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
            result = await member.slash(channel, "play", notation=f"place {plan[seat][turn]} 1")
            assert "Played" in ephemeral_text(result), ephemeral_text(result)
    final = bot_messages(env, channel)[-1]
    assert final.content.count("⏭") == 3 and "passes" in final.content
    assert "Game over (round limit reached)" in final.content
    store = env.bot.games.store
    game = (await store.games_with_status("finished"))[0]
    lines = await store.actions(game.id)
    assert lines[-3:] == ["red pass", "blue pass", "green pass"]
    assert not env.bot.unexpected_errors


async def test_turn_timer_reminds_then_lets_the_ai_play_even_after_a_restart(simcord_env,
                                                                            settings,  # noqa: F811
                                                                            new_bot):  # noqa: F811
    env = simcord_env
    clock = settings.clock
    guild = env.create_guild()
    channel = guild.create_text_channel("clock")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    lobby = await open_game(env, channel, alice, bob, ai_seats=1, turn_minutes=10)
    assert lobby.embeds[0].fields[-1].name == "Time per turn"
    await start(env, channel, alice, lobby)
    session = session_in(env, channel)
    assert session.row.deadline_at == "2026-01-01T00:10:00+00:00"

    clock.advance(8 * 60)  # the reminder comes after three quarters of the time
    posted = len(bot_messages(env, channel))
    await env.advance_time(settings.timer_tick)
    [reminder] = bot_messages(env, channel)[posted:]
    assert "time runs out" in reminder.content and alice.mention in reminder.content
    await env.advance_time(settings.timer_tick)
    assert len(bot_messages(env, channel)) == posted + 1, "one reminder per turn"

    clock.advance(2 * 60)
    await env.advance_time(settings.timer_tick)
    turn = bot_messages(env, channel)[-1]
    assert "⌛" in turn.content and bob.mention in turn.content
    session = session_in(env, channel)
    assert session.pending() == ("blue",) and session.game.lines[0].startswith("red ")

    await env.restart_bot(new_bot())  # the deadline is in the store
    clock.advance(10 * 60)
    await env.advance_time(settings.timer_tick)
    session = session_in(env, channel)
    assert session.pending() == ("red",)
    assert [line.split()[0] for line in session.game.lines] == ["red", "blue", "green"]
    assert not env.bot.unexpected_errors
