"""Fixed palettes and a fast PNG encoder for the board pictures.

Every kind of picture (a board, a screen, a hand) is drawn with a known set of colours: the
fills and inks in the code. Its palette holds each of them as an exact entry, then the blends
that antialiasing makes between them (text and shape edges over their backgrounds), spread evenly
over the ramps the picture draws. It is built once per kind and process, so a render only maps
its pixels to the nearest entry: no palette search per picture.

Pillow maps a pixel through a cache of 4x4x4 colour cells: a pixel gets the entry nearest to its
cell's low corner (the lowest index on a tie). So a design colour comes out exactly only when it
is the nearest entry to its own cell's corner; the palette is built to keep that true (a blend
that would take a design colour's place is left out, and two design colours that would share a
cell are an error), and checked against Pillow itself when it is built.

The encoder writes the PNG itself: palette rows without filters (as Pillow writes them), deflated
in bands of rows, each band flushed so that it stands on its own. Bands are kept by their
content (:class:`Bands`): a band the same as in an earlier picture (the static layer, the
game's previous board) reuses its compressed bytes, so a render maps and deflates only the
bands its pieces and values touch.
"""

from __future__ import annotations

import struct
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import cast

import xxhash
from isal import isal_zlib
from PIL import Image

RGB = tuple[int, int, int]
Ramp = tuple[RGB, RGB, int]
"""Two colours and the finest split of the way between them (2, 4, 8 or 16)."""

SPLITS = (2, 4, 8, 16)
"""Blends are added level by level over every ramp: the half-way colours of all ramps first,
then the quarters, then the eighths, then the sixteenths (each ramp as far as its own finest
split), until the palette is full."""
BAND = 8
"""Rows deflated together; a band equal to the static layer's reuses its compressed bytes."""
LEVEL = 1
"""Deflate level of ISA-L (``isal``), the compressor (see ``scripts/benchmark.py``: on these
pictures its level 1 takes some 40 % of zlib's level 1 time for a few per cent fewer bytes;
its level 0 is faster still but a third bigger, which players pay in upload time)."""
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _corner(colour: RGB) -> RGB:
    """The low corner of the 4x4x4 cell of Pillow's palette cache that holds ``colour``."""
    return colour[0] & ~3, colour[1] & ~3, colour[2] & ~3


def _dist2(a: RGB, b: RGB) -> int:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2


def blend(a: RGB, b: RGB, share_of_b: float) -> RGB:
    """The colour ``share_of_b`` of the way from ``a`` to ``b``, rounded."""
    red, green, blue = (round(x + (y - x) * share_of_b) for x, y in zip(a, b, strict=True))
    return red, green, blue


@dataclass(frozen=True)
class Design:
    """What one kind of picture is drawn with: exact colours and the ramps between them."""

    colours: tuple[RGB, ...]
    """Every fill and ink colour: each an exact entry of the palette."""
    ramps: tuple[Ramp, ...]
    """Pairs of colours whose edges antialiasing blends (an ink over a background), each with
    its finest split: 16 for the inks of most text, fewer for rarer edges."""


class PaletteError(ValueError):
    """A design cannot be made into an exact palette."""


@dataclass
class Palette:
    """A built palette: its entries (the design colours first) and Pillow's palette image."""

    entries: tuple[RGB, ...]
    exact: int
    """How many of the first entries are design colours."""
    image: Image.Image = field(repr=False)
    plte: bytes = field(repr=False)

    @cached_property
    def ident(self) -> int:
        """The palette in a band's key: two palettes with the same entries share bands."""
        return xxhash.xxh3_64_intdigest(self.plte)

    def quantize(self, picture: Image.Image) -> Image.Image:
        """``picture`` (RGB) as a palette image of these entries, each pixel the nearest entry
        (design colours exactly)."""
        return picture.quantize(palette=self.image, dither=Image.Dither.NONE)


def _unique(colours: Iterable[RGB]) -> list[RGB]:
    seen: dict[RGB, None] = {}
    for colour in colours:
        seen.setdefault(tuple(int(c) for c in colour), None)  # type: ignore[arg-type]
    return list(seen)


def _blends(ramps: Sequence[Ramp]) -> list[RGB]:
    """The candidate blends, level by level (see SPLITS)."""
    found: list[RGB] = []
    done: set[float] = set()
    for parts in SPLITS:
        shares = [i / parts for i in range(1, parts) if i / parts not in done]
        done.update(shares)
        for share in shares:
            found += [blend(a, b, share) for a, b, finest in ramps if finest >= parts]
    return found


def build(design: Design) -> Palette:
    """The palette of a design: its colours exactly, then as many blends as fit in 256."""
    exact = _unique(design.colours)
    if len(exact) > 256:
        raise PaletteError(f"{len(exact)} design colours do not fit in 256")
    reach = [_dist2(d, _corner(d)) for d in exact]
    for i, d in enumerate(exact):
        for j, e in enumerate(exact):
            if i != j and (_dist2(e, _corner(d)) < reach[i]
                           or (j < i and _dist2(e, _corner(d)) == reach[i])):
                raise PaletteError(f"design colours {d} and {e} share a palette cell")
    entries = list(exact)
    taken = {_corner(c) for c in entries}
    for colour in _blends(design.ramps):
        if len(entries) == 256:
            break
        if _corner(colour) in taken:
            continue
        if any(_dist2(colour, _corner(d)) < r for d, r in zip(exact, reach, strict=True)):
            continue
        entries.append(colour)
        taken.add(_corner(colour))
    plte = b"".join(bytes(c) for c in entries)
    image = Image.new("P", (1, 1))
    image.putpalette(plte + bytes(entries[0]) * (256 - len(entries)))
    palette = Palette(tuple(entries), len(exact), image, plte)
    _check(palette)
    return palette


def _check(palette: Palette) -> None:
    """Pillow maps every design colour to its own entry (or the build is wrong)."""
    probe = Image.new("RGB", (palette.exact, 1))
    probe.putdata(list(palette.entries[:palette.exact]))
    mapped = palette.quantize(probe).tobytes()
    if mapped != bytes(range(palette.exact)):
        raise PaletteError("Pillow does not map the design colours to their own entries")


# --- PNG ---------------------------------------------------------------------------------------

def _chunk(kind: bytes, data: bytes) -> tuple[bytes, bytes, bytes, bytes]:
    """A PNG chunk's parts: its length, kind, data and CRC."""
    return (struct.pack(">I", len(data)), kind, data,
            struct.pack(">I", isal_zlib.crc32(data, isal_zlib.crc32(kind))))


def _adler(bands: Sequence[Band]) -> int:
    """The Adler-32 of the bands' rows one after the other, from each band's own checksum and
    length (zlib's adler32_combine over them all at once: the stream's ``a`` is one plus the
    sum of the bytes; each byte adds itself once to ``b`` for every byte from it to the end)."""
    base = 65521
    sums = 0
    weights = 0
    after = 0
    for _, adler, length in reversed(bands):
        low = (adler & 0xFFFF) - 1  # the band's own sum of bytes
        sums += low
        weights += (adler >> 16) - length + low * after
        after += length
    return ((1 + sums) % base) | (((after + weights) % base) << 16)


def scanlines(indexed: Image.Image) -> bytes:
    """A palette picture's rows as a PNG holds them before they are deflated: each after its
    filter byte (0, none)."""
    lines = Image.new("P", (indexed.width + 1, indexed.height), 0)
    lines.paste(indexed, (1, 0))
    return lines.tobytes()


def _png(palette: Palette, size: tuple[int, int], stream: bytes) -> bytes:
    width, height = size
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return b"".join((PNG_SIGNATURE, *_chunk(b"IHDR", header), *_chunk(b"PLTE", palette.plte),
                     *_chunk(b"IDAT", stream), *_chunk(b"IEND", b"")))


_ZLIB_HEADER = b"\x78\x01"
"""A zlib stream's header: deflate, 32 KiB window, the fastest compression."""
_FINAL = b"\x03\x00"
"""An empty last block: it ends a deflate stream whose blocks were all flushed."""


Band = tuple[bytes, int, int]
"""A band's deflated rows, their Adler-32 and their length."""
BandKey = tuple[int, int, int]
"""A band's palette, picture width and the 128-bit hash of its scanlines (:func:`scanlines`)."""
BAND_BUDGET = 48 * 1024 * 1024
"""Bytes of compressed bands kept per process: the bands of some hundreds of boards."""
BAND_OVERHEAD = 160
"""What the cache spends on a band besides its bytes (key, tuple, dictionary slot)."""

class Bands:
    """Compressed bands by their content: an LRU of this process's, bounded in bytes.

    A band's key is the palette, the picture's width and a 128-bit hash of the band's
    scanlines (xxHash's XXH3: it hashes a board in a fraction of a millisecond); its value, the
    band's rows deflated on their own with their Adler-32 and length. A board moves a few pieces
    a move, so most of its bands are found: those left as in the static layer (shared by every
    game of that kind) and those left as in the game's previous picture (the render pool sends
    each game's pictures to the same worker for that). A race between threads only does the
    same work twice.
    """

    def __init__(self, budget: int = BAND_BUDGET) -> None:
        self.budget = budget
        self.size = 0
        self.found = 0
        """Bands found (statistics for benchmarks and tests)."""
        self.made = 0
        """Bands deflated."""
        self._kept: OrderedDict[BandKey, Band] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: BandKey) -> Band | None:
        with self._lock:
            band = self._kept.get(key)
            if band is not None:
                self._kept.move_to_end(key)
            return band

    def get_all(self, keys: Sequence[BandKey | None]) -> list[Band | None]:
        """:meth:`get` for each key (None for a None key)."""
        with self._lock:
            kept = self._kept
            found = [None if key is None else kept.get(key) for key in keys]
            for key, band in zip(keys, found, strict=True):
                if key is not None and band is not None:
                    kept.move_to_end(key)
            return found

    def put(self, key: BandKey, band: Band) -> None:
        with self._lock:
            if key in self._kept:
                return
            self._kept[key] = band
            self.size += len(band[0]) + BAND_OVERHEAD
            while self.size > self.budget and self._kept:
                _, old = self._kept.popitem(last=False)
                self.size -= len(old[0]) + BAND_OVERHEAD

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self.size = 0


BANDS = Bands()
"""This process's bands, shared by every picture it encodes."""


def encode(palette: Palette, picture: Image.Image, bands: Bands = BANDS) -> bytes:
    """PNG bytes of ``picture`` (RGB) with ``palette``: its bands looked up by content, and
    only the missing ones mapped to the palette and deflated."""
    return encode_known(palette, picture, [None] * -(-picture.height // BAND), bands)[0]


def encode_known(palette: Palette, picture: Image.Image,
                 known: list[tuple[BandKey, Band] | None],
                 bands: Bands = BANDS,
                 indices: Callable[[int, int], bytes] | None = None,
                 ) -> tuple[bytes, list[BandKey]]:
    """:func:`encode`, with the bands that are already known (their key and bytes; None for
    the others, which are mapped to the palette, hashed, looked up and deflated as needed),
    and the keys of all bands. ``indices(top, bottom)``, when given, says the palette indices
    of those rows as :func:`scanlines` gives them (the caller may know most of them); else
    the rows are mapped here.

    A band is keyed by its scanlines (palette indices), not its RGB pixels: they are what is
    deflated, a third of the bytes to hash, and mapping the missing bands comes first anyway."""
    if picture.mode != "RGB":
        raise ValueError(f"a {picture.mode} picture: the encoder takes RGB")
    width, height = picture.size
    line = width + 1
    keys: list[BandKey | None] = [None if k is None else k[0] for k in known]
    found: list[Band | None] = [None if k is None else k[1] for k in known]
    deflate = isal_zlib.compressobj(LEVEL, isal_zlib.DEFLATED, -15)
    for n, end in _runs(found):
        top, bottom = n * BAND, min(end * BAND, height)
        if indices is not None:
            raw = memoryview(indices(top, bottom))
        else:
            whole = top == 0 and bottom == height
            raw = memoryview(scanlines(palette.quantize(
                picture if whole else picture.crop((0, top, width, bottom)))))
        for m in range(n, end):
            start, stop = m * BAND - top, min((m + 1) * BAND, height) - top
            rows = raw[start * line:stop * line]
            key = keys[m] = (palette.ident, width, xxhash.xxh3_128_intdigest(rows))
            band = bands.get(key)
            if band is None:
                band = (deflate.compress(rows) + deflate.flush(isal_zlib.Z_FULL_FLUSH),
                        isal_zlib.adler32(rows), len(rows))
                bands.put(key, band)
                bands.made += 1
            else:
                bands.found += 1
            found[m] = band
    bands.found += sum(k is not None for k in known)
    complete = cast(list[Band], found)  # every band is found or made by now
    stream = b"".join((_ZLIB_HEADER, *[band[0] for band in complete], _FINAL,
                       struct.pack(">I", _adler(complete))))
    return _png(palette, picture.size, stream), cast(list[BandKey], keys)


def _runs(found: list[Band | None]) -> list[tuple[int, int]]:
    """The runs of missing bands, as (first, end)."""
    runs = []
    n = 0
    while n < len(found):
        if found[n] is not None:
            n += 1
            continue
        end = n
        while end < len(found) and found[end] is None:
            end += 1
        runs.append((n, end))
        n = end
    return runs
