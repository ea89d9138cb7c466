"""The bot's Discord components: each item owns its custom_id template, its parsing and checks.

Every component survives a restart (``DynamicItem``): its custom_id carries the game id and the
decision it belongs to (the action count for the table, the seat's own action count for a
private prompt), so a click on an outdated one is refused with a clear answer. What a click
does lives in :mod:`bot.adapter.act`, except on the private side (:func:`prompt_click`,
:func:`open_private`), which builds new prompts of these items and so lives beside them; the
specs come from the table (:mod:`bot.table`). The items of a choice by taps, and what a tap
does, are :mod:`bot.adapter.taps`; their shared base is :mod:`bot.adapter.component`.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from typing import TYPE_CHECKING, Any, TypeVar

import discord

from bot.adapter import act as _act
from bot.adapter import privacy as _privacy
from bot.adapter import taps as _taps
from bot.adapter.act import submitted, user_lang
from bot.adapter.answer import answer
from bot.adapter.component import Item as _Item
from bot.adapter.component import button as _button
from bot.adapter.component import picked as _picked
from bot.adapter.component import select as _select
from bot.constants import (
    FORGET_ID,
    LOBBY_ID,
    MAX_CONTENT,
    MAX_CUSTOM_ID,
    OPEN_ID,
    PROMPT_ID,
    PROMPT_SELECT_ID,
    SCREEN_FILE,
    TABLE_ID,
    TABLE_SELECT_ID,
)
from bot.games import Button, Component, Select, game_ui
from bot.table.private import owes_secret, prompt, resolve
from bot.table.words import refusal_text
from render.i18n import t

if TYPE_CHECKING:
    from bot.table import Post
    from bot.table.private import Prompt

T = TypeVar("T")
log = logging.getLogger(__name__)

class LobbyButton(_Item, template=LOBBY_ID):
    """Join / Leave / Add AI / Start on the lobby card."""

    def __init__(self, game_id: int, op: str, spec: Button | None = None) -> None:
        custom_id = f"lobby:{game_id}:{op}"
        super().__init__(_button(custom_id, spec or Button(op, op)))
        self.game_id, self.op = game_id, op

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LobbyButton:
        return cls(int(match["game"]), match["op"])

    def numbers(self) -> tuple[int, ...]:
        return (self.game_id,)

    async def run(self, interaction: discord.Interaction) -> None:
        await _act.lobby(interaction, self.game_id, self.op)


class ForgetButton(_Item, template=FORGET_ID):
    """``/game forget-me``'s confirm button: ``forget:<user>``, pressed by that user only."""

    def __init__(self, user_id: int, label: str = "forget") -> None:
        super().__init__(_button(f"forget:{user_id}", Button("forget", label,
                                                             style="danger")))
        self.user_id = user_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ForgetButton:
        return cls(int(match["user"]))

    def numbers(self) -> tuple[int, ...]:
        return (self.user_id,)

    async def run(self, interaction: discord.Interaction) -> None:
        await _privacy.confirm(interaction, self.user_id)


class TableButton(_Item, template=TABLE_ID):
    """A button of the live table: ``t:<game>:<seq>:<op>[:<arg>]``."""

    def __init__(self, game_id: int, seq: int, op: str, arg: str = "",
                 spec: Button | None = None) -> None:
        custom_id = f"t:{game_id}:{seq}:{op}" + (f":{arg}" if arg else "")
        super().__init__(_button(custom_id, spec or Button(op, op, arg)))
        self.game_id, self.seq, self.op, self.arg = game_id, seq, op, arg

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> TableButton:
        return cls(int(match["game"]), int(match["seq"]), match["op"], match["arg"] or "")

    def numbers(self) -> tuple[int, ...]:
        return (self.game_id, self.seq)

    async def run(self, interaction: discord.Interaction) -> None:
        if self.op == "open":
            await open_private(interaction, self.game_id)
            return
        await _act.table(interaction, self.game_id, self.seq, self.op, self.arg, None)


class TableSelect(_Item, template=TABLE_SELECT_ID):
    """A select of the live table: each value is notation or ``#<legal index>``."""

    def __init__(self, game_id: int, seq: int, op: str, spec: Select | None = None) -> None:
        custom_id = f"ts:{game_id}:{seq}:{op}"
        super().__init__(_select(custom_id, spec or Select(op, "", ())))
        self.game_id, self.seq, self.op = game_id, seq, op

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> TableSelect:
        return cls(int(match["game"]), int(match["seq"]), match["op"])

    def numbers(self) -> tuple[int, ...]:
        return (self.game_id, self.seq)

    async def run(self, interaction: discord.Interaction) -> None:
        if self.op == "open":
            await open_private(interaction, self.game_id)
            return
        values = _picked(interaction)
        await _act.table(interaction, self.game_id, self.seq, self.op, "",
                         str(values[0]) if values else None)


class PromptButton(_Item, template=PROMPT_ID):
    """A private prompt's button: ``p:<game>:<colour>:<turn>:<what>:<picks>``."""

    def __init__(self, game_id: int, colour: str, turn: int, what: str, state: str = "",
                 spec: Button | None = None) -> None:
        custom_id = f"p:{game_id}:{colour}:{turn}:{what}:{state}"
        super().__init__(_button(custom_id, spec or Button(what, what)))
        self.game_id, self.colour, self.turn, self.what, self.state = \
            game_id, colour, turn, what, state

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> PromptButton:
        return cls(int(match["game"]), match["colour"], int(match["turn"]), match["what"],
                   match["state"])

    def numbers(self) -> tuple[int, ...]:
        return (self.game_id, self.turn)

    async def run(self, interaction: discord.Interaction) -> None:
        await prompt_click(interaction, self.game_id, self.colour, self.turn, self.what,
                           self.state, None)


class PromptSelect(_Item, template=PROMPT_SELECT_ID):
    def __init__(self, game_id: int, colour: str, turn: int, what: str, state: str = "",
                 spec: Select | None = None) -> None:
        custom_id = f"ps:{game_id}:{colour}:{turn}:{what}:{state}"
        super().__init__(_select(custom_id, spec or Select(what, "", ())))
        self.game_id, self.colour, self.turn, self.what, self.state = \
            game_id, colour, turn, what, state

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> PromptSelect:
        return cls(int(match["game"]), match["colour"], int(match["turn"]), match["what"],
                   match["state"])

    def numbers(self) -> tuple[int, ...]:
        return (self.game_id, self.turn)

    async def run(self, interaction: discord.Interaction) -> None:
        values = _picked(interaction) or [""]
        await prompt_click(interaction, self.game_id, self.colour, self.turn, self.what,
                           self.state, str(values[0]))


class OpenButton(_Item, template=OPEN_ID):
    """Kept for messages posted before the table's own 🔒 button: opens the private side."""

    def __init__(self, game_id: int) -> None:
        super().__init__(discord.ui.Button(label="🔒", custom_id=f"hopen:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> OpenButton:
        return cls(int(match["game"]))

    def numbers(self) -> tuple[int, ...]:
        return (self.game_id,)

    async def run(self, interaction: discord.Interaction) -> None:
        await open_private(interaction, self.game_id)


ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    LobbyButton, TableButton, TableSelect, PromptButton, PromptSelect, OpenButton,
    ForgetButton, *_taps.ITEMS)
"""Every dynamic item, registered once at start-up."""


def embed_of(post: Post, image: bool = True) -> discord.Embed | None:
    """The Discord embed of a table post (``image=False``: without its attached board)."""
    spec = post.embed
    if spec is None:
        return None
    embed = discord.Embed(title=spec.title[:256], description=spec.description or None,
                          colour=spec.colour)
    for name, value in spec.fields[:25]:
        embed.add_field(name=name[:256], value=value or "-", inline=False)
    if spec.image and image:
        embed.set_image(url=f"attachment://{spec.image}")
    return embed


def or_missing(value: T | None) -> T:
    """``value``, or discord.py's "not given" for None: a new message's embed or view that its
    post does not have (the send calls take no None for them)."""
    return value if value is not None else discord.utils.MISSING


def _fits(custom_id: str) -> bool:
    return len(custom_id) <= MAX_CUSTOM_ID


def lobby_view(game_id: int, items: tuple[Component, ...]) -> discord.ui.View | None:
    if not items:
        return None
    view = discord.ui.View(timeout=None)
    for spec in items:
        if isinstance(spec, Button):
            view.add_item(LobbyButton(game_id, spec.op, spec))
    return view


def table_view(game_id: int, seq: int, items: tuple[Component, ...]) -> discord.ui.View | None:
    """The live table's components; one that cannot fit Discord's limits is left out."""
    if not items:
        return None
    view = discord.ui.View(timeout=None)
    for spec in items:
        item: discord.ui.DynamicItem[Any]
        if _taps.is_tap(spec):
            item = _taps.tap_item(game_id, _taps.TABLE, seq, spec)
        elif isinstance(spec, Button):
            item = TableButton(game_id, seq, spec.op, spec.arg, spec)
        else:
            item = TableSelect(game_id, seq, spec.op, spec)
        if not _fits(item.custom_id):
            continue
        try:
            view.add_item(item)
        except ValueError:  # five rows are full
            break
    return view


def prompt_view(game_id: int, owed: Prompt) -> discord.ui.View | None:
    if not owed.components:
        return None
    view = discord.ui.View(timeout=None)
    for spec in owed.components:
        item: discord.ui.DynamicItem[Any]
        if _taps.is_tap(spec):
            item = _taps.tap_item(game_id, owed.colour, owed.turn, spec)
        elif isinstance(spec, Button):
            item = PromptButton(game_id, owed.colour, owed.turn, spec.op, spec.arg, spec)
        else:
            item = PromptSelect(game_id, owed.colour, owed.turn, spec.op, spec.arg, spec)
        try:
            view.add_item(item)
        except ValueError:
            break
    return view


# --- the private side (what its items do) ---------------------------------------------------

async def prompt_click(interaction: discord.Interaction, game_id: int, colour: str, turn: int,
                       what: str, state: str, value: str | None) -> None:
    """One click or pick on a secret decision's prompt, in a DM or an ephemeral message: the
    prompt speaks the clicker's language, as it did from the start."""
    lang = user_lang(interaction)
    session = await _act._game(interaction, game_id)
    seat = session.seat(colour)
    gone = session.gone(interaction.user.id, colour)
    if gone is not None:  # the seat changed hands: this form says so, and goes
        await interaction.response.edit_message(content=refusal_text(session, gone, lang),
                                                embed=None, attachments=[], view=None)
        return
    if seat is None or seat.user_id != interaction.user.id:
        await answer(interaction, t("bot.hidden.not_yours", lang))
        return
    if not owes_secret(session, seat) or session.turns(colour) != turn:
        key = "bot.hidden.aborted" if session.status == "aborted" else "bot.hidden.outdated"
        await interaction.response.edit_message(content=t(key, lang), view=None)
        return
    text, changed = resolve(session, seat, what, state, value, lang)
    if changed is not None:
        await interaction.response.edit_message(content=changed.text,
                                                view=prompt_view(game_id, changed))
        return
    if text is None:
        await interaction.response.edit_message(content=t("bot.hidden.outdated", lang),
                                                view=None)
        return
    await interaction.response.defer()
    report = await _act.play(interaction, game_id, text, expect_turn=turn)
    await _act.edit_answered(interaction, "confirm a secret choice",
                             content=submitted(report.session, seat, lang, report), view=None)


async def open_private(interaction: discord.Interaction, game_id: int) -> None:
    """The 🔒 button: the user's screen and, when one is due, their secret-choice prompt, as a
    message only they see (for closed DMs, a DM gone missing, or a look mid-decision), in
    their language."""
    lang = user_lang(interaction)
    session = await _act._game(interaction, game_id)
    seat = session.seat_of(interaction.user.id)
    if seat is None or session.status != "running" or session.game is None:
        gone = session.gone(interaction.user.id)
        if session.status == "running" and gone is not None:
            await answer(interaction, refusal_text(session, gone, lang))
            return
        key = "bot.refuse.not_player" if session.status == "running" else "bot.refuse.game_closed"
        await answer(interaction, t(key, lang))
        return
    await interaction.response.defer(ephemeral=True, thinking=True)
    ui = game_ui(session.row.game)
    view = session.view(seat.colour)
    png = await asyncio.to_thread(ui.screen, view, seat.colour, lang)
    files = [discord.File(io.BytesIO(png), filename=SCREEN_FILE)] if png else []
    words = ui.screen_text(view, seat.colour, lang)
    if owes_secret(session, seat):
        owed = prompt(session, seat, lang)
        components = prompt_view(game_id, owed)
        await interaction.followup.send("\n".join(w for w in (owed.text, words) if w)[
            :MAX_CONTENT], view=components or discord.utils.MISSING, files=files,
            ephemeral=True)
        return
    text = "\n".join(w for w in (t("bot.hidden.nothing_due", lang), words) if w)
    await interaction.followup.send(text[:MAX_CONTENT], files=files, ephemeral=True)
