"""The pace of a game, played through Discord as a group would: ``/game undo`` (then another
move; refused after another player's turn, a reveal, a peek and a chance step), ``/game pause``
and ``/game resume`` around a turn deadline, ``/game deadline``, a player marked away after two
timeouts in a row and ``/game back``, and ``/game notify`` (one DM per turn)."""

from __future__ import annotations

from datetime import timedelta

import discord

import bot.adapter.outbox
from rules.record import replay
from tests.helpers.bots import (
    close_dms,
    dm_messages,
    dm_prompt,
    home,
    live_components,
    table_messages,
)
from tests.helpers.giganten_table import small_board
from tests.helpers.hidden import bid_in_dm, open_giants, texts
from tests.helpers.tables import (
    assert_calm,
    buttons,
    ephemeral_text,
    field,
    fresh,
    open_game,
    pings,
    results,
    session_in,
    showing,
    start,
)

PAUSED = "The game is paused: nobody can move until someone uses /game resume."
TAKEN_BACK = "can no longer be taken back"


async def play(member, channel, notation: str) -> str:
    result = await member.slash(home(channel), "play", notation=notation)
    return ephemeral_text(result)


async def game(member, channel, command: str, **options) -> str:
    return ephemeral_text(await member.slash(home(channel), f"game {command}", **options))


def log_of(env, channel) -> str:
    return field(showing(env, channel), "This stage")


# --- /game undo ----------------------------------------------------------------------------------

async def test_undo_then_a_different_move_to_the_end(simcord_env, new_bot):
    """Alice takes back her move and the two AI moves after it, plays another one, and the
    finished record is the game as played, the take-back a comment, and it replays."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("undo")
    alice = guild.add_member(env.create_user("alice"))
    lobby = await open_game(env, channel, alice, ai_seats=2, round_limit=2)
    await start(env, channel, alice, lobby)
    assert "no move of your own" in await game(alice, channel, "undo")

    assert await play(alice, channel, "place A1 1") == ("Played: place 1 token on A1\n"
        "As notation: `place A1 1`")
    session = session_in(env, channel)
    first = list(session.game.lines)
    assert len(first) == 3 and session.pending() == ("red",)
    posted = len(table_messages(env, channel))
    answer = await game(alice, channel, "undo")
    assert answer == ("↩️ You took back `place A1 1` and the moves that followed it. It is your "
                      "move again.")
    assert session.game.lines == [] and session.pending() == ("red",)
    assert await env.bot.games.store.actions(session.id) == []
    [kept] = await env.bot.games.store.takebacks(session.id)
    assert (kept.at, kept.colour, [r.line for r in kept.rows]) == (0, "red", first)
    live = showing(env, channel)
    assert len(table_messages(env, channel)) == posted, "the live message is edited, not posted"
    assert live.embeds[0].title.endswith("Round 1 · Red's turn")
    assert log_of(env, channel).startswith(
        "↩️ **Red** took back a move and the moves that followed it: ● **Red** claims A1 with 1 "
        "token.")
    assert live_components(live) or "/play" in live.embeds[0].description, \
        "a way to play: the components below (a button, a guided choice), or /play"
    assert_calm(env, channel)

    await env.restart_bot(new_bot())  # the take-back is in the store
    session = session_in(env, channel)
    assert len(session.takebacks) == 1 and session.seq == 0
    assert await play(alice, channel, "place A2 1") == ("Played: place 1 token on A2\n"
        "As notation: `place A2 1`")
    assert session.game.lines[0] == "red place A2 1" and len(session.game.lines) == 3
    assert "↩️ **Red** took back a move" in log_of(env, channel)
    while session.status == "running":
        legal = session.legal("red")
        assert (await play(alice, channel, str(legal[0]))).startswith("Played: ")
    [result] = results(env, channel)
    record = (await result.attachments[0].read()).decode()
    lines = record.splitlines()
    assert lines[1] == f"# red took back: {', '.join(first)}"
    assert lines[2] == "red place A2 1"
    replayed, rejected = replay(record)
    assert rejected == [] and replayed.lines == session.game.lines
    assert session.module.to_json(replayed.state) == session.module.to_json(session.game.state)
    assert_calm(env, channel)
    assert not env.bot.unexpected_errors


async def test_undo_is_refused_once_another_player_has_acted(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("undo-two")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    eve = guild.add_member(env.create_user("eve"))
    lobby = await open_game(env, channel, alice, bob, ai_seats=1)
    await start(env, channel, alice, lobby)
    await play(alice, channel, "place A1 1")
    await play(bob, channel, "place E9 1")  # and then the AI
    session = session_in(env, channel)
    assert session.pending() == ("red",)
    refused = await game(alice, channel, "undo")
    assert refused == ("Your last move can no longer be taken back: Blue "
                       f"({bob.mention}) has had a turn since.")
    assert await game(eve, channel, "undo") == "You are not in this game."
    assert "Only the game's creator" in await game(eve, channel, "pause")

    undone = await game(bob, channel, "undo")  # bob's move: only the AI has played since
    assert undone.startswith("↩️ You took back `place E9 1` and the moves that followed it")
    assert session.pending() == ("blue",) and session.game.lines == ["red place A1 1"]
    assert "↩️ **Blue** took back a move" in "\n".join(texts(env, channel))
    await play(bob, channel, "place E8 1")
    assert session.game.lines[:2] == ["red place A1 1", "blue place E8 1"]
    assert TAKEN_BACK in await game(alice, channel, "undo")
    assert_calm(env, channel)
    assert not env.bot.unexpected_errors


async def test_undo_of_a_sealed_bid_and_refused_after_the_reveal(simcord_env):
    """Giants: alice takes back her sealed bid while bob has not bid (nothing came out; the
    table keeps it sealed), bids again, and once her bid reveals them all it stays."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("bids")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    session = await open_giants(env, channel, alice, bob, ai_seats=1)
    assert session.kind() == "bid"
    await bid_in_dm(env, alice, 2, chief=True)
    undone = await game(alice, channel, "undo")
    assert undone == "↩️ You took back `bid 2m chief`. It is your move again."
    public = "\n".join(texts(env, channel))
    assert "↩️ **Red** took back their choice." in public and "2m" not in public
    assert set(session.pending()) == {"red", "blue"} and dm_prompt(env, alice) is not None, \
        "the bid form comes again"
    await bid_in_dm(env, bob, 1)
    await bid_in_dm(env, alice, 1)  # the last bid reveals every bid
    assert session.kind() != "bid"
    assert await game(alice, channel, "undo") == (
        "Your last move can no longer be taken back: hidden information has come out since it "
        "was made (a reveal, a peek or a private deal).")
    assert any(line.startswith("red bid 1m") for line in session.game.lines)
    assert not env.bot.unexpected_errors


async def test_undo_is_refused_after_a_chance_step_and_after_a_peek(simcord_env, monkeypatch):
    """Giganten: the licences dealt after the action cards are chance; a peek shows a tile's
    value to its player alone. Neither move can be taken back; a plain drive can."""
    env = simcord_env
    monkeypatch.setitem(bot.adapter.outbox.RENDERERS, "giganten", small_board)
    guild = env.create_guild()
    channel = guild.create_text_channel("texas")
    alice = guild.add_member(env.create_user("alice"))
    lobby = (await alice.slash(channel, "game new", game="giganten")).response
    for _ in range(2):
        await alice.click(lobby, label="Add AI")
    await alice.click(lobby, label="Start")
    session = session_in(env, channel)
    assert session.kind() == "take" and session.pending() == ("red",)
    take = next(str(a) for a in session.legal("red"))
    assert (await play(alice, channel, take)).startswith("Played: ")
    assert session.log[-1].by == "chance", "the licences are dealt after the last card"
    assert await game(alice, channel, "undo") == (
        "Your last move can no longer be taken back: chance has had its say since (dice, a "
        "shuffle or a deal).")

    assert session.pending() == ("red",) and session.kind() == "move"
    module = session.module

    def peeks_after(drive: str) -> list[str]:
        state, _ = module.apply(session.game.state, "red", module.parse(drive))
        return [str(a) for a in module.legal(state, "red") if str(a).startswith("peek")]

    drive = next(str(a) for a in session.legal("red")
                 if str(a).startswith("drive") and peeks_after(str(a)))
    await play(alice, channel, drive)
    seq = session.seq
    assert await game(alice, channel, "undo") == (
        f"↩️ You took back `{drive}`. It is your move again.")
    assert session.seq == seq - 1 and session.kind() == "move"
    await play(alice, channel, drive)
    peeks = [str(a) for a in session.legal("red") if str(a).startswith("peek")]
    await play(alice, channel, peeks[0])
    assert TAKEN_BACK in await game(alice, channel, "undo")
    assert session.game.lines[-1] == f"red {peeks[0]}"
    assert not env.bot.unexpected_errors


# --- /game pause, resume, deadline ---------------------------------------------------------------

async def test_pause_stops_the_deadline_and_resume_restarts_what_was_left(
        simcord_env, settings):
    env = simcord_env
    clock = settings.clock
    guild = env.create_guild()
    channel = guild.create_text_channel("pause")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    mods = guild.create_role("mods", permissions=discord.Permissions(manage_guild=True))
    mod = guild.add_member(env.create_user("mod"), roles=[mods])
    lobby = await open_game(env, channel, alice, bob, ai_seats=1, turn_minutes=10)
    await start(env, channel, alice, lobby)
    session = session_in(env, channel)

    clock.advance(4 * 60)
    assert await game(bob, channel, "pause") == (
        "Only the game's creator or someone with Manage Server can do that.")
    assert await game(alice, channel, "resume") == "The game is not paused."
    assert await game(alice, channel, "pause") == (
        "⏸ Paused. Moves wait until /game resume; the turn then has about 6 minutes left.")
    assert await game(mod, channel, "pause") == "The game is already paused. /game resume goes on."
    live = showing(env, channel)
    assert live.embeds[0].description.startswith(
        f"⏸ The game is paused ({alice.mention} paused it).")
    assert not buttons(live), "no moves to click while paused"
    assert await play(alice, channel, "place A1 1") == PAUSED
    assert await game(alice, channel, "undo") == PAUSED
    assert session.game.lines == []

    clock.advance(60 * 60)  # an hour: the deadline would be long gone
    await env.advance_time(settings.timer_tick)
    await env.bot.outbox.reconcile_all()
    assert session.game.lines == [] and pings(env, channel) == [], "nothing happens"

    assert await game(mod, channel, "resume") == "▶️ The game goes on."
    assert session.row.deadline_at == (clock() + timedelta(minutes=6)).isoformat(
        timespec="seconds")
    assert showing(env, channel).embeds[0].description.startswith("Now: ● **Red**")
    clock.advance(5 * 60)
    await env.advance_time(settings.timer_tick)
    assert session.game.lines == [], "the 6 minutes left have not run out"
    [reminder] = pings(env, channel)
    assert "Time runs out" in reminder.content
    clock.advance(61)
    await env.advance_time(settings.timer_tick)
    assert session.log[0].by == "timeout" and session.pending() == ("blue",)
    assert_calm(env, channel)
    assert not env.bot.unexpected_errors


async def test_deadline_changes_mid_game(simcord_env, settings):
    env = simcord_env
    clock = settings.clock
    guild = env.create_guild()
    channel = guild.create_text_channel("deadline")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    lobby = await open_game(env, channel, alice, bob, ai_seats=1)
    await start(env, channel, alice, lobby)
    session = session_in(env, channel)
    assert session.row.deadline_at is None

    assert "Only the game's creator" in await game(bob, channel, "deadline", minutes="5")
    assert await game(alice, channel, "deadline", minutes="soon") == (
        "“soon” is not a turn time: give the minutes per turn (1 to 10080) or off.")
    assert await game(alice, channel, "deadline", minutes="5") == (
        "Each turn in this game now has 5 minutes; the current turn starts afresh.")
    card = fresh(channel, lobby)
    assert ("Time per turn", "5 minutes (then the AI plays for you)") in [
        (f.name, f.value) for f in card.embeds[0].fields]
    clock.advance(5 * 60)
    await env.advance_time(settings.timer_tick)
    assert session.log[0].by == "timeout" and session.pending() == ("blue",)

    assert await game(alice, channel, "deadline", minutes="off") == (
        "Turns in this game have no time limit now.")
    assert session.row.deadline_at is None and session.row.turn_seconds is None
    clock.advance(24 * 60 * 60)
    await env.advance_time(settings.timer_tick)
    assert session.pending() == ("blue",) and len(session.log) == 1
    assert "Time per turn" not in [f.name for f in fresh(channel, lobby).embeds[0].fields]

    await game(alice, channel, "pause")  # a new time while paused counts from the resume
    await game(alice, channel, "deadline", minutes="3")
    assert session.row.deadline_at is None and session.row.paused_left == 180
    await game(alice, channel, "resume")
    clock.advance(3 * 60)
    await env.advance_time(settings.timer_tick)
    assert session.pending() == ("red",) and session.log[1].by == "timeout"
    assert not env.bot.unexpected_errors


# --- away and back -------------------------------------------------------------------------------

async def test_two_timeouts_in_a_row_mark_a_player_away_until_they_are_back(
        simcord_env, settings, new_bot):
    env = simcord_env
    clock = settings.clock
    guild = env.create_guild()
    channel = guild.create_text_channel("away")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    lobby = await open_game(env, channel, alice, bob, ai_seats=1, turn_minutes=10)
    await start(env, channel, alice, lobby)
    session = session_in(env, channel)

    async def time_runs_out() -> None:
        clock.advance(10 * 60)
        await env.advance_time(settings.timer_tick)

    async def move(member) -> None:
        seat = session.seat_of(member.id)
        assert seat is not None and session.pending() == (seat.colour,)
        assert (await play(member, channel, str(session.legal(seat.colour)[0]))).startswith(
            "Played: ")

    await time_runs_out()  # alice's first timeout
    await move(bob)
    await move(alice)  # she acts: the count starts again
    await move(bob)
    await time_runs_out()
    assert not session.seat("red").away and session.seat("red").timeouts == 1
    await move(bob)
    await time_runs_out()  # the second in a row: away
    assert session.seat("red").away and session.pending() == ("blue",)
    away = f"💤 Away, the AI plays for them: Red ({alice.mention}). /game back ends it."
    assert away in showing(env, channel).embeds[0].description

    await env.restart_bot(new_bot())  # being away is stored
    session = session_in(env, channel)
    assert session.seat("red").away
    before = len(session.log)
    await move(bob)
    assert [s.by for s in session.log[before:]] == ["human", "ai", "away"], \
        "the AI plays for alice at once"
    assert session.pending() == ("blue",) and session.row.deadline_at is not None
    assert "💤 (away, the AI played) ● **Red**" in log_of(env, channel)
    assert await game(bob, channel, "back") == "You are not marked away: you play your own turns."
    assert await game(alice, channel, "back") == "Welcome back: you play your own turns again."
    assert not session.seat("red").away
    assert "Away" not in showing(env, channel).embeds[0].description
    await move(bob)
    assert session.pending() == ("red",), "her own turn again"
    assert_calm(env, channel)
    assert not env.bot.unexpected_errors


# --- /game notify --------------------------------------------------------------------------------

def turn_dms(env, member) -> list[discord.Message]:
    return [m for m in dm_messages(env, member) if m.content.startswith("🔔 Your turn")]


async def test_notify_sends_one_dm_per_turn(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("notify")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    assert await game(bob, channel, "notify", setting="on") == (
        "🔔 You will get a DM whenever a decision becomes yours, in every game.")
    await game(cleo, channel, "notify", setting="on")
    close_dms(env, cleo)
    lobby = await open_game(env, channel, alice, bob, cleo)
    await start(env, channel, alice, lobby)
    session = session_in(env, channel)
    assert turn_dms(env, alice) == [] and turn_dms(env, bob) == [], "not their turn / not asked"

    await play(alice, channel, "place A1 1")
    [dm] = turn_dms(env, bob)
    assert dm.content == (f"🔔 Your turn in **Make Make** #{session.id} (Blue): to place, "
                          f"withdraw or pass. The table is in <#{home(channel).id}>.")
    await env.bot.outbox.reconcile_all()
    assert len(turn_dms(env, bob)) == 1, "one DM per turn, not per edit"

    await play(bob, channel, "place E9 1")  # cleo's turn: her DMs are closed
    assert session.dm_closed == {"green"} and not dm_messages(env, cleo)
    assert not [m for m in table_messages(env, channel) if "cannot send DMs" in m.content], \
        "Make Make has no private side to point to"
    await play(cleo, channel, "place E8 1")
    await play(alice, channel, "place A2 1")
    assert len(turn_dms(env, bob)) == 2, "a new turn, a new DM"
    tried = [r for r in env.http_requests if r.method == "POST"
             and r.path == f"/channels/{cleo.user.dm_channel.id}/messages"]
    assert len(tried) == 1, "closed DMs are tried once"

    assert await game(bob, channel, "notify", setting="off") == (
        "No more turn DMs. (Secret choices still come by DM.)")
    await play(bob, channel, "place E7 1")
    await play(cleo, channel, "place D8 1")
    await play(alice, channel, "place A3 1")
    assert len(turn_dms(env, bob)) == 2
    assert not env.bot.unexpected_errors
