"""``/play <notation>`` with autocomplete from the legal actions, and buttons for small choices.

Both paths end in :meth:`bot.sessions.Host.play`; the answer to the player is ephemeral and the
board with what happened goes to the channel once the move is committed.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import announce
from bot.constants import MAX_AUTOCOMPLETE, PLAY_ID
from bot.exts import errors
from bot.games import game_ui
from bot.sessions import Refusal, Report, Session
from bot.translator import ls
from render.i18n import language, t
from rules.core import IllegalAction

if TYPE_CHECKING:
    from bot.bot import GameBot

log = logging.getLogger(__name__)


class ActionButton(discord.ui.DynamicItem[discord.ui.Button], template=PLAY_ID):
    """Plays one action; the custom_id holds the game id, the action count and the notation,
    so a click on an outdated prompt is refused instead of played."""

    def __init__(self, game_id: int, seq: int, action: str) -> None:
        super().__init__(discord.ui.Button(
            label=action, style=discord.ButtonStyle.primary,
            custom_id=f"play:{game_id}:{seq}:{action}"))
        self.game_id, self.seq, self.action = game_id, seq, action

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str], /) -> ActionButton:
        return cls(int(match["game"]), int(match["seq"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        try:
            await interaction.response.defer()
            report = await submit(interaction, self.action, expect_seq=self.seq,
                                  game_id=self.game_id)
            if report is not None:
                await interaction.edit_original_response(view=None)
                await publish(interaction, report)
        except Exception as error:
            await errors.report(interaction, error)


def turn_view(session: Session) -> discord.ui.View | None:
    """Buttons for the pending human's choice, when it is small enough to click."""
    from bot.exts.hidden import private_items  # the private button lives with hidden input

    buttons = announce.turn_buttons(session)
    extra = [*game_ui(session.row.game).channel_items(session), *private_items(session)]
    if not buttons and not extra:
        return None
    view = discord.ui.View(timeout=None)
    for label, custom_id in buttons:
        _, game_id, seq, action = custom_id.split(":", 3)
        assert action == label
        view.add_item(ActionButton(int(game_id), int(seq), action))
    for item in extra:
        try:
            view.add_item(item)
        except ValueError:  # a message holds at most 25 components in 5 rows
            log.warning("game %s: a turn component did not fit", session.id)
            break
    return view


async def submit(interaction: discord.Interaction, text: str, expect_seq: int | None = None,
                 game_id: int | None = None) -> Report | None:
    """Play ``text`` for the user; on a refusal answer ephemerally and return None."""
    bot: GameBot = interaction.client  # type: ignore[assignment]
    host = bot.games
    channel_id = interaction.channel_id or 0
    lang = language(str(interaction.locale))
    try:
        return await host.play(channel_id, interaction.user.id, text, expect_seq=expect_seq,
                               game_id=game_id)
    except (Refusal, IllegalAction) as error:
        session = host.in_channel(channel_id)
        await errors.answer(interaction, announce.refusal_text(session, error, lang))
        return None


async def publish(interaction: discord.Interaction, report: Report) -> None:
    """Post the turn in the channel. The move is committed already, so a failure here only
    costs the message: say so (the player can re-post with /game status) instead of erring."""
    try:
        await announce.post_report(interaction.client, report)  # type: ignore[arg-type]
    except discord.HTTPException as error:
        log.warning("could not post game %s in channel %s: %s", report.session.id,
                    report.session.row.channel_id, error)
        key = "bot.error.cannot_post" if isinstance(error, discord.Forbidden) \
            else "bot.error.post_failed"
        await errors.answer(interaction, t(key, language(str(interaction.locale))))


def matches(typed: str, actions: list[str]) -> list[str]:
    """At most 25 actions fitting what was typed (case and spacing ignored), spread out.

    Actions starting with the typed text come first, then those where every typed word starts
    a word of the action. When more fit than Discord can show, one action per distinct next
    word comes first (``place`` offers one per hex, not 25 counts on A1), the rest after.
    """
    words = typed.lower().split()
    want = " ".join(words)
    low = [(a, a.lower().split()) for a in actions]
    first = [a for a, x in low if " ".join(x).startswith(want)]
    rest = [a for a, x in low if a not in first
            and all(any(part.startswith(w) for part in x) for w in words)]
    found = first + rest
    if len(found) <= MAX_AUTOCOMPLETE:
        return found
    spread: list[str] = []
    for depth in range(1, max(len(a.split()) for a in found) + 1):
        groups: dict[str, str] = {}
        for action in found:
            groups.setdefault(" ".join(action.lower().split()[:depth]), action)
        if len(groups) > MAX_AUTOCOMPLETE and len(spread) > 1:
            break
        spread = list(groups.values())
        if len(groups) > MAX_AUTOCOMPLETE:
            break
    picked = set(spread[:MAX_AUTOCOMPLETE])
    picked.update(a for a in found if a not in picked
                  and len(picked) < MAX_AUTOCOMPLETE)  # type: ignore[misc]
    return [a for a in found if a in picked][:MAX_AUTOCOMPLETE]


class Play(commands.Cog):
    """Playing moves in the channel's running game."""

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """After a restart, finish the AI and chance moves a crash interrupted, and show them."""
        for session in self.bot.games.stalled():
            try:
                report = await self.bot.games.resume(session.id)
                if report.steps:
                    await announce.post_report(self.bot, report)
            except Exception:
                log.exception("could not resume game %s", session.id)

    @app_commands.command(name=ls("bot.cmd.play.name"), description=ls("bot.cmd.play.description"))
    @app_commands.describe(notation=ls("bot.cmd.play.notation"))
    @app_commands.guild_only()
    async def play(self, interaction: discord.Interaction,
                   notation: app_commands.Range[str, 1, 200]) -> None:
        """Play a move typed in the game's notation, e.g. ``place B2 3``."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        report = await submit(interaction, notation)
        if report is None:
            return
        lang = language(str(interaction.locale))
        first = report.steps[0]
        secrets = announce.private_lines(report.session, report.steps, first.actor, lang)
        await interaction.followup.send(
            "\n".join([t("bot.play.done", lang, line=first.line), *secrets]), ephemeral=True)
        await publish(interaction, report)

    @play.autocomplete("notation")
    async def notation_choices(self, interaction: discord.Interaction,
                               current: str) -> list[app_commands.Choice[str]]:
        actions = self.bot.games.legal_texts(interaction.channel_id or 0, interaction.user.id)
        return [app_commands.Choice(name=a, value=a) for a in matches(current, actions)]


async def setup(bot: GameBot) -> None:
    bot.add_dynamic_items(ActionButton)
    await bot.add_cog(Play(bot))
