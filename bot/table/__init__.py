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

import hashlib
import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import orjson

from bot.constants import (
    BOARD_FILE,
    EMBED_COLOUR,
    LOG_LINES,
    MAX_CONTENT,
    MAX_EMBED_DESCRIPTION,
    MAX_EMBED_FIELD,
    SCREEN_FILE,
    SEAT_LINES,
)
from bot.games import Button, Component, GameUI, Select, component_key, game_ui
from bot.host.sessions import Seat, Session, Step
from bot.table.pace import (
    away_text,
    paused_text,
    takeback_notes,
    turn_dm_due,
    turn_dm_text,
    turn_key,
)
from bot.table.private import (
    Prompt,
    owes_secret,
    pending_humans,
    private_language,
    prompt,
    secret_now,
)
from bot.table.words import (
    SEAT_CHANGES,
    ai_name,
    change_line,
    colour_name,
    colour_names,
    game_name,
    game_text,
    mentions,
    options_notation,
    result_title,
    seat_label,
    standings,
    step_line,
    user_text,
)
from render.i18n import has, t
from render.marks import mark_symbol


@dataclass(frozen=True)
class Embed:
    title: str
    description: str = ""
    fields: tuple[tuple[str, str], ...] = ()
    image: str | None = None
    """The attachment shown inside the embed (``board.png``)."""
    colour: int = EMBED_COLOUR


@dataclass(frozen=True)
class Picture:
    """A PNG to attach: ``key`` names what it shows; ``art(*args, **kwargs)`` draws it, only
    when the key changed. ``art`` is a module-level function of ``render`` and the arguments
    plain data, so that a worker process can draw it (:mod:`bot.table.pool`)."""

    filename: str
    key: str
    art: Callable[..., bytes | None] = field(compare=False, repr=False)
    args: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    kwargs: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    stream: tuple[int, str] = field(default=(0, ""), compare=False)
    """The game and the picture's place in it (``board``, a seat's screen): the render pool
    draws each stream's pictures in one worker, whose cache then holds the bands of that
    stream's previous picture (and the pictures of one move spread over the workers)."""

    def draw(self) -> bytes | None:
        """The PNG, drawn here and now (None: nothing to show)."""
        return self.art(*self.args, **self.kwargs)


@dataclass(frozen=True)
class Post:
    """One Discord message as the table wants it."""

    content: str = ""
    embed: Embed | None = None
    picture: Picture | None = None
    components: tuple[Component, ...] = ()
    mentions: tuple[int, ...] = ()
    """Users this message may ping (only pings do)."""
    attachment: tuple[str, str] | None = None
    """A text file (name, content): the game record at the end."""
    seq: int = 0
    """The action count the components belong to (a click on an older one is refused)."""

    def digest(self) -> str:
        """What the message shows, as a short hash: equal digests need no edit. Worked out
        once per post (a post never changes; the outbox compares it, then stores it)."""
        found: str | None = self.__dict__.get("_digest")
        if found is None:
            found = _digest(self.content, self.embed.__dict__ if self.embed else None,
                            self.picture.key if self.picture else None,
                            component_key(self.components), self.seq,
                            self.attachment[0] if self.attachment else None)
            object.__setattr__(self, "_digest", found)
        return found


@dataclass(frozen=True)
class Private:
    """What one human seat should have in its DMs."""

    colour: str
    user_id: int
    screen: Post | None
    prompt: Prompt | None
    turn: Post | None = None
    """A "your turn" DM (``/game notify``): sent once per ``turn_key``."""
    turn_key: str = ""


@dataclass(frozen=True)
class Desired:
    game_id: int
    status: str
    lobby: Post
    stage: str = ""
    """``<stage key>|<first seq of the stage>``; empty while there is no live table."""
    live: Post | None = None
    ping: Post | None = None
    dm_note: Post | None = None
    privates: tuple[Private, ...] = ()
    final: Post | None = None


Renderer = Callable[..., bytes]


def _digest(*parts: Any) -> str:
    """A short hash of ``parts`` (views, names, keys) as JSON with sorted keys: orjson writes it
    several times faster than ``json`` (which takes what orjson cannot, an integer past 64
    bits)."""
    try:
        data = orjson.dumps(parts, default=list,
                            option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        data = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=list).encode()
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


# --- stages ----------------------------------------------------------------------------------

def stage_key(session: Session, state: Any) -> str:
    return game_ui(session.row.game).stage(session.view_of(state))


def stage_start(session: Session, key: str, known: tuple[str, int] | None) -> int:
    """The first action *played in* the current stage ``key`` (an action belongs to the stage of
    the position it was played in, so the move that ends a stage is that stage's last line):
    from what the outbox stored when the stage is unchanged, else found among the recent
    positions kept in memory."""
    if known is not None and known[0] == key and known[1] <= session.seq + 1:
        return known[1]
    entered = session.seq  # the position after this action is the first one in the stage
    while entered >= 1:
        state = session.state_at(entered - 1)
        if state is None or stage_key(session, state) != key:
            break
        entered -= 1
    return entered + 1


def parse_stage(text: str) -> tuple[str, int] | None:
    key, sep, start = text.rpartition("|")
    return (key, int(start)) if sep and start.isdecimal() else None


# --- the live table --------------------------------------------------------------------------

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


def live_post(session: Session, ui: GameUI, view: dict[str, Any], start: int,
              names: dict[str, str], renderer: Renderer | None, lang: str,
              closed: bool = False) -> Post:
    """The live message of the stage that began with action ``start``, as of ``view``.

    Its board rings what the latest turn changed, in this stage or the one before: a stage
    nobody has acted in yet says what just happened, and its board is then the very picture
    that closes the previous stage's message (drawn once)."""
    steps = session.log[start - 1:]
    assert session.game is not None
    picture = _board(session, ui, session.game.state, names, renderer, lang, session.log)
    # a young stage's log starts with what came just before it, so its message reads on its own
    earlier = max(0, start - 1 - max(0, LOG_LINES - len(steps)))
    steps = session.log[earlier:]
    embed = Embed(title=_title(session, ui, view, lang), description=_status(session, ui, view,
                                                                          lang, closed),
                  fields=_fields(session, ui, view, steps, lang),
                  image=BOARD_FILE if picture else None)
    components = () if closed else tuple(table_components(session, ui, lang))
    return Post(embed=embed, picture=picture, components=components, seq=session.seq)


def closing(session: Session, stored_stage: str, names: dict[str, str],
            renderer: Renderer | None, new_start: int) -> Post | None:
    """The final form of the previous stage's message: its last board and whole log, no
    components; None when its last position is no longer kept (then only the components
    go)."""
    known = parse_stage(stored_stage)
    if known is None or new_start <= known[1]:
        return None
    end = new_start - 1
    state = session.state_at(end)
    inside = session.state_at(end - 1)  # the position after the last action opens the next
    if state is None or inside is None:  # stage: the title comes from the one before it
        return None
    ui = game_ui(session.row.game)
    view = session.view_of(state)  # most often still remembered: the stage's last table
    lang = session.row.language
    steps = session.log[known[1] - 1:end]
    picture = _board(session, ui, state, names, renderer, lang, session.log[:end])
    embed = Embed(title=_title(session, ui, session.view_of(inside), lang),
                  fields=_fields(session, ui, view, steps, lang, closed=True),
                  image=BOARD_FILE if picture else None)
    return Post(embed=embed, picture=picture, seq=end)


def _title(session: Session, ui: GameUI, view: dict[str, Any], lang: str) -> str:
    game = game_name(session.row.game, lang)
    if view.get("finished"):
        return t("bot.table.title_over", lang, game=game, id=session.id)
    return t("bot.table.title", lang, game=game, id=session.id, round=view.get("round"),
             stage=ui.stage_name(view, lang))


def _status(session: Session, ui: GameUI, view: dict[str, Any], lang: str,
            closed: bool) -> str:
    """Who acts and what they decide, in words a phone user can act on."""
    if session.status == "aborted":
        return t("bot.table.aborted", lang)
    if session.status == "finished":
        return "\n".join([result_title(session, lang), *standings(session, lang)])
    if closed:
        return ""
    away = away_text(session, lang)
    if session.paused:
        return "\n".join(w for w in (paused_text(session, lang), away) if w)
    now = _now(session, ui, view, lang)
    return "\n".join(w for w in (now, away) if w)


def _now(session: Session, ui: GameUI, view: dict[str, Any], lang: str) -> str:
    humans = pending_humans(session)
    pending = list(view.get("pending", []))
    who = mentions(session, pending, lang)
    if not pending:
        return ""
    if not humans:
        return t("bot.table.ai_turn", lang, who=who)
    kind = session.kind()
    phase = ui.phase_name(kind, lang)
    if secret_now(session):
        return game_text(session.row.game, "table.secret", lang, who=who, phase=phase)
    legal = session.legal_lines(humans[0].colour)
    shown = [c for c in _components(session, ui, humans[0].colour, lang)
             if c.op not in ("info", "open")]
    if not shown:
        how = t("bot.table.how_play", lang)
    elif _covers(shown, legal):
        how = t("bot.table.how_buttons", lang)
    else:
        how = t("bot.table.how_both", lang)
    return t("bot.table.turn", lang, who=who, phase=phase, how=how)


def now_text(session: Session, lang: str) -> str:
    """The live table's own "Now: who, what, how" line, in ``lang`` (for ``/game help``)."""
    if session.game is None:
        return ""
    return _status(session, game_ui(session.row.game), session.view(None), lang, False)


def _covers(shown: list[Component], legal: list[str]) -> bool:
    """Whether the components offer every legal action (then /play is not worth a mention)."""
    offered = {c.arg for c in shown if isinstance(c, Button) and c.op == "act"}
    picks = sum(1 for c in shown if isinstance(c, Select) or c.op in ("pick", "other"))
    return picks > 0 or set(legal) <= offered


def _fields(session: Session, ui: GameUI, view: dict[str, Any], steps: list[Step],
            lang: str, closed: bool = False) -> tuple[tuple[str, str], ...]:
    names = colour_names(session, lang)
    out: list[tuple[str, str]] = []
    facts = ui.facts(view, lang, names)
    if facts:
        out.append((t("bot.table.facts", lang), _cut("\n".join(facts), MAX_EMBED_FIELD)))
    scores = view.get("scores") or {}
    if scores and not view.get("finished"):
        line = " · ".join(f"{colour_name(c, lang)} {ui.score_text(scores[c], lang)}"
                          for c in view.get("seats", scores) if c in scores)
        out.append((t("bot.table.scores", lang), _cut(line, MAX_EMBED_FIELD)))
    if not closed and not view.get("finished"):
        out.append(marks_field(session, lang))
    lines = _log_lines(session, ui, steps, lang, names, closed)
    if lines:
        shown = lines[-LOG_LINES:]
        if len(lines) > len(shown):
            shown = ["…", *shown]
        text = "\n".join(shown)
        while len(text) > MAX_EMBED_FIELD and len(shown) > 2:
            shown = ["…", *shown[2:]]
            text = "\n".join(shown)
        out.append((t("bot.table.log", lang), _cut(text, MAX_EMBED_FIELD)))
    return tuple(out)


def marks_field(session: Session, lang: str) -> tuple[str, str]:
    """The seats' marks explained once beside the board: each seat's mark with its colour and
    player, so that the picture reads without telling colours apart."""
    lines = [t("bot.marks.explain", lang),
             *(f"{mark_symbol(seat.colour)} {seat_label(seat, lang)}" for seat in session.seats)]
    return t("bot.marks.field", lang), _cut("\n".join(lines), MAX_EMBED_FIELD)


def _log_lines(session: Session, ui: GameUI, steps: list[Step], lang: str,
               names: dict[str, str], closed: bool) -> list[str]:
    """The steps in words, with the take-backs and the seats that changed hands among them
    (after the action they followed). A change after a stage's last action belongs to the next
    stage; a closed stage's message leaves it out."""
    first = steps[0].seq if steps else session.seq + 1
    last = steps[-1].seq if steps else session.seq
    changes = [c for c in session.changes if c.what in SEAT_CHANGES
               and first - 1 <= c.seq and (c.seq < last if closed else c.seq <= last)]
    takebacks = takeback_notes(session, ui, steps, lang, names)
    lines = [*takebacks.get(first - 1, []),
             *(change_line(session, c, lang) for c in changes if c.seq < first)]
    for step in steps:
        lines.append(step_line(ui, step, lang, names))
        lines += takebacks.get(step.seq, [])
        lines += [change_line(session, c, lang) for c in changes if c.seq == step.seq]
    return lines


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _board(session: Session, ui: GameUI, state: Any, names: dict[str, str],
           renderer: Renderer | None, lang: str, steps: list[Step]) -> Picture | None:
    """The board of position ``state``, its key worked out once per position (a digest of
    the whole view: the same board is asked for again when its stage closes)."""
    if renderer is None:
        return None
    view = session.view_of(state)
    changed = sorted(ui.changed([e for s in _latest_turn(steps) for e in s.events]))
    key = session.worked_out(state, ("board", lang, tuple(names.items()), tuple(changed)),
                             lambda _: _digest(view, lang, names, changed))
    return Picture(BOARD_FILE, key, renderer, (view, lang, names),
                   {"highlight": frozenset(changed), "frame": (session.id, "board", lang)},
                   stream=(session.id, "board"))


def _latest_turn(steps: list[Step]) -> list[Step]:
    """What changed since the table's previous state: the latest human action with the AI and
    chance steps around it (back to the previous human action)."""
    humans = [i for i, s in enumerate(steps) if s.by in ("human", "timeout")]
    if len(humans) >= 2:
        return steps[humans[-2] + 1:]
    return steps


def table_components(session: Session, ui: GameUI, lang: str) -> list[Component]:
    """The live table's components: the pending human's public decision, and the 🔒 button
    for games with a private side (a closed DM, or a glance at one's screen mid-decision)."""
    if session.status != "running" or session.game is None:
        return []
    items: list[Component] = []
    humans = pending_humans(session)
    if humans and not secret_now(session) and not session.paused:
        items += _components(session, ui, humans[0].colour, lang)
    if ui.has_screen():
        label = game_text(session.row.game, "hidden.open_due" if secret_now(session)
                          else "hidden.open", lang)
        items.append(Button("open", label, style="secondary"))
    return items


def _components(session: Session, ui: GameUI, colour: str, lang: str) -> list[Component]:
    """The components of ``colour``'s public decision now, worked out once per position: the
    status line and the table both ask."""
    assert session.game is not None
    return list(session.worked_out(
        session.game.state, ("components", colour, lang),
        lambda _: ui.components(session.kind(), session.view(None), colour,
                                session.legal_lines(colour), lang)))


# --- the lobby card, the ping, the end ------------------------------------------------------

def lobby_post(session: Session, lang: str | None = None) -> Post:
    """The lobby card, in the game's language (``lang``: a copy shown to one user). Built
    again only when something it shows changed: the table is worked out after every move,
    the card changes a few times a game."""
    lang = lang or session.row.language
    # everything the card shows: the row (status, options, thread, seed...), the seats and
    # the latest changes of hands; a finished game's result is final once its row says so
    key = (lang, session.row, tuple((s.colour, s.user_id, s.ai_level) for s in session.seats),
           tuple(session.changes[-SEAT_LINES:]))
    return session.kept("lobby", key, lambda: _lobby_post(session, lang))


def _lobby_post(session: Session, lang: str) -> Post:
    module = session.module
    status = session.status
    title_key = "bot.lobby.title" if status == "lobby" else f"bot.lobby.title_{status}"
    fields = [(t("bot.lobby.seats", lang, count=len(session.seats), max=module.MAX_SEATS),
               "\n".join(seat_label(s, lang) for s in session.seats)
               or t("bot.lobby.empty", lang)),
              (t("bot.lobby.options", lang),
               options_notation(session.row.options) or t("bot.lobby.defaults", lang)),
              (t("bot.lobby.ai_level", lang), ai_name(session.row.ai_level, lang))]
    if session.row.turn_seconds:
        fields.append((t("bot.lobby.turn_time", lang),
                       t("bot.lobby.minutes", lang, minutes=session.row.turn_seconds // 60)))
    if status == "running" and session.row.thread_id \
            and session.row.thread_id != session.row.channel_id:
        fields.append((t("bot.lobby.table", lang), f"<#{session.row.thread_id}>"))
    if session.changes:
        fields.append((t("bot.seats.lobby.changes", lang), _cut("\n".join(
            change_line(session, c, lang) for c in session.changes[-SEAT_LINES:]),
            MAX_EMBED_FIELD)))
    if status != "lobby" and game_ui(session.row.game).has_chance:
        fields.append(commitment_field(session, lang))
    if status == "finished":
        fields.append((t("bot.lobby.result", lang), _cut(
            "\n".join([result_title(session, lang), *standings(session, lang)]),
            MAX_EMBED_FIELD)))
    description = t("bot.lobby.description", lang, min=module.MIN_SEATS, max=module.MAX_SEATS,
                    creator=user_text(session.row.creator_id, lang)) if status == "lobby" else ""
    embed = Embed(title=t(title_key, lang, game=game_name(session.row.game, lang)),
                  description=_cut(description, MAX_EMBED_DESCRIPTION), fields=tuple(fields))
    ops = [("join", "success"), ("leave", "secondary"), ("ai", "secondary")]
    if any(s.is_ai for s in session.seats):
        ops.append(("drop", "secondary"))
    buttons = tuple(Button(op, t(f"bot.lobby.button.{op}", lang), style=style)
                    for op, style in (*ops, ("start", "primary"))) if status == "lobby" else ()
    return Post(embed=embed, components=buttons)


def record_name(session: Session) -> str:
    """The file name of a game's record: ``giants-12.txt``."""
    return f"{session.row.game}-{session.id}.txt"


def commitment_field(session: Session, lang: str) -> tuple[str, str]:
    """The dice commitment shown from the start: the digest, how to check it at the end, and
    once the game is over the seed itself (never before)."""
    digest, game = session.commitment, session.row.game
    text = f"`{digest}`"
    if session.status == "running":
        text += "\n" + t("bot.fair.running", lang, game=game, file=record_name(session))
    elif session.status == "finished":
        text += "\n" + t("bot.fair.finished", lang, game=game, seed=session.row.seed,
                         file=record_name(session), digest=digest)
    return t("bot.fair.commitment", lang), _cut(text, MAX_EMBED_FIELD)


def ping_post(session: Session, now: datetime, ping_after: float, lang: str) -> Post | None:
    """Mentions of the humans who must act and have not acted for ``ping_after`` seconds (or
    whose turn time is nearly up); None when nobody needs a nudge."""
    if session.status != "running" or session.paused:
        return None
    due: list[Seat] = []
    for seat in pending_humans(session):
        idle = seat.acted_at is None or now - datetime.fromisoformat(seat.acted_at) \
            >= timedelta(seconds=ping_after)
        if idle or session.row.reminded:
            due.append(seat)
    if not due:
        return None
    who = ", ".join(f"<@{s.user_id}>" for s in due)
    closed = any(s.colour in session.dm_closed for s in due)
    where = t("bot.ping.table", lang) if not secret_now(session) \
        else t("bot.ping.secret_closed" if closed else "bot.ping.secret", lang)
    text = t("bot.ping.text", lang, who=who, game=game_name(session.row.game, lang),
             id=session.id, where=where)
    if session.row.reminded and session.row.deadline_at:
        deadline = int(datetime.fromisoformat(session.row.deadline_at).timestamp())
        text += " " + t("bot.ping.deadline", lang, deadline=f"<t:{deadline}:R>")
    return Post(content=text[:MAX_CONTENT],
                mentions=tuple(s.user_id for s in due if s.user_id is not None))


def dm_note(session: Session, lang: str) -> Post | None:
    """Once per game: whose DMs are closed, and that the 🔒 button serves them instead."""
    closed = [s.colour for s in session.seats if s.colour in session.dm_closed and not s.is_ai]
    if not closed or session.status != "running" or not game_ui(session.row.game).has_screen():
        return None  # a game without a private side needs no DMs (a turn DM is a courtesy)
    return Post(content=t("bot.hidden.dm_closed", lang, who=mentions(session, closed, lang)))


def final_post(session: Session, lang: str) -> Post:
    record = session.record() or ""
    return Post(content=_cut("\n".join([result_title(session, lang),
                                        *standings(session, lang)]), MAX_CONTENT),
                attachment=(record_name(session), record))


# --- the private side ------------------------------------------------------------------------

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
    key = _digest(ui.screen_key(view, seat.colour), seat.colour, lang, session.id)
    text = game_text(session.row.game, "hidden.screen", lang,
                     game=game_name(session.row.game, lang), id=session.id,
                     colour=colour_name(seat.colour, lang), channel=f"<#{session.row.home_id}>")
    words = ui.screen_text(view, seat.colour, lang)
    return Post(content=_cut("\n".join(w for w in (text, words) if w), MAX_CONTENT),
                picture=Picture(SCREEN_FILE, key, ui.screen_art(), (view, seat.colour, lang),
                                {"frame": (session.id, "screen", seat.colour, lang)},
                                stream=(session.id, seat.colour)))


def phase_label(ui: GameUI, kind: str, lang: str) -> str:
    key = f"bot.{ui.name}.phase.{kind}"
    return t(key, lang) if has(key, lang) else kind


__all__ = ["Desired", "Embed", "Picture", "Post", "Private", "closing", "commitment_field",
           "desired", "lobby_post", "now_text", "parse_stage", "record_name", "screen_post",
           "stage_key", "table_components"]
