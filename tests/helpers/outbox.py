"""A game of any kind opened through the simulated Discord, and Discord's faults made to last
until healed: what the outbox tests and the tests of a game's home share, down to the check
that Discord shows everything the stored game wants."""

from __future__ import annotations

from typing import Any

import discord

from bot.host.sessions import Session
from tests.helpers.bots import (
    home,
    mine,
)


class Game:
    """A running game with two humans (alice red, bob second) and AI seats."""

    def __init__(self, env, channel, alice, bob, session: Session) -> None:
        self.env, self.channel, self.alice, self.bob = env, channel, alice, bob
        self.session = session
        self.members = {alice.id: alice, bob.id: bob}

    @property
    def id(self) -> int:
        return self.session.id

    def now(self) -> Session:
        """The game as the (current) bot holds it: a restart loads a new session."""
        return self.env.bot.games.sessions[self.id]

    def pending_member(self):
        session = self.now()
        seat = session.seat(session.pending()[0])
        assert seat is not None and seat.user_id is not None, session.pending()
        return self.members[seat.user_id]

    def first_legal(self) -> str:
        session = self.now()
        return str(session.legal(session.pending()[0])[0])

    def place(self):
        return home(self.channel)

    def tables(self) -> list[discord.Message]:
        """The game's table messages (status embed with the board), oldest first."""
        return [m for m in mine(self.env, self.place().history())
                if m.embeds and any(a.filename == "board.png" for a in m.attachments)]

    def table(self) -> discord.Message:
        tables = self.tables()
        assert tables, "no table message"
        return tables[-1]

    def shows_turn_of(self, colour_name: str) -> bool:
        description = self.table().embeds[0].description or ""  # "Now: ● **Red** (alice)..."
        return description.startswith("Now: ") and \
            description.split()[2] == f"**{colour_name}**"

    async def play(self, member=None, notation: str | None = None) -> str:
        """The pending human (or ``member``) plays by /play in the table's place."""
        member = member or self.pending_member()
        result = await member.slash(self.place(), "play", notation=notation or self.first_legal())
        return answer_text(result)


async def ready_lobby(env, game: str, name: str | None = None, ai_seats: int = 1,
                      **options: Any):
    """A lobby in a new channel (``name``) that alice opened and bob joined, with AI seats:
    the channel, alice, bob and the lobby card."""
    guild = env.create_guild()
    channel = guild.create_text_channel(name or f"{game}-table")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    result = await alice.slash(channel, "game new", game=game, **options)
    lobby = result.response
    assert lobby is not None and not result.ephemeral
    await bob.click(lobby, label="Join")
    for _ in range(ai_seats):
        await alice.click(lobby, label="Add AI")
    return channel, alice, bob, lobby


async def open_game(env, game: str, ai_seats: int = 1, **options: Any) -> Game:
    channel, alice, bob, lobby = await ready_lobby(env, game, ai_seats=ai_seats, **options)
    started = await alice.click(lobby, label="Start")
    assert not started.followups, started.followups[0].content
    session = env.bot.games.in_channel(channel.id)
    assert session is not None and session.status == "running"
    return Game(env, channel, alice, bob, session)


def answer_text(result) -> str:
    shown = [m for m in (*result.followups, result.response) if m is not None and m.content]
    return shown[0].content if shown else ""


def sticky(env, method: str, path: str, status: int = 500, code: int = 0) -> dict[str, Any]:
    """A fault that lasts until :func:`heal` (whatever discord.py or the bot retries)."""
    env.inject_error(method, path, status=status, code=code, times=None,
                     message="Service unavailable (injected by test)")
    return env.backend.faults[-1]


def heal(env, fault: dict[str, Any]) -> None:
    if fault in env.backend.faults:
        env.backend.faults.remove(fault)


async def assert_caught_up(game: Game) -> None:
    """Discord shows everything the stored game wants: another reconcile has nothing to do."""
    env = game.env
    calls, sent = env.bot.outbox.calls, len(env.http_requests)
    await env.bot.outbox.reconcile(game.id)
    assert env.bot.outbox.calls == calls
    assert [f"{r.method} {r.path}" for r in env.http_requests[sent:]] == []
