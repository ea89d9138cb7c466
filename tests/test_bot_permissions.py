"""What the bot may do on Discord: exactly the invite's permissions, checked at ``/game new`` and
named in the user's language when one is missing; the gateway intents it uses and no more; and
no prefix commands (a mention of the bot is only a message)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import discord
import pytest

from bot.app import INVITE_PERMISSIONS, game_intents
from bot.constants import NEEDED_PERMISSIONS, THREAD_PERMISSIONS
from render.i18n import LANGUAGES, t
from tests.helpers.hidden import open_giants, type_choice, type_in_dm
from tests.helpers.tables import ephemeral_text, fresh, play_first_legal, session_in, start

ROOT = Path(__file__).resolve().parent.parent
EVERYTHING = discord.Permissions.all().value


def exactly(permissions: discord.Permissions) -> discord.PermissionOverwrite:
    """A channel overwrite that leaves the bot these permissions and no other."""
    return discord.PermissionOverwrite.from_pair(
        permissions, discord.Permissions(EVERYTHING & ~permissions.value))


def without(*names: str) -> discord.Permissions:
    kept = discord.Permissions(INVITE_PERMISSIONS.value)
    for name in names:
        setattr(kept, name, False)
    return kept


class Refused:
    """Every Discord call the bot makes that Discord refuses (403 or 404), as it happens."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[str, str, int]] = []
        real = discord.http.HTTPClient.request
        refused = self.calls

        async def request(client, route, **kwargs):  # type: ignore[no-untyped-def]
            try:
                return await real(client, route, **kwargs)
            except (discord.Forbidden, discord.NotFound) as error:
                refused.append((route.method, route.path, error.status))
                raise

        monkeypatch.setattr(discord.http.HTTPClient, "request", request)


def test_the_invite_asks_for_exactly_what_the_bot_uses() -> None:
    assert INVITE_PERMISSIONS.value == 309237763072
    named = discord.Permissions(**dict.fromkeys((*NEEDED_PERMISSIONS, *THREAD_PERMISSIONS), True))
    assert named == INVITE_PERMISSIONS
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"https://discord\.com/oauth2/authorize\?\S*permissions=(\d+)", readme)
    assert links and {int(p) for p in links} == {INVITE_PERMISSIONS.value}
    integers = re.findall(r"permission integer `(\d+)`", readme)
    assert integers and {int(p) for p in integers} == {INVITE_PERMISSIONS.value}


def test_every_permission_has_discords_name_in_every_language() -> None:
    for lang in LANGUAGES:
        names = [t(f"bot.permission.{name}", lang)
                 for name in (*NEEDED_PERMISSIONS, *THREAD_PERMISSIONS)]
        assert len(set(names)) == 7 and not any(n.startswith("bot.") for n in names), lang
    assert t("bot.permission.send_messages_in_threads", "en") == "Send Messages in Threads"
    assert t("bot.permission.attach_files", "es") == "Adjuntar archivos"


def test_the_intents_are_what_the_bot_uses() -> None:
    intents = game_intents()
    assert {name for name, on in intents if on} == {"guilds", "dm_messages", "guild_messages"}
    assert not (intents.message_content or intents.members or intents.presences)


async def test_the_bot_runs_with_the_trimmed_intents(simcord_env) -> None:
    assert simcord_env.bot.intents.value == game_intents().value


async def test_a_whole_game_needs_only_the_invite_permissions(simcord_env, monkeypatch) -> None:
    """With exactly the invite's permissions in the channel, a game opens, gets its thread and
    plays to the end, and Discord refuses none of the bot's calls."""
    env = simcord_env
    refused = Refused(monkeypatch)
    guild = env.create_guild()
    channel = guild.create_text_channel("exact", overwrites={
        env.bot.user: exactly(INVITE_PERMISSIONS)})
    alice = guild.add_member(env.create_user("alice"))
    result = await alice.slash(channel, "game new", game="makemake", round_limit=1)
    assert not result.followups, "no permission is missing: nothing more to say"
    lobby = result.response
    await alice.click(lobby, label="Add AI")
    await alice.click(lobby, label="Add AI")
    await start(env, channel, alice, lobby)
    assert channel.threads, "the game has a thread of its own"
    session = session_in(env, channel)
    while (session := await env.bot.games.get(session.id)).status == "running":
        await play_first_legal(env, channel, {alice.id: alice})
    assert session.status == "finished"
    assert "finished" in fresh(channel, lobby).embeds[0].title
    assert refused.calls == []
    assert not env.bot.unexpected_errors


async def test_without_the_thread_permissions_the_game_plays_in_the_channel(
        simcord_env, monkeypatch) -> None:
    env = simcord_env
    refused = Refused(monkeypatch)
    guild = env.create_guild()
    channel = guild.create_text_channel("flat", overwrites={
        env.bot.user: exactly(without(*THREAD_PERMISSIONS))})
    alice = guild.add_member(env.create_user("alice"))
    result = await alice.slash(channel, "game new", game="makemake", round_limit=1)
    assert result.response is not None and not result.response.flags.ephemeral
    [note] = result.followups
    assert note.ephemeral and note.content == (
        "This game will play in this channel, not in a thread of its own: for a thread I lack "
        "2 permissions here: **Create Public Threads**, **Send Messages in Threads**. A server "
        "admin can grant them in the channel's settings → Permissions.")
    lobby = result.response
    await alice.click(lobby, label="Add AI")
    await alice.click(lobby, label="Add AI")
    first = await start(env, channel, alice, lobby)
    assert channel.threads == [] and first.channel.id == channel.id
    session = session_in(env, channel)
    while (session := await env.bot.games.get(session.id)).status == "running":
        await play_first_legal(env, channel, {alice.id: alice})
    assert session.status == "finished"
    assert refused.calls == []
    assert not env.bot.unexpected_errors


async def test_one_missing_thread_permission_is_named_alone(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("half", overwrites={
        env.bot.user: exactly(without("send_messages_in_threads"))})
    alice = guild.add_member(env.create_user("alice"))
    result = await alice.slash(channel, "game new", game="makemake")
    assert "I lack 1 permission here: **Send Messages in Threads**. A server admin can grant " \
        "it" in result.followups[0].content
    await alice.slash(channel, "game abort")
    mods = guild.create_role("mods", permissions=discord.Permissions(manage_guild=True))
    mod = guild.add_member(env.create_user("mod"), roles=[mods])
    off = await mod.slash(channel, "game threads", enabled=False)
    assert ephemeral_text(off) == "New games in this server play in their channel, without " \
        "a thread."
    result = await alice.slash(channel, "game new", game="makemake")
    assert not result.followups, "threads are off here: no thread is missing"
    await alice.slash(channel, "game abort")
    on = await mod.slash(channel, "game threads", enabled=True)
    assert ephemeral_text(on) == (
        "New games in this server get a thread of their own.\nIn this channel games still "
        "play without a thread: I lack 1 permission here: **Send Messages in Threads**. A "
        "server admin can grant it in the channel's settings → Permissions.")
    fine = guild.create_text_channel("fine")
    assert ephemeral_text(await mod.slash(fine, "game threads", enabled=True)) == \
        "New games in this server get a thread of their own."


@pytest.mark.parametrize(("lacking", "lang", "expected"), [
    (("attach_files",), "en-US",
     "I cannot host a game here: I lack 1 permission in this channel: **Attach Files**. A "
     "server admin can grant it in the channel's settings → Permissions."),
    (("send_messages", "embed_links"), "es-ES",
     "No puedo abrir una partida aquí: me faltan 2 permisos en este canal: **Enviar "
     "mensajes**, **Insertar enlaces**. Un administrador del servidor puede concederlos en la "
     "configuración del canal → Permisos."),
    (("read_message_history",), "ru",
     "Я не могу провести здесь игру: в этом канале мне не хватает 1 права: **Читать историю "
     "сообщений**. Администратор сервера может выдать его в настройках канала → Права "
     "доступа."),
    (("send_messages", "attach_files"), "zh-CN",
     "我无法在这里开设游戏：我在这个频道缺少 2 项权限：**发送消息**、**附加文件**。服务器管理员"
     "可以在频道设置 → 权限中授予。"),
    (("embed_links",), "zh-TW",
     "我無法在這裡開設遊戲：我在這個頻道缺少 1 項權限：**嵌入連結**。伺服器管理員可以在頻道設定 → "
     "權限中授予。"),
])
async def test_a_missing_permission_is_named_in_the_users_language(
        simcord_env, locales, lacking, lang, expected) -> None:
    """Refused with Discord's own names for what is missing, and nothing is created."""
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("locked", overwrites={
        env.bot.user: exactly(without(*lacking))})
    alice = guild.add_member(env.create_user("alice"))
    locales[alice.id] = lang
    result = await alice.slash(channel, "game new", game="makemake")
    assert ephemeral_text(result) == expected
    assert env.bot.games.in_channel(channel.id) is None
    assert await env.bot.games.store.games_with_status("lobby", "running") == []
    assert not env.bot.unexpected_errors


async def test_a_mention_is_only_a_message(simcord_env, caplog, monkeypatch) -> None:
    """No prefix commands: mentioning the bot in a channel or a DM logs no error and gets no
    answer, and a choice typed in a DM still works."""
    env = simcord_env
    processed: list[discord.Message] = []

    async def process_commands(message: discord.Message) -> None:
        processed.append(message)

    monkeypatch.setattr(env.bot, "process_commands", process_commands)
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    alice, bob, cleo = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "cleo"))
    caplog.set_level(logging.DEBUG)
    await alice.send(channel, f"<@{env.bot.user.id}> help")
    await alice.send(channel, f"<@{env.bot.user.id}>")
    assert [m for m in channel.history() if m.author.id == env.bot.user.id] == []
    session = await open_giants(env, channel, alice, bob, cleo)
    mention = await type_in_dm(env, alice, f"<@{env.bot.user.id}> help")
    assert len(mention) == 1, "a DM is read as a typed choice, never as a command"
    await type_choice(env, alice, "bid 0m")
    assert session.seat_of(alice.id) is not None and "red" not in session.pending()
    assert processed == [], "no message is ever read as a command"
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert not env.bot.unexpected_errors
