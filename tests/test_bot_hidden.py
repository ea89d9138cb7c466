"""Secret choices on the calm table (Giants sealed bids): the DM prompt and its form, typed bids,
closed DMs served by the table's 🔒 button, restarts, timeouts, aborts, and twin games that may
differ only where a player's secret is."""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Any

import discord
import simcord

from bot.host.sessions import Session
from bot.table.private import split_prefix
from tests.test_bot_support import (
    Bots,
    close_dms,
    dm_messages,
    dm_prompt,
    home,
    live_components,
    live_table,
    make_settings,
    new_bot,  # noqa: F401
    settings,  # noqa: F401
    simcord_bot,  # noqa: F401
    table_messages,
)

OPEN_LABEL = "🔒 My screen & secret choice"
"""The table's 🔒 button while a secret choice is due (``🔒 My screen`` otherwise)."""
SCREEN_LABEL = "🔒 My screen"
HANDED_IN = "✅ Handed in"
DONE = "✅"
SEALED = re.compile(r"\bbid\b.*\b\d+m\b|\b\d+m\b.*\bbid\b|\d+ marker", re.IGNORECASE)
"""What a bid looks like in words or notation (the reveal's "N markers" included)."""


# --- finding things -----------------------------------------------------------------------------

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


async def files(message) -> list[tuple[str, str]]:
    """A message's attachments: file name and a hash of the bytes."""
    out = []
    for attachment in message.attachments:
        data = await attachment.read()
        assert data, attachment.filename
        out.append((attachment.filename,
                    hashlib.sha1(data, usedforsecurity=False).hexdigest()))
    return out


async def shown_to(message) -> list[Any]:
    """What a message shows: text, embeds, files (names and bytes), components, reactions."""
    return [message.content, [embed.to_dict() for embed in message.embeds],
            await files(message),
            [(c.get("label"), c.get("custom_id"), c.get("disabled", False))
             for c in parts(message)],
            [(str(r.emoji), r.count) for r in message.reactions]]


async def public_snapshot(env, channel, session: Session) -> list[Any]:
    """Everything the channel and the game's thread show anyone, and every call the bot made
    there (each post, edit and delete on the way, not only the result), with the public record
    and the public view."""
    public = {f"/channels/{place.id}/" for place in (channel, *channel.threads)}
    calls = [(r.method, r.path, {k: v for k, v in r.json.items() if k != "nonce"}
              if isinstance(r.json, dict) else r.json) for r in env.http_requests
             if any(r.path.startswith(p) for p in public)]  # a nonce is random, never shown
    return [[await shown_to(m) for m in table_messages(env, channel)], calls,
            session.public_record(), session.view(None)]


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


# --- acting -------------------------------------------------------------------------------------

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
    assert HANDED_IN in handed.content and f"`bid {markers}m" in handed.content, handed.content
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


# --- tests --------------------------------------------------------------------------------------

def test_split_prefix_names_a_game():
    assert split_prefix("#12 bid 0m") == (12, "bid 0m")
    assert split_prefix("12: bid 1m chief") == (12, "bid 1m chief")
    assert split_prefix("12 bid 0m") == (12, "bid 0m")
    assert split_prefix("bid 0m") == (None, "bid 0m")
    assert split_prefix("  BID 2m 1w ") == (None, "BID 2m 1w")


async def twin(tmp_path, name: str, red_bid: dict[str, Any]) -> dict[str, Any]:
    """One of two twin games: the same seed, players and moves, except Red's sealed bid.
    Gives the public snapshots after each secret step and what the reveal showed."""
    bots = Bots(make_settings(tmp_path / f"{name}.sqlite3"))
    out: dict[str, Any] = {"snapshots": []}
    logged = Logged()
    logger = logging.getLogger("bot")
    level = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(logged)
    try:
        async with simcord.run(bots()) as env:
            guild = env.create_guild()
            channel = guild.create_text_channel("sealed")
            alice, bob, cleo = (guild.add_member(env.create_user(n))
                                for n in ("alice", "bob", "cleo"))
            session = await open_giants(env, channel, alice, bob, cleo, ai_seats=1)
            assert session.kind() == "bid"
            out["snapshots"].append(await public_snapshot(env, channel, session))
            await bid_in_dm(env, alice, **red_bid)
            out["snapshots"].append(await public_snapshot(env, channel, session))
            await type_choice(env, bob, "bid 1m 1w sorcerer")
            out["snapshots"].append(await public_snapshot(env, channel, session))
            out["before"] = texts(env, channel)
            out["logs"] = list(logged.lines)
            out["others"] = [[await shown_to(m) for m in dm_messages(env, who)]
                             for who in (bob, cleo)]
            lines = await env.bot.games.store.log(session.id)
            out["lines"] = [row.line for row in lines]
            out["record"] = session.public_record()
            out["record_red"] = session.public_record("red")
            out["full"] = session.record()
            out["views"] = (session.view(None), session.view("blue"))

            await type_choice(env, cleo, "bid 0m")
            assert session.kind() != "bid"
            out["after"] = texts(env, channel)
            out["record_after"] = session.public_record()
            assert not env.bot.unexpected_errors
    finally:
        await bots.close()
        logger.removeHandler(logged)
        logger.setLevel(level)
    return out


class Logged(logging.Handler):
    """Every line the bot's loggers write (DEBUG and up), as an admin's log would show it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.name}: {record.getMessage()}")


async def test_twin_games_differing_in_one_secret_bid_look_the_same_until_the_reveal(tmp_path):
    one = await twin(tmp_path, "one", {"markers": 2, "chief": True})
    two = await twin(tmp_path, "two", {"markers": 1})

    assert "red bid 2m chief" in one["lines"] and "red bid 1m" in two["lines"]
    assert "blue bid 1m 1w sorcerer" in one["lines"]
    for a, b in zip(one["snapshots"], two["snapshots"], strict=True):
        assert a == b, "a public output differs between the twins before the reveal"
    assert one["others"] == two["others"], "the other players' DMs differ"
    assert one["logs"], "the bot logs while the twins play"
    assert one["logs"] == two["logs"], "the log differs between the twins before the reveal"
    assert one["record"] == two["record"]
    record = one["record"]
    assert "red bid ?" in record and "blue bid ?" in record and "seed=" not in record
    assert not SEALED.search(record.replace("bid ?", "")), record
    assert "red bid 2m chief" in one["record_red"] and "blue bid ?" in one["record_red"]
    assert one["full"] is None, "no full record leaves the bot while the game runs"
    public, blue = one["views"]
    assert public["bids"] == {"red": "submitted", "blue": "submitted", "green": "waiting",
                              "yellow": "submitted"}
    assert "my_bid" not in public
    assert blue["my_bid"] == {"markers": 1, "workers": 1, "chief": False, "sorcerer": True}
    assert len(one["snapshots"][-1][1]) > len(one["snapshots"][0][1]), "the table moved on"
    shown_before = "\n".join(one["before"])
    assert "**Red** has sealed a bid" in shown_before
    assert not SEALED.search(shown_before), shown_before
    assert "chief" not in shown_before.lower() and "sorcerer" not in shown_before.lower()

    revealed = "\n".join(one["after"])
    assert "Bids revealed" in revealed
    assert "**Red** 2 markers, chief" in revealed
    assert "**Blue** 1 marker, 1 worker, sorcerer" in revealed
    assert "**Red** 1 marker;" in "\n".join(two["after"])
    assert "red bid 2m chief" in one["record_after"]
    assert "red bid 1m" in two["record_after"]


async def test_typed_bids_help_and_refusals(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("refusals")
    alice, bob, cleo, dan = (guild.add_member(env.create_user(n))
                             for n in ("alice", "bob", "cleo", "dan"))
    session = await open_giants(env, channel, alice, bob, cleo)
    seq, view = session.seq, session.view()

    async def refused(member, text: str) -> str:
        [reply] = await type_in_dm(env, member, text)
        assert not reply.components
        return reply.content

    help_text = await refused(cleo, "help")
    assert f"game #{session.id}" in help_text and "`bid 0m`" in help_text
    assert f"`#{session.id} bid 0m`" in help_text
    too_many = await refused(alice, "bid 5m")
    assert "not allowed" in too_many and "only 2 tribe markers" in too_many
    assert "Did you mean `bid 2m`" in too_many
    assert "could not read" in await refused(bob, "bid lots")
    assert "no secret choice" in await refused(dan, "bid 0m")
    assert "no secret choice" in await refused(dan, "help")
    board = await bob.slash(home(channel), "play", notation="place worker K8")
    answer = ephemeral_text(board)
    assert "not allowed" in answer and ("Did you mean" in answer or "for example" in answer)
    stranger = await dan.click(live_table(env, channel), label=OPEN_LABEL)
    assert "not in this game" in ephemeral_text(stranger)
    assert (session.seq, session.view()) == (seq, view), "a refusal changes nothing"
    for member in (alice, bob):  # no reaction on a refused choice: the reply says why
        typed = [m for m in member.user.dm_channel.history() if m.author.id == member.id]
        assert all(reacted(env, member, m) == [] for m in typed)

    await type_choice(env, alice, "bid 2m 1w chief")
    assert session.view("red")["my_bid"] == {"markers": 2, "workers": 1, "chief": True,
                                              "sorcerer": False}
    assert "no secret choice" in await refused(alice, "bid 0m")
    await type_choice(env, bob, f"#{session.id} bid 0m")
    assert session.pending() == ("green",)
    assert "no secret choice" in await refused(bob, f"#{session.id} bid 1m")
    await type_choice(env, cleo, "BID 1M")
    assert session.kind() != "bid"
    for member in (alice, bob, cleo):
        assert dm_prompt(env, member) is None
        assert len(screens(env, member)) == 1 and len(prompts(env, member)) == 1
    assert not env.bot.unexpected_errors


async def test_a_restart_during_the_bids_keeps_them_secret_and_the_forms_working(
        simcord_env, new_bot):  # noqa: F811
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
    assert HANDED_IN in retired.content and "`bid 1m`" in retired.content
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


async def test_several_games_waiting_need_a_game_number(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    north, south = guild.create_text_channel("north"), guild.create_text_channel("south")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    first = await open_giants(env, north, alice, bob, cleo)
    second = await open_giants(env, south, bob, alice, cleo)
    assert len(screens(env, alice)) == 2, "one screen message per game"
    [which] = await type_in_dm(env, alice, "bid 0m")
    assert f"#{first.id}" in which.content and f"#{second.id}" in which.content
    assert first.view(None)["bids"]["red"] == "waiting"
    assert second.view(None)["bids"]["blue"] == "waiting"
    typed = await alice.send_dm(f"#{second.id} bid 1m")
    assert reacted(env, alice, typed) == [DONE]
    assert second.view(None)["bids"]["blue"] == "submitted"
    assert first.view(None)["bids"]["red"] == "waiting"
    handed = [m for m in prompts(env, alice) if HANDED_IN in m.content]
    assert len(handed) == 1 and f"game #{second.id}" in handed[0].content
    live = dm_prompt(env, alice)
    assert live is not None and f"game #{first.id}" in live.content, \
        "the other game's prompt is the one live DM message"
    typed = await alice.send_dm("bid 0m")  # only one game waits now: no number needed
    assert reacted(env, alice, typed) == [DONE]
    assert first.view(None)["bids"]["red"] == "submitted"
    assert dm_prompt(env, alice) is None
    assert not env.bot.unexpected_errors


async def test_a_secret_gain_is_told_only_to_its_player(simcord_env):
    """The sorcerer's recruit: the table learns the action, only the player what it gave."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("village")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    session = await open_giants(env, channel, alice, bob, cleo)
    for member in (alice, bob, cleo):
        await type_choice(env, member, "bid 0m")
    assert session.kind() == "place" and session.pending() == ("red",)
    result = await alice.slash(home(channel), "play", notation="sorcerer recruit")
    answer = ephemeral_text(result)
    assert "Played: `sorcerer recruit`" in answer and "🔒 You gained: 1 worker" in answer
    public = "\n".join(texts(env, channel))
    assert "sorcerer recruits a worker at B10" in public
    assert "gained" not in public and "🔒 You" not in public
    assert all("gained" not in m.content for who in (bob, cleo) for m in dm_messages(env, who))
    assert not env.bot.unexpected_errors


async def test_a_bid_played_with_slash_hands_in_the_dm_prompt(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("slash")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    session = await open_giants(env, channel, alice, bob, cleo)
    form = dm_prompt(env, alice)
    assert form is not None
    posted = [m.id for m in table_messages(env, channel)]
    choices = await alice.autocomplete(home(channel), "play", "notation", "bid 1m")
    assert choices and all(c["value"].startswith("bid 1m") for c in choices)
    result = await alice.slash(home(channel), "play", notation="bid 1m chief")
    assert "Played: `bid 1m chief`" in ephemeral_text(result)
    retired = in_dm(env, alice, form.id)
    assert HANDED_IN in retired.content and "`bid 1m chief`" in retired.content
    assert not retired.components and dm_prompt(env, alice) is None
    public = "\n".join(texts(env, channel))
    assert "**Red** has sealed a bid" in public and "chief" not in public.lower()
    assert session.view(None)["bids"]["red"] == "submitted"
    assert [m.id for m in table_messages(env, channel)] == posted, "the live table is edited"
    assert not env.bot.unexpected_errors


async def test_when_the_time_runs_out_the_ai_bids_and_the_prompts_say_so(
        simcord_env, settings):  # noqa: F811
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("clock")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    close_dms(env, cleo)
    session = await open_giants(env, channel, alice, bob, cleo, turn_minutes=5)
    form = dm_prompt(env, bob)
    assert form is not None
    await type_choice(env, alice, "bid 0m")

    settings.clock.advance(4 * 60)  # the reminder: a ping for those still to bid
    await env.advance_time(settings.timer_tick)
    [ping] = [m for m in table_messages(env, channel) if m.content.startswith("⏰")]
    assert f"<@{bob.id}>" in ping.content and f"<@{cleo.id}>" in ping.content
    assert f"<@{alice.id}>" not in ping.content and "DMs" in ping.content

    settings.clock.advance(60)
    await env.advance_time(settings.timer_tick)
    assert session.kind() != "bid"
    lines = session.game.lines
    assert any(line.startswith("blue bid") for line in lines)
    assert any(line.startswith("green bid") for line in lines)
    public = "\n".join(texts(env, channel))
    assert "⌛" in public and "Bids revealed" in public
    assert ping.id not in {m.id for m in table_messages(env, channel)}, \
        "the ping goes once they have acted"
    for nudge in [m for m in table_messages(env, channel) if m.content.startswith("⏰")]:
        due = {s.user_id for s in session.seats if s.colour in session.pending()}
        assert set(map(int, re.findall(r"<@(\d+)>", nudge.content))) <= due
    retired = in_dm(env, bob, form.id)
    assert "Time ran out" in retired.content and "the AI chose `bid" in retired.content
    assert not retired.components
    assert not env.bot.unexpected_errors


async def test_an_abort_mid_bid_tells_the_open_prompts(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("abort")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    session = await open_giants(env, channel, alice, bob, cleo)
    handed = await bid_in_dm(env, alice, 1)
    open_forms = {who.name: dm_prompt(env, who) for who in (bob, cleo)}
    assert all(open_forms.values())
    table = live_table(env, channel)

    aborted = await alice.slash(home(channel), "game abort")
    assert aborted.response is not None and not aborted.ephemeral
    assert "aborted" in aborted.response.content
    assert session.status == "aborted"
    for who in (bob, cleo):
        prompt = in_dm(env, who, open_forms[who.name].id)
        assert "This game was aborted" in prompt.content and not prompt.components
        assert dm_prompt(env, who) is None
    assert in_dm(env, alice, handed.id).content == handed.content
    assert not [m for m in table_messages(env, channel) if live_components(m)], \
        "the table loses its components"
    assert any(m.id == table.id for m in table_messages(env, channel))
    assert session.kind() == "bid" and session.view(None)["bids"]["blue"] == "waiting"
    assert not env.bot.unexpected_errors
