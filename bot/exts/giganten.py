"""Giganten's components in the channel: action cards that show their contents, build and
shipping buttons with a sensible default, and the open auction's +1 / +2 / other amount / Pass.

Every component's custom_id holds the game id and the action count, so it survives a restart and
a click on an outdated prompt is refused; the same buttons work from a DM, where the bidder also
gets them beside their hand. The licence hand, peeked tiles and the payment form are private:
they go through the generic DM machinery (:mod:`bot.exts.hidden`), which also gives players with
closed DMs the channel button that opens them ephemerally.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot import announce
from bot.exts import errors
from bot.games.giganten import (
    card_text,
    company_name,
    entry_fee,
    hand_text,
    money,
    ranked_productions,
)
from bot.sessions import Refusal, Session
from render.i18n import language, t
from rules.core import IllegalAction
from rules.giganten.board import BUILD_COST

if TYPE_CHECKING:
    from bot.bot import GameBot

log = logging.getLogger(__name__)

_KEY = r":(?P<game>[0-9]+):(?P<seq>[0-9]+):(?P<op>[a-z]+)(?::(?P<arg>.*))?"
"""``<prefix>:<game>:<seq>:<op>[:<arg>]``. Ops: ``act`` plays the notation in ``arg``; ``pick``
plays the legal action numbered ``arg``; ``sel`` (a select) plays the option picked, notation or
``#<number>``; ``other`` asks for a bid amount."""
BUTTON_ID = "gg" + _KEY
SELECT_ID = "ggs" + _KEY
"""Buttons and selects need templates of their own: one pattern maps to one item class."""
MAX_LABEL = 80
MAX_MODAL_TEXT = 45
"""Discord's limit for a modal's title and a text input's label."""
MAX_OPTIONS = 25


def _cid(session: Session, op: str, arg: str = "") -> str:
    prefix = "ggs" if op == "sel" else "gg"
    return f"{prefix}:{session.id}:{session.seq}:{op}" + (f":{arg}" if arg else "")


def _label(text: str, most: int = MAX_LABEL) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


# --- components ----------------------------------------------------------------------------------

class GigantenButton(discord.ui.DynamicItem[discord.ui.Button], template=BUTTON_ID):
    """A Giganten button; what it does is in its custom_id."""

    def __init__(self, custom_id: str, label: str,
                 style: discord.ButtonStyle = discord.ButtonStyle.primary,
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=_label(label), style=style,
                                           custom_id=custom_id, disabled=disabled))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str], /) -> GigantenButton:
        return cls(item.custom_id or "", item.label or "")

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        await _dispatch(interaction, self.item.custom_id or "", None)


class GigantenSelect(discord.ui.DynamicItem[discord.ui.Select], template=SELECT_ID):
    """A Giganten select: each option's value is notation or ``#<index>`` of a legal action."""

    def __init__(self, custom_id: str, placeholder: str = "",
                 options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(discord.ui.Select(custom_id=custom_id, placeholder=_label(placeholder),
                                           options=options or [discord.SelectOption(label="-")]))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Select,
                             match: re.Match[str], /) -> GigantenSelect:
        select = cls(item.custom_id or "")
        select.item = item
        return select

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        values = self.item.values
        await _dispatch(interaction, self.item.custom_id or "", values[0] if values else None)


class BidModal(discord.ui.Modal):
    """Any other bid amount; the game id and action count come from the button that opened it."""

    def __init__(self, game_id: int, seq: int, company: str, high: int, lang: str) -> None:
        super().__init__(title=_label(t("bot.giganten.modal.title", lang, company=company),
                                      MAX_MODAL_TEXT),
                         custom_id=f"ggbid:{game_id}:{seq}")
        self.game_id, self.seq, self.high, self.lang = game_id, seq, high, lang
        self.amount: discord.ui.TextInput[BidModal] = discord.ui.TextInput(
            label=_label(t("bot.giganten.modal.label", lang, high=high), MAX_MODAL_TEXT),
            custom_id="amount",
            max_length=3, default=str(high + 1))
        self.add_item(self.amount)

    async def on_submit(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        text = str(self.amount.value).strip()
        if not text.isdecimal():
            await errors.answer(interaction, t("bot.giganten.refuse.bad_amount",
                                               _user_lang(interaction), high=self.high))
            return
        await _play(interaction, self.game_id, self.seq, f"bid {int(text)}")

    async def on_error(self, interaction: discord.Interaction,  # type: ignore[override]
                       error: Exception) -> None:
        await errors.report(interaction, error)


def _user_lang(interaction: discord.Interaction) -> str:
    return language(str(interaction.locale))


async def _dispatch(interaction: discord.Interaction, custom_id: str, value: str | None) -> None:
    try:
        match = re.fullmatch(BUTTON_ID, custom_id) or re.fullmatch(SELECT_ID, custom_id)
        assert match is not None
        game_id, seq, op, arg = int(match["game"]), int(match["seq"]), match["op"], match["arg"]
        if op == "other":
            await _ask_amount(interaction, game_id, seq)
        elif op == "act":
            await _play(interaction, game_id, seq, arg or "")
        elif op == "pick":
            await _play(interaction, game_id, seq, int(arg or 0))
        elif op == "sel" and value is not None:
            await _play(interaction, game_id, seq,
                        int(value[1:]) if value.startswith("#") else value)
    except Exception as error:
        await errors.report(interaction, error)


async def _ask_amount(interaction: discord.Interaction, game_id: int, seq: int) -> None:
    bot: GameBot = interaction.client  # type: ignore[assignment]
    lang = _user_lang(interaction)
    try:
        session = await bot.games.get(game_id)
    except Refusal as error:
        await errors.answer(interaction, announce.refusal_text(None, error, lang))
        return
    try:
        _turn_of(session, interaction.user.id, seq)
    except Refusal as error:
        await errors.answer(interaction, announce.refusal_text(session, error, lang))
        return
    auction = session.view().get("auction")
    if not auction:
        await errors.answer(interaction, t("bot.refuse.stale", lang))
        return
    await interaction.response.send_modal(BidModal(
        game_id, seq, company_name(auction["company"], lang), auction["high_bid"], lang))


def _turn_of(session: Session, user_id: int, seq: int) -> str:
    """The clicker's colour if the prompt is current and it is their turn; else a Refusal,
    checked before anything is shown or looked up by position."""
    if session.status != "running" or session.game is None:
        raise Refusal("bot.refuse.game_closed")
    seat = session.seat_of(user_id)
    if seat is None:
        raise Refusal("bot.refuse.not_player")
    if session.seq != seq:
        raise Refusal("bot.refuse.stale")
    if seat.colour not in session.pending():
        raise Refusal("bot.refuse.not_your_turn", pending=list(session.pending()))
    return seat.colour


async def _play(interaction: discord.Interaction, game_id: int, seq: int,
                action: str | int) -> None:
    """Play ``action`` (notation, or the index of a legal action) for the clicking player,
    from the channel or a DM alike; then post the turn in the game's channel."""
    from bot.exts.play import publish

    bot: GameBot = interaction.client  # type: ignore[assignment]
    host = bot.games
    lang = _user_lang(interaction)
    await interaction.response.defer()
    session: Session | None = None
    try:
        session = await host.get(game_id)
        if isinstance(action, int):
            colour = _turn_of(session, interaction.user.id, seq)
            legal = [str(a) for a in session.legal(colour)]
            if not 0 <= action < len(legal):
                raise Refusal("bot.refuse.stale")
            action = legal[action]
        report = await host.play(session.row.channel_id, interaction.user.id, action,
                                 expect_seq=seq, game_id=game_id)
    except (Refusal, IllegalAction) as error:
        await errors.answer(interaction, announce.refusal_text(session, error, lang))
        return
    try:
        await interaction.edit_original_response(view=None)
    except discord.HTTPException:
        log.info("could not clear the used prompt of game %s", game_id)
    first = report.steps[0]
    secrets = announce.private_lines(report.session, report.steps, first.actor, lang)
    if secrets:  # e.g. the cards dealt after taking an action card: for the clicker only
        await errors.answer(interaction, "\n".join(secrets))
    await publish(interaction, report)


# --- what the channel shows ----------------------------------------------------------------------

def _human_pending(session: Session) -> str | None:
    pending = session.pending()
    if len(pending) != 1:
        return None
    seat = session.seat(pending[0])
    return seat.colour if seat is not None and not seat.is_ai else None


def channel_items(session: Session) -> list[discord.ui.Item[Any]]:
    """The pending human's components under the turn message (none for AI seats)."""
    if session.status != "running" or session.game is None:
        return []
    colour = _human_pending(session)
    if colour is None:
        return []
    lang = session.row.language
    view = session.view()
    decision = view["decision"]
    legal = [str(a) for a in session.legal(colour)]
    if decision == "take":
        return [GigantenButton(_cid(session, "act", a), card_text(a.split()[1], lang))
                for a in legal]
    if decision == "move":
        mp = (view.get("turn") or {}).get("mp_left", 0)
        return [GigantenButton(_cid(session, "act", "done"),
                               t("bot.giganten.button.done", lang, mp=mp))]
    if decision == "build":
        items: list[discord.ui.Item[Any]] = []
        for a in legal:
            if a == "skip":
                items.append(GigantenButton(_cid(session, "act", a),
                                            t("bot.giganten.button.skip", lang),
                                            discord.ButtonStyle.secondary))
            else:
                label = a.split()[1]
                cost = BUILD_COST[view["spaces"][label]["type"]]
                items.append(GigantenButton(_cid(session, "act", a), t(
                    "bot.giganten.button.build", lang, label=label, cost=money(cost, lang))))
        return items
    if decision == "produce":
        return _produce_items(session, legal, view["prices"],
                              view["players"][colour]["storage"], lang)
    if decision == "bid":
        return _bid_items(session, view, lang)
    return []


def _produce_items(session: Session, legal: list[str], prices: dict[str, int],
                   stored: dict[str, int], lang: str) -> list[discord.ui.Item[Any]]:
    """The best-looking shipping as one click, every other outcome in a select."""
    ranked = ranked_productions(legal, prices, stored)
    if not ranked:
        return []
    best = ranked[0]
    items: list[discord.ui.Item[Any]] = [GigantenButton(
        _cid(session, "pick", str(best)),
        t("bot.giganten.button.produce", lang, line=_entries(legal[best], lang)))]
    if len(ranked) > 1:
        options = []
        for i in ranked[:MAX_OPTIONS]:
            fees = sum(entry_fee(e) for e in legal[i].split()[1:])
            options.append(discord.SelectOption(
                label=_label(_entries(legal[i], lang)), value=f"#{i}", default=i == best,
                description=t("bot.giganten.option.fees", lang, fees=money(fees, lang))))
        items.append(GigantenSelect(_cid(session, "sel"),
                                    t("bot.giganten.select.produce", lang), options))
    return items


def _entries(line: str, lang: str) -> str:
    """``produce C5=jet D3=hudson:black`` as ``C5→Jet, D3→Hudson via black``."""
    out = []
    for entry in line.split()[1:]:
        label, _, where = entry.partition("=")
        company, _, via = where.partition(":")
        if company == "drop":
            out.append(t("bot.giganten.entry.drop", lang, label=label))
        elif via:
            shown = t("bot.giganten.via.black_short", lang) if via == "black" \
                else announce.colour_name(via, lang)
            out.append(t("bot.giganten.entry.paid", lang, label=label,
                         company=company_name(company, lang), via=shown))
        else:
            out.append(t("bot.giganten.entry.free", lang, label=label,
                         company=company_name(company, lang)))
    return ", ".join(out)


def _bid_items(session: Session, view: dict[str, Any],
               lang: str) -> list[discord.ui.Item[Any]]:
    """The current high bid (as a label), +1, +2, any other amount, and Pass."""
    auction = view["auction"]
    high = auction["high_bid"]
    company = company_name(auction["company"], lang)
    info = t("bot.giganten.button.high", lang, company=company, bid=high,
             name=announce.colour_name(auction["high_bidder"], lang)) \
        if auction["high_bidder"] else t("bot.giganten.button.no_bid", lang, company=company)
    items: list[discord.ui.Item[Any]] = [
        GigantenButton(_cid(session, "act", "info"), info, discord.ButtonStyle.secondary,
                       disabled=True)]
    legal = {str(a) for a in session.legal(view["pending"][0])}
    for step in (1, 2):
        if f"bid {high + step}" in legal:
            items.append(GigantenButton(_cid(session, "act", f"bid {high + step}"), t(
                "bot.giganten.button.bid", lang, amount=high + step, step=step)))
    if f"bid {high + 3}" in legal:
        items.append(GigantenButton(_cid(session, "other"), t("bot.giganten.button.other", lang),
                                    discord.ButtonStyle.secondary))
    items.append(GigantenButton(_cid(session, "act", "pass"), t("bot.giganten.button.pass", lang),
                                discord.ButtonStyle.danger))
    return items


# --- bids from the DM ----------------------------------------------------------------------------

class BidsByDM(commands.Cog):
    """When a turn message asks a human to bid, the same bid buttons also go to their DM, with
    their hand beside them: they may bid from there. The auction itself stays in the channel."""

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot
        self.prompted: set[tuple[int, int]] = set()
        """(game id, action count) of the bid prompts sent, so a re-posted board sends none."""

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        me = self.bot.user
        if message.guild is None or me is None or message.author.id != me.id:
            return
        try:
            await self.prompt(message.channel.id)
        except Exception:
            log.exception("could not send a bid prompt by DM in channel %s", message.channel.id)

    async def prompt(self, channel_id: int) -> None:
        session = self.bot.games.in_channel(channel_id)
        if session is None or session.row.game != "giganten" or session.game is None:
            return
        colour = _human_pending(session)
        if colour is None or session.kind() != "bid" or (session.id, session.seq) in self.prompted:
            return
        self.prompted.add((session.id, session.seq))
        seat = session.seat(colour)
        assert seat is not None and seat.user_id is not None
        lang = session.row.language
        view = session.view(colour)
        auction = view["auction"]
        text = t("bot.giganten.dm.bid", lang, channel=f"<#{session.row.channel_id}>",
                 company=company_name(auction["company"], lang),
                 hand=hand_text(view["you"]["licences"], lang))
        buttons = discord.ui.View(timeout=None)
        for item in _bid_items(session, view, lang):
            buttons.add_item(item)
        try:
            user = self.bot.get_user(seat.user_id) or await self.bot.fetch_user(seat.user_id)
            await user.send(text, view=buttons)
        except discord.HTTPException as error:  # closed DMs: the channel buttons remain
            log.info("no bid prompt by DM for game %s: %s", session.id, error)


async def setup(bot: GameBot) -> None:
    bot.add_dynamic_items(GigantenButton, GigantenSelect)
    await bot.add_cog(BidsByDM(bot))


__all__ = ["BidsByDM", "GigantenButton", "GigantenSelect", "channel_items"]
