"""The end of phase 4, the end-of-round step, phase 5, the end of the game and final scoring
(spec sections 5.4 "End of phase 4", 5.5, 5.6 and 6)."""

from __future__ import annotations

from typing import Any

from rules.core import REVEALS, SEALED, Event, IllegalAction
from rules.giants.actions import EndRound
from rules.giants.auction import clear_committed
from rules.giants.board import BLACK, RED
from rules.giants.state import State, bases_allotted, erected_by, quarry_of, turn_order
from rules.giants.transport import check_item, is_loose


def end_transport(s: State, events: list[Event]) -> None:
    """Unmoved items go to their quarries; then the game ends or the end-of-round step."""
    s.quarried = {p: [] for p in s.seats}
    for label, item in s.items.items():
        item["mover"], item["abandoned"] = None, False
        if item["at"].startswith("front:"):
            s.quarried[item["at"][6:]].append(label)
            item["at"] = quarry_of(item)
    for p in s.players.values():
        p["passed"] = False
    s.current = None
    reason = end_reason(s)
    if reason:
        finish(s, reason, events)
        return
    choosers = [p for p in turn_order(s) if has_choice(s, p)]
    if not choosers:
        end_round(s, events)
        return
    s.phase = "endround"
    s.endround = {p: None for p in choosers}


def has_choice(s: State, seat: str) -> bool:
    markers = s.players[seat]["screen"]["markers"]
    if markers and s.quarried.get(seat):
        return True
    return any(is_loose(i) and i["marker"] == seat for i in s.items.values())


def check_endround(s: State, seat: str, action: EndRound) -> None:
    for label in (*action.mark, *action.recall):
        check_item(s, label)
    for i, label in enumerate(action.mark):
        if label not in s.quarried.get(seat, []) or label in action.mark[:i]:
            raise IllegalAction("bad_mark_item", item=label)
    have = s.players[seat]["screen"]["markers"]
    if len(action.mark) > have:
        raise IllegalAction("too_many_marks", have=have)
    for i, label in enumerate(action.recall):
        item = s.items[label]
        if not is_loose(item) or item["marker"] != seat or label in action.recall[:i] \
                or label in action.mark:
            raise IllegalAction("bad_recall_item", item=label)


def apply_endround(s: State, seat: str, action: EndRound, events: list[Event]) -> None:
    check_endround(s, seat, action)
    s.endround[seat] = {"mark": list(action.mark), "recall": list(action.recall)}
    events.append({"kind": "endround_submitted", "seat": seat, SEALED: seat})
    if all(a is not None for a in s.endround.values()):
        _resolve(s, events)


def _resolve(s: State, events: list[Event]) -> None:
    """All marks first, then all recalls: a recalled marker cannot mark in the same step."""
    answers: dict[str, Any] = {p: a for p, a in s.endround.items() if a is not None}
    for seat, answer in answers.items():
        for label in answer["mark"]:
            s.items[label]["marker"] = seat
            s.players[seat]["screen"]["markers"] -= 1
    for seat, answer in answers.items():
        for label in answer["recall"]:
            s.items[label]["marker"] = None
            s.players[seat]["screen"]["markers"] += 1
    events.append({"kind": "endround_resolved",
                   "marks": {p: a["mark"] for p, a in answers.items()},
                   "recalls": {p: a["recall"] for p, a in answers.items()}, REVEALS: True})
    end_round(s, events)


def end_round(s: State, events: list[Event]) -> None:
    """Phase 5: everything comes home, logs on the board leave, the first player moves left."""
    for spot in s.hexes.values():
        for colour, kind in spot["figures"]:
            screen = s.players[colour]["screen"]
            if kind == "worker":
                screen["workers"] += 1
            else:
                screen[kind] = True
    s.hexes = {}
    for seat in s.seats:
        clear_committed(s, seat)
    s.endround, s.quarried = {}, {}
    s.choosing, s.current, s.dice = None, None, None
    s.first = (s.first + 1) % len(s.seats)
    s.round += 1
    s.phase = "draw"
    events.append({"kind": "round_ended", "first": s.seats[s.first], "round": s.round})


def end_reason(s: State) -> str | None:
    """Spec 6.1: a full set of moai, the round limit, or too few moai left for anyone."""
    allotted = bases_allotted(s)
    needs = [allotted - len(erected_by(s, p)) for p in s.seats]
    if min(needs) == 0:
        return "complete"
    if s.round >= s.options["round_limit"]:
        return "round_limit"
    left = sum(s.supply["moai"].values()) + sum(
        1 for i in s.items.values() if i["kind"] == "moai" and not i["at"].startswith("ahu:"))
    if left < min(needs):
        return "no_moai"
    return None


def breakdown(s: State) -> dict[str, dict[str, int]]:
    """Points from each source (spec 6.2)."""
    running = s.options["running_score"]
    out: dict[str, dict[str, int]] = {}
    for seat in s.seats:
        player = s.players[seat]
        moai = hats = 0
        if not running:
            for a in erected_by(s, seat):
                moai += BLACK[a] * s.items[s.ahus[a]["moai"]]["size"]
                if s.ahus[a]["headdress"]:
                    hats += RED[a]
        rongo = 3 * (player["rongo"] // 2)
        out[seat] = {"prestige": player["prestige"], "moai": moai, "headdresses": hats,
                     "rongo": rongo, "total": player["prestige"] + moai + hats + rongo}
    return out


def finish(s: State, reason: str, events: list[Event]) -> None:
    s.final = breakdown(s)
    best = max(r["total"] for r in s.final.values())
    tied = [p for p in s.seats if s.final[p]["total"] == best]
    most = max(s.players[p]["rongo"] for p in tied)
    s.winners = [p for p in tied if s.players[p]["rongo"] == most]
    s.phase, s.end, s.current = "over", reason, None
    events.append({"kind": "game_over", "reason": reason, "winners": list(s.winners),
                   "scores": {p: r["total"] for p, r in s.final.items()}})

