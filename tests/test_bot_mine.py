"""``/game mine``: a player's games in every server, the ones waiting on them first (the
longest wait first, on the bot's clock), each with a link to its table; answered privately in
the asker's language, in a server channel as in a DM (the command is offered in DMs and to
users who install the bot; the rest of ``/game`` still answers only in a server)."""

from __future__ import annotations

from discord import app_commands

from tests.helpers.bots import live_table
from tests.helpers.hidden import ephemeral_text
from tests.helpers.tables import fresh, open_game, play_first_legal, start

answer_of = ephemeral_text
"""The private answer of a command (its last follow-up, else its response)."""


async def test_my_games_across_two_servers_waiting_ones_first_also_from_a_dm(
        simcord_env, settings, locales):
    env = simcord_env
    clock = settings.clock
    north, south = env.create_guild("Hanga Roa"), env.create_guild("Anakena")
    users = {n: env.create_user(n) for n in ("alice", "bob", "cleo", "dave", "erin")}
    alice_n, bob, cleo = (north.add_member(users[n]) for n in ("alice", "bob", "cleo"))
    alice_s, dave, erin = (south.add_member(users[n]) for n in ("alice", "dave", "erin"))
    alice = users["alice"]

    # North: alice's turn (red) from now on; a lobby she joined
    first = north.create_text_channel("first")
    await start(env, first, alice_n, await open_game(env, first, alice_n, bob, ai_seats=1))
    lobby_channel = north.create_text_channel("lobby")
    lobby = await open_game(env, lobby_channel, cleo, alice_n)
    clock.advance(10 * 60)
    # South: dave's turn in one game; alice's, for less long, in another
    second = south.create_text_channel("second")
    await start(env, second, dave, await open_game(env, second, dave, alice_s, ai_seats=1))
    third = south.create_text_channel("third")
    await start(env, third, alice_s, await open_game(env, third, alice_s, erin, ai_seats=1))
    clock.advance(5 * 60 + 30)
    games = {s.row.channel_id: s for s in env.bot.games.sessions.values()}
    assert games[first.id].pending() == games[third.id].pending() == ("red",)
    assert games[first.id].seat("red").user_id == games[third.id].seat("red").user_id \
        == alice.id and games[second.id].seat("red").user_id == dave.id

    url = {c.id: live_table(env, c).jump_url for c in (first, second, third)}
    expected = "\n".join([
        "**Your games**",
        f"⏳ **Make Make** #{games[first.id].id} in **Hanga Roa**: waiting on you for "
        f"15 minutes. {url[first.id]}",
        f"⏳ **Make Make** #{games[third.id].id} in **Anakena**: waiting on you for "
        f"5 minutes. {url[third.id]}",
        f"🎲 **Make Make** #{games[second.id].id} in **Anakena**: others decide now. "
        f"{url[second.id]}",
        f"🪑 **Make Make** #{games[lobby_channel.id].id} in **Hanga Roa**: in the lobby, not "
        f"started yet. {fresh(lobby_channel, lobby).jump_url}"])
    assert answer_of(await alice_s.slash(second, "game mine")) == expected
    assert answer_of(await alice.slash("game mine")) == expected, "the same from a DM"

    # once alice has moved in the first game, it no longer waits on her
    await play_first_legal(env, first, {alice.id: alice_n})
    assert games[first.id].pending() != ("red",)
    shown = answer_of(await alice.slash("game mine")).splitlines()
    assert shown[1].startswith(f"⏳ **Make Make** #{games[third.id].id} in **Anakena**")
    assert shown[2].startswith(f"🎲 **Make Make** #{games[first.id].id} in **Hanga Roa**")

    # in her language, and nobody else's games
    locales[alice.id] = "es-ES"
    assert answer_of(await alice.slash("game mine")).splitlines()[:2] == [
        "**Tus partidas**",
        f"⏳ **Make Make** #{games[third.id].id} en **Anakena**: te espera desde hace "
        f"5 minutos. {url[third.id]}"]
    assert answer_of(await users["dave"].slash("game mine")).splitlines()[1:] == [
        f"⏳ **Make Make** #{games[second.id].id} in **Anakena**: waiting on you for "
        f"5 minutes. {url[second.id]}"]
    assert answer_of(await users["cleo"].slash("game mine")) == (
        "**Your games**\n"
        f"🪑 **Make Make** #{games[lobby_channel.id].id} in **Hanga Roa**: in the lobby, not "
        f"started yet. {fresh(lobby_channel, lobby).jump_url}")
    stranger = env.create_user("frank")
    assert answer_of(await stranger.slash("game mine")) == (
        "You have no lobby or running game in any server the bot is in.")

    # the rest of /game still works only in a server
    assert answer_of(await users["erin"].slash("game status")) == (
        "That only works in a server channel.")
    assert [type(e) for e in env.errors] == [app_commands.NoPrivateMessage], \
        "the group's check said so, and the tree's error handler answered"
    assert not env.bot.unexpected_errors

