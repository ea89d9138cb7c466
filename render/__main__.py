"""``python -m render RECORD [--seat COLOUR] -o OUT.png``: the board after a record, as a PNG.

The record is replayed like ``python -m rules replay --keep-going``; the image shows the public
view, or with ``--seat`` that seat's view; ``--highlight B2,S03`` rings those board labels as
changed. ``--map`` draws the map alone (without the players' table and the key, which a table
message says in text); ``--focus M7,tongariki`` the part of the board around those places, as
a phone shows it for a decision; ``--labels`` prints the picture's smallest label a player
names and how tall a phone 340 px across shows it (see ``render.labels``). A game is drawn
by the module ``render.<game name>``, so a game gets images by gaining that module.
Exit codes: 0 every line applied, 1 a line was rejected (the image is still written),
2 the record cannot be read, the game has no renderer or the image cannot be written.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from types import ModuleType
from typing import Any

from render import labels
from render.i18n import LANGUAGES
from rules.record import RecordError, replay
from rules.registry import entry


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def renderer(game: str) -> ModuleType | None:
    """The module that draws ``game`` (its registry entry names it), or None when there is
    none yet."""
    try:
        name = entry(game).renderer
    except KeyError:
        return None
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m render", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("record", help="record file, or - for standard input")
    parser.add_argument("--seat", help="draw this colour's view instead of the public one")
    parser.add_argument("--lang", choices=LANGUAGES, default="en", help="language of the legend")
    parser.add_argument("--highlight", default="",
                        help="board labels to ring as changed, comma-separated (e.g. B2,S03)")
    parser.add_argument("--map", action="store_true",
                        help="the map alone, without the players' table and the key")
    parser.add_argument("--focus", default="",
                        help="the part of the board around these places, comma-separated")
    parser.add_argument("--labels", action="store_true",
                        help="print the smallest label a player names, as a phone shows it")
    parser.add_argument("-o", "--output", required=True, help="the PNG file to write")
    args = parser.parse_args(argv)
    try:
        game, rejections = replay(_read(args.record), keep_going=True)
    except (OSError, UnicodeDecodeError, RecordError) as exc:
        print(f"cannot read {args.record}: {exc}", file=sys.stderr)
        return 2
    for rejection in rejections:
        print(rejection)
    seat = args.seat.lower() if args.seat else None
    if seat is not None and seat not in game.header.seats:
        print(f"{seat} has no seat in this game", file=sys.stderr)
        return 2
    drawer = renderer(game.module.NAME)
    if drawer is None:
        print(f"no board image for {game.module.NAME} yet", file=sys.stderr)
        return 2
    highlight = frozenset(label.strip() for label in args.highlight.split(",") if label.strip())
    places = [place.strip() for place in args.focus.split(",") if place.strip()]
    view = game.module.view(game.state, seat)
    if (places and not hasattr(drawer, "focus")) or (
            args.map and "legend" not in inspect.signature(drawer.board).parameters):
        print(f"no map or focus picture for {game.module.NAME} yet", file=sys.stderr)
        return 2
    if places:
        png = drawer.focus(view, places, args.lang, highlight=highlight)
    else:
        png = drawer.board(view, args.lang, highlight=highlight,
                           **({"legend": False} if args.map else {}))
    if args.labels:
        print(_smallest(drawer, view, args, highlight, places))
    try:
        with open(args.output, "wb") as f:
            f.write(png)
    except OSError as exc:
        print(f"cannot write {args.output}: {exc}", file=sys.stderr)
        return 2
    return 1 if rejections else 0


def _smallest(drawer: ModuleType, view: dict[str, Any], args: argparse.Namespace,
              highlight: frozenset[str], places: list[str]) -> str:
    """The picture's smallest label a player names, in words."""
    if places:
        found = labels.read_focus(drawer, view, places, args.lang, highlight=highlight)
    else:
        found = labels.read_one(drawer.board, view, args.lang, highlight=highlight,
                                **({"legend": False} if args.map else {}))
    label = found.smallest()
    if label is None:
        return "no label a player names"
    shown = found.shown_height(label)
    return (f"smallest label: {label.text!r} ({label.kind}) {label.height} px tall in a picture "
            f"{found.size[0]} px wide: {shown:.1f} px on a phone {labels.PHONE_WIDTH} px across")


if __name__ == "__main__":
    sys.exit(main())
