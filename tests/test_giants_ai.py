"""The Giants greedy seat: legal, raises moai and crowns them, and beats random seats."""

from __future__ import annotations

import json
import random
from pathlib import Path

from rules import giants
from rules.core import CHANCE
from rules.giants import ai
from rules.giants.ai import greedy
from rules.record import Game, parse_header
from scripts.ai_match import play
from scripts.greedy_digest import digests


def _all_greedy(seats: int, seed: int) -> Game:
    """A whole game of greedy seats, checking that every chosen action is legal."""
    colours = giants.COLOURS[:seats]
    game = Game.start(parse_header(" ".join(["game giants", *colours, f"seed={seed}"])))
    rng = random.Random(seed)
    while game.pending():
        game.draw_chance()
        for seat in game.pending():
            if seat == CHANCE:
                continue
            actions = giants.legal(game.state, seat)
            action = greedy(giants.view(game.state, seat), seat, actions, rng)
            assert action in actions, f"{seat} chose the illegal {action}"
            game.apply(seat, action)
    return game


def _delivered(game: Game, kind: str) -> int:
    items = giants.view(game.state, None)["items"].values()
    return sum(1 for i in items if i["kind"] == kind and i["at"].startswith("ahu:"))


def test_greedy_only_plays_legal_actions() -> None:
    game = _all_greedy(3, 11)
    assert giants.result(game.state) is not None


def test_greedy_erects_moai_and_crowns_them() -> None:
    games = [_all_greedy(seats, seed) for seats, seed in ((3, 1), (4, 2), (5, 3), (4, 4))]
    for game in games:
        seats = len(giants.view(game.state, None)["seats"])
        assert _delivered(game, "moai") >= 3 * seats
    crowned = [_delivered(g, "headdress") for g in games]
    assert sum(n > 0 for n in crowned) >= 3, f"headdresses placed per game: {crowned}"


def test_greedy_beats_random_seats() -> None:
    won = 0
    for i in range(6):
        seats = 3 + i % 3
        game = play("giants", seats, i % seats, 100 + i, [])
        result = giants.result(game.state)
        assert result is not None
        won += giants.COLOURS[i % seats] in result.winners
    assert won >= 5, f"greedy won only {won} of 6 against random seats"


def test_same_seed_same_game() -> None:
    assert play("giants", 3, 0, 7, []).record() == play("giants", 3, 0, 7, []).record()


def test_greedy_fetches_a_headdress_a_round_ahead_and_marks_it() -> None:
    """A headdress carved this round cannot move: no chain is laid for it, and the end of the
    round marks it on the headdress quarry so that it stays ours for the next round."""
    s = giants.new(["red", "blue", "green"])
    s.phase, s.current = "place", "red"
    s.items["moai1"] = {"kind": "moai", "size": 1, "at": "ahu:tahai", "marker": None,
                        "abandoned": False, "mover": None}
    s.ahus["tahai"].update(moai="moai1", owner="red")  # bare, beside D7 next to the quarry
    s.players["red"]["screen"].update(bases=6, workers=3)
    s.players["red"]["urn"]["workers"] = 3
    rng = random.Random(1)

    def act(seat: str) -> giants.Action:
        actions = giants.legal(s, seat)
        return greedy(giants.view(s, seat), seat, actions, rng)

    assert str(act("red")) == "sorcerer headdress"
    s, _ = giants.apply(s, "red", giants.parse("sorcerer headdress"))
    for seat in ("blue", "green"):
        s, _ = giants.apply(s, seat, giants.Pass())
    while s.phase == "place":
        action = act("red")
        assert not isinstance(action, giants.Place), f"no chain for it this round: {action}"
        s, _ = giants.apply(s, "red", action)
    assert s.players["red"]["screen"]["markers"] == 1, "one marker is kept for the headdress"
    for seat in ("red", "blue", "green"):
        assert str(act(seat)) == "pass"
        s, _ = giants.apply(s, seat, giants.Pass())
    assert s.phase == "endround" and s.items["hat1"]["at"] == "D8"
    assert str(act("red")) == "endround mark=hat1"


def test_greedy_games_match_their_recorded_digests() -> None:
    """Speed-ups of the greedy seat must change no decision: greedy-against-greedy games from
    seeds 0-19 give the records whose digests were stored (regenerate the file with
    ``python scripts/greedy_digest.py giants --seeds 20`` only for a deliberate change)."""
    expected = json.loads((Path(__file__).parent / "records" / "giants_greedy_digests.json")
                          .read_text())
    found = digests("giants", 3, range(20))
    assert found == expected


def test_memo_answers_as_the_plain_helpers_do() -> None:
    """Inside a memo the helpers give what they give without one, and the memo ends with
    its block, so a later (different) view is never answered from it."""
    rng = random.Random(3)
    game = Game.start(parse_header("game giants red blue green seed=4"))
    checked = 0
    while game.pending() and checked < 60:
        game.draw_chance()
        for seat in game.pending():
            if seat == CHANCE:
                continue
            view = giants.view(game.state, seat)
            items = [it for it in view["items"].values() if not it["at"].startswith("ahu:")]
            plain = [ai._best_target(view, seat, it, set()) for it in items]
            with ai.memo(view):
                assert [ai._best_target(view, seat, it, set()) for it in items] == plain
                assert [ai._best_target(view, seat, it, set()) for it in items] == plain
            assert ai._active[0] is None
            actions = giants.legal(game.state, seat)
            game.apply(seat, greedy(view, seat, actions, rng))
            checked += 1
