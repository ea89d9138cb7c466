"""Giganten through the simulated Discord: a lobby opened and started, the session behind a
table, a stand-in board picture for long games, and the ephemeral answers a player reads."""

from __future__ import annotations

import io
from typing import Any

import discord
from PIL import Image

from bot.host.sessions import Session
from tests.helpers.bots import (
    dm_messages,
    live_table,
)


def small_board(view: dict[str, Any], lang: str = "en", names: Any = None, **more: Any) -> bytes:
    """A stand-in board picture for the long game: drawing hundreds of real boards would make
    it slow, and what boards show is checked by the leak test below and the render tests."""
    out = io.BytesIO()
    Image.new("RGB", (8, 8), "tan").save(out, format="PNG")
    return out.getvalue()


def session_in(env, channel) -> Session:
    session = env.bot.games.in_channel(channel.id)
    assert session is not None
    return session


def ids_of(message: Any) -> list[str]:
    """Every component id of a message, or of an interaction's response message."""
    out = []
    for row in message.components:
        children = row.children if hasattr(row, "children") else row.get("components", [])
        for c in children:
            cid = c.custom_id if hasattr(c, "custom_id") else c.get("custom_id")
            if cid:
                out.append(cid)
    return out


def ephemeral_text(result) -> str:
    messages = [m for m in (*result.followups, result.response) if m is not None and m.content]
    assert messages, f"no answer: {result!r}"
    assert messages[0].ephemeral, messages[0].content
    return messages[0].content


def fresh(channel, message) -> discord.Message:
    return next(m for m in channel.history() if m.id == message.id)


async def open_game(env, channel, creator, *joiners, ai_seats: int = 0):
    result = await creator.slash(channel, "game new", game="giganten")
    lobby = result.response
    assert lobby is not None and not result.ephemeral, ephemeral_text(result)
    assert lobby.embeds[0].title == "Giganten: new game"
    for member in joiners:
        await member.click(lobby, label="Join")
    for _ in range(ai_seats):
        await creator.click(lobby, label="Add AI")
    started = await creator.click(lobby, label="Start")
    assert started.deferred and not started.followups, started.followups[0].content
    card = fresh(channel, lobby)
    assert card.embeds[0].title == "Giganten: started" and not ids_of(card)
    session = session_in(env, channel)
    assert [t.name for t in channel.threads] == [f"Giganten #{session.id}"]
    thread = channel.threads[0]
    assert live_table(env, channel).channel.id == thread.id, "the table is in the thread"
    for member in (creator, *joiners):
        for screen in dm_messages(env, member):
            assert f"table in <#{thread.id}>" in screen.content, screen.content
    return lobby
