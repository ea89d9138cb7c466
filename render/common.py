"""Helpers shared by every game's board image: fonts, seat colours, sprites, text, legends, PNG.

Images must read well on a phone, so the shipped fonts are used at 14 px or more and the seat
colours are strong enough to tell apart on a small screen, each with a readable ink colour.

Fonts: DejaVu draws Latin, Cyrillic, digits and every board label; it has no Chinese glyphs, so
translated text in Chinese (and any text that contains Chinese characters, such as a player's
name) uses the shipped WenQuanYi Micro Hei. Labels a player types (A1, S01, ahu names) and
numbers on pieces keep DejaVu in every language, so they look the same everywhere.
"""

from __future__ import annotations

import atexit
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources import as_file
from importlib.resources.abc import Traversable
from typing import Any, Literal

from PIL import Image, ImageDraw, ImageFont

from render import palette
from render.i18n import t
from render.marks import SEAT_MARKS
from rules.data import DATA_DIR

FONT_DIR: Traversable = DATA_DIR / "fonts"
"""The shipped fonts and their licences (in the package ``rapanui_data``)."""
MIN_FONT = 14
"""The smallest font size any board image may use (DESIGN.md, "Board images")."""

RGB = tuple[int, int, int]
INK: RGB = (28, 28, 32)
PAPER: RGB = (250, 247, 240)
HIGHLIGHT: RGB = (255, 77, 163)
"""Marks what a player may choose now: a bright pink, unlike every seat colour under any colour
vision (tests/test_render_colour.py)."""
CHANGED: RGB = (24, 173, 242)
"""Marks what changed since the table's previous state: a bright sky blue, unlike every seat
colour and the choice colour under any colour vision. It is always drawn between two dark
edges, so that it reads on light land and on the dark sea alike."""


CJK_FONT = "wqy-microhei.ttc"
"""WenQuanYi Micro Hei (Simplified and Traditional Chinese, Latin, digits): one weight only."""
CJK_LANGUAGES = frozenset({"zh-CN", "zh-TW"})
"""Languages whose text needs the CJK font."""
LATIN_FONT = "DejaVuSans.ttf"
LATIN_BOLD_FONT = "DejaVuSans-Bold.ttf"
FONTS = (LATIN_FONT, LATIN_BOLD_FONT, CJK_FONT)
"""Every font the images use."""

_KEPT_FILES = ExitStack()
"""Keeps each font's file (see :func:`font_file`) until the process ends."""
atexit.register(_KEPT_FILES.close)
_FONT_FILES: dict[tuple[str, str], str] = {}
"""(font folder, font name) -> its real file."""


def font_file(name: str) -> str:
    """A real file of the shipped font ``name``, for Pillow, which opens fonts by path.

    Installed as a folder, the package's file is used as it is; from an archive, it is copied
    to a temporary file once, kept for the life of the process.
    """
    key = (str(FONT_DIR), name)
    if key not in _FONT_FILES:
        _FONT_FILES[key] = str(_KEPT_FILES.enter_context(as_file(FONT_DIR / name)))
    return _FONT_FILES[key]


class _Heavier(ImageFont.FreeTypeFont):
    """A font with one weight drawn bolder: each glyph gets a thin outline in its own ink.

    Pillow draws text from ``getmask2``; widening the glyphs there (by a fortieth of the size)
    makes every ``draw.text`` with this font bold, while widths are measured as before.
    """

    def getmask2(self, text: str | bytes, mode: str = "", direction: str | None = None,
                 features: list[str] | None = None, language: str | None = None,
                 stroke_width: float = 0, anchor: str | None = None, ink: int = 0,
                 start: tuple[float, float] | None = None, *args: Any,
                 **kwargs: Any) -> tuple[Any, tuple[int, int]]:
        return super().getmask2(text, mode, direction, features, language,
                                stroke_width or self.size / 40, anchor, ink, start, *args,
                                **kwargs)


def font(size: int, bold: bool = False, lang: str = "en") -> ImageFont.FreeTypeFont:
    """The shipped font for text in ``lang`` at ``size`` px (never below MIN_FONT), loaded once.

    DejaVu for every language but Chinese; Chinese gets the CJK font, which has a single
    weight, so its bold is drawn heavier (see ``_Heavier``).
    """
    return _load(size, bold, lang in CJK_LANGUAGES)


@cache
def _load(size: int, bold: bool, cjk: bool) -> ImageFont.FreeTypeFont:
    if size < MIN_FONT:
        raise ValueError(f"font size {size} is below the readable minimum {MIN_FONT}")
    if cjk:
        face = _Heavier if bold else ImageFont.FreeTypeFont
        return face(font_file(CJK_FONT), size, index=0)
    # FreeTypeFont, not ImageFont.truetype: that one quietly takes a system font of the same
    # name when the shipped file cannot be opened.
    return ImageFont.FreeTypeFont(font_file(LATIN_BOLD_FONT if bold else LATIN_FONT), size)


TEXT_MASKS = 4096
"""How many rasterised texts (:func:`_text_mask`) a process keeps: a board draws some 40, and
most of them (labels, column titles, numbers, names) come back in every render."""


@lru_cache(maxsize=TEXT_MASKS)
def _text_mask(face: ImageFont.FreeTypeFont, text: str, anchor: str, fx: float,
               fy: float) -> tuple[Image.Image, int, int] | None:
    """``text`` rasterised as Pillow's ``draw.text`` rasterises it at a point whose fractional
    parts are ``fx``, ``fy``: its coverage mask, cropped to what it covers, and where the
    mask's corner lies from the point's integer part; None when it covers nothing.

    The mask is drawn by ``draw.text`` itself (in white on black, which gives the coverage
    exactly), at the same fractions, so that its glyphs are the same pixels."""
    left, top, right, bottom = face.getbbox(text, anchor=anchor)
    margin = 2 + math.ceil(face.size / 20)
    # The point stays at or right of and below the mask's corner, so that its fractions are
    # the same as in the picture.
    pad_x, pad_y = margin + max(0, -math.floor(left)), margin + max(0, -math.floor(top))
    size = (pad_x + max(0, math.ceil(right)) + margin, pad_y + max(0, math.ceil(bottom)) + margin)
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).text((pad_x + fx, pad_y + fy), text, fill=255, font=face,
                              anchor=anchor)
    box = mask.getbbox()
    if box is None:
        return None
    if box[0] == 0 or box[1] == 0 or box[2] == size[0] or box[3] == size[1]:
        raise ValueError(f"text {text!r} reaches past its mask")  # the margin is too small
    cropped = mask.crop(box)
    cropped.info[TEXT] = text  # what render.labels reads back from a recorded paste
    return cropped, box[0] - pad_x, box[1] - pad_y


class Draw(ImageDraw.ImageDraw):
    """``ImageDraw.Draw`` for the pictures: the same pixels, but a text drawn once is kept as
    its coverage mask (see ``_text_mask``) and pasted in its ink the next times, instead of
    being laid out and rasterised again. Pasting a colour through a mask and drawing a
    glyph bitmap blend alike (Pillow's ``ImagingFill2`` does both)."""

    def __init__(self, image: Image.Image) -> None:
        super().__init__(image)
        self.image = image

    def text(self, xy: tuple[float, float], text: Any, fill: Any = None, font: Any = None,
             anchor: str | None = None, *args: Any, **kwargs: Any) -> None:
        found = text_mask_of(self.image, xy, text, fill, font, anchor, args, kwargs)
        if found is False:
            super().text(xy, text, fill, font, anchor, *args, **kwargs)
        elif found is not None:
            mask, corner = found
            self.image.paste(fill, corner, mask)


def text_mask_of(image: Image.Image, xy: tuple[float, float], text: Any, fill: Any, font: Any,
                 anchor: str | None, args: tuple[Any, ...], kwargs: dict[str, Any],
                 ) -> tuple[Image.Image, tuple[int, int]] | Literal[False] | None:
    """How :class:`Draw` draws a text on ``image``: its mask and the mask's corner, to paste
    ``fill`` through; None when it covers nothing; False when Pillow's own ``text`` must
    draw it (other options, several lines, a point left of or above the picture)."""
    x, y = xy
    if (args or kwargs or not isinstance(text, str) or "\n" in text
            or not isinstance(font, ImageFont.FreeTypeFont) or image.mode != "RGB"
            or x < 0 or y < 0 or fill is None):
        return False
    found = _text_mask(font, text, anchor or "la", math.modf(x)[0], math.modf(y)[0])
    if found is None:
        return None
    mask, dx, dy = found
    return mask, (int(x) + dx, int(y) + dy)


# --- labels: what a picture says, where (read back by render.labels) ----------------------------

TEXT = "text"
"""Key in a text's coverage mask's ``info``: the text it draws (a recorded paste of a colour
through it is that text, at the mask's place)."""
LABELS = "labels"
"""Key in a picture's ``info``: the labels drawn on it outside :mod:`render.frames`' recording
(a static layer, a sprite), as :class:`Drawn` in its own pixels."""
KIND = "label_kind"
"""Key in a picture's ``info``: what the texts drawn on it now are (see :func:`labelling`)."""
KINDS = ("hex", "ahu", "space", "field", "number", "text", "mark")
"""What a label is: a hex's, an ahu's or a space's name (labels players name in moves), a
field's name (a column title), a number on a piece, any other text, or a seat's mark on a
piece (:func:`seat_mark`; its text is the seat): a mark is read where a phone shows it as a
label is, so it is noted and read back as one."""


@dataclass(frozen=True, slots=True)
class Drawn:
    """A label drawn on a picture: its text, its kind (:data:`KINDS`) and its ink's box (left,
    top, right, bottom, in the picture's pixels)."""

    text: str
    kind: str
    box: tuple[float, float, float, float]


def drawn_labels(image: Image.Image) -> tuple[Drawn, ...]:
    """The labels noted on ``image`` (a static layer, a sprite) when it was drawn."""
    found: tuple[Drawn, ...] = image.info.get(LABELS, ())
    return found


def note_labels(image: Image.Image, labels: Iterable[Drawn]) -> None:
    """Note ``labels`` as drawn on ``image`` (a new tuple: a copy of a picture shares its
    ``info``'s values with it)."""
    image.info[LABELS] = (*drawn_labels(image), *labels)


def carry_labels(image: Image.Image, picture: Image.Image, corner: tuple[float, float]) -> None:
    """Note on ``image`` the labels of ``picture`` pasted with its top left at ``corner``
    (a static layer made of other pictures)."""
    x, y = corner
    note_labels(image, (Drawn(d.text, d.kind, (d.box[0] + x, d.box[1] + y, d.box[2] + x,
                                                d.box[3] + y))
                        for d in drawn_labels(picture)))


def shrink(big: Image.Image, size: tuple[int, int]) -> Image.Image:
    """A supersampled picture brought down to ``size`` (Lanczos), its labels with it."""
    small = big.resize(size, Image.Resampling.LANCZOS)
    fx, fy = size[0] / big.width, size[1] / big.height
    small.info[LABELS] = tuple(Drawn(d.text, d.kind, (d.box[0] * fx, d.box[1] * fy,
                                                      d.box[2] * fx, d.box[3] * fy))
                               for d in drawn_labels(big))
    return small


@contextmanager
def labelling(target: Image.Image | ImageDraw.ImageDraw, kind: str) -> Iterator[None]:
    """The texts drawn on ``target`` (a picture, or the draw of one, as a sprite's painter
    gets) meanwhile are labels of ``kind`` (:data:`KINDS`), on a static layer as on a picture
    recorded by :mod:`render.frames`."""
    if kind not in KINDS:
        raise ValueError(f"unknown label kind {kind!r}")
    image = getattr(target, "picture", target)
    if not isinstance(image, Image.Image):  # a plain draw: nothing notes its texts
        yield
        return
    before = image.info.get(KIND)
    image.info[KIND] = kind
    try:
        yield
    finally:
        if before is None:
            del image.info[KIND]
        else:
            image.info[KIND] = before


def ink_box(xy: tuple[float, float], text: str, face: ImageFont.FreeTypeFont,
            anchor: str | None) -> tuple[float, float, float, float] | None:
    """The box of the pixels ``text`` covers when drawn at ``xy`` (None: none)."""
    x, y = xy
    ix, iy = math.floor(x), math.floor(y)
    found = _text_mask(face, text, anchor or "la", x - ix, y - iy)
    if found is None:
        return None
    mask, dx, dy = found
    return ix + dx, iy + dy, ix + dx + mask.width, iy + dy + mask.height


class TracingDraw(ImageDraw.ImageDraw):
    """``ImageDraw.Draw`` (the same pixels) that notes each text it draws on its picture as a
    label (:func:`note_labels`), of the picture's current kind (:func:`labelling`): for the
    pictures drawn once and kept (static layers, sprites), which :mod:`render.frames` does not
    record."""

    def __init__(self, image: Image.Image, kind: str = "text") -> None:
        super().__init__(image)
        self.picture = image
        self.kind = kind

    def text(self, xy: Any, text: Any, fill: Any = None, font: Any = None,
             anchor: str | None = None, *args: Any, **kwargs: Any) -> None:
        super().text(xy, text, fill, font, anchor, *args, **kwargs)
        if not isinstance(text, str) or not text.strip():
            return
        if isinstance(font, ImageFont.FreeTypeFont) and "\n" not in text and not args \
                and not kwargs:
            box = ink_box(xy, text, font, anchor)
        else:
            box = self.textbbox(xy, text, font, anchor, *args, **kwargs)
        if box is not None:
            kind = self.picture.info.get(KIND, self.kind)
            note_labels(self.picture, (Drawn(text, kind, box),))


def traced(image: Image.Image, kind: str = "text") -> TracingDraw:
    """A :class:`TracingDraw` for ``image``: its texts are ``kind`` unless
    :func:`labelling` says otherwise."""
    return TracingDraw(image, kind)


def _is_cjk(char: str) -> bool:
    """Whether a character is Chinese (or other CJK) script, punctuation or full-width form."""
    code = ord(char)
    return (0x2E80 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0xFE30 <= code <= 0xFE4F
            or 0xFF00 <= code <= 0xFFEF or 0x20000 <= code <= 0x3FFFF)


@lru_cache(maxsize=TEXT_MASKS)
def text_lang(text: str, lang: str) -> str:
    """The language whose font can draw ``text``: ``lang``, or Chinese when the text holds
    Chinese characters (a player's name, say) that DejaVu cannot show."""
    if lang not in CJK_LANGUAGES and any(_is_cjk(c) for c in text):
        return "zh-CN"
    return lang


@dataclass(frozen=True)
class SeatColour:
    """A seat's colour: ``fill`` for pieces, ``ink`` for text on it, ``tint`` for its areas."""

    fill: RGB
    ink: RGB
    tint: RGB


def mix(a: RGB, b: RGB, share_of_b: float) -> RGB:
    """The colour ``share_of_b`` of the way from ``a`` to ``b``."""
    red, green, blue = (round(x + (y - x) * share_of_b) for x, y in zip(a, b, strict=True))
    return red, green, blue


_FILLS: dict[str, tuple[RGB, RGB]] = {
    "red": ((230, 16, 16), (255, 255, 255)),
    "blue": ((12, 109, 221), (255, 255, 255)),
    "green": ((96, 236, 170), INK),
    "yellow": ((255, 228, 20), INK),
    "purple": ((72, 12, 124), (255, 255, 255)),
    "grey": ((120, 118, 122), (255, 255, 255)),
    "black": ((35, 35, 40), (255, 255, 255)),
    "white": ((242, 242, 238), INK),
}
"""Seat fills chosen for colour-blind players (after Okabe and Ito): besides hue, the seats
differ in lightness (a light green and yellow, a mid red and blue, a dark purple), so that every
pair that can sit at one table stays at least 20 apart in CAM02-UCS under simulated
deuteranopia, protanopia and tritanopia (tests/test_render_colour.py). Each ink is the one
of white and INK that reads best on its fill."""
SEAT_NAMES = tuple(_FILLS)
"""Every colour a seat may have."""


_TINT_SHARES: dict[str, float] = {"red": 0.3, "blue": 0.4, "green": 0.7, "yellow": 0.45,
                                  "grey": 0.4}
"""How much white each seat's tint (its areas: a territory, a derrick's space) mixes into its
fill: a pale green and a deeper red and blue, so that every pair of tints that can sit at
one table stays at least 20 apart in CAM02-UCS under simulated deuteranopia, protanopia and
tritanopia, each still its seat's hue (tests/test_render_colour.py); others take
:data:`TINT_SHARE`."""
TINT_SHARE = 0.45


@cache
def seat_colour(name: str) -> SeatColour:
    """The palette entry of a seat colour; an unknown name gets a neutral grey."""
    fill, ink = _FILLS.get(name, _FILLS["grey"])
    share = _TINT_SHARES.get(name if name in _FILLS else "grey", TINT_SHARE)
    return SeatColour(fill, ink, mix(fill, (255, 255, 255), share))


MARK_KEY = "seat_mark"
"""Where a picture that carries a seat's mark names the seat (its ``info``): the renderers'
records say which pastes carry which mark (tests/test_render_marks.py)."""


def seat_mark(draw: ImageDraw.ImageDraw, centre: tuple[float, float], size: float,
              seat: str, ink: Any = None, note: bool = True) -> None:
    """Draw ``seat``'s mark (:data:`SEAT_MARKS`) filling a square of side ``size`` centred on
    ``centre``, in ``ink`` (default: the seat's ink, which reads on its fill). Coordinates are
    the drawing's own (a sprite's, times its scale).

    On a picture that notes its labels (:func:`traced`: a sprite, a swatch), the box of the
    mark's shape is noted as a label of kind ``mark`` named after the seat, so that its size
    where a phone shows it is read back as a label's is (:mod:`render.labels`); ``note``
    False draws a shape that is not the mark itself (a halo round it), which is not noted."""
    colour = seat_colour(seat).ink if ink is None else ink
    cx, cy = centre
    r = size / 2
    shape = SEAT_MARKS.get(seat, "ring")
    drawn: list[list[tuple[float, float]]] = []
    if shape == "triangle":
        drawn.append([(cx, cy - r), (cx + r, cy + r * 0.8), (cx - r, cy + r * 0.8)])
        draw.polygon(drawn[-1], fill=colour)
    elif shape == "square":
        s = r * 0.85
        drawn.append([(cx - s, cy - s), (cx + s, cy + s)])
        draw.rectangle((cx - s, cy - s, cx + s, cy + s), fill=colour)
    elif shape == "circle":
        drawn.append([(cx - r, cy - r), (cx + r, cy + r)])
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)
    elif shape == "diamond":
        drawn.append([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)])
        draw.polygon(drawn[-1], fill=colour)
    elif shape in ("plus", "cross"):
        w = r * 0.38
        arms = [((-r, -w), (r, -w), (r, w), (-r, w)), ((-w, -r), (w, -r), (w, r), (-w, r))]
        turn = math.radians(45 if shape == "cross" else 0)
        for arm in arms:
            drawn.append([(cx + x * math.cos(turn) - y * math.sin(turn),
                           cy + x * math.sin(turn) + y * math.cos(turn)) for x, y in arm])
            draw.polygon(drawn[-1], fill=colour)
    elif shape == "bar":  # five by three: as tall as it can be and not read as a square
        drawn.append([(cx - r, cy - r * 0.6), (cx + r, cy + r * 0.6)])
        draw.rectangle((cx - r, cy - r * 0.6, cx + r, cy + r * 0.6), fill=colour)
    else:
        drawn.append([(cx - r, cy - r), (cx + r, cy + r)])
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=colour, width=max(1, round(r / 2.5)))
    picture = getattr(draw, "picture", None)
    if note and isinstance(picture, Image.Image):
        points = [point for part in drawn for point in part]
        note_labels(picture, (Drawn(seat, "mark", (
            min(x for x, _ in points), min(y for _, y in points),
            max(x for x, _ in points), max(y for _, y in points))),))


def marked(picture: Image.Image, seat: str) -> Image.Image:
    """``picture`` (a sprite of ``seat``'s piece with its mark drawn on) named as carrying the
    mark, for the renderers' records."""
    picture.info[MARK_KEY] = seat
    return picture


def colour_name(colour: str, lang: str) -> str:
    """A colour's name in words, e.g. for a seat without a display name."""
    return t(f"render.colour.{colour}", lang)


def seat_names(seats: Sequence[str], lang: str, names: dict[str, str] | None) -> dict[str, str]:
    """Display names for the seats: the given names, else the colour's name."""
    given = names or {}
    return {seat: given.get(seat) or colour_name(seat, lang) for seat in seats}


@lru_cache(maxsize=TEXT_MASKS)
def text_length(face: ImageFont.FreeTypeFont, text: str) -> float:
    """``face.getlength(text)``, measured once per face and text."""
    return face.getlength(text)


@lru_cache(maxsize=TEXT_MASKS)
def fit_text(text: str, face: ImageFont.FreeTypeFont, width: float) -> str:
    """``text`` shortened with an ellipsis so that it fits ``width`` pixels: its longest
    beginning that fits with the ellipsis. A longer beginning never measures shorter, so
    halving finds the one that cutting a character at a time finds, in a few measures
    instead of one a character (a long name is cut by half in a table row)."""
    if face.getlength(text) <= width:
        return text
    fits, cut = 0, len(text)  # text[:fits] fits with the ellipsis; text[:cut + 1] does not
    while fits < cut:
        middle = (fits + cut + 1) // 2
        if face.getlength(text[:middle] + "…") <= width:
            fits = middle
        else:
            cut = middle - 1
    return text[:fits] + "…"


def status_line(draw: ImageDraw.ImageDraw, text: str, lang: str, y: int, width: int,
                colour: Any) -> None:
    """The one bold line under a board: who acts now and on what, or who won."""
    face = font(22, True, text_lang(text, lang))
    draw.text((24, y), fit_text(text, face, width - 48), font=face, fill=colour, anchor="lm")


def key_line(base: Image.Image, draw: ImageDraw.ImageDraw,
             entries: Sequence[tuple[Image.Image, str]], prefix: str, lang: str, x: int, y: int,
             face: ImageFont.FreeTypeFont,
             icon_gap: int = 8, entry_gap: int = 22) -> None:
    """One line of a board's symbol key: each icon followed by its word (``prefix`` + key)."""
    for icon, key in entries:
        paste_centred(base, icon, (x + icon.width / 2, y))
        x += icon.width + icon_gap
        text = t(f"{prefix}{key}", lang)
        draw.text((x, y), text, font=face, fill=INK, anchor="lm")
        x += round(text_length(face, text)) + entry_gap


def sprite(width: int, height: int, paint: Callable[[ImageDraw.ImageDraw, int], None],
           scale: int = 4, kind: str = "number") -> Image.Image:
    """A small antialiased RGBA picture: ``paint(draw, scale)`` draws at ``scale`` times the size.

    Pillow draws shapes without antialiasing; drawing large and shrinking smooths the edges.
    Its texts are noted as labels of ``kind`` (most sprites are pieces: their texts are the
    numbers on them).
    """
    big = Image.new("RGBA", (width * scale, height * scale), (0, 0, 0, 0))
    paint(traced(big, kind), scale)
    return shrink(big, (width, height))


def hex_corners(centre: tuple[float, float], radius: float) -> list[tuple[float, float]]:
    """The six corners of a pointy-top hex, clockwise from the top."""
    cx, cy = centre
    return [(cx + radius * math.cos(math.radians(-90 + 60 * k)),
             cy + radius * math.sin(math.radians(-90 + 60 * k))) for k in range(6)]


def known(highlight: Iterable[str], labels: Iterable[str]) -> list[str]:
    """The highlighted labels that name one of ``labels``, in the order of ``labels``; the
    others (another game's labels, a typo) are ignored."""
    wanted = set(highlight)
    return [label for label in labels if label in wanted]


@cache
def changed_hex(radius: int, line: int = 5, edge: int = 2) -> Image.Image:
    """A hex ring that marks a changed space: the change colour between two dark edges, its
    outer corners ``radius`` from the centre."""
    size = 2 * radius + 4

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        centre = (size * k / 2, size * k / 2)
        for r, fill in ((radius, INK), (radius - edge, CHANGED), (radius - edge - line, INK),
                        (radius - 2 * edge - line, (0, 0, 0, 0))):
            draw.polygon(hex_corners(centre, r * k), fill=fill)
    return sprite(size, size, paint)


@cache
def changed_box(width: int, height: int, corner: int = 8, line: int = 5,
                edge: int = 2) -> Image.Image:
    """A rounded-rectangle ring around a ``width`` x ``height`` box (a site, a statue's slot, a
    space): the change colour between two dark edges, all outside the box."""
    pad = line + 2 * edge
    w, h = width + 2 * pad, height + 2 * pad

    def paint(draw: ImageDraw.ImageDraw, k: int) -> None:
        for inset, fill in ((0, INK), (edge, CHANGED), (edge + line, INK),
                            (pad, (0, 0, 0, 0))):
            draw.rounded_rectangle((inset * k, inset * k, (w - inset) * k, (h - inset) * k),
                                   radius=max(corner + pad - inset, 1) * k, fill=fill)
    return sprite(w, h, paint)


def paste_centred(image: Image.Image, picture: Image.Image, centre: tuple[float, float]) -> None:
    """Paste an RGBA ``picture`` onto ``image`` with its centre at ``centre``."""
    x = round(centre[0] - picture.width / 2)
    y = round(centre[1] - picture.height / 2)
    image.paste(picture, (x, y), picture)


def swatch(draw: Draw, box: tuple[int, int, int, int], colour: str) -> None:
    """A legend swatch: the seat colour in a rounded square with a dark rim and the seat's
    mark (its pixels drawn without antialiasing, as the square's), pasted from a
    picture of it made once (the same pixels as drawing the shape there: its pixels are
    wholly opaque or wholly clear; a paste records and replays many times faster)."""
    left, top, right, bottom = box
    picture = _swatch(colour, right - left, bottom - top)
    draw.image.paste(picture, (left, top), picture)


@cache
def _swatch(colour: str, width: int, height: int) -> Image.Image:
    picture = Image.new("RGBA", (width + 1, height + 1), (0, 0, 0, 0))
    draw = traced(picture)
    draw.rounded_rectangle((0, 0, width, height), radius=6, fill=seat_colour(colour).fill,
                           outline=INK, width=2)
    seat_mark(draw, (width / 2, height / 2), min(width, height) * SWATCH_MARK, colour)
    return marked(picture, colour)


SWATCH_MARK = 0.7
"""A swatch's mark's side, as a share of the swatch's: as large as its rim leaves room for
(a hand's 30 px swatch: a bar 12 px tall, 7 px on a phone)."""


def seat_row_head(draw: Draw, y: int, height: int, width: int, seat: str,
                  name: str, lang: str, lit: RGB | None, size: int, room: int) -> None:
    """The start of a seat's row in a board's table, centred on ``y``: the row lit in ``lit``
    (None: not lit) across the picture's ``width``, the seat's swatch, its name in bold
    ``size`` cut to ``room`` pixels."""
    if lit is not None:
        draw.rectangle((16, y - height // 2, width - 16, y + height // 2), fill=lit,
                       outline=INK, width=2)
    swatch(draw, (26, y - 14, 54, y + 14), seat)
    face = font(size, True, text_lang(name, lang))
    draw.text((66, y), fit_text(name, face, room), font=face, fill=INK, anchor="lm")


def legend_row(draw: ImageDraw.ImageDraw, y: int, columns: Sequence[tuple[int, str]],
               face: ImageFont.FreeTypeFont, fill: RGB = INK) -> None:
    """One line of a legend table: each ``(x, text)`` left-aligned, vertically centred on y."""
    for x, text in columns:
        draw.text((x, y), text, font=face, fill=fill, anchor="lm")


def seat_colours() -> list[RGB]:
    """Every seat colour's fill, ink and tint: exact entries of every picture's palette."""
    found: list[RGB] = []
    for name in SEAT_NAMES:
        pal = seat_colour(name)
        found += [pal.fill, pal.ink, pal.tint]
    return found


def pairs(inks: Iterable[RGB], backgrounds: Iterable[RGB],
          finest: int = 4) -> tuple[palette.Ramp, ...]:
    """The ramps of each ink over each background (a colour is never its own ramp), split as
    finely as ``finest``."""
    grounds = list(backgrounds)
    return tuple((ink, ground, finest) for ink in inks for ground in grounds if ink != ground)


BLACK: RGB = (0, 0, 0)
"""Not drawn, but reached: shrinking a supersampled picture overshoots dark edges past INK."""


BLANKS = 64
"""Sheets of paper kept by their size (a screen's height follows what it holds)."""


@lru_cache(maxsize=BLANKS)
def blank(width: int, height: int) -> Image.Image:
    """A sheet of paper of this size, kept: the static layer of a picture that has no other
    (a seat's screen or hand), which :mod:`render.frames` draws by its changes. Never drawn
    on: pictures are drawn on copies."""
    return Image.new("RGB", (width, height), PAPER)
