"""Giants played end to end through Discord: DM bid forms, typed DM bids, a player with closed
DMs using the channel's private button, statue choices with buttons, /play, to the end."""

from __future__ import annotations

from bot import hidden
from tests.test_bot_hidden import (
    OPEN_LABEL,
    bot_messages,
    close_dms,
    custom_ids,
    dms,
    ephemeral_text,
    labels,
    latest_prompt,
    open_giants,
)
from tests.test_bot_support import new_bot, settings, simcord_bot  # noqa: F401


async def answer_by_form(env, member, session) -> None:
    """Alice uses the DM prompt: the bid form (one marker and the chief, then Submit), or
    the first offered action of another secret choice."""
    prompt = latest_prompt(env, member)
    ids = custom_ids(prompt)
    if any(":ok:" in i for i in ids):
        markers = next(i for i in ids if ":f0:" in i)
        await member.user.select(prompt, ["1"], custom_id=markers)
        prompt = latest_prompt(env, member)
        assert "`bid 1m`" in prompt.content
        if "chief" in labels(prompt):
            await member.user.click(prompt, label="chief")
            prompt = latest_prompt(env, member)
            assert "`bid 1m chief`" in prompt.content and "✓ chief" in labels(prompt)
        result = await member.user.click(prompt, label="Submit")
    elif any(":act:" in i for i in ids):
        result = await member.user.select(prompt, ["0"], custom_id=ids[0])
    else:
        result = await member.user.click(prompt, custom_id=ids[0])
    assert not result.followups, result.followups[0].content


async def answer_by_typing(env, member, session, colour) -> None:
    """Cleo types the first legal action into her DM."""
    line = str(session.legal(colour)[0])
    before = len(dms(env, member))
    await member.send_dm(line)
    replies = dms(env, member)[before:]
    assert any("Handed in" in m.content for m in replies), [m.content for m in replies]


def latest_ephemeral(channel, member):
    return [m for m in channel.history(viewer=member) if m.flags.ephemeral][-1]


async def answer_in_channel(env, channel, member) -> None:
    """Bob's DMs are closed: the channel's private button opens the same prompt for him, as
    an ephemeral message; he bids one marker and the chief, or takes the first answer."""
    opened = await member.click(bot_messages(env, channel)[-1], label=OPEN_LABEL)
    form = opened.response
    assert form is not None and form.ephemeral
    assert [a.filename for a in form.attachments] == ["screen.png"]
    ids = custom_ids(form)
    assert ids, form.content
    if any(":ok:" in i for i in ids):
        await member.select(form, ["1"], custom_id=next(i for i in ids if ":f0:" in i))
        form = latest_ephemeral(channel, member)
        if "chief" in labels(form):
            await member.click(form, label="chief")
            form = latest_ephemeral(channel, member)
        assert "`bid 1m" in form.content
        result = await member.click(form, label="Submit")
    elif any(":act:" in i for i in ids):
        result = await member.select(form, ["0"], custom_id=ids[0])
    else:
        result = await member.click(form, custom_id=ids[0])
    assert not result.followups, result.followups[0].content
    assert "Handed in" in latest_ephemeral(channel, member).content


async def play_public(env, channel, member, session, colour, placed: set[str]) -> str:
    """Choosing: the first button. Placement: one figure through /play (its first
    suggestion), then the pass button. Transport: pass, so unmoved statues go back to the
    quarry and their takers answer the end-of-round step."""
    last = bot_messages(env, channel)[-1]
    buttons = {i.split(":", 3)[3]: i for i in custom_ids(last) if i.startswith("play:")}
    kind = session.kind()
    if kind == "place" and colour not in placed:
        placed.add(colour)
        choices = await member.autocomplete(channel, "play", "notation", "place")
        assert 0 < len(choices) <= 25
        result = await member.slash(channel, "play", notation=choices[0]["value"])
        assert "Played" in ephemeral_text(result), ephemeral_text(result)
        return choices[0]["value"]
    if kind == "choose":
        assert "done" in buttons
        pick = next(iter(buttons))
    else:
        assert "pass" in buttons, buttons
        pick = "pass"
    result = await member.click(last, custom_id=buttons[pick])
    assert not result.followups, result.followups[0].content
    return pick


async def test_four_players_with_ai_and_closed_dms_play_to_the_end(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("rapa-nui")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    close_dms(env, bob)
    session = await open_giants(env, channel, alice, bob, cleo, ai_seats=1,
                                options="round_limit=2")
    by_colour = {s.colour: s for s in session.seats}
    assert [(s.colour, s.is_ai) for s in session.seats] == [
        ("red", False), ("blue", False), ("green", False), ("yellow", True)]
    first = bot_messages(env, channel)[-1]
    assert first.attachments[0].filename == "board.png"
    assert "cannot send DMs to Blue" in first.content and OPEN_LABEL in labels(first)
    assert (await hidden.load(env.bot.games.store, session.id, "blue")).dm_closed
    assert [a.filename for a in dms(env, alice)[0].attachments] == ["screen.png"]

    members = {alice.id: alice, bob.id: bob, cleo.id: cleo}
    kinds_seen: set[str] = set()
    placed: set[str] = set()
    for _ in range(400):
        if env.bot.games.in_channel(channel.id) is None:
            break
        kind = session.kind()
        kinds_seen.add(kind)
        if kind == "bid":
            placed.clear()
        colour = session.pending()[0]
        member = members[by_colour[colour].user_id]
        if kind in ("bid", "endround"):
            if member is alice:
                await answer_by_form(env, alice, session)
            elif member is cleo:
                await answer_by_typing(env, cleo, session, colour)
            else:
                await answer_in_channel(env, channel, bob)
        else:
            await play_public(env, channel, member, session, colour, placed)
    else:
        raise AssertionError("round_limit=2 ends the game")

    assert {"bid", "choose", "place", "transport", "endround"} <= kinds_seen
    final = bot_messages(env, channel)[-1]
    assert "Game over" in final.content
    assert {a.filename for a in final.attachments} == {"board.png", f"giants-{session.id}.txt"}
    lines = await env.bot.games.store.actions(session.id)
    assert any(line.startswith("yellow bid") for line in lines), "the AI seat bid"
    for colour in ("red", "blue", "green"):
        assert sum(line.startswith(f"{colour} bid") for line in lines) == 2
    screens = [m for m in dms(env, alice) if m.attachments]
    assert len(screens) >= 4, "a fresh screen after each phase"
    assert dms(env, bob) == []
    assert not env.bot.unexpected_errors


async def test_giants_options_in_the_lobby(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("options")
    alice = guild.add_member(env.create_user("alice"))
    result = await alice.slash(channel, "game new", game="giants", quick=True,
                               chief_split=False, round_limit=3, options="faces=0123")
    lobby = result.response
    assert lobby.embeds[0].title == "Giants: new game"
    options = next(f.value for f in lobby.embeds[0].fields if f.name == "Options")
    assert options == "quick=yes chief_split=no round_limit=3 faces=0123"
    refused = await alice.slash(guild.create_text_channel("other"), "game new", game="giants",
                                chief_alone=True)
    assert "has no option" in ephemeral_text(refused)
    assert not env.bot.unexpected_errors


def test_a_carved_headdress_is_told_to_wait_for_next_round() -> None:
    from bot.games.giants import UI
    from rules import giants

    state = giants.new(["red", "blue", "green"])
    state.phase, state.current = "place", "red"
    _, events = giants.apply(state, "red", giants.parse("sorcerer headdress"))
    texts = {lang: UI.describe(events[0], lang, {"red": "Red"}) for lang in ("en", "es", "zh",
                                                                             "ru")}
    assert texts["en"] == ("Red: the sorcerer carves a headdress at D8: hat1 (it waits in front"
                           " of the screen and cannot move until next round).")
    assert all("hat1" in text and "D8" in text for text in texts.values()), texts
    assert len(set(texts.values())) == 4
