"""Make Make through the simulated Discord: a lobby opened and started, the session behind a
table, the table's components and what they show, the requests the bot made, and the calm
table checked after a move.

The whole games here run on both backends: ``tests/test_bot_game.py`` plays them on SQLite,
``tests/test_bot_on_postgres.py`` on PostgreSQL."""

from __future__ import annotations

import discord

from bot.games import game_ui
from bot.host.sessions import Session
from bot.table.words import step_lines
from render.marks import mark_symbol
from tests.helpers.bots import (
    home,
    live_components,
    mine,
    table_messages,
)

UI = game_ui("makemake")

BOARD = "attachment://board.png"

LONG_BACKOFF = 60.0
"""A first retry delay long enough that the retry waits for virtual time (env.advance_time):
with the default one the simulator's settling would wait for it in real time."""


def host_of(env):
    return env.bot.games


def session_in(env, channel) -> Session:
    """The running game of a channel or of its table's thread."""
    session = host_of(env).in_channel(channel.id)
    assert session is not None
    return session


def buttons(message: discord.Message) -> list[str]:
    """The labels of the buttons one can still press."""
    return [c.label for c in live_components(message) if isinstance(c, discord.Button)]


def fresh(place, message) -> discord.Message:
    """``message`` as it is now (after edits)."""
    return next(m for m in place.history() if m.id == message.id)


def boards(env, channel) -> list[discord.Message]:
    """The table messages (each with its board), oldest first."""
    return [m for m in table_messages(env, channel)
            if m.embeds and has_board(m)]


def has_board(message: discord.Message) -> bool:
    """Whether a message carries the board: an attachment, which Discord shows at the message's
    full width (an embed's image is shown small and height-capped)."""
    return any(a.filename == "board.png" for a in message.attachments)


def showing(env, channel) -> discord.Message:
    """The newest table message: the live one while the game runs."""
    shown = boards(env, channel)
    assert shown, "no table message"
    return shown[-1]


def pings(env, channel) -> list[discord.Message]:
    return [m for m in table_messages(env, channel) if m.content.startswith("⏰")]


def field(message: discord.Message, name: str) -> str:
    embed = message.embeds[0]
    return next((f.value or "" for f in embed.fields if f.name == name), "")


def results(env, channel) -> list[discord.Message]:
    """Messages carrying a game record."""
    return [m for m in table_messages(env, channel)
            if any(a.filename.endswith(".txt") for a in m.attachments)]


def calls(env, since: int) -> list[tuple[str, str]]:
    """The Discord calls on channels and messages (posts, edits, deletes) since ``since``."""
    return [(e.method, e.path) for e in env.http_requests[since:]
            if e.path.startswith("/channels/")]


def assert_calm(env, channel) -> None:
    """At most one message with live components; only the newest table message may have any;
    a game in a thread shows nothing in the channel but its lobby card."""
    live = [m for m in table_messages(env, channel) if live_components(m)]
    assert len(live) <= 1, f"{len(live)} messages with live components"
    for old in boards(env, channel)[:-1]:
        assert not live_components(old), "a superseded table message kept its components"
    if channel.threads:
        posted = [m for m in mine(env, channel.history()) if m.attachments
                  or m.content.startswith("⏰")]
        assert posted == [], "a game with a thread posts its table there, not in the channel"


def ephemeral_text(result) -> str:
    """The ephemeral answer of an interaction (its follow-ups, else its response)."""
    messages = result.followups or [result.response]
    messages = [m for m in messages if m is not None and m.content]
    assert messages, f"no answer: {result!r}"
    assert all(m.ephemeral for m in messages)
    return messages[-1].content


async def open_game(env, channel, creator, *joiners, ai_seats=0, **options):
    result = await creator.slash(channel, "game new", game="makemake", **options)
    lobby = result.response
    assert lobby is not None and not result.ephemeral
    assert lobby.embeds[0].title == "Make Make: new game"
    for member in joiners:
        joined = await member.click(lobby, label="Join")
        assert not joined.followups, joined.followups[0].content
    for _ in range(ai_seats):
        await creator.click(lobby, label="Add AI")
    return lobby


async def start(env, channel, creator, lobby) -> discord.Message:
    """Press Start: the lobby card says so and loses its buttons, and the table's first message
    (the board of the first stage) appears where the game lives. Returns that message."""
    before = len(boards(env, channel))
    result = await creator.click(lobby, label="Start")
    assert not result.followups, result.followups[0].content
    card = fresh(channel, lobby)
    assert card.embeds[0].title == "Make Make: started" and not card.components
    posted = boards(env, channel)[before:]
    assert len(posted) == 1, "starting posts the first board, once"
    first = posted[0]
    assert first.attachments[0].filename == "board.png"
    assert first.channel.id == session_in(env, channel).row.home_id
    assert_calm(env, channel)
    return first


async def play_first_legal(env, channel, members: dict[int, object]) -> str:
    """The pending human plays: a button of the live table if it offers some, else the first
    autocomplete choice through /play in the game's thread. Returns the line played."""
    session = session_in(env, channel)
    colour = session.pending()[0]
    seat = session.seat(colour)
    assert seat is not None and seat.user_id is not None
    member = members[seat.user_id]
    live = showing(env, channel)
    labels = buttons(live)
    if labels:
        result = await member.click(live, label=labels[0])
        assert not result.followups, result.followups[0].content
        assert result.response is None or result.response.id == live.id, "a click says nothing"
        return labels[0]
    place = home(channel)
    choices = await member.autocomplete(place, "play", "notation", "")
    assert 0 < len(choices) <= 25
    result = await member.slash(place, "play", notation=choices[0]["value"])
    assert ephemeral_text(result).startswith("Played: ")
    return str(choices[0]["value"]).rsplit(" @", 1)[0]


def public_words(env, channel) -> str:
    """Everything the table shows in text (contents and embeds), to look for secrets."""
    parts = []
    for message in table_messages(env, channel):
        parts.append(message.content)
        for embed in message.embeds:
            parts += [embed.title or "", embed.description or ""]
            parts += [f"{f.name} {f.value}" for f in embed.fields]
    return "\n".join(parts)


def sent(env, since: int) -> list[dict]:
    """The JSON of the messages the bot posted since ``since`` (to read their allowed
    mentions)."""
    return [e.json for e in env.http_requests[since:] if e.method == "POST"
            and e.path.startswith("/channels/") and e.path.endswith("/messages")
            and isinstance(e.json, dict)]


async def three_player_game_with_ai_and_restart_to_the_end(simcord_env, new_bot):
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
    session = session_in(env, channel)
    game_id = session.id
    assert [(s.colour, s.user_id, s.ai_level) for s in session.seats] == [
        ("red", alice.id, None), ("blue", bob.id, None), ("green", None, "greedy")]
    card = fresh(channel, lobby)
    assert card.embeds[0].fields[0].value.splitlines() == [
        f"Red ({alice.mention})", f"Blue ({bob.mention})", "Green (AI, standard)"]
    first = await start(env, channel, alice, lobby)

    # The table lives in a thread started from the lobby card, which links to it.
    [thread] = channel.threads
    assert thread.id == lobby.id and thread.name == f"Make Make #{game_id}"
    assert session_in(env, thread) is session_in(env, channel)
    assert session.row.thread_id == thread.id
    assert f"<#{thread.id}>" in field(fresh(channel, lobby), "Table")
    assert first.channel.id == thread.id
    embed = first.embeds[0]
    assert embed.title == f"Make Make #{game_id} · Round 1 · Red's turn"
    assert embed.image.url is None and has_board(first), "the board is shown at full width"
    assert embed.description.startswith("Now: ● **Red** (alice)")
    assert field(first, "Players (mark): points") == (
        "● **Red** (alice) 0 · ■ **Blue** (bob) 0 · ✚ **Green** (AI, standard) 0")

    played = 0
    restarted = False
    kept = None
    while (session := await host_of(env).get(game_id)).status == "running":
        if not restarted and played >= 2 and session.pending() == ("red",):
            # Mid-stage: red's turn is up; its message is edited by red's move after the restart.
            seq, view = session.seq, session.view()
            kept = showing(env, channel).id
            since = len(env.http_requests)
            await env.restart_bot(new_bot())
            restarted = True
            assert calls(env, since) == [], "the start-up reconcile finds nothing to change"
            again = session_in(env, thread)
            assert again is not session
            assert (again.seq, again.view()) == (seq, view)
            session = again
        stage = UI.stage(session.view())
        live = showing(env, channel)
        before = {m.id for m in table_messages(env, channel)}
        since = len(env.http_requests)
        await play_first_legal(env, channel, members)
        played += 1
        session = await host_of(env).get(game_id)
        new = [m for m in table_messages(env, channel) if m.id not in before]
        edited = ("PATCH", f"/channels/{thread.id}/messages/{live.id}") in calls(env, since)
        assert edited, "each move edits the message that was live"
        assert_calm(env, channel)
        assert "seed=" not in public_words(env, channel)
        if session.status != "running":
            assert new == results(env, channel), "the end posts only the result"
            assert showing(env, channel).id == live.id, "the end is shown on the live message"
            assert any(e.method == "PATCH" and e.path.endswith(f"/{live.id}")
                       and (e.json or {}).get("attachments") for e in env.http_requests[since:]), \
                "with the final board"
            break
        now = showing(env, channel)
        latest = step_lines(session, session.log[-1:], "en")[0]
        if kept is not None:
            assert live.id == kept, "after the restart the bot edits the same live message"
            assert now.id == kept or UI.stage(session.view()) != stage
            kept = None
        if UI.stage(session.view()) == stage:
            assert new == [], "a move within the stage posts nothing"
            assert now.id == live.id
            assert field(now, "This stage").splitlines()[-1] == latest
        else:
            assert new == [now], "a new stage posts one new message"
            old = fresh(thread, live)
            assert not old.components, "the previous stage's message loses its components"
            assert old.embeds[0].image.url is None and has_board(old)
            assert not old.embeds[0].description, "it no longer says who acts"
            assert field(old, "This stage")
            assert latest in field(now, "This stage")
            assert now.embeds[0].title.startswith(
                f"Make Make #{game_id} · Round {session.view()['round']} ")
        pending = session.seat(session.pending()[0])
        assert now.embeds[0].description.startswith(
            f"Now: {mark_symbol(pending.colour)} **{pending.colour.capitalize()}** "
            f"({pending.name})")
        assert played < 40, "round_limit=3 ends the game"
    assert restarted

    # The end: every component gone, the final board with the result, the card shows it, and
    # one result message with the record.
    assert not any(m.components for m in table_messages(env, channel))
    final = showing(env, channel)
    assert final.embeds[0].title == f"Make Make #{game_id} · final position"
    assert final.embeds[0].description.startswith("🏁 Game over (round limit reached)")
    assert final.attachments[0].filename == "board.png"
    [result] = results(env, channel)
    assert result.channel.id == thread.id
    assert result.content.startswith("🏁 Game over (round limit reached). Winner: ")
    [record] = result.attachments
    assert record.filename == f"makemake-{game_id}.txt"
    text = (await record.read()).decode()
    assert text == session.record()
    assert text.startswith(f"game makemake red blue green round_limit=3 seed={session.row.seed}\n")
    card = fresh(channel, lobby)
    assert card.embeds[0].title == "Make Make: finished" and not card.components
    assert field(card, "Result").startswith("🏁 Game over")
    assert not pings(env, channel), "players who keep playing are never pinged"

    # Showing the end is done once: another reconcile or a restart changes nothing.
    since = len(env.http_requests)
    env.bot.outbox.kick(game_id)
    await env.settle()
    await env.bot.outbox.reconcile_all()
    await env.restart_bot(new_bot())
    assert calls(env, since) == []
    assert len(results(env, channel)) == 1

    store = env.bot.games.store
    game = await store.game(game_id)
    assert game is not None and game.status == "finished"
    lines = await store.actions(game_id)
    assert any(line.startswith("green ") for line in lines), "the AI seat played"
    assert sum(line.startswith(("red ", "blue ")) for line in lines) >= played
    refused = await alice.slash(thread, "play", notation="pass")
    assert "no game" in ephemeral_text(refused)
    assert not env.bot.unexpected_errors


async def turn_timer_reminds_then_lets_the_ai_play_even_after_a_restart(simcord_env,
                                                                            settings,
                                                                            new_bot):
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
    since = len(env.http_requests)
    await env.advance_time(settings.timer_tick)
    [reminder] = pings(env, channel)
    deadline = int(clock().timestamp()) + 2 * 60
    assert reminder.content == (f"⏰ {alice.mention}: your turn in Make Make #{session.id}, on "
                                f"the table above. Time runs out <t:{deadline}:R>, then the AI "
                                "plays for you.")
    assert any(body.get("allowed_mentions") == {"users": [alice.id], "parse": []}
               for body in sent(env, since)), "the reminder notifies"
    since = len(env.http_requests)
    await env.advance_time(settings.timer_tick)
    assert pings(env, channel) == [reminder] and calls(env, since) == [], "one reminder per turn"

    clock.advance(2 * 60)
    await env.advance_time(settings.timer_tick)
    session = session_in(env, channel)
    assert session.pending() == ("blue",) and session.game.lines[0].startswith("red ")
    assert session.log[0].by == "timeout"
    assert "⌛ (time ran out, the AI played) ● **Red**" in field(showing(env, channel),
                                                              "This stage")
    [ping] = pings(env, channel)  # bob has been quiet since he joined
    assert ping.id != reminder.id and ping.content.startswith(f"⏰ {bob.mention}:")
    assert "Time runs out" not in ping.content

    await env.restart_bot(new_bot())  # the deadline is in the store
    clock.advance(10 * 60)
    await env.advance_time(settings.timer_tick)
    session = session_in(env, channel)
    assert session.pending() == ("red",)
    assert [line.split()[0] for line in session.game.lines] == ["red", "blue", "green"]
    assert [step.by for step in session.log] == ["timeout", "timeout", "ai"]
    assert_calm(env, channel)
    assert not env.bot.unexpected_errors
