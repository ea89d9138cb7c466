"""Secret choices through DMs (Giants sealed bids): forms, typed bids, closed DMs, restarts."""

from __future__ import annotations

import re

import discord

from bot import hidden
from bot.sessions import Session
from tests.test_bot_support import new_bot, settings, simcord_bot  # noqa: F401

OPEN_LABEL = "🔒 My screen & secret choice"
SEALED = re.compile(r"\bbid\b.*\b\d+m\b|\b\d+m\b.*\bbid\b|\d+ marker", re.IGNORECASE)
"""What a bid looks like in words or notation (the reveal's "N marker(s)" included)."""


def session_in(env, channel) -> Session:
    session = env.bot.games.in_channel(channel.id)
    assert session is not None
    return session


def bot_messages(env, channel) -> list[discord.Message]:
    return [m for m in channel.history() if m.author.id == env.bot.user.id
            and not m.flags.ephemeral]


def dms(env, member) -> list[discord.Message]:
    return [m for m in member.user.dm_channel.history() if m.author.id == env.bot.user.id]


def parts(message) -> list[dict]:
    """The components of a message (a discord.Message or a raw interaction response)."""
    out = []
    for row in message.components:
        if isinstance(row, dict):
            out += row.get("components", [])
        else:
            out += [c.to_dict() for c in row.children]
    return out


def labels(message) -> list[str]:
    return [c["label"] for c in parts(message) if c.get("type") == 2]


def custom_ids(message) -> list[str]:
    return [c["custom_id"] for c in parts(message) if c.get("custom_id")]


def latest_prompt(env, member) -> discord.Message:
    """The newest DM with a Submit button or action buttons (a secret-choice prompt)."""
    found = [m for m in dms(env, member) if any(i.startswith(("hbtn:", "hsel:"))
                                                for i in custom_ids(m))]
    assert found, "no prompt in the DMs"
    return found[-1]


def close_dms(env, member) -> None:
    """The member refuses DMs from server members: Discord answers 403, code 50007."""
    env.inject_error("POST", f"/channels/{member.user.dm_channel.id}/messages", status=403,
                     code=50007, message="Cannot send messages to this user", times=None)


def ephemeral_text(result) -> str:
    messages = [m for m in (result.followups or [result.response]) if m is not None
                and m.content]
    assert messages, f"no answer: {result!r}"
    assert all(m.ephemeral for m in messages)
    return messages[-1].content


async def open_giants(env, channel, creator, *joiners, ai_seats=0, options="round_limit=2",
                      **more):
    result = await creator.slash(channel, "game new", game="giants", options=options, **more)
    lobby = result.response
    assert lobby is not None and not result.ephemeral, result
    for member in joiners:
        joined = await member.click(lobby, label="Join")
        assert not joined.followups, joined.followups[0].content
    for _ in range(ai_seats):
        await creator.click(lobby, label="Add AI")
    started = await creator.click(lobby, label="Start")
    assert not started.followups, started.followups[0].content
    return session_in(env, channel)


async def bid_with_form(env, member, markers: int = 1, chief: bool = False) -> None:
    """Fill the DM bid form: pick the markers, maybe flip the chief, submit."""
    prompt = latest_prompt(env, member)
    select = next(i for i in custom_ids(prompt) if i.startswith("hsel:") and ":f0:" in i)
    picked = await member.user.select(prompt, [str(markers)], custom_id=select)
    assert picked.response is None or not picked.followups, picked
    prompt = latest_prompt(env, member)
    assert f"bid {markers}m" in prompt.content
    if chief:
        await member.user.click(prompt, label="chief")
        prompt = latest_prompt(env, member)
    await member.user.click(prompt, label="Submit")


async def test_split_prefix_names_a_game():
    assert hidden.split_prefix("#12 bid 0m") == (12, "bid 0m")
    assert hidden.split_prefix("12: bid 1m chief") == (12, "bid 1m chief")
    assert hidden.split_prefix("12 bid 0m") == (12, "bid 0m")
    assert hidden.split_prefix("bid 0m") == (None, "bid 0m")
    assert hidden.split_prefix("  BID 2m 1w ") == (None, "BID 2m 1w")


def public_texts(env, channel) -> list[str]:
    """Everything the channel shows anyone: texts, embeds, file names, button labels."""
    out = []
    for message in channel.history():
        if message.flags.ephemeral:
            continue
        out.append(message.content)
        out += [str(embed.to_dict()) for embed in message.embeds]
        out += [a.filename for a in message.attachments]
        out += labels(message)
    return out


async def test_no_public_message_or_record_shows_a_bid_before_the_reveal(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("sealed")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    session = await open_giants(env, channel, alice, bob, cleo, ai_seats=1)
    assert session.kind() == "bid"

    await bid_with_form(env, alice, markers=2, chief=True)
    await bob.send_dm("bid 1m 1w sorcerer")
    store = env.bot.games.store
    lines = await store.actions(session.id)
    assert "red bid 2m chief" in lines and "blue bid 1m 1w sorcerer" in lines
    assert session.record() is None, "no full record leaves the bot while the game runs"
    record = session.public_record()
    assert "red bid ?" in record and "blue bid ?" in record and "seed=" not in record
    assert not SEALED.search(record.replace("bid ?", "")), record

    for text in public_texts(env, channel):
        assert not SEALED.search(text), text
        assert "chief" not in text.lower() and "sorcerer" not in text.lower(), text
    public = session.view(None)
    assert public["bids"] == {"red": "submitted", "blue": "submitted", "green": "waiting",
                              "yellow": "submitted"}
    assert "2m" not in str(public) and "my_bid" not in public
    for member in (bob, cleo):  # the other players' DMs do not show alice's bid either
        assert all("2m chief" not in m.content for m in dms(env, member))
    assert session.view("blue")["my_bid"] == {"markers": 1, "workers": 1, "chief": False,
                                               "sorcerer": True}

    await cleo.send_dm("bid 0m")
    reveal = bot_messages(env, channel)[-1]
    assert "Bids revealed" in reveal.content
    assert "**Red** 2 marker(s), chief" in reveal.content
    assert "**Blue** 1 marker(s), 1 worker(s), sorcerer" in reveal.content
    assert reveal.attachments[0].filename == "board.png"
    assert not env.bot.unexpected_errors


async def test_typed_bids_and_refusals_change_nothing(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("refusals")
    alice, bob, cleo, dan = (guild.add_member(env.create_user(n))
                             for n in ("alice", "bob", "cleo", "dan"))
    session = await open_giants(env, channel, alice, bob, cleo)
    seq, view = session.seq, session.view()

    async def dm(member, text: str) -> str:
        before = len(dms(env, member))
        await member.send_dm(text)
        replies = dms(env, member)[before:]
        assert replies, f"no answer to {text!r}"
        return replies[0].content

    assert "only 2 markers" in await dm(alice, "bid 5m")
    assert "could not read" in await dm(bob, "bid lots")
    assert "no secret choice" in await dm(dan, "bid 0m")
    refused = await bob.slash(channel, "play", notation="place worker K8")
    assert "not allowed" in ephemeral_text(refused)
    wrong = await dan.click(bot_messages(env, channel)[-1], label=OPEN_LABEL)
    assert "not in this game" in ephemeral_text(wrong)
    assert (session.seq, session.view()) == (seq, view)

    # a typed bid retires the DM form; a second bid finds nothing to choose
    form = latest_prompt(env, bob)
    assert "Handed in" in await dm(bob, "BID 1M")
    assert "no secret choice" in await dm(bob, "bid 0m")
    retired = next(m for m in dms(env, bob) if m.id == form.id)
    assert "Handed in" in retired.content and custom_ids(retired) == []
    assert not env.bot.unexpected_errors


async def test_a_restart_during_the_bids_keeps_them_secret_and_the_forms_working(
        simcord_env, new_bot):  # noqa: F811
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("restart")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    close_dms(env, cleo)
    session = await open_giants(env, channel, alice, bob, cleo, ai_seats=1)
    old_form = latest_prompt(env, bob)
    alice_form = latest_prompt(env, alice)
    await bid_with_form(env, alice, markers=1, chief=True)
    posted = len(bot_messages(env, channel))
    prompts = {m.id for who in (alice, bob) for m in dms(env, who)}

    await env.restart_bot(new_bot())
    again = session_in(env, channel)
    assert again is not session and again.pending() == ("blue", "green")
    assert again.view(None)["bids"]["red"] == "submitted"
    assert again.view("red")["my_bid"]["chief"] is True
    assert len(bot_messages(env, channel)) == posted, "a restart posts nothing new"
    assert {m.id for who in (alice, bob) for m in dms(env, who)} == prompts, "no second DM"
    assert (await hidden.load(env.bot.games.store, again.id, "green")).dm_closed

    retired = next(m for m in dms(env, alice) if m.id == alice_form.id)
    assert "Handed in" in retired.content and custom_ids(retired) == []
    select = next(i for i in custom_ids(old_form) if ":f0:" in i)
    await bob.user.select(old_form, ["1"], custom_id=select)
    form = latest_prompt(env, bob)
    assert "`bid 1m`" in form.content
    done = await bob.user.click(form, label="Submit")
    assert not done.followups, done.followups[0].content
    assert again.pending() == ("green",)
    assert "cannot send DMs to Green" in bot_messages(env, channel)[-1].content, \
        "closed DMs are remembered across the restart"

    opened = await cleo.click(bot_messages(env, channel)[-1], label=OPEN_LABEL)
    assert "Sealed" not in opened.response.content and ":ok:" in str(custom_ids(opened.response))
    submitted = await cleo.click(opened.response, label="Submit")
    assert "Handed in" in submitted.response.content
    assert again.kind() != "bid"
    assert "Bids revealed" in "\n".join(m.content for m in bot_messages(env, channel)[-2:])
    assert not env.bot.unexpected_errors


async def test_several_games_waiting_need_a_game_number(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    north, south = guild.create_text_channel("north"), guild.create_text_channel("south")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    first = await open_giants(env, north, alice, bob, cleo)
    second = await open_giants(env, south, bob, alice, cleo)
    before = len(dms(env, alice))
    await alice.send_dm("bid 0m")
    [which] = [m.content for m in dms(env, alice)[before:]]
    assert f"#{first.id}" in which and f"#{second.id}" in which
    assert first.view(None)["bids"]["red"] == "waiting"
    await alice.send_dm(f"#{second.id} bid 1m")
    assert second.view(None)["bids"]["blue"] == "submitted"
    assert first.view(None)["bids"]["red"] == "waiting"
    await alice.send_dm("bid 0m")  # only one game waits now: no number needed
    assert first.view(None)["bids"]["red"] == "submitted"
    assert not env.bot.unexpected_errors


async def test_a_secret_gain_is_told_only_to_its_player(simcord_env):
    """The sorcerer's recruit: the channel learns the action, only the player what it gave."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("village")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    session = await open_giants(env, channel, alice, bob, cleo)
    for member in (alice, bob, cleo):
        await member.send_dm("bid 0m")
    assert session.kind() == "place" and session.pending() == ("red",)
    result = await alice.slash(channel, "play", notation="sorcerer recruit")
    answer = ephemeral_text(result)
    assert "Played: red sorcerer recruit" in answer and "🔒 You gained: 1 worker" in answer
    public = bot_messages(env, channel)[-1].content
    assert "sorcerer recruits a worker at B10" in public
    assert "gained" not in public and "🔒" not in public
    assert not env.bot.unexpected_errors


async def test_a_bid_played_in_the_channel_closes_the_dm_form(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("slash")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    session = await open_giants(env, channel, alice, bob, cleo)
    form = latest_prompt(env, alice)
    choices = await alice.autocomplete(channel, "play", "notation", "bid 1m")
    assert choices and all(c["value"].startswith("bid 1m") for c in choices)
    result = await alice.slash(channel, "play", notation="bid 1m chief")
    assert "Played: red bid 1m chief" in ephemeral_text(result)
    closed = next(m for m in dms(env, alice) if m.id == form.id)
    assert "closed" in closed.content and custom_ids(closed) == []
    public = bot_messages(env, channel)[-1]
    assert "Red** has sealed a bid" in public.content and not public.attachments
    assert "chief" not in public.content
    assert session.view(None)["bids"]["red"] == "submitted"
    assert not env.bot.unexpected_errors


async def test_when_the_time_runs_out_the_ai_bids_and_the_forms_close(simcord_env,
                                                                      settings):  # noqa: F811
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("clock")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    close_dms(env, cleo)
    session = await open_giants(env, channel, alice, bob, cleo, turn_minutes=5)
    form = latest_prompt(env, bob)
    await alice.send_dm("bid 0m")
    settings.clock.advance(5 * 60)
    await env.advance_time(settings.timer_tick)
    assert session.kind() != "bid"
    lines = session.game.lines
    assert any(line.startswith("blue bid") for line in lines)
    assert any(line.startswith("green bid") for line in lines)
    assert "⌛" in "\n".join(m.content for m in bot_messages(env, channel)[-2:])
    closed = next(m for m in dms(env, bob) if m.id == form.id)
    assert "closed" in closed.content and custom_ids(closed) == []
    assert not env.bot.unexpected_errors
