"""Giants through the simulated Discord: the sealed bids made in DMs and on the seats' screens,
the prompts, and what each player was shown.

The restart during the bids here runs on both backends: ``tests/test_bot_hidden.py`` plays it
on SQLite, ``tests/test_bot_on_postgres.py`` on PostgreSQL."""

from __future__ import annotations

from typing import Any

import discord

from bot.games import game_ui
from bot.host.sessions import Session
from tests.helpers.bots import (
    close_dms,
    dm_messages,
    dm_prompt,
    live_components,
    live_table,
    table_messages,
)

OPEN_LABEL = "🔒 My screen & secret choice"
"""The table's 🔒 button while a secret choice is due (``🔒 My screen`` otherwise)."""

SCREEN_LABEL = "🔒 My screen"

HANDED_IN = "✅ Handed in"

DONE = "✅"


def session_in(env, channel) -> Session:
    session = env.bot.games.in_channel(channel.id)
    assert session is not None
    return session


def parts(message) -> list[dict[str, Any]]:
    """The components of a message (a discord.Message or an interaction's raw response)."""
    out = []
    for row in message.components:
        if isinstance(row, dict):
            out += row.get("components", [])
        else:
            out += [c.to_dict() for c in row.children]
    return out


def labels(message) -> list[str]:
    return [c["label"] for c in parts(message) if c.get("type") == 2]


def ids_of(message) -> list[str]:
    return [c["custom_id"] for c in parts(message) if c.get("custom_id")]


def ephemeral_text(result) -> str:
    """The last answer to an interaction, which must be ephemeral."""
    messages = [m for m in (result.followups or [result.response]) if m is not None
                and m.content]
    assert messages, f"no answer: {result!r}"
    assert all(m.ephemeral for m in messages), [m.content for m in messages]
    return messages[-1].content


def shown(result):
    """What an interaction showed its user: the last follow-up, else the response."""
    message = (result.followups or [result.response])[-1]
    assert message is not None, result
    return message


def in_dm(env, member, message_id: int) -> discord.Message:
    """A DM message as it is now (after edits)."""
    return next(m for m in member.user.dm_channel.history() if m.id == message_id)


def screens(env, member) -> list[discord.Message]:
    """The member's DM screen messages (one per game)."""
    return [m for m in dm_messages(env, member) if m.content.startswith("Your screen in")]


def prompts(env, member) -> list[discord.Message]:
    """Every secret-choice prompt the member got by DM, live or handed in."""
    return [m for m in dm_messages(env, member) if m.content.startswith("**Giants** in")
            or HANDED_IN in m.content or "aborted" in m.content or "Time ran out" in m.content]


def reacted(env, member, message: discord.Message) -> list[str]:
    """The reactions on a message the member typed in their DM (only the bot reacts)."""
    current = in_dm(env, member, message.id)
    return [str(r.emoji) for r in current.reactions for _ in range(r.count)]


def posts(env, since: int = 0) -> list[Any]:
    """Discord calls that create, edit or delete a message, from ``since`` on."""
    return [r for r in env.http_requests[since:] if "/messages" in r.path
            and r.method in ("POST", "PATCH", "DELETE")]


def texts(env, channel) -> list[str]:
    """The public words of the channel and thread, embeds and labels included."""
    out = []
    for message in table_messages(env, channel):
        out.append(message.content)
        for embed in message.embeds:
            out += [embed.title or "", embed.description or ""]
            out += [f"{f.name}: {f.value}" for f in embed.fields]
        out += labels(message)
    return out


async def open_giants(env, channel, creator, *joiners, ai_seats=0, options="round_limit=2",
                      **more) -> Session:
    result = await creator.slash(channel, "game new", game="giants", options=options, **more)
    lobby = result.response
    assert lobby is not None and not result.ephemeral, result
    assert lobby.embeds[0].title == "Giants: new game"
    for member in joiners:
        joined = await member.click(lobby, label="Join")
        assert not joined.followups, joined.followups[0].content
    for _ in range(ai_seats):
        await creator.click(lobby, label="Add AI")
    started = await creator.click(lobby, label="Start")
    assert not started.followups, started.followups[0].content
    assert started.response is not None and not started.response.components, \
        "the lobby card loses its buttons"
    return session_in(env, channel)


async def fill_bid(actor, message, markers: int = 0, workers: int = 0, chief: bool = False,
                   sorcerer: bool = False):
    """Work a bid form (a DM prompt or an ephemeral one) and submit it. Each pick edits the
    prompt in place and shows the bid so far; ``actor`` is the user in a DM, the member in the
    channel. Gives the result of Submit."""
    current = message
    wanted = [f"{markers}m"] + ([f"{workers}w"] if workers else []) \
        + (["chief"] if chief else []) + (["sorcerer"] if sorcerer else [])
    for field, value in (("f0", markers), ("f1", workers)):
        if value:
            select = next(i for i in ids_of(current) if f":{field}:" in i)
            result = await actor.select(current, [str(value)], custom_id=select)
            assert not result.followups, result.followups[0].content
            assert result.response is not None and result.response.id == message.id
            current = result.response
    for name, on in (("chief", chief), ("sorcerer", sorcerer)):
        if on:
            result = await actor.click(current, label=name)
            assert not result.followups, result.followups[0].content
            assert result.response is not None and result.response.id == message.id
            current = result.response
            assert f"✓ {name}" in labels(current)
    assert f"`bid {' '.join(wanted)}`" in current.content, current.content
    submitted = await actor.click(current, label="Submit")
    assert not submitted.followups, submitted.followups[0].content
    return submitted


async def bid_in_dm(env, member, markers: int = 0, **more) -> discord.Message:
    """Bid with the member's DM prompt; the prompt ends handed in, without components."""
    prompt = dm_prompt(env, member)
    assert prompt is not None, f"{member.name} has no DM prompt"
    await fill_bid(member.user, prompt, markers, **more)
    handed = in_dm(env, member, prompt.id)
    assert HANDED_IN in handed.content and "`" not in handed.content, "words, not notation"
    assert f": {game_ui('giants').move_words(f'bid {markers}m', 'en')}" in handed.content, \
        handed.content
    assert not handed.components
    assert dm_prompt(env, member) is None or dm_prompt(env, member).id != prompt.id
    return handed


async def type_in_dm(env, member, text: str) -> list[discord.Message]:
    """Type ``text`` in the member's DM; gives the bot's new DM messages."""
    before = {m.id for m in dm_messages(env, member)}
    await member.send_dm(text)
    return [m for m in dm_messages(env, member) if m.id not in before]


async def type_choice(env, member, text: str) -> None:
    """A typed secret choice: its one confirmation is a ✅ reaction (no text), and the prompt
    above it is handed in."""
    prompt = dm_prompt(env, member)
    assert prompt is not None, f"{member.name} has no DM prompt"
    before = {m.id for m in dm_messages(env, member)}
    typed = await member.send_dm(text)
    assert reacted(env, member, typed) == [DONE]
    new = [m for m in dm_messages(env, member) if m.id not in before]
    assert len(new) <= 1 and all(live_components(m) for m in new), \
        [m.content for m in new]  # no text: at most the prompt of a next secret decision
    handed = in_dm(env, member, prompt.id)
    assert HANDED_IN in handed.content and not handed.components, handed.content


async def open_screen(env, channel, member):
    """The table's 🔒 button: the member's screen and, when due, the prompt, ephemerally."""
    table = live_table(env, channel)
    label = OPEN_LABEL if OPEN_LABEL in labels(table) else SCREEN_LABEL
    result = await member.click(table, label=label)
    message = shown(result)
    assert message.ephemeral, message.content
    assert [a.filename for a in message.attachments] == ["screen.png"]
    return message


async def a_restart_during_the_bids_keeps_them_secret_and_the_forms_working(
        simcord_env, new_bot):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("restart")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    close_dms(env, cleo)
    session = await open_giants(env, channel, alice, bob, cleo, ai_seats=1)
    notes = [m for m in table_messages(env, channel) if "cannot send DMs to Green" in m.content]
    assert len(notes) == 1
    old_form = dm_prompt(env, bob)
    assert old_form is not None
    handed = await bid_in_dm(env, alice, 1, chief=True)
    shown_before = {m.id: (m.content, m.embeds[0].to_dict() if m.embeds else None)
                    for m in table_messages(env, channel)}
    dms_before = {who.name: [(m.id, m.content) for m in dm_messages(env, who)]
                  for who in (alice, bob)}
    calls = len(env.http_requests)

    await env.restart_bot(new_bot())
    again = session_in(env, channel)
    assert again is not session and again.pending() == ("blue", "green")
    assert again.view(None)["bids"]["red"] == "submitted"
    assert again.view("red")["my_bid"]["chief"] is True
    assert "red bid ?" in again.public_record() and "chief" not in again.public_record()
    assert again.dm_closed == {"green"}, "closed DMs are remembered across the restart"
    assert posts(env, calls) == [], "a restart posts, edits and deletes nothing"
    assert {m.id: (m.content, m.embeds[0].to_dict() if m.embeds else None)
            for m in table_messages(env, channel)} == shown_before
    assert {who.name: [(m.id, m.content) for m in dm_messages(env, who)]
            for who in (alice, bob)} == dms_before, "no second DM"
    assert in_dm(env, alice, handed.id).content == handed.content

    select = next(i for i in ids_of(old_form) if ":f0:" in i)  # the form from before
    picked = await bob.user.select(old_form, ["1"], custom_id=select)
    assert picked.response is not None and picked.response.id == old_form.id
    assert "`bid 1m`" in picked.response.content
    done = await bob.user.click(picked.response, label="Submit")
    assert not done.followups, done.followups[0].content
    retired = in_dm(env, bob, old_form.id)
    assert HANDED_IN in retired.content and ": bid 1 marker." in retired.content
    assert not retired.components
    assert again.pending() == ("green",)

    prompt = await open_screen(env, channel, cleo)
    assert "Sealed" not in prompt.content and any(":ok:" in i for i in ids_of(prompt))
    submitted = await cleo.click(prompt, label="Submit")
    assert HANDED_IN in shown(submitted).content and not shown(submitted).components
    assert again.kind() != "bid"
    assert "Bids revealed" in "\n".join(texts(env, channel))
    assert len([m for m in table_messages(env, channel)
                if "cannot send DMs" in m.content]) == 1, "the note is posted once per game"
    assert dm_messages(env, cleo) == []
    assert not env.bot.unexpected_errors
