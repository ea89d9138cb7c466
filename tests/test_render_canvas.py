"""The board canvases keep their pixels while they are drawn faster.

Each canvas of the positions in ``tests/helpers/canvas_cases.py`` must have the hash stored when
it was drawn the straightforward way; the shortcuts are also checked against what they replace:
a text pasted from its kept mask against ``ImageDraw.text``, Make Make's overlay laid only where
it must against the overlay laid over the whole board.
"""

from __future__ import annotations

import json
import random

import pytest
from PIL import Image, ImageChops, ImageDraw

from render import common, makemake
from tests.helpers import canvas_cases

STORED: dict[str, str] = json.loads(canvas_cases.HASHES.read_text())


@pytest.mark.parametrize("game", sorted(canvas_cases.BOARDS))
def test_every_canvas_keeps_its_stored_pixels(game: str) -> None:
    cases = [case for case in canvas_cases.cases() if case.game == game]
    assert len(cases) >= 70
    assert {case.lang for case in cases} == set(canvas_cases.LANGUAGES)
    assert any(case.highlight for case in cases) and any(case.names for case in cases)
    differ = [case.name for case in cases
              if canvas_cases.digest(case.canvas()) != STORED[case.name]]
    assert not differ, differ


def test_the_stored_hashes_are_those_of_the_cases() -> None:
    names = [case.name for case in canvas_cases.cases()]
    assert sorted(names) == sorted(STORED)
    assert len(set(STORED.values())) == len(STORED)  # every case is a different picture


def _backdrop(size: tuple[int, int], rng: random.Random) -> Image.Image:
    """A picture with stripes of colour, so that blending shows."""
    image = Image.new("RGB", size, common.PAPER)
    draw = ImageDraw.Draw(image)
    for x in range(0, size[0], 7):
        draw.rectangle((x, 0, x + 3, size[1]), fill=tuple(rng.randrange(256) for _ in range(3)))
    return image


TEXTS = ["A1", "S01", "Ahu Tongariki", "Раунд 3", "第 3 轮", "輪到 Hotu", "▶ To act", "★ Winner",
         "×12", "moai12", "…", " ", "", "Rapa Nui Longname Player", "1/3", "gq|Ág"]


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_kept_text_is_the_drawn_text(lang: str) -> None:
    rng = random.Random(lang)
    reference = _backdrop((420, 120), rng)
    faster = reference.copy()
    plain, kept = ImageDraw.Draw(reference), common.Draw(faster)
    for n in range(300):
        text = TEXTS[n % len(TEXTS)]
        face = common.font(rng.choice([14, 16, 18, 20, 22, 26, 30]), rng.random() < 0.5, lang)
        xy = (rng.choice([0, 3, 17.5, 40.25, 200, 201.75, 390]) + rng.random() * (n % 3),
              rng.choice([0, 9, 30.5, 60, 100.125, 115]))
        fill = rng.choice([common.INK, common.CHANGED, (255, 255, 255), (214, 40, 40)])
        anchor = rng.choice([None, "lm", "mm", "lt", "ls", "rm", "la"])
        plain.text(xy, text, font=face, fill=fill, anchor=anchor)
        kept.text(xy, text, font=face, fill=fill, anchor=anchor)
        assert reference.tobytes() == faster.tobytes(), (text, xy, anchor, face.size)


def test_other_texts_are_drawn_by_pillow() -> None:
    """What the kept masks do not handle (several lines, a stroke, a picture that is not RGB,
    a point left or above the picture) is drawn as Pillow draws it."""
    for mode in ("RGB", "RGBA", "L"):
        image = Image.new(mode, (200, 80), "white")
        expected = image.copy()
        draw, plain = common.Draw(image), ImageDraw.Draw(expected)
        face = common.font(18)
        for xy, text, extra in [((10, 10), "two\nlines", {}), ((10, 40), "stroke",
                                                                {"stroke_width": 2}),
                                ((-4, 20), "left of it", {}), ((20, -6), "above", {})]:
            draw.text(xy, text, fill="black", font=face, **extra)
            plain.text(xy, text, fill="black", font=face, **extra)
        assert image.tobytes() == expected.tobytes()


def test_the_caches_are_bounded() -> None:
    for cached in (common._text_mask, common.text_length, common.fit_text):
        assert cached.cache_info().maxsize == common.TEXT_MASKS


@pytest.mark.parametrize("seed", range(6))
def test_territories_pasted_through_their_tints_are_the_tints_laid_under_the_grid(
        seed: int) -> None:
    """Each territory's look (tint, ring, grid and labels) pasted through its tint's edge gives
    what laying every tint on the bare island and the grid and labels over them gives: the same
    pixels but for rounding, neighbours' shared edges included."""
    rng = random.Random(seed)
    hexes = rng.sample(sorted(makemake.HEX_XY), rng.randrange(1, len(makemake.HEX_XY)))
    colours = ["red", "blue", "green", "yellow"]
    fills = {h: makemake.STONE if rng.random() < 0.1
             else common.seat_colour(rng.choice(colours)).tint for h in hexes}
    offered = set(rng.sample(sorted(makemake.HEX_XY), 3))
    expected = Image.new("RGB", (makemake.WIDTH, makemake.BOARD_HEIGHT))
    expected.paste(makemake._island(), (0, 0))
    order = sorted({*hexes, *offered})
    for h in order:  # in the order they are pasted: where two edges overlap, the later wins
        centre = makemake.point(makemake.HEX_XY[h])
        if h in fills:
            common.paste_centred(expected, makemake.hex_tile(fills[h]), centre)
        if h in offered:
            common.paste_centred(expected, makemake.hex_ring(common.HIGHLIGHT, makemake.S - 6, 6),
                                 centre)
    overlay = makemake._overlay()
    expected.paste(overlay, (0, 0), overlay)
    image = makemake.static_layers("en", 4).base.copy()
    for h in order:
        patch, mask, corner = makemake._territory_patch(h, fills.get(h), h in offered)
        image.paste(patch, corner, mask)
    board = image.crop((0, 0, makemake.WIDTH, makemake.BOARD_HEIGHT))
    worst = max(high for _, high in ImageChops.difference(board, expected).getextrema())
    assert worst <= 2
    assert board.tobytes() != makemake._island().tobytes()


@pytest.mark.parametrize("colour", common.SEAT_NAMES)
def test_a_swatch_pasted_is_the_swatch_drawn(colour: str) -> None:
    """A legend swatch is pasted from a picture of it made once: the same pixels as the
    rounded square drawn there, wherever it stands and whatever lies under it."""
    rng = random.Random(colour)
    for left, top, width, height in ((26, 9, 28, 28), (24, 13, 26, 26), (20, 5, 20, 20),
                                     (3, 30, 30, 30), (41, 2, 28, 28)):
        under = Image.new("RGB", (80, 70))
        under.putdata([(rng.randrange(256), rng.randrange(256), rng.randrange(256))
                       for _ in range(80 * 70)])
        drawn, pasted = under.copy(), under.copy()
        box = (left, top, left + width, top + height)
        ImageDraw.Draw(drawn).rounded_rectangle(box, radius=6,
                                                fill=common.seat_colour(colour).fill,
                                                outline=common.INK, width=2)
        common.seat_mark(ImageDraw.Draw(drawn), (left + width / 2, top + height / 2),
                         min(width, height) * common.SWATCH_MARK, colour)
        common.swatch(common.Draw(pasted), box, colour)
        assert ImageChops.difference(drawn, pasted).getbbox() is None, (colour, box)
