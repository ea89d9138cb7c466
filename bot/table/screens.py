"""The private side: per human seat, the DM screen (games with one), the prompt of a secret
decision, and the "your turn" DM for those who asked for it."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from bot.constants import MAX_CONTENT, SCREEN_FILE
from bot.games import GameUI
from bot.host.sessions import Seat, Session
from bot.table.live import cut
from bot.table.pace import turn_dm_due, turn_dm_text, turn_key
from bot.table.post import Picture, Post, Private, digest_of
from bot.table.private import owes_secret, private_language, prompt
from bot.table.words import colour_name, game_name, game_text
from render.crop import cropped
from render.i18n import has, t


def privates(session: Session, ui: GameUI, notify: Collection[int] = (),
             languages: Mapping[int, str] | None = None) -> list[Private]:
    """Per human seat: the DM screen (games with one), the prompt of a secret decision, and
    the "your turn" DM for those who asked for it, each in the seat's user's language (from
    ``languages``; the game's while theirs is not known)."""
    out = []
    running = session.status == "running" and session.game is not None
    for seat in session.seats:
        if seat.is_ai or seat.user_id is None:
            continue
        lang = private_language(session, seat.user_id, languages or {})
        screen = screen_post(session, ui, seat, lang) if running and ui.has_screen() else None
        owed = prompt(session, seat, lang) if running and owes_secret(session, seat) else None
        turn = Post(content=turn_dm_text(session, ui, seat, lang)[:MAX_CONTENT]) \
            if running and turn_dm_due(session, seat, notify) else None
        out.append(Private(seat.colour, seat.user_id, screen, owed, turn,
                           turn_key(session, seat) if turn else ""))
    return out


def screen_post(session: Session, ui: GameUI, seat: Seat, lang: str) -> Post:
    view = session.view(seat.colour)
    # the game is in the key: pictures are kept by their key across games (bot.table.pool),
    # and a private picture must never stand in for another game's
    key = digest_of(ui.screen_key(view, seat.colour), seat.colour, lang, session.id)
    text = game_text(session.row.game, "hidden.screen", lang,
                     game=game_name(session.row.game, lang), id=session.id,
                     colour=colour_name(seat.colour, lang), channel=f"<#{session.row.home_id}>")
    words = ui.screen_text(view, seat.colour, lang)
    return Post(content=cut("\n".join(w for w in (text, words) if w), MAX_CONTENT),
                picture=Picture(SCREEN_FILE, key, cropped, (ui.screen_art(), view, seat.colour,
                                                             lang),
                                {"frame": (session.id, "screen", seat.colour, lang)},
                                stream=(session.id, seat.colour)))


def phase_label(ui: GameUI, kind: str, lang: str) -> str:
    key = f"bot.{ui.name}.phase.{kind}"
    return t(key, lang) if has(key, lang) else kind
