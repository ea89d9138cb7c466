"""Answers to a user, and the central error handler: word every refusal, log the unexpected,
answer politely, keep every game alive.

Commands, components, modals and typed DMs do not catch a refusal (not your turn, an illegal
move, ...): they raise it, and :func:`report` (or :func:`report_dm` for a typed DM) words it,
ephemerally and in the user's language, with the form, an example and the closest legal moves
when it is about a move. What the wording needs from the site (the game, the typed text) rides
on the refusal, put there by :func:`wording`; this is the one module of ``bot/`` that catches a
refusal (``tests/test_bot_shape.py`` checks it). Everything else that arrives here is a bug, a
Discord hiccup, or a database that could not take a write just now (locked past its timeout,
out of connections, a full disk): that one is no bug, and the user is told their action was not
saved and may be tried again. The game state is safe either way,
because the host changes memory only after a commit. An interaction that expired before it was
answered (Discord's 10062) cannot be answered at all: a warning, not an error.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import discord
from discord import app_commands

from bot.constants import MAX_CONTENT
from bot.host.sessions import Refusal, Session
from bot.host.store import unavailable
from bot.table.words import refusal_text
from render.i18n import has, join, language, t
from rules.core import IllegalAction

log = logging.getLogger(__name__)

UNKNOWN_INTERACTION = 10062
"""Discord's code for an interaction token that expired (not answered within 3 seconds)."""
SUGGESTIONS = 3
"""The most legal moves a refused move is answered with."""
VERB_SLIP = 0.75
"""How alike a typed verb and a legal one must be to count as a slip (``plce`` for ``place``)."""
NEAR = 0.7
"""How alike a typed move and a legal one must be to be suggested."""

T = TypeVar("T")
Command = TypeVar("Command", bound=Callable[..., Coroutine[Any, Any, None]])
Found = Session | Callable[[], Session | None] | None
"""The game a refusal is about, or how to find it once refused (as the refusal left it)."""


@dataclass(frozen=True)
class Wording:
    """What the handler needs from the site to word a refusal: the game (its names, its rules'
    words, whose turn it is), the move as typed (the closest legal ones), whether it was a move
    offered at a position (a stale one is then "that choice is outdated"), and the language of
    an answer that is no interaction's (a typed DM speaks the game's)."""

    session: Found = None
    typed: str | None = None
    offered: bool = False
    lang: str | None = None


@contextlib.contextmanager
def wording(session: Found = None, *, typed: str | None = None, offered: bool = False,
            lang: str | None = None) -> Iterator[None]:
    """Let a refusal raised inside pass on to the handler with what its words need (the
    innermost site's, when several are nested); nothing is caught."""
    try:
        yield
    except (Refusal, IllegalAction) as error:
        if getattr(error, "wording", None) is None:
            setattr(error, "wording", Wording(session, typed, offered, lang))  # noqa: B010
        raise


async def unless_refused(call: Awaitable[T]) -> T | None:
    """``call``'s result, or None when the host refuses it (a game listed but gone since)."""
    try:
        return await call
    except Refusal:
        return None


def answers_refusals(command: Command) -> Command:
    """A slash command (or a modal's submit) whose refusals the handler words as it returns:
    a refusal is an ordinary answer, so it never reaches the tree's handler, which is for
    errors. The command's interaction is its first argument (after ``self`` for a method)."""
    @functools.wraps(command)
    async def answering(*args: Any, **kwargs: Any) -> None:
        try:
            await command(*args, **kwargs)
        except (Refusal, IllegalAction) as error:
            interaction = args[0] if isinstance(args[0], discord.Interaction) else args[1]
            await refused(interaction, error)
    return cast("Command", answering)


async def refused(interaction: discord.Interaction,
                  error: Refusal | IllegalAction) -> None:
    """The one answer to a refusal: ephemeral, in the user's language; never logged as an
    error (a failed answer is logged and forgotten)."""
    lang = language(str(interaction.locale))
    try:
        await answer(interaction, refusal_words(error, interaction.user.id, lang))
    except discord.HTTPException as failed:
        log.info("could not answer a refusal: %s", failed)


def refusal_words(error: Refusal | IllegalAction, user_id: int, lang: str) -> str:
    """A refusal in words: why, and for a move the rules refused, the form, the closest legal
    moves or an example."""
    said: Wording = getattr(error, "wording", None) or Wording()
    found = said.session
    session = found() if callable(found) else found
    if isinstance(error, Refusal) and error.key == "bot.refuse.stale" and said.offered:
        error = Refusal("bot.refuse.stale_choice")
    reason = refusal_text(session, error, lang)
    if not isinstance(error, IllegalAction) or session is None or said.typed is None:
        return reason[:MAX_CONTENT]
    seat = session.seat_of(user_id)
    legal = session.legal_lines(seat.colour) if seat else []
    form = f"bot.form.{session.row.game}.{session.kind()}"
    close = near_misses(said.typed, legal)
    if has(form, lang) and (error.key == "syntax" or not close):
        reason += "\n" + t("bot.refuse.form", lang, form=t(form, lang))
    if close:
        reason += "\n" + t("bot.refuse.did_you_mean", lang,
                           moves=join([f"`{m}`" for m in close], lang))
    elif legal:
        reason += "\n" + t("bot.refuse.for_example", lang, move=legal[0])
    return reason[:MAX_CONTENT]


def near_misses(typed: str, legal: list[str]) -> list[str]:
    """The legal moves close to what was typed: the same verb (or a slip of it) and close
    arguments. Garbage (``blah 99``) has none: a guess would only mislead, so the answer
    shows the form and an example instead."""
    words = " ".join(typed.lower().split())
    verb = words.split(" ", 1)[0]
    verbs = {line.split(" ", 1)[0] for line in legal}
    slips = set(difflib.get_close_matches(verb, verbs, n=len(verbs), cutoff=VERB_SLIP))
    same = {line.lower(): line for line in legal if line.split(" ", 1)[0] in slips}
    return [same[m] for m in difflib.get_close_matches(words, list(same), n=SUGGESTIONS,
                                                       cutoff=NEAR)]


async def report(interaction: discord.Interaction, error: BaseException) -> None:
    """Log ``error`` with its context and tell the user, ephemerally, that it was not them."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    lang = language(str(interaction.locale))
    if isinstance(error, (Refusal, IllegalAction)):  # an ordinary answer, nothing to log
        await refused(interaction, error)
        return
    command = interaction.command.qualified_name if interaction.command else None
    if isinstance(error, discord.NotFound) and error.code == UNKNOWN_INTERACTION:
        log.warning("an interaction expired before it was answered (10062 Unknown interaction;"
                    " command %s, channel %s, user %s)", command, interaction.channel_id,
                    interaction.user.id)
        return
    cause = unavailable(error)
    if isinstance(error, app_commands.CheckFailure):
        key = ("bot.error.no_dm" if isinstance(error, app_commands.NoPrivateMessage)
               else "bot.error.not_allowed")
    elif cause is not None:
        key = "bot.error.not_saved"
        log.warning("not saved: the database is %s (command %s, channel %s, user %s): %s: %s",
                    cause, command, interaction.channel_id, interaction.user.id,
                    type(error).__name__, error)
    else:
        key = "bot.error.unexpected"
        log.error("unexpected error (command %s, channel %s, user %s)", command,
                  interaction.channel_id, interaction.user.id, exc_info=error)
        seen = getattr(interaction.client, "unexpected_errors", None)
        if seen is not None:
            seen.append(error)
    try:
        await answer(interaction, t(key, lang))
    except discord.HTTPException:
        log.warning("could not tell user %s about an error", interaction.user.id)


async def answer(interaction: discord.Interaction, text: str) -> None:
    """An ephemeral answer, whether or not the interaction was answered or deferred already."""
    if interaction.type is discord.InteractionType.autocomplete:
        return
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)


async def report_dm(message: discord.Message, error: BaseException, lang: str) -> None:
    """The handler for a choice typed in a DM: the answer goes to the DM (a refusal in the
    language its wording names, else ``lang``); a database that could not take the choice is
    no bug, and the player may try again."""
    if isinstance(error, (Refusal, IllegalAction)):
        said: Wording = getattr(error, "wording", None) or Wording()
        text = refusal_words(error, message.author.id, said.lang or lang)
    else:
        cause = unavailable(error)
        if cause is None:
            log.error("a typed choice in a DM failed", exc_info=error)
        else:  # the database could not take it: nothing changed, the player may retry
            log.warning("a typed choice in a DM was not saved (user %s): the database is"
                        " %s: %s", message.author.id, cause, error)
        text = t("bot.error.unexpected" if cause is None else "bot.error.not_saved", lang)
    with contextlib.suppress(discord.HTTPException):
        await message.channel.send(text[:MAX_CONTENT])
