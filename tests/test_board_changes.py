"""What changed on the board (the labels the table highlights) and the status embed's facts.

Whole AI games are played through the engines: every label ``changed`` returns must be a label on
that game's board, the renderer must accept it, and nothing may come from a private event. The
facts are made from the public view only: a seat's own view, or other secrets, change nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest

from bot.games.giants import _changes as giants_changes
from bot.games.giants import _facts as giants_facts
from bot.games.giganten import _changes as giganten_changes
from bot.games.giganten import _facts as giganten_facts
from bot.games.makemake import _changes as makemake_changes
from bot.games.makemake import _facts as makemake_facts
from render import giants as giants_board
from render import giganten as giganten_board
from render import makemake as makemake_board
from render.i18n import LANGUAGES, t
from rules import giants, giganten, makemake
from rules.ai import choose
from rules.core import CHANCE, SEALED, Event
from rules.giants import board as giants_rules_board
from rules.giganten import board as giganten_rules_board
from rules.makemake import board as makemake_rules_board
from rules.record import Game, parse_header, replay

CHANGED: dict[str, Callable[[list[Event]], set[str]]] = {
    "makemake": makemake_changes.changed, "giants": giants_changes.changed,
    "giganten": giganten_changes.changed}
FACTS: dict[str, Callable[[dict[str, Any], str, dict[str, str]], list[str]]] = {
    "makemake": makemake_facts.facts, "giants": giants_facts.facts,
    "giganten": giganten_facts.facts}
MODULES = {"makemake": makemake, "giants": giants, "giganten": giganten}
BOARD_LABELS: dict[str, frozenset[str]] = {
    "makemake": frozenset(makemake_rules_board.HEXES) | frozenset(makemake_rules_board.SITES),
    "giants": frozenset(giants_rules_board.HEXES) | frozenset(giants_rules_board.AHUS),
    "giganten": frozenset(giganten_rules_board.LABELS)
    | frozenset(giganten_rules_board.COMPANIES),
}
"""Every label a player names on each board: hexes and sites; hexes and ahus; spaces and
companies."""
RENDERED: dict[str, frozenset[str]] = {
    "makemake": frozenset(makemake_board.HEX_XY) | frozenset(makemake_board.SITE_XY),
    "giants": frozenset(giants_board.HEX_CR) | frozenset(giants_board.AHU_DATA),
    "giganten": frozenset(giganten_board.GRID) | frozenset(giganten_board.COMPANIES),
}
"""The labels each board image can highlight."""
PLAYS = [("makemake", 4, 2, "greedy"), ("makemake", 3, 5, "random"),
         ("giants", 4, 11, "greedy"), ("giants", 5, 3, "random"), ("giants", 3, 1, "greedy"),
         ("giganten", 4, 3, "greedy"), ("giganten", 3, 8, "random")]
NAMES = {"red": "Hotu", "blue": "Tuki", "green": "Ana", "yellow": "Rapa", "purple": "Moe",
         "grey": "Howard"}


@dataclass
class Step:
    actor: str
    events: list[Event]
    state: Any


@dataclass
class Played:
    game: str
    steps: list[Step] = field(default_factory=list)

    def mid(self) -> Any:
        return self.steps[len(self.steps) // 2].state


@cache
def play(game: str, seats: int, seed: int, level: str) -> Played:
    """A whole game of AI seats, with the events of every applied line."""
    module = MODULES[game]
    played = Game.start(parse_header(
        f"game {game} {' '.join(module.COLOURS[:seats])} seed={seed}"))
    rng = random.Random(seed)
    out = Played(game)
    while played.pending():
        pending = played.pending()
        if pending == (CHANCE,):
            actor, action = CHANCE, played.next_chance()
        else:
            actor = pending[0]
            action = choose(module, played.state, actor, level, rng)
        events = played.apply(actor, action)
        out.steps.append(Step(actor, events, played.state))
        assert len(out.steps) < 5000
    return out


# --- changed -----------------------------------------------------------------------------------

def test_the_board_labels_are_the_rendered_ones() -> None:
    assert BOARD_LABELS == RENDERED


@pytest.mark.parametrize("spec", PLAYS, ids=lambda s: "-".join(map(str, s)))
def test_changed_names_only_real_board_labels(spec: tuple[str, int, int, str]) -> None:
    played = play(*spec)
    changed = CHANGED[played.game]
    found: set[str] = set()
    for step in played.steps:
        labels = changed(step.events)
        assert isinstance(labels, set)
        assert labels <= BOARD_LABELS[played.game], (step.actor, step.events)
        found |= labels
    assert len(found) > 10


@pytest.mark.parametrize("game", ["makemake", "giants", "giganten"])
def test_changed_covers_every_kind_of_label(game: str) -> None:
    found = {label for spec in PLAYS if spec[0] == game for step in play(*spec).steps
             for label in CHANGED[game](step.events)}
    kinds = {
        "makemake": (makemake_rules_board.HEXES, makemake_rules_board.SITES),
        "giants": (giants_rules_board.HEXES, giants_rules_board.AHUS),
        "giganten": (giganten_rules_board.LABELS, giganten_rules_board.COMPANIES),
    }[game]
    for labels in kinds:
        assert found & set(labels), game


def test_changed_follows_the_actions() -> None:
    game, _ = replay("game makemake red blue green\nred place E1 1\nblue place B2 1\n")
    assert makemake_changes.changed(game.apply("green", makemake.parse("place B4 1"))) == {"B4"}
    played = play("giants", 4, 11, "greedy")
    for step in played.steps:
        for event in step.events:
            if event["kind"] == "moved":
                assert set(event["path"]) <= giants_changes.changed(step.events)
            if event["kind"] == "erected":
                assert event["ahu"] in giants_changes.changed(step.events)
    played = play("giganten", 4, 3, "greedy")
    for step in played.steps:
        for event in step.events:
            if event["kind"] == "drive":
                assert set(event["path"]) <= giganten_changes.changed(step.events)
            if event["kind"] == "build":
                assert event["label"] in giganten_changes.changed(step.events)


@pytest.mark.parametrize("spec", PLAYS, ids=lambda s: "-".join(map(str, s)))
def test_private_events_add_nothing(spec: tuple[str, int, int, str]) -> None:
    played = play(*spec)
    changed = CHANGED[played.game]
    for step in played.steps:
        public = [e for e in step.events
                  if not isinstance(e.get("private"), str) and not e.get(SEALED)]
        assert changed(step.events) == changed(public)
        for event in step.events:
            if isinstance(event.get("private"), str) or event.get(SEALED):
                assert changed([event]) == set(), event


@pytest.mark.parametrize(("game", "event"), [
    ("giants", {"kind": "hex_action", "seat": "red", "hex": "B10", "gained": {}, "private": "red"}),
    ("giants", {"kind": "peeked", "seat": "red", "ahu": "tongariki", "owner": "blue",
                "private": "red"}),
    ("giants", {"kind": "placed", "seat": "red", "hex": "F5", SEALED: "red"}),
    ("giants", {"kind": "moved", "path": [], "private": {"seat": "red", "path": ["F5"]}}),
    ("makemake", {"kind": "claim", "hex": "B2", "private": "red"}),
    ("makemake", {"kind": "manu_placed", "sites": [], "private": {"sites": ["S01"]}}),
    ("giganten", {"kind": "drive", "path": [], "private": {"seat": "red", "path": ["C5"]}}),
    ("giganten", {"kind": "build", "label": "C5", "private": "red"}),
    ("giganten", {"kind": "licences", "seat": "red", "count": 2,
                  "private": {"seat": "red", "values": [1, 2], "label": "C5"}}),
])
def test_nothing_is_read_from_a_private_part(game: str, event: Event) -> None:
    assert CHANGED[game]([event]) == set()


def test_a_peeked_tile_is_named_but_its_value_is_not_read() -> None:
    event = {"kind": "peek", "seat": "red", "label": "C5",
             "private": {"seat": "red", "value": 4, "label": "D6"}}
    assert giganten_changes.changed([event]) == {"C5"}


def test_unknown_and_broken_events_are_ignored() -> None:
    for changed in CHANGED.values():
        assert changed([]) == set()
        assert changed([{"kind": "no_such_event", "hex": "B2", "label": "C5", "ahu": "tahai"},
                        {"kind": "moved"}, {"kind": "drive", "path": ["Z99"]},
                        {"kind": "claim", "hex": None}, {}]) == set()


@pytest.mark.parametrize("spec", [PLAYS[0], PLAYS[2], PLAYS[5]],
                         ids=lambda s: "-".join(map(str, s)))
def test_the_board_draws_what_changed(spec: tuple[str, int, int, str]) -> None:
    played = play(*spec)
    drawer = {"makemake": makemake_board, "giants": giants_board,
              "giganten": giganten_board}[played.game]
    step = next(s for s in played.steps[len(played.steps) // 2:]
                if CHANGED[played.game](s.events))
    view = MODULES[played.game].view(step.state, None)
    lit = drawer.board(view, highlight=frozenset(CHANGED[played.game](step.events)))
    assert lit != drawer.board(view)


# --- facts -------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("spec", PLAYS, ids=lambda s: "-".join(map(str, s)))
def test_facts_are_short_lines_in_every_language(spec: tuple[str, int, int, str],
                                                 lang: str) -> None:
    played = play(*spec)
    module, facts = MODULES[played.game], FACTS[played.game]
    states = [played.steps[n * len(played.steps) // 6].state for n in range(6)]
    for state in [*states, played.steps[-1].state]:
        lines = facts(module.view(state, None), lang, NAMES)
        assert lines and all(isinstance(line, str) and line.strip() for line in lines)
        for line in lines:
            assert "{" not in line and "bot." not in line and "render." not in line, line
            assert len(line) <= 200, line


@pytest.mark.parametrize("game", ["makemake", "giants", "giganten"])
def test_facts_name_the_players(game: str) -> None:
    """Names where a line is about a player: progress; the erected moai once their owners are
    public (here: the end); whose turn it is."""
    spec = next(s for s in PLAYS if s[0] == game)
    steps = play(*spec).steps
    if game == "makemake":
        state = steps[len(steps) // 2].state
    elif game == "giants":
        state = steps[-1].state
    else:
        state = next(s.state for s in steps if s.state.phase == "move" and s.state.turn)
    view = MODULES[game].view(state, None)
    text = "\n".join(FACTS[game](view, "en", NAMES))
    assert any(NAMES[s] in text for s in view["seats"]), text
    plain = "\n".join(FACTS[game](view, "en", {}))
    assert not any(NAMES[s] in plain for s in view["seats"])
    assert any(s.capitalize() in plain for s in view["seats"])


@pytest.mark.parametrize("spec", PLAYS, ids=lambda s: "-".join(map(str, s)))
def test_a_seats_own_view_gives_the_public_facts(spec: tuple[str, int, int, str]) -> None:
    """The facts read nothing a seat's own view adds (a hand, a peeked value, an owner)."""
    played = play(*spec)
    module, facts = MODULES[played.game], FACTS[played.game]
    for step in played.steps[::7]:
        public = facts(module.view(step.state, None), "en", NAMES)
        for seat in step.state.seats:
            assert facts(module.view(step.state, seat), "en", NAMES) == public


BIDDING = "game giants red blue green yellow purple seed=1\n* dice 0 1 2 3 3\nblue bid 0m\n"


@pytest.mark.parametrize("secret", ["red bid 2m 1w chief", "red bid 1m sorcerer"])
def test_giants_facts_never_show_a_sealed_bid(secret: str) -> None:
    plain, _ = replay(BIDDING + "red bid 0m 1w\n")
    other, _ = replay(BIDDING + secret + "\n")
    for lang in LANGUAGES:
        assert giants_facts.facts(giants.view(plain.state, None), lang, NAMES) == \
            giants_facts.facts(giants.view(other.state, None), lang, NAMES)


def test_giants_facts_show_the_dice_the_offer_and_the_rongo_supply() -> None:
    """The dice and the offer while the statues are bid for, the supplies while placing: only
    what the decision at hand needs."""
    game, _ = replay(BIDDING)
    view = giants.view(game.state, None)
    lines = giants_facts.facts(view, "en", NAMES)
    assert any("0 1 2 3 3" in line and "1 1 2 2" in line for line in lines), lines
    assert not any("rongo halves" in line for line in lines), "the supplies while placing"
    steps = play("giants", 4, 11, "greedy").steps
    placing = next(giants.view(s.state, None) for s in steps if s.state.phase == "place")
    shown = giants_facts.facts(placing, "en", NAMES)
    assert any(f"rongo halves {placing['supply']['rongo']}" in line for line in shown), shown
    assert not any(line.startswith("Dice") for line in shown), "the dice while bidding"
    later = next(giants.view(s.state, None) for s in steps
                 if s.state.phase == "bid" and s.state.round == 2)
    again = giants_facts.facts(later, "en", NAMES)
    assert any(line.startswith("Dice") for line in again), again
    assert not any("a die offers" in line for line in again), "the dice explained once"
    assert not any(line.startswith(("Round", "Last round")) for line in lines), \
        "the default round limit is a safety net, not the game's length"
    assert lines[0].endswith("in round 1 a 0 counts as 1 and a 3 as 2)"), "the dice explained"
    limited, _ = replay(BIDDING.replace("seed=1", "seed=1 round_limit=3"))
    assert giants_facts.facts(giants.view(limited.state, None), "en", NAMES)[0] == \
        "Last round: 3 at the latest (set for this game)"


def test_giganten_facts_never_show_a_hand_or_a_tile_value() -> None:
    played = play("giganten", 4, 3, "greedy")
    state = next(s.state for s in played.steps[len(played.steps) // 2:]
                 if s.state.auction and s.state.phase == "auction"
                 and any(s.state.players[p]["hand"] for p in s.state.seats))
    other = state.copy()
    for seat in other.seats:
        other.players[seat]["hand"] = sorted(3 - v for v in other.players[seat]["hand"])
    for label, space in other.spaces.items():
        if space["state"] == "hidden":
            other.spaces[label]["value"] = 6 if space["value"] != 6 else 2
    for lang in LANGUAGES:
        lines = giganten_facts.facts(giganten.view(state, None), lang, NAMES)
        assert lines == giganten_facts.facts(giganten.view(other, None), lang, NAMES)
        for seat in state.seats:
            assert lines == giganten_facts.facts(giganten.view(state, seat), lang, NAMES)
    lines = giganten_facts.facts(giganten.view(state, None), "en", NAMES)
    auction = giganten.view(state, None)["auction"]
    assert any(line.startswith("Auction at ") for line in lines), lines
    if auction["high_bidder"]:
        assert any(f"high bid {auction['high_bid']}" in line for line in lines), lines
    assert any(line.startswith("Oil prices: Hudson $") for line in lines), lines


def test_make_make_facts_show_the_moai_left_and_the_holder() -> None:
    played = play("makemake", 4, 2, "greedy")
    view = makemake.view(played.steps[-1].state, None)
    lines = makemake_facts.facts(view, "en", NAMES)
    assert f"Moai left: {view['moai_left']}" in lines
    holder = view["makemake"]
    assert (f"Make Make is held by {NAMES[holder]}" if holder
            else "Make Make is still on the centre") in lines


@pytest.mark.parametrize("game", ["makemake", "giants", "giganten"])
def test_the_facts_leave_the_round_to_the_title(game: str) -> None:
    """A stage's closing message keeps the title of the stage but shows the position after
    its last action, which may be in the next round: a round in the facts would contradict
    the title ("Round 1 · Yellow's turn" above "Round 2 of 100"), and the default round limit
    is a safety net, not the game's length."""
    played = play(game, 4, 2, "greedy")
    for step in played.steps[::7]:
        view = MODULES[game].view(step.state, None)
        if view["finished"]:
            continue
        for lang in LANGUAGES:
            title = t("bot.table.title", lang, game="G", id=0, round=view["round"], stage="S")
            said = title.split(" · ")[1]  # "Round 3", "第3輪"...
            assert not any(said in line for line in FACTS[game](view, lang, NAMES)), said
