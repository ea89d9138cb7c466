"""Settings, ``python -m bot``, command names from the catalogue, and the error handler."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import discord
import pytest
from discord import app_commands
from simcord import assert_error

import bot.adapter.outbox as outbox_module
from bot.constants import PING_AFTER, RECONCILE_TICK, REFUSED_FIRST
from bot.settings import Settings
from bot.translator import CatalogueTranslator, ls
from tests.helpers.bots import home
from tests.helpers.tables import (
    LONG_BACKOFF,
    boards,
    calls,
    ephemeral_text,
    field,
    open_game,
    session_in,
    showing,
    start,
)

ROOT = Path(__file__).resolve().parent.parent


def test_settings_from_environment() -> None:
    plain = Settings.from_env({})
    assert plain.token is None and plain.db_path == Path("data/games.sqlite3")
    assert (plain.language, plain.log_level, plain.sync_commands) == ("en", "INFO", True)
    assert (plain.guild_id, plain.sqlite_synchronous) == (None, "FULL")
    assert (plain.ping_after, plain.reconcile_tick) == (PING_AFTER, RECONCILE_TICK) == (180, 60)
    assert plain.extensions == ("bot.exts.errors", "bot.exts.lobby", "bot.exts.play",
                                "bot.exts.dms", "bot.exts.timers", "bot.exts.watch",
                                "bot.exts.info", "bot.exts.pace", "bot.exts.seats",
                                "bot.exts.records", "bot.exts.privacy",
                                "bot.exts.mine")
    custom = Settings.from_env({"DISCORD_TOKEN": " abc ", "GAMES_DB": "/tmp/x.db",
                                "BOT_LANGUAGE": "ES", "LOG_LEVEL": "debug",
                                "GUILD_ID": "123456789012345678", "SYNC_COMMANDS": "no",
                                "SQLITE_SYNCHRONOUS": "normal"})
    assert (custom.token, custom.db_path, custom.language, custom.log_level) == (
        "abc", Path("/tmp/x.db"), "es", "DEBUG")
    assert (custom.guild_id, custom.sync_commands) == (123456789012345678, False)
    assert custom.sqlite_synchronous == "NORMAL"
    with pytest.raises(ValueError, match="BOT_LANGUAGE"):
        Settings.from_env({"BOT_LANGUAGE": "klingon"})
    for given in ("zh-TW", "zh-tw", "ZH_TW"):
        assert Settings.from_env({"BOT_LANGUAGE": given}).language == "zh-TW"
    for given in ("zh", "ZH", "zh-CN", "zh-cn"):
        assert Settings.from_env({"BOT_LANGUAGE": given}).language == "zh-CN"
    # the system's LANGUAGE is gettext's list, not the bot's: it is never read
    assert Settings.from_env({"LANGUAGE": "ru_RU:en"}).language == "en"
    assert Settings.from_env({"LANGUAGE": "zh_TW:zh", "BOT_LANGUAGE": " "}).language == "en"


def test_running_without_a_token_says_what_to_do() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    done = subprocess.run([sys.executable, "-m", "bot"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "DISCORD_TOKEN" in done.stderr
    assert "discord.com/developers/applications" in done.stderr and "Bot" in done.stderr


async def test_command_strings_come_from_the_catalogue() -> None:
    translator = CatalogueTranslator()
    name = ls("bot.cmd.play.description")
    assert name.message == "Play your move, e.g. place B2 3"
    assert await translator.translate(name, discord.Locale.american_english, None) is None
    assert await translator.translate(name, discord.Locale.japanese, None) is None


async def test_translations_discord_would_refuse_are_left_out(monkeypatch) -> None:
    import bot.translator as module

    spanish = {"bot.cmd.play.name": "jugar", "bot.cmd.game.name": "Nuevo juego",
               "bot.cmd.play.description": "Juega tu jugada"}
    monkeypatch.setattr(module, "catalogue", lambda lang: spanish if lang == "es" else {})
    translator = CatalogueTranslator()

    def context(location):
        return app_commands.TranslationContext(location=location, data=None)

    names = app_commands.TranslationContextLocation
    es = discord.Locale.spain_spanish
    assert await translator.translate(ls("bot.cmd.play.name"), es,
                                      context(names.command_name)) == "jugar"
    assert await translator.translate(ls("bot.cmd.game.name"), es,
                                      context(names.group_name)) is None
    assert await translator.translate(ls("bot.cmd.play.description"), es,
                                      context(names.command_description)) == "Juega tu jugada"


async def test_commands_are_synced(simcord_env) -> None:
    guild = simcord_env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(simcord_env.create_user("alice"))
    assert set(alice.available_commands(channel)) >= {"game new", "game status", "game abort",
                                                        "game threads", "play"}


async def test_an_unexpected_error_is_answered_and_the_game_survives(simcord_env, settings,
                                                                     monkeypatch) -> None:
    """A bug is answered politely and changes nothing; Discord failing to show the table never
    costs a move: the move is committed and answered, and the table catches up later (503:
    the outbox's retry; 403 Missing Permissions: the first periodic reconcile once the
    channel's wait is over)."""
    env = simcord_env
    monkeypatch.setattr(outbox_module, "RETRY_FIRST", LONG_BACKOFF)
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(env.create_user("alice"))
    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    thread = home(channel)
    host = env.bot.games

    async def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    real = host.play
    monkeypatch.setattr(host, "play", broken)
    since = len(env.http_requests)
    result = await alice.slash(thread, "play", notation="place A1 1")
    assert "something went wrong" in ephemeral_text(result)
    assert_error(env, RuntimeError, contains="a bug")  # seen, logged and answered
    assert session_in(env, channel).seq == 0 and calls(env, since) == []
    monkeypatch.setattr(host, "play", real)
    env.bot.unexpected_errors.clear()

    # Red's move, then the AI's: round 2 needs a new table message, which Discord refuses once.
    env.inject_error("POST", f"/channels/{thread.id}/messages", status=503)
    result = await alice.slash(thread, "play", notation="place A1 1")
    assert ephemeral_text(result) == ("Played: place 1 token on A1\n"
        "As notation: `place A1 1`")
    session = session_in(env, channel)
    assert session.game.lines[0] == "red place A1 1", "committed before it is shown"
    assert session.pending() == ("red",) and session.view()["round"] == 2
    assert len(boards(env, channel)) == 1, "the new stage is not shown yet"
    shown = await alice.slash(thread, "game status")
    assert shown.response.embeds[0].title.endswith("Round 2 · Red's turn"), "the game goes on"
    await env.advance_time(LONG_BACKOFF)  # the outbox's retry
    assert len(boards(env, channel)) == 2
    assert showing(env, channel).embeds[0].title.endswith("Round 2 · Red's turn")

    # Red again, then the AIs: round 3's message is refused for lack of permission, once.
    env.inject_error("POST", f"/channels/{thread.id}/messages", status=403, code=50013,
                     message="Missing Permissions")
    result = await alice.slash(thread, "play", notation="place A2 1")
    assert ephemeral_text(result) == ("Played: place 1 token on A2\n"
        "As notation: `place A2 1`")
    assert session_in(env, channel).view()["round"] == 3
    assert len(boards(env, channel)) == 2
    await env.advance_time(settings.reconcile_tick)  # the channel waits out its refusal
    assert len(boards(env, channel)) == 2
    settings.clock.advance(REFUSED_FIRST)  # the bot's clock: the wait is over, and the
    await env.advance_time(settings.reconcile_tick)  # next periodic reconcile tries again
    assert len(boards(env, channel)) == 3
    live = showing(env, channel)
    assert live.embeds[0].title.endswith("Round 3 · Red's turn")
    assert "🤖" in field(live, "This stage")
    assert not env.bot.unexpected_errors
