"""The games database belongs to one Discord application: the first login records it, a bot
that logs in as another application is refused before it acts on any server (nothing in the
database changes), and a database of an older bot adopts the first application it sees."""

from __future__ import annotations

import sqlite3

import pytest

from bot.application import WrongApplication
from bot.host.store import SCHEMA_VERSION
from tests.helpers.rows import rows
from tests.helpers.tables import open_game, session_in, start

OTHER_APPLICATION = 987654321987654321


def messages(guilds) -> list[tuple[int, str, int]]:
    """Every message in the servers' channels and threads: id, text and how many embeds and
    components it has (an edit changes them)."""
    return sorted({(m.id, m.content, len(m.embeds) + len(m.components))
                   for guild in guilds for channel in guild.channels.values()
                   for place in (channel, *channel.threads) for m in place.history()})


async def test_the_first_login_records_the_application(simcord_env) -> None:
    env = simcord_env
    assert await env.bot.games.store.application_id() == env.backend.application_id
    assert env.bot.application_id == env.backend.application_id


async def test_another_applications_token_is_refused_and_changes_nothing(
        simcord_env, settings, new_bot) -> None:
    """The issue's start: a token of another application sees none of the servers the games
    are in. Before, every running game ended; now the start is refused and nothing moves."""
    env = simcord_env
    guilds = [env.create_guild(f"server {n}") for n in range(2)]
    running = []
    for guild in guilds:
        alice = guild.add_member(env.create_user(f"alice {guild.name}"))
        channel = guild.create_text_channel("games")
        lobby = await open_game(env, channel, alice, ai_seats=2)
        await start(env, channel, alice, lobby)
        running.append(session_in(env, channel).id)
    ours = env.backend.application_id
    await env.settle()
    # the database belongs to another application than the one the simulator logs in as
    await env.bot.games.store.set_application(OTHER_APPLICATION)
    before = rows(settings.db_path)
    shown = messages(guilds)
    assert len(shown) >= 4, "the lobby cards and the tables"

    refused = new_bot()
    with pytest.raises(WrongApplication) as error:
        await env.restart_bot(refused)
    assert (error.value.recorded, error.value.logged_in) == (OTHER_APPLICATION, ours)
    assert str(OTHER_APPLICATION) in str(error.value) and str(ours) in str(error.value)
    assert rows(settings.db_path) == before, "no game ended, no departure, no heartbeat"
    assert before["guild_departures"] == [] and before["guild_absences"] == []
    assert {r[0]: r[7] for r in before["games"]} == dict.fromkeys(running, "running")
    assert refused.host is None, "no game was loaded"
    assert not refused.is_ready(), "it never connected to the gateway"
    assert messages(guilds) == shown, "no message was sent, edited or deleted"


async def test_a_database_of_an_older_bot_adopts_the_first_application(
        simcord_env, settings, new_bot) -> None:
    """An upgrade must not refuse: a database of schema 12 has no application recorded."""
    env = simcord_env
    guild = env.create_guild("old")
    alice = guild.add_member(env.create_user("alice"))
    channel = guild.create_text_channel("games")
    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    game_id = session_in(env, channel).id
    await env.settle()
    await env.bot.games.store.close()
    env.bot.store = None
    with sqlite3.connect(settings.db_path) as db:  # as the bot of schema 12 left it
        db.execute("DROP TABLE discord_application")
        db.execute("DROP TABLE guild_absences")
        for column in ("stage_start", "holder", "turn", "mentions", "reminder"):
            db.execute(f"ALTER TABLE messages DROP COLUMN {column}")  # schema 14's
        db.execute("DROP TABLE kick_holds")  # schema 15's
        db.execute("PRAGMA user_version = 12")
    db.close()

    await env.restart_bot(new_bot())
    store = env.bot.games.store
    assert await store.application_id() == env.backend.application_id
    assert (await env.bot.games.get(game_id)).status == "running"
    assert await store.departures() == {}
    with sqlite3.connect(settings.db_path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    db.close()
    assert settings.db_path.with_name(settings.db_path.name + ".v12.bak").exists()
    assert not env.bot.unexpected_errors
