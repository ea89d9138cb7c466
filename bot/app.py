"""The bot class: owns the store, the session host, the outbox and the settings; loads the
extensions; remembers each user's language from every interaction; beats its heartbeat in the
store while it runs; syncs the slash commands; stops cleanly."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.adapter import answer as _answer
from bot.adapter.items import ITEMS
from bot.adapter.outbox import Outbox
from bot.application import belongs
from bot.constants import (
    CHECK_PAUSE,
    HEARTBEAT,
    NEEDED_PERMISSIONS,
    OUTBOX_DRAIN,
    THREAD_PERMISSIONS,
)
from bot.exts import _group
from bot.host import memory, shards
from bot.host.sessions import Host
from bot.host.store import Store, open_store
from bot.host.thinking import Thinking
from bot.metrics import Metrics
from bot.settings import Settings
from bot.table import Post
from bot.table.pool import RenderPool
from bot.translator import CatalogueTranslator
from bot.web import StatusServer
from render import assets
from render.i18n import language

log = logging.getLogger(__name__)

INVITE_PERMISSIONS = discord.Permissions(
    **dict.fromkeys((*NEEDED_PERMISSIONS, *THREAD_PERMISSIONS), True))
"""Exactly what the bot uses, asked for by the invite link (309237763072): it sees the
channel, posts the table (embeds with the board as an attached image), opens a public thread
under the lobby card (which needs the channel's history) and posts in that thread. Nothing
else: it deletes and edits only its own messages and reacts only in DMs."""


class GameTree(app_commands.CommandTree):
    """Sends every slash-command error to the central handler."""

    async def on_error(self, interaction: discord.Interaction,
                       error: app_commands.AppCommandError) -> None:
        await _answer.report(interaction, error)


def game_intents() -> discord.Intents:
    """Exactly the gateway events the bot uses: servers and their channels (``guilds``),
    choices typed in DMs (``dm_messages``: a DM's text needs no privileged intent) and a
    table message deleted by hand (``guild_messages``, for ``on_raw_message_delete``)."""
    return discord.Intents(guilds=True, dm_messages=True, guild_messages=True)


@dataclass
class SyncReport:
    """What a sync did: ``uploaded`` names where the commands went (``global`` or a server
    id), ``cleared`` where they were removed, ``failed`` what Discord refused."""

    uploaded: list[str] = field(default_factory=list)
    cleared: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


class GameBot(commands.Bot):
    """A Discord bot hosting board games per channel. Build it with :func:`bot.create_bot`.

    A ``commands.Bot`` for its extensions and cogs, but without prefix commands: messages are
    never read as commands (:meth:`on_message`), so a mention of the bot is just a message.
    ``serve=False`` builds only the command tree when it logs in (no store, no games, no
    heartbeat, no sync): for ``python -m bot sync``."""

    def __init__(self, settings: Settings, serve: bool = True) -> None:
        super().__init__(command_prefix=(), intents=game_intents(),
                         tree_cls=GameTree, help_command=None,
                         allowed_mentions=discord.AllowedMentions.none(),
                         **self.gateway_options(settings))
        self.settings = settings
        self.serve = serve
        self.instance = uuid.uuid4().hex
        """This process's heartbeat row in the store."""
        self._stopping: asyncio.Task[None] | None = None
        self._checking: asyncio.Task[int] | None = None
        """Replays every loaded game's log against its snapshot, after a start."""
        self.store: Store | None = None
        self.host: Host | None = None
        self.metrics = Metrics()
        """This bot's own metrics (``/metrics``): a registry per bot, never the global one."""
        self.web: StatusServer | None = None
        """``/healthz``, ``/readyz`` and ``/metrics`` while the bot runs (``HTTP_PORT``)."""
        self.outbox = Outbox(self)
        self.renders = RenderPool(settings.render_workers,
                                  timed=self.metrics.render_seconds.observe)
        """Where pictures are drawn: worker processes, one per core unless the settings say."""
        self.thinking = Thinking(settings.ai_workers, settings.ai_budget_ms,
                                 settings.ai_iterations)
        """Where strong AI seats search: worker processes of their own, started on the first
        strong decision (one per core unless the settings say)."""
        self.unexpected_errors: list[BaseException] = []
        """Errors the central handler saw (tests assert it stays empty)."""
        self.languages: dict[int, str] = {}
        """User id -> the language of their Discord locale at their latest interaction (as
        stored): every private message to them speaks it. A user missing here has not
        interacted yet; their private messages speak the game's language."""

    @staticmethod
    def gateway_options(settings: Settings) -> dict[str, Any]:
        """What the client class is given about its gateway connections: nothing for one
        process on one connection."""
        return {}

    async def setup_hook(self) -> None:
        """Check the shipped data, open the store, check that it belongs to the application
        the token logged in as, write the heartbeat, reload every game, register commands and
        persistent components, sync the commands (``SYNC_COMMANDS``). Missing or broken data
        (a catalogue, a font, a board) stops the start with a RuntimeError naming each
        problem, before anything else happens; a database of another application stops it
        with :class:`WrongApplication` before anything acts on a server (this runs after the
        login, before the gateway connects)."""
        problems = assets.problems()
        if problems:
            raise RuntimeError("the shipped data is broken: " + "; ".join(problems))
        if self.serve:
            self.store = await open_store(self.settings.database, self.settings.clock,
                                          synchronous=self.settings.sqlite_synchronous,
                                          pool_size=self.settings.pool_size)
            assert self.application_id is not None, "known once logged in"
            await belongs(self.store, self.application_id)
            await self.store.start_heartbeat(self.instance, os.getpid(), socket.gethostname(),
                                             shard_count=self.settings.shard_count,
                                             shard_ids=self.settings.shards_here)
            self.heartbeat.start()
            self.renders.start()
            self.host = Host(self.store, self.settings.seed_source, self.thinking,
                             committed=self.metrics.committed)
            self.host.listen(self.show)  # the one seam after commit: every change this
            # process commits is shown (another process's: ``store.listen`` below)
            self.metrics.watch(queue=lambda: self.outbox.waiting, live=self._live_games,
                               latency=lambda: self.latency)
            if self.settings.http_port is not None:
                self.web = StatusServer(self.settings.http_host, self.settings.http_port,
                                        connected=self.connected, store_ping=self._ping,
                                        metrics=self.metrics.exposition)
                await self.web.start()
            await self.host.load()
            await self.store.listen(self.outbox.heard)  # what changed meanwhile: the
            # first reconcile compares every game with the store
            self._checking = asyncio.create_task(self.host.check_all(CHECK_PAUSE),
                                                 name="checking snapshots")
            self.languages = {user: language(lang)
                              for user, lang in (await self.store.user_languages()).items()}
            memory.settle()
        await self.tree.set_translator(CatalogueTranslator())
        self.add_dynamic_items(*ITEMS)
        for extension in self.settings.extensions:
            await self.load_extension(extension)
        if self.tree.get_command(_group.game.name) is None:
            self.tree.add_command(_group.game)
        if not self.serve:  # the commands only: no game to tick for, no event to handle
            for cog in self.cogs.values():
                for loop in [v for v in vars(cog).values() if isinstance(v, tasks.Loop)]:
                    loop.cancel()
                for event, listener in cog.get_listeners():
                    self.remove_listener(listener, event)
        if self.serve and self.settings.syncs_commands:
            assert self.store is not None
            report = await self.sync_commands(self.store)
            names = ", ".join(sorted(c.name for c in self.tree.get_commands()))
            for where in report.cleared:
                log.info("slash commands removed from server %s", where)
            for where in report.uploaded:
                log.info("slash commands uploaded %s: %s", "globally" if where == "global"
                         else f"to server {where}", names)
            for failure in report.failed:
                log.warning("syncing the slash commands: %s", failure)
        elif self.serve and self.settings.sync_commands:
            log.info("the slash commands are uploaded by the process that runs shard 0, not "
                     "by this one (shards %s)",
                     ",".join(map(str, self.settings.shards_here)))

    def connected(self) -> bool:
        """Whether the gateway is ready and its connection open (``/readyz``)."""
        return (not self.is_closed() and self.is_ready() and self.ws is not None
                and self.ws.open)

    def _live_games(self) -> int:
        host = self.host
        return 0 if host is None else sum(
            1 for s in host.sessions.values() if s.status in ("lobby", "running"))

    async def _ping(self) -> None:
        if self.store is None:
            raise RuntimeError("closed")
        await self.store.ping()

    @tasks.loop(seconds=HEARTBEAT)
    async def heartbeat(self) -> None:
        """Tell the store this bot is alive (``python -m bot health`` reads it)."""
        if self.store is None:
            return
        try:
            await self.store.beat(self.instance)
        except Exception:
            log.exception("could not write the heartbeat")

    async def sync_commands(self, store: Store, *, clear: bool = False) -> SyncReport:
        """Upload the slash commands: to ``GUILD_ID`` when set (recorded in the store), else
        globally. Copies in a server that is no longer ``GUILD_ID`` are cleared first (the
        store remembers every server they were copied to). ``clear``: remove them
        everywhere instead (globally, from ``GUILD_ID`` and from every remembered server)."""
        report = SyncReport()
        current = self.settings.guild_id
        for guild_id in sorted(await store.synced_guilds() | ({current} if current else set())):
            if guild_id == current and not clear:
                continue
            guild = discord.Object(guild_id)
            self.tree.clear_commands(guild=guild)
            try:
                await self.tree.sync(guild=guild)
            except discord.HTTPException as error:
                report.failed.append(f"server {guild_id}: {error.status} {error.text}")
                if not isinstance(error, discord.Forbidden | discord.NotFound):
                    continue  # worth trying again: it stays remembered
            else:
                report.cleared.append(str(guild_id))
            await store.set_synced_guild(guild_id, False)
        if clear:
            commands_ = self.tree.get_commands()
            self.tree.clear_commands(guild=None)
            try:
                await self.tree.sync()
                report.cleared.append("global")
            except discord.HTTPException as error:
                report.failed.append(f"global: {error.status} {error.text}")
            for command in commands_:
                self.tree.add_command(command)
            return report
        if current:
            guild = discord.Object(current)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
            await store.set_synced_guild(current, True)
            report.uploaded.append(str(current))
        else:
            await self.tree.sync()
            report.uploaded.append("global")
        return report

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Every interaction (command, autocomplete, button, select, modal) tells the user's
        language: remembered at once in memory, before anything the interaction's handler
        sends out (this runs ahead of the tasks it schedules, the outbox's included), and
        written to the store only when it changed."""
        lang = language(str(interaction.locale))
        user = interaction.user.id
        if self.languages.get(user) == lang:
            return
        self.languages[user] = lang
        if self.store is None:
            return
        try:
            await self.store.set_user_language(user, lang)
        except Exception:
            log.exception("could not store the language of user %s", user)

    async def on_guild_join(self, guild: discord.Guild) -> None:
        log.info("joined server %s (%s)", guild.id, guild.name)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        log.info("left server %s (%s)", guild.id, guild.name)

    async def on_message(self, message: discord.Message, /) -> None:
        """No prefix commands: the cogs' own listeners (typed DMs) see every message."""

    def shows(self, guild_id: int | None) -> bool:
        """Whether this process shows the games of that server (None: a game outside any
        server): with several processes over one store, the one connected to the server's
        shard does (:mod:`bot.host.shards`); one process shows every game."""
        ids = getattr(self, "shard_ids", None)
        if ids is None and self.shard_id is not None:
            ids = [self.shard_id]
        return shards.shows(guild_id, self.shard_count, ids)

    def show(self, game_id: int) -> None:
        """Have the outbox show the game as stored now, soon: after every change the host
        commits (it announces them, :meth:`Host.listen`), and when ``/game status`` checks
        that everything is shown (in the languages now known)."""
        self.outbox.kick(game_id)

    async def adopt(self, game_id: int, slot: str, message: discord.Message,
                    post: Post) -> None:
        """A message an interaction posted itself (the lobby card, as the answer to
        ``/game new``): the outbox keeps it up to date from now on."""
        await self.outbox.adopt(game_id, slot, message, post)

    def language_of(self, user_id: int, fallback: str) -> str:
        """The language of private messages to this user: theirs once known, else ``fallback``
        (the game's language)."""
        return self.languages.get(user_id, fallback)

    async def close(self) -> None:
        """A clean stop, once however often it is called: the heartbeat stops, the outbox
        finishes what it is sending (for at most :data:`OUTBOX_DRAIN` seconds), the
        extensions unload and the connection to Discord closes, the heartbeat row goes, and
        the store closes with its write-ahead log folded into the file."""
        if self._stopping is None:
            self._stopping = asyncio.create_task(self._stop(), name="stopping")
        await asyncio.shield(self._stopping)
        await self._close_store()  # opened while it was stopping (stopped during start-up)

    async def _stop(self) -> None:
        self.heartbeat.cancel()
        if self._checking is not None:
            self._checking.cancel()
        if self.host is not None:
            await self.outbox.drain(OUTBOX_DRAIN)
        self.renders.close()
        self.thinking.close()
        await super().close()
        await self._close_store()
        if self.web is not None:
            await self.web.stop()

    async def _close_store(self) -> None:
        self.heartbeat.cancel()
        if self.store is not None:
            store, self.store = self.store, None
            try:
                await store.end_heartbeat(self.instance)
            finally:
                await store.close()

    @property
    def games(self) -> Host:
        """The session host (available once the bot has started)."""
        assert self.host is not None, "the bot has not started yet"
        return self.host


class ShardedGameBot(GameBot, commands.AutoShardedBot):
    """The same bot on several gateway shards (``SHARD_COUNT``), each its own connection, all
    of them (or the ``SHARD_IDS`` share of them) in this process. Build it with
    :func:`bot.create_bot`, which picks this class when the settings name a shard count.

    Everything else is :class:`GameBot`'s: a server's events arrive on the shard that carries
    it, and DMs on shard 0, which is why processes that split the shards share one PostgreSQL
    database (a move may be made in any of them)."""

    def connected(self) -> bool:
        """Every shard of this process ready and connected."""
        return (not self.is_closed() and self.is_ready() and bool(self.shards)
                and not any(shard.is_closed() for shard in self.shards.values()))

    @staticmethod
    def gateway_options(settings: Settings) -> dict[str, Any]:
        ids = settings.shard_ids
        return {"shard_count": settings.shard_count,
                "shard_ids": list(ids) if ids is not None else None}
