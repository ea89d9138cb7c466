"""Board positions for pinning the board pictures: every game and seat count, all five languages,
public and seat views, with and without highlights and display names.

``python -m tests.helpers.canvas_cases --write`` stores the SHA-256 of every canvas in
``tests/records/canvas_hashes.json``; ``tests/test_render_canvas.py`` checks that the canvases
still have those hashes. Write them again only after looking at the pictures that changed: the
hashes pin the pixels that the shipped fonts and the locked Pillow draw.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from PIL import Image

from bot.games.giants import _changes as giants_changes
from bot.games.giganten import _changes as giganten_changes
from bot.games.makemake import _changes as makemake_changes
from render import giants as giants_board
from render import giganten as giganten_board
from render import makemake as makemake_board
from render.i18n import LANGUAGES
from rules import giants, giganten, makemake
from rules.ai import choose
from rules.core import CHANCE, Event
from rules.record import Game, parse_header

HASHES = Path(__file__).parent.parent / "records" / "canvas_hashes.json"
MODULES: dict[str, Any] = {"makemake": makemake, "giants": giants, "giganten": giganten}
BOARDS: dict[str, ModuleType] = {"makemake": makemake_board, "giants": giants_board,
                                 "giganten": giganten_board}
CHANGED: dict[str, Callable[[list[Event]], set[str]]] = {
    "makemake": makemake_changes.changed, "giants": giants_changes.changed,
    "giganten": giganten_changes.changed}
PLAYS = [("makemake", 3, 5, "random"), ("makemake", 4, 2, "greedy"),
         ("giants", 3, 1, "greedy"), ("giants", 4, 11, "greedy"), ("giants", 5, 3, "random"),
         ("giganten", 3, 8, "random"), ("giganten", 4, 3, "greedy")]
"""(game, seats, seed, AI level) of each game played."""
POSITIONS = 8
"""Positions taken from each game, evenly spread, then its last one."""
NAMES = {"red": "Hotu", "blue": "Tuki", "green": "阿娜", "yellow": "Rapa Nui Longname Player",
         "purple": "Moe", "grey": "Howard", "black": "Джон", "white": "Ana"}


@dataclass(frozen=True)
class Case:
    game: str
    name: str
    view: dict[str, Any]
    lang: str
    names: dict[str, str] | None
    highlight: frozenset[str]

    def canvas(self) -> Image.Image:
        return BOARDS[self.game].canvas(  # type: ignore[no-any-return]
            self.view, self.lang, self.names, highlight=self.highlight)


@cache
def _played(game: str, seats: int, seed: int, level: str) -> list[tuple[Any, list[Event]]]:
    """Every state of a whole AI game, with the events that led to it."""
    module = MODULES[game]
    played = Game.start(parse_header(
        f"game {game} {' '.join(module.COLOURS[:seats])} seed={seed}"))
    rng = random.Random(seed)
    out = []
    while played.pending():
        pending = played.pending()
        if pending == (CHANCE,):
            actor, action = CHANCE, played.next_chance()
        else:
            actor = pending[0]
            action = choose(module, played.state, actor, level, rng)
        out.append((played.state, played.apply(actor, action)))
    out.append((played.state, []))
    return out[1:]


def cases() -> Iterator[Case]:
    """Every pinned position: each in all five languages; every other one lit up with what
    changed, every third with display names, some from a seat's own view."""
    for game, seats, seed, level in PLAYS:
        steps = _played(game, seats, seed, level)
        picks = [n * len(steps) // POSITIONS for n in range(POSITIONS)] + [len(steps) - 1]
        module = MODULES[game]
        for k, n in enumerate(picks):
            state, events = steps[n]
            seat = None if k % 4 != 3 else state.seats[k % len(state.seats)]
            view = module.view(state, seat)
            highlight = frozenset(CHANGED[game](events)) if k % 2 else frozenset()
            names = NAMES if k % 3 == 1 else None
            for lang in LANGUAGES:
                yield Case(game, f"{game}-{seats}-{seed}-{n}-{seat or 'public'}-{lang}", view,
                           lang, names, highlight)


def digest(image: Image.Image) -> str:
    return hashlib.sha256(f"{image.mode}{image.size}".encode() + image.tobytes()).hexdigest()


def hashes() -> dict[str, str]:
    return {case.name: digest(case.canvas()) for case in cases()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="store the hashes")
    parser.add_argument("--save", metavar="FOLDER", help="save each canvas as a PNG there")
    args = parser.parse_args()
    if args.save:
        folder = Path(args.save)
        folder.mkdir(parents=True, exist_ok=True)
        for case in cases():
            case.canvas().save(folder / f"{case.name}.png")
    found = hashes()
    if args.write:
        HASHES.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        print(f"{len(found)} hashes written")
        return 0
    stored = json.loads(HASHES.read_text())
    differ = sorted(name for name in found if stored.get(name) != found[name])
    for name in differ:
        print("differs:", name)
    print(f"{len(found)} canvases, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
