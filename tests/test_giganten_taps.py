"""Giganten decisions by taps (issue 32): every legal move of positions from real games is
reachable through the guided steps, no step offers more than 25 options, every option is worded
in each language from its own catalogue, and the usual decisions take few taps (a drive: its
row, then the space; a likely bid or a sale: one pick; a shipment: one pick per derrick)."""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from functools import cache

import pytest

import bot.adapter.outbox
from bot.games import Button, Chosen, Select, Step, game_ui, guide
from bot.games.giganten import _taps
from render.i18n import I18N_DIR, LANGUAGES, needed_categories
from rules import giganten
from rules.ai import choose
from rules.core import CHANCE
from tests.helpers.bots import custom_ids, home, live_table
from tests.helpers.giganten_table import ephemeral_text, open_game, session_in, small_board

UI = game_ui("giganten")
SEEDS = (3, 11)
PER_KIND = 12
"""Positions kept per pending kind and game (spread over the game): enough to meet big
shipments and long drives, small enough for a quick test."""
CATALOGUE = "bot_giganten_taps.json"
PLACEHOLDER = re.compile(r"\{[^}]*\}")


@cache
def positions() -> dict[str, list[list[str]]]:
    """The legal moves of positions met in whole greedy games, by pending kind."""
    found: dict[str, list[list[str]]] = defaultdict(list)
    for seed in SEEDS:
        rng = random.Random(seed)
        state = giganten.new(list(giganten.COLOURS[:4]), None, seed)
        seen: dict[str, list[list[str]]] = defaultdict(list)
        while giganten.pending(state).seats:
            pending = giganten.pending(state)
            seat = pending.seats[0]
            if seat == CHANCE:
                action = giganten.chance(state, rng)
            else:
                legal = [str(a) for a in giganten.legal(state, seat)]
                seen[pending.kind].append(legal)
                action = choose(giganten, state, seat, "greedy", rng)
            state, _ = giganten.apply(state, seat, action)
        for kind, lists in seen.items():
            # the biggest positions, and a spread of the others
            biggest = sorted(lists, key=len, reverse=True)[:PER_KIND // 2]
            found[kind] += biggest + lists[::max(1, len(lists) // (PER_KIND // 2))]
    return dict(found)


def taps(kind: str, legal: list[str], lang: str) -> dict[str, int]:
    """Every move the steps lead to, with its taps (each option or group picked, and the last
    button naming the move); fails on a step of more than 25 options or an unworded option."""
    reached: dict[str, int] = {}

    def walk(chosen: tuple[str, ...], group: str, count: int) -> None:
        step = guide(UI, kind, legal, chosen, lang, group)
        if isinstance(step, Chosen):
            assert step.notation not in reached or len(legal) == 1
            reached[step.notation] = count + 1
            return
        assert isinstance(step, Step)
        assert 1 < len(step.options) <= 25 or step.group, (kind, chosen, group)
        assert step.prompt and not PLACEHOLDER.search(step.prompt)
        for option in step.options:
            assert option.label and len(option.label) <= 80
            assert not PLACEHOLDER.search(option.label), option.label
            assert "bot.giganten" not in option.label, option.label
            if step.groups:
                walk(step.chosen, option.group, count + 1)
            else:
                walk((*step.chosen, option.part), "", count + 1)

    walk((), "", 0)
    return reached


def test_the_games_meet_every_kind_of_decision() -> None:
    assert set(positions()) == {"take", "move", "build", "produce", "bid", "sell"}


@cache
def reached(kind: str, index: int) -> dict[str, int]:
    """The taps of every move of one kept position, in English (walked once)."""
    return taps(kind, positions()[kind][index], "en")


@pytest.mark.parametrize("kind", ["take", "move", "build", "produce", "bid", "sell"])
def test_every_legal_move_is_reachable_by_taps(kind: str) -> None:
    for index, legal in enumerate(positions()[kind]):
        assert set(reached(kind, index)) == set(legal)


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_option_is_worded_in_every_language(lang: str) -> None:
    english = {kind: lists[0] for kind, lists in positions().items()}
    for kind, legal in english.items():
        assert set(taps(kind, legal, lang)) == set(legal)
        step = guide(UI, kind, legal, (), lang)
        if isinstance(step, Step):
            words = [step.prompt, *(o.label for o in step.options)]
            assert words != [guide(UI, kind, legal, (), "en").prompt,  # type: ignore[union-attr]
                             *(o.label for o in guide(UI, kind, legal, (), "en")  # type: ignore[union-attr]
                               .options)]


def test_the_catalogue_has_every_key_and_plural_form_in_every_language() -> None:
    english = json.loads((I18N_DIR / "en" / CATALOGUE).read_text("utf-8"))
    for lang in LANGUAGES:
        words = json.loads((I18N_DIR / lang / CATALOGUE).read_text("utf-8"))
        assert set(words) == set(english), lang
        for key, template in words.items():
            if isinstance(template, dict):
                assert needed_categories(lang) <= set(template), (lang, key)


def test_a_drive_is_its_row_then_its_space() -> None:
    for index in range(len(positions()["move"])):
        for move, count in reached("move", index).items():
            assert count <= 3, (move, count)


def test_a_likely_bid_or_pass_is_one_pick() -> None:
    legal = [f"bid {n}" for n in range(4, 118)] + ["pass"]
    step = guide(UI, "bid", legal, (), "en")
    assert isinstance(step, Step) and not step.groups
    assert [o.part for o in step.options] == [*(f"bid {n}" for n in range(4, 21)), "bid",
                                              "pass"]
    assert step.options[0].label == "Bid 4 licence points"
    assert step.options[-2].label == "Bid more than 20 licence points…"
    counts = taps("bid", legal, "en")
    assert counts["bid 5"] == 2 and counts["pass"] == 2
    assert counts["bid 117"] == 4
    high = guide(UI, "bid", legal, ("bid",), "en", "Bid 111 to 117")
    assert isinstance(high, Step)
    assert [o.label for o in high.options][-1] == "Bid 117 licence points"
    assert guide(UI, "bid", legal, ("bid", "117"), "en") == Chosen("bid 117",
                                                                   "bid 117 licence points")


def test_a_shipment_is_one_pick_per_derrick_with_its_fee() -> None:
    legal = ["produce D3=hudson H9=jet:black", "produce D3=hudson H9=drop",
             "produce D3=jet H9=jet:black", "produce D3=jet H9=hudson:grey",
             "produce D3=drop H9=drop"]
    step = guide(UI, "produce", legal, (), "en")
    assert isinstance(step, Step)
    assert [o.label for o in step.options] == ["D3 → Hudson", "D3 → Jet",
                                               "D3: chip back to the supply"]
    step = guide(UI, "produce", legal, ("produce D3=jet",), "en")
    assert isinstance(step, Step)
    assert [o.label for o in step.options] == ["H9 → Jet by the black train ($3,000)",
                                               "H9 → Hudson by Grey's locomotive ($3,000)"]
    assert guide(UI, "produce", legal, ("produce D3=drop",), "en") == Chosen(
        "produce D3=drop H9=drop", UI.move_label("produce D3=drop H9=drop", "en"))


def test_payments_and_sales_are_one_step_in_plain_words() -> None:
    legal = ["pay 1 2 2", "pay 2 2 2", "sell 0", "sell 1", "sell 2"]
    step = guide(UI, "sell", legal, (), "en")
    assert isinstance(step, Step)
    assert [o.label for o in step.options] == [
        "Pay 5 with the cards 2×2 + 1×1", "Pay 6 with the cards 3×2", "Sell 0 oil chips",
        "Sell 1 oil chip", "Sell 2 oil chips"]


def test_labels_read_only_the_notation_and_the_boards_fixed_data() -> None:
    assert _taps.label("build", (), "build H9", "en").startswith("Build a derrick on H9 ($")
    assert _taps.label("take", (), "take b24", "en") == "b24: 3 licences · 8 MP · price ±3"
    assert _taps.label("move", (), "drive G6 G5 F5", "en") == "Drive to F5"
    assert _taps.group("move", (), "drive G6 G5 F5", "en") == "Drive to D1–F5"
    assert _taps.block("F5") == ("D1", "F5") and _taps.block("L20") == ("J16", "L20")
    assert _taps.label("move", (), "price jet -2", "en") == "Jet price down 2 steps"
    assert _taps.label("move", (), "loco 1", "en") == "Locomotive 1 space forward"


# --- the table's own components --------------------------------------------------------------

def _auction_view(high: int) -> dict:
    return {"decision": "bid", "auction": {"company": "jet", "high_bid": high,
                                           "high_bidder": "grey", "winner": None}}


def test_the_next_bids_are_one_tap_each_in_a_select() -> None:
    legal = [f"bid {n}" for n in range(4, 118)] + ["pass"]
    items = UI.components("bid", _auction_view(3), "red", legal, "en")
    [select] = [item for item in items if isinstance(item, Select)]
    assert select.op == "sel" and select.placeholder == "Another bid…"
    assert [c.value for c in select.choices] == [f"bid {n}" for n in range(6, 31)]
    assert select.choices[0].label == "Bid 6 licence points"
    assert [b.arg for b in items if isinstance(b, Button) and b.op == "act"] == [
        "bid 4", "bid 5", "pass"]
    near_the_top = [f"bid {n}" for n in range(114, 118)] + ["pass"]
    items = UI.components("bid", _auction_view(113), "red", near_the_top, "en")
    [select] = [item for item in items if isinstance(item, Select)]
    assert [c.value for c in select.choices] == ["bid 116", "bid 117"]


def test_past_25_shipments_the_best_is_one_button_and_the_rest_by_taps() -> None:
    legal = max(positions()["produce"], key=len)
    assert len(legal) > 25
    view = {"decision": "produce", "prices": {"hudson": 5, "jet": 5, "standard": 5},
            "players": {"red": {"storage": {"hudson": 0, "jet": 0, "standard": 0}}}}
    [best] = UI.components("produce", view, "red", legal, "en")
    assert isinstance(best, Button) and best.op == "act" and best.arg in legal
    assert best.label.startswith("Ship: ")
    few = legal[:3]
    items = UI.components("produce", view, "red", few, "en")
    assert [type(item) for item in items] == [Button, Select]


# --- through Discord --------------------------------------------------------------------------

async def test_a_drive_by_taps_on_the_table(simcord_env, monkeypatch) -> None:
    """The live table offers the first step (where to drive, by row); a tap answers with the
    spaces of that row for the player alone, and the next tap drives there."""
    env = simcord_env
    monkeypatch.setitem(bot.adapter.outbox.RENDERERS, "giganten", small_board)
    guild = env.create_guild()
    channel = guild.create_text_channel("texas")
    alice = guild.add_member(env.create_user("alice"))
    await open_game(env, channel, alice, ai_seats=2)
    session = session_in(env, channel)
    colour = session.seat_of(alice.id).colour
    while session.kind() != "move":
        assert session.pending() == (colour,)
        move = str(choose(giganten, session.game.state, colour, "greedy", random.Random(1)))
        assert ephemeral_text(await alice.slash(home(channel), "play",
                                                notation=move)).startswith("Played")
        session = session_in(env, channel)
    seq = session.seq
    legal = session.legal_lines(colour)
    drive = next(line for line in legal if line.startswith("drive ") and line.endswith(" K8")) \
        if any(line.endswith(" K8") for line in legal) else legal[0]
    to = drive.split()[-1]
    live = live_table(env, channel)
    first = next(cid for cid in custom_ids(live) if cid.startswith(f"ks:{session.id}:t:{seq}:"))
    groups = [(o.label, o.value) for row in live.components for c in row.children
              if getattr(c, "custom_id", "") == first for o in c.options]
    block = "Drive to {}–{}".format(*_taps.block(to))
    assert (block, f"{[g for g, _ in groups].index(block)}:") in groups
    assert ("End the turn", f"{len(groups) - 1}:") in groups
    value = next(v for g, v in groups if g == block)
    step = (await alice.select(live, [value], custom_id=first)).response
    assert step is not None and step.ephemeral
    assert step.content == f"{block}\n" \
        "**Drive, look at a tile, move the locomotive, or end the turn?**"
    assert session_in(env, channel).seq == seq, "a step plays nothing"
    shown = getattr(step, "message", step)  # an interaction's response, read as a message
    spaces = [(o.label, o.value) for row in shown.components for c in row.children
              for o in getattr(c, "options", None) or ()]
    words = UI.move_label(drive, "en")
    if spaces:  # more than five spaces in the row: a select
        assert all(label.startswith("Drive to ") or label.startswith("drive ")
                   for label, _ in spaces), spaces
        value = next(v for _, v in spaces if v.endswith(f":{drive}"))
        assert (words, value) in spaces, "the option that ends the move names it"
        select = next(cid for cid in custom_ids(shown) if cid.startswith("ks:"))
        done = await alice.select(step, [value], custom_id=select)
    else:
        done = await alice.click(step, label=words)
    assert done.response.content == f"Played: {words}"
    assert session_in(env, channel).log[seq].line == f"{colour} {drive}"
    assert not env.bot.unexpected_errors


def test_the_payment_form_says_what_a_sale_brings_and_which_cards_a_payment_gives() -> None:
    view = {"auction": {"company": "hudson", "high_bid": 6},
            "you": {"seat": "blue", "licences": [1, 1, 1, 1, 2, 2, 2, 2, 2]},
            "players": {"blue": {"storage": {"hudson": 2, "jet": 0, "standard": 0}}},
            "prices": {"hudson": 7500, "jet": 4500, "standard": 8000}}
    form = UI.private_form("sell", view, "blue", "en")
    assert form is not None
    assert form.fields[0].choices == (
        ("sell 2", "Pay with licences 2+2+2 (total 6), then sell 2 oil chips for $15,000"),
        ("sell 1", "Pay with licences 2+2+2 (total 6), then sell 1 oil chip for $7,500"),
        ("sell 0", "Pay with licences 2+2+2 (total 6), then sell 0 oil chips for $0"),
        ("pay 1 1 2 2", "First pay 6 with the cards 2×2 + 2×1, then choose how many to sell"),
        ("pay 1 1 1 1 2", "First pay 6 with the cards 1×2 + 4×1, then choose how many to sell"))
    for lang in LANGUAGES:
        worded = UI.private_form("sell", view, "blue", lang)
        assert worded is not None
        for token, label in worded.fields[0].choices:
            assert "bot.giganten" not in label and not PLACEHOLDER.search(label)
            # words, not notation ("sell 2 oil chips" says the move; "sell 2" alone is notation)
            assert label != token and f"`{token}`" not in label and "(paying" not in label, label
            assert not label.endswith(token), label
