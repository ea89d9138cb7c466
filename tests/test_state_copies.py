"""Properties of every engine's state copies over random play (hypothesis picks the seats and
the seed of a random player): ``apply`` never changes the state it is given, its result and
``to_json`` share no mutable container with that state, and ``from_json`` keeps nothing of
the data it was given."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core import CHANCE, GameModule, IllegalAction
from rules.plain import clone, columns, rows
from rules.registry import GAME_NAMES, game_module

SHORT: dict[str, dict[str, Any]] = {
    "giants": {"round_limit": 3},
    "giganten": {},
    "makemake": {"round_limit": 8, "repetition": True},
}
"""Options that keep a random game short (Giganten always lasts its rounds); Make Make also
keeps its positions."""

IMMUTABLE = (str, int, float, bool, type(None), tuple, frozenset)

games = st.tuples(st.sampled_from(["few", "most"]), st.integers(0, 2**32))


def containers(value: Any, path: str = "") -> Iterator[tuple[int, str, Any]]:
    """``(id, path, object)`` of every mutable container reachable from ``value``: dicts,
    lists, sets and dataclass instances that are not frozen (tuples and frozen dataclasses
    are walked through, not listed)."""
    if isinstance(value, dict):
        yield id(value), path, value
        for key, item in value.items():
            yield from containers(item, f"{path}.{key}")
    elif isinstance(value, list | set):
        yield id(value), path, value
        for i, item in enumerate(value):
            yield from containers(item, f"{path}[{i}]")
    elif isinstance(value, tuple | frozenset):
        for i, item in enumerate(value):
            yield from containers(item, f"{path}({i})")
    elif is_dataclass(value) and not isinstance(value, type):
        if not value.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            yield id(value), path, value
        for f in fields(value):
            yield from containers(getattr(value, f.name), f"{path}.{f.name}")
    else:
        assert isinstance(value, IMMUTABLE), f"{path}: unexpected {type(value).__name__}"


def shared(a: Any, b: Any) -> list[str]:
    """The paths (in ``b``) of mutable containers that ``a`` and ``b`` both reach."""
    ids = {i for i, _, _ in containers(a)}
    return [path or "(top)" for i, path, _ in containers(b) if i in ids]


def vandalise(data: Any) -> None:
    """Change every container reachable from ``data`` in place: a new key in each dict, every
    scalar value replaced, an item appended to each list."""
    for _, _, obj in list(containers(data)):
        if isinstance(obj, dict):
            for key, item in obj.items():
                if isinstance(item, IMMUTABLE):
                    obj[key] = "vandal"
            obj["vandal"] = ["vandal"]
        elif isinstance(obj, list):
            obj.append("vandal")


def text(module: GameModule, state: Any) -> str:
    return json.dumps(module.to_json(state), ensure_ascii=False)


class Player:
    """A random player that also remembers every action it saw, to try them again later
    (by anyone, in other positions: most of those are rejected)."""

    def __init__(self, module: GameModule, seed: int) -> None:
        self.module, self.rng = module, random.Random(seed)
        self.seen: list[Any] = []

    def legal_step(self, state: Any) -> tuple[str, Any]:
        pending = self.module.pending(state).seats
        if pending == (CHANCE,):
            actor, action = CHANCE, self.module.chance(state, self.rng)
        else:
            actor = self.rng.choice(pending)
            actions = self.module.legal(state, actor)
            assert actions, f"{actor} is pending without a legal action"
            action = self.rng.choice(actions)
            self.seen.extend(self.rng.sample(actions, min(3, len(actions))))
        self.seen.append(action)
        return actor, action

    def any_step(self, state: Any) -> tuple[str, Any]:
        if not self.seen:
            self.legal_step(state)
        actor = self.rng.choice([*self.module.seats_of(state), CHANCE])
        return actor, self.rng.choice(self.seen)


def start(name: str, params: tuple[str, int]) -> tuple[GameModule, Any, Player]:
    count, seed = params
    module = game_module(name)
    seats = module.MIN_SEATS if count == "few" else module.MAX_SEATS
    state = module.new(list(module.COLOURS[:seats]), SHORT[name], seed=seed)
    return module, state, Player(module, seed)


def positions(name: str, params: tuple[str, int]) -> Iterator[tuple[GameModule, Any, Player]]:
    """Every position of one random game, the first and the last included."""
    module, state, player = start(name, params)
    yield module, state, player
    for _ in range(5000):
        if not module.pending(state).seats:
            return
        state, _ = module.apply(state, *player.legal_step(state))
        yield module, state, player
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=4)
@given(games)
def test_apply_never_changes_the_state_it_is_given(name: str, params: tuple[str, int]
                                                   ) -> None:
    """Neither a legal action nor a rejected one changes the state passed in, and the state
    returned shares no mutable container with it."""
    rejected = 0
    for module, state, player in positions(name, params):
        if not module.pending(state).seats:
            break
        before = text(module, state)
        try:
            module.apply(state, *player.any_step(state))
        except IllegalAction:
            rejected += 1
        assert text(module, state) == before, "a rejected action changed the state"
        after, _ = module.apply(state, *player.legal_step(state))
        assert text(module, state) == before, "apply changed the state it was given"
        assert not shared(state, after), "apply's result shares containers with its input"
    assert rejected, "the game tried no rejected action"


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=4)
@given(games)
def test_to_json_shares_nothing_with_the_state(name: str, params: tuple[str, int]) -> None:
    for module, state, _ in positions(name, params):
        data = module.to_json(state)
        assert not shared(state, data), "to_json shares containers with the state"
        before = json.dumps(data, ensure_ascii=False)
        vandalise(data)
        assert text(module, state) == before, "changing to_json's output changed the state"


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=4)
@given(games)
def test_from_json_round_trips_and_keeps_nothing_of_its_input(name: str,
                                                              params: tuple[str, int]) -> None:
    for module, state, _ in positions(name, params):
        data = json.loads(text(module, state))
        back = module.from_json(data)
        assert back == state and text(module, back) == text(module, state)
        assert not shared(data, back), "from_json keeps containers of its input"
        copied = state.copy()
        assert copied == state and not shared(state, copied), "State.copy shares containers"
        before = text(module, back)
        vandalise(data)
        assert text(module, back) == before, "changing from_json's input changed the state"


def test_clone_copies_every_container_and_shares_only_what_is_immutable() -> None:
    frozen = ("a", (1, None), 2.5)
    value = {"k": [1, {"x": [True]}], "t": frozen, "mixed": ("a", [1]), "s": "text"}
    copied = clone(value)
    assert copied == value and not shared(value, copied)
    assert copied["t"] is frozen and copied["s"] is value["s"]
    assert copied["mixed"] is not value["mixed"] and copied["mixed"][1] is not value["mixed"][1]
    with pytest.raises(TypeError):
        clone({"k": {1, 2}})
    with pytest.raises(TypeError):
        clone([object()])


def test_rows_and_columns_copy_one_level_down() -> None:
    table = {"a": {"x": 1}, "b": {"y": None}}
    lists = {"a": [1, 2], "b": []}
    assert rows(table) == table and not shared(table, rows(table))
    assert columns(lists) == lists and not shared(lists, columns(lists))
