"""Giants moves in words: ``place worker K8 1logs`` -> "place a worker on K8 with 1 log".

The notation is read with the game's own parser; hexes, ahus and item ids (``moai4``,
``hat1``) stay as they are typed. Every word comes from the ``move.giants.*`` keys of the
catalogue, colours from ``bot.colour.*``.
"""

from __future__ import annotations

from bot.games._ui import colour_name, path_words
from render.i18n import t
from rules.core import IllegalAction
from rules.giants.actions import (
    Bid,
    Done,
    EndRound,
    Mark,
    Move,
    Pass,
    Peek,
    Place,
    Rongo,
    Special,
    Take,
    parse,
)
from rules.giants.placement import special_hex


def words(notation: str, lang: str) -> str:
    """``notation`` (one move of a seat) in words of ``lang``; the notation itself when it is
    not a seat's move (a chance line) or cannot be read."""
    try:
        action = parse(notation)
    except IllegalAction:
        return notation
    if isinstance(action, Bid):
        return _bid(action, lang)
    if isinstance(action, Take):
        return t("move.giants.take", lang, size=action.size)
    if isinstance(action, Place):
        return t(f"move.giants.place.{action.figure}", lang, hex=action.hex,
                 logs=_logs(action.logs, lang))
    if isinstance(action, Special):
        return t(f"move.giants.{action.figure}.{action.action}", lang, hex=special_hex(action),
                 ahu=action.ahu, logs=_logs(action.logs, lang))
    if isinstance(action, Move):
        return _move(action, lang)
    if isinstance(action, Mark):
        return t("move.giants.mark", lang, item=action.item)
    if isinstance(action, Peek):
        return t("move.giants.peek", lang, ahu=action.ahu)
    if isinstance(action, EndRound):
        return _endround(action, lang)
    simple = {Done: "done", Rongo: "rongo", Pass: "pass"}
    kind = simple.get(type(action))
    return t(f"move.giants.{kind}", lang) if kind else notation


def _logs(n: int, lang: str) -> str:
    """The logs a figure takes along, as a phrase for the ``{logs}`` of its template."""
    return t("move.giants.with_logs", lang, logs=n) if n else ""


def _bid(bid: Bid, lang: str) -> str:
    parts = [t("move.giants.bid.markers", lang, markers=bid.markers)]
    if bid.workers:
        parts.append(t("move.giants.bid.workers", lang, workers=bid.workers))
    parts += [t(f"move.giants.bid.{figure}", lang) for figure in ("chief", "sorcerer")
              if getattr(bid, figure)]
    return t("move.giants.bid", lang, parts=parts)


def _move(mv: Move, lang: str) -> str:
    clauses = []
    if mv.path:
        clauses.append(path_words(mv.path, lang, "move.giants.move", item=mv.item))
    if mv.deliver:
        here = "" if mv.path else "_here"
        clauses.append(t(f"move.giants.move.{mv.deliver}{here}", lang, item=mv.item, ahu=mv.ahu))
    if mv.mark:
        key = "move.giants.move.mark" if clauses else "move.giants.mark"
        clauses.append(t(key, lang, item=mv.item))
    if not clauses:
        clauses.append(t("move.giants.move.item", lang, item=mv.item))
    if mv.favour:
        clauses.append(t("move.giants.move.favour", lang, colour=colour_name(mv.favour, lang)))
    return _chain(clauses, lang)


def _endround(answer: EndRound, lang: str) -> str:
    clauses = [t(f"move.giants.endround.{what}.{'one' if len(items) == 1 else 'more'}", lang,
                 items=list(items))
               for what, items in (("mark", answer.mark), ("recall", answer.recall)) if items]
    return _chain(clauses, lang) if clauses else t("move.giants.endround.keep", lang)


def _chain(clauses: list[str], lang: str) -> str:
    text = clauses[0]
    for clause in clauses[1:]:
        text = t("move.giants.and_then", lang, first=text, then=clause)
    return text
