"""One language per person: every private message to a user (DM screen, DM prompt, its
confirmation, the 🔒 ephemeral, answers to a typed DM) speaks the language of that user's Discord
locale, remembered in the store from any interaction, from the first DM on; channel messages
speak the game's language; a new game's language follows the server's preferred locale when it
is one of ours, else the bot's default. And the schema migration that adds the remembered
language and stores Simplified Chinese as ``zh-CN``.

The simulator sends every interaction with the locale ``en-US``; the ``locales`` fixture gives
chosen users another one, as their Discord client would."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.games import game_ui
from bot.host.sessions import Session
from bot.host.store import MIGRATIONS, SCHEMA_VERSION, SqliteStore
from bot.table.words import colour_name, game_name, game_text
from render.i18n import language as lang_of
from render.i18n import t
from tests.helpers.bots import (
    dm_messages,
    dm_prompt,
    home,
    live_table,
    table_messages,
)
from tests.helpers.hidden import ids_of, in_dm, labels, shown

ES, RU, EN = lang_of("es-ES"), lang_of("ru"), lang_of("en-US")


# --- what the messages say ----------------------------------------------------------------------

def session_in(env, channel) -> Session:
    session = env.bot.games.in_channel(channel.id)
    assert session is not None
    return session


def heads(session: Session, colour: str, lang: str) -> dict[str, str]:
    """How each kind of private message begins in ``lang``."""
    words = {"game": game_name(session.row.game, lang), "id": session.id,
             "colour": colour_name(colour, lang), "channel": f"<#{session.row.home_id}>"}
    return {"screen": t("bot.hidden.screen", lang, **words),
            "prompt": t("bot.hidden.prompt.head", lang, **words),
            "submitted": t("bot.hidden.submitted", lang, id=session.id, move="|").split("|")[0]}


def round_words(lang: str, number: int = 1) -> str:
    """The middle of a live table's title in ``lang``: `` · Round 1 · ``."""
    return t("bot.table.title", lang, game="G", id=0, round=number, stage="S")[len("G #0"):-1]


def kind_of(text: str, session: Session, colour: str, lang: str) -> str | None:
    """Which private message ``text`` is in ``lang`` (None: it is not one, in that language)."""
    return next((kind for kind, head in heads(session, colour, lang).items()
                 if text.startswith(head)), None)


def assert_private_in(env, member, session: Session, colour: str, lang: str,
                      other: str) -> None:
    """Every DM the member got from the bot is one of ours, in ``lang``, never in ``other``."""
    messages = dm_messages(env, member)
    assert messages, f"{member.name} got no DM"
    for message in messages:
        assert kind_of(message.content, session, colour, lang), (lang, message.content)
        assert not kind_of(message.content, session, colour, other), message.content


async def open_giants(env, channel, creator, *joiners, **more) -> Session:
    opened = await creator.slash(channel, "game new", game="giants", options="round_limit=2",
                                 **more)
    lobby = opened.response
    assert lobby is not None and not opened.ephemeral, opened
    lang = session_in(env, channel).row.language
    for member in joiners:
        joined = await member.click(lobby, label=t("bot.lobby.button.join", lang))
        assert not joined.followups, joined.followups[0].content
    started = await creator.click(lobby, label=t("bot.lobby.button.start", lang))
    assert not started.followups, started.followups[0].content
    session = session_in(env, channel)
    assert session.status == "running" and session.kind() == "bid"
    return session


async def bid_markers(actor, prompt: discord.Message, markers: int, lang: str) -> str:
    """Pick the markers on a bid form (DM or ephemeral) and submit it in ``lang``; gives what
    the form said after the pick."""
    select = next(i for i in ids_of(prompt) if ":f0:" in i)
    picked = await actor.select(prompt, [str(markers)], custom_id=select)
    assert not picked.followups, picked.followups[0].content
    assert picked.response is not None
    said = picked.response.content
    done = await actor.click(picked.response, label=t("bot.hidden.submit", lang))
    assert not done.followups, done.followups[0].content
    return said


def counting_writes(env, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str]]:
    """Every language the bot writes to the store from now on."""
    writes: list[tuple[int, str]] = []
    store = env.bot.store
    original: Callable[..., Any] = store.set_user_language

    async def set_user_language(user_id: int, language: str) -> None:
        writes.append((user_id, language))
        await original(user_id, language)

    monkeypatch.setattr(store, "set_user_language", set_user_language)
    return writes


# --- one language per person --------------------------------------------------------------------

async def test_a_spanish_player_in_an_english_game_gets_every_dm_in_spanish(simcord_env,
                                                                            locales):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("moai")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    locales[alice.id] = "es-ES"
    session = await open_giants(env, channel, alice, bob, cleo)
    assert session.row.language == EN, "the server speaks English: so does the game"

    assert_private_in(env, alice, session, "red", ES, EN)  # the first DMs already
    prompt = dm_prompt(env, alice)
    assert prompt is not None and kind_of(prompt.content, session, "red", ES) == "prompt"
    assert t("bot.hidden.submit", ES) in labels(prompt)
    assert t("bot.hidden.submit", EN) not in labels(prompt)
    for member, colour in ((bob, "blue"), (cleo, "green")):
        assert_private_in(env, member, session, colour, EN, ES)

    picked = await bid_markers(alice.user, prompt, 1, ES)
    assert kind_of(picked, session, "red", ES) == "prompt", "no switch on a click"
    handed = in_dm(env, alice, prompt.id)
    assert kind_of(handed.content, session, "red", ES) == "submitted", handed.content
    assert game_ui("giants").move_words("bid 1m", ES) in handed.content  # "pujar 1 marcador"
    assert "`bid 1m`" not in handed.content and not handed.components, "words, not notation"
    assert_private_in(env, alice, session, "red", ES, EN)

    typed = await bob.send_dm("help")  # a typed DM is answered in its writer's language
    [reply] = [m for m in dm_messages(env, bob) if m.id > typed.id]
    assert reply.content.startswith(t("bot.dm.help", EN, id=session.id, example="x")
                                    .split("`")[0])

    table = live_table(env, channel)  # the channel: English, whoever acted
    assert table.embeds[0].title.startswith(f"{game_name('giants', EN)} #{session.id}")
    assert round_words(EN) in table.embeds[0].title, table.embeds[0].title
    for message in table_messages(env, channel):
        assert not any(kind_of(message.content, session, c, ES) for c in ("red", "blue"))
    lobby = next(m for m in table_messages(env, channel) if m.embeds
                 and m.embeds[0].title.startswith(game_name("giants", EN) + ":"))
    assert lobby.embeds[0].title == t("bot.lobby.title_running", EN,
                                      game=game_name("giants", EN))

    opened = await alice.click(table, label=game_text("giants", "hidden.open_due", EN))
    private = shown(opened)  # the 🔒 ephemeral: Alice's screen, in Spanish
    assert private.ephemeral and private.content.startswith(
        t("bot.hidden.nothing_due", ES)), private.content
    assert await env.bot.store.user_languages() == {alice.id: ES, bob.id: EN, cleo.id: EN}
    assert not env.bot.unexpected_errors


async def test_a_changed_locale_is_written_once_and_spoken_from_then_on(simcord_env, locales,
                                                                        monkeypatch, new_bot):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("moai")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    locales[alice.id] = "es-ES"
    session = await open_giants(env, channel, alice, bob, cleo)
    [screen] = [m for m in dm_messages(env, alice)
                if kind_of(m.content, session, "red", ES) == "screen"]

    writes = counting_writes(env, monkeypatch)
    for _ in range(2):  # the same locale again: remembered, nothing written
        await alice.slash(home(channel), "game help")
    assert writes == []

    locales[alice.id] = "ru-RU"
    status = await alice.slash(home(channel), "game status")  # an ephemeral, and a reconcile
    assert writes == [(alice.id, RU)], "a new language is written once"
    assert status.ephemeral and round_words(RU) in shown(status).embeds[0].title
    assert await env.bot.store.user_languages() == {alice.id: RU, bob.id: EN, cleo.id: EN}
    now = in_dm(env, alice, screen.id)
    assert kind_of(now.content, session, "red", RU) == "screen", "the screen is edited to it"
    prompt = dm_prompt(env, alice)
    assert prompt is not None
    picked = await bid_markers(alice.user, prompt, 0, RU)  # the prompt sent in Spanish
    assert kind_of(picked, session, "red", RU) == "prompt"  # answers in Russian now
    assert kind_of(in_dm(env, alice, prompt.id).content, session, "red", RU) == "submitted"
    await alice.slash(home(channel), "game help")
    assert writes == [(alice.id, RU)]

    calls = len(env.http_requests)
    await env.restart_bot(new_bot())  # remembered in the store: the same DMs, untouched
    assert env.bot.languages == {alice.id: RU, bob.id: EN, cleo.id: EN}
    assert [r for r in env.http_requests[calls:] if "/messages" in r.path
            and r.method in ("POST", "PATCH")] == []
    assert kind_of(in_dm(env, alice, screen.id).content, session, "red", RU) == "screen"
    assert not env.bot.unexpected_errors


async def test_a_seat_whose_user_never_spoke_gets_the_games_language_until_theirs_is_known(
        simcord_env, locales):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("moai")
    alice, bob, dan = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "dan"))
    opened = await alice.slash(channel, "game new", game="giants", options="round_limit=2",
                               language=RU)
    lobby = opened.response
    session = session_in(env, channel)
    await bob.click(lobby, label=t("bot.lobby.button.join", RU))
    await env.bot.games.join(session.id, dan.id, "dan")  # seated without an interaction
    await alice.click(lobby, label=t("bot.lobby.button.start", RU))
    session = session_in(env, channel)
    assert session.kind() == "bid" and dan.id not in env.bot.languages

    assert_private_in(env, dan, session, "green", RU, EN)  # not known: the game's language
    assert_private_in(env, alice, session, "red", EN, RU)  # known: their own
    assert_private_in(env, bob, session, "blue", EN, RU)
    [screen] = [m for m in dm_messages(env, dan)
                if kind_of(m.content, session, "green", RU) == "screen"]

    locales[dan.id] = "es-419"
    prompt = dm_prompt(env, dan)
    assert prompt is not None
    picked = await bid_markers(dan.user, prompt, 0, ES)  # known from this click on
    assert kind_of(picked, session, "green", ES) == "prompt"
    assert kind_of(in_dm(env, dan, prompt.id).content, session, "green", ES) == "submitted"
    assert kind_of(in_dm(env, dan, screen.id).content, session, "green", ES) == "screen"
    assert env.bot.languages[dan.id] == ES
    assert round_words(RU) in live_table(env, channel).embeds[0].title
    assert not env.bot.unexpected_errors


async def test_seats_that_change_hands_speak_each_holders_language(simcord_env, locales):
    """A seat taken over by a user whose first interaction that is: the first DM speaks their
    language; a seat given to a user who never interacted: the game's; the previous holders'
    DMs say they no longer hold it in their own."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("moai")
    alice, bob, cleo, erin, frank = (guild.add_member(env.create_user(n))
                                     for n in ("alice", "bob", "cleo", "erin", "frank"))
    locales[erin.id] = "es-ES"
    session = await open_giants(env, channel, alice, bob, cleo, language=RU)
    thread = home(channel)
    bob_dms = [m.id for m in dm_messages(env, bob)]
    assert_private_in(env, bob, session, "blue", EN, RU)

    await bob.slash(thread, "game leave")
    for message_id in bob_dms:
        said = in_dm(env, bob, message_id).content
        assert colour_name("blue", EN) in said and colour_name("blue", RU) not in said, said
    took = await erin.slash(thread, "game take", colour="blue")  # her first interaction
    assert took.ephemeral
    assert_private_in(env, erin, session, "blue", ES, RU)

    await alice.slash(thread, "game take", colour="green", user=frank)
    assert frank.id not in env.bot.languages
    assert_private_in(env, frank, session, "green", RU, EN)
    assert dm_prompt(env, frank) is not None, "Green's bid moved to frank, in Russian"
    assert not env.bot.unexpected_errors


# --- a new game's language -----------------------------------------------------------------------

@pytest.mark.parametrize(("preferred", "expected"), [
    ("ru", RU), ("es-ES", ES), ("zh-CN", lang_of("zh-CN")), ("zh-TW", lang_of("zh-TW")),
    ("en-GB", EN), ("en-US", "bot"), ("fr", "bot"), ("ja", "bot")])
async def test_a_new_game_speaks_the_servers_language_when_it_is_ours(simcord_env, preferred,
                                                                     expected):
    env = simcord_env
    env.bot.settings.language = ES if expected != ES else RU  # BOT_LANGUAGE
    wanted = env.bot.settings.language if expected == "bot" else expected
    guild = env.create_guild(preferred_locale=preferred)
    channel = guild.create_text_channel("island")
    alice = guild.add_member(env.create_user("alice"))
    opened = await alice.slash(channel, "game new", game="makemake")
    assert not opened.ephemeral
    assert session_in(env, channel).row.language == wanted
    assert opened.response.embeds[0].title == t("bot.lobby.title", wanted,
                                                game=game_name("makemake", wanted))
    await alice.slash(channel, "game abort")
    other = await alice.slash(channel, "game new", game="makemake", language=EN)
    assert session_in(env, channel).row.language == EN, "the creator's choice comes first"
    assert other.response.embeds[0].title == t("bot.lobby.title", EN,
                                               game=game_name("makemake", EN))
    assert not env.bot.unexpected_errors


# --- the migration --------------------------------------------------------------------------------

async def test_migration_9_remembers_languages_and_renames_simplified_chinese(
        tmp_path: Path) -> None:
    db_path = tmp_path / "games.sqlite3"
    with sqlite3.connect(db_path) as old:
        for version in range(1, 9):
            old.executescript(MIGRATIONS[version])
        old.execute("PRAGMA user_version = 8")
        for game_id, lang in ((1, "zh"), (2, "zh-TW"), (3, "es"), (4, "zh")):
            old.execute("INSERT INTO games (id, channel_id, game, seed, status, creator_id,"
                        " language, ai_level, created_at, updated_at) VALUES (?, ?, 'makemake',"
                        " 1, 'finished', 1, ?, 'random', 'then', 'then')",
                        (game_id, game_id, lang))
        old.execute("INSERT INTO user_settings (user_id, notify) VALUES (7, 1)")
    store = await SqliteStore.open(db_path)
    try:
        assert SCHEMA_VERSION >= 9
        with sqlite3.connect(db_path) as other:
            assert other.execute("PRAGMA user_version").fetchall() == [(SCHEMA_VERSION,)]
            assert other.execute("SELECT id, language FROM games ORDER BY id").fetchall() == [
                (1, "zh-CN"), (2, "zh-TW"), (3, "es"), (4, "zh-CN")]
            assert "locale" in {row[1] for row in other.execute(
                "PRAGMA table_info(user_settings)")}
        assert await store.notified_users() == {7}, "a user's settings stay"
        assert await store.user_languages() == {}, "no language is known before a click"
        await store.set_user_language(7, RU)
        await store.set_user_language(8, ES)
        assert await store.user_languages() == {7: RU, 8: ES}
        assert await store.notified_users() == {7}
        await store.set_notify(8, True)
        assert await store.user_languages() == {7: RU, 8: ES}
    finally:
        await store.close()
    backup = db_path.with_name(f"{db_path.name}.v8.bak")
    with sqlite3.connect(backup) as kept:
        assert kept.execute("SELECT language FROM games WHERE id = 1").fetchall() == [("zh",)]
