"""Actions 5 and 6 (spec 5.5, 5.6): building derricks, then production and transport."""

from __future__ import annotations

from rules.core import Event, IllegalAction
from rules.giganten.actions import Build, Entry, Produce
from rules.giganten.board import BUILD_COST, COMPANIES, FEE, ORDER, column, neighbours
from rules.giganten.state import State

# --- chips ---------------------------------------------------------------------------------------


def take_chips(s: State, wanted: int) -> int:
    """Chips leaving the supply (all of them with ``unlimited_chips``)."""
    if s.unlimited():
        return wanted
    got = min(wanted, s.supply)
    s.supply -= got
    return got


def return_chips(s: State, count: int) -> None:
    if not s.unlimited():
        s.supply += count


# --- Action 5 ------------------------------------------------------------------------------------

def builds(s: State, seat: str) -> list[Build]:
    p = s.players[seat]
    if p["truck"] is None or p["derricks"] < 1 or (s.supply < 1 and not s.unlimited()):
        return []
    return [Build(label) for label in neighbours(p["truck"])
            if label in s.spaces and s.spaces[label]["state"] == "hidden"
            and p["money"] >= BUILD_COST[s.spaces[label]["type"]]]


def build(s: State, seat: str, action: Build, events: list[Event]) -> None:
    p, label = s.players[seat], action.label
    if p["truck"] is None or label not in neighbours(p["truck"]):
        raise IllegalAction("build.not_adjacent", label=label, truck=p["truck"])
    space = s.spaces.get(label)
    if space is None or space["state"] != "hidden":
        raise IllegalAction("build.no_tile", label=label)
    cost = BUILD_COST[space["type"]]
    if p["money"] < cost:
        raise IllegalAction("build.money", cost=cost, money=p["money"])
    p["money"] -= cost
    p["derricks"] -= 1
    space.update(state="derrick", owner=seat, chips=take_chips(s, space["value"]))
    events.append({"kind": "build", "seat": seat, "label": label, "value": space["value"],
                   "chips": space["chips"], "cost": cost})


# --- Action 6 ------------------------------------------------------------------------------------

def derricks_of(s: State, seat: str) -> list[str]:
    return sorted((label for label, sp in s.spaces.items()
                   if sp["state"] == "derrick" and sp["owner"] == seat), key=ORDER.__getitem__)


def furthest_rivals(s: State, seat: str) -> tuple[int, list[str]]:
    """The highest rival locomotive position and its owners in seat order."""
    top = max(s.players[c]["loco"] for c in s.seats if c != seat)
    return top, [c for c in s.seats if c != seat and s.players[c]["loco"] == top]


def routes(s: State, seat: str, label: str) -> list[Entry]:
    """Every destination form for one derrick's chip, drop last; canonical colour for a split."""
    col, own = column(label), s.players[seat]["loco"]
    if own >= col:
        return [*(Entry(label, c) for c in COMPANIES), Entry(label, None)]
    out = []
    if s.black >= col:
        out += [Entry(label, c, "black") for c in COMPANIES]
    top, rivals = furthest_rivals(s, seat)
    if top >= col:
        out += [Entry(label, c, rivals[0]) for c in COMPANIES]
    return [*out, Entry(label, None)]


def must_decide(s: State, seat: str) -> bool:
    """Asked only if some chip has a destination besides drop (spec 5.0, 5.6)."""
    money = s.players[seat]["money"]
    for label in derricks_of(s, seat):
        forms = routes(s, seat, label)
        if any(e.company and not e.via for e in forms):
            return True
        if money >= FEE and len(forms) > 1:
            return True
    return False


def _check_entry(s: State, seat: str, e: Entry) -> None:
    if e.company is None:
        return
    col, own = column(e.label), s.players[seat]["loco"]
    if e.via is None:
        if own < col:
            raise IllegalAction("produce.route", label=e.label)
        return
    if own >= col:
        raise IllegalAction("produce.route", label=e.label)
    if e.via == "black":
        if s.black < col:
            raise IllegalAction("produce.route", label=e.label)
        return
    top, rivals = furthest_rivals(s, seat)
    if top < col:
        raise IllegalAction("produce.route", label=e.label)
    if e.via not in rivals:
        raise IllegalAction("produce.rival", label=e.label, rival=e.via, furthest=rivals)


def fee_of(e: Entry) -> int:
    return FEE if e.via else 0


def produce(s: State, seat: str, action: Produce, events: list[Event]) -> None:
    own = derricks_of(s, seat)
    labels = [e.label for e in action.entries]
    if sorted(labels, key=ORDER.__getitem__) != own:
        raise IllegalAction("produce.entries", derricks=own)
    for e in action.entries:
        _check_entry(s, seat, e)
    fees = sum(fee_of(e) for e in action.entries)
    if fees > s.players[seat]["money"]:
        raise IllegalAction("produce.money", fees=fees, money=s.players[seat]["money"])
    run_production(s, seat, list(action.entries), events)


def run_production(s: State, seat: str, entries: list[Entry], events: list[Event]) -> None:
    """Each derrick gives up one chip; ship or drop it; a dry derrick goes home."""
    p = s.players[seat]
    for e in entries:
        space = s.spaces[e.label]
        space["chips"] -= 1
        if space["chips"] == 0:
            space.update(state="spent", owner=None)
            p["derricks"] += 1
        if e.company is None:
            return_chips(s, 1)
        else:
            p["storage"][e.company] += 1
            _pay_fee(s, seat, e)
        events.append({"kind": "produce", "seat": seat, "label": e.label, "to": e.company,
                       "via": e.via, "dry": space["state"] == "spent"})


def _pay_fee(s: State, seat: str, e: Entry) -> None:
    if e.via is None:
        return
    s.players[seat]["money"] -= FEE
    if e.via == "black":
        return
    _, rivals = furthest_rivals(s, seat)
    for rival in rivals:
        s.players[rival]["money"] += FEE // len(rivals)


def auto_drop(s: State, seat: str, events: list[Event]) -> None:
    run_production(s, seat, [Entry(label, None) for label in derricks_of(s, seat)], events)


def productions(s: State, seat: str) -> list[Produce]:
    """One line per distinct outcome: chips per company, fees to the bank, fees to rivals."""
    money = s.players[seat]["money"]
    lines: dict[tuple, list[Entry]] = {((0, 0, 0), 0, 0): []}
    for label in derricks_of(s, seat):
        grown: dict[tuple, list[Entry]] = {}
        for (counts, black, rival), entries in lines.items():
            for e in routes(s, seat, label):
                nc = list(counts)
                if e.company:
                    nc[COMPANIES.index(e.company)] += 1
                key = (tuple(nc), black + (e.via == "black"),
                       rival + (e.via not in (None, "black")))
                if FEE * (key[1] + key[2]) <= money and key not in grown:
                    grown[key] = [*entries, e]
        lines = grown
    return [Produce(tuple(entries)) for entries in lines.values()]
