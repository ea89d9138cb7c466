"""The end of the game and the final accounting (spec section 6)."""

from __future__ import annotations

from rules.core import Event
from rules.giganten.board import CHIP_VALUE, DERRICK_BONUS
from rules.giganten.state import State


def ranking(s: State) -> list[str]:
    """Locomotives by position, then licence value, card count, interrupted-round order."""
    order = s.order
    return sorted(s.seats, key=lambda c: (-s.players[c]["loco"], -sum(s.players[c]["hand"]),
                                          -len(s.players[c]["hand"]), order.index(c)))


def accounts(s: State) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for rank, seat in enumerate(ranking(s), start=1):
        p = s.players[seat]
        derricks = [sp for sp in s.spaces.values()
                    if sp["state"] == "derrick" and sp["owner"] == seat]
        chips = sum(sp["chips"] for sp in derricks) + sum(p["storage"].values())
        bonus = DERRICK_BONUS[rank - 1] * len(derricks)
        out[seat] = {"rank": rank, "cash": p["money"], "derrick_bonus": bonus, "chips": chips,
                     "total": p["money"] + bonus + chips * CHIP_VALUE}
    return {seat: out[seat] for seat in s.seats}


def finish(s: State, events: list[Event]) -> None:
    """The black locomotive reached the harbour: nothing else happens in this round."""
    s.final = accounts(s)
    best = max(a["total"] for a in s.final.values())
    s.winners = [c for c in s.seats if s.final[c]["total"] == best]
    s.phase, s.decision, s.turn, s.auction, s.display = "over", "over", None, None, []
    events.append({"kind": "game_over", "winners": list(s.winners),
                   "scores": {c: a["total"] for c, a in s.final.items()}})
