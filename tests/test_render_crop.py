"""Private pictures cut to their content: Discord shows a picture at the message's width, so a
blank margin shrinks every label on it (the Giganten hand was about 60 % blank)."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from bot.games import game_ui
from render.crop import MARGIN, cropped, trim
from rules.record import replay

RECORDS = Path(__file__).parent / "records"


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _size(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as image:
        return image.size


def test_a_picture_is_cut_to_its_content_and_a_margin() -> None:
    image = Image.new("RGB", (400, 300), (250, 248, 240))
    image.paste((20, 40, 200), (100, 50, 180, 90))
    found = Image.open(io.BytesIO(trim(_png(image))))
    assert found.size == (80 + 2 * MARGIN, 40 + 2 * MARGIN)
    assert found.convert("RGB").getpixel((MARGIN, MARGIN)) == (20, 40, 200)
    assert found.convert("RGB").getpixel((0, 0)) == (250, 248, 240)


def test_a_full_or_blank_picture_stays_as_it_is() -> None:
    full = _png(Image.new("RGB", (50, 20), (1, 2, 3)))
    assert trim(full) == full  # nothing but background: nothing to cut to
    edge = Image.new("RGB", (50, 20), (1, 2, 3))
    edge.paste((9, 9, 9), (0, 0, 50, 1))
    edge.paste((9, 9, 9), (0, 19, 50, 20))
    assert trim(_png(edge)) == _png(edge)  # content up to the edges
    nearly = Image.new("RGB", (400, 300), (1, 2, 3))
    nearly.paste((9, 9, 9), (MARGIN + 4, MARGIN + 4, 400 - MARGIN - 4, 300 - MARGIN - 4))
    assert trim(_png(nearly)) == _png(nearly), "a cut of a few pixels is not worth it"
    assert cropped(lambda: None) is None


def test_the_private_pictures_have_no_blank_margin() -> None:
    """Every game's screen or hand, as the DM and the 🔒 view show it, is its content with
    at most the margin around it."""
    shown = smaller = 0
    for folder in sorted(p for p in RECORDS.iterdir() if p.is_dir()):
        path = sorted(folder.glob("*.txt"))[-1]
        game, _ = replay(path.read_text(encoding="utf-8"), keep_going=True)
        ui = game_ui(game.module.NAME)
        if not ui.has_screen():
            continue
        seat = game.header.seats[0]
        view = game.module.view(game.state, seat)
        png = ui.screen(view, seat, "en")
        assert png is not None
        raw = ui.screen_art()(view, seat, "en")
        assert raw is not None
        assert trim(png) == png, f"{path.name}: the picture is cut already"
        (width, height), (raw_width, raw_height) = _size(png), _size(raw)
        assert width <= raw_width and height <= raw_height
        smaller += width * height < raw_width * raw_height
        shown += 1
    assert shown >= 2, "the Giants screen and the Giganten hand"
    assert smaller >= 1, "a blank margin was cut"
