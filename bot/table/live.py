"""The live table: one message per stage (DESIGN.md "The table").

Its board, the status that says who acts and what they decide, the stage's latest log lines in
words, and the components of the current decision. A new stage gets a new message; the previous
one keeps its final board and log (:func:`closing`) and loses its components.

The board is the message's attachment, not its embed's image: Discord shows an embed's image
in a small, height-capped box (the 1383x1530 Giants board at 253x280 px, on a phone as on a
desktop), an attachment at the message's width (302 px on a 390-point phone in the simulator's
preview). A Components V2 media gallery was measured too: 302 px at the top level, 265 px in a
container, so no wider than the attachment, while a V2 message can carry neither content nor
embed and would change every message the table sends; the attachment keeps the message's shape.
What V2 would add is order and small type: a header, the gallery, the buttons, then the facts,
scores and log as subtext measured 1.01 phone screens for a Giants stage this layout shows in
1.22, with the board and the buttons always on the first screen.
"""

from __future__ import annotations

import inspect
import unicodedata
from typing import Any

from bot.constants import BOARD_FILE, LOG_LINES, MAX_EMBED_FIELD, STEP_FILE
from bot.games import Button, Component, GameUI, Select, game_ui
from bot.host.sessions import Session, Step
from bot.table.pace import away_text, paused_text, takeback_notes
from bot.table.post import Embed, Picture, Post, Renderer, digest_of
from bot.table.private import pending_humans, secret_now
from bot.table.steps import first_step
from bot.table.words import (
    SEAT_CHANGES,
    change_line,
    colour_names,
    game_name,
    game_text,
    marked_label,
    marked_names,
    result_title,
    standings,
    step_line,
)
from render.i18n import has, number, t

FOCUS_GAIN = 2
"""How many times larger than on the whole board a focus must show the places' labels to be
shown instead of it."""

MARKS_BETWEEN = " · "
"""Between the seats in the players' line (and in the line of seat marks of ``/game help``)."""
LIVE_LOG_LINES = 3
"""Log lines on the live message: a take-back note stays in sight after the two moves that
follow it, and with the board and the buttons the message fits a phone's first screen
(``scripts/table_shots.py`` measures it); a closed stage's message keeps its whole log (up to
:data:`bot.constants.LOG_LINES`)."""
LIVE_LOG_ROWS = 4
"""The rows of a phone's screen the live message's log takes at most: the latest lines whole
while they fit, the end of the one before them in the rows left (a line's end is its latest
events: "… the bluff fails."), the end of the latest line when it alone is longer (a sealed
auction's reveal, whose bids the board's table shows)."""
ROW_COLUMNS = 44
"""How many columns an embed's row holds on a 390-point phone (a wide character, as in Chinese,
takes two; markdown's ``**`` none), as measured by ``scripts/table_shots.py``."""


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


# --- the live message -------------------------------------------------------------------------

def live_post(session: Session, ui: GameUI, view: dict[str, Any], start: int,
              names: dict[str, str], renderer: Renderer | None, lang: str,
              closed: bool = False) -> Post:
    """The live message of the stage that began with action ``start``, as of ``view``.

    Its picture is the part of the board the pending decision is about, large enough to read
    on a phone (:func:`_focus`), or the whole board when the decision is about all of it or
    none of it (the closed stage's message keeps the whole board). Its board rings what the
    latest turn changed, in this stage or the one before: a stage nobody has acted in yet
    says what just happened, and its board is then the very picture that closes the previous
    stage's message (drawn once)."""
    steps = session.log[start - 1:]
    assert session.game is not None
    picture = None if closed else _focus(session, ui, view, names, renderer, lang)
    if picture is None:
        picture = _board(session, ui, session.game.state, names, renderer, lang, session.log)
    # a young stage's log starts with what came just before it, so its message reads on its own
    earlier = max(0, start - 1 - max(0, LIVE_LOG_LINES - len(steps)))
    steps = session.log[earlier:]
    over = session.status != "running"  # the last stage's message, closed for good: its
    embed = Embed(title=_title(session, ui, view, lang),  # whole log, as a closed stage's
                  description=_status(session, ui, view, lang, closed),
                  fields=_fields(session, ui, view, steps, lang,
                                 most=LOG_LINES if over else LIVE_LOG_LINES,
                                 rows=None if over else LIVE_LOG_ROWS))
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
                  fields=_fields(session, ui, view, steps, lang, closed=True))
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
    who = marked_names(session, pending, lang)
    if not pending:
        return ""
    if not humans:
        return t("bot.table.ai_turn", lang, who=who)
    kind = session.kind()
    phase = _phase(session.row.game, ui, kind, lang)
    if secret_now(session):
        return game_text(session.row.game, "table.secret", lang, who=who, phase=phase)
    legal = session.legal_lines(humans[0].colour)
    components = _components(session, ui, humans[0].colour, lang)
    shown = [c for c in components if c.op not in ("info", "open")]
    guided = first_step(session, ui, humans[0].colour, lang, components)
    if not shown and not guided:
        how = t("bot.table.how_play", lang)
    elif guided or _covers(shown, legal):  # every move is a few taps away, right below:
        how = ""  # saying so would cost a line of the phone's screen
    else:
        how = t("bot.table.how_both", lang)
    return t("bot.table.turn", lang, who=who, phase=phase, how=how).strip()


def _phase(game: str, ui: GameUI, kind: str, lang: str) -> str:
    """What the pending seat decides, in the status line: a phase's short name where its full
    one lists every choice the components below offer anyway (a line of the phone's screen)."""
    short = f"bot.compact.phase.{game}.{kind}"
    return t(short, lang) if has(short, lang) else ui.phase_name(kind, lang)


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
            lang: str, closed: bool = False, most: int = LOG_LINES,
            rows: int | None = None) -> tuple[tuple[str, str], ...]:
    """What the embed says beside the board: the game's facts, the players (each with their
    mark and score), and the latest ``most`` lines of the log (as many as fit in ``rows`` of a
    phone's screen when given)."""
    names = colour_names(session, lang)
    out: list[tuple[str, str]] = []
    facts = ui.facts(view, lang, names)
    if facts:
        out.append((t("bot.table.facts", lang), cut("\n".join(facts), MAX_EMBED_FIELD)))
    if not view.get("finished"):  # the standings say it all at the end
        out.append(players_field(session, ui, view, lang))
    lines, notes = _log_lines(session, ui, steps, lang, names, closed)
    if lines and rows is not None:  # the live message: the latest lines that fit
        shown = _latest(lines, notes, most, rows)
        out.append((t("bot.table.log", lang), cut("\n".join(shown), MAX_EMBED_FIELD)))
    elif lines:
        shown = lines[-most:]
        if len(lines) > len(shown):
            shown = ["…", *shown]
        text = "\n".join(shown)
        while len(text) > MAX_EMBED_FIELD and len(shown) > 2:
            shown = ["…", *shown[2:]]
            text = "\n".join(shown)
        out.append((t("bot.table.log", lang), cut(text, MAX_EMBED_FIELD)))
    return tuple(out)


def players_field(session: Session, ui: GameUI, view: dict[str, Any],
                  lang: str) -> tuple[str, str]:
    """The players on one line: each seat's mark (the shape its pieces carry on the board), its
    colour, its player and its score (``● **Red** (Anna): 3 · ■ **Blue** ...``, the unit in the
    field's name when it is points, else with each score: ``$15,000``), so that
    the picture reads without telling colours apart. One line for what were two fields (the
    scores, the seat marks with a sentence explaining them, which ``/game help`` now gives):
    the message fits a phone's first screen."""
    scores = view.get("scores") or {}
    points = type(ui).score_text is GameUI.score_text  # plain points: the unit named once
    seats = []
    for seat in session.seats:
        label = marked_label(seat, lang)
        if seat.colour in scores:
            score = scores[seat.colour]
            label = t("bot.compact.scored", lang, seat=label,
                      score=number(score, lang) if points else ui.score_text(score, lang))
        seats.append(label)
    name = "bot.compact.players_points" if points and scores else "bot.compact.players"
    return t(name, lang), cut(MARKS_BETWEEN.join(seats), MAX_EMBED_FIELD)


def marks_field(session: Session, lang: str) -> tuple[str, str]:
    """The seats' marks explained once, for ``/game help``: what a mark is, then each seat's
    mark with its colour and player."""
    seats = MARKS_BETWEEN.join(marked_label(seat, lang) for seat in session.seats)
    return t("bot.marks.field", lang), cut(t("bot.marks.explain", lang) + "\n" + seats,
                                           MAX_EMBED_FIELD)


def _latest(lines: list[str], notes: set[str], most: int, rows: int) -> list[str]:
    """Of the last ``most`` lines, what fits in ``rows`` of a phone's screen: the latest ones
    whole, the end of the one before them in the rows left (:func:`_tail`); and the take-back
    note just before those ``most`` lines, if any: a take-back stays in sight after the turn
    that follows it (the move played instead and the AI's answers), as when the log showed
    four lines."""
    shown: list[str] = []
    used = 0
    for line in reversed(lines[-most:]):
        need = -(-_width(line) // ROW_COLUMNS)
        if used + need > rows:
            if rows > used:
                shown.insert(0, _tail(line, (rows - used) * ROW_COLUMNS))
            break
        shown.insert(0, line)
        used += need
    before = len(lines) - most - 1
    if before >= 0 and lines[before] in notes:
        shown.insert(0, lines[before])
    return shown


def _log_lines(session: Session, ui: GameUI, steps: list[Step], lang: str,
               names: dict[str, str], closed: bool) -> tuple[list[str], set[str]]:
    """The steps in words, with the take-backs and the seats that changed hands among them
    (after the action they followed), and which of the lines are take-back notes. A change
    after a stage's last action belongs to the next stage; a closed stage's message leaves it
    out."""
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
    return lines, {note for group in takebacks.values() for note in group}


def cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _columns(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _width(line: str) -> int:
    """How many columns ``line`` takes as shown: a wide character (Chinese) two, ``**`` none."""
    return sum(_columns(c) for c in line.replace("**", ""))


def _tail(line: str, most: int) -> str:
    """The end of ``line`` within ``most`` columns as shown, after "… ", from a word's start
    when one is near; a bold part cut open is opened again (or its end left out)."""
    room = most - 2  # "… "
    shown, i = 0, len(line)
    while i > 0:
        if line[i - 2:i] == "**":
            i -= 2
            continue
        if shown + _columns(line[i - 1]) > room:
            break
        shown += _columns(line[i - 1])
        i -= 1
    tail = line[i:]
    space = tail.find(" ")
    if 0 <= space <= len(tail) // 4:
        tail = tail[space + 1:]
    if tail.count("**") % 2:
        tail = tail[2:] if tail.startswith("**") else "**" + tail
    return "… " + tail.lstrip()


def _board(session: Session, ui: GameUI, state: Any, names: dict[str, str],
           renderer: Renderer | None, lang: str, steps: list[Step]) -> Picture | None:
    """The board of position ``state``, its key worked out once per position (a digest of
    the whole view: the same board is asked for again when its stage closes)."""
    if renderer is None:
        return None
    view = session.view_of(state)
    changed = sorted(ui.changed([e for s in _latest_turn(steps) for e in s.events]))
    key = session.worked_out(state, ("board", lang, tuple(names.items()), tuple(changed)),
                             lambda _: digest_of(view, lang, names, changed))
    return Picture(BOARD_FILE, key, renderer, (view, lang, names),
                   {"highlight": frozenset(changed), "frame": (session.id, "board", lang)},
                   stream=(session.id, "board"))


def focus_now(session: Session, ui: GameUI, view: dict[str, Any],
              renderer: Renderer | None) -> list[str]:
    """The places the live message shows close up: those the pending human's public decision
    is about (:meth:`GameUI.focus_places`); none when there is no such decision, the renderer
    draws no focus, or the places are spread over so much of the board that a part of it would
    read no better than the whole (then the board is shown)."""
    if renderer is None or session.game is None or session.paused or secret_now(session):
        return []
    art = inspect.getmodule(renderer)
    humans = pending_humans(session)
    if not humans or art is None or not hasattr(art, "focus") or not hasattr(art, "place_box"):
        return []
    places = ui.focus_places(session.kind(), view, session.legal_lines(humans[0].colour))
    return places if _close(art, view, places) else []


def _close(art: Any, view: dict[str, Any], places: list[str]) -> bool:
    """Whether a focus shows ``places`` better than the whole board: they are close enough
    together (:data:`FOCUS_GAIN`), or a few far apart that the renderer shows each on a tile
    of its own (``focus_parts``)."""
    if not places:
        return False
    if hasattr(art, "focus_parts") and len(art.focus_parts(view, places)) > 1:
        return True
    box, whole = art.place_box(view, places), art.place_box(view, [])
    return (box[2] - box[0]) * FOCUS_GAIN <= whole[2] - whole[0]


def step_picture(session: Session, renderer: Renderer | None, moves: list[str],
                 lang: str) -> Picture | None:
    """The focus on the places a guided step's options lead to (``moves``: :attr:`Chooser.moves
    <bot.table.steps.Chooser.moves>`), shown with the step to the player tapping through it:
    a decision about the whole board comes in groups (a band of hexes, a row), and the
    group's places, close together, read at a phone's size there. None: the step is about
    no places, or about places too far apart (then the table's picture serves)."""
    art = inspect.getmodule(renderer) if renderer is not None else None
    if (art is None or session.game is None or not hasattr(art, "focus")
            or not hasattr(art, "place_box")):
        return None
    ui = game_ui(session.row.game)
    view = session.view(None)
    places = ui.focus_places(session.kind(), view, moves)
    if not _close(art, view, places):
        return None
    names = colour_names(session, lang)
    key = digest_of("step", view, lang, names, sorted(places))
    return Picture(STEP_FILE, key, art.focus, (view, places, lang, names), {},
                   stream=(session.id, "step"))


def _focus(session: Session, ui: GameUI, view: dict[str, Any], names: dict[str, str],
           renderer: Renderer | None, lang: str) -> Picture | None:
    """The focus picture of :func:`focus_now`'s places, drawn by the renderer's ``focus``
    with what the latest turn changed ringed; None when there are none."""
    places = focus_now(session, ui, view, renderer)
    art = inspect.getmodule(renderer) if places else None
    if art is None:
        return None
    changed = sorted(ui.changed([e for s in _latest_turn(session.log) for e in s.events]))
    key = digest_of("focus", view, lang, names, places, changed)
    return Picture(BOARD_FILE, key, art.focus, (view, places, lang, names),
                   {"highlight": frozenset(changed)}, stream=(session.id, "board"))


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
        items += first_step(session, ui, humans[0].colour, lang, items)
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


__all__ = ["closing", "cut", "focus_now", "live_post", "marks_field", "now_text",
           "parse_stage", "players_field", "stage_key", "stage_start", "step_picture",
           "table_components"]
