"""Giganten played end to end on the calm table: the action cards, build, shipping and auction
buttons (+1 / +2 / other amount / Pass) on the live table message in the game's thread, the
payment (the only DM prompt) by DM or, for closed DMs, through the table's 🔒 button, a failed
bluff, restarts in the middle of an auction and with a payment form open, and no licence value
or unbuilt tile value in any public output."""

from __future__ import annotations

import random
import re
from typing import Any

import bot.adapter.outbox
from bot.games.giganten import UI, card_text, hand_text
from bot.host.sessions import Session, Step
from rules import ai
from rules.giganten.board import MAX_BID
from tests.helpers.bots import (
    close_dms,
    dm_messages,
    dm_prompt,
    home,
    live_components,
    live_table,
    places,
    table_messages,
)
from tests.helpers.giganten_table import (
    ephemeral_text,
    fresh,
    ids_of,
    open_game,
    session_in,
    small_board,
)

OPEN_DUE = "🔒 My hand & payment"
HIDDEN_WORDS = re.compile(r"secret|sealed", re.IGNORECASE)
"""What the payment is never called: the licences paid go face up; it is private only until
it is made."""
DOLLARS = re.compile(r"\$\d{1,3}(,\d{3})*")


def options_of(message: Any) -> list[str]:
    """The values of every select option in a message (or a response's raw components)."""
    out: list[str] = []
    for row in message.components:
        children = row.children if hasattr(row, "children") else row.get("components", [])
        for c in children:
            options = c.get("options") if isinstance(c, dict) else getattr(c, "options", None)
            out.extend(o["value"] if isinstance(o, dict) else o.value for o in options or [])
    return out


def assert_no_refusal(result) -> None:
    for message in result.followups:
        text = message.content
        for word in ("not allowed", "out of date", "not your turn", "went wrong"):
            assert word not in text, text


class Player:
    """Drives the humans: the greedy AI picks each move (from that seat's own view only) and
    the test plays it through what a person would use, checking the calm table each time."""

    def __init__(self, env, channel, members: dict[int, Any], new_bot=None,
                 closed: Any = None) -> None:
        self.env, self.channel, self.members, self.new_bot = env, channel, members, new_bot
        self.closed = closed
        """The member whose DMs are closed."""
        self.rng = random.Random(5)
        self.bluffed = False
        self.restarted_in_auction = False
        self.private: list[str] = []
        """Ephemeral answers and DM texts: what only one player saw."""
        self.used: set[str] = set()
        """Which paths were taken (button, select, modal, slash, dm, ephemeral...)."""

    def session(self) -> Session:
        return session_in(self.env, self.channel)

    def place(self):
        return home(self.channel)

    async def step(self) -> None:
        session = self.session()
        colour = session.pending()[0]
        seat = session.seat(colour)
        assert seat is not None and seat.user_id is not None
        member = self.members[seat.user_id]
        self.check_calm(session, member)
        decision = session.view()["decision"]
        action = str(ai.choose(session.module, session.game.state, colour, "greedy", self.rng))
        if decision == "build":  # both kinds of build button at least once
            legal = [str(a) for a in session.legal(colour)]
            verb = next((v for v in ("build", "skip") if v not in self.used), None)
            action = next((a for a in legal if a.split()[0] == verb), action)
        if decision == "bid":
            await self.bid(session, member, action)
        elif decision == "sell":
            await self.sell(session, member, action)
        elif decision == "produce":
            await self.produce(session, member, action)
        elif decision in ("take", "build") or action == "done":
            await self.click(member, f"t:{session.id}:{session.seq}:act:{action}")
            self.used.add(action.split()[0])
        else:
            await self.slash(member, action)

    def check_calm(self, session: Session, member) -> None:
        """One live table message (in the thread, this stage's), and a DM prompt only for the
        payment, to the payer whose DMs are open."""
        live = live_table(self.env, self.channel)
        assert live.channel.id == self.place().id
        title = live.embeds[0].title
        assert title.startswith(f"Giganten #{session.id} · Round {session.view()['round']} · ")
        paying = session.kind() == "sell"
        for other in self.members.values():
            prompt = dm_prompt(self.env, other)
            if paying and other is member and other is not self.closed:
                assert prompt is not None, "the payment form is in the payer's DMs"
                assert all(i.startswith(("p:", "ps:")) for i in ids_of(prompt))
            else:
                assert prompt is None, (session.kind(), prompt.content)

    async def click(self, member, custom_id: str, message=None) -> Any:
        message = message or live_table(self.env, self.channel)
        assert custom_id in ids_of(message), (custom_id, ids_of(message))
        result = await member.click(message, custom_id=custom_id)
        assert result.deferred, result
        assert_no_refusal(result)
        self.private += [m.content for m in result.followups]
        self.used.add("button")
        return result

    async def slash(self, member, action: str) -> None:
        if action.split()[0] in ("drive", "peek") and "autocomplete" not in self.used:
            typed = " ".join(action.split()[:2])
            choices = await member.autocomplete(self.place(), "play", "notation", typed)
            assert choices and all(c["value"].lower().startswith(typed.lower())
                                   for c in choices)
            self.used.add("autocomplete")
        result = await member.slash(self.place(), "play", notation=action)
        answer = ephemeral_text(result)
        assert answer.startswith("Played: "), answer
        self.private.append(answer)
        self.used.add("slash")

    async def produce(self, session: Session, member, action: str) -> None:
        """The best-paying shipping is one button; every other one is in the select (used
        once on purpose, then whenever the AI's choice is not the default)."""
        legal = [str(a) for a in session.legal(session.pending()[0])]
        index = legal.index(action)
        message = live_table(self.env, self.channel)
        default = f"t:{session.id}:{session.seq}:pick:{index}"
        select = f"ts:{session.id}:{session.seq}:sel"
        offered = options_of(message) if select in ids_of(message) else []
        if offered and "produce_select" not in self.used:
            index = int(offered[-1][1:])
        elif default in ids_of(message):
            await self.click(member, default)
            self.used.add("produce_default")
            return
        if f"#{index}" in offered:
            result = await member.select(message, [f"#{index}"], custom_id=select)
            assert result.deferred
            assert_no_refusal(result)
            self.used.add("produce_select")
            return
        await self.slash(member, action)

    async def bid(self, session: Session, member, action: str) -> None:
        """Open bids are made on the table (a bid may also be typed in a DM), never through a
        DM prompt."""
        auction = session.view()["auction"]
        high, seq, game = auction["high_bid"], session.seq, session.id
        message = live_table(self.env, self.channel)
        assert dm_prompt(self.env, member) is None, "no DM prompt for an open bid"
        if self.new_bot is not None and not self.restarted_in_auction \
                and auction["high_bidder"] is not None:
            await self.env.restart_bot(self.new_bot())  # the bid buttons survive a restart
            self.restarted_in_auction = True
            again = self.session()
            assert again is not session and again.seq == seq
            assert live_table(self.env, self.channel).id == message.id, "nothing posted again"
        other = next((m for m in self.members.values() if m is not member), None)
        if other is not None and "refused" not in self.used:
            plus = f"t:{game}:{seq}:act:bid {high + 1}"
            assert "not your turn" in ephemeral_text(await other.click(message, custom_id=plus))
            shown = await other.click(message, custom_id=f"t:{game}:{seq}:other")
            assert shown.modal is None and "not your turn" in ephemeral_text(shown)
            self.used.add("refused")
        if member is self.closed and "hand_while_bidding" not in self.used:
            await self.look_at_hand(session, member, message)
        hand = sum(session.view(session.pending()[0])["you"]["licences"])
        if action == f"bid {high + 1}" and "+2" not in self.used and high + 2 <= hand:
            action = f"bid {high + 2}"  # once, the +2 button (an honest bid)
        bluff = not self.bluffed
        if bluff:  # more than any hand holds, as another amount: the bluff must fail
            action = f"bid {MAX_BID}"
            self.bluffed = True
        if not bluff and member is not self.closed and action != "pass" \
                and "dm_typed_bid" not in self.used:
            typed = await member.user.send_dm(action)  # a bid typed in the DM
            assert "✅" in [str(r.emoji) for r in fresh(member.user.dm_channel, typed).reactions]
            replies = [m for m in dm_messages(self.env, member) if m.id > typed.id]
            assert not replies, "the reaction is the one confirmation"
            assert self.session().seq > seq
            self.used.add("dm_typed_bid")
        elif action == "pass" or action in (f"bid {high + 1}", f"bid {high + 2}"):
            await self.click(member, f"t:{game}:{seq}:act:{action}", message)
            self.used.add("pass" if action == "pass" else f"+{int(action.split()[1]) - high}")
        else:
            shown = await member.click(message, custom_id=f"t:{game}:{seq}:other")
            assert shown.modal is not None
            result = await member.submit_modal(shown, {"amount": action.split()[1]})
            assert_no_refusal(result)
            assert self.session().seq > seq
            self.used.add("modal")

    async def look_at_hand(self, session: Session, member, message) -> None:
        """Closed DMs: the 🔒 button shows the hand, with nothing to choose while bidding."""
        opened = await member.click(message, custom_id=f"t:{session.id}:{session.seq}:open")
        shown = (opened.followups or [opened.response])[-1]
        assert shown is not None and shown.ephemeral and not ids_of(shown)
        colour = session.seat_of(member.id).colour
        assert hand_text(session.view(colour)["you"]["licences"], "en") in shown.content
        assert [a.filename for a in shown.attachments] == ["screen.png"]
        self.private.append(shown.content)
        self.used.add("hand_while_bidding")

    async def sell(self, session: Session, member, action: str) -> None:
        """The payment form: in the DM, or (closed DMs) ephemerally from the table's 🔒."""
        colour = session.pending()[0]
        dm = dm_prompt(self.env, member)
        if member is self.closed:
            assert dm is None
            live = live_table(self.env, self.channel)
            [lock] = ids_of(live)
            assert lock.endswith(":open") and [c.label for c in live_components(live)] == \
                [OPEN_DUE]
            opened = await member.click(live, custom_id=lock)
            prompt: Any = (opened.followups or [opened.response])[-1]
            assert prompt is not None and prompt.ephemeral
            assert [a.filename for a in prompt.attachments] == ["screen.png"], \
                "the hand picture comes with the prompt"
            actor = member
            self.used.add("ephemeral")
        else:
            assert dm is not None
            prompt, actor = dm, member.user
            self.used.add("dm")
        assert not HIDDEN_WORDS.search(prompt.content), prompt.content
        self.private.append(prompt.content)
        form = UI.private_form("sell", session.view(colour), colour, "en")
        assert form is not None
        tokens = [token for token, _ in form.fields[0].choices]
        pays = [token for token in tokens if token.startswith("pay ")]
        if dm is not None and pays and "typed" not in self.used:
            typed = await member.user.send_dm(pays[-1])  # notation typed in the DM
            assert "✅" in [str(r.emoji) for r in fresh(member.user.dm_channel, typed).reactions]
            self.used.add("typed")
            await self.handed_in(fresh(member.user.dm_channel, prompt), pays[-1])
            return
        if dm is not None and self.new_bot is not None and "restart_pay" not in self.used:
            await self.env.restart_bot(self.new_bot())  # the DM form survives a restart too
            assert dm_prompt(self.env, member).id == prompt.id, "no second prompt"
            self.used.add("restart_pay")
        ids = ids_of(prompt)
        submit = next(c for c in ids if c.startswith("p:") and ":ok:" in c)
        if "pay_select" not in self.used and len(tokens) > 1:
            action = tokens[1]  # once, another choice than the preselected one
        if tokens[0] == action:
            result = await actor.click(prompt, custom_id=submit)  # one click: preselected
            self.used.add("pay_default")
        else:
            select = next(c for c in ids if c.startswith("ps:"))
            assert str(tokens.index(action)) in options_of(prompt)
            picked = await actor.select(prompt, [str(tokens.index(action))], custom_id=select)
            prompt = picked.response or prompt
            assert f"`{action}`" in prompt.content and not HIDDEN_WORDS.search(prompt.content)
            submit = next(c for c in ids_of(prompt) if ":ok:" in c)
            result = await actor.click(prompt, custom_id=submit)
            self.used.add("pay_select")
        assert_no_refusal(result)
        done = result.response if dm is None else fresh(member.user.dm_channel, prompt)
        await self.handed_in(done, action)

    async def handed_in(self, prompt, action: str) -> None:
        assert prompt.content.startswith("✅ Handed in") and "`" not in prompt.content
        assert f": {UI.move_words(action, 'en')}." in prompt.content, "the move in words"
        assert not HIDDEN_WORDS.search(prompt.content), prompt.content
        assert not ids_of(prompt), "a used form loses its components"


# --- what the public sees --------------------------------------------------------------------

def strings(value: Any) -> list[str]:
    """Every text inside a request body: contents, embeds, labels, options, file names."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in strings(v)]
    return []


def public_output(env, channel) -> list[str]:
    """Everything anyone in the server could ever see: every message the bot sent or edited in
    the channel or the game's threads (even what a later edit replaced), thread names,
    public interaction answers, and what the messages show now."""
    where = {p.id for p in places(channel)}
    out: list[str] = []
    for request in env.http_requests:
        parts = request.path.strip("/").split("/")
        body = request.json if isinstance(request.json, dict) else {}
        posted = parts[0] == "channels" and int(parts[1]) in where and "messages" in parts
        answered = parts[-1] == "callback" and body.get("type") == 4 \
            and not (body.get("data") or {}).get("flags", 0) & 64
        followed = parts[0] == "webhooks" and request.method == "POST" \
            and not body.get("flags", 0) & 64
        if posted or answered or followed:
            out += strings(body)
    for message in table_messages(env, channel):
        out.append(message.content)
        out += strings([embed.to_dict() for embed in message.embeds])
        out += [a.filename for a in message.attachments]
        out += [str(c.to_dict()) for row in message.components for c in row.children]
    return out


async def test_four_player_game_to_the_harbour(simcord_env, new_bot, monkeypatch):
    """Two humans (bob with closed DMs) and two AI seats play until the black train arrives:
    a failed bluff, restarts in the middle of an auction and with a payment form open, every
    kind of component."""
    env = simcord_env
    monkeypatch.setitem(bot.adapter.outbox.RENDERERS, "giganten", small_board)
    guild = env.create_guild()
    channel = guild.create_text_channel("texas")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    close_dms(env, bob)
    lobby = await open_game(env, channel, alice, bob, ai_seats=2)
    session = session_in(env, channel)
    assert [(s.colour, s.is_ai) for s in session.seats] == [
        ("red", False), ("grey", False), ("blue", True), ("green", True)]

    player = Player(env, channel, {alice.id: alice, bob.id: bob}, new_bot, closed=bob)
    moves = 0
    while env.bot.games.in_channel(channel.id) is not None:
        await player.step()
        moves += 1
        assert moves < 2000

    thread = home(channel)
    [final] = [m for m in table_messages(env, channel) if m.attachments
               and m.attachments[0].filename.endswith(".txt")]
    assert final.channel.id == thread.id and final.attachments[0].filename == \
        f"giganten-{session.id}.txt"
    head, *rows = final.content.splitlines()
    assert head.startswith("🏁 Game over (the black train reached the harbour). Winner: ")
    assert len(rows) == 4 and all(re.fullmatch(rf"\d\. .+: {DOLLARS.pattern}", r) for r in rows)
    tables = [m for m in table_messages(env, channel)
              if m.embeds and any(a.filename == "board.png" for a in m.attachments)]
    assert all([a.filename for a in m.attachments] == ["board.png"] for m in tables)
    last = tables[-1]
    assert final.content in last.embeds[0].description, "the last table shows the result"
    card = fresh(channel, lobby)
    assert card.embeds[0].title == "Giganten: finished"
    assert final.content in [f.value for f in card.embeds[0].fields]
    assert not [m for m in table_messages(env, channel) if live_components(m)]
    assert not [m for who in (alice, bob) for m in dm_messages(env, who) if live_components(m)]
    assert not dm_messages(env, bob), "closed DMs get nothing"

    lines = await env.bot.games.store.actions(session.id)
    lost = {str(len(line.split()[3:])) for line in lines if line.startswith("* forfeit ")}
    assert lost, "the bluff failed"
    told = [line for text in public_output(env, channel) for line in text.splitlines()
            if "bluff" in line]
    assert any("the bluff fails" in line for line in told)
    failed = [line for line in told if "for the failed bluff" in line]
    assert failed and all(re.search(r"loses (\d+) licence cards? for the failed bluff\.", line)
                          and set(re.findall(r"\d+", line)) <= lost for line in failed), \
        "a failed bluff names how many cards were lost, no card value"
    assert player.restarted_in_auction
    assert player.used >= {"take", "build", "skip", "done", "produce_default", "produce_select",
                           "+1", "+2", "modal", "pass", "slash", "autocomplete", "refused",
                           "dm_typed_bid", "dm", "ephemeral", "hand_while_bidding",
                           "pay_default", "pay_select", "typed", "restart_pay"}, player.used
    notes = [m.content for m in table_messages(env, channel) if "cannot send DMs" in m.content]
    assert len(notes) == 1 and bob.mention in notes[0]
    assert not env.bot.unexpected_errors


async def test_public_output_never_shows_a_hand_or_an_unseen_tile(simcord_env, monkeypatch):
    """Three rounds with a human and two AI seats: every board image is drawn from the
    spectators' view, and nothing public (texts, embeds, files, buttons, the public record)
    carries a licence value or the value of a tile that is still face down; those go to the
    seat's DM and ephemeral answers only."""
    env = simcord_env
    drawn: list[dict[str, Any]] = []
    board = bot.adapter.outbox.RENDERERS["giganten"]

    def spy(view: dict[str, Any], lang: str = "en", names: Any = None, **more: Any) -> bytes:
        drawn.append(view)
        return board(view, lang, names, **more)

    monkeypatch.setitem(bot.adapter.outbox.RENDERERS, "giganten", spy)
    guild = env.create_guild()
    channel = guild.create_text_channel("oil")
    alice = guild.add_member(env.create_user("alice"))
    await open_game(env, channel, alice, ai_seats=2)  # three players: six spaces stay empty
    session = session_in(env, channel)
    player = Player(env, channel, {alice.id: alice})
    hands: set[str] = set()
    while session.view()["round"] < 4:
        await player.step()
        hands |= {hand_text(session.view(s.colour)["you"]["licences"], "en")
                  for s in session.seats}

    assert drawn and all(view["you"] is None for view in drawn)
    assert all(space["value"] is None for view in drawn for space in view["spaces"].values()
               if space["state"] == "hidden")
    public = public_output(env, channel)
    files = {a.filename for m in table_messages(env, channel) for a in m.attachments}
    assert files == {"board.png"}, "the hand picture and the record stay private"
    text = "\n".join(public)
    for secret in ("were dealt", "holds", "cards, total", "Only you know", "Your hand"):
        assert secret not in text, secret
    assert not re.search(r"licences (red|grey|blue|green)( [12])+", text)
    assert not [hand for hand in hands if "total" in hand and hand in text]
    record = session.public_record()
    assert record is not None and "seed=" not in record
    state = session.game.state
    for line in record.splitlines()[1:]:
        words = line.split()
        if words[:2] == ["*", "licences"]:
            assert set(words[3:]) <= {"?"}, line
        elif words[:2] == ["*", "tiles"]:
            for entry in words[2:]:
                label, _, value = entry.partition("=")
                built = state.spaces[label]["state"] in ("derrick", "spent")
                assert built or value == "?", line
    lines = session.game.lines
    assert any(line.startswith("red peek ") for line in lines), "the human peeked"
    assert any("Only you know this" in answer for answer in player.private), \
        "the peeked value went to the human alone"
    assert any("cards, total" in m.content and m.attachments[0].filename == "screen.png"
               for m in dm_messages(env, alice)), "the hand is in the DM screen"
    assert not env.bot.unexpected_errors


def test_summaries_never_read_a_secret() -> None:
    """Every event of a whole AI game reads the same with its secret part (dealt values, a
    peeked value) and with forfeited values left out: the public words cannot carry them."""
    from rules.record import Game, Header, parse_header

    header: Header = parse_header("game giganten red grey blue green seed=12")
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
    assert UI.describe(step.events[0], "en", {"red": "Red"}) == "Red is dealt 3 licence cards."
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
    assert "(2 2 2)" in text and "Hudson with 6 licence points" in text and "$7,500" in text
    labels = [label for _, label in form.fields[0].choices]
    assert labels[:2] == ["Pay with licences 2+2+2 (total 6), then sell 1 oil chip for $7,500",
                          "Pay with licences 2+2+2 (total 6), then sell 0 oil chips for $0"], \
        "what is paid, in words"
    assert labels[2] == "First pay 6 with the cards 2×2 + 2×1, then choose how many to sell"
    assert UI.private_form("bid", view, "blue", "en") is None


def test_default_shipping_fills_storage_before_overfilling() -> None:
    from bot.games.giganten import ranked_productions

    legal = ["produce A4=hudson C5=hudson", "produce A4=hudson C5=jet", "produce A4=drop C5=drop"]
    prices = {"hudson": 6000, "jet": 5000, "standard": 4000}
    assert ranked_productions(legal, prices, {"hudson": 0, "jet": 0, "standard": 0})[0] == 0
    assert ranked_productions(legal, prices, {"hudson": 1, "jet": 0, "standard": 0})[0] == 1
