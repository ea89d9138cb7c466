"""Helpers for the image tests: where two renders of the same picture differ."""

from __future__ import annotations

from collections.abc import Iterable

from PIL import Image, ImageChops, ImageDraw

Box = tuple[float, float, float, float]


def difference_outside(a: Image.Image, b: Image.Image, boxes: Iterable[Box]) -> Box | None:
    """The bounding box of the pixels where ``a`` and ``b`` differ outside ``boxes`` (None when
    they differ only inside them)."""
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB")).convert("L")
    draw = ImageDraw.Draw(diff)
    for box in boxes:
        draw.rectangle(box, fill=0)
    return diff.getbbox()


def differs_inside(a: Image.Image, b: Image.Image, box: Box) -> bool:
    """Whether ``a`` and ``b`` differ somewhere inside ``box``."""
    box = tuple(round(v) for v in box)  # type: ignore[assignment]
    return ImageChops.difference(a.crop(box).convert("RGB"),
                                 b.crop(box).convert("RGB")).getbbox() is not None


def colour_count(image: Image.Image, colour: tuple[int, int, int], box: Box,
                 tolerance: int = 24) -> int:
    """How many pixels inside ``box`` are within ``tolerance`` of ``colour`` on every channel."""
    part = image.crop(tuple(round(v) for v in box)).convert("RGB")
    diff = ImageChops.difference(part, Image.new("RGB", part.size, colour))
    close = [band.point(lambda v: 255 if v <= tolerance else 0) for band in diff.split()]
    mask = ImageChops.multiply(ImageChops.multiply(close[0], close[1]), close[2])
    return mask.histogram()[255]
