"""Secret choices on the calm table (Giants sealed bids): the DM prompt and its form, typed bids,
closed DMs served by the table's 🔒 button, restarts, timeouts, aborts, and twin games that may
differ only where a player's secret is."""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Any

import simcord

from bot.host.sessions import Session
from bot.table.private import split_prefix
from tests.helpers.bots import (
    Bots,
    close_dms,
    dm_messages,
    dm_prompt,
    home,
    live_components,
    live_table,
    make_settings,
    table_messages,
)
from tests.helpers.hidden import (
    DONE,
    HANDED_IN,
    OPEN_LABEL,
    a_restart_during_the_bids_keeps_them_secret_and_the_forms_working,
    bid_in_dm,
    ephemeral_text,
    in_dm,
    open_giants,
    parts,
    prompts,
    reacted,
    screens,
    texts,
    type_choice,
    type_in_dm,
)

SEALED = re.compile(r"\bbid\b.*\b\d+m\b|\b\d+m\b.*\bbid\b|\d+ marker", re.IGNORECASE)
"""What a bid looks like in words or notation (the reveal's "N markers" included)."""


# --- finding things -----------------------------------------------------------------------------


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
        simcord_env, new_bot):
    await a_restart_during_the_bids_keeps_them_secret_and_the_forms_working(simcord_env, new_bot)


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
    assert answer.startswith("Played: send the sorcerer to the village (B10): recruit a worker")
    assert answer.endswith("\nAs notation: `sorcerer recruit`")
    assert "🔒 You gained: 1 worker" in answer
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
    assert ephemeral_text(result) == "Played: bid 1 marker, the chief\nAs notation: `bid 1m chief`"
    retired = in_dm(env, alice, form.id)
    assert HANDED_IN in retired.content and ": bid 1 marker, the chief." in retired.content
    assert not retired.components and dm_prompt(env, alice) is None
    public = "\n".join(texts(env, channel))
    assert "**Red** has sealed a bid" in public and "chief" not in public.lower()
    assert session.view(None)["bids"]["red"] == "submitted"
    assert [m.id for m in table_messages(env, channel)] == posted, "the live table is edited"
    assert not env.bot.unexpected_errors


async def test_when_the_time_runs_out_the_ai_bids_and_the_prompts_say_so(
        simcord_env, settings):
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
    assert "Time ran out" in retired.content and "the AI chose for you: bid " in retired.content
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
