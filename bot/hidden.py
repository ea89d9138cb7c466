"""Secret choices made in private: what the bot remembers per seat, and whose choice is due.

A game's UI (:class:`bot.games.GameUI`) names the pending kinds that are secret
(``private_kinds``). For each human seat the bot remembers, in SQLite so that a restart keeps
it, whether its DMs are closed, which decision it was last prompted for, and the last private
screen it was sent: a restart neither loses a closed-DM fallback nor sends prompts twice.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from bot.games import Form, game_ui
from bot.store import Store, run

if TYPE_CHECKING:
    from bot.sessions import Host, Seat, Session

PREFIX_CHARS = "#:"
"""``#12 bid 0m`` or ``12: bid 0m`` in a DM names the game."""


@dataclass(frozen=True)
class HiddenSeat:
    game_id: int
    colour: str
    dm_closed: bool = False
    prompt_turn: int | None = None
    """The seat's :meth:`Session.turns` when it was last prompted (None: never)."""
    prompt_channel: int | None = None
    prompt_message: int | None = None
    screen_hash: str | None = None

    def with_(self, **changes: object) -> HiddenSeat:
        return replace(self, **changes)  # type: ignore[arg-type]


async def load(store: Store, game_id: int, colour: str) -> HiddenSeat:
    async with store.db.execute(
            "SELECT dm_closed, prompt_turn, prompt_channel, prompt_message, screen_hash"
            " FROM hidden_seats WHERE game_id = ? AND colour = ?", (game_id, colour)) as cur:
        row = await cur.fetchone()
    if row is None:
        return HiddenSeat(game_id, colour)
    return HiddenSeat(game_id, colour, bool(row[0]), row[1], row[2], row[3], row[4])


async def save(store: Store, seat: HiddenSeat) -> None:
    async with store.transaction() as db:
        await run(db, "INSERT OR REPLACE INTO hidden_seats (game_id, colour, dm_closed,"
                  " prompt_turn, prompt_channel, prompt_message, screen_hash)"
                  " VALUES (?, ?, ?, ?, ?, ?, ?)",
                  (seat.game_id, seat.colour, int(seat.dm_closed), seat.prompt_turn,
                   seat.prompt_channel, seat.prompt_message, seat.screen_hash))


def digest(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


# --- whose secret choice is due ------------------------------------------------------------------

def owes(session: Session, seat: Seat) -> bool:
    """Whether ``seat`` must make a secret choice in ``session`` now."""
    if session.status != "running" or session.game is None or seat.is_ai:
        return False
    return seat.colour in session.pending() and game_ui(session.row.game).is_private(
        session.kind())


def decisions(host: Host, user_id: int) -> list[tuple[Session, Seat]]:
    """Every running game where this user may type a choice in a DM now (a secret choice, or
    a public one the game takes from DMs too), oldest game first."""
    out = []
    for session in sorted(host.sessions.values(), key=lambda s: s.id):
        seat = session.seat_of(user_id)
        if seat is None or seat.is_ai or session.status != "running" \
                or seat.colour not in session.pending():
            continue
        if game_ui(session.row.game).typed_in_dm(session.kind()):
            out.append((session, seat))
    return out


def split_prefix(text: str) -> tuple[int | None, str]:
    """``"#12 bid 0m"`` -> ``(12, "bid 0m")``; text without a game number -> ``(None, text)``."""
    words = text.strip().split(maxsplit=1)
    if not words:
        return None, ""
    head = words[0].strip(PREFIX_CHARS)
    if head.isdecimal() and words[0] != head:
        return int(head), words[1] if len(words) > 1 else ""
    if head.isdecimal() and len(words) > 1 and not words[1][:1].isdecimal():
        return int(head), words[1]
    return None, text.strip()


# --- form state in a custom_id -------------------------------------------------------------------

def encode(picks: list[int]) -> str:
    return ".".join(str(i) for i in picks)


def decode(state: str, form: Form) -> list[int] | None:
    """The picks a component carries; None when they no longer fit the form."""
    try:
        picks = [int(p) for p in state.split(".")] if state else []
    except ValueError:
        return None
    return picks if form.valid(picks) else None
