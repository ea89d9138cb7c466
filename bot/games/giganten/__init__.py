"""Giganten on Discord: event summaries, and the choices its prompts offer.

Everything here reads views, events and legal actions, never a raw state. An event that carries
a secret names its seat in ``private``; the public summary never reads that field, and a forfeit
is told by its card count only. Paying for a won auction is the one choice made with the secret
hand: it goes through the DM machinery (``private_kinds``), with the seat's hand picture as its
private screen. The table's components: action cards that show their contents, build and
shipping buttons with a sensible default, and the open auction's +1 / +2 / other amount / Pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.games._ui import (
    Button,
    Choice,
    Component,
    Field,
    Form,
    GameUI,
    Select,
    colour_name,
    places_in,
)
from bot.games.giganten import _changes, _facts, _moves, _taps
from render import giganten as art
from render.focus import MOST_TILES
from render.giganten import money
from render.i18n import has, join, t
from rules.core import Event
from rules.giganten.auction import auto_payment, payments
from rules.giganten.board import BUILD_COST, FEE, OVERFILL, STORAGE_LIMIT

MAX_CHOICES = 25
"""Discord shows at most 25 options in a select."""
MAX_LABEL = 80


def company_name(company: str | None, lang: str) -> str:
    return t(f"bot.giganten.company.{company}", lang) if company else "-"


card_text = _taps.card_label
"""An action card's contents in one short line (also a tap's option)."""


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

    def changed(self, events: list[Event]) -> set[str]:
        return _changes.changed(events)

    def focus_places(self, kind: str, view: dict[str, Any], legal: list[str]) -> list[str]:
        """The spaces the legal moves name: where a drive can end (the spaces it passes are
        its own business), where to build, what to produce on."""
        return places_in(legal, art.GRID, last=kind == "move")

    def move_words(self, notation: str, lang: str) -> str:
        return _moves.words(notation, lang)

    def facts(self, view: dict[str, Any], lang: str, names: dict[str, str]) -> list[str]:
        return _facts.facts(view, lang, names)

    def describe(self, event: Event, lang: str, names: dict[str, str]) -> str | None:
        kind = event.get("kind", "")
        if kind in self.quiet_events:
            return None
        params = self.params(event, names)
        params.pop("private", None)  # a secret never reaches a public summary
        if "company" in event:
            params["company"] = company_name(event["company"], lang)
        if kind == "prices":
            params["prices"] = join([f"{company_name(c, lang)} {money(p, lang)}"
                                     for c, p in event["prices"].items()], lang)
        elif kind == "reveal":
            params["cards"] = join(event["cards"], lang)
        elif kind == "take":
            params["card"] = card_text(event["card"], lang)
        elif kind == "produce":
            params["to"] = company_name(event["to"], lang)
            key = "drop" if event["to"] is None else ("paid" if event["via"] else "free")
            via = event.get("via")
            params["via"] = t("bot.giganten.via.black", lang) if via == "black" \
                else (names.get(via, via) if via else "")
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

    def components(self, kind: str, view: dict[str, Any], colour: str, legal: list[str],
                   lang: str) -> list[Component]:
        """Richer than one button per action: what each choice means is on its label."""
        decision = view["decision"]
        if decision == "take":
            return [Button("act", card_text(a.split()[1], lang), a) for a in legal]
        if decision == "move":
            mp = (view.get("turn") or {}).get("mp_left", 0)
            return [Button("act", t("bot.giganten.button.done", lang, mp=mp), "done")]
        if decision == "build":
            items: list[Component] = []
            for a in legal:
                if a == "skip":
                    items.append(Button("act", t("bot.giganten.button.skip", lang), a,
                                        "secondary"))
                else:
                    label = a.split()[1]
                    cost = BUILD_COST[view["spaces"][label]["type"]]
                    items.append(Button("act", t("bot.giganten.button.build", lang, label=label,
                                                 cost=money(cost, lang)), a))
            return items
        if decision == "produce":
            return _produce_items(legal, view["prices"], view["players"][colour]["storage"],
                                  lang)
        if decision == "bid":
            return bid_items(view, set(legal), lang)
        return []

    # --- the guided choice (taps) ------------------------------------------------------------

    def move_parts(self, kind: str, notation: str) -> tuple[str, ...]:
        return _taps.parts(kind, notation)

    def part_prompt(self, kind: str, chosen: tuple[str, ...], lang: str) -> str:
        return _taps.prompt(kind, chosen, lang)

    def part_label(self, kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
        return _taps.label(kind, chosen, part, lang)

    def part_group(self, kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
        return _taps.group(kind, chosen, part, lang)

    def spread(self, kind: str, chosen: tuple[str, ...], parts: tuple[str, ...]) -> bool:
        """A step's drives end wider apart than one close-up shows at a phone's reading size,
        in more places than it shows as tiles: then they come by blocks of the map
        (:func:`_taps.block`)."""
        ends = _taps.drive_ends(parts)
        if len(ends) <= MOST_TILES:  # none, or few enough for a tile each
            return False
        box = art.place_box({}, ends)
        return (box[2] - box[0], box[3] - box[1]) != (art.FOCUS_WIDTH - art.ROW_BAND,
                                                      art.FOCUS_HEIGHT - art.COLUMN_BAND)

    def stage(self, view: dict[str, Any]) -> str:
        """Card choice, movement and building, production, the auctions (each round)."""
        return f"{view.get('round')}:{STAGES.get(str(view.get('phase')), view.get('phase'))}"

    def score_text(self, score: float, lang: str) -> str:
        return money(score, lang)

    # --- the payment form (the only choice that uses the secret hand) ---------------------------

    def prompt_text(self, kind: str, view: dict[str, Any], seat: str, lang: str) -> str:
        auction = view.get("auction")
        if kind != "sell" or not auction:
            return super().prompt_text(kind, view, seat, lang)
        company = auction["company"]
        return t("bot.giganten.prompt.sell", lang, company=company_name(company, lang),
                 bid=licence_points(auction["high_bid"], lang),
                 hand=hand_text(view["you"]["licences"], lang),
                 stored=view["players"][seat]["storage"][company],
                 price=money(view["prices"][company], lang),
                 auto=" ".join(str(v) for v in default_payment(view)))

    def private_form(self, kind: str, view: dict[str, Any], seat: str,
                     lang: str) -> Form | None:
        """One pick, preselected on selling everything with the automatic (smallest) payment;
        other counts, and explicit payments, are the other choices (in plain words: what a
        sale brings, which cards a payment gives)."""
        auction = view.get("auction")
        if kind != "sell" or not auction:
            return None
        stored = view["players"][seat]["storage"][auction["company"]]
        price = view["prices"][auction["company"]]
        auto = default_payment(view)
        choices = [(f"sell {n}", self._sale_words(n, price, () if auction.get("paid") else auto,
                                                  lang))
                   for n in range(stored, -1, -1)]
        hand = list(view["you"]["licences"])
        if sum(hand) >= auction["high_bid"]:
            for values in payments(hand, auction["high_bid"]):
                if values != auto:
                    shown = " ".join(str(v) for v in values)
                    choices.append((f"pay {shown}", t(
                        "bot.giganten.taps.form.pay", lang, values=_taps.cards_text(values),
                        total=sum(values))))
        return Form("", (Field("sale", t("bot.giganten.form.label", lang),
                               tuple(choices[:MAX_CHOICES])),))

    def _sale_words(self, count: int, price: int, paying: tuple[int, ...], lang: str) -> str:
        """Selling ``count`` chips at ``price`` in words, with what they bring, after what is
        paid first (``paying``: the cards a ``sell`` pays by itself; none once paid)."""
        sell = t("bot.giganten.taps.form.sell", lang, count=count, money=money(count * price, lang))
        if not paying:
            return sell
        pay = self.move_words("pay " + " ".join(str(v) for v in paying), lang)
        both = t("bot.giganten.form.sell", lang, pay=pay, sell=sell[:1].lower() + sell[1:])
        return both[:1].upper() + both[1:]

    def screen_art(self) -> Callable[[dict[str, Any], str, str], bytes | None]:
        """The licence hand, tiles peeked at and action card, for that seat's DM only."""
        return art.hand

    def has_screen(self) -> bool:
        return True

    def screen_key(self, view: dict[str, Any], seat: str) -> Any:
        """The same private content gives the same picture, so a player's screen message is
        redrawn only when the round, the hand, a peeked tile or the card changed, not at
        every phase."""
        player = view["players"][seat]
        return [view["round"], sorted(view["you"]["licences"]), player["card"], [
            (label, view["spaces"][label]["state"], view["spaces"][label]["value"])
            for label in player["peeked"]]]

    def screen_text(self, view: dict[str, Any], seat: str, lang: str) -> str:
        return hand_text(view["you"]["licences"], lang)


STAGES = {"setup": "cards", "prices": "cards", "cards": "cards", "licences": "build",
          "move": "build", "build": "build", "produce": "produce", "auction": "auction"}
"""Engine phase -> the table's stage."""


def _label(text: str, most: int = MAX_LABEL) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _produce_items(legal: list[str], prices: dict[str, int], stored: dict[str, int],
                   lang: str) -> list[Component]:
    """The best-looking shipping as one click, every other outcome in a select; past 25
    outcomes, the best one as a button that names it, and the others by taps, derrick by
    derrick (the table adds that choice when these components do not offer every line)."""
    ranked = ranked_productions(legal, prices, stored)
    if not ranked:
        return []
    best = ranked[0]
    if len(ranked) > MAX_CHOICES:
        return [Button("act", _label(t("bot.giganten.button.produce", lang,
                                       line=entries(legal[best], lang))), legal[best])]
    items: list[Component] = [Button(
        "pick", _label(t("bot.giganten.button.produce", lang, line=entries(legal[best], lang))),
        str(best))]
    if len(ranked) > 1:
        choices = []
        for i in ranked[:MAX_CHOICES]:
            fees = sum(entry_fee(e) for e in legal[i].split()[1:])
            choices.append(Choice(_label(entries(legal[i], lang), 100), f"#{i}",
                                  t("bot.giganten.option.fees", lang, fees=money(fees, lang)),
                                  default=i == best))
        items.append(Select("sel", t("bot.giganten.select.produce", lang), tuple(choices)))
    return items


def entries(line: str, lang: str) -> str:
    """``produce C5=jet D3=hudson:black`` as ``C5→Jet, D3→Hudson via black``."""
    out = []
    for entry in line.split()[1:]:
        label, _, where = entry.partition("=")
        company, _, via = where.partition(":")
        if company == "drop":
            out.append(t("bot.giganten.entry.drop", lang, label=label))
        elif via:
            shown = t("bot.giganten.via.black_short", lang) if via == "black" \
                else colour_name(via, lang)
            out.append(t("bot.giganten.entry.paid", lang, label=label,
                         company=company_name(company, lang), via=shown))
        else:
            out.append(t("bot.giganten.entry.free", lang, label=label,
                         company=company_name(company, lang)))
    return join(out, lang)


def licence_points(n: int, lang: str) -> str:
    """A bid with its unit: bids are in licence points, paid with licence cards."""
    return t("count.giganten.licence_point", lang, count=n)


def bid_items(view: dict[str, Any], legal: set[str], lang: str) -> list[Component]:
    """+1 and +2 (each naming the whole bid), Pass, any other amount, and the next 25 amounts
    in a select (one tap each). Short labels, so that the buttons share a row of a phone's
    screen; the high bid and its unit are in the table's facts right above (``Auction at
    Standard: high bid 2 licence points by Red``), not on a disabled button of their own."""
    high = view["auction"]["high_bid"]
    items: list[Component] = []
    for step in (1, 2):
        if f"bid {high + step}" in legal:
            items.append(Button("act", t("bot.giganten.button.bid", lang, amount=high + step,
                                         step=step), f"bid {high + step}"))
    items.append(Button("act", t("bot.giganten.button.pass", lang), "pass", "danger"))
    if f"bid {high + 3}" in legal:
        items.append(Button("other", t("bot.giganten.button.other", lang), style="secondary"))
    more = [f"bid {n}" for n in range(high + 3, high + 3 + MAX_CHOICES) if f"bid {n}" in legal]
    if more:  # the next amounts as one tap each; a higher one is typed in the modal
        items.append(Select("sel", t("bot.giganten.taps.select.bid", lang), tuple(
            Choice(_taps.label("bid", (), bid, lang), bid) for bid in more)))
    return items


UI = GigantenUI()
