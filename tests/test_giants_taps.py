"""Giants decisions by taps (issue 32): every legal move of the positions of a whole game is
reached by the guided steps, each step holds at most 25 options in the player's own words, no
step asks "just this?", and a decision takes few taps (a worker two: its row, then its hex with
how many logs; the sorcerer or the chief at most four).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from bot.constants import MAX_LABEL
from bot.games import DONE, Chosen, Step, guide
from bot.games.giants import UI, _taps
from bot.games.giants._taps import BAND
from render import giants as giants_art
from render import i18n
from render.focus import FOCUS_HEIGHT, FOCUS_WIDTH
from render.i18n import LANGUAGES
from rules.ai import choose
from rules.core import CHANCE, forced
from rules.registry import game_module

SEED = 7
giants = game_module("giants")
KINDS = ("bid", "choose", "place", "transport", "endround")
Decision = tuple[str, tuple[str, ...], str]
"""A decision of a seat: its kind, its legal moves and the move the seat made."""


@cache
def decisions() -> tuple[Decision, ...]:
    """Every decision of one four-seat game: two seats play as the greedy AI, two at random
    (they take logs, send the sorcerer and the chief to hex actions, wander far)."""
    rng = random.Random(SEED)
    state = giants.new(["red", "blue", "green", "yellow"], seed=SEED)
    out: list[Decision] = []
    while giants.result(state) is None:
        pending = giants.pending(state)
        if pending.seats == (CHANCE,):
            state, _ = giants.apply(state, CHANCE, giants.chance(state, rng))
            continue
        seat = pending.seats[0]
        legal = giants.legal(state, seat)
        action = choose(giants, state, seat, "greedy" if seat in ("red", "blue") else "random",
                        rng)
        if forced(legal) is None:
            out.append((pending.kind, tuple(str(a) for a in legal), str(action)))
        state, _ = giants.apply(state, seat, action)
    return tuple(out)


def sample() -> list[Decision]:
    """The three largest decisions of each kind and every fifth other one."""
    out: list[Decision] = []
    for kind in KINDS:
        mine = [d for d in decisions() if d[0] == kind]
        out += sorted(mine, key=lambda d: -len(d[1]))[:3] + mine[::5]
    return out


def walk(kind: str, legal: tuple[str, ...], lang: str) -> list[str]:
    """Every move the steps lead to, each step checked on the way."""
    reached: list[str] = []
    todo: list[tuple[tuple[str, ...], str]] = [((), "")]
    while todo:
        chosen, group = todo.pop()
        step = guide(UI, kind, legal, chosen, lang, group)
        if isinstance(step, Chosen):
            reached.append(step.notation)
            continue
        assert step.prompt and 0 < len(step.options) <= 25
        assert all(0 < len(o.label) <= MAX_LABEL for o in step.options)
        assert DONE not in [o.part for o in step.options], (kind, chosen)
        assert len({o.label for o in step.options}) == len(step.options), step
        if step.groups:
            todo += [(step.chosen, o.label) for o in step.options]
        else:
            todo += [((*step.chosen, o.part), "") for o in step.options]
    return reached


@pytest.mark.parametrize("kind", KINDS)
def test_every_legal_move_is_reached_once_by_the_steps(kind: str) -> None:
    mine = [d for d in sample() if d[0] == kind]
    assert mine
    for _, legal, _ in mine:
        assert Counter(walk(kind, legal, "en")) == Counter(legal)


def test_a_move_s_parts_are_its_notation() -> None:
    for kind, legal, _ in sample():
        for move in legal:
            assert " ".join(UI.move_parts(kind, move)) == move


def taps(kind: str, legal: tuple[str, ...], move: str) -> int:
    """The taps that make ``move``: one per step on the way (a group, then its option)."""
    parts = UI.move_parts(kind, move)
    found = guide(UI, kind, legal, (), "en")
    count = 0
    while isinstance(found, Step):
        count += 1
        if found.groups:
            found = next(inner for option in found.options
                         for inner in [guide(UI, kind, legal, found.chosen, "en", option.group)]
                         if (inner.notation == move if isinstance(inner, Chosen)
                             else inner.chosen == parts[:len(inner.chosen)] and (
                                 inner.groups or parts[len(inner.chosen)]
                                 in [o.part for o in inner.options])))
            continue
        found = guide(UI, kind, legal, (*found.chosen, parts[len(found.chosen)]), "en")
    assert found.notation == move
    return count


def test_a_decision_takes_few_taps() -> None:
    made = [(kind, move, taps(kind, legal, move)) for kind, legal, move in decisions()]
    every = sorted(n for _, _, n in made)
    assert every[len(every) // 2] <= 2
    assert every[len(every) * 95 // 100] <= 4
    most = {kind: max(n for k, _, n in made if k == kind) for kind in KINDS}
    # a transport whose ends are spread over the island takes a band first, so that its ends
    # are shown close up (bot.table.live.step_picture): one tap more, read on a phone
    assert most == {"bid": 2, "choose": 1, "place": 4, "transport": 4, "endround": 1}
    workers = [n for _, move, n in made if move.startswith("place worker ")]
    assert workers and set(workers) == {2}, "a worker: its row, then its hex with the logs"


def test_a_worker_is_placed_in_two_taps_its_row_then_its_hex_with_logs() -> None:
    kind, legal, _ = max((d for d in decisions() if d[0] == "place"
                          and "place worker K8 1logs" in d[1]), key=lambda d: len(d[1]))
    first = guide(UI, kind, legal, (), "en")
    assert isinstance(first, Step) and first.groups
    assert first.prompt == "What do you place?"
    groups = [o.label for o in first.options]
    assert groups[:3] == ["A worker: rows 1 and 2, G1 to I2",
                          "A worker: rows 3 and 4, E3 to F4",
                          "A worker: rows 3 and 4, G3 to J4"]
    assert {"A worker: rows 7 and 8, I7 to K8", "The sorcerer", "Pass"} <= set(groups)
    row = guide(UI, kind, legal, (), "en", "A worker: rows 7 and 8, I7 to K8")
    assert isinstance(row, Step)
    assert [o.label for o in row.options][:3] == [
        "Place a worker on I7", "Place a worker on I7 with 1 log",
        "Place a worker on I7 with 2 logs"]
    end = guide(UI, kind, legal, ("place worker K8 1logs",), "en")
    assert end == Chosen("place worker K8 1logs", "place a worker on K8 with 1 log")
    figure = guide(UI, kind, legal, (), "en", "The sorcerer")
    assert isinstance(figure, Step)
    assert [(o.part, o.label) for o in figure.options] == [
        ("place sorcerer", "The sorcerer on a hex, no action"),
        ("sorcerer", "The sorcerer: a hex's action")]
    where = guide(UI, kind, legal, ("place sorcerer",), "en")
    assert isinstance(where, Step) and where.groups
    assert where.prompt == "Where does the sorcerer go, and with how many logs?"
    assert "Rows 7 and 8: I7 to K8" in [o.label for o in where.options]


def test_each_band_of_hexes_fits_one_focus_at_a_phone_s_reading_size() -> None:
    """A band's step shows its hexes close up (bot.table.live.step_picture): the part of the
    board around them is no larger than a focus picture, whose labels a phone shows 7 points
    tall; and a band's hexes with their three log counts fit one step."""
    bands: dict[tuple[int, int, str, str], list[str]] = {}
    for label, band in BAND.items():
        bands.setdefault(band, []).append(label)
    assert 10 <= len(bands) <= 21, "a worker's bands and the four other choices fit one step"
    for band, labels in bands.items():
        box = giants_art.place_box({}, labels)
        assert (box[2] - box[0], box[3] - box[1]) == (FOCUS_WIDTH, FOCUS_HEIGHT), band
        assert len(labels) * 3 <= 25, band


def test_every_label_comes_from_the_locale_s_own_catalogue(
        monkeypatch: pytest.MonkeyPatch) -> None:
    missing: set[tuple[str, str]] = set()
    real: Callable[..., str] = i18n.t

    def own(key: str, lang: str = "en", /, **params: Any) -> str:
        if key not in i18n.catalogue(lang):
            missing.add((lang, key))
        return real(key, lang, **params)

    monkeypatch.setattr(_taps, "t", own)
    steps = {(kind, parts[:i], parts[i]) for kind, legal, _ in sample() for move in legal
             for parts in [UI.move_parts(kind, move)] for i in range(len(parts))}
    for lang in LANGUAGES:
        for kind, chosen, part in steps:
            texts = (UI.part_prompt(kind, chosen, lang),
                     UI.part_label(kind, chosen, part, lang),
                     UI.part_group(kind, chosen, part, lang))
            grouped = kind in ("bid", "transport", "endround") or (kind == "place" and chosen)
            assert texts[0] and texts[1] and (texts[2] or not grouped), (kind, part)
            assert not any("{" in text for text in texts), (kind, chosen, part)
    assert missing == set()


def test_labels_are_plain_words_of_the_language() -> None:
    for kind, legal, _ in sample()[::6]:
        for lang in LANGUAGES:
            step = guide(UI, kind, legal, (), lang)
            if isinstance(step, Step):
                for text in (step.prompt, *(o.label for o in step.options)):
                    assert "bot.giants" not in text and "{" not in text, text
                    if lang.startswith("zh"):
                        assert any("\u4e00" <= c <= "\u9fff" for c in text), text
