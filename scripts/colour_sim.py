"""One board of each game as drawn and as a deuteranope sees it, side by side.

    python scripts/colour_sim.py [--out docs/colour] [--width 900] [--vision deuteranomaly]

Each game is played by the greedy AI (four seats, a fixed seed) to its middle; its public
board is drawn, then simulated with colorspacious (``cvd_space`` at severity 100, the
simulation the palette test uses), and both pictures are written beside each other, shrunk
to ``--width`` pixels in all, as ``<out>/<game>.png``. colorspacious comes with the test
extra (``pip install -e ".[test]"``).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from colorspacious import cspace_convert
from PIL import Image

from render import giants as giants_board
from render import giganten as giganten_board
from render import makemake as makemake_board
from rules import giants, giganten, makemake
from rules.ai import choose
from rules.core import CHANCE
from rules.record import Game, parse_header

GAMES: dict[str, tuple[ModuleType, ModuleType, int]] = {
    "giants": (giants, giants_board, 11),
    "giganten": (giganten, giganten_board, 3),
    "makemake": (makemake, makemake_board, 5),
}
"""Each game's rules, renderer and seed (the games the renderers' tests play)."""
SEATS = 4
COLOURS = 96
"""Colours of each written picture (a palette keeps the files small)."""


def mid_game(game: str) -> Image.Image:
    """The public board of a greedy game of ``game`` half-way through, as drawn."""
    module, board, seed = GAMES[game]
    played = Game.start(parse_header(
        f"game {game} {' '.join(module.COLOURS[:SEATS])} seed={seed}"))
    rng = random.Random(seed)
    states = []
    while played.pending():
        pending = played.pending()
        if pending == (CHANCE,):
            actor, action = CHANCE, played.next_chance()
        else:
            actor = pending[0]
            action = choose(module, played.state, actor, "greedy", rng)
        played.apply(actor, action)
        states.append(played.state)
    view = module.view(states[len(states) // 2], None)
    return board.canvas(view, "en")  # type: ignore[no-any-return]


def simulated(picture: Image.Image, vision: str) -> Image.Image:
    """``picture`` as seen with ``vision`` (colorspacious's name) at full severity."""
    rgb = np.asarray(picture.convert("RGB"), dtype=float) / 255
    space = {"name": "sRGB1+CVD", "cvd_type": vision, "severity": 100}
    seen = np.clip(cspace_convert(rgb, space, "sRGB1"), 0, 1)
    return Image.fromarray((seen * 255).round().astype(np.uint8), "RGB")


def side_by_side(picture: Image.Image, vision: str, width: int) -> Image.Image:
    """The picture and its simulation beside each other, ``width`` pixels wide in all."""
    both = Image.new("RGB", (picture.width * 2 + 16, picture.height), (255, 255, 255))
    both.paste(picture.convert("RGB"), (0, 0))
    both.paste(simulated(picture, vision), (picture.width + 16, 0))
    height = round(both.height * width / both.width)
    return both.resize((width, height), Image.Resampling.LANCZOS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="docs/colour", help="the folder to write into")
    parser.add_argument("--width", type=int, default=900, help="each file's width in pixels")
    parser.add_argument("--vision", default="deuteranomaly",
                        choices=("deuteranomaly", "protanomaly", "tritanomaly"))
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for game in args.games:
        path = out / f"{game}.png"
        picture = side_by_side(mid_game(game), args.vision, args.width)
        picture.quantize(COLOURS, dither=Image.Dither.NONE).save(path, optimize=True)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
