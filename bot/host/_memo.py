"""The table's memo of a game: what was worked out of its latest few positions (views, legal
actions, board keys), and what depends on more than the position but changes far less often
(the lobby card). A move's table asks for the same answers many times, and the next move's
table for the previous position's again (the end of a stage): each is worked out once.

The memo is not the game: it holds nothing the host decides with, only answers that can be
worked out again from a position, so forgetting them changes nothing but the time taken.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

KEEP_WORKED_OUT = 4
"""Positions whose views and legal actions a session remembers (:meth:`Memo.worked_out`):
the current one, and the few before it that the table may still show."""


class Memo:
    """Answers worked out of a game's positions, by question (see the module's docstring)."""

    def __init__(self, positions: int = KEEP_WORKED_OUT) -> None:
        self.positions = positions
        self._by_state: dict[int, tuple[Any, dict[Hashable, Any]]] = {}
        """By the state's ``id``, the state itself (so that the id stays its own) and the
        answers by question."""
        self._kept: dict[str, tuple[Hashable, Any]] = {}
        """What :meth:`kept` remembers: by name, the key it was worked out for and the answer."""

    def worked_out(self, state: Any, question: Hashable, work: Callable[[Any], T]) -> T:
        """``work(state)``, remembered under ``question`` while ``state`` is one of the latest
        few positions asked about: one move's table asks for the same views, legal actions
        and board keys many times, and the next one for the previous position's again (the
        end of a stage). ``work`` must be a pure function of the position: states are never
        changed in place (a move, a take-back or a reload brings another state object)."""
        kept = self._by_state.get(id(state))
        if kept is None or kept[0] is not state:
            kept = (state, {})
            if len(self._by_state) >= self.positions:
                del self._by_state[next(iter(self._by_state))]  # the oldest position asked about
            self._by_state[id(state)] = kept
        answers = kept[1]
        if question not in answers:
            answers[question] = work(state)
        return answers[question]

    def kept(self, name: str, key: Hashable, work: Callable[[], T]) -> T:
        """``work()``, remembered under ``name`` while ``key`` stays equal: for what depends
        on more than the position, and changes far less often (the table's lobby card). The
        key must hold everything the answer depends on."""
        found = self._kept.get(name)
        if found is not None and found[0] == key:
            return found[1]
        answer = work()
        self._kept[name] = (key, answer)
        return answer
