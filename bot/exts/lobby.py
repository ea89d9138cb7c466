"""``/game new | status | abort`` and the lobby's Join / Leave / Add AI / Start buttons.

The buttons are DynamicItems whose custom_id carries the game id, registered at start-up, so a
lobby posted before a restart keeps working after it.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import announce
from bot.constants import LOBBY_ID
from bot.exts import errors
from bot.games import PLAYABLE
from bot.sessions import Refusal, Report, Session
from bot.translator import ls
from render.i18n import LANGUAGES, language, t
from rules.ai import LEVELS
from rules.core import IllegalAction

if TYPE_CHECKING:
    from bot.bot import GameBot

log = logging.getLogger(__name__)

_STYLES = {"join": discord.ButtonStyle.success, "leave": discord.ButtonStyle.secondary,
           "ai": discord.ButtonStyle.secondary, "start": discord.ButtonStyle.primary}


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button], template=LOBBY_ID):
    """One lobby button; the game id and the operation are in the custom_id."""

    def __init__(self, game_id: int, op: str, lang: str = "en") -> None:
        super().__init__(discord.ui.Button(
            label=t(f"bot.lobby.button.{op}", lang), style=_STYLES[op],
            custom_id=f"lobby:{game_id}:{op}"))
        self.game_id = game_id
        self.op = op

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str], /) -> LobbyButton:
        return cls(int(match["game"]), match["op"])

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        try:
            await self._callback(interaction)
        except Exception as error:
            await errors.report(interaction, error)

    async def _callback(self, interaction: discord.Interaction) -> None:
        bot: GameBot = interaction.client  # type: ignore[assignment]
        host = bot.games
        lang = language(str(interaction.locale))
        await interaction.response.defer()
        session: Session | None = None
        report: Report | None = None
        try:
            session = await host.get(self.game_id)
            user = interaction.user.id
            if self.op == "join":
                await host.join(self.game_id, user, interaction.user.display_name)
            elif self.op == "leave":
                await host.leave(self.game_id, user)
            elif self.op == "ai":
                await host.add_ai(self.game_id, user)
            else:
                report = await host.start(self.game_id, user)
        except (Refusal, IllegalAction) as error:
            await errors.answer(interaction, announce.refusal_text(session, error, lang))
            return
        session = await host.get(self.game_id)
        await interaction.edit_original_response(embed=announce.lobby_embed(session),
                                                 view=lobby_view(session))
        if report is not None:
            from bot.exts.play import publish  # the turn buttons belong to the play feature

            await publish(interaction, report)


def lobby_view(session: Session) -> discord.ui.View | None:
    """The lobby buttons while the lobby is open; none once it has started or closed."""
    if session.status != "lobby":
        return None
    view = discord.ui.View(timeout=None)
    for op in ("join", "leave", "ai", "start"):
        view.add_item(LobbyButton(session.id, op, session.row.language))
    return view


def _game_choices() -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=announce.game_name(g, "en"), value=g) for g in PLAYABLE]


class Lobby(commands.Cog):
    """Creating, showing and ending the game of a channel."""

    game = app_commands.Group(name=ls("bot.cmd.game.name"),
                              description=ls("bot.cmd.game.description"), guild_only=True)

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot

    @game.command(name=ls("bot.cmd.new.name"), description=ls("bot.cmd.new.description"))
    @app_commands.describe(
        game=ls("bot.cmd.new.game"), round_limit=ls("bot.cmd.new.round_limit"),
        chief_alone=ls("bot.cmd.new.chief_alone"), edge_strict=ls("bot.cmd.new.edge_strict"),
        sacred_surroundable=ls("bot.cmd.new.sacred_surroundable"),
        one_manu_per_ceremony=ls("bot.cmd.new.one_manu_per_ceremony"),
        repetition=ls("bot.cmd.new.repetition"), quick=ls("bot.cmd.new.quick"),
        running_score=ls("bot.cmd.new.running_score"),
        chief_split=ls("bot.cmd.new.chief_split"), ai=ls("bot.cmd.new.ai"),
        turn_minutes=ls("bot.cmd.new.turn_minutes"),
        options=ls("bot.cmd.new.options"), language=ls("bot.cmd.new.language"))
    @app_commands.choices(
        game=_game_choices(),
        ai=[app_commands.Choice(name=level, value=level) for level in LEVELS],
        language=[app_commands.Choice(name=lang, value=lang) for lang in LANGUAGES])
    async def new(self, interaction: discord.Interaction, game: str,
                  round_limit: app_commands.Range[int, 1, 1000] | None = None,
                  chief_alone: bool | None = None, edge_strict: bool | None = None,
                  sacred_surroundable: bool | None = None,
                  one_manu_per_ceremony: bool | None = None, repetition: bool | None = None,
                  quick: bool | None = None, running_score: bool | None = None,
                  chief_split: bool | None = None, ai: str = "greedy",
                  turn_minutes: app_commands.Range[int, 1, 10080] | None = None,
                  options: str | None = None, language: str | None = None) -> None:
        """Open a lobby: the creator takes the first seat; others join with the button."""
        given: dict[str, Any] = {}
        for word in (options or "").split():
            key, _, value = word.partition("=")
            given[key.lower()] = value
        flags = {"round_limit": round_limit, "chief_alone": chief_alone,
                 "edge_strict": edge_strict, "sacred_surroundable": sacred_surroundable,
                 "one_manu_per_ceremony": one_manu_per_ceremony, "repetition": repetition,
                 "quick": quick, "running_score": running_score, "chief_split": chief_split}
        for key, value in flags.items():
            if value is not None:
                given[key] = ("yes" if value else "no") if isinstance(value, bool) else str(value)
        user_lang = _user_lang(interaction)
        try:
            session = await self.bot.games.create(
                channel_id=interaction.channel_id or 0, guild_id=interaction.guild_id,
                game=game, options=given, creator_id=interaction.user.id,
                language=language or self.bot.settings.language, ai_level=ai,
                creator_name=interaction.user.display_name,
                turn_seconds=turn_minutes * 60 if turn_minutes else None)
        except Refusal as error:
            await errors.answer(interaction, announce.refusal_text(None, error, user_lang))
            return
        await interaction.response.send_message(embed=announce.lobby_embed(session),
                                                view=lobby_view(session))

    @game.command(name=ls("bot.cmd.status.name"), description=ls("bot.cmd.status.description"))
    async def status(self, interaction: discord.Interaction) -> None:
        """Re-post the lobby, or the board with who is to act."""
        session = self.bot.games.in_channel(interaction.channel_id or 0)
        if session is None:
            await errors.answer(interaction, t("bot.refuse.no_game", _user_lang(interaction)))
            return
        if session.status == "lobby":
            await interaction.response.send_message(embed=announce.lobby_embed(session),
                                                    view=lobby_view(session))
            return
        await interaction.response.defer(thinking=True)
        lang = session.row.language
        from bot.exts.play import turn_view

        board = await announce.board_file(self.bot, session, lang)
        await interaction.followup.send(
            announce.next_line(session, lang), files=[board] if board else [],
            view=turn_view(session) or discord.utils.MISSING,
            allowed_mentions=discord.AllowedMentions(users=True))

    @game.command(name=ls("bot.cmd.abort.name"), description=ls("bot.cmd.abort.description"))
    async def abort(self, interaction: discord.Interaction) -> None:
        """End the channel's game without a result (its creator or a server manager)."""
        perms = interaction.permissions
        try:
            session = await self.bot.games.abort(interaction.channel_id or 0, interaction.user.id,
                                                 is_admin=perms.manage_guild)
        except Refusal as error:
            text = announce.refusal_text(None, error, _user_lang(interaction))
            await errors.answer(interaction, text)
            return
        await interaction.response.send_message(
            t("bot.abort.done", session.row.language,
              game=announce.game_name(session.row.game, session.row.language),
              who=interaction.user.mention))


def _user_lang(interaction: discord.Interaction) -> str:
    return language(str(interaction.locale))


async def setup(bot: GameBot) -> None:
    bot.add_dynamic_items(LobbyButton)
    await bot.add_cog(Lobby(bot))
