"""Information Set Monte Carlo Tree Search: the ``strong`` AI level.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012). The searching seat knows only its
own view, so every iteration starts from a *determinisation*: a full state that the game's
``strong.determinize`` draws from that view alone, agreeing with everything the seat can see. The
iteration then walks one tree shared by every determinisation, choosing by UCB among the actions
that are legal in *this* determinisation (a child's count of how often it was available stands in
for its parent's visits), expands one node, plays the game's fast ``policy`` for a few steps and
backs up the game's ``evaluate`` (or the real result when the game ended).

Three things keep the search honest about what a seat may know:

- It is handed a view and the seat's legal actions, never a state.
- Chance (dice, draws) is drawn afresh in every iteration, so the tree does not learn one future.
- In a simultaneous decision (sealed bids) only the searching seat's own choice is searched; the
  other seats submit by ``policy`` from their own view of the determinisation, which does not show
  the sealed choice of anybody else, as at the table.

Everything here is pure: the only clock is the one a caller puts in the :class:`Budget`, and for
a budget in iterations the same seed gives the same decision.
"""

from __future__ import annotations

import importlib
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from rules.core import CHANCE, JSON, GameModule
from rules.registry import entry

EXPLORATION = 0.7
"""UCB's exploration constant; values are win shares in [0, 1]."""

DEFAULT_ITERATIONS = 200
"""The budget when a caller gives neither iterations nor seconds."""


class StrongGame(Protocol):
    """What ``rules.<game>.strong`` offers the search.

    A game may also set ``WIDENING`` (a float; 0 when absent): its candidates come best first,
    and a node below the root visited n times chooses among the first
    ``1 + int(WIDENING * sqrt(n))`` of them, expanding them in that order (progressive
    widening, Coulom 2007; Chaslot et al. 2008). With a few dozen iterations the others'
    answers are then their best few, not a sample of every answer they could give."""

    HORIZON: int

    def determinize(self, view: JSON, seat: str, rng: random.Random) -> Any: ...
    def evaluate(self, state: Any) -> dict[str, float]: ...
    def policy(self, state: Any, seat: str, rng: random.Random) -> Any: ...
    def candidates(self, state: Any, seat: str, actions: list[Any]) -> list[Any]: ...


@dataclass(frozen=True)
class Budget:
    """How long one decision may search: iterations, seconds on ``clock``, or both (the first
    reached stops it). Only an iteration budget makes a decision repeatable."""

    iterations: int | None = None
    seconds: float | None = None
    clock: Callable[[], float] | None = None

    def stopper(self) -> Callable[[int], bool]:
        """A test ``done(iterations_so_far)``; at least one iteration always runs."""
        limit = self.iterations
        if self.seconds is None or self.clock is None:
            cap = DEFAULT_ITERATIONS if limit is None else limit
            return lambda n: n >= cap
        clock = self.clock
        deadline = clock() + self.seconds
        if limit is None:
            return lambda n: n > 0 and clock() >= deadline
        return lambda n: n >= limit or (n > 0 and clock() >= deadline)


@dataclass
class Node:
    """One action's statistics under the path that leads to it."""

    actor: str = ""
    visits: int = 0
    available: int = 0
    value: float = 0.0
    children: dict[str, Node] = field(default_factory=dict)


@dataclass
class Outcome:
    """A decision and what the search saw on the way (for logs, tests and matches)."""

    action: Any
    iterations: int
    visits: dict[str, int]


def strong_game(module: GameModule) -> StrongGame:
    """The game's ``strong`` module (determinisation, evaluation, rollout policy), as its
    registry entry names it (ValueError for a game without one)."""
    name = entry(module.NAME).strong
    if name is None:
        raise ValueError(f"{module.NAME} has no strong AI")
    return cast(StrongGame, importlib.import_module(name))


def search(module: GameModule, view: JSON, seat: str, actions: list[Any],
           rng: random.Random, budget: Budget | None = None,
           game: StrongGame | None = None) -> Outcome:
    """The action ISMCTS picks for ``seat`` from ``view`` among its legal ``actions``
    (``game``: the game's strong module, found by name unless given)."""
    if len(actions) == 1:
        return Outcome(actions[0], 0, {})
    game = game or strong_game(module)
    done = (budget or Budget()).stopper()
    root = Node(actor=seat)
    offered = {str(a) for a in actions}
    n = 0
    while not done(n):
        _iterate(module, game, root, game.determinize(view, seat, rng), seat, offered, rng)
        n += 1
    by_text = {str(a): a for a in actions}
    ranked = sorted(((child.visits, child.value, text) for text, child in root.children.items()
                     if text in by_text), reverse=True)
    if not ranked:
        return Outcome(game.policy(game.determinize(view, seat, rng), seat, rng), n, {})
    return Outcome(by_text[ranked[0][2]], n,
                   {text: child.visits for text, child in root.children.items()})


def _iterate(module: GameModule, game: StrongGame, root: Node, state: Any, me: str,
             offered: set[str], rng: random.Random) -> None:
    path: list[Node] = []
    node = root
    expanded = False
    widening: float = getattr(game, "WIDENING", 0.0)
    while not expanded:
        pending = module.pending(state).seats
        if not pending:
            break
        if pending == (CHANCE,):
            state, _ = module.apply(state, CHANCE, module.chance(state, rng))
            continue
        if len(pending) > 1:
            # a simultaneous decision: the others submit blind, by policy; then the tree goes on
            # with the one seat it searches (ours if we are among them)
            actor = me if me in pending else pending[0]
            for other in pending:
                if other != actor:
                    state, _ = module.apply(state, other, game.policy(state, other, rng))
            if module.pending(state).seats != (actor,):
                continue
        else:
            actor = pending[0]
        legal = module.legal(state, actor)
        choices = game.candidates(state, actor, legal) if len(legal) > 1 else legal
        if node is root:
            choices = [a for a in choices if str(a) in offered] or choices
        elif widening:
            choices = choices[:1 + int(widening * math.sqrt(node.visits))]
        texts = [str(a) for a in choices]
        for text in texts:
            child = node.children.get(text)
            if child is not None:
                child.available += 1
        fresh = [i for i, text in enumerate(texts) if text not in node.children]
        if fresh:
            pick = fresh[0] if widening else fresh[rng.randrange(len(fresh))]
            child = node.children[texts[pick]] = Node(actor=actor, available=1)
            expanded = True
        else:
            pick = _ucb(node, texts)
            child = node.children[texts[pick]]
        path.append(child)
        node = child
        state, _ = module.apply(state, actor, choices[pick])
    values = _rollout(module, game, state, rng)
    for visited in path:
        visited.visits += 1
        visited.value += values.get(visited.actor, 0.0)


def _ucb(node: Node, texts: list[str]) -> int:
    best, best_score = 0, -1.0
    for i, text in enumerate(texts):
        child = node.children[text]
        score = child.value / child.visits + EXPLORATION * math.sqrt(
            math.log(child.available) / child.visits)
        if score > best_score:
            best, best_score = i, score
    return best


def _rollout(module: GameModule, game: StrongGame, state: Any,
             rng: random.Random) -> dict[str, float]:
    steps = 0
    while True:
        pending = module.pending(state).seats
        if not pending:
            return _shares(module, state)
        if pending == (CHANCE,):
            state, _ = module.apply(state, CHANCE, module.chance(state, rng))
            continue
        if steps >= game.HORIZON:
            return game.evaluate(state)
        actor = pending[0]
        state, _ = module.apply(state, actor, game.policy(state, actor, rng))
        steps += 1


def _shares(module: GameModule, state: Any) -> dict[str, float]:
    result = module.result(state)
    if result is None or not result.winners:
        seats = module.seats_of(state)
        return {s: 1 / len(seats) for s in seats}
    return {s: 1 / len(result.winners) for s in result.winners}
