"""The guided choice: a decision made by taps, one part of the move a step.

Pure functions over a game's legal moves and its :class:`GameUI`'s words for their parts (no
Discord): :func:`guide` says the next step (or the chosen move), :func:`back` the step before.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from bot.constants import MAX_LABEL
from bot.games._ui import DONE, MAX_OPTIONS, Chosen, GameUI, StaleChoice, Step, StepOption, fit
from render.i18n import t


def guide(ui: GameUI, kind: str, legal: Sequence[str], chosen: Sequence[str], lang: str,
          group: str = "") -> Step | Chosen:
    """The next step after ``chosen`` among the ``legal`` moves of a decision of ``kind``, or
    the chosen move once one is left.

    A step with a single option is taken at once (its part joins ``chosen``), so every step
    returned asks a real question. More than 25 options come as groups first (the game's
    :meth:`GameUI.part_group`, else ranges); ``group`` picks one of them (groups are one level
    deep, so a step holds at most 25 x 25 options). :data:`DONE` last in ``chosen`` takes the
    move that ends there. Raises
    :class:`StaleChoice` when ``chosen`` or ``group`` fits no legal move any more."""
    moves = _split(ui, kind, tuple(legal))
    chosen = tuple(chosen)
    if chosen and chosen[-1] == DONE:
        done = _after(moves, chosen[:-1])[0]
        if not done:
            raise StaleChoice(" ".join(chosen))
        return Chosen(done, fit(ui.move_words(done, lang), MAX_LABEL))
    done, parts = _after(moves, chosen)
    while len(parts) == 1 and not done:
        chosen += (parts[0],)
        group = ""
        done, parts = _after(moves, chosen)
    if not done and not parts:
        raise StaleChoice(" ".join(chosen))
    if done and not parts:
        return Chosen(done, fit(ui.move_words(done, lang), MAX_LABEL))
    options = _options(ui, kind, chosen, parts + ((DONE,) if done else ()), lang)
    prompt = ui.part_prompt(kind, chosen, lang)
    if not _grouped_step(ui, kind, chosen, options):
        if group:
            raise StaleChoice(group)
        return Step(prompt, options, chosen)
    if not group:
        return Step(prompt, tuple(StepOption("", name, name) for name in _group_names(options)),
                    chosen)
    inside = tuple(option for option in options if option.group == group)
    if not inside:
        raise StaleChoice(group)
    if len(inside) == 1:  # a group of one is a single option: taken at once
        return guide(ui, kind, legal, (*chosen, inside[0].part), lang)
    return Step(prompt, inside, chosen, group)


def back(ui: GameUI, kind: str, legal: Sequence[str], chosen: Sequence[str], lang: str,
         group: str = "") -> tuple[tuple[str, ...], str] | None:
    """Where Back leads from the step at ``chosen`` (and ``group``): the ``(chosen, group)``
    of the step before, dropping the last tapped part with the parts taken automatically
    after it; from a group's options, the list of groups. None: this is the first step."""
    chosen = tuple(chosen)
    if group:
        return chosen, ""
    moves = _split(ui, kind, tuple(legal))
    for cut in range(len(chosen) - 1, -1, -1):
        done, parts = _after(moves, chosen[:cut])
        if len(parts) > 1 or done:
            options = _options(ui, kind, chosen[:cut], parts + ((DONE,) if done else ()), lang)
            if not _grouped_step(ui, kind, chosen[:cut], options):
                return chosen[:cut], ""
            group = next((o.group for o in options if o.part == chosen[cut]), "")
            alone = sum(option.group == group for option in options) == 1
            return chosen[:cut], "" if alone else group  # a group of one was no step
    return None


def within(ui: GameUI, kind: str, legal: Sequence[str], step: Step) -> tuple[str, ...]:
    """The legal moves a ``step``'s options lead to: those of its chosen parts, and of its
    group when it shows one group's options (all of them when it lists the groups). What the
    step is about, on the board: its places are these moves' places."""
    moves = _split(ui, kind, tuple(legal))
    size = len(step.chosen)
    parts = None if step.groups else {option.part for option in step.options}
    return tuple(move for move, split in moves if split[:size] == step.chosen and (
        parts is None or (split[size] if len(split) > size else DONE) in parts))


@functools.lru_cache(maxsize=16)
def _split(ui: GameUI, kind: str,
           legal: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each legal move with its parts, kept for the few lists of moves in use: a step and the
    checks of its options ask for the same list many times."""
    return tuple((move, ui.move_parts(kind, move)) for move in legal)


def _after(moves: Sequence[tuple[str, tuple[str, ...]]],
           chosen: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The move ``chosen`` completes ("" if none) and the parts that may follow it, in the
    order of the legal moves."""
    done = ""
    parts: dict[str, None] = {}
    for move, split in moves:
        if split[:len(chosen)] != chosen:
            continue
        if len(split) == len(chosen):
            done = done or move
        else:
            parts[split[len(chosen)]] = None
    return done, tuple(parts)


def _grouped_step(ui: GameUI, kind: str, chosen: tuple[str, ...],
                  options: tuple[StepOption, ...]) -> bool:
    """Whether a step shows its options' groups first: more than 25 options, or places
    spread wider than one close-up (:meth:`GameUI.spread`) in more than one group."""
    return len(options) > MAX_OPTIONS or len({option.group for option in options}) > 1


def _options(ui: GameUI, kind: str, chosen: tuple[str, ...], parts: tuple[str, ...],
             lang: str) -> tuple[StepOption, ...]:
    """The options for ``parts`` in words; with more than 25, or spread places, each carries
    its group."""
    labels = [fit(ui.part_label(kind, chosen, part, lang), MAX_LABEL) for part in parts]
    if len(parts) <= MAX_OPTIONS and not ui.spread(kind, chosen, parts):
        return tuple(StepOption(part, label) for part, label in zip(parts, labels, strict=True))
    named = [ui.part_group(kind, chosen, part, lang) for part in parts]
    groups = _grouped(named, labels, lang)
    return tuple(StepOption(part, label, name)
                 for part, label, name in zip(parts, labels, groups, strict=True))


def _grouped(named: list[str], labels: list[str], lang: str) -> list[str]:
    """Each option's group: the game's names, a group of more than 25 split in numbered
    parts; ranges of labels when the game names none (or too many) groups."""
    if all(named):
        sizes: dict[str, int] = {}
        for name in named:
            sizes[name] = sizes.get(name, 0) + 1
        seen: dict[str, int] = {}
        out = []
        for name in named:
            if sizes[name] > MAX_OPTIONS:
                count = -(-sizes[name] // MAX_OPTIONS)
                share = -(-sizes[name] // count)
                index = seen.get(name, 0)
                seen[name] = index + 1
                name = fit(t("bot.taps.part", lang, group=name, n=index // share + 1), MAX_LABEL)
            out.append(name)
        if len(set(out)) <= MAX_OPTIONS:
            return out
    count = -(-len(labels) // MAX_OPTIONS)
    share = -(-len(labels) // count)
    out = []
    for start in range(0, len(labels), share):
        chunk = labels[start:start + share]
        name = fit(t("bot.taps.range", lang, first=chunk[0], last=chunk[-1]), MAX_LABEL)
        while name in out:
            name = fit(name + "'", MAX_LABEL)
        out.extend([name] * len(chunk))
    return out


def _group_names(options: tuple[StepOption, ...]) -> tuple[str, ...]:
    """The groups of some options, in the order they first come."""
    return tuple(dict.fromkeys(option.group for option in options))
