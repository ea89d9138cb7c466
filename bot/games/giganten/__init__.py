"""Giganten on Discord: event summaries, and the choices its prompts offer.

Everything here reads views, events and legal actions, never a raw state. An event that carries
a secret names its seat in ``private``; the public summary never reads that field, and a forfeit
is told by its card count only. Paying for a won auction is the one choice made with the secret
hand: it goes through the DM machinery (``private_kinds``), with the seat's hand picture as its
private screen. The channel components (cards, builds, shipping, bids) live in
:mod:`bot.exts.giganten`.
"""

from __future__ import annotations

from typing import Any

from bot.games import Field, Form, GameUI
from render.i18n import has, t
from rules.core import Event
from rules.giganten.auction import auto_payment, payments
from rules.giganten.board import CARDS, FEE, OVERFILL, STORAGE_LIMIT

MAX_CHOICES = 25
"""Discord shows at most 25 options in a select."""


def money(amount: int, lang: str) -> str:
    return t("render.giganten.money", lang, amount=f"{amount:,}")


def company_name(company: str | None, lang: str) -> str:
    return t(f"bot.giganten.company.{company}", lang) if company else "-"


def card_text(card: str, lang: str) -> str:
    """An action card's contents in one short line: what a player weighs when taking it."""
    data = CARDS[card]
    parts = [t("bot.giganten.card.numbers", lang, licences=data["licences"], mp=data["mp"])]
    if "black" in data:
        parts.insert(0, t("bot.giganten.card.black", lang, black=data["black"]))
    special = data["special"]
    if special:
        parts.append(t(f"bot.giganten.card.special.{special['kind']}", lang, n=special["value"]))
    return f"{card}: " + " · ".join(parts)


def hand_text(values: list[int], lang: str) -> str:
    """A licence hand in words, for its owner only."""
    if not values:
        return t("bot.giganten.hand.empty", lang)
    return t("bot.giganten.hand.cards", lang, cards=" ".join(str(v) for v in sorted(values)),
             count=len(values), total=sum(values))


def entry_fee(entry: str) -> int:
    """The fee of one ``produce`` entry (``D3=hudson:black`` costs, ``D3=hudson`` is free)."""
    return FEE if ":" in entry else 0


def produce_score(line: str, prices: dict[str, int], stored: dict[str, int]) -> int:
    """How good a production line looks: each chip at its company's price while the storage
    holds at most 2 (more are returned for $1,000 each at the end of the round), minus fees."""
    score = 0
    count = dict(stored)
    for entry in line.split()[1:]:
        _, _, where = entry.partition("=")
        company = where.split(":", 1)[0]
        if company == "drop":
            continue
        count[company] = count.get(company, 0) + 1
        worth = prices.get(company, 0) if count[company] <= STORAGE_LIMIT else OVERFILL
        score += worth - entry_fee(entry)
    return score


def ranked_productions(legal: list[str], prices: dict[str, int],
                       stored: dict[str, int]) -> list[int]:
    """Indices of the legal ``produce`` lines, best first (the first is the default)."""
    return sorted(range(len(legal)), key=lambda i: (-produce_score(legal[i], prices, stored), i))


def default_payment(view: dict[str, Any]) -> tuple[int, ...]:
    """The payment ``sell`` makes by itself: smallest total, then fewest cards (spec 5.7)."""
    auction = view["auction"]
    return auto_payment(list(view["you"]["licences"]), auction["high_bid"])


class GigantenUI(GameUI):
    name = "giganten"
    quiet_events = frozenset({"turn", "game_over", "tiles", "discard"})
    public_lines = False  # dealt licences and tile values are secret (rules spec 7)
    private_kinds = frozenset({"sell"})
    dm_kinds = frozenset({"bid"})
    """Paying for a won auction uses the secret hand: its form goes by DM. Bids are open
    (rules spec 5.7) and made with buttons in the channel."""

    def __init__(self) -> None:
        self._screens: dict[tuple[Any, ...], tuple[tuple[Any, ...], bytes]] = {}
        """(seats, seat) -> the private content last drawn and its picture."""

    def describe(self, event: Event, lang: str, names: dict[str, str]) -> str | None:
        kind = event.get("kind", "")
        if kind in self.quiet_events:
            return None
        params = self.params(event, names)
        params.pop("private", None)  # a secret never reaches a public summary
        if "company" in event:
            params["company"] = company_name(event["company"], lang)
        if kind == "prices":
            params["prices"] = ", ".join(
                f"{company_name(c, lang)} {money(p, lang)}" for c, p in event["prices"].items())
        elif kind == "reveal":
            params["cards"] = ", ".join(event["cards"])
        elif kind == "take":
            params["card"] = card_text(event["card"], lang)
        elif kind == "produce":
            params["to"] = company_name(event["to"], lang)
            key = "drop" if event["to"] is None else ("paid" if event["via"] else "free")
            via = event.get("via")
            params["via"] = t("bot.giganten.via.black", lang) if via == "black" \
                else names.get(via, via or "")
            return t(f"bot.giganten.event.produce_{key}", lang, **params)
        elif kind == "build":
            params["cost"] = money(event["cost"], lang)
        elif kind in ("sell", "price"):
            params["price"] = money(event["price"], lang)
        elif kind == "drive":
            params["path"] = " ".join(event["path"])
        elif kind == "pay":
            params["values"] = " ".join(str(v) for v in event["values"])
        elif kind == "forfeit":
            params.pop("values", None)
            params["count"] = len(event["values"])
        elif kind == "won" and event.get("bluff"):
            return t("bot.giganten.event.won_bluff", lang, **params)
        elif kind == "auction":
            params["participants"] = [names.get(c, c) for c in event["participants"]]
        elif kind == "locos_back":
            params["moved"] = [names.get(c, c) for c in event.get("moved", [])] or "-"
        elif kind == "round":
            params["start_player"] = names.get(event["start_player"], event["start_player"])
        key = f"bot.giganten.event.{kind}"
        return t(key, lang, **params) if has(key, lang) else None

    def describe_private(self, event: Event, lang: str, names: dict[str, str]) -> str | None:
        """What only the event's own seat learns: its dealt cards, a peeked tile's value."""
        secret = event.get("private")
        if not isinstance(secret, dict):
            return None
        if event.get("kind") == "licences":
            return t("bot.giganten.private.licences", lang,
                     values=" ".join(str(v) for v in sorted(secret.get("values", []))) or "-")
        if event.get("kind") == "peek":
            return t("bot.giganten.private.peek", lang, label=event.get("label"),
                     value=secret.get("value"))
        return None

    def button_actions(self, kind: str, legal: list[str]) -> list[str]:
        """None of the generic buttons: :mod:`bot.exts.giganten` builds richer ones."""
        return []

    def channel_items(self, session: Any) -> list[Any]:
        from bot.exts.giganten import channel_items

        return channel_items(session)

    # --- the payment form (the only choice that uses the secret hand) ---------------------------

    def prompt_text(self, kind: str, view: dict[str, Any], seat: str, lang: str) -> str:
        auction = view.get("auction")
        if kind != "sell" or not auction:
            return super().prompt_text(kind, view, seat, lang)
        company = auction["company"]
        return t("bot.giganten.prompt.sell", lang, company=company_name(company, lang),
                 bid=auction["high_bid"], hand=hand_text(view["you"]["licences"], lang),
                 stored=view["players"][seat]["storage"][company],
                 price=money(view["prices"][company], lang),
                 auto=" ".join(str(v) for v in default_payment(view)))

    def private_form(self, kind: str, view: dict[str, Any], seat: str,
                     lang: str) -> Form | None:
        """One pick, preselected on selling everything with the automatic (smallest) payment;
        other counts, and explicit payments, are the other choices."""
        auction = view.get("auction")
        if kind != "sell" or not auction:
            return None
        stored = view["players"][seat]["storage"][auction["company"]]
        auto = default_payment(view)
        choices = [(f"sell {n}", t("bot.giganten.form.sell", lang, count=n))
                   for n in range(stored, -1, -1)]
        hand = list(view["you"]["licences"])
        if sum(hand) >= auction["high_bid"]:
            for values in payments(hand, auction["high_bid"]):
                if values != auto:
                    shown = " ".join(str(v) for v in values)
                    choices.append((f"pay {shown}", t("bot.giganten.form.pay", lang,
                                                      values=shown, total=sum(values))))
        return Form("", (Field("sale", t("bot.giganten.form.label", lang),
                               tuple(choices[:MAX_CHOICES])),))

    def screen(self, view: dict[str, Any], seat: str, lang: str) -> bytes | None:
        """The licence hand, tiles peeked at and action card, for that seat's DM only.

        The same private content gives the same picture (its caption keeps the moment it was
        drawn), so a player is sent a new one only when the hand, a peeked tile or the card
        changed, not at every phase."""
        from render import giganten

        player = view["players"][seat]
        content = (lang, tuple(view["you"]["licences"]), player["card"], tuple(
            (label, view["spaces"][label]["state"], view["spaces"][label]["value"])
            for label in player["peeked"]))
        key = (tuple(view["seats"]), seat)
        known = self._screens.get(key)
        if known is not None and known[0] == content:
            return known[1]
        png = giganten.hand(view, seat, lang)
        self._screens[key] = (content, png)
        return png


UI = GigantenUI()
