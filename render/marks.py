"""Seat marks: a shape per seat colour, so that no seat is told apart by colour alone.

Kept apart from :mod:`render.common` (which draws them) without Pillow, so that the words
beside a picture can show the same marks as characters.
"""

from __future__ import annotations

SEAT_MARKS: dict[str, str] = {
    "red": "circle",
    "blue": "square",
    "green": "plus",
    "yellow": "diamond",
    "purple": "cross",
    "grey": "bar",
    "black": "ring",
    "white": "triangle",
}
"""Each seat colour's mark: a filled shape in the seat's ink on its pieces, the same in every
language (an initial would change with the language), none like a figure's glyph (the
sorcerer's hat is a triangle: no seat at a table takes it), so that a seat is told apart by shape
as well as by colour, under any colour vision."""
MARK_SYMBOLS: dict[str, str] = {"circle": "●", "square": "■", "plus": "✚", "diamond": "◆",
                                 "cross": "✖", "bar": "▬", "ring": "○", "triangle": "▲"}
"""Each mark as a text character, for the words beside a picture."""


def mark_symbol(seat: str) -> str:
    """``seat``'s mark as a character (see :data:`SEAT_MARKS`)."""
    return MARK_SYMBOLS[SEAT_MARKS.get(seat, "ring")]
