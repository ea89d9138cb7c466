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

from bot.settings import Settings
from bot.translator import CatalogueTranslator, ls
from tests.test_bot_game import ephemeral_text, open_game, session_in, start
from tests.test_bot_support import new_bot, settings, simcord_bot  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent


def test_settings_from_environment() -> None:
    plain = Settings.from_env({})
    assert plain.token is None and plain.db_path == Path("data/games.sqlite3")
    assert (plain.language, plain.log_level, plain.sync_commands) == ("en", "INFO", True)
    custom = Settings.from_env({"DISCORD_TOKEN": " abc ", "GAMES_DB": "/tmp/x.db",
                                "BOT_LANGUAGE": "ES", "LOG_LEVEL": "debug", "GUILD_ID": "42",
                                "SYNC_COMMANDS": "no"})
    assert (custom.token, custom.db_path, custom.language, custom.log_level) == (
        "abc", Path("/tmp/x.db"), "es", "DEBUG")
    assert (custom.guild_id, custom.sync_commands) == (42, False)
    with pytest.raises(ValueError, match="BOT_LANGUAGE"):
        Settings.from_env({"BOT_LANGUAGE": "klingon"})
    assert Settings.from_env({"LANGUAGE": "ru_RU:en"}).language == "ru"
    assert Settings.from_env({"LANGUAGE": "klingon"}).language == "en"  # the system's list


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
                                                        "play"}


async def test_an_unexpected_error_is_answered_and_the_game_survives(simcord_env,
                                                                     monkeypatch) -> None:
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice = guild.add_member(env.create_user("alice"))
    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    host = env.bot.games

    async def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    real = host.play
    monkeypatch.setattr(host, "play", broken)
    result = await alice.slash(channel, "play", notation="place A1 1")
    assert "something went wrong" in ephemeral_text(result)
    assert_error(env, RuntimeError, contains="a bug")  # seen, logged and answered
    monkeypatch.setattr(host, "play", real)

    env.bot.unexpected_errors.clear()

    env.inject_error("POST", "/channels/*/messages", status=500)
    result = await alice.slash(channel, "play", notation="place A1 1")
    assert "move is saved" in ephemeral_text(result)
    session = session_in(env, channel)
    assert session.game.lines[0] == "red place A1 1", "committed before announcing"
    shown = await alice.slash(channel, "game status")
    assert shown.response.attachments, "the game goes on"
    env.inject_error("POST", "/channels/*/messages", status=403, code=50013,
                     message="Missing Permissions")
    result = await alice.slash(channel, "play", notation="place A2 1")
    assert "may not post in this channel" in ephemeral_text(result)
    assert not env.bot.unexpected_errors
