"""Chance lines (spec 3, 5.1-5.3, 5.7): their checks, their effects and drawing them at random.

A chance line dictates an outcome; the checks make sure it is one the piles could have produced,
so that a record replays whatever RNG drew it.
"""

from __future__ import annotations

import math
import random
from collections import Counter

from rules.core import IllegalAction
from rules.giganten.actions import ChanceAction, Forfeit, Licences, Prices, Reveal, Tiles, card_key
from rules.giganten.board import (
    CARDS,
    DIE,
    FACES,
    HARBOUR,
    ORDER,
    PRICE_TABLE,
    TILE_VALUES,
    card_number,
    zone,
)
from rules.giganten.state import State

# --- tiles ---------------------------------------------------------------------------------------

def in_play(s: State) -> list[str]:
    return sorted((label for label, sp in s.spaces.items() if sp["state"] != "unused"),
                  key=ORDER.__getitem__)


def apply_tiles(s: State, action: Tiles) -> None:
    labels = [label for label, _ in action.tiles]
    wanted = in_play(s)
    if len(labels) != len(set(labels)) or sorted(labels) != sorted(wanted):
        missing = sorted(set(wanted) - set(labels))
        extra = sorted({x for x in labels if x not in wanted or labels.count(x) > 1})
        raise IllegalAction("tiles.spaces", missing=missing, wrong=extra)
    for tile_type, values in TILE_VALUES.items():
        have = Counter(values)
        given = Counter(v for label, v in action.tiles if s.spaces[label]["type"] == tile_type)
        for value, count in sorted(given.items()):
            if count > have[value]:
                raise IllegalAction("tiles.values", type=tile_type, value=value, count=count,
                                    most=have[value])
    for label, value in action.tiles:
        s.spaces[label]["value"] = value


def draw_tiles(s: State, rng: random.Random) -> Tiles:
    tiles: list[tuple[str, int]] = []
    for tile_type, values in TILE_VALUES.items():
        pool = list(values)
        rng.shuffle(pool)
        spaces = [label for label in in_play(s) if s.spaces[label]["type"] == tile_type]
        tiles += zip(spaces, pool, strict=False)
    return Tiles(tuple(sorted(tiles, key=lambda t: ORDER[t[0]])))


# --- prices --------------------------------------------------------------------------------------

def price_move(index: int, face: str) -> int:
    """The die move of 5.1: the zone before the move decides the direction."""
    pips, colour = DIE[face]
    where = zone(index)
    up = where == "red" or (where == "white" and colour == "blue")
    return max(0, min(len(PRICE_TABLE) - 1, index + (pips if up else -pips)))


def apply_prices(s: State, action: Prices) -> None:
    for company, face in zip(s.prices, action.faces, strict=True):
        s.prices[company] = price_move(s.prices[company], face)


def draw_prices(rng: random.Random) -> Prices:
    a, b, c = (rng.choice(FACES) for _ in range(3))
    return Prices((a, b, c))


# --- reveal --------------------------------------------------------------------------------------

def _obtainable(draw: list[str], discard: list[str], cards: list[str]) -> bool:
    """Can these cards be the next ones drawn (reshuffling the discard pile when needed)?"""
    from_draw = [c for c in cards if c in draw]
    if len(cards) <= len(draw):
        return len(from_draw) == len(cards)
    return len(from_draw) == len(draw) and all(c in discard for c in cards if c not in draw)


def _take_cards(draw: list[str], discard: list[str],
                cards: list[str]) -> tuple[list[str], list[str]]:
    if len(cards) <= len(draw):
        return [c for c in draw if c not in cards], discard
    return [c for c in discard if c not in cards], []


def apply_reveal(s: State, action: Reveal) -> bool:
    """Reveal the red card (and the beige ones); True when the black locomotive reached harbour."""
    red = action.red
    if CARDS[red]["deck"] != "red" or not _obtainable(s.red_draw, s.red_discard, [red]):
        raise IllegalAction("reveal.unavailable", card=red)
    black = min(HARBOUR, s.black + CARDS[red]["black"])
    wanted = 0 if black >= HARBOUR else s.n
    if len(action.beige) != wanted or len(set(action.beige)) != wanted:
        raise IllegalAction("reveal.count", count=wanted, given=len(action.beige))
    beige = list(action.beige)
    for card in beige:
        if CARDS[card]["deck"] != "beige":
            raise IllegalAction("reveal.unavailable", card=card)
    if not _obtainable(s.beige_draw, s.beige_discard, beige):
        bad = next((c for c in beige if c not in s.beige_draw), beige[0])
        if len(beige) > len(s.beige_draw):
            bad = next((c for c in s.beige_draw if c not in beige), bad)
        raise IllegalAction("reveal.unavailable", card=bad)
    s.red_draw, s.red_discard = _take_cards(s.red_draw, s.red_discard, [red])
    s.black = black
    if black >= HARBOUR:
        s.red_discard = sorted([*s.red_discard, red], key=card_number)
        return True
    s.beige_draw, s.beige_discard = _take_cards(s.beige_draw, s.beige_discard, beige)
    s.display = [red, *sorted(beige, key=card_key)]
    return False


def _draw(rng: random.Random, draw: list[str], discard: list[str], count: int) -> list[str]:
    draw, discard, out = sorted(draw, key=card_key), sorted(discard, key=card_key), []
    for _ in range(count):
        if not draw:
            draw, discard = discard, []
        card = rng.choice(draw)
        draw.remove(card)
        out.append(card)
    return out


def draw_reveal(s: State, rng: random.Random) -> Reveal:
    (red,) = _draw(rng, s.red_draw, s.red_discard, 1)
    if s.black + CARDS[red]["black"] >= HARBOUR:
        return Reveal(red, ())
    beige = _draw(rng, s.beige_draw, s.beige_discard, s.n)
    return Reveal(red, tuple(sorted(beige, key=card_key)))


# --- licences ------------------------------------------------------------------------------------

def _total(pile: dict[str, int]) -> int:
    return sum(pile.values())


def deal_size(s: State, seat: str) -> int:
    card = s.players[seat]["card"]
    need = CARDS[card]["licences"] if card else 0
    return min(need, _total(s.licence_draw) + _total(s.licence_discard))


def apply_licences(s: State, action: Licences, subject: str) -> None:
    if action.seat != subject:
        raise IllegalAction("licences.seat", seat=action.seat, subject=subject)
    size = deal_size(s, subject)
    if len(action.values) != size:
        raise IllegalAction("licences.count", count=size, given=len(action.values))
    given = Counter(str(v) for v in action.values)
    draw, discard = s.licence_draw, s.licence_discard
    if size <= _total(draw):
        ok = all(given[k] <= draw[k] for k in given)
        after_draw, after_discard = {k: draw[k] - given[k] for k in draw}, dict(discard)
    else:
        rest = {k: given[k] - draw[k] for k in draw}
        ok = all(0 <= rest[k] <= discard[k] for k in draw)
        after_draw, after_discard = {k: discard[k] - rest[k] for k in draw}, {k: 0 for k in draw}
    if not ok:
        raise IllegalAction("licences.unavailable", seat=subject, values=list(action.values))
    s.licence_draw, s.licence_discard = after_draw, after_discard
    hand = s.players[subject]["hand"]
    hand[:] = sorted([*hand, *action.values])


def draw_licences(s: State, subject: str, rng: random.Random) -> Licences:
    draw, discard = dict(s.licence_draw), dict(s.licence_discard)
    values: list[int] = []
    for _ in range(deal_size(s, subject)):
        if not _total(draw):
            draw, discard = discard, {k: 0 for k in discard}
        pick = rng.randrange(_total(draw))
        key = "1" if pick < draw["1"] else "2"
        draw[key] -= 1
        values.append(int(key))
    return Licences(subject, tuple(sorted(values)))


# --- forfeit -------------------------------------------------------------------------------------

def forfeit_size(hand: list[int]) -> int:
    return math.ceil(len(hand) / 2)


def apply_forfeit(s: State, action: Forfeit, subject: str) -> None:
    if action.seat != subject:
        raise IllegalAction("forfeit.seat", seat=action.seat, subject=subject)
    hand = s.players[subject]["hand"]
    if len(action.values) != forfeit_size(hand):
        raise IllegalAction("forfeit.count", count=forfeit_size(hand), given=len(action.values))
    lost, held = Counter(action.values), Counter(hand)
    if any(lost[v] > held[v] for v in lost):
        raise IllegalAction("forfeit.not_held", values=list(action.values))
    for v in action.values:
        hand.remove(v)
        s.licence_discard[str(v)] += 1


def draw_forfeit(s: State, subject: str, rng: random.Random) -> Forfeit:
    hand = s.players[subject]["hand"]
    return Forfeit(subject, tuple(sorted(rng.sample(hand, forfeit_size(hand)))))


def draw(s: State, subject: str | None, rng: random.Random) -> ChanceAction:
    """The chance line pending now, drawn uniformly as the spec describes."""
    if s.decision == "tiles":
        return draw_tiles(s, rng)
    if s.decision == "prices":
        return draw_prices(rng)
    if s.decision == "reveal":
        return draw_reveal(s, rng)
    assert subject is not None
    if s.decision == "licences":
        return draw_licences(s, subject, rng)
    if s.decision == "forfeit":
        return draw_forfeit(s, subject, rng)
    raise ValueError(f"chance is not pending ({s.decision})")
