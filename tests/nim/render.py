"""Sealed Nim's pictures: the pile as a row of stones, and a seat's own take. Plain Pillow,
no cache: a toy board draws in well under a millisecond."""

from __future__ import annotations

import io
from collections.abc import Hashable
from typing import Any

from PIL import Image, ImageDraw

STONE = 18
"""A stone's width and the gap after it, in pixels."""


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _stones(count: int, colour: str) -> Image.Image:
    image = Image.new("RGB", (max(count, 1) * STONE + STONE, 2 * STONE), "white")
    draw = ImageDraw.Draw(image)
    for i in range(count):
        x = STONE // 2 + i * STONE
        draw.ellipse((x, STONE // 2, x + STONE - 4, STONE + STONE // 2 - 4), fill=colour)
    return image


def board(view: dict[str, Any], lang: str = "en", names: dict[str, str] | None = None, *,
          highlight: frozenset[str] = frozenset(), frame: Hashable = None) -> bytes:
    """The pile: one grey stone per stone left."""
    return _png(_stones(view["pile"], "grey"))


def screen(view: dict[str, Any], seat: str, lang: str, *,
           frame: Hashable = None) -> bytes | None:
    """The seat's own take this round (nothing drawn before it takes)."""
    mine = view.get("mine")
    return None if mine is None else _png(_stones(mine, seat))
