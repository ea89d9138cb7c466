"""Privacy: ``/game forget-me`` leaves nothing of a user in the database while every other
player's data stays, and a server's games are deleted ``PURGE_AFTER_DAYS`` after the bot is
removed from it (unless it is invited back)."""

from __future__ import annotations

from pathlib import Path

import discord
import pytest

from bot.adapter.items import ForgetButton
from bot.host.store import FORMER_ID, FORMER_PLAYER
from bot.settings import BadSettings, Settings
from render.i18n import t
from tests.helpers.bots import make_settings
from tests.helpers.rows import rows
from tests.helpers.tables import (
    ephemeral_text,
    fresh,
    open_game,
    play_first_legal,
    public_words,
    session_in,
    start,
)

DAY = 24 * 3600


def mentioning(db_path: Path, *needles: str) -> list[tuple[str, tuple]]:
    """The rows, by table, in which any column holds one of ``needles``."""
    return [(table, row) for table, found in rows(db_path).items() for row in found
            if any(needle in str(value) for value in row for needle in needles)]


async def finish(env, channel, members) -> None:
    session = session_in(env, channel)
    while (session := await env.bot.games.get(session.id)).status == "running":
        await play_first_legal(env, channel, members)


def test_the_retention_setting() -> None:
    assert Settings.from_env({}).purge_after_days == 30
    assert Settings.from_env({"PURGE_AFTER_DAYS": " 0 "}).purge_after_days == 0
    assert Settings.from_env({"PURGE_AFTER_DAYS": "365"}).purge_after_days == 365
    for bad in ("-1", "1.5", "soon", "٣"):
        with pytest.raises(BadSettings) as refused:
            Settings.from_env({"PURGE_AFTER_DAYS": bad})
        assert refused.value.problems == [
            f"bad setting PURGE_AFTER_DAYS: {bad!r} is not a whole number of days; accepted: "
            "a whole number of days, 0 or more, e.g. PURGE_AFTER_DAYS=90"]


async def test_forget_me_leaves_nothing_of_the_user(simcord_env, settings) -> None:
    env = simcord_env
    guild = env.create_guild()
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    members = {m.id: m for m in (alice, bob, cleo)}
    # a finished game: alice, bob and an AI
    done = guild.create_text_channel("done")
    lobby = await open_game(env, done, alice, bob, ai_seats=1, round_limit=1)
    await start(env, done, alice, lobby)
    await finish(env, done, members)
    assert (await env.bot.games.store.latest_started(done.id)).status == "finished"
    # a running game alice opened, with bob and cleo
    live = guild.create_text_channel("live")
    lobby = await open_game(env, live, alice, bob, cleo)
    await start(env, live, alice, lobby)
    running = session_in(env, live)
    # bob's lobby, which alice joined; alice's own lobby
    bobs = guild.create_text_channel("bobs")
    bobs_lobby = await open_game(env, bobs, bob, alice)
    own = guild.create_text_channel("own")
    own_lobby = await open_game(env, own, alice, cleo)
    await alice.slash(live, "game notify", setting="on")
    assert alice.id in env.bot.games.notify
    db = settings.db_path
    assert mentioning(db, str(alice.id)) and mentioning(db, "alice")
    kept_bob = len(mentioning(db, str(bob.id)))

    asked = await alice.slash(live, "game forget-me")
    assert asked.response.ephemeral
    assert asked.response.content.startswith("This removes what the bot keeps about you")
    assert mentioning(db, str(alice.id)), "nothing happens before the button"
    # only alice sees her button; were it ever shown to someone else, it would refuse them
    view = discord.ui.View(timeout=None)
    view.add_item(ForgetButton(alice.id, "Forget me"))
    shown = await env.bot.get_channel(live.id).send("?", view=view)
    stranger = await bob.click(shown, label="Forget me")
    assert ephemeral_text(stranger).startswith("This button belongs to the person who asked")
    assert mentioning(db, str(alice.id)), "nothing happens for someone else"
    result = await alice.click(asked.response, label="Forget me")
    answer = fresh_answer(result)
    assert answer.split("\n") == [
        "Done: the bot has forgotten you.",
        "Your settings (language, turn DMs) are deleted.",
        "1 rating deleted.",
        "1 finished game now shows a former player in your seat.",
        "1 lobby: your seat is free again.",
        "1 running game: the AI has taken over your seat.",
        "1 game ended: it was your lobby, or no other player was left."]

    assert mentioning(db, str(alice.id), "alice") == []
    assert len(mentioning(db, str(bob.id))) == kept_bob, "bob's data is intact"
    stored = rows(db)
    assert any(r[4] == FORMER_PLAYER for r in stored["results"])
    assert {r[4] for r in stored["results"]} == {FORMER_PLAYER, str(bob.id), "ai:greedy"}
    assert {r[2] for r in stored["ratings"]} == {str(bob.id), "ai:greedy"}
    # memory follows: the running game goes on with the AI in alice's seat
    running = session_in(env, live)
    assert running.seat_of(alice.id) is None and running.seat("red").is_ai
    assert running.row.creator_id == FORMER_ID
    assert "a former player left **Red**" in public_words(env, live)
    assert session_in(env, bobs).seat_of(alice.id) is None
    assert "alice" not in str(fresh(bobs, bobs_lobby).embeds[0].to_dict())
    assert env.bot.games.in_channel(own.id) is None
    assert "aborted" in fresh(own, own_lobby).embeds[0].title
    assert alice.id not in env.bot.games.notify and alice.id not in env.bot.languages
    await finish(env, live, members)  # the others play it out
    assert not env.bot.unexpected_errors


def fresh_answer(result) -> str:
    messages = [m for m in [result.response, *result.followups] if m is not None and m.content]
    assert messages, result
    return messages[-1].content


async def test_forget_me_with_nothing_stored_says_so(simcord_env, settings) -> None:
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("quiet")
    dan = guild.add_member(env.create_user("dan"))
    asked = await dan.slash(channel, "game forget-me")
    await env.bot.games.store.forget_user(dan.id)  # the language the command stored
    env.bot.languages.pop(dan.id, None)
    result = await dan.click(asked.response, label="Forget me")
    assert fresh_answer(result) == (
        "Done: the bot has forgotten you.\n" + t("bot.privacy.nothing", "en"))


async def test_a_removed_servers_games_are_deleted_after_the_retention(
        simcord_env, settings) -> None:
    env = simcord_env
    clock = settings.clock
    gone, stays = env.create_guild("gone"), env.create_guild("stays")
    a_alice, a_bob = (gone.add_member(env.create_user(n)) for n in ("alice", "bob"))
    b_cleo = stays.add_member(env.create_user("cleo"))
    done = gone.create_text_channel("done")
    lobby = await open_game(env, done, a_alice, a_bob, ai_seats=1, round_limit=1)
    await start(env, done, a_alice, lobby)
    await finish(env, done, {a_alice.id: a_alice, a_bob.id: a_bob})
    live = gone.create_text_channel("live")
    lobby = await open_game(env, live, a_alice, ai_seats=2)
    await start(env, live, a_alice, lobby)
    running_id = session_in(env, live).id
    await open_game(env, gone.create_text_channel("lobby"), a_bob)
    mods = gone.create_role("mods", permissions=discord.Permissions(manage_guild=True))
    mod = gone.add_member(env.create_user("mod"), roles=[mods])
    await mod.slash(done, "game threads", enabled=False)
    other = stays.create_text_channel("other")
    lobby = await open_game(env, other, b_cleo, ai_seats=2)
    await start(env, other, b_cleo, lobby)
    db = settings.db_path

    def of_gone() -> list:
        return mentioning(db, str(gone.id))

    before_other = mentioning(db, str(stays.id))
    assert of_gone()
    await env.bot.get_guild(gone.id).leave()
    await env.settle()
    assert await env.bot.games.store.departures() != {}
    ended = await env.bot.games.get(running_id)
    assert ended.status == "aborted", "a game the bot can no longer show ends at once"
    assert env.bot.games.in_channel(live.id) is None

    clock.advance(30 * DAY - 60)
    await env.advance_time(settings.reconcile_tick)
    assert len(of_gone()) > 1, "nothing is deleted before the retention"
    clock.advance(60)
    await env.advance_time(settings.reconcile_tick)
    assert of_gone() == []
    stored = rows(db)
    assert {r[2] for r in stored["games"]} == {stays.id}
    assert stored["guild_departures"] == []
    for table in ("seats", "actions", "snapshots", "messages", "results", "seat_changes"):
        assert all(r[0] in {g[0] for g in stored["games"]} for r in stored[table]), table
    assert {r[0] for r in stored["ratings"]} <= {stays.id}
    assert mentioning(db, str(stays.id)) == before_other, "other servers are untouched"
    assert session_in(env, other).status == "running"
    assert not env.bot.unexpected_errors


async def test_coming_back_before_the_retention_keeps_the_games(simcord_env, settings) -> None:
    env = simcord_env
    clock = settings.clock
    guild = env.create_guild("back")
    alice = guild.add_member(env.create_user("alice"))
    channel = guild.create_text_channel("games")
    lobby = await open_game(env, channel, alice, ai_seats=2, round_limit=1)
    await start(env, channel, alice, lobby)
    await finish(env, channel, {alice.id: alice})
    game_id = (await env.bot.games.store.latest_started(channel.id)).id
    await env.bot.get_guild(guild.id).leave()
    await env.settle()
    clock.advance(10 * DAY)
    # invited back: the simulator cannot bring a server back under its old id, so the
    # listener hears of it directly
    await env.bot.get_cog("Departures").on_guild_join(discord.Object(guild.id))
    assert await env.bot.games.store.departures() == {}
    clock.advance(60 * DAY)
    await env.advance_time(settings.reconcile_tick)
    assert (await env.bot.games.store.game(game_id)).status == "finished"
    assert not env.bot.unexpected_errors


async def test_with_no_retention_the_games_go_at_once(tmp_path) -> None:
    """``PURGE_AFTER_DAYS=0``: removal deletes the server's games without waiting a tick."""
    from simcord import Env

    from bot import create_bot

    made = make_settings(tmp_path / "games.sqlite3")
    made.purge_after_days = 0
    bot = create_bot(made)
    env = Env(bot)
    await env.start()
    try:
        guild = env.create_guild("brief")
        alice = guild.add_member(env.create_user("alice"))
        channel = guild.create_text_channel("games")
        await open_game(env, channel, alice)
        assert mentioning(made.db_path, str(guild.id))
        await env.bot.get_guild(guild.id).leave()
        await env.settle()
        assert mentioning(made.db_path, str(guild.id)) == []
        assert not env.bot.unexpected_errors
    finally:
        await env.shutdown()
        if bot.store is not None:
            await bot.store.close()


async def test_a_server_missing_at_one_start_keeps_its_games(
        simcord_env, settings, new_bot) -> None:
    """Removed while the bot was away (it never heard the event): the servers with games that
    Discord leaves out of its list are counted at each start, and judged removed only once
    missing on 3 starts spanning 2 days."""
    env = simcord_env
    clock = settings.clock
    guild, other = env.create_guild("left"), env.create_guild("other")
    alice = guild.add_member(env.create_user("alice"))
    cleo = other.add_member(env.create_user("cleo"))
    channel = guild.create_text_channel("games")
    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    game_id = session_in(env, channel).id
    await open_game(env, other.create_text_channel("games"), cleo)
    await env.bot.remove_cog("Departures")  # the bot does not hear of the removal
    await env.bot.get_guild(guild.id).leave()
    await env.settle()
    assert await env.bot.games.store.departures() == {}

    async def restart_after(days: float) -> None:
        clock.advance(days * DAY)
        await env.restart_bot(new_bot())

    for days, starts in ((0, 1), (1, 2), (0.5, 3)):  # 3 starts, but over 1.5 days only
        await restart_after(days)
        store = env.bot.games.store
        assert await store.departures() == {}, f"start {starts}: nothing is judged yet"
        assert (await env.bot.games.get(game_id)).status == "running"
        assert env.bot.games.in_channel(channel.id) is not None
        absence = (await store.absences())[guild.id]
        assert absence.starts == starts
        assert set(await store.absences()) == {guild.id}, "the listed server is not counted"
    await env.bot.get_cog("Departures").on_ready()  # a new READY of the same process
    assert (await env.bot.games.store.absences())[guild.id].starts == 3, "counted once"

    await restart_after(0.5)  # the 4th start, 2 days after the first
    store = env.bot.games.store
    assert set(await store.departures()) == {guild.id}
    assert (await env.bot.games.get(game_id)).status == "aborted"
    assert env.bot.games.in_channel(channel.id) is None
    assert await store.absences() == {}
    clock.advance(30 * DAY)
    await env.advance_time(settings.reconcile_tick)
    assert await store.game(game_id) is None, "PURGE_AFTER_DAYS as for any removal"
    assert await store.guilds_with_games() == {other.id}
    assert not env.bot.unexpected_errors


async def test_a_server_listed_again_is_no_longer_counted(
        simcord_env, settings, new_bot) -> None:
    env = simcord_env
    clock = settings.clock
    guild = env.create_guild("flaky")
    alice = guild.add_member(env.create_user("alice"))
    channel = guild.create_text_channel("games")
    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    game_id = session_in(env, channel).id
    store = env.bot.games.store
    for _ in range(2):  # missing at two starts, days ago (Discord's bad moment)
        await store.note_absence(guild.id)
    clock.advance(3 * DAY)
    await env.restart_bot(new_bot())
    assert await env.bot.games.store.absences() == {}, "listed at this start: cleared"
    assert (await env.bot.games.get(game_id)).status == "running"
    assert not env.bot.unexpected_errors
