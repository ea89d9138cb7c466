"""Choices by taps on Discord (issue 32): the items of a guided choice and what a tap does.

Three places show a chooser, named in its custom_id ``k:<game>:<where>:<count>:<op>:<taps>``
(a select: ``ks:<game>:<where>:<count>:<taps>``, the option adding its number):

- ``t``, the live table: its first step, for the player whose turn it is (``count`` is the
  table's action count). A tap there answers with a message only the player sees, holding the
  next step;
- ``e``, that message: every further tap (``op`` ``s``) or Back (``b``) updates it in place;
- ``<colour>``, a secret decision's prompt (a DM, or the 🔒 view; ``count`` is the seat's own
  action count): updated in place too.

The taps ride in the custom_id (:mod:`bot.table.steps`), so a chooser survives a restart; a
tap whose count or taps no longer fit the game is refused as outdated, in the user's language.
The last tap names the whole move in words and plays it through the same path as ``/play``
(the host's checks and refusals, the action count against a second send).
"""

from __future__ import annotations

import io
import logging
import re
from typing import Any

import discord

from bot.adapter import act as _act
from bot.adapter.act import submitted, user_lang
from bot.adapter.answer import answer
from bot.adapter.component import Item, button, picked, select
from bot.constants import MAX_CONTENT, MAX_CUSTOM_ID
from bot.games import Button, Component, StaleChoice, game_ui
from bot.host.sessions import Refusal, Seat, Session
from bot.table.live import step_picture
from bot.table.pool import BOARDS
from bot.table.private import owes_secret, prompt
from bot.table.steps import Chooser, chooser, claimed, tapped
from bot.table.words import private_lines, refusal_text
from render.i18n import t

log = logging.getLogger(__name__)

TABLE = "t"
"""The live table's first step."""
EPHEMERAL = "e"
"""The message only the tapping player sees, from the table's first step on."""
TAP_ID = (r"k:(?P<game>[0-9]+):(?P<where>[a-z]+):(?P<count>[0-9]+):(?P<op>[sb])"
          r":(?P<arg>[0-9.]*(?::.*)?)")
TAP_SELECT_ID = r"ks:(?P<game>[0-9]+):(?P<where>[a-z]+):(?P<count>[0-9]+):(?P<arg>[0-9.]*)"
_OPS = {"step": "s", "back": "b"}


def tap_id(game_id: int, where: str, count: int, op: str, arg: str) -> str:
    """A tap button's custom_id; the part a tap adds (after the taps) is left out when it does
    not fit."""
    custom_id = f"k:{game_id}:{where}:{count}:{op}:{arg}"
    return custom_id if len(custom_id) <= MAX_CUSTOM_ID else custom_id.partition(
        f":{op}:")[0] + f":{op}:" + arg.partition(":")[0]


class TapButton(Item, template=TAP_ID):
    """One option of a step (or the move the taps chose), or Back."""

    def __init__(self, game_id: int, where: str, count: int, op: str, arg: str,
                 spec: Button | None = None) -> None:
        super().__init__(button(tap_id(game_id, where, count, op, arg),
                                spec or Button("step", "·")))
        self.game_id, self.where, self.count, self.arg = game_id, where, count, arg

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> TapButton:
        return cls(int(match["game"]), match["where"], int(match["count"]), match["op"],
                   match["arg"])

    def numbers(self) -> tuple[int, ...]:
        return (self.game_id, self.count)

    async def run(self, interaction: discord.Interaction) -> None:
        await tap(interaction, self.game_id, self.where, self.count, self.arg, None)


class TapSelect(Item, template=TAP_SELECT_ID):
    """A step's options as one select: each option's value is ``<number>:<part>``."""

    def __init__(self, game_id: int, where: str, count: int, arg: str,
                 spec: Any = None) -> None:
        custom_id = f"ks:{game_id}:{where}:{count}:{arg}"
        if spec is None:
            item: discord.ui.Select[Any] = discord.ui.Select(custom_id=custom_id)
        else:
            item = select(custom_id, spec)
        super().__init__(item)
        self.game_id, self.where, self.count, self.arg = game_id, where, count, arg

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> TapSelect:
        return cls(int(match["game"]), match["where"], int(match["count"]), match["arg"])

    def numbers(self) -> tuple[int, ...]:
        return (self.game_id, self.count)

    async def run(self, interaction: discord.Interaction) -> None:
        values = picked(interaction) or [""]
        await tap(interaction, self.game_id, self.where, self.count, self.arg, str(values[0]))


ITEMS = (TapButton, TapSelect)


def is_tap(spec: Component) -> bool:
    """Whether a component spec is part of a choice by taps (:mod:`bot.table.steps`)."""
    return spec.op in _OPS


def tap_item(game_id: int, where: str, count: int,
             spec: Component) -> discord.ui.DynamicItem[Any]:
    """The Discord item of a chooser's component spec."""
    if isinstance(spec, Button):
        return TapButton(game_id, where, count, _OPS[spec.op], spec.arg, spec)
    return TapSelect(game_id, where, count, spec.arg, spec)


def tap_view(game_id: int, where: str, count: int,
             items: tuple[Component, ...]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for spec in items:
        try:
            view.add_item(tap_item(game_id, where, count, spec))
        except ValueError:  # five rows are full
            break
    return view


# --- what a tap does -----------------------------------------------------------------------

async def tap(interaction: discord.Interaction, game_id: int, where: str, count: int, arg: str,
              value: str | None) -> None:
    """A tap on a chooser: the next step in place (a message only the player sees, from the
    table), or the chosen move played."""
    session = await _act._game(interaction, game_id)
    if where in (TABLE, EPHEMERAL):
        await _public(interaction, session, where, count, arg, value)
    else:
        await _private(interaction, session, where, count, arg, value)


async def _public(interaction: discord.Interaction, session: Session, where: str, count: int,
                  arg: str, value: str | None) -> None:
    lang = user_lang(interaction)
    shown = None
    if session.status == "running" and session.seq == count:
        seat = _acting(session, interaction.user.id)
        shown = _shown(session, seat, arg, value, lang)
    if shown is None:
        await _outdated(interaction, where == EPHEMERAL, "bot.taps.outdated", lang)
        return
    if not shown.notation:
        view = tap_view(session.id, EPHEMERAL, count, shown.components)
        files = await _step_files(interaction, session, shown, lang)
        if where == TABLE:
            await interaction.response.send_message(shown.message(), view=view, ephemeral=True,
                                                    files=files)
        else:
            await interaction.response.edit_message(content=shown.message(), view=view,
                                                    attachments=files)
        return
    if where == TABLE:  # the table's own buttons' path: the move, and any secret it deals
        await _act.table(interaction, session.id, count, "act", shown.notation, None)
        return
    await interaction.response.defer()
    report = await _act.play(interaction, session.id, shown.notation, expect_seq=count)
    lines = [t("bot.taps.played", lang, move=shown.words),
             *private_lines(report.session, report.steps, report.steps[0].actor, lang)]
    await _act.edit_answered(interaction, "confirm a move by taps",
                             content="\n".join(lines)[:MAX_CONTENT], view=None, attachments=[])


async def _step_files(interaction: discord.Interaction, session: Session, shown: Chooser,
                      lang: str) -> list[discord.File]:
    """The step's focus on its places (:func:`bot.table.live.step_picture`), drawn in the
    render pool; none when the step is about no close places, or the drawing failed (the
    step is shown without: its options name the places in words)."""
    picture = step_picture(session, BOARDS.get(session.row.game), list(shown.moves), lang)
    if picture is None:
        return []
    try:
        png = await _act.bot_of(interaction).renders.picture(picture)
    except Exception:
        log.exception("drawing a step's places failed (game %s)", session.id)
        return []
    return [discord.File(io.BytesIO(png), filename=picture.filename)] if png else []


def _acting(session: Session, user_id: int) -> Seat:
    """The tapping player's seat, if the game is theirs to play now (else a refusal)."""
    if session.status != "running" or session.game is None:
        raise Refusal("bot.refuse.game_closed")
    seat = session.seat_of(user_id)
    if seat is None:
        raise session.gone(user_id) or Refusal("bot.refuse.not_player")
    if seat.colour not in session.pending():
        raise Refusal("bot.refuse.not_your_turn", pending=list(session.pending()))
    return seat


def _shown(session: Session, seat: Seat, arg: str, value: str | None,
           lang: str) -> Chooser | None:
    """What a tap leads to for ``seat`` now; None when its taps (or the part the last one
    was shown to add) fit its legal moves no more."""
    taps = tapped(arg, value)
    if taps is None:
        return None
    try:
        return chooser(game_ui(session.row.game), session.kind(),
                       session.legal_lines(seat.colour), taps, lang,
                       part=claimed(arg, value) if taps else None)
    except StaleChoice:
        return None


async def _outdated(interaction: discord.Interaction, in_place: bool, key: str,
                    lang: str) -> None:
    """An outdated chooser says so: in place when it is the player's own message."""
    if in_place:
        await interaction.response.edit_message(content=t(key, lang), view=None)
    else:
        await answer(interaction, t(key, lang))


async def _private(interaction: discord.Interaction, session: Session, colour: str, turn: int,
                   arg: str, value: str | None) -> None:
    """A tap on a secret decision's prompt (a DM, or the 🔒 view), as its other components."""
    lang = user_lang(interaction)
    seat = session.seat(colour)
    gone = session.gone(interaction.user.id, colour)
    if gone is not None:  # the seat changed hands: this prompt says so, and goes
        await interaction.response.edit_message(content=refusal_text(session, gone, lang),
                                                embed=None, attachments=[], view=None)
        return
    if seat is None or seat.user_id != interaction.user.id:
        await answer(interaction, t("bot.hidden.not_yours", lang))
        return
    fits = owes_secret(session, seat) and session.turns(colour) == turn
    shown = _shown(session, seat, arg, value, lang) if fits else None
    if shown is None:
        key = "bot.hidden.aborted" if session.status == "aborted" else "bot.hidden.outdated"
        await _outdated(interaction, True, key, lang)
        return
    if not shown.notation:
        text = "\n".join((prompt(session, seat, lang).text, shown.message()))
        await interaction.response.edit_message(
            content=text[:MAX_CONTENT], view=tap_view(session.id, colour, turn,
                                                      shown.components))
        return
    await interaction.response.defer()
    report = await _act.play(interaction, session.id, shown.notation, expect_turn=turn)
    await _act.edit_answered(interaction, "confirm a secret choice",
                             content=submitted(report.session, seat, lang, report), view=None)
