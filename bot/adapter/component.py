"""What every component of the bot shares: Discord's limits on its texts, and the base of the
items that survive a restart (a forged custom_id refused, every error a click raises reported).

Below :mod:`bot.adapter.items` and :mod:`bot.adapter.taps`, which both build on it and so never
import each other's base.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import discord

from bot.adapter.answer import answer, report
from bot.constants import MAX_CUSTOM_ID, MAX_ID, MAX_LABEL
from bot.games import Button, Select
from render.i18n import language, t

log = logging.getLogger("bot.adapter.items")
"""The items' one logger (its name kept from when they all lived in one module)."""

STYLES = {"primary": discord.ButtonStyle.primary, "secondary": discord.ButtonStyle.secondary,
          "success": discord.ButtonStyle.success, "danger": discord.ButtonStyle.danger}


def label(text: str, most: int = MAX_LABEL) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def button(custom_id: str, spec: Button) -> discord.ui.Button[Any]:
    return discord.ui.Button(label=label(spec.label) or "·", style=STYLES[spec.style],
                             custom_id=custom_id, disabled=spec.disabled)


def select(custom_id: str, spec: Select) -> discord.ui.Select[Any]:
    return discord.ui.Select(custom_id=custom_id, placeholder=label(spec.placeholder, 150),
                             options=[discord.SelectOption(
                                 label=label(c.label, 100), value=c.value,
                                 description=label(c.description, 100) if c.description
                                 else None, default=c.default) for c in spec.choices[:25]]
                             or [discord.SelectOption(label="-", value="-")])


def picked(interaction: discord.Interaction) -> list[object]:
    """The values a select's click carries (none for any other interaction)."""
    data: Mapping[str, object] = interaction.data or {}
    values = data.get("values")
    return values if isinstance(values, list) else []


class Item(discord.ui.DynamicItem[discord.ui.Item[Any]], template=r"\x00never"):
    """Shared behaviour: a custom_id whose numbers no component of ours carries is refused as
    forged, and every error a click raises is reported, never lost."""

    def numbers(self) -> tuple[int, ...]:
        """The ids and counts the custom_id carries: each must be one the store can hold."""
        return ()

    async def callback(self, interaction: discord.Interaction) -> None:
        if not all(0 <= n <= MAX_ID for n in self.numbers()):
            log.warning("a component with a forged custom_id was refused (user %s): %s",
                        interaction.user.id, self.custom_id[:MAX_CUSTOM_ID])
            try:
                await answer(interaction, t("bot.refuse.forged", language(
                    str(interaction.locale))))
            except discord.HTTPException as error:
                log.info("could not refuse a forged custom_id: %s", error)
            return
        try:
            await self.run(interaction)
        except Exception as error:
            await report(interaction, error)

    async def run(self, interaction: discord.Interaction) -> None:
        raise NotImplementedError
