"""``/play <notation>`` with autocomplete from the legal actions.

The move is committed by the host, the outbox shows it on the live table, and the player gets
one ephemeral confirmation (with what only they learn, e.g. a peek's answer).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapter.act import best_effort, user_lang
from bot.adapter.answer import answers_refusals, wording
from bot.constants import MAX_AUTOCOMPLETE, MAX_CONTENT, REPEAT_SECONDS, SEQ_MARK
from bot.games import MAX_CHOICE_NAME, choice_name, game_ui
from bot.table.words import echo, move_text, private_lines
from bot.translator import ls
from render.i18n import t

if TYPE_CHECKING:
    from bot.app import GameBot

log = logging.getLogger(__name__)


def matches(typed: str, actions: list[str],
            worded: dict[str, str] | None = None) -> list[str]:
    """At most 25 actions fitting what was typed (case and spacing ignored), spread out.

    Actions starting with the typed text come first, then those where every typed word starts
    a word of the action, then (given ``worded``, each action's words in the user's language)
    those where every typed word starts one of its words. When more fit than Discord can show,
    one action per distinct next word comes first (``place`` offers one per hex, not 25 counts
    on A1), the rest after.
    """
    words = typed.lower().split()
    want = " ".join(words)
    low = [(a, a.lower().split()) for a in actions]
    first = [a for a, x in low if " ".join(x).startswith(want)]
    taken = set(first)
    rest = [a for a, x in low if a not in taken and _every_word_starts(words, x)]
    taken.update(rest)
    said = [a for a in actions if a not in taken and worded and a in worded
            and _every_word_starts(words, _word_parts(worded[a]))]
    found = first + rest + said
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
                  and len(picked) < MAX_AUTOCOMPLETE)
    return [a for a in found if a in picked][:MAX_AUTOCOMPLETE]


def _every_word_starts(typed: list[str], parts: list[str]) -> bool:
    return all(any(part.startswith(w) for part in parts) for w in typed)


def _word_parts(text: str) -> list[str]:
    """The words of a move's description, lower case, without punctuation around them; a
    run of Chinese (written without spaces) also offers its every tail, so that typing a word
    inside it fits."""
    out = []
    for part in text.lower().split():
        part = part.strip("()（）:：,，、.")
        out.append(part)
        if any(c >= "\u3000" for c in part):
            out += [part[i:] for i in range(1, len(part))]
    return out


class Play(commands.Cog):
    """Playing moves in the channel's running game."""

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot

    @app_commands.command(name=ls("bot.cmd.play.name"), description=ls("bot.cmd.play.description"))
    @app_commands.describe(notation=ls("bot.cmd.play.notation"))
    @app_commands.guild_only()
    @answers_refusals
    async def play(self, interaction: discord.Interaction,
                   notation: app_commands.Range[str, 1, 200]) -> None:
        """Play a move typed in the game's notation, e.g. ``place B2 3``."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        host = self.bot.games
        lang = user_lang(interaction)
        channel_id = interaction.channel_id or 0
        notation, seq = split_seq(notation)
        # a suggestion carries the position it was offered for; a typed line does not,
        # and the same line again within a few seconds is a double send
        with wording(lambda: host.in_channel(channel_id), typed=notation,
                     offered=seq is not None):
            report = await host.play(channel_id, interaction.user.id, notation, expect_seq=seq,
                                     repeat_within=REPEAT_SECONDS if seq is None else None)
        first = report.steps[0]
        secrets = private_lines(report.session, report.steps, first.actor, lang)
        line = first.line.removeprefix(f"{first.actor} ")
        await best_effort("confirm a move", interaction.followup.send(
            "\n".join([t("bot.play.done", lang, move=move_text(report.session, line, lang)),
                        *secrets, t("bot.words.as_notation", lang, line=echo(line))])
            [:MAX_CONTENT], ephemeral=True))

    @play.autocomplete("notation")
    async def notation_choices(self, interaction: discord.Interaction,
                               current: str) -> list[app_commands.Choice[str]]:
        """The legal moves fitting what was typed: each named in the user's language with its
        notation after the words, its value the notation (what is played) marked with the
        game's action count (:func:`with_seq`), so that a pick from an outdated list, or the
        same pick sent twice, is refused as stale instead of played on another position."""
        channel_id = interaction.channel_id or 0
        session = self.bot.games.in_channel(channel_id)
        if session is not None and session.id in self.bot.games.stale:
            await self.bot.games.get(session.id)  # another process moved it: the list and
            # its mark are of the game as it now stands
        actions = self.bot.games.legal_texts(channel_id, interaction.user.id)
        if not actions or session is None:
            return []
        ui = game_ui(session.row.game)
        lang = user_lang(interaction)
        worded = {a: ui.move_words(a, lang) for a in actions}
        typed, _ = split_seq(current)  # a picked value, edited
        return [app_commands.Choice(name=choice_name(worded[a], a),
                                    value=with_seq(a, session.seq))
                for a in matches(typed, actions, worded)]


def with_seq(action: str, seq: int) -> str:
    """A suggestion's value: the notation and the action count it was offered at
    (``place B5 2 @17``); without the count when both would not fit Discord's limit."""
    marked = f"{action} {SEQ_MARK}{seq}"
    return marked if len(marked) <= MAX_CHOICE_NAME else action[:MAX_CHOICE_NAME]


def split_seq(notation: str) -> tuple[str, int | None]:
    """The notation of a ``/play`` value and the action count it carries (None: typed by
    hand, without one)."""
    text, mark, seq = notation.strip().rpartition(SEQ_MARK)
    if not mark or not seq.strip().isdecimal() or not text.strip():
        return notation, None
    return text.strip(), int(seq.strip())


async def setup(bot: GameBot) -> None:
    await bot.add_cog(Play(bot))
