"""A private picture cut to what it shows.

Discord shows a picture at the message's width: blank margins around a DM screen or a hand
shrink everything on it. :func:`cropped` draws a picture with a renderer's own function and
cuts it to its content (what differs from the colour of its top-left corner), keeping a thin
margin, so that the same width carries larger labels.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from PIL import Image, ImageChops

MARGIN = 12
"""Pixels of background kept around the content."""
WORTH = 0.05
"""The least share of the width or the height a cut must save: a smaller one is not worth
encoding the picture again (the renderers' band cache made the first encoding cheap)."""


def trim(png: bytes, margin: int = MARGIN) -> bytes:
    """``png`` cut to its content plus ``margin`` (unchanged when that would save less than
    :data:`WORTH` of its width and of its height)."""
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        rgb = image.convert("RGB")
        background = Image.new("RGB", rgb.size, rgb.getpixel((0, 0)))
        box = ImageChops.difference(rgb, background).getbbox()
        if box is None:
            return png
        left, top, right, bottom = (max(0, box[0] - margin), max(0, box[1] - margin),
                                    min(image.width, box[2] + margin),
                                    min(image.height, box[3] + margin))
        if right - left > image.width * (1 - WORTH) and bottom - top > image.height * (1 - WORTH):
            return png
        out = io.BytesIO()
        image.crop((left, top, right, bottom)).save(out, "PNG")
        return out.getvalue()


def cropped(art: Callable[..., bytes | None], *args: Any, **kwargs: Any) -> bytes | None:
    """The picture ``art(*args, **kwargs)`` draws, cut to its content (None: nothing to
    show). A module-level function, so that a worker process can draw it."""
    png = art(*args, **kwargs)
    return trim(png) if png else png
