"""What a click, a pick or a typed choice does: play it through the host, whose commit the
outbox shows (the host announces every commit). Shared by the components
(:mod:`bot.adapter.items`) and the cogs.

The answer to the acting user is best effort and never gates the table: the move is committed
first, announced by the host to the outbox, and only then is the user answered (a failed answer is
logged and forgotten; the table shows the move anyway).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Any, cast

import discord

from bot.adapter.answer import answer, answers_refusals, report, wording
from bot.adapter.port import App
from bot.constants import BID_MODAL_ID, MAX_CONTENT, MAX_MODAL_TEXT
from bot.host.sessions import Refusal, Report, Seat, Session
from bot.table.words import echo, move_text, private_lines
from render.i18n import language, t

log = logging.getLogger(__name__)

SUGGESTIONS = 3


def bot_of(interaction: discord.Interaction) -> App:
    # the tree that dispatches this project's interactions belongs to the app's bot
    return cast("App", interaction.client)


def user_lang(interaction: discord.Interaction) -> str:
    return language(str(interaction.locale))


TOKEN_GONE = (50027, 10015)
"""Discord's codes for an interaction token that no longer works (Invalid Webhook Token,
Unknown Webhook): it expires 15 minutes after the interaction."""


async def best_effort(what: str, call: Awaitable[object]) -> None:
    """Await an answer to a user; a failure is logged, never raised (the move is saved)."""
    try:
        await call
    except discord.HTTPException as error:
        log.info("could not %s: %s", what, error)


async def edit_answered(interaction: discord.Interaction, what: str,
                        **fields: Any) -> None:
    """Edit the message an interaction answered (its original response), best effort. Once
    the interaction's token has expired (50027, 10015: 15 minutes after the click) the same
    edit goes to the message itself, as any edit of the bot's own message does; an ephemeral
    message, which only the token could edit, is then left as it is."""
    try:
        await interaction.edit_original_response(**fields)
        return
    except discord.HTTPException as error:
        message = interaction.message
        if error.code not in TOKEN_GONE or message is None or message.flags.ephemeral:
            log.info("could not %s: %s", what, error)
            return
    log.info("the interaction's token has expired: %s by a plain edit", what)
    await best_effort(what, message.edit(**fields))


async def play(interaction: discord.Interaction, game_id: int, text: str, *,
               expect_seq: int | None = None, expect_turn: int | None = None
               ) -> Report:
    """Play ``text`` for the user in game ``game_id`` (the interaction is answered or deferred
    already); a refusal goes to the one handler, which answers it ephemerally."""
    bot = bot_of(interaction)
    session = await bot.games.get(game_id)
    with wording(session, typed=text):
        return await bot.games.play_game(game_id, interaction.user.id, text,
                                         expect_turn=expect_turn, expect_seq=expect_seq)


async def host_change(interaction: discord.Interaction,
                      change: Awaitable[Session]) -> Session:
    """A slash command's change of a game through the host, which announces the commit to the
    outbox; a refusal goes to the one handler."""
    return await change


# --- the lobby -------------------------------------------------------------------------------

async def lobby(interaction: discord.Interaction, game_id: int, op: str) -> None:
    bot = bot_of(interaction)
    host = bot.games
    await interaction.response.defer()
    session = await host.get(game_id)
    with wording(session):
        user = interaction.user.id
        if op == "join":
            await host.join(game_id, user, interaction.user.display_name)
        elif op == "leave":
            await host.leave(game_id, user)
        elif op == "ai":
            await host.add_ai(game_id, user)
        elif op == "drop":
            await host.remove_ai(game_id, user, is_admin=interaction.permissions.manage_guild)
        else:
            await host.start(game_id, user)


# --- the live table --------------------------------------------------------------------------

async def table(interaction: discord.Interaction, game_id: int, seq: int, op: str, arg: str,
                value: str | None) -> None:
    """A button or select of the live table (its 🔒 opens the private side:
    :func:`bot.adapter.items.open_private`)."""
    if op == "other":
        await ask_amount(interaction, game_id, seq)
        return
    if op == "info":
        await interaction.response.defer()
        return
    await interaction.response.defer()
    bot = bot_of(interaction)
    lang = user_lang(interaction)
    text = arg
    if op in ("pick", "sel"):
        choice = arg if op == "pick" else (value or "")
        if choice.startswith("#") or op == "pick":
            number = choice.lstrip("#")
            session = await bot.games.get(game_id)
            text = _legal_at(session, interaction.user.id, seq, number)
        else:
            text = choice
    report = await play(interaction, game_id, text, expect_seq=seq)
    secrets = private_lines(report.session, report.steps, report.steps[0].actor, lang)
    if secrets:  # e.g. the cards dealt after taking an action card: for the clicker only
        await best_effort("tell a secret", answer(interaction, "\n".join(secrets)))


def _legal_at(session: Session, user_id: int, seq: int, number: str) -> str:
    """The legal action numbered ``number`` for the clicker, checked before it is looked up."""
    if session.status != "running" or session.game is None:
        raise Refusal("bot.refuse.game_closed")
    seat = session.seat_of(user_id)
    if seat is None:
        raise session.gone(user_id) or Refusal("bot.refuse.not_player")
    if session.seq != seq:
        raise Refusal("bot.refuse.stale")
    if seat.colour not in session.pending():
        raise Refusal("bot.refuse.not_your_turn", pending=list(session.pending()))
    legal = session.legal_lines(seat.colour)
    if not number.isdecimal() or int(number) >= len(legal):
        raise Refusal("bot.refuse.stale")
    return legal[int(number)]


class BidModal(discord.ui.Modal):
    """Any other bid amount; the game id and action count come from the button that opened it."""

    def __init__(self, game_id: int, seq: int, title: str, label: str, high: int,
                 lang: str) -> None:
        super().__init__(title=title[:MAX_MODAL_TEXT],
                         custom_id=BID_MODAL_ID.format(game=game_id, seq=seq))
        self.game_id, self.seq, self.high, self.lang = game_id, seq, high, lang
        self.amount: discord.ui.TextInput[BidModal] = discord.ui.TextInput(
            label=label[:MAX_MODAL_TEXT], custom_id="amount", max_length=3,
            default=str(high + 1))
        self.add_item(self.amount)

    @answers_refusals
    async def on_submit(self, interaction: discord.Interaction) -> None:
        text = str(self.amount.value).strip()
        if not text.isdecimal():
            await answer(interaction, t("bot.giganten.refuse.bad_amount", user_lang(interaction),
                                        high=self.high, typed=echo(text)))
            return
        await interaction.response.defer()
        await play(interaction, self.game_id, f"bid {int(text)}", expect_seq=self.seq)

    async def on_error(  # type: ignore[override]  # a modal has no item argument
            self, interaction: discord.Interaction, error: Exception, /) -> None:
        """As every other component: to the central handler (a busy database included)."""
        await report(interaction, error)


async def ask_amount(interaction: discord.Interaction, game_id: int, seq: int) -> None:
    bot = bot_of(interaction)
    lang = user_lang(interaction)
    session = await bot.games.get(game_id)
    if session.seq != seq:
        raise Refusal("bot.refuse.stale")
    seat = session.seat_of(interaction.user.id)
    if seat is None:
        raise session.gone(interaction.user.id) or Refusal("bot.refuse.not_player")
    if seat.colour not in session.pending():
        raise Refusal("bot.refuse.not_your_turn", pending=list(session.pending()))
    auction = session.view().get("auction")
    if not auction:
        await answer(interaction, t("bot.refuse.stale", lang))
        return
    company = t(f"bot.giganten.company.{auction['company']}", lang)
    await interaction.response.send_modal(BidModal(
        game_id, seq, t("bot.giganten.modal.title", lang, company=company),
        t("bot.giganten.modal.label", lang, high=auction["high_bid"]), auction["high_bid"],
        lang))


# --- the private side ------------------------------------------------------------------------

async def _game(interaction: discord.Interaction, game_id: int) -> Session:
    """The game a component belongs to (a refusal, which the handler words, when it is
    gone)."""
    return await bot_of(interaction).games.get(game_id)


def submitted(session: Session, seat: Seat, lang: str, report: Report | None = None) -> str:
    """The one confirmation of a secret choice: what was handed in, and what only this seat
    learns from it."""
    own = [s for s in session.log if s.actor == seat.colour]
    line = own[-1].line.split(" ", 1)[1] if own and " " in own[-1].line else ""
    lines = [t("bot.hidden.submitted", lang, move=move_text(session, line, lang), id=session.id)]
    if report is not None:
        lines += private_lines(session, report.steps, seat.colour, lang)
    return "\n".join(lines)[:MAX_CONTENT]
