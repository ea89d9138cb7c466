"""Giants played end to end on the calm table: DM prompts and their forms, choices typed in a DM,
a player with closed DMs using the table's 🔒 button, the table's buttons and /play, to the end;
and the game's options in the lobby."""

from __future__ import annotations

from typing import Any

from bot.games.giants import UI
from render.i18n import LANGUAGES
from tests.helpers.bots import (
    close_dms,
    dm_messages,
    dm_prompt,
    home,
    live_components,
    live_table,
    table_messages,
)
from tests.helpers.hidden import (
    HANDED_IN,
    OPEN_LABEL,
    SCREEN_LABEL,
    ephemeral_text,
    fill_bid,
    ids_of,
    in_dm,
    labels,
    open_giants,
    open_screen,
    prompts,
    screens,
    shown,
    type_choice,
)

STAGES = {"bid", "choose", "place", "transport", "endround"}


async def answer_prompt(actor, message, kind: str) -> None:
    """A secret choice made with its prompt (a DM or an ephemeral one): a bid of one marker
    (and the chief when he is behind the screen), else the first action offered."""
    ids = ids_of(message)
    if kind == "bid":
        await fill_bid(actor, message, 1, chief="chief" in labels(message))
        return
    assert ids, message.content
    if any(":act:" in i for i in ids):
        result = await actor.select(message, ["0"], custom_id=next(i for i in ids
                                                                    if ":act:" in i))
    else:
        result = await actor.click(message, custom_id=next(i for i in ids if ":a0:" in i))
    assert not result.followups, result.followups[0].content


class Table:
    """Plays the humans' decisions through what the bot shows them, and checks after each one
    what every player sees."""

    def __init__(self, env, channel, session, alice, bob, cleo) -> None:
        self.env, self.channel, self.session = env, channel, session
        self.alice, self.bob, self.cleo = alice, bob, cleo
        self.by_colour = {s.colour: s for s in session.seats}
        self.members = {m.id: m for m in (alice, bob, cleo)}
        self.screen: dict[str, tuple[int, Any, int]] = {}
        """Per DM player: the screen message's id, what it shows (the screen key) and the id
        of its picture."""
        self.pictures: dict[str, set[int]] = {}
        """Per DM player: every picture their screen message has shown."""
        self.decisions: dict[str, list[tuple[int, int]]] = {"alice": [], "cleo": []}
        """Per DM player: the secret decisions they owed (the DM prompt each got)."""
        self.placed: set[tuple[int, str]] = set()
        self.took: set[tuple[int, str]] = set()
        self.glanced = False

    def colour_of(self, member) -> str:
        seat = self.session.seat_of(member.id)
        assert seat is not None
        return seat.colour

    def check(self) -> None:
        """What everyone sees now: one live table message, one screen per DM player edited in
        place (a new picture exactly when the screen changed), at most one live DM message."""
        env = self.env
        live_table(env, self.channel)
        assert sum(bool(live_components(m)) for m in table_messages(env, self.channel)) == 1
        for member in (self.alice, self.cleo):
            [screen] = screens(env, member)
            [picture] = screen.attachments
            assert picture.filename == "screen.png"
            colour = self.colour_of(member)
            key = UI.screen_key(self.session.view(colour), colour)
            before = self.screen.get(member.name)
            if before is not None:
                assert screen.id == before[0], "the screen message is edited in place"
                assert (picture.id != before[2]) == (key != before[1]), \
                    "a new picture exactly when the screen changes"
            self.screen[member.name] = (screen.id, key, picture.id)
            self.pictures.setdefault(member.name, set()).add(picture.id)
            prompt = dm_prompt(env, member)  # at most one live DM message
            owed = member in self.pending_humans() and UI.is_private(self.session.kind())
            assert (prompt is not None) == owed, (member.name, self.session.kind())
            if prompt is not None:
                turn = (self.session.seq, prompt.id)
                known = self.decisions[member.name]
                if not known or known[-1][1] != prompt.id:
                    known.append(turn)
        assert dm_messages(env, self.bob) == [], "closed DMs get no DM"

    def pending_humans(self) -> list:
        return [self.members[self.by_colour[c].user_id] for c in self.session.pending()
                if not self.by_colour[c].is_ai]

    async def secret(self, member, kind: str) -> None:
        if member is self.alice:
            prompt = dm_prompt(self.env, member)
            assert prompt is not None
            await answer_prompt(member.user, prompt, kind)
            handed = in_dm(self.env, member, prompt.id)
            assert HANDED_IN in handed.content and not handed.components, handed.content
        elif member is self.cleo:  # types one marker and the chief, or the first answer
            legal = [str(a) for a in self.session.legal(self.colour_of(member))]
            typed = "bid 1m chief" if kind == "bid" else legal[0]
            assert typed in legal, legal
            await type_choice(self.env, member, typed)
        else:
            assert OPEN_LABEL in labels(live_table(self.env, self.channel))
            prompt = await open_screen(self.env, self.channel, member)
            assert prompt.ephemeral and ids_of(prompt), prompt.content
            await answer_prompt(member, prompt, kind)
            done = next(m for m in home(self.channel).history(viewer=member)
                        if m.id == prompt.id)
            assert HANDED_IN in done.content and not done.components, done.content

    async def public(self, member, kind: str) -> None:
        """Choosing: the first statue button, then done. Placing: one figure through /play
        (its first suggestion), then the pass button. Transport: pass, so that unmoved statues
        go back to the quarry and their takers answer the end-of-round step (and no headdress
        ever moves: a fresh one may not)."""
        env, place = self.env, home(self.channel)
        table = live_table(env, self.channel)
        buttons = {i.split(":", 4)[4]: i for i in ids_of(table) if ":act:" in i}
        assert SCREEN_LABEL in labels(table), "the 🔒 button is on the table at every stage"
        if member is self.bob and not self.glanced:
            glance = await open_screen(env, self.channel, member)
            assert "no secret choice" in glance.content and not glance.components
            self.glanced = True
        turn = (self.session.view(None)["round"], self.colour_of(member))
        if kind == "place" and turn not in self.placed:
            self.placed.add(turn)
            choices = await member.autocomplete(place, "play", "notation", "place")
            assert 0 < len(choices) <= 25
            result = await member.slash(place, "play", notation=choices[0]["value"])
            assert "Played" in ephemeral_text(result), ephemeral_text(result)
            return
        if kind == "choose":  # one statue each, so that every player has one to answer for
            assert "done" in buttons, buttons
            pick = "done" if turn in self.took else next(iter(buttons))
            self.took.add(turn)
        else:
            assert "pass" in buttons, buttons
            pick = "pass"
        result = await member.click(table, custom_id=buttons[pick])
        assert result.response is None or not result.response.ephemeral
        assert not result.followups, result.followups[0].content


async def test_four_players_with_ai_and_closed_dms_play_to_the_end(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("rapa-nui")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    close_dms(env, bob)
    session = await open_giants(env, channel, alice, bob, cleo, ai_seats=1,
                                options="round_limit=2")
    assert [(s.colour, s.is_ai) for s in session.seats] == [
        ("red", False), ("blue", False), ("green", False), ("yellow", True)]
    [thread] = channel.threads
    assert thread.name == f"Giants #{session.id}"
    first = live_table(env, channel)
    assert first.channel.id == thread.id and first.attachments[0].filename == "board.png"
    assert first.embeds[0].title == f"Giants #{session.id} · Round 1 · sealed bids"
    notes = [m for m in table_messages(env, channel) if "cannot send DMs to Blue" in m.content]
    assert len(notes) == 1 and notes[0].channel.id == thread.id
    assert session.dm_closed == {"blue"}

    table = Table(env, channel, session, alice, bob, cleo)
    kinds: set[str] = set()
    for _ in range(400):
        if session.status != "running":
            break
        table.check()
        kind = session.kind()
        kinds.add(kind)
        member = table.pending_humans()[0]
        if UI.is_private(kind):
            await table.secret(member, kind)
        else:
            await table.public(member, kind)
    else:
        raise AssertionError("round_limit=2 ends the game")

    assert session.status == "finished" and env.bot.games.in_channel(channel.id) is None
    assert kinds >= STAGES, kinds
    lines = session.game.lines
    assert any(line.startswith("yellow bid") for line in lines), "the AI seat bid"
    for colour in ("red", "blue", "green"):
        assert sum(line.startswith(f"{colour} bid") for line in lines) == 2
        assert any(line.startswith(f"{colour} endround") for line in lines), colour

    # the private side: one screen per player, a DM per secret decision, all handed in
    for member in (alice, cleo):
        [screen] = screens(env, member)
        assert screen.id == table.screen[member.name][0]
        assert len(table.pictures[member.name]) >= 2 * len(STAGES), "a new screen per stage"
        handed = prompts(env, member)
        colour = table.colour_of(member)
        secret = [line for line in lines if line.split()[:2] in ([colour, "bid"],
                                                                 [colour, "endround"])]
        assert len(handed) == len(table.decisions[member.name]) == len(secret)
        assert all(HANDED_IN in m.content and not m.components for m in handed)
        assert len(dm_messages(env, member)) == 1 + len(handed), \
            "no DM but the screen and one prompt per secret decision"
    assert dm_messages(env, bob) == []
    tried = [r for r in env.http_requests if r.method == "POST"
             and r.path == f"/channels/{bob.user.dm_channel.id}/messages"]
    assert len(tried) == 1, "a closed DM is tried once, then remembered"

    # the table: a message per stage (the last one turned into the final board: a game that ends
    # after round 2's transport has no end-of-round stage), one result with the record, the card
    boards = [m for m in table_messages(env, channel)
              if m.embeds and any(a.filename == "board.png" for a in m.attachments)]
    titles = [m.embeds[0].title for m in boards]
    assert len(titles) == len(set(titles)), "a stage's message is edited, never posted twice"
    assert len(boards) == 2 * len(STAGES) - 1
    final = boards[-1]
    assert final.embeds[0].title == f"Giants #{session.id} · final position"
    assert "Game over" in final.embeds[0].description
    assert [a.filename for a in final.attachments] == ["board.png"]
    results = [m for m in table_messages(env, channel)
               if any(a.filename == f"giants-{session.id}.txt" for a in m.attachments)]
    assert len(results) == 1 and results[0].channel.id == thread.id
    assert "Game over" in results[0].content
    record = (await results[0].attachments[0].read()).decode()
    assert record == session.record() and "seed=" in record and "red bid 1m" in record
    lobby = next(m for m in channel.history() if m.embeds
                 and m.embeds[0].title == "Giants: finished")
    assert any(f.name == "Result" and "Game over" in f.value for f in lobby.embeds[0].fields)
    assert not [m for m in table_messages(env, channel) if live_components(m)]
    assert all(dm_prompt(env, m) is None for m in (alice, cleo))
    assert len([m for m in table_messages(env, channel)
                if "cannot send DMs" in m.content]) == 1, "the closed-DM note, once per game"
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
    assert labels(lobby) == ["Join", "Leave", "Add AI", "Start"]
    options = next(f.value for f in lobby.embeds[0].fields if f.name == "Options")
    assert options == "`quick=yes` `chief_split=no` `round_limit=3` `faces=0123`"
    refused = await alice.slash(guild.create_text_channel("other"), "game new", game="giants",
                                chief_alone=True)
    assert "has no option" in ephemeral_text(refused)
    assert not shown(refused).components
    assert not env.bot.unexpected_errors


def test_a_carved_headdress_is_told_to_wait_for_next_round() -> None:
    from bot.games.giants import UI
    from rules import giants

    state = giants.new(["red", "blue", "green"])
    state.phase, state.current = "place", "red"
    _, events = giants.apply(state, "red", giants.parse("sorcerer headdress"))
    texts = {lang: UI.describe(events[0], lang, {"red": "Red"}) for lang in LANGUAGES}
    assert texts["en"] == ("Red: the sorcerer carves a headdress at D8: hat1 (it waits in front"
                           " of the screen and cannot move until next round).")
    assert all("hat1" in text and "D8" in text for text in texts.values()), texts
    assert len(set(texts.values())) == len(LANGUAGES)
