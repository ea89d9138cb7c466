"""Giants on Discord: sealed bids and end-of-round answers by DM, summaries of every event.

The bid is a form (markers, workers, chief, sorcerer) built from the seat's own view; the
choosing of statues gets buttons; placement, transport and a long list of end-of-round answers
are made by taps in steps (:mod:`bot.games.giants._taps`: what, then where with how many logs),
with ``pass`` and ``rongo`` as buttons beside them, or typed with ``/play``. Summaries never
name a bid before the reveal (the engine only says who has bid) and never attach an owner to an
erected moai.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.games._ui import Field, Form, GameUI, places_in
from bot.games.giants import _changes, _facts, _moves, _taps
from render import giants as art
from render.focus import FOCUS_HEIGHT, FOCUS_WIDTH, MOST_TILES
from render.i18n import has, join, t
from rules.core import Event

PLACES = frozenset(art.HEX_CR) | frozenset(art.ahu_spots())
"""The hexes and ahus of the island: what a focus picture can show."""
COMMON = ("pass", "rongo")
"""Phase 3 and 4 choices worth a button of their own; every move is also a choice by taps."""


class GiantsUI(GameUI):
    name = "giants"
    choice_phases = frozenset({"choose"})
    private_kinds = frozenset({"bid", "endround"})

    def changed(self, events: list[Event]) -> set[str]:
        return _changes.changed(events)

    def move_words(self, notation: str, lang: str) -> str:
        return _moves.words(notation, lang)

    # --- guided choices (taps) -------------------------------------------------------------

    def move_parts(self, kind: str, notation: str) -> tuple[str, ...]:
        return _taps.parts(kind, notation)

    def part_prompt(self, kind: str, chosen: tuple[str, ...], lang: str) -> str:
        return _taps.prompt(kind, chosen, lang)

    def part_label(self, kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
        return _taps.label(kind, chosen, part, lang)

    def part_group(self, kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
        return _taps.group(kind, chosen, part, lang)

    def facts(self, view: dict[str, Any], lang: str, names: dict[str, str]) -> list[str]:
        return _facts.facts(view, lang, names)

    def focus_places(self, kind: str, view: dict[str, Any], legal: list[str]) -> list[str]:
        """The hexes and ahus the legal moves name; of a transport, where it ends (the hex,
        or the ahu it is erected on: its path is the engine's, no choice)."""
        return places_in(legal, PLACES, last=kind == "transport")

    def spread(self, kind: str, chosen: tuple[str, ...], parts: tuple[str, ...]) -> bool:
        """A statue's transports end wider apart than one close-up shows (and in more places
        than it shows as tiles): then they come by bands of hexes."""
        if kind != "transport" or not chosen:
            return False
        ends = places_in(list(parts), PLACES, last=True)
        if len(ends) <= MOST_TILES:
            return False
        box = art.place_box({}, ends)
        return (box[2] - box[0], box[3] - box[1]) != (FOCUS_WIDTH, FOCUS_HEIGHT)

    def button_actions(self, kind: str, legal: list[str]) -> list[str]:
        if kind in ("place", "transport"):
            return [a for a in legal if a in COMMON]
        return super().button_actions(kind, legal)

    # --- private prompts --------------------------------------------------------------------

    def prompt_text(self, kind: str, view: dict[str, Any], seat: str, lang: str) -> str:
        if kind != "bid":
            return t("bot.giants.prompt.endround", lang, round=view.get("round"))
        screen = view.get("screen") or {}
        return t("bot.giants.prompt.bid", lang, round=view.get("round"),
                 offer=view.get("offer") or [], markers=screen.get("markers", 0),
                 workers=screen.get("workers", 0), figures=self._figures(screen, lang),
                 rongo=view["players"][seat]["rongo"])

    def _figures(self, screen: dict[str, Any], lang: str) -> str:
        names = [t(f"bot.giants.form.{p}", lang) for p in ("chief", "sorcerer") if screen.get(p)]
        return join(names, lang) or t("bot.giants.prompt.no_figure", lang)

    def private_form(self, kind: str, view: dict[str, Any], seat: str,
                     lang: str) -> Form | None:
        if kind != "bid":
            return None
        screen = view.get("screen") or {}
        markers = tuple((f"{k}m", str(k)) for k in range(screen.get("markers", 0) + 1))
        workers = (("", "0"), *((f"{w}w", str(w)) for w in range(1, screen.get("workers", 0) + 1)))
        no, yes = t("bot.giants.form.no", lang), t("bot.giants.form.yes", lang)

        def figure(piece: str) -> tuple[tuple[str, str], ...]:
            return (("", no), (piece, yes)) if screen.get(piece) else (("", no),)

        return Form("bid", (
            Field("markers", t("bot.giants.form.markers", lang), markers),
            Field("workers", t("bot.giants.form.workers", lang), workers),
            Field("chief", t("bot.giants.form.chief", lang), figure("chief"), toggle=True),
            Field("sorcerer", t("bot.giants.form.sorcerer", lang), figure("sorcerer"),
                  toggle=True)))

    def screen_art(self) -> Callable[[dict[str, Any], str, str], bytes | None]:
        """The seat's screen: what it holds behind it and in front of it."""
        return art.screen

    def screen_key(self, view: dict[str, Any], seat: str) -> Any:
        """Everything the screen picture reads (render/giants_screen.py): its caption (the
        round), the pieces behind the screen and in front of it with those items, the urn,
        the seat's sealed bid and end-of-round answer, prestige and rongo, and each known
        moai's ahu, owner, size and headdress; not the phase, nor whether the seat passed
        (the table shows that), so a screen is redrawn only when what it holds changes."""
        player = {k: v for k, v in view["players"][seat].items() if k != "passed"}
        known = sorted((a, spot["owner"], view["items"][spot["moai"]]["size"],
                        spot["headdress"] is not None)
                       for a, spot in view["ahus"].items() if spot["moai"] and spot["owner"])
        return [view.get("round"), view.get("screen"), view.get("urn"), player,
                [view["items"][i] for i in player.get("front") or []],
                view.get("my_bid"), view.get("my_endround"), view["scores"].get(seat), known]

    def stage(self, view: dict[str, Any]) -> str:
        """Giants' five phases: the dice open the bidding, so they share its stage."""
        phase = view.get("phase")
        return f"{view.get('round')}:{'bid' if phase == 'draw' else phase}"

    # --- summaries --------------------------------------------------------------------------

    def describe(self, event: Event, lang: str, names: dict[str, str]) -> str | None:
        kind = event.get("kind")
        if kind == "rolled" and not event.get("sizes"):
            return t("bot.giants.event.rolled_none", lang, **self.params(event, names))
        if kind == "bids_revealed":
            bids = join([f"{names.get(c, c)} {self.bid_words(b, lang)}"
                         for c, b in event["bids"].items()], lang, strong=True)
            order = [names.get(c, c) for c in event["order"]]
            return t("bot.giants.event.bids_revealed", lang, bids=bids, order=order)
        if kind == "auction_closed" and event.get("returned"):
            return t("bot.giants.event.auction_closed_returned", lang,
                     **self.params(event, names))
        if kind == "endround_resolved":
            return self._endround(event, lang, names)
        if kind == "prestige":  # helper points are told with the move that earned them
            return None if event.get("reason") == "helper" else \
                t("bot.giants.event.prestige_delivery", lang, **self.params(event, names))
        if kind == "moved":
            return self._moved(event, lang, names)
        if kind == "hex_action" and "gained" in event:
            return self.words("bot.giants.event.hex_action_gained", event, lang, names)
        if kind in self.quiet_events:
            return None
        return self.words(f"bot.giants.event.{kind}", event, lang, names)

    def _moved(self, event: Event, lang: str, names: dict[str, str]) -> str | None:
        points: dict[str, int] = {}
        for used in event.get("helpers", []):
            for colour, n in used.get("points", {}).items():
                points[colour] = points.get(colour, 0) + n
        text = self.words("bot.giants.event.moved", event, lang, names) or ""
        if points:
            helpers = [t("bot.giants.event.helper", lang, seat=names.get(c, c), points=n)
                       for c, n in points.items()]
            text += " " + t("bot.giants.event.helpers", lang, helpers=helpers)
        return text

    def bid_words(self, bid: dict[str, Any], lang: str) -> str:
        parts = [t("bot.giants.bid.markers", lang, n=bid["markers"])]
        if bid["workers"]:
            parts.append(t("bot.giants.bid.workers", lang, n=bid["workers"]))
        parts += [t(f"bot.giants.form.{p}", lang) for p in ("chief", "sorcerer") if bid[p]]
        return join(parts, lang)

    def _endround(self, event: Event, lang: str, names: dict[str, str]) -> str:
        parts = []
        for seat, items in event.get("marks", {}).items():
            if items:
                parts.append(t("bot.giants.event.endround_mark", lang,
                               seat=names.get(seat, seat), items=items))
        for seat, items in event.get("recalls", {}).items():
            if items:
                parts.append(t("bot.giants.event.endround_recall", lang,
                               seat=names.get(seat, seat), items=items))
        return t("bot.giants.event.endround_resolved", lang,
                 changes=" ".join(parts) or t("bot.giants.event.endround_nothing", lang))

    def words(self, key: str, event: Event, lang: str, names: dict[str, str]) -> str | None:
        """``key`` filled from the event, with figures, logs and paths in words."""
        if not has(key, lang):
            return None
        out = self.params(event, names)
        for field in ("figure", "by"):
            if field in event:
                out[field] = t(f"bot.giants.form.{event[field]}", lang)
        if "logs" in event:
            out["logs"] = t("bot.giants.event.with_logs", lang, n=event["logs"]) \
                if event.get("logs") else ""
        if "path" in event:
            out["path"] = " → ".join(event["path"])
        if "action" in event:
            out["action"] = t(f"bot.giants.action.{event['action']}", lang)
        if isinstance(event.get("gained"), dict):
            out["gained"] = join([t(f"bot.giants.gained.{k}", lang, v=v)
                                  for k, v in event["gained"].items()], lang) \
                or t("bot.giants.gained.nothing", lang)
        return t(key, lang, **out)

    def describe_private(self, event: Event, lang: str, names: dict[str, str]) -> str | None:
        return self.words(f"bot.giants.private.{event.get('kind')}", event, lang, names)


UI = GiantsUI()
