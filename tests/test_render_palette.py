"""The fixed palettes and the PNG encoder: no design colour is lost, every pixel stays close,
the PNG decodes to the picture, and renders give the same bytes in a fresh worker process."""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from typing import Any

import pytest
from PIL import Image, ImageChops

import rules.__main__ as rules_cli
from render import frames, giants, giants_screen, giganten, giganten_hand, makemake, palette
from render.i18n import LANGUAGES
from rules.record import replay
from rules.registry import game_module

MAX_CHANNEL = 72
"""No pixel moves further than this on any channel. Only antialiased edge pixels move at all:
the ringing of a shrunk supersampled sprite (a hair past its ink), blends of three colours where
edges meet, and ramps the palette holds only at quarter steps. The worst seen is 66."""
MEAN_ERROR = 0.75
"""Mean absolute error per channel over the whole picture (seen: 0.1 to 0.5)."""
FAR = 24
FAR_SHARE = 0.006
"""At most this share of pixels moves more than FAR on some channel (seen: under 0.5 %)."""
CUTS = (0.15, 0.5, 0.85, 1.0)
"""Where records are cut: early, middle, late and the end (every phase comes by in between)."""


def record(game: str, seats: int, seed: int) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = rules_cli.main(["play", game, "--seats", str(seats), "--seed", str(seed),
                               "--ai", "greedy"])
    assert code == 0
    return out.getvalue()


@cache
def positions(game: str, seats: int) -> list[Any]:
    lines = record(game, seats, seats).splitlines()
    found = []
    for cut in CUTS:
        played, rejections = replay("\n".join(lines[:max(2, int(len(lines) * cut))]))
        assert not rejections
        found.append(played.state)
    return found


Picture = tuple[Image.Image, bytes, palette.Palette]


def giants_pictures() -> Iterator[Picture]:
    module = game_module("giants")
    n = 0
    for seats in (3, 4, 5):
        for state in positions("giants", seats):
            view = module.view(state, None)
            lang = LANGUAGES[n % len(LANGUAGES)]
            n += 1
            light = frozenset([*list(view["hexes"])[:3], *list(view["ahus"])[:2], "moai-quarry"])
            yield (giants.canvas(view, lang, highlight=light),
                   giants.board(view, lang, highlight=light), giants.palette())
            seat = view["seats"][n % seats]
            own = module.view(state, seat)
            yield (giants_screen.screen_canvas(own, seat, lang),
                   giants_screen.screen(own, seat, lang), giants_screen.palette())


def giganten_pictures() -> Iterator[Picture]:
    module = game_module("giganten")
    n = 0
    for seats in (3, 4):
        for state in positions("giganten", seats):
            view = module.view(state, None)
            lang = LANGUAGES[n % len(LANGUAGES)]
            n += 1
            light = frozenset([*list(view["spaces"])[:4], *giganten.COMPANIES[:1]])
            yield (giganten.canvas(view, lang, highlight=light),
                   giganten.board(view, lang, highlight=light), giganten.palette())
            seat = view["seats"][n % seats]
            own = module.view(state, seat)
            yield (giganten_hand.hand_canvas(own, seat, lang), giganten.hand(own, seat, lang),
                   giganten_hand.hand_palette())


def makemake_pictures() -> Iterator[Picture]:
    module = game_module("makemake")
    n = 0
    for seats in (3, 4):
        for state in positions("makemake", seats):
            view = module.view(state, None)
            lang = LANGUAGES[n % len(LANGUAGES)]
            n += 1
            light = frozenset([*list(view["board"])[:3], "S01", "S02"])
            yield (makemake.canvas(view, lang, highlight=light),
                   makemake.board(view, lang, highlight=light), makemake.palette())


KINDS: dict[str, Callable[[], Iterator[Picture]]] = {
    "giants": giants_pictures, "giganten": giganten_pictures, "makemake": makemake_pictures}
PALETTES = {"giants": giants.palette, "giants screen": giants_screen.palette,
            "giganten": giganten.palette, "giganten hand": giganten_hand.hand_palette,
            "makemake": makemake.palette}


def colour_counts(image: Image.Image) -> dict[tuple[int, int, int], int]:
    return {colour: count for count, colour in image.getcolors(1 << 24) or []}


@pytest.mark.parametrize("kind", PALETTES)
def test_each_design_colour_has_its_own_entry(kind: str) -> None:
    built = PALETTES[kind]()
    design = built.entries[:built.exact]
    assert len(set(design)) == len(design) <= len(built.entries) <= 256
    probe = Image.new("RGB", (len(design), 1))
    probe.putdata(list(design))
    assert built.quantize(probe).tobytes() == bytes(range(len(design)))
    assert PALETTES[kind]() is built


@pytest.mark.parametrize("kind", KINDS)
def test_no_design_colour_is_lost_and_every_pixel_stays_close(kind: str) -> None:
    seen = 0
    for picture, png, built in KINDS[kind]():
        seen += 1
        decoded = Image.open(io.BytesIO(png))
        assert decoded.mode == "P" and decoded.size == picture.size
        decoded = decoded.convert("RGB")
        design = set(built.entries[:built.exact])
        before = colour_counts(picture)
        assert set(before) & design, "the picture shows none of its design colours"
        # Where a pixel kept its colour exactly, keep it; elsewhere paint a colour no design has.
        same = ImageChops.difference(picture, decoded).convert("L").point(
            lambda v: 255 if v == 0 else 0)
        kept = colour_counts(Image.composite(picture, Image.new("RGB", picture.size, (1, 2, 3)),
                                             same))
        for colour in design & set(before):
            assert kept.get(colour) == before[colour], f"{colour} was not kept everywhere"
        bands = ImageChops.difference(picture, decoded).split()
        worst = ImageChops.lighter(ImageChops.lighter(bands[0], bands[1]), bands[2]).histogram()
        pixels = picture.width * picture.height
        assert max(i for i, count in enumerate(worst) if count) <= MAX_CHANNEL
        assert sum(worst[FAR + 1:]) <= FAR_SHARE * pixels
        total = sum(i * count for band in bands for i, count in enumerate(band.histogram()))
        assert total / (3 * pixels) <= MEAN_ERROR
    assert seen >= 8


def test_two_design_colours_in_one_cell_are_refused() -> None:
    with pytest.raises(palette.PaletteError):
        palette.build(palette.Design(colours=((28, 28, 32), (30, 30, 34)), ramps=()))


def test_blends_never_take_a_design_colours_place() -> None:
    ink, paper = (28, 28, 32), (250, 247, 240)
    on_the_ramp = palette.blend(ink, paper, 1 / 8)
    built = palette.build(palette.Design(colours=(ink, paper, on_the_ramp, (80, 80, 80)),
                                         ramps=((ink, paper, 16),)))
    assert built.exact == 4 and len(built.entries) == 4 + 14
    assert all(palette._dist2(blend, palette._corner(design)) >= 1
               for blend in built.entries[4:] for design in built.entries[:4])
    probe = Image.new("RGB", (4, 1))
    probe.putdata(list(built.entries[:4]))
    assert built.quantize(probe).tobytes() == b"\x00\x01\x02\x03"


def pixels_of(png: bytes) -> bytes:
    image = Image.open(io.BytesIO(png))
    assert image.mode == "P"
    return image.tobytes()


def test_bands_decode_to_the_mapped_picture_and_are_kept_by_content() -> None:
    built = makemake.palette()
    bands = palette.Bands()
    reference = Image.new("RGB", (301, 77), makemake.SEA)
    reference.paste(makemake.LAND, (20, 10, 280, 60))
    picture = reference.copy()
    picture.paste(makemake.INK, (40, 30, 90, 35))
    made = []
    for image in (reference, picture, picture, reference):
        png = palette.encode(built, image, bands)
        assert pixels_of(png) == built.quantize(image).tobytes()
        assert png == palette.encode(built, image, palette.Bands()), "as if encoded afresh"
        made.append(bands.made)
    # 10 bands of 8 rows (the last shorter); the ink crosses rows 30-34: bands 3 and 4
    assert made[1] - made[0] == 2 and made[2] == made[1] and made[3] == made[1]
    assert bands.found + bands.made == 40


def test_bands_belong_to_their_palette_and_width() -> None:
    bands = palette.Bands()
    image = Image.new("RGB", (64, 16), makemake.SEA)
    palette.encode(makemake.palette(), image, bands)
    palette.encode(giants.palette(), image, bands)
    palette.encode(makemake.palette(), Image.new("RGB", (32, 32), makemake.SEA), bands)
    assert bands.made == 3, "another palette, another width: bands of their own (and a band" \
        " that comes again in a picture is made once)"
    for built, size in ((makemake.palette(), (64, 16)), (giants.palette(), (64, 16)),
                        (makemake.palette(), (32, 32))):
        png = palette.encode(built, Image.new("RGB", size, makemake.SEA), bands)
        assert pixels_of(png) == built.quantize(Image.new("RGB", size, makemake.SEA)).tobytes()


def test_bands_stay_within_their_budget() -> None:
    bands = palette.Bands(budget=4000)
    built = makemake.palette()
    # colours that map to 40 different entries: bands are keyed by the indices they hold
    shades = list({built.quantize(Image.new("RGB", (1, 1), c)).getpixel((0, 0)): c
                   for c in built.entries}.values())[:40]
    assert len(shades) == 40
    for shade in shades:
        image = Image.new("RGB", (200, 64), shade)
        png = palette.encode(built, image, bands)
        assert pixels_of(png) == built.quantize(image).tobytes()
        assert bands.size <= bands.budget
    assert 0 < len(bands) < 40
    image = Image.new("RGB", (200, 64), shades[0])
    before = bands.made
    palette.encode(built, image, bands)
    assert bands.made == before + 1, "the oldest bands were dropped"


def test_pixels_that_map_to_the_same_entries_share_their_bands() -> None:
    bands = palette.Bands()
    built = makemake.palette()
    sea = Image.new("RGB", (64, 16), makemake.SEA)
    near = Image.new("RGB", (64, 16), tuple(min(255, c + 1) for c in makemake.SEA))
    assert built.quantize(near).tobytes() == built.quantize(sea).tobytes()
    assert palette.encode(built, near, bands) == palette.encode(built, sea, bands)
    assert bands.made == 1


def test_the_encoder_takes_rgb_only() -> None:
    with pytest.raises(ValueError):
        palette.encode(makemake.palette(), Image.new("RGBA", (8, 8)))


def test_band_stream_checks_out_with_zlib() -> None:
    built = giants.palette()
    view = game_module("giants").view(positions("giants", 4)[1], None)
    png = giants.board(view)
    stream = png[png.index(b"IDAT") + 4:png.index(b"IEND") - 8]
    raw = zlib.decompress(stream)
    image = giants.canvas(view)
    assert len(raw) == (image.width + 1) * image.height
    assert pixels_of(png) == built.quantize(image).tobytes()


def render_calls() -> list[tuple[Callable[..., bytes], tuple[Any, ...], dict[str, Any]]]:
    """Each public picture function with plain data: views (JSON-like dicts), a language, names
    and a frozenset of labels."""
    calls: list[tuple[Callable[..., bytes], tuple[Any, ...], dict[str, Any]]] = []
    for game, drawer in (("giants", giants.board), ("giganten", giganten.board),
                         ("makemake", makemake.board)):
        view = game_module(game).view(positions(game, 4)[1], None)
        calls.append((drawer, (view, "zh-CN", {"red": "Hotu"}),
                      {"highlight": frozenset(["B2", "S01"])}))
    giants_view = game_module("giants").view(positions("giants", 4)[1], "red")
    calls.append((giants.screen, (giants_view, "red", "ru"), {}))
    giganten_view = game_module("giganten").view(positions("giganten", 4)[1], "red")
    calls.append((giganten.hand, (giganten_view, "red", "es"), {}))
    return calls


def test_a_fresh_worker_process_renders_the_same_bytes() -> None:
    calls = render_calls()
    frames.forget()  # this process draws afresh too, whatever the tests before it drew
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=context) as pool:
        there = [pool.submit(fn, *args, **kwargs) for fn, args, kwargs in calls]
        results = [future.result(timeout=300) for future in there]
    assert results == [fn(*args, **kwargs) for fn, args, kwargs in calls]
