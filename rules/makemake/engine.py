"""Make Make rules (``../shared/rules/makemake.md``): state, legal actions, apply, view, result.

A turn is the active seat's domination action followed by its ceremony (Moai step, then Tangata
Manu step). ``apply`` runs the ceremony itself and stops only where the seat must choose (which
territory gets the next Moai, which sites get Tangata Manu). After every step the checks of 5.6
run for every seat: upkeep, Make Make, victory.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from rules.core import JSON, Event, IllegalAction, Option, Options, Pending, Result
from rules.makemake.actions import Action, Manu, Moai, Pass, Place, Withdraw
from rules.makemake.board import (
    CORNER_SITES,
    NEIGHBOURS,
    ORDER,
    SACRED,
    SEA_SIDES,
    SITE_TERRITORIES,
    SITES,
    TERRITORIES,
)

NAME = "makemake"
COLOURS = ("red", "blue", "green", "yellow")
MIN_SEATS, MAX_SEATS = 3, 4
OPTIONS = (
    Option("round_limit", "int", 100, minimum=1),
    Option("chief_alone", "bool", False),
    Option("edge_strict", "bool", False),
    Option("sacred_surroundable", "bool", False),
    Option("one_manu_per_ceremony", "bool", False),
    Option("repetition", "bool", False),
)
SCHEMA = 1
TOKENS, MANU_PER_SEAT, MOAI_SUPPLY = 11, 5, 12
CHIEF_STRENGTH = 3


@dataclass(frozen=True)
class Cell:
    """A territory: empty, held by ``owner`` (tokens and maybe the chief), or a Moai."""

    owner: str | None = None
    tokens: int = 0
    chief: bool = False
    moai: bool = False

    @property
    def strength(self) -> int:
        return self.tokens + (CHIEF_STRENGTH if self.chief else 0)


EMPTY = Cell()
MOAI_CELL = Cell(moai=True)


@dataclass(frozen=True)
class Reserve:
    tokens: int = TOKENS
    chief: bool = True
    manu: int = MANU_PER_SEAT


@dataclass(frozen=True)
class Choice:
    kind: str  # "moai" or "manu"
    options: tuple[str, ...]
    count: int


@dataclass
class State:
    seats: tuple[str, ...]
    options: dict[str, Any]
    round: int = 1
    active: int = 0
    phase: str = "domination"
    board: dict[str, Cell] = field(default_factory=dict)
    sites: dict[str, str | None] = field(default_factory=dict)
    reserves: dict[str, Reserve] = field(default_factory=dict)
    makemake: str | None = None
    moai_left: int = MOAI_SUPPLY
    choice: Choice | None = None
    end: str | None = None
    winners: list[str] = field(default_factory=list)
    positions: dict[str, int] = field(default_factory=dict)

    @property
    def player(self) -> str:
        return self.seats[self.active]

    def copy(self) -> State:
        """A copy that shares no dict or list with this state. Cells, reserves, the choice and
        the seats are immutable, so shallow copies of the dicts (the options too) suffice."""
        return State(self.seats, dict(self.options), self.round, self.active, self.phase,
                     dict(self.board), dict(self.sites), dict(self.reserves), self.makemake,
                     self.moai_left, self.choice, self.end, list(self.winners),
                     dict(self.positions))


# --- setup -------------------------------------------------------------------------------------

def new(seats: list[str], options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """The start of round 1; Make Make has no chance, so ``seed`` changes nothing."""
    if not MIN_SEATS <= len(seats) <= MAX_SEATS or len(set(seats)) != len(seats) \
            or any(s not in COLOURS for s in seats):
        raise ValueError(f"Make Make needs 3-4 different colours of {', '.join(COLOURS)}")
    opts = Options.build(OPTIONS, options).values
    state = State(seats=tuple(seats), options=opts,
                  board={t: EMPTY for t in TERRITORIES}, sites={s: None for s in SITES},
                  reserves={s: Reserve() for s in seats})
    _record_position(state, [])
    return state


def options_of(state: State) -> Options:
    return Options.build(OPTIONS, state.options)


def seats_of(state: State) -> tuple[str, ...]:
    return state.seats


def canonical(state: State, actor: str, action: Action) -> Action:
    """Every Make Make action has one printed form already (``manu`` sites sort on parsing)."""
    return action


def chance(state: State, rng: random.Random) -> Action:
    raise ValueError("Make Make has no chance actions")


# --- board questions ---------------------------------------------------------------------------

def controls(state: State, seat: str, territory: str) -> bool:
    cell = state.board[territory]
    return cell.moai or cell.owner == seat


def sacred_count(state: State, seat: str) -> int:
    return sum(1 for t in SACRED if controls(state, seat, t))


def manu_on_board(state: State, seat: str) -> int:
    return MANU_PER_SEAT - state.reserves[seat].manu


def progress(state: State, seat: str) -> int:
    return manu_on_board(state, seat) + (1 if state.makemake == seat else 0)


def held(state: State, seat: str) -> list[str]:
    return [t for t in TERRITORIES if state.board[t].owner == seat]


def qualifies_for_moai(state: State, seat: str, territory: str) -> bool:
    cell = state.board[territory]
    if state.moai_left == 0 or cell.owner != seat:
        return False
    if territory in SACRED and not state.options["sacred_surroundable"]:
        return False
    if state.options["edge_strict"] and SEA_SIDES[territory] > 0:
        return False
    neighbours = NEIGHBOURS[territory]
    if not all(controls(state, seat, n) for n in neighbours):
        return False
    if not cell.chief and not any(
            state.board[n].owner == seat and state.board[n].chief for n in neighbours):
        return False
    return any(state.sites[s] == seat for s in CORNER_SITES[territory])


def moai_candidates(state: State, seat: str) -> tuple[str, ...]:
    if state.moai_left == 0:
        return ()
    board = state.board  # only the seat's own territories can qualify: those asked first
    return tuple(t for t in TERRITORIES
                 if board[t].owner == seat and qualifies_for_moai(state, seat, t))


def manu_candidates(state: State, seat: str) -> tuple[str, ...]:
    mine = _controlled(state, seat)  # once, not once per site and territory: the AI asks often
    sites = state.sites
    return tuple(s for s in SITES if sites[s] is None and mine.issuperset(SITE_TERRITORIES[s]))


def _controlled(state: State, seat: str) -> frozenset[str]:
    """The territories ``seat`` controls (:func:`controls`)."""
    return frozenset(t for t, cell in state.board.items() if cell.moai or cell.owner == seat)


def manu_to_place(state: State, seat: str) -> int:
    k = state.reserves[seat].manu
    return min(k, 1) if state.options["one_manu_per_ceremony"] else k


# --- pending and legal -------------------------------------------------------------------------

def pending(state: State) -> Pending:
    if state.phase == "over":
        return Pending((), "over")
    return Pending((state.player,), state.phase)


def legal(state: State, seat: str) -> list[Action]:
    if state.phase == "over" or seat != state.player:
        return []
    if state.phase == "moai":
        assert state.choice is not None
        return [Moai(h) for h in state.choice.options]
    if state.phase == "manu":
        assert state.choice is not None
        return [Manu(c) for c in combinations(state.choice.options, state.choice.count)]
    actions: list[Action] = list(_places(state, seat))
    actions += [Withdraw(t) for t in TERRITORIES if _can_withdraw(state.board[t], seat)]
    return actions or [Pass()]


def _places(state: State, seat: str) -> Iterator[Place]:
    reserve = state.reserves[seat]
    lowest = 0 if state.options["chief_alone"] and reserve.chief else 1
    for t in TERRITORIES:
        cell = state.board[t]
        if cell.moai or cell.owner == seat:
            continue
        defence = cell.strength if cell.owner else -1
        row = _place_row(t, reserve.tokens)
        for n in range(lowest, reserve.tokens + 1):
            if n >= 1 and n > defence:
                yield row[n][0]
            if reserve.chief and n + CHIEF_STRENGTH > defence:
                yield row[n][1]


_PLACE_ROWS: dict[str, list[tuple[Place, Place]]] = {}
"""Per territory, ``Place(t, n)`` and ``Place(t, n, True)`` by count: actions are immutable, so
the hundreds a turn may list are made once, not at every turn."""


def _place_row(territory: str, most: int) -> list[tuple[Place, Place]]:
    row = _PLACE_ROWS.get(territory)
    if row is None or len(row) <= most:  # a whole new row, never one grown in place: the AI
        row = [(Place(territory, n), Place(territory, n, True))  # asks from its own thread
               for n in range(most + 1)]
        _PLACE_ROWS[territory] = row
    return row


def _can_withdraw(cell: Cell, seat: str) -> bool:
    return cell.owner == seat and cell.tokens >= 1 and cell.tokens + cell.chief >= 2


def _has_action(state: State, seat: str) -> bool:
    return next(_places(state, seat), None) is not None or any(
        _can_withdraw(state.board[t], seat) for t in TERRITORIES)


# --- apply -------------------------------------------------------------------------------------

_PHASE_OF = {Place: "domination", Withdraw: "domination", Pass: "domination",
             Moai: "moai", Manu: "manu"}


def apply(state: State, actor: str, action: Action) -> tuple[State, list[Event]]:
    """Apply one action; the state passed in is never changed."""
    if state.phase == "over":
        raise IllegalAction("game_over")
    if actor != state.player:
        raise IllegalAction("not_pending", actor=actor, pending=state.player)
    if _PHASE_OF[type(action)] != state.phase:
        raise IllegalAction("wrong_phase", verb=str(action).split()[0], phase=state.phase)
    _check(state, actor, action)
    s = state.copy()
    events: list[Event] = []
    if isinstance(action, Moai):
        s.choice = None
        _put_moai(s, actor, action.hex, events)
        if s.phase != "over":
            _ceremony(s, events)
    elif isinstance(action, Manu):
        s.choice = None
        _put_manu(s, actor, action.sites, events)
        if s.phase != "over":
            _end_turn(s, events)
    else:
        _dominate(s, actor, action, events)
        if not _checks(s, events):
            _ceremony(s, events)
    return s, events


def _check(state: State, seat: str, action: Action) -> None:
    """Raise the first rejection of spec 9.4 that applies."""
    reserve = state.reserves[seat]
    if isinstance(action, Place):
        cell = state.board.get(action.hex)
        if cell is None:
            raise IllegalAction("centre", hex=action.hex)
        if cell.moai:
            raise IllegalAction("moai_there", hex=action.hex)
        if cell.owner == seat:
            raise IllegalAction("own_territory", hex=action.hex)
        if action.count == 0 and not (action.chief and state.options["chief_alone"]):
            raise IllegalAction("no_tokens")
        if action.count > reserve.tokens:
            raise IllegalAction("not_enough_tokens", count=action.count, reserve=reserve.tokens)
        if action.chief and not reserve.chief:
            raise IllegalAction("chief_on_board", hex=_chief_hex(state, seat))
        attack = action.count + (CHIEF_STRENGTH if action.chief else 0)
        if cell.owner is not None and attack <= cell.strength:
            raise IllegalAction("too_weak", hex=action.hex, attack=attack, defence=cell.strength)
    elif isinstance(action, Withdraw):
        cell = state.board.get(action.hex, EMPTY)
        if cell.owner != seat:
            raise IllegalAction("not_yours", hex=action.hex)
        if not _can_withdraw(cell, seat):
            raise IllegalAction("nothing_to_withdraw", hex=action.hex)
    elif isinstance(action, Pass):
        if _has_action(state, seat):
            raise IllegalAction("pass_not_allowed")
    elif isinstance(action, Moai):
        assert state.choice is not None
        if action.hex not in state.choice.options:
            raise IllegalAction("not_qualifying", id=action.hex)
    else:
        assert state.choice is not None
        if len(set(action.sites)) != len(action.sites):
            raise IllegalAction("duplicate_site",
                                site=next(s for s in action.sites if action.sites.count(s) > 1))
        if len(action.sites) != state.choice.count:
            raise IllegalAction("wrong_count", given=len(action.sites), count=state.choice.count)
        for site in action.sites:
            if site not in state.choice.options:
                raise IllegalAction("not_qualifying", id=site)


def _chief_hex(state: State, seat: str) -> str | None:
    return next((t for t in TERRITORIES
                 if state.board[t].owner == seat and state.board[t].chief), None)


def _dominate(s: State, seat: str, action: Action, events: list[Event]) -> None:
    if isinstance(action, Pass):
        events.append({"kind": "pass", "seat": seat})
        return
    if isinstance(action, Withdraw):
        cell = s.board[action.hex]
        back_tokens, back_chief = cell.tokens - 1, cell.chief
        s.board[action.hex] = Cell(seat, 1)
        _give_back(s, seat, back_tokens, back_chief)
        events.append({"kind": "withdraw", "seat": seat, "hex": action.hex,
                       "tokens": back_tokens, "chief": back_chief})
        return
    assert isinstance(action, Place)
    cell = s.board[action.hex]
    event: Event = {"kind": "capture" if cell.owner else "claim", "seat": seat,
                    "hex": action.hex, "tokens": action.count, "chief": action.chief}
    if cell.owner:
        _give_back(s, cell.owner, cell.tokens, cell.chief)
        event.update(previous=cell.owner, back_tokens=cell.tokens, back_chief=cell.chief)
    r = s.reserves[seat]
    s.reserves[seat] = Reserve(r.tokens - action.count, r.chief and not action.chief, r.manu)
    s.board[action.hex] = Cell(seat, action.count, action.chief)
    events.append(event)


def _give_back(s: State, seat: str, tokens: int, chief: bool) -> None:
    r = s.reserves[seat]
    s.reserves[seat] = Reserve(r.tokens + tokens, r.chief or chief, r.manu)


def _ceremony(s: State, events: list[Event]) -> None:
    """The Moai step (repeating), then the Tangata Manu step, then the end of the turn.

    Stops early where the active seat must choose, or when the game ends.
    """
    seat = s.player
    while candidates := moai_candidates(s, seat):
        if len(candidates) > 1:
            _ask(s, seat, Choice("moai", candidates, 1), events)
            return
        _put_moai(s, seat, candidates[0], events)
        if s.phase == "over":
            return
    k = manu_to_place(s, seat)
    sites = manu_candidates(s, seat) if k else ()
    if sites:
        if len(sites) > k:
            _ask(s, seat, Choice("manu", sites, k), events)
            return
        _put_manu(s, seat, sites, events)
        if s.phase == "over":
            return
    _end_turn(s, events)


def _ask(s: State, seat: str, choice: Choice, events: list[Event]) -> None:
    s.phase, s.choice = choice.kind, choice
    events.append({"kind": "choice", "seat": seat, "choice": choice.kind,
                   "options": list(choice.options), "count": choice.count})


def _put_moai(s: State, seat: str, territory: str, events: list[Event]) -> None:
    cell = s.board[territory]
    _give_back(s, seat, cell.tokens, cell.chief)
    s.board[territory] = MOAI_CELL
    s.moai_left -= 1
    s.phase = "domination"
    events.append({"kind": "moai", "seat": seat, "hex": territory, "tokens": cell.tokens,
                   "chief": cell.chief, "moai_left": s.moai_left})
    _checks(s, events)


def _put_manu(s: State, seat: str, sites: tuple[str, ...], events: list[Event]) -> None:
    for site in sites:
        s.sites[site] = seat
    r = s.reserves[seat]
    s.reserves[seat] = Reserve(r.tokens, r.chief, r.manu - len(sites))
    s.phase = "domination"
    events.append({"kind": "manu_placed", "seat": seat, "sites": sorted(sites)})
    _checks(s, events)


def _checks(s: State, events: list[Event]) -> bool:
    """Upkeep, Make Make, victory (spec 5.6), for every seat. True when the game has ended."""
    board = s.board
    for site in SITES:
        owner = s.sites[site]
        if owner and not all(board[t].moai or board[t].owner == owner  # controls(), inlined
                             for t in SITE_TERRITORIES[site]):
            s.sites[site] = None
            r = s.reserves[owner]
            s.reserves[owner] = Reserve(r.tokens, r.chief, r.manu + 1)
            events.append({"kind": "manu_removed", "owner": owner, "site": site})
    counts = {seat: sacred_count(s, seat) for seat in s.seats}
    for seat, count in counts.items():
        if count >= 3 and all(count > c for other, c in counts.items() if other != seat):
            if s.makemake != seat:
                events.append({"kind": "makemake", "seat": seat, "previous": s.makemake})
                s.makemake = seat
            break
    if s.makemake and manu_on_board(s, s.makemake) == MANU_PER_SEAT:
        _finish(s, "victory", [s.makemake], events)
        return True
    return False


def _end_turn(s: State, events: list[Event]) -> None:
    s.phase, s.choice = "domination", None
    if s.active == len(s.seats) - 1:
        if s.round == s.options["round_limit"]:
            _finish(s, "round_limit", _tie_break(s), events)
            return
        s.round += 1
    s.active = (s.active + 1) % len(s.seats)
    events.append({"kind": "turn", "seat": s.player, "round": s.round})
    _record_position(s, events)


def _record_position(s: State, events: list[Event]) -> None:
    if not s.options["repetition"]:
        return
    key = _position_key(s)
    s.positions[key] = s.positions.get(key, 0) + 1
    if s.positions[key] >= 3:
        _finish(s, "repetition", _tie_break(s), events)


def _position_key(s: State) -> str:
    cells = ";".join(f"{c.owner or ''}{c.tokens}{'c' if c.chief else ''}{'m' if c.moai else ''}"
                     for c in s.board.values())
    manu = ";".join(s.sites[site] or "" for site in SITES)
    return f"{s.player}|{cells}|{manu}|{s.makemake or ''}"


def _tie_break(s: State) -> list[str]:
    keys = (lambda p: progress(s, p), lambda p: s.makemake == p,
            lambda p: sacred_count(s, p), lambda p: len(held(s, p)))
    kept = list(s.seats)
    for key in keys:
        best = max(key(p) for p in kept)
        kept = [p for p in kept if key(p) == best]
    return kept


def _finish(s: State, reason: str, winners: list[str], events: list[Event]) -> None:
    s.phase, s.choice, s.end = "over", None, reason
    s.winners = [p for p in s.seats if p in winners]
    events.append({"kind": "game_over", "reason": reason, "winners": s.winners})


# --- view, result, JSON ------------------------------------------------------------------------

def result(state: State) -> Result | None:
    if state.phase != "over":
        return None
    assert state.end is not None
    return Result({p: progress(state, p) for p in state.seats}, list(state.winners), state.end)


def view(state: State, seat: str | None = None) -> JSON:
    """Make Make has no secrets: every seat and a spectator see the same (spec section 7)."""
    choice = state.choice
    return {
        "game": NAME,
        "round": state.round,
        "phase": state.phase,
        "pending": list(pending(state).seats),
        "finished": state.phase == "over",
        "scores": {p: progress(state, p) for p in state.seats},
        "winners": list(state.winners),
        "seats": list(state.seats),
        "active": state.player,
        "options": dict(state.options),
        "makemake": state.makemake,
        "moai_left": state.moai_left,
        "board": {t: {"owner": c.owner, "tokens": c.tokens, "chief": c.chief, "moai": c.moai}
                  for t, c in state.board.items()},
        "sites": dict(state.sites),
        "reserves": {p: {"tokens": r.tokens, "chief": r.chief, "manu": r.manu}
                     for p, r in state.reserves.items()},
        "holdings": {p: {"territories": held(state, p), "sacred": sacred_count(state, p),
                         "manu": [s for s in SITES if state.sites[s] == p]}
                     for p in state.seats},
        "choice": None if choice is None else
        {"kind": choice.kind, "from": list(choice.options), "count": choice.count},
        "end": state.end,
    }


def to_json(state: State) -> JSON:
    data = view(state)
    data["schema"] = SCHEMA
    data["active_index"] = state.active
    data["positions"] = dict(state.positions)
    return data


def from_json(data: JSON) -> State:
    if data.get("schema") != SCHEMA:
        raise ValueError(f"unsupported Make Make state schema {data.get('schema')!r}")
    choice = data["choice"]
    return State(
        seats=tuple(data["seats"]),
        options=Options.build(OPTIONS, data["options"]).values,
        round=data["round"],
        active=data["active_index"],
        phase=data["phase"],
        board={t: Cell(c["owner"], c["tokens"], c["chief"], c["moai"])
               for t, c in sorted(data["board"].items(), key=lambda kv: ORDER[kv[0]])},
        sites={s: data["sites"][s] for s in SITES},
        reserves={p: Reserve(r["tokens"], r["chief"], r["manu"])
                  for p, r in data["reserves"].items()},
        makemake=data["makemake"],
        moai_left=data["moai_left"],
        choice=None if choice is None else
        Choice(choice["kind"], tuple(choice["from"]), choice["count"]),
        end=data["end"],
        winners=list(data["winners"]),
        positions=dict(data["positions"]),
    )
