"""The guided choice (issue 32): each step offers only legal options, single options are taken
without a tap, more than 25 come in groups, Back returns to the step before, and the end is
the chosen move in words."""

from __future__ import annotations

import pytest

from bot.games import DONE, Chosen, GameUI, StaleChoice, Step, back, game_ui, guide
from rules.makemake import engine


class Ui(GameUI):
    """A game that words its parts and groups hexes by their row (the letter)."""

    name = "test"

    def move_parts(self, kind: str, notation: str) -> tuple[str, ...]:
        words = notation.split()
        if len(words) > 2:  # "place K8 3 chief": the amount with the chief is one decision
            return (words[0], words[1], " ".join(words[2:]))
        return tuple(words)

    def part_prompt(self, kind: str, chosen: tuple[str, ...], lang: str) -> str:
        return ("What?", "Where?", "How many?")[len(chosen)]

    def part_label(self, kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
        return f"<{part}>"

    def part_group(self, kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
        return f"Row {part[0]}" if len(chosen) == 1 else ""

    def move_words(self, notation: str, lang: str) -> str:
        return f"words of {notation}"


UI = Ui()
LEGAL = ["place K8 1", "place K8 2 chief", "place K9 1", "withdraw K8", "pass"]


def test_the_first_step_offers_each_first_part_once_in_order() -> None:
    step = guide(UI, "play", LEGAL, (), "en")
    assert isinstance(step, Step)
    assert step.prompt == "What?"
    assert [o.part for o in step.options] == ["place", "withdraw", "pass"]
    assert [o.label for o in step.options] == ["<place>", "<withdraw>", "<pass>"]
    assert step.chosen == ()
    assert not step.groups


def test_only_legal_options_follow_what_is_chosen() -> None:
    step = guide(UI, "play", LEGAL, ("place",), "en")
    assert isinstance(step, Step)
    assert [o.part for o in step.options] == ["K8", "K9"]
    step = guide(UI, "play", LEGAL, ("place", "K8"), "en")
    assert isinstance(step, Step)
    assert step.prompt == "How many?"
    assert [o.part for o in step.options] == ["1", "2 chief"]


def test_a_step_with_one_option_is_taken_without_a_tap() -> None:
    assert guide(UI, "play", LEGAL, ("withdraw",), "en") == Chosen("withdraw K8",
                                                                   "words of withdraw K8")
    assert guide(UI, "play", LEGAL, ("place", "K9"), "en") == Chosen("place K9 1",
                                                                     "words of place K9 1")
    step = guide(UI, "play", ["place K8 1", "place K8 2"], (), "en")
    assert isinstance(step, Step)
    assert step.chosen == ("place", "K8")
    assert [o.part for o in step.options] == ["1", "2"]


def test_a_single_legal_move_is_chosen_at_once() -> None:
    assert guide(UI, "play", ["pass"], (), "en") == Chosen("pass", "words of pass")


def test_the_chosen_move_is_whole_and_worded() -> None:
    chosen = guide(UI, "play", LEGAL, ("place", "K8", "2 chief"), "en")
    assert chosen == Chosen("place K8 2 chief", "words of place K8 2 chief")


def test_the_words_of_the_chosen_move_fit_a_button() -> None:
    class Long(Ui):
        def move_words(self, notation: str, lang: str) -> str:
            return "x" * 200

    chosen = guide(Long(), "play", ["pass"], (), "en")
    assert isinstance(chosen, Chosen)
    assert len(chosen.words) == 80


def test_a_move_that_ends_where_longer_ones_go_on_offers_done() -> None:
    step = guide(GameUI(), "play", ["sell", "sell 2", "sell 3"], (), "en")
    assert isinstance(step, Step)
    assert step.chosen == ("sell",)
    assert [o.part for o in step.options] == ["2", "3", DONE]
    assert step.options[-1].label == "Just this"
    assert guide(GameUI(), "play", ["sell", "sell 2"], ("sell", DONE), "en") == Chosen(
        "sell", "sell")


HEXES = [f"place {row}{n} 1" for row in "ABC" for n in range(1, 13)]


def test_more_than_25_options_come_in_the_games_groups_first() -> None:
    step = guide(UI, "play", HEXES, (), "en")
    assert isinstance(step, Step)
    assert step.groups
    assert step.chosen == ("place",)
    assert [o.label for o in step.options] == ["Row A", "Row B", "Row C"]
    inside = guide(UI, "play", HEXES, ("place",), "en", "Row B")
    assert isinstance(inside, Step)
    assert inside.group == "Row B"
    assert [o.part for o in inside.options] == [f"B{n}" for n in range(1, 13)]
    assert all(o.group == "Row B" for o in inside.options)


def test_without_the_games_groups_ranges_of_at_most_25() -> None:
    legal = [f"take {n}" for n in range(1, 61)]
    step = guide(GameUI(), "play", legal, (), "en")
    assert isinstance(step, Step)
    assert [o.label for o in step.options] == ["1 – 20", "21 – 40", "41 – 60"]
    seen: list[str] = []
    for option in step.options:
        inside = guide(GameUI(), "play", legal, step.chosen, "en", option.group)
        assert isinstance(inside, Step)
        assert len(inside.options) <= 25
        seen += [o.part for o in inside.options]
    assert seen == [str(n) for n in range(1, 61)]


def test_a_group_of_more_than_25_is_split_in_numbered_parts() -> None:
    legal = [f"place K{n} 1" for n in range(1, 31)] + [f"place L{n} 1" for n in range(1, 4)]
    step = guide(UI, "play", legal, (), "en")
    assert isinstance(step, Step)
    assert [o.label for o in step.options] == ["Row K (1)", "Row K (2)", "Row L"]
    for option in step.options:
        inside = guide(UI, "play", legal, step.chosen, "en", option.group)
        assert isinstance(inside, Step)
        assert len(inside.options) <= 25


def test_every_step_of_a_big_choice_stays_within_25() -> None:
    legal = [f"go {n}" for n in range(620)]
    step = guide(GameUI(), "play", legal, (), "en")
    assert isinstance(step, Step)
    assert len(step.options) <= 25
    for option in step.options:
        inside = guide(GameUI(), "play", legal, step.chosen, "en", option.group)
        assert isinstance(inside, Step)
        assert 0 < len(inside.options) <= 25


def test_back_drops_the_last_tap_and_what_was_taken_after_it() -> None:
    assert back(UI, "play", LEGAL, ("place", "K8"), "en") == (("place",), "")
    assert back(UI, "play", LEGAL, ("place",), "en") == ((), "")
    assert back(UI, "play", LEGAL, (), "en") is None
    # "place" then "K8" were taken without a tap: Back from the amounts is the first step
    legal = ["place K8 1", "place K8 2"]
    assert back(UI, "play", legal, ("place", "K8"), "en") is None


def test_back_from_a_groups_options_lists_the_groups_and_returns_to_the_group() -> None:
    assert back(UI, "play", HEXES, ("place",), "en", "Row B") == (("place",), "")
    legal = [f"place {row}{n} {k}" for row in "ABC" for n in range(1, 13) for k in (1, 2)]
    assert back(UI, "play", legal, ("place", "B7"), "en") == (("place",), "Row B")


def test_an_outdated_choice_is_refused() -> None:
    with pytest.raises(StaleChoice):
        guide(UI, "play", LEGAL, ("move",), "en")
    with pytest.raises(StaleChoice):
        guide(UI, "play", HEXES, ("place",), "en", "Row Z")
    with pytest.raises(StaleChoice):
        guide(UI, "play", LEGAL, ("place",), "en", "Row K")


def test_the_default_words_are_in_every_language() -> None:
    for lang in ("en", "es", "ru", "zh-CN", "zh-TW"):
        step = guide(GameUI(), "play", ["a 1", "a 2", "b"], (), lang)
        assert isinstance(step, Step)
        assert step.prompt and step.prompt != "bot.taps.prompt"


# --- Make Make ------------------------------------------------------------------------------

def _makemake_start() -> list[str]:
    state = engine.new(["red", "blue", "green", "yellow"])
    return [str(a) for a in engine.legal(state, "red")]


def test_makemake_places_by_row_then_hex_then_how_many_with_the_chief() -> None:
    ui = game_ui("makemake")
    legal = _makemake_start()
    first = guide(ui, "domination", legal, (), "en")
    assert isinstance(first, Step) and first.groups
    assert [o.label for o in first.options] == [f"Row {r}" for r in "ABCDE"]
    row = guide(ui, "domination", legal, (), "en", "Row B")
    assert isinstance(row, Step)
    assert [o.label for o in row.options] == [f"Place on B{n}" for n in range(1, 7)]
    amounts = guide(ui, "domination", legal, ("place B2",), "en")
    assert isinstance(amounts, Step)
    assert amounts.prompt == "How many on B2?"
    assert [o.part for o in amounts.options[:3]] == ["1", "1 chief", "2"]
    assert [o.label for o in amounts.options[:3]] == ["1 token", "1 token + chief", "2 tokens"]
    assert guide(ui, "domination", legal, ("place B2", "3 chief"), "en") == Chosen(
        "place B2 3 chief", "place 3 tokens and the chief on B2")


def test_makemake_withdraw_moai_and_manu_in_words() -> None:
    ui = game_ui("makemake")
    step = guide(ui, "domination", ["place A1 1", "withdraw B2", "withdraw C1"], (), "ru")
    assert isinstance(step, Step)
    assert [o.label for o in step.options] == ["Поставить на A1", "Отозвать с B2",
                                               "Отозвать с C1"]
    assert guide(ui, "domination", ["place A1 1", "withdraw B2"], ("withdraw B2",),
                 "en") == Chosen("withdraw B2", "withdraw from B2 (one token stays)")
    manu = guide(ui, "manu", ["manu S01 S02", "manu S01 S03", "manu S02 S03"], (), "es")
    assert isinstance(manu, Step)
    assert manu.chosen == ("manu",)
    assert manu.prompt == "Tangata Manu: ¿qué plataforma?"
    assert [o.label for o in manu.options] == ["Plataforma S01", "Plataforma S02"]
    second = guide(ui, "manu", ["manu S01 S02", "manu S01 S03", "manu S02 S03"],
                   ("manu", "S01"), "en")
    assert isinstance(second, Step)
    assert second.prompt == "Tangata Manu: which other site?"
    chief = guide(ui, "domination", ["place A1 0 chief", "place A1 1"], ("place A1",), "zh-TW")
    assert isinstance(chief, Step)
    assert [o.label for o in chief.options] == ["單獨放置頭領", "1個統治標記"]


def test_a_group_of_one_option_is_taken_without_a_tap() -> None:
    legal = [f"place A{n} 1" for n in range(1, 27)] + ["place B1 1", "place B1 2"]
    step = guide(UI, "play", legal, ("place",), "en", "Row B")
    assert isinstance(step, Step)
    assert step.chosen == ("place", "B1")
    assert [o.part for o in step.options] == ["1", "2"]
    assert back(UI, "play", legal, ("place", "B1"), "en") == (("place",), "")
    assert back(UI, "play", legal, ("place", "B1"), "en") == (("place",), "")
