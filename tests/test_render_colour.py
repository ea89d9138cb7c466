"""The seat colours hold under simulated colour-blindness (issue: readable for colour-blind
players).

Distances are colorspacious's ``deltaE`` in CAM02-UCS, each colour first simulated at full
severity for deuteranopia, protanopia and tritanopia (``cvd_space``); every pair of seats that
can sit at one table, for every game and seat count it allows, must stay MIN_APART apart.
"""

from __future__ import annotations

import colorsys
import itertools

import numpy as np
import pytest
from colorspacious import cspace_convert, deltaE
from PIL import Image

from render.common import CHANGED, HIGHLIGHT, INK, RGB, seat_colour
from rules import giants, giganten, makemake
from scripts import colour_sim

MIN_APART = 20.0
VISIONS = ("deuteranomaly", "protanomaly", "tritanomaly")
GAMES = {"giants": giants, "giganten": giganten, "makemake": makemake}
TINTED = ("giganten", "makemake")
"""The games that draw seats' tints: Make Make's territories, Giganten's derricks' spaces."""


def simulated(colour: RGB, vision: str | None) -> np.ndarray:
    """``colour`` as sRGB (0-1) seen with ``vision`` at full severity (None: normal)."""
    rgb = np.array(colour, dtype=float) / 255
    if vision is None:
        return rgb
    space = {"name": "sRGB1+CVD", "cvd_type": vision, "severity": 100}
    return np.clip(cspace_convert(rgb, space, "sRGB1"), 0, 1)


def apart(a: RGB, b: RGB, vision: str | None) -> float:
    return float(deltaE(simulated(a, vision), simulated(b, vision), input_space="sRGB1",
                        uniform_space="CAM02-UCS"))


def tables(module: object) -> set[tuple[str, str]]:
    """Every pair of colours that can sit at one table of a game, over its seat counts."""
    colours = module.COLOURS  # type: ignore[attr-defined]
    found: set[tuple[str, str]] = set()
    for count in range(module.MIN_SEATS, module.MAX_SEATS + 1):  # type: ignore[attr-defined]
        for seats in itertools.combinations(colours, count):
            found.update(itertools.combinations(seats, 2))
    return found


def closest(vision: str | None) -> tuple[float, str, str]:
    return min((apart(seat_colour(a).fill, seat_colour(b).fill, vision), a, b)
               for module in GAMES.values() for a, b in tables(module))


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("vision", VISIONS)
def test_every_pair_at_one_table_stays_apart_under_simulated_colour_blindness(
        game: str, vision: str) -> None:
    for a, b in sorted(tables(GAMES[game])):
        distance = apart(seat_colour(a).fill, seat_colour(b).fill, vision)
        assert distance >= MIN_APART, (game, vision, a, b, round(distance, 1))


def test_every_pair_stays_apart_with_normal_vision() -> None:
    assert closest(None)[0] >= MIN_APART


HUES = {"red": (345, 10), "yellow": (40, 60), "green": (95, 165), "blue": (195, 230),
        "purple": (260, 300)}


@pytest.mark.parametrize("name", sorted(HUES))
def test_each_seat_still_reads_as_its_name(name: str) -> None:
    """Hue in the name's range, and saturated: red looks red to everyone else."""
    hue, saturation, _ = colorsys.rgb_to_hsv(*(c / 255 for c in seat_colour(name).fill))
    low, high = HUES[name]
    degrees = hue * 360
    assert (low <= degrees <= high) if low < high else (degrees >= low or degrees <= high)
    assert saturation >= 0.5


@pytest.mark.parametrize("game", TINTED)
@pytest.mark.parametrize("vision", (None, *VISIONS))
def test_every_pair_of_tints_at_one_table_stays_apart(game: str, vision: str | None) -> None:
    """A territory (a derrick's space) is tinted with its owner's colour: the tints of any
    two seats at one table stay as far apart as their fills, under any colour vision."""
    for a, b in sorted(tables(GAMES[game])):
        distance = apart(seat_colour(a).tint, seat_colour(b).tint, vision)
        assert distance >= MIN_APART, (game, vision, a, b, round(distance, 1))


@pytest.mark.parametrize("game", TINTED)
def test_each_tint_still_reads_as_its_seat(game: str) -> None:
    """A tint is its seat's fill mixed with white (the same hue, paler), nearer to its own
    seat's fill than to any other's, and dark labels read on it (4.5:1)."""
    colours = GAMES[game].COLOURS  # type: ignore[attr-defined]
    for name in colours:
        pal = seat_colour(name)
        nearest = min(colours, key=lambda other: apart(pal.tint, seat_colour(other).fill, None))
        assert nearest == name, (name, nearest)
        assert all(t >= f for t, f in zip(pal.tint, pal.fill, strict=True)), name
        assert contrast(pal.tint, INK) >= 4.5, name


def test_grey_is_grey() -> None:
    fill = seat_colour("grey").fill
    assert max(fill) - min(fill) <= 8


HIGHLIGHT_APART = 14.0
"""How far each highlight stays from the other and from every seat colour, under every
simulation: a ring is also told by its shape (between two dark edges), so less than two seats."""


@pytest.mark.parametrize("vision", (None, *VISIONS))
def test_the_highlights_keep_their_meaning(vision: str | None) -> None:
    """"To choose" (pink) and "changed" (sky blue) are never taken for each other, nor for a
    seat's colour."""
    assert apart(HIGHLIGHT, CHANGED, vision) >= HIGHLIGHT_APART
    seats = {c for module in GAMES.values() for c in module.COLOURS}  # type: ignore[attr-defined]
    for highlight in (HIGHLIGHT, CHANGED):
        for seat in sorted(seats):
            distance = apart(highlight, seat_colour(seat).fill, vision)
            assert distance >= HIGHLIGHT_APART, (highlight, seat, vision, round(distance, 1))


def luminance(colour: RGB) -> float:
    """WCAG's relative luminance."""
    parts = [c / 255 for c in colour]
    linear = [p / 12.92 if p <= 0.04045 else ((p + 0.055) / 1.055) ** 2.4 for p in parts]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: RGB, b: RGB) -> float:
    """WCAG's contrast ratio of two colours."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_each_seat_ink_reads_on_its_fill() -> None:
    """The mark and numbers on a piece are drawn in its ink: at least 3:1 contrast (WCAG)."""
    for name in {c for module in GAMES.values() for c in module.COLOURS}:  # type: ignore
        pal = seat_colour(name)
        assert contrast(pal.fill, pal.ink) >= 3, name


def test_the_side_by_side_picture_shows_the_board_and_its_simulation() -> None:
    """scripts/colour_sim.py: the drawn board left, the simulated one right; a deuteranope
    sees a grey as it is and red and green alike (before the palette above)."""
    old_red, old_green, grey = (214, 40, 40), (30, 150, 60), (128, 128, 128)
    picture = Image.new("RGB", (30, 10), old_red)
    picture.paste(old_green, (10, 0, 20, 10))
    picture.paste(grey, (20, 0, 30, 10))
    seen = colour_sim.simulated(picture, "deuteranomaly")
    red, green, still = (seen.getpixel((x, 5)) for x in (5, 15, 25))
    assert all(abs(a - b) <= 2 for a, b in zip(still, grey, strict=True))
    assert apart(red, green, None) < 10 < apart(old_red, old_green, None)
    both = colour_sim.side_by_side(picture, "deuteranomaly", 76)
    assert both.size == (76, 10)
    assert both.getpixel((2, 5)) == old_red
