"""Slash-command names and descriptions from the same catalogues as every other string."""

from __future__ import annotations

import re

import discord
from discord import app_commands

from render.i18n import DEFAULT, catalogue, language, t

Location = app_commands.TranslationContextLocation
_NAMES = {Location.command_name, Location.group_name, Location.parameter_name}
_NAME = re.compile(r"^[-_\w]{1,32}$")
_MAX_TEXT = 100


def ls(key: str) -> app_commands.locale_str:
    """A command string: English from the catalogue now, other languages via the Translator."""
    return app_commands.locale_str(t(key, DEFAULT), key=key)


class CatalogueTranslator(app_commands.Translator):
    """Looks up ``locale_str.extras['key']`` in ``data/i18n/<lang>/``.

    Returns None (Discord then shows the English default) for English locales, for locales
    outside the supported languages, for keys a catalogue does not have yet, and for a
    translation Discord would refuse (a name with spaces or capitals, a text over 100
    characters): one bad entry must not stop the commands from syncing.
    """

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        key = string.extras.get("key")
        lang = language(locale.value)
        if not key or lang == DEFAULT:
            return None
        text = catalogue(lang).get(key)
        if not isinstance(text, str):  # missing, or a plural message (never a command string)
            return None
        if context.location in _NAMES:
            return text if _NAME.match(text) and text == text.lower() else None
        return text if len(text) <= _MAX_TEXT else None
