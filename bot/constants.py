"""Fixed numbers and identifiers of the Discord adapter, in one place."""

from __future__ import annotations

MAX_AUTOCOMPLETE = 25
"""Discord shows at most 25 autocomplete choices."""
SMALL_CHOICE = 5
"""A decision with at most this many legal actions gets buttons, whatever its kind."""
MAX_BUTTONS = 25
"""Five rows of five: the most buttons one message can carry."""
MAX_CONTENT = 2000
"""Discord's limit for a message's text."""
MAX_CUSTOM_ID = 100
BOARD_FILE = "board.png"

LOBBY_OPS = ("join", "leave", "ai", "start")
LOBBY_ID = r"lobby:(?P<game>[0-9]+):(?P<op>join|leave|ai|start)"
PLAY_ID = r"play:(?P<game>[0-9]+):(?P<seq>[0-9]+):(?P<action>[^:]+)"

EMBED_COLOUR = 0x8B5A2B
"""Volcanic brown, for lobby and result embeds."""
