"""The few Giganten numbers a phone user needs now, one short line each, for the status embed.

Made from the public view only: no licence hand, no tile value, no sealed number is read, so a
seat's own view gives the same lines as a spectator's.
"""

from __future__ import annotations

from typing import Any

from render.giganten import money
from render.i18n import t
from rules.giganten.board import COMPANIES, HARBOUR

SUPPLY_PHASES = ("move",)
"""The phase whose decisions take oil chips from the supply (a derrick's, a drive's oil)."""


def _names(view: dict[str, Any], lang: str, names: dict[str, str]) -> dict[str, str]:
    return {s: names.get(s) or t(f"render.colour.{s}", lang) for s in view["seats"]}


def _company(company: str, lang: str) -> str:
    return t(f"bot.giganten.company.{company}", lang)


def facts(view: dict[str, Any], lang: str, names: dict[str, str]) -> list[str]:
    """How far the black train has to go (the title says the round); the oil prices; the
    open auction (its company and high bid, in licence points); the movement points left in a
    turn; the oil chips in the supply while a turn may take some (only what the decision at
    hand needs: the message fits a phone's first screen)."""
    shown = _names(view, lang, names)
    lines = [t("bot.giganten.fact.round", lang, black=view["black_loco"], harbour=HARBOUR)]
    prices = " · ".join(f"{_company(c, lang)} {money(view['prices'][c], lang)}"
                        for c in COMPANIES)
    lines.append(t("bot.giganten.fact.prices", lang, prices=prices))
    auction = view.get("auction")
    if auction:
        company = _company(auction["company"], lang)
        bidder = auction.get("high_bidder")
        lines.append(t("bot.giganten.fact.auction_high", lang, company=company,
                       bid=t("count.giganten.licence_point", lang, count=auction["high_bid"]),
                       name=shown[bidder]) if bidder in shown
                     else t("bot.giganten.fact.auction_open", lang, company=company))
    turn = view.get("turn")
    if turn and turn.get("seat") in shown:
        lines.append(t("bot.giganten.fact.mp", lang, name=shown[turn["seat"]],
                       mp=turn["mp_left"]))
    if view.get("phase") in SUPPLY_PHASES:
        supply = view.get("supply")
        lines.append(t("bot.giganten.fact.supply_unlimited", lang) if supply is None
                     else t("bot.giganten.fact.supply", lang, n=supply))
    return lines
