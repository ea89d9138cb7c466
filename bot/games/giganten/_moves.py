"""Giganten moves in words: ``build D3`` -> "build a derrick on D3".

The notation is read with the game's own parser; spaces and card ids stay as they are typed.
Every word comes from the ``move.giganten.*`` keys of the catalogue, companies from
``bot.giganten.company.*`` and colours from ``bot.colour.*``.
"""

from __future__ import annotations

from bot.games._ui import colour_name, path_words
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

PLUS = "+"


def words(notation: str, lang: str) -> str:
    """``notation`` (one move of a seat) in words of ``lang``; the notation itself when it is
    not a seat's move (a chance line) or cannot be read."""
    try:
        action = parse(notation)
    except IllegalAction:
        return notation
    if isinstance(action, Take):
        return t("move.giganten.take", lang, card=action.card)
    if isinstance(action, Drive):
        return path_words(action.path, lang, "move.giganten.drive")
    if isinstance(action, Peek):
        return t("move.giganten.peek", lang, label=action.label)
    if isinstance(action, Loco):
        return t("move.giganten.loco", lang, steps=action.steps)
    if isinstance(action, Price):
        way = "up" if action.change > 0 else "down"
        return t(f"move.giganten.price.{way}", lang, company=company(action.company, lang),
                 steps=abs(action.change))
    if isinstance(action, Oil):
        return t("move.giganten.oil", lang, company=company(action.company, lang))
    if isinstance(action, Build):
        return t("move.giganten.build", lang, label=action.label)
    if isinstance(action, Produce):
        return t("move.giganten.produce", lang,
                 entries=[_entry(entry, lang) for entry in action.entries])
    if isinstance(action, Bid):
        return t("move.giganten.bid", lang, amount=action.amount)
    if isinstance(action, Pay):
        return t("move.giganten.pay", lang, values=PLUS.join(str(v) for v in action.values),
                 total=sum(action.values))
    if isinstance(action, Sell):
        return t("move.giganten.sell", lang, count=action.count)
    simple = {Done: "done", Skip: "skip", Pass: "pass"}
    kind = simple.get(type(action))
    return t(f"move.giganten.{kind}", lang) if kind else notation


def _entry(entry: Entry, lang: str) -> str:
    """Where one derrick's chip goes: a company, paying the black train or a rival, or back."""
    if entry.company is None:
        return t("move.giganten.entry.drop", lang, label=entry.label)
    name = company(entry.company, lang)
    if entry.via is None:
        return t("move.giganten.entry.free", lang, label=entry.label, company=name)
    if entry.via == "black":
        return t("move.giganten.entry.black", lang, label=entry.label, company=name)
    return t("move.giganten.entry.rival", lang, label=entry.label, company=name,
             colour=colour_name(entry.via, lang))


def company(company_id: str, lang: str) -> str:
    return t(f"bot.giganten.company.{company_id}", lang)
