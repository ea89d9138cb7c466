"""Giganten decisions by taps: how each legal move splits into the steps of a guided choice.

A decision takes as few taps as it can: every move that is one decision is one part (a drive's
whole path, a bid, a payment, a sale), so most decisions are one pick; only a shipment is
picked derrick by derrick, because its lines multiply with the derricks while each derrick has
at most seven ways. Where a step would offer more than 25 options, the options carry a group:
a drive's destination row, a kind of action (look at a tile, the locomotive, a price), a range
of bids. Labels come from the notation and the board's fixed data alone (a card's contents, a
tile's building cost), never from a secret.
"""

from __future__ import annotations

from bot.games._ui import colour_name
from render.giganten import COLUMNS, ROWS, money
from render.i18n import t
from rules.core import IllegalAction
from rules.giganten.actions import (
    Bid,
    Build,
    Done,
    Drive,
    Entry,
    Loco,
    Oil,
    Pass,
    Pay,
    Peek,
    Price,
    Produce,
    Sell,
    Skip,
    Take,
    parse,
)
from rules.giganten.board import BUILD_COST, CARDS, FEE, MAX_BID, TILE_TYPE

KEY = "bot.giganten.taps"
LIKELY_BID = 20
"""Bids up to this many licence points are offered at once, as one tap each; a higher bid is
"more" first, then its amount (grouped by tens). Hands seldom hold more."""
BID_RANGE = 10
MORE = "bid"
"""The part that leads to the bids above :data:`LIKELY_BID`."""


def parts(kind: str, notation: str) -> tuple[str, ...]:
    """The parts of one legal move: the whole move, except a shipment, which is its verb with
    the first derrick's entry and then one entry per further derrick, and a bid above
    :data:`LIKELY_BID`, which is "more" and then its amount."""
    words = notation.split()
    if kind == "produce" and len(words) > 2 and words[0] == "produce":
        return (f"{words[0]} {words[1]}", *words[2:])
    if len(words) == 2 and words[0] == MORE and words[1].isdecimal() \
            and int(words[1]) > LIKELY_BID:
        return (MORE, words[1])
    return (notation,)


def prompt(kind: str, chosen: tuple[str, ...], lang: str) -> str:
    """The question of the next step."""
    if kind == "produce":
        return t(f"{KEY}.prompt.produce", lang, n=len(chosen) + 1)
    key = f"{KEY}.prompt.{kind}"
    return t(key, lang) if kind in PROMPTS else t(f"{KEY}.prompt.other", lang)


PROMPTS = frozenset({"take", "move", "build", "bid", "sell"})


def label(kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
    """One option in words: what this part adds to the move."""
    if kind == "produce":
        entry = _entry_of(part)
        if entry is not None:
            return entry_label(entry, lang)
        return part
    if part == MORE:
        return t(f"{KEY}.more", lang, amount=LIKELY_BID)
    if chosen == (MORE,) and part.isdecimal():
        part = f"{MORE} {part}"
    try:
        action = parse(part)
    except IllegalAction:
        return part
    return action_label(action, lang) or part


BLOCK_ROWS = 3
"""Rows of the map in one block of drive destinations."""
BLOCK_COLUMNS = 5
"""Columns of the map in one block: three rows of five spaces fit one close-up at the size a
phone reads (:data:`render.focus.FOCUS_WIDTH`), and its spaces' drives one step."""


def block(space: str) -> tuple[str, str]:
    """The block of the map a drive's destination lies in: its first and last space
    (``A1``, ``C5``)."""
    row = ROWS.index(space[0]) // BLOCK_ROWS * BLOCK_ROWS
    column = (int(space[1:]) - 1) // BLOCK_COLUMNS * BLOCK_COLUMNS + 1
    last_row = ROWS[min(len(ROWS), row + BLOCK_ROWS) - 1]
    last_column = min(COLUMNS, column + BLOCK_COLUMNS - 1)
    return f"{ROWS[row]}{column}", f"{last_row}{last_column}"


def drive_ends(parts: tuple[str, ...]) -> list[str]:
    """Where the drives among a step's options end."""
    ends: dict[str, None] = {}
    for part in parts:
        try:
            action = parse(part)
        except IllegalAction:
            continue
        if isinstance(action, Drive) and action.path:
            ends[action.path[-1]] = None
    return list(ends)


def group(kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
    """The group of an option when its step holds more than 25, or its drives end spread
    over the map: a drive's block of the map (:func:`block`), every other kind of action in
    a group of its own, bids by tens."""
    if chosen == (MORE,) and part.isdecimal():
        part = f"{MORE} {part}"
    try:
        action = parse(part)
    except IllegalAction:
        return ""
    if isinstance(action, Drive):
        first, last = block(action.path[-1])
        return t(f"{KEY}.group.block", lang, first=first, last=last)
    if isinstance(action, Bid):
        low = (action.amount - 1) // BID_RANGE * BID_RANGE + 1
        return t(f"{KEY}.group.bids", lang, low=low, high=min(low + BID_RANGE - 1, MAX_BID))
    for kind_, name in GROUPS:
        if isinstance(action, kind_):
            return t(f"{KEY}.group.{name}", lang)
    return ""


GROUPS: tuple[tuple[type, str], ...] = (
    (Peek, "peek"), (Loco, "loco"), (Price, "price"), (Oil, "oil"), (Done, "done"),
    (Pass, "pass"), (Pay, "pay"), (Sell, "sell"), (Build, "build"), (Skip, "skip"),
    (Take, "take"))


def action_label(action: object, lang: str) -> str | None:
    """A whole move as one option (short: the step's question says the rest)."""
    if isinstance(action, Take):
        return card_label(action.card, lang)
    if isinstance(action, Drive):
        return t(f"{KEY}.drive", lang, to=action.path[-1], count=len(action.path))
    if isinstance(action, Peek):
        return t(f"{KEY}.peek", lang, label=action.label)
    if isinstance(action, Loco):
        return t(f"{KEY}.loco", lang, steps=action.steps)
    if isinstance(action, Price):
        way = "up" if action.change > 0 else "down"
        return t(f"{KEY}.price.{way}", lang, company=company(action.company, lang),
                 steps=abs(action.change))
    if isinstance(action, Oil):
        return t(f"{KEY}.oil", lang, company=company(action.company, lang))
    if isinstance(action, Build):
        cost = BUILD_COST.get(TILE_TYPE.get(action.label, 0))
        return t(f"{KEY}.build", lang, label=action.label,
                 cost=money(cost, lang) if cost else "?")
    if isinstance(action, Bid):
        return t(f"{KEY}.bid", lang, amount=action.amount)
    if isinstance(action, Pay):
        return t(f"{KEY}.pay", lang, values=cards_text(action.values),
                 total=sum(action.values))
    if isinstance(action, Sell):
        return t(f"{KEY}.sell", lang, count=action.count)
    simple = {Done: "done", Skip: "skip", Pass: "pass"}
    name = simple.get(type(action))
    return t(f"{KEY}.{name}", lang) if name else None


def card_label(card: str, lang: str) -> str:
    """An action card's contents in one short line: what a player weighs when taking it."""
    data = CARDS[card]
    bits = [t("bot.giganten.card.numbers", lang, licences=data["licences"], mp=data["mp"])]
    if "black" in data:
        bits.insert(0, t("bot.giganten.card.black", lang, black=data["black"]))
    special = data["special"]
    if special:
        bits.append(t(f"bot.giganten.card.special.{special['kind']}", lang, n=special["value"]))
    return f"{card}: " + " · ".join(bits)


def cards_text(values: tuple[int, ...]) -> str:
    """Licence cards counted by value, highest first: ``2 2 2 1`` as ``3×2 + 1×1``."""
    return " + ".join(f"{values.count(v)}×{v}" for v in sorted(set(values), reverse=True))


def _entry_of(part: str) -> Entry | None:
    """The derrick entry a shipment's part names (the first part carries the verb)."""
    word = part.split()[-1]
    try:
        action = parse(f"produce {word}")
    except IllegalAction:
        return None
    return action.entries[0] if isinstance(action, Produce) else None


def entry_label(entry: Entry, lang: str) -> str:
    """Where one derrick's chip goes, with the fee when it rides another train."""
    if entry.company is None:
        return t(f"{KEY}.entry.drop", lang, label=entry.label)
    name = company(entry.company, lang)
    if entry.via is None:
        return t(f"{KEY}.entry.free", lang, label=entry.label, company=name)
    fee = money(FEE, lang)
    if entry.via == "black":
        return t(f"{KEY}.entry.black", lang, label=entry.label, company=name, fee=fee)
    return t(f"{KEY}.entry.rival", lang, label=entry.label, company=name, fee=fee,
             colour=colour_name(entry.via, lang))


def company(company_id: str, lang: str) -> str:
    return t(f"bot.giganten.company.{company_id}", lang)
