"""Parts of a board (``render.focus``): the map without the text the message carries, and a
focus on the places of a decision that a phone shows large enough to read."""

from __future__ import annotations

import importlib
import io
from typing import Any

import pytest
from PIL import Image

from render import focus, frames, giants, giganten, labels, makemake
from render.focus import FOCUS_HEIGHT, FOCUS_WIDTH
from render.palette import encode
from rules.registry import game_module
from tests.helpers import canvas_cases

PLAYS = [("giants", 4, 11, "greedy"), ("giganten", 4, 3, "greedy"), ("makemake", 4, 5, "greedy")]
MAP_HEIGHT = {"giants": lambda view: giants.BOARD_HEIGHT,
              "makemake": lambda view: makemake.BOARD_HEIGHT,
              "giganten": lambda view: giganten.Layout(len(view["seats"])).legend_y - 8}
PLACES: dict[str, list[list[str]]] = {
    "giants": [["M7"], ["A13", "B13"], ["tongariki"], ["hanga-o-teo", "H1"], ["P6"]],
    "giganten": [["A1"], ["C5", "D6"], [f"{giganten.ROWS[-1]}{giganten.COLUMNS}"]],
    "makemake": [[next(iter(makemake.HEX_XY))], [next(iter(makemake.SITE_XY))],
                 list(makemake.HEX_XY)[-2:]],
}
"""Places focused on: a hex, neighbours, an ahu with its hex, corners of the board."""


def _positions(game: str, seats: int, seed: int, level: str) -> list[dict[str, Any]]:
    module = canvas_cases.MODULES[game]
    steps = canvas_cases._played(game, seats, seed, level)
    return [module.view(steps[n][0], None) for n in (len(steps) // 3, len(steps) - 1)]


@pytest.mark.parametrize("play", PLAYS, ids=[p[0] for p in PLAYS])
def test_the_map_is_the_boards_top_drawn_by_its_changes_too(play: tuple[str, int, int, str]
                                                            ) -> None:
    game = play[0]
    renderer = canvas_cases.BOARDS[game]
    frames.forget()
    for view in _positions(*play):
        whole = renderer.canvas(view)
        height = MAP_HEIGHT[game](view)
        top = encode(renderer.palette(), whole.crop((0, 0, whole.width, height)))
        assert renderer.board(view, legend=False) == top
        assert renderer.board(view, legend=False, frame="map") == top
        assert Image.open(io.BytesIO(top)).size == (whole.width, height)
        assert height < whole.height
        assert whole.width >= height * 0.75  # not much taller than wide: wider, here


@pytest.mark.parametrize("play", PLAYS, ids=[p[0] for p in PLAYS])
def test_a_focus_shows_its_places_labels_large_enough_and_uncovered(
        play: tuple[str, int, int, str]) -> None:
    game = play[0]
    renderer: Any = canvas_cases.BOARDS[game]
    for view in _positions(*play):
        whole = labels.read_one(renderer.board, view)
        for places in PLACES[game]:
            png = renderer.focus(view, places)
            assert Image.open(io.BytesIO(png)).size == (focus.FOCUS_WIDTH, focus.FOCUS_HEIGHT)
            shown = labels.read_focus(renderer, view, places)
            assert shown.size == (focus.FOCUS_WIDTH, focus.FOCUS_HEIGHT)
            if game != "giganten":  # a part of the board as it is
                assert shown == whole.cropped(renderer.place_box(view, places))
            named = {label.text for label in shown.of(["hex", "ahu", "space"])}
            ahus = "".join(label.text for label in shown.of(["ahu"]))  # names over lines
            for place in places:
                if game == "giganten":  # its row and its column, in the frame
                    assert place[0] in named and place[1:] in named, place
                elif game == "makemake" and place in makemake.SITE_XY:
                    assert makemake.site_label(place) in named, place
                else:
                    assert place in named or place in ahus, place
            assert not shown.unreadable(), shown.unreadable()[:3]
            assert not shown.covered()


FAR = {"giants": ["G1", "A13", "P5"], "giganten": ["A6", "H7"],
       "makemake": ["A1", "E5", "C3"]}
"""Places of each board far apart: more than one focus at the board's own scale holds."""


@pytest.mark.parametrize("game", sorted(FAR))
def test_a_few_places_far_apart_each_get_a_tile_at_the_board_s_own_scale(game: str) -> None:
    """A decision about two to four places far apart (two derricks to ship from) shows each
    on a tile of its own: one focus picture, its labels as tall as on the board, the places'
    names among them, nothing covering them."""
    renderer = importlib.import_module(f"render.{game}")
    module = game_module(game)
    seats = ["red", "grey", "blue", "green"] if game == "giganten" else \
        ["red", "blue", "green", "yellow"]
    view = module.view(module.new(seats, {}, seed=1), None)
    places = FAR[game]
    parts = renderer.focus_parts(view, places)
    assert len(parts) == len(places)
    png = renderer.focus(view, places)
    assert Image.open(io.BytesIO(png)).size == (FOCUS_WIDTH, FOCUS_HEIGHT)
    shown = labels.read_focus(renderer, view, places)
    named = shown.of(labels.NAMED)
    texts = {label.text for label in named}
    for place in places:
        wanted = {place[0], place[1:]} if game == "giganten" else {place}
        assert wanted <= texts, (place, sorted(texts))
    assert min(label.height for label in named) * 302 / FOCUS_WIDTH >= labels.MIN_SHOWN
    assert not shown.covered()
    for box, _ in parts:
        assert box[2] - box[0] < FOCUS_WIDTH, "a tile is a part of a focus, not a focus"
