"""Giganten played end to end through Discord: card, build, shipping and bid buttons in the
channel, the payment form by DM (or ephemerally for closed DMs), a failed bluff, a restart in
the middle of an auction, and no licence value or unseen tile value in any public output."""

from __future__ import annotations

import random
import re
from typing import Any

import discord

import render.giganten
from bot.games.giganten import UI, card_text
from bot.sessions import Session, Step
from rules import ai
from rules.giganten.board import MAX_BID
from tests.test_bot_support import new_bot, settings, simcord_bot  # noqa: F401

DM_CLOSED = {"status": 403, "code": 50007, "message": "Cannot send messages to this user"}


def session_in(env, channel) -> Session:
    session = env.bot.games.in_channel(channel.id)
    assert session is not None
    return session


def bot_messages(env, channel) -> list[discord.Message]:
    return [m for m in channel.history() if m.author.id == env.bot.user.id
            and not m.flags.ephemeral]


def custom_ids(message: Any) -> list[str]:
    """Every component id of a message, or of a response's raw component rows."""
    out = []
    for row in message.components:
        children = row.children if hasattr(row, "children") else row.get("components", [])
        for c in children:
            cid = c.custom_id if hasattr(c, "custom_id") else c.get("custom_id")
            if cid:
                out.append(cid)
    return out


def ephemeral_text(result) -> str:
    messages = [m for m in (result.followups or [result.response]) if m is not None and m.content]
    assert messages, f"no answer: {result!r}"
    return messages[-1].content


def assert_no_refusal(result) -> None:
    for message in result.followups:
        assert not message.ephemeral or "not allowed" not in message.content, message.content
        assert "out of date" not in message.content, message.content
        assert "not your turn" not in message.content, message.content
        assert "went wrong" not in message.content, message.content


async def open_game(env, channel, creator, *joiners, ai_seats: int = 0):
    result = await creator.slash(channel, "game new", game="giganten")
    lobby = result.response
    assert lobby is not None and not result.ephemeral, ephemeral_text(result)
    for member in joiners:
        await member.click(lobby, label="Join")
    for _ in range(ai_seats):
        await creator.click(lobby, label="Add AI")
    started = await creator.click(lobby, label="Start")
    assert not started.followups, started.followups[0].content
    return lobby


class Player:
    """Drives the humans: the greedy AI picks each move (from that seat's own view only) and
    the test plays it through the component a person would use."""

    def __init__(self, env, channel, members: dict[int, Any], new_bot=None) -> None:  # noqa: F811
        self.env, self.channel, self.members, self.new_bot = env, channel, members, new_bot
        self.rng = random.Random(5)
        self.bluffed = False
        self.restarted_in_auction = False
        self.used: set[str] = set()
        """Which paths were taken (button, select, modal, slash, dm, ephemeral...)."""

    def last(self) -> discord.Message:
        return bot_messages(self.env, self.channel)[-1]

    async def step(self) -> None:
        session = session_in(self.env, self.channel)
        colour = session.pending()[0]
        seat = session.seat(colour)
        assert seat is not None and seat.user_id is not None
        member = self.members[seat.user_id]
        decision = session.view()["decision"]
        action = str(ai.choose(session.module, session.game.state, colour, "greedy", self.rng))
        if decision == "bid":
            await self.bid(session, member, action)
        elif decision == "sell":
            await self.sell(session, member, action)
        elif decision == "produce":
            await self.produce(session, member, action)
        elif decision in ("take", "build") or action == "done":
            await self.click(member, f"gg:{session.id}:{session.seq}:act:{action}")
        else:
            await self.slash(member, action)

    async def click(self, member, custom_id: str, message=None) -> Any:
        message = message or self.last()
        assert custom_id in custom_ids(message), (custom_id, custom_ids(message))
        result = await member.click(message, custom_id=custom_id)
        assert_no_refusal(result)
        self.used.add("button")
        return result

    async def slash(self, member, action: str) -> None:
        if action.split()[0] in ("drive", "peek") and "autocomplete" not in self.used:
            typed = " ".join(action.split()[:2])
            choices = await member.autocomplete(self.channel, "play", "notation", typed)
            assert choices and all(c["value"].lower().startswith(typed.lower())
                                   for c in choices)
            self.used.add("autocomplete")
        result = await member.slash(self.channel, "play", notation=action)
        assert "Played" in ephemeral_text(result), ephemeral_text(result)
        self.used.add("slash")

    async def produce(self, session: Session, member, action: str) -> None:
        legal = [str(a) for a in session.legal(session.pending()[0])]
        index = legal.index(action)
        default = f"gg:{session.id}:{session.seq}:pick:{index}"
        message = self.last()
        if default in custom_ids(message):
            await self.click(member, default)
            self.used.add("produce_default")
            return
        select = f"ggs:{session.id}:{session.seq}:sel"
        if select in custom_ids(message):
            options = [o for row in message.components for c in row.children
                       if isinstance(c, discord.SelectMenu) for o in c.options]
            if f"#{index}" in {o.value for o in options}:
                result = await member.select(message, [f"#{index}"], custom_id=select)
                assert_no_refusal(result)
                self.used.add("produce_select")
                return
        await self.slash(member, action)

    async def bid(self, session: Session, member, action: str) -> None:
        auction = session.view()["auction"]
        high, seq = auction["high_bid"], session.seq
        message = self.last()
        if self.new_bot is not None and not self.restarted_in_auction \
                and auction["high_bidder"] is not None:
            await self.env.restart_bot(self.new_bot())  # the bid buttons survive a restart
            self.restarted_in_auction = True
            again = session_in(self.env, self.channel)
            assert again is not session and again.seq == seq
        other = next((m for m in self.members.values() if m is not member), None)
        if other is not None and "refused" not in self.used:
            plus = f"gg:{session.id}:{seq}:act:bid {high + 1}"
            assert "not your turn" in ephemeral_text(await other.click(message, custom_id=plus))
            shown = await other.click(message, custom_id=f"gg:{session.id}:{seq}:other")
            assert shown.modal is None and "not your turn" in ephemeral_text(shown)
            self.used.add("refused")
        if not self.bluffed:
            action = f"bid {MAX_BID}"  # more than any hand holds: the bluff must fail
            self.bluffed = True
        wanted = f"gg:{session.id}:{seq}:act:{action}"
        in_dm = next((m for m in reversed(member.user.dm_channel.history())
                      if wanted in custom_ids(m)), None)
        if in_dm is not None and "dm_bid" not in self.used:
            assert "Your hand:" in in_dm.content
            result = await member.user.click(in_dm, custom_id=wanted)  # bidding from the DM
            assert_no_refusal(result)
            self.used.add("dm_bid")
        elif in_dm is not None and "dm_typed_bid" not in self.used:
            typed = await member.user.send_dm(action)  # a bid typed in the DM
            answers = [m.content for m in member.user.dm_channel.history() if m.id > typed.id]
            assert any("Played:" in text and action in text for text in answers), answers
            assert session_in(self.env, self.channel).seq > seq
            self.used.add("dm_typed_bid")
        elif action == "pass":
            await self.click(member, f"gg:{session.id}:{seq}:act:pass", message)
        elif action in (f"bid {high + 1}", f"bid {high + 2}"):
            await self.click(member, f"gg:{session.id}:{seq}:act:{action}", message)
        else:
            shown = await member.click(message, custom_id=f"gg:{session.id}:{seq}:other")
            assert shown.modal is not None
            result = await member.submit_modal(shown, {"amount": action.split()[1]})
            assert_no_refusal(result)
            self.used.add("modal")

    async def sell(self, session: Session, member, action: str) -> None:
        """The payment form: in the DM, or (closed DMs) ephemerally from the channel button."""
        dm = self.prompt_in_dm(session, member)
        if dm is None:
            opened = await member.click(self.last(), label="🔒 My screen & secret choice")
            prompt: Any = opened.response
            assert prompt is not None and prompt.ephemeral
            assert opened.response.attachments, "the hand picture comes with the prompt"
            actor = member
            self.used.add("ephemeral")
        else:
            prompt, actor = dm, member.user
            self.used.add("dm")
        ids = custom_ids(prompt)
        submit = next(c for c in ids if c.startswith("hbtn:") and ":ok:" in c)
        select = next((c for c in ids if c.startswith("hsel:")), None)
        choices = _options(prompt)
        form = UI.private_form("sell", session.view(session.pending()[0]),
                               session.pending()[0], "en")
        assert form is not None
        tokens = [token for token, _ in form.fields[0].choices]
        pays = [token for token in tokens if token.startswith("pay ")]
        if dm is not None and pays and "typed" not in self.used:
            typed = await member.user.send_dm(pays[-1])  # notation typed in the DM
            answers = [m.content for m in member.user.dm_channel.history() if m.id > typed.id]
            assert any(f"`{pays[-1]}`" in text for text in answers), answers
            self.used.add("typed")
            return
        if dm is not None and self.new_bot is not None and "restart_pay" not in self.used:
            await self.env.restart_bot(self.new_bot())  # the DM form survives a restart too
            self.used.add("restart_pay")
        if tokens[0] == action:
            result = await actor.click(prompt, custom_id=submit)  # one click: preselected
            self.used.add("pay_default")
        else:
            assert select is not None and str(tokens.index(action)) in choices
            picked = await actor.select(prompt, [str(tokens.index(action))], custom_id=select)
            prompt = picked.response or prompt
            submit = next(c for c in custom_ids(prompt) if ":ok:" in c)
            result = await actor.click(prompt, custom_id=submit)
            self.used.add("pay_select")
        assert_no_refusal(result)

    def prompt_in_dm(self, session: Session, member) -> discord.Message | None:
        history = member.user.dm_channel.history()
        for message in reversed(history):
            if message.author.id == self.env.bot.user.id and any(
                    c.startswith(f"hbtn:{session.id}:") for c in custom_ids(message)):
                return message
        return None


def _options(message: Any) -> list[str]:
    """The values of every select option in a message (or a response's raw components)."""
    out: list[str] = []
    for row in message.components:
        children = row.children if hasattr(row, "children") else row.get("components", [])
        for c in children:
            options = getattr(c, "options", None) if not isinstance(c, dict) \
                else c.get("options")
            out.extend(o.value if hasattr(o, "value") else o["value"] for o in options or [])
    return out


async def test_four_player_game_to_the_harbour(simcord_env, new_bot):  # noqa: F811
    """Two humans (one with closed DMs) and two AI seats play until the black train arrives:
    a failed bluff, a restart in the middle of an auction, every kind of prompt."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("texas")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    env.inject_error("POST", f"/channels/{bob.user.dm_channel.id}/messages", times=None,
                     **DM_CLOSED)
    await open_game(env, channel, alice, bob, ai_seats=2)
    session = session_in(env, channel)
    assert [(s.colour, s.is_ai) for s in session.seats] == [
        ("red", False), ("grey", False), ("blue", True), ("green", True)]

    player = Player(env, channel, {alice.id: alice, bob.id: bob}, new_bot)
    moves = 0
    while env.bot.games.in_channel(channel.id) is not None:
        await player.step()
        moves += 1
        assert moves < 2000

    final = bot_messages(env, channel)[-1]
    assert "Game over" in final.content and "harbour" in final.content
    record = next(a for a in final.attachments if a.filename.endswith(".txt"))
    assert record.filename.startswith("giganten-")
    store = env.bot.games.store
    lines = await store.actions(session.id)
    assert any(line.startswith("* forfeit ") for line in lines), "the bluff failed"
    assert player.restarted_in_auction
    assert player.used >= {"button", "slash", "modal", "autocomplete", "produce_default",
                           "refused", "pay_default", "restart_pay", "typed", "dm_bid",
                           "dm_typed_bid"}
    assert {"dm", "ephemeral"} & player.used
    notes = [m.content for m in bot_messages(env, channel) if "cannot send DMs" in m.content]
    assert bob.mention in " ".join(notes) or "ephemeral" not in player.used
    assert not env.bot.unexpected_errors


async def test_public_output_never_shows_a_hand_or_an_unseen_tile(simcord_env, monkeypatch):
    """Three rounds with a human and two AI seats: every board image is drawn from the
    spectators' view, and no channel message, embed or file carries a licence value or the
    value of a tile that is still face down; those go to the seat's DM only."""
    env = simcord_env
    drawn: list[dict[str, Any]] = []
    board = render.giganten.board

    def spy(view: dict[str, Any], lang: str = "en", names: Any = None) -> bytes:
        drawn.append(view)
        return board(view, lang, names)

    monkeypatch.setattr(render.giganten, "board", spy)
    guild = env.create_guild()
    channel = guild.create_text_channel("oil")
    alice = guild.add_member(env.create_user("alice"))
    await open_game(env, channel, alice, ai_seats=2)  # three players: six spaces stay empty
    session = session_in(env, channel)
    player = Player(env, channel, {alice.id: alice})
    while session.view()["round"] < 4:
        await player.step()

    assert drawn and all(view["you"] is None for view in drawn)
    assert all(space["value"] is None for view in drawn for space in view["spaces"].values()
               if space["state"] == "hidden")
    public = bot_messages(env, channel)
    assert all(not m.embeds for m in public[1:])
    assert {a.filename for m in public for a in m.attachments} == {"board.png"}
    text = "\n".join(m.content for m in public)
    assert "were dealt" not in text and "holds" not in text and "cards, total" not in text
    assert not re.search(r"licences (red|grey|blue|green) [12]", text)
    lines = session.game.lines
    assert any(line.startswith("red peek ") for line in lines), "the human peeked"
    secrets = [m.content for m in alice.user.dm_channel.history()]
    assert any(m.attachments and m.attachments[0].filename == "screen.png"
               for m in alice.user.dm_channel.history())
    assert secrets
    assert not env.bot.unexpected_errors


def test_summaries_never_read_a_secret() -> None:
    """Every event of a whole AI game reads the same with its secret part (dealt values, a
    peeked value) and with forfeited values left out: the public words cannot carry them."""
    from rules.record import Game, Header, parse_header

    header: Header = parse_header("game giganten red grey blue green seed=11")
    game = Game.start(header)
    rng = random.Random(3)
    names = {c: c.capitalize() for c in header.seats}
    seen: set[str] = set()
    while game.pending():
        actor = game.pending()[0]
        if actor == "*":
            events = game.draw_chance()
        else:
            events = game.apply(actor, ai.choose(game.module, game.state, actor, "random", rng))
        for event in events:
            words = UI.describe(event, "en", names)
            seen.add(event["kind"])
            bare = {k: v for k, v in event.items() if k != "private"}
            if event["kind"] == "forfeit":
                bare["values"] = [9] * len(event["values"])
            assert words == UI.describe(bare, "en", names), event
    assert {"licences", "peek", "bid", "take", "produce", "sell"} <= seen
    assert "forfeit" in seen or "pay" in seen


def test_action_cards_show_their_contents() -> None:
    assert card_text("b24", "en") == "b24: 3 licences · 8 MP · price ±3"
    assert card_text("r8", "en") == "r8: black train +1 · 2 licences · 8 MP · rival locos back 3"
    step = Step("*", "* licences red 1 2 2", [
        {"kind": "licences", "seat": "red", "count": 3,
         "private": {"seat": "red", "values": [1, 2, 2]}}], "chance")
    assert UI.describe(step.events[0], "en", {"red": "Red"}) == "Red is dealt 3 licence card(s)."
    assert UI.describe_private(step.events[0], "en", {}) == "You were dealt 1 2 2."


def test_payment_form_preselects_the_automatic_payment() -> None:
    """Rules example 10.3 [7]: blue won hudson with 6 holding 1 1 1 1 2 2 2 2 2; selling pays
    2 2 2 by itself, so "sell 1" comes first (one click on Submit) and other payments follow."""
    view = {"auction": {"company": "hudson", "high_bid": 6},
            "you": {"seat": "blue", "licences": [1, 1, 1, 1, 2, 2, 2, 2, 2]},
            "players": {"blue": {"storage": {"hudson": 1, "jet": 0, "standard": 0}}},
            "prices": {"hudson": 7500, "jet": 4500, "standard": 8000}}
    form = UI.private_form("sell", view, "blue", "en")
    assert form is not None
    tokens = [token for token, _ in form.fields[0].choices]
    assert tokens[:2] == ["sell 1", "sell 0"]
    assert "pay 1 1 1 1 2" in tokens and "pay 2 2 2" not in tokens and "pay 2 2 2 2" not in tokens
    assert form.compose([0]) == "sell 1"
    text = UI.prompt_text("sell", view, "blue", "en")
    assert "(2 2 2)" in text and "Hudson with 6" in text and "$7,500" in text
    assert UI.private_form("bid", view, "blue", "en") is None


def test_default_shipping_fills_storage_before_overfilling() -> None:
    from bot.games.giganten import ranked_productions

    legal = ["produce A4=hudson C5=hudson", "produce A4=hudson C5=jet", "produce A4=drop C5=drop"]
    prices = {"hudson": 6000, "jet": 5000, "standard": 4000}
    assert ranked_productions(legal, prices, {"hudson": 0, "jet": 0, "standard": 0})[0] == 0
    assert ranked_productions(legal, prices, {"hudson": 1, "jet": 0, "standard": 0})[0] == 1
