"""``/game help``, ``rules``, ``list``, ``stats`` and ``leaderboard`` asked as players would, in
real games: help during a Giants bid and a Make Make turn says what to do; rules in the game's
language; the list of a server's games; a finished game in the statistics and the leaderboard,
AI seats rated per level, once, also after a restart. And ``/game status`` by a watcher."""

from __future__ import annotations

import sys
from datetime import datetime

import discord
import pytest

from bot.host.ratings import player_key
from bot.host.store import PlayerStats, Rating
from bot.table.info import (
    Command,
    fits,
    help_embed,
    leaderboard_embed,
    list_embed,
    rules_embed,
    stats_embed,
)
from render.i18n import LANGUAGES, t
from tests.helpers.bots import embed_of, home, table_messages
from tests.helpers.hidden import bid_in_dm, open_giants
from tests.helpers.tables import calls, open_game, play_first_legal, session_in, showing, start

GAMES = ("giants", "giganten", "makemake")


def field(embed: discord.Embed, name: str) -> str:
    return next((f.value or "" for f in embed.fields if f.name == name), "")


def words(embed: discord.Embed) -> str:
    return "\n".join([embed.title or "", embed.description or "",
                      *(f"{f.name}\n{f.value}" for f in embed.fields)])


def within_limits(embed: discord.Embed) -> bool:
    total = len(embed.title or "") + len(embed.description or "") + sum(
        len(f.name or "") + len(f.value or "") for f in embed.fields)
    return len(embed.description or "") <= 4096 and total <= 6000 \
        and all(len(f.value or "") <= 1024 for f in embed.fields)


# --- help --------------------------------------------------------------------------------------

async def test_help_during_a_giants_bid_says_what_to_do(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("giants")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    carol = guild.add_member(env.create_user("carol"))
    session = await open_giants(env, channel, alice, bob, ai_seats=1)
    thread = home(channel)
    assert session.kind() == "bid"
    posted = len(table_messages(env, channel))
    since = len(env.http_requests)

    asked = embed_of(await alice.slash(thread, "game help"))
    assert asked.title == "How to play here"
    text = asked.description
    assert f"**Giants #{session.id}** is being played here (the table: <#{thread.id}>)" in text
    assert "Now: ● **Red**, ■ **Blue**, sealed bids." in text, \
        "the live table's own words"
    assert "Your form is in your DMs" in text
    assert "It is your turn (you play Red). You may also type your choice in that DM, " \
        "e.g. `bid 0m`." in text
    commands = "\n".join(f.value for f in asked.fields if f.name in ("Commands", "More commands"))
    for name in ("/game new", "/game status", "/game help", "/game rules", "/game list",
                 "/game stats", "/game leaderboard", "/play"):
        assert f"`{name}`:" in commands, name
    assert "`/game help`: How to play here: the commands" in commands
    assert "`help` in that DM" in field(asked, "How moves are made")
    assert within_limits(asked)
    assert calls(env, since) == [] and len(table_messages(env, channel)) == posted, \
        "help changes nothing on the table"

    watcher = embed_of(await carol.slash(thread, "game help")).description
    assert "You are not in this game: `/game status` shows you the table" in watcher
    assert "your turn" not in watcher

    await bid_in_dm(env, alice, 1)  # alice has handed in her bid; bob has not
    after = embed_of(await alice.slash(channel, "game help")).description
    assert "Now: ■ **Blue** (bob), sealed bids." in after
    assert "You play Red; it is not your turn now." in after
    assert "It is your turn (you play Blue)." in embed_of(await bob.slash(thread, "game help")
                                                          ).description
    assert not env.bot.unexpected_errors


async def test_help_during_a_make_make_turn_and_around_games(simcord_env, monkeypatch):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("island")
    empty = guild.create_text_channel("empty")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))

    nothing = embed_of(await alice.slash(empty, "game help")).description
    assert nothing.startswith("No game is running in this channel. Open one with `/game new`")

    lobby = await open_game(env, channel, alice)
    waiting = embed_of(await bob.slash(channel, "game help")).description
    assert waiting.startswith("A Make Make lobby is open here: 1 of 4 seats taken, at least 3 "
                              "needed. Press **Join** on its card;")
    assert "You are seated" not in waiting
    assert "You are seated as Red." in embed_of(await alice.slash(channel, "game help")
                                                 ).description
    await bob.click(lobby, label="Join")
    await alice.click(lobby, label="Add AI")
    await start(env, channel, alice, lobby)
    thread = home(channel)

    turn = embed_of(await alice.slash(thread, "game help")).description
    assert "Now: ● **Red** (alice), to place, withdraw or pass.\n" in turn, \
        "every move is a few taps away below the table: the status need not point to /play"
    assert "It is your turn: you play Red." in turn
    session = session_in(env, channel)
    legal = [str(a) for a in session.legal("red")]
    assert f"Legal now, for example: `{legal[0]}`, `{legal[1]}`, `{legal[2]}`." in turn
    other = embed_of(await bob.slash(thread, "game help")).description
    assert "You play Blue; it is not your turn now." in other and "Legal now" not in other

    await play_first_legal(env, channel, {alice.id: alice, bob.id: bob})
    assert "Now: ■ **Blue** (bob)" in embed_of(await bob.slash(thread, "game help")
                                                     ).description

    # in the asker's language (simcord's users all speak en-US; here bob speaks Russian)
    loaded = sys.modules["bot.exts.info"]  # the extension as the bot loaded it
    monkeypatch.setattr(loaded, "user_lang", lambda interaction: "ru")
    russian = embed_of(await bob.slash(thread, "game help"))
    assert russian.title == t("bot.info.help.title", "ru") != "How to play here"
    assert t("bot.info.help.your_turn", "ru", colour=t("bot.colour.blue", "ru")) \
        in russian.description
    assert "`/game help`: " + t("bot.cmd.help.description", "ru") in field(
        russian, t("bot.info.help.commands", "ru"))
    assert not env.bot.unexpected_errors


# --- rules -------------------------------------------------------------------------------------

async def test_rules_in_the_games_language_and_by_choice(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("juegos")
    empty = guild.create_text_channel("empty")
    alice = guild.add_member(env.create_user("alice"))

    which = await alice.slash(empty, "game rules")
    assert which.ephemeral and "Which game? No game is running in this channel" \
        in which.response.content
    english = embed_of(await alice.slash(empty, "game rules", game="makemake"))
    assert english.title == "Make Make: the rules in brief"
    assert "**Place** (`place B2 3`" in english.description
    decisions = field(english, "Decisions of ours (not published rules)")
    assert "The board (35 hexes" in decisions
    assert "This game's options" not in [f.name for f in english.fields], "no game here"

    opened = await alice.slash(channel, "game new", game="makemake", round_limit=3,
                               language="es")
    assert opened.response.embeds[0].title == "Make Make: nueva partida"
    spanish = embed_of(await alice.slash(channel, "game rules"))
    assert spanish.title == t("bot.rules.makemake.title", "es") == \
        "Make Make: resumen de las reglas"
    assert spanish.description == t("bot.rules.makemake.body", "es")
    assert field(spanish, t("bot.info.rules.decisions", "es")) == \
        t("bot.rules.makemake.decisions", "es")
    assert field(spanish, t("bot.info.rules.options", "es")) == "`round_limit=3`"
    other = embed_of(await alice.slash(channel, "game rules", game="giants"))
    assert other.title == "Giants: the rules in brief", "another game: the asker's language"
    for embed in (english, spanish, other):
        assert within_limits(embed)
    assert not env.bot.unexpected_errors


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", GAMES)
def test_every_rules_summary_fits_one_screen(game: str, lang: str) -> None:
    embed = rules_embed(game, lang, "round_limit=5")
    assert fits(embed), (len(embed.description), [len(v) for _, v in embed.fields])
    assert embed.title != f"bot.rules.{game}.title"
    chinese = lang in ("zh-CN", "zh-TW")
    assert len(embed.description) > (600 if chinese else 1500), "a summary, not a stub"
    if lang != "en":
        assert embed.description != t(f"bot.rules.{game}.body", "en")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_answer_fits_discord_in_every_language(lang: str) -> None:
    many = [Command(f"/game command{i}", "x" * 90) for i in range(40)]
    assert fits(help_embed(None, 1, lang, many))
    assert fits(list_embed([], lang))
    stats = [PlayerStats(g, 3, 1, 5, 100) for g in GAMES]
    rated = {g: Rating("1", 27.0, 6.0, 3) for g in GAMES}
    assert fits(stats_embed("alice", stats, rated, lang))
    board = [Rating(f"{i}", 25.0 + i, 5.0, i) for i in range(12)] + [
        Rating("ai:greedy", 24.0, 2.0, 40)]
    assert fits(leaderboard_embed("giants", board, lang))


# --- the list of a server's games --------------------------------------------------------------

def stamp_of(iso: str) -> str:
    return f"<t:{int(datetime.fromisoformat(iso).timestamp())}:R>"


async def test_list_shows_the_games_of_this_server_in_two_channels(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    island = guild.create_text_channel("island")
    quarry = guild.create_text_channel("quarry")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    elsewhere = env.create_guild()
    stranger = elsewhere.add_member(env.create_user("stranger"))
    away = elsewhere.create_text_channel("away")

    assert "No game is running in this server" in embed_of(
        await alice.slash(island, "game list")).description
    await open_game(env, away, stranger, ai_seats=2)  # another server's lobby: not listed

    lobby = await open_game(env, island, alice, bob, ai_seats=1)
    await start(env, island, alice, lobby)
    makemake = session_in(env, island)
    env.bot.settings.clock.advance(600)
    await open_game(env, quarry, bob)
    waiting = session_in(env, quarry)

    listed = embed_of(await bob.slash(quarry, "game list"))
    assert listed.title == "Games in this server"
    entries = listed.description.split("\n\n")
    assert len(entries) == 2, "the two games of this server, not the other server's"
    store = env.bot.games.store
    first = await store.game(makemake.id)
    assert entries[0] == (
        f"**Make Make #{makemake.id}** · <#{makemake.row.home_id}> · round 1\n"
        f"Seats: Red ({alice.mention}), Blue ({bob.mention}), Green (AI, standard)\n"
        f"Turn: Red ({alice.mention}) · last move {stamp_of(first.updated_at)}")
    assert makemake.row.home_id == home(island).id != island.id, "a link to the game's thread"
    second = await store.game(waiting.id)
    assert entries[1] == (
        f"**Make Make #{waiting.id}** · <#{quarry.id}> · lobby, waiting for players\n"
        f"Seats: Red ({bob.mention}) · last change {stamp_of(second.updated_at)}")

    env.bot.settings.clock.advance(3600)  # a move changes whose turn it is and since when
    await play_first_legal(env, island, {alice.id: alice, bob.id: bob})
    moved = await store.game(makemake.id)
    assert moved.updated_at > first.updated_at
    again = embed_of(await alice.slash(home(island), "game list")).description.split("\n\n")
    assert again[0].startswith(f"**Make Make #{waiting.id}**"), "the longest waiting first"
    assert again[1].endswith(f"Turn: Blue ({bob.mention}) · last move "
                             f"{stamp_of(moved.updated_at)}")
    assert "stranger" not in words(embed_of(await alice.slash(island, "game list")))
    assert not env.bot.unexpected_errors


# --- records and ratings -----------------------------------------------------------------------

async def finish(env, channel, members) -> None:
    """Play the channel's game to its end, each human taking their first offer."""
    game_id = session_in(env, channel).id
    for _ in range(200):
        if (await env.bot.games.get(game_id)).status != "running":
            return
        await play_first_legal(env, channel, members)
    raise AssertionError("the game did not end")


async def test_a_finished_game_updates_stats_and_the_leaderboard_once(simcord_env, new_bot):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("island")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    carol = guild.add_member(env.create_user("carol"))
    members = {alice.id: alice, bob.id: bob}

    none = embed_of(await alice.slash(channel, "game stats"))
    assert none.description == "alice has not finished a game in this server yet."
    empty = embed_of(await alice.slash(channel, "game leaderboard", game="makemake"))
    assert "Nobody has finished a game of Make Make" in empty.description

    lobby = await open_game(env, channel, alice, bob, ai_seats=2, round_limit=1)
    await start(env, channel, alice, lobby)
    session = session_in(env, channel)
    game_id = session.id
    await finish(env, channel, members)
    session = await env.bot.games.get(game_id)
    result = session.result()
    assert result is not None and session.status == "finished"

    store = env.bot.games.store
    rows = await store.results(game_id)
    assert sorted(r.player for r in rows) == sorted(
        [str(alice.id), str(bob.id), "ai:greedy", "ai:greedy"]), "AI seats rated per level"
    place = {r.colour: r.place for r in rows}
    for row in rows:
        assert row.score == result.scores[row.colour]
        assert row.won == (row.colour in result.winners)
        assert (row.place == 1) == row.won or (not result.winners)

    mine = embed_of(await alice.slash(home(channel), "game stats"))
    assert mine.title == "alice: results in this server"
    value = field(mine, "Make Make")
    alice_row = next(r for r in rows if r.player == str(alice.id))
    assert value.startswith(f"Plays: 1 · wins: {int(alice_row.won)}\nAverage place: "
                            f"{place['red']} · average score: {alice_row.score} points")
    rating = await store.rating(guild.id, "makemake", str(alice.id))
    assert rating is not None and rating.plays == 1
    assert f"\nRating: {rating.mu - 3 * rating.sigma:.1f}" in value
    theirs = embed_of(await carol.slash(channel, "game stats", user=bob))
    assert theirs.title == "bob: results in this server" and "Plays: 1" in field(theirs,
                                                                                 "Make Make")
    assert "has not finished" in embed_of(await carol.slash(channel, "game stats")).description

    board = embed_of(await bob.slash(channel, "game leaderboard", game="makemake"))
    assert board.title == "Make Make: leaderboard of this server"
    lines = board.description.split("\n\n")[0].splitlines()
    assert len(lines) == 3, "two humans and one AI level"
    assert any(line.endswith("AI (standard): " + line.split(": ")[1].split(" ·")[0]
                             + " · plays: 2") for line in lines), lines
    ranked = [await store.rating(guild.id, "makemake", r) for r in (
        str(alice.id), str(bob.id), "ai:greedy")]
    best = max(ranked, key=lambda r: r.mu - 3 * r.sigma)
    assert lines[0].startswith("1. ") and (
        f"<@{best.player}>" in lines[0] or "AI (standard)" in lines[0])
    assert "μ − 3σ" in board.description
    before = [await store.rating(guild.id, "makemake", p) for p in (str(alice.id), "ai:greedy")]

    # A restart, a reconcile and another look change nothing: the game was rated once.
    await env.restart_bot(new_bot())
    await env.bot.outbox.reconcile_all()
    store = env.bot.games.store
    assert len(await store.results(game_id)) == 4
    assert [await store.rating(guild.id, "makemake", p)
            for p in (str(alice.id), "ai:greedy")] == before
    assert not await env.bot.games.rate(await env.bot.games.get(game_id))
    again = embed_of(await alice.slash(channel, "game stats"))
    assert field(again, "Make Make") == value
    assert embed_of(await bob.slash(channel, "game leaderboard", game="makemake")
                    ).description == board.description

    # a second game in the same server adds to the same figures
    lobby = await open_game(env, channel, alice, bob, ai_seats=1, round_limit=1)
    await start(env, channel, alice, lobby)
    await finish(env, channel, members)
    assert field(embed_of(await alice.slash(channel, "game stats")),
                 "Make Make").startswith("Plays: 2 · ")
    greedy = await store.rating(guild.id, "makemake", "ai:greedy")
    assert greedy is not None and greedy.plays == 3
    assert player_key(None, "greedy") == "ai:greedy"
    assert not env.bot.unexpected_errors


# --- status by a watcher -----------------------------------------------------------------------

async def test_status_asked_by_a_non_player_is_private(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("island")
    alice = guild.add_member(env.create_user("alice"))
    carol = guild.add_member(env.create_user("carol"))
    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    thread = home(channel)
    live = showing(env, channel)
    posted = len(table_messages(env, channel))
    since = len(env.http_requests)
    for place in (thread, channel):
        status = await carol.slash(place, "game status")
        assert status.ephemeral and status.response.ephemeral
        assert status.response.embeds[0].title == live.embeds[0].title
    assert calls(env, since) == [] and len(table_messages(env, channel)) == posted, \
        "a watcher's look posts nothing in public"
    assert not env.bot.unexpected_errors
