"""The desired table: from a stored game, what Discord should show (DESIGN.md "The table").

Discord-free and pure given its inputs: the session (host), the game's presentation (games) and
the moment. The outbox (``bot/adapter/outbox.py``) compares this with what it last showed and
posts, edits or deletes the difference. A board is a :class:`Picture` with a key that says what
it shows, so it is drawn only when that changes.

- **lobby**: the game's card in the channel (seats, options; the result at the end).
- **live**: one message per stage (see ``GameUI.stage``): board, status embed, the stage's
  latest log lines, and the components of the current decision. A new stage gets a new message;
  the previous one keeps its final board and log (:func:`closing`) and loses its components.
- **ping**: a short message mentioning the humans who must act and have not acted in this
  game for a while; gone once they act.
- **screens** and **prompts**: per human seat, the DM screen message (edited in place) and the
  DM prompt of a secret decision (a new DM per decision); for those who asked (``/game
  notify``), a "your turn" DM per decision that becomes theirs. Private messages speak their
  user's language (the channel's speak the game's) once it is known, the game's before.
- **final**: the result with the game record, posted once at the end.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime

from bot.games import game_ui
from bot.host.sessions import Session
from bot.table.cards import (
    commitment_field,
    dm_note,
    final_post,
    lobby_post,
    ping_post,
    record_name,
)
from bot.table.live import (
    closing,
    live_post,
    now_text,
    parse_stage,
    stage_key,
    stage_start,
    table_components,
)
from bot.table.post import Desired, Embed, Picture, Post, Private, Renderer
from bot.table.screens import privates, screen_post


def desired(session: Session, now: datetime, names: dict[str, str], renderer: Renderer | None,
            stored_stage: str = "", ping_after: float = 180.0,
            notify: Collection[int] = (), languages: Mapping[int, str] | None = None,
            lang: str | None = None) -> Desired:
    """Everything this game should show now. ``names`` are the players' display names for the
    board legend (an image cannot show a mention); ``notify``: the users who want a DM when
    it is their turn; ``languages``: the users' own languages, for their private messages
    (a user missing there gets the game's); ``lang``: the language of the channel's messages
    (the game's unless a copy of them is shown to one user)."""
    lang = lang or session.row.language
    lobby = lobby_post(session, lang)
    if session.status == "lobby" or session.game is None:
        return Desired(session.id, session.status, lobby)
    view = session.view(None)
    ui = game_ui(session.row.game)
    known = parse_stage(stored_stage)
    if session.status == "running":
        key = ui.stage(view)
        start = stage_start(session, key, known)
    else:  # the end is shown on the last stage's message, not on a new one
        key, start = known if known is not None else ("over", max(session.seq, 1))
    live = live_post(session, ui, view, start, names, renderer, lang)
    final = final_post(session, lang) if session.status == "finished" else None
    return Desired(session.id, session.status, lobby, f"{key}|{start}", live,
                   ping_post(session, now, ping_after, lang), dm_note(session, lang),
                   tuple(privates(session, ui, notify, languages or {})), final)


__all__ = ["Desired", "Embed", "Picture", "Post", "Private", "Renderer", "closing",
           "commitment_field", "desired", "dm_note", "final_post", "live_post", "lobby_post",
           "now_text", "parse_stage", "ping_post", "record_name", "screen_post", "stage_key",
           "stage_start", "table_components"]
