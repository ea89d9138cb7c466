"""A fourth game that lives only under ``tests/`` (Sealed Nim, :mod:`tests.nim`), registered by
the test itself and played end to end through Discord: its lobby option as a parameter of
``/game new``, a secret take by DM, the live table, undo, a restart and the record, without a
line of it in a shared file."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from discord import app_commands

from bot.app import GameBot
from bot.exts.info import leaderboard_command, rules_command
from bot.exts.lobby import SLASH_MOST, lobby_flags, new_command
from bot.games import game_ui, playable
from bot.table.pool import BOARDS
from render.i18n import LANGUAGES, has, needed_categories, t
from rules.registry import GAME_NAMES, GameEntry, game_module, register, registered, unregister
from tests.helpers.bots import (
    Bots,
    dm_messages,
    dm_prompt,
    home,
    live_components,
    live_table,
    table_messages,
)
from tests.nim import ENTRY
from tests.nim import render as nim_render

ROOT = Path(__file__).resolve().parent.parent
SHARED = ("bot", "rules", "render", "data", "scripts", "docs")
"""Where a game that registers in one place has no line of its own."""


@pytest.fixture
def nim() -> Iterator[GameEntry]:
    with registered(ENTRY) as entry:
        yield entry


@pytest.fixture
def simcord_bot(nim: GameEntry, new_bot: Bots) -> GameBot:
    """The bot, built once the game is registered (its slash options are made then)."""
    return new_bot()


def test_no_shared_file_names_the_fourth_game() -> None:
    named = [str(path.relative_to(ROOT)) for top in SHARED for path in (ROOT / top).rglob("*")
             if path.is_file() and path.suffix in (".py", ".json", ".md", ".toml")
             and re.search(r"\bnim\b", path.read_text(encoding="utf-8"), re.IGNORECASE)]
    assert named == []


def test_its_lobby_option_is_a_parameter_of_game_new_while_it_is_registered() -> None:
    def stones() -> list[tuple[int, int]]:
        return [(int(p.min_value), int(p.max_value)) for p in new_command().parameters
                if p.name == "stones"]
    assert stones() == []
    with registered(ENTRY):
        assert stones() == [(3, 1000)]
        choices = [c for p in new_command().parameters if p.name == "game" for c in p.choices]
        assert [c.value for c in choices][-1] == "nim" and choices[-1].name == "Sealed Nim"
    assert stones() == []


def test_it_is_a_choice_of_game_rules_and_leaderboard_while_it_is_registered() -> None:
    def offered(command: app_commands.Command[Any, ..., None]) -> list[str]:
        return [c.value for p in command.parameters if p.name == "game" for c in p.choices]
    assert "nim" not in offered(rules_command()) + offered(leaderboard_command())
    with registered(ENTRY):
        assert offered(rules_command())[-1] == offered(leaderboard_command())[-1] == "nim"
        assert sorted(offered(rules_command())[:-1]) == sorted(GAME_NAMES)
    assert "nim" not in offered(rules_command()) + offered(leaderboard_command())


def test_registered_it_is_found_by_every_layer_and_gone_afterwards() -> None:
    with registered(ENTRY):
        assert game_module("nim").NAME == "nim"
        assert BOARDS["nim"] is nim_render.board
        assert game_ui("nim").private_kinds == {"take"}
        assert "nim" in playable() and "nim" not in GAME_NAMES
        assert t("bot.game.nim", "ru") == "Тайный ним"
        assert t("move.makemake.pass", "en") != "move.makemake.pass", "the shared words stay"
        with pytest.raises(ValueError, match="already registered"):
            register(ENTRY)
    with pytest.raises(KeyError):
        game_module("nim")
    assert "nim" not in BOARDS and "nim" not in playable()
    assert not has("bot.game.nim") and game_ui("nim").private_kinds == frozenset()
    with pytest.raises(ValueError, match="built-in"):
        unregister("giants")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_its_words_are_in_every_language_with_every_plural_form(lang: str) -> None:
    def read(lang: str) -> dict:
        return json.loads((files(ENTRY.catalogues) / lang / "nim.json").read_text("utf-8"))
    english, own = read("en"), read(lang)
    assert own.keys() == english.keys()
    for key, template in own.items():
        if isinstance(template, dict):
            assert needed_categories(lang) <= template.keys(), key


def test_options_offered_by_two_games_get_one_parameter_that_covers_both() -> None:
    wide = GameEntry("wide", rules="tests.nim.rules", ai="tests.nim.rules", strong=None,
                     renderer="tests.nim.render", presentation="tests.nim.ui",
                     lobby=("stones",))
    with registered(ENTRY), registered(wide):
        [flag] = [f for f in lobby_flags() if f.name == "stones"]
        assert (flag.kind, flag.minimum, flag.maximum) == ("int", 3, SLASH_MOST)
    assert [f.name for f in lobby_flags()] == [
        "round_limit", "chief_alone", "edge_strict", "sacred_surroundable",
        "one_manu_per_ceremony", "repetition", "quick", "running_score", "chief_split"]


async def test_its_ai_levels_come_from_its_entry(simcord_env):
    """A game without a strong AI of its own offers the other levels only."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("levels")
    alice = guild.add_member(env.create_user("alice"))
    refused = await alice.slash(channel, "game new", game="nim", ai="strong")
    assert refused.response is not None and refused.response.ephemeral
    assert refused.response.content == \
        "There is no AI level “strong”. Levels: random, greedy."
    assert env.bot.games.in_channel(channel.id) is None
    opened = await alice.slash(channel, "game new", game="giants", ai="strong")
    assert opened.response is not None and not opened.ephemeral, "the built-in games have it"


HANDED_IN = "✅ Handed in"


def public_words(env, channel) -> str:
    """Everything the channel and the game's thread show anyone, in words."""
    out = []
    for message in table_messages(env, channel):
        out.append(message.content)
        for embed in message.embeds:
            out += [embed.title or "", embed.description or ""]
            out += [f"{f.name}: {f.value}" for f in embed.fields]
    return "\n".join(out)


def in_dm(member, message_id: int):
    """A DM message as it is now (after edits)."""
    return next(m for m in member.user.dm_channel.history() if m.id == message_id)


async def take_by_button(env, member, count: int, prompt=None) -> None:
    """Take ``count`` stones with the DM prompt's button (the live one, or an older one)."""
    prompt = prompt or dm_prompt(env, member)
    assert prompt is not None, f"{member.name} has no DM prompt"
    label = f"take {count} stone" + ("s" if count > 1 else "")
    clicked = await member.user.click(prompt, label=label)
    assert not clicked.followups, clicked.followups[0].content
    handed = in_dm(member, prompt.id)
    assert HANDED_IN in handed.content and f"take {count}" in handed.content, handed.content
    assert not handed.components


async def test_sealed_nim_plays_end_to_end(simcord_env, new_bot):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("stones")
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))

    # The lobby: the game and its own option, offered by /game new from its registry entry.
    opened = await alice.slash(channel, "game new", game="nim", stones=12)
    lobby = opened.response
    assert lobby is not None and not opened.ephemeral, opened
    assert lobby.embeds[0].title == "Sealed Nim: new game"
    assert "`stones=12`" in [f.value for f in lobby.embeds[0].fields]
    await bob.click(lobby, label="Join")
    await alice.click(lobby, label="Add AI")
    started = await alice.click(lobby, label="Start")
    assert not started.followups, started.followups[0].content
    session = env.bot.games.in_channel(channel.id)
    assert session is not None and session.row.game == "nim"
    game_id = session.id

    # The live table: its board, the pile in words, and who still owes a take (the AI is in).
    table = live_table(env, channel)
    embed = table.embeds[0]
    assert embed.title == f"Sealed Nim #{game_id} · Round 1 · Taking stones"
    assert embed.image.url is None and [a.filename for a in table.attachments] == ["board.png"]
    assert "12 stones left" in [f.value for f in embed.fields]
    assert set(session.pending()) == {"red", "blue"}

    # A secret by DM: alice takes 2 with her prompt's button; nobody else learns how many.
    await take_by_button(env, alice, 2)
    assert session.pending() == ("blue",)
    assert "**Red** has made their choice." in public_words(env, channel)
    assert "take 2" not in public_words(env, channel)
    assert "red take ?" in session.public_record()

    # Undo: her take comes back, and with it her prompt; she types her new take in the DM.
    undone = await alice.slash(home(channel), "game undo")
    assert undone.response is not None and undone.response.ephemeral
    assert undone.response.content == "↩️ You took back `take 2`. It is your move again."
    assert set(session.pending()) == {"red", "blue"}
    assert "take 2" not in public_words(env, channel)
    assert dm_prompt(env, alice) is not None, "the prompt comes again"
    typed = await alice.send_dm("take 1")
    assert [str(r.emoji) for r in in_dm(alice, typed.id).reactions] == ["✅"]
    assert session.pending() == ("blue",)

    # A restart in the middle of the round: the takes stay secret, bob's old prompt works.
    old_prompt = dm_prompt(env, bob)
    assert old_prompt is not None
    await env.restart_bot(new_bot())
    again = env.bot.games.in_channel(channel.id)
    assert again is not None and again is not session and again.id == game_id
    assert again.pending() == ("blue",)
    assert again.view("red")["mine"] == 1 and again.view(None)["mine"] is None
    assert "red take ?" in again.public_record() and "red take 1" not in again.public_record()
    await take_by_button(env, bob, 3, old_prompt)

    # The reveal: every take at once, taken from the pile in seat order.
    words = public_words(env, channel)
    assert "The takes are revealed." in words
    assert "**Red** takes 1; 11 left." in words and "**Green** takes 3; 5 left." in words
    assert again.view(None)["round"] == 2 and "5 stones left" in words

    # Round 2 empties the pile: blue's last 2 stones beat everyone.
    await take_by_button(env, alice, 3)
    await take_by_button(env, bob, 3)
    finished = await env.bot.games.get(game_id)
    assert finished.status == "finished"
    assert finished.view(None)["scores"] == {"red": 4, "blue": 5, "green": 3}

    # The record: one result message with it; the card shows the end.
    [result] = [m for m in table_messages(env, channel)
                if any(a.filename.endswith(".txt") for a in m.attachments)]
    assert result.content.startswith("🏁 Game over (the pile is empty). Winner: ")
    [record] = result.attachments
    assert record.filename == f"nim-{game_id}.txt"
    text = (await record.read()).decode()
    assert text == finished.record()
    lines = text.splitlines()
    assert lines[0] == f"game nim red blue green stones=12 seed={finished.row.seed}"
    assert [line for line in lines[1:] if line.startswith("red ")] == ["red take 1",
                                                                       "red take 3"]
    card = next(m for m in channel.history() if m.id == lobby.id)
    assert card.embeds[0].title == "Sealed Nim: finished" and not card.components
    assert not any(live_components(m) for m in table_messages(env, channel))
    assert not any(live_components(m) for who in (alice, bob) for m in dm_messages(env, who))
    assert not env.bot.unexpected_errors
