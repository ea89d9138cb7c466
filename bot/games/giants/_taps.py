"""Giants decisions by taps: how a legal move splits into the steps of a guided choice.

A worker's placement, the most frequent decision, is one part (``place worker K8 1logs``): its
first step offers the rows of the island for a worker beside the sorcerer, the chief, rongo and
pass, so a worker takes two taps, a row and then the hex with its logs (a hex and its logs are
one decision; a separate logs step would cost every placement a tap). The sorcerer and the chief
are "which figure", then "just placed" or "a hex's action"; placed, "where and with how many
logs" in one step (``K8 1logs``). A hex action is "which action" (the village, the hut,
the headdress quarry, a forest; an ahu to reserve), and an ahu's hex last. A transport is the
item, then where it ends and what happens there (``L7 K8 erect oroi``): legal moves list one
path per end hex, so the path is no choice. A bid, a statue and an end-of-round answer are one
decision each, grouped by markers (and the chief) or by the items marked when there are many.

No move's parts are the first parts of another move, so a guided choice never has to ask
"anything more?". Where a step has more than 25 options, its group step offers bands: two
neighbouring rows, at most four columns across (eight hexes): 24 options at most for a hex
with its three log counts, 16 for an end hex with and without a marker (deliveries have groups
of their own). A band's hexes are neighbours, so the step that offers them shows them close
up, large enough to read on a phone.
"""

from __future__ import annotations

from functools import lru_cache

from bot.games._ui import colour_name
from bot.games.giants import _moves
from render.i18n import join, t
from rules.core import IllegalAction
from rules.giants.actions import (
    Bid,
    EndRound,
    Mark,
    Move,
    Peek,
    Place,
    Special,
    parse,
)
from rules.giants.board import AHU_NAMES, AHUS, COORDS, FOREST_LOGS, HEXES, KIND
from rules.giants.placement import ACTION_HEX

KEY = "bot.giants.taps"
SPECIAL_KINDS = {"moai-quarry": "moai_quarry", "headdress-quarry": "headdress_quarry",
                 "village": "village", "hut": "hut", "forest": "forest"}
"""Hex kinds named beside a hex's label (keys of ``render.giants.key``)."""
BAND_ROWS = 2
"""Rows of the island in one band: two neighbouring rows."""
BAND_COLUMNS = 4
"""Columns of a band at most: two rows of four neighbouring hexes fit one focus picture at the
size a phone reads (:data:`render.focus.FOCUS_WIDTH`: the band's step shows its hexes'
labels 7 points tall), and eight hexes with three log counts each stay within a step's 25
options."""


def _bands() -> dict[str, tuple[int, int, str, str]]:
    """Each hex's band: (first row, last row, first hex, last hex), rows 1-based. The island's
    rows go in pairs (the last alone when their number is odd), each pair cut across its
    columns in even blocks of at most :data:`BAND_COLUMNS`: 18 bands, a worker's placement
    a band and a hex."""
    rows: dict[int, list[str]] = {}
    for label in HEXES:
        rows.setdefault(COORDS[label][1] + 1, []).append(label)
    numbers = sorted(rows)
    out: dict[str, tuple[int, int, str, str]] = {}
    for at in range(0, len(numbers), BAND_ROWS):
        pair = numbers[at:at + BAND_ROWS]
        labels = [label for row in pair for label in rows[row]]
        columns = sorted({COORDS[label][0] for label in labels})
        count = -(-len(columns) // BAND_COLUMNS)
        for block in range(count):
            held = set(columns[block * len(columns) // count:(block + 1) * len(columns) // count])
            band = [label for label in labels if COORDS[label][0] in held]
            first = min(COORDS[label][1] for label in band) + 1
            last = max(COORDS[label][1] for label in band) + 1
            out.update({label: (first, last, band[0], band[-1]) for label in band})
    return out


BAND = _bands()
HALF = len(AHUS) // 2 + len(AHUS) % 2
"""The ahus split in two runs along the coast, for the groups of reserving an ahu."""


def _cap(text: str) -> str:
    """A label starts with a capital (a move's words start small, in running text)."""
    return text[:1].upper() + text[1:]


def _logs_word(n: int) -> str:
    return f"{n}logs" if n else ""


def _tail(*words: str) -> str:
    return " ".join(w for w in words if w)


# --- the parts of a move ----------------------------------------------------------------------

@lru_cache(maxsize=4096)
def parts(kind: str, notation: str) -> tuple[str, ...]:
    """The parts a guided choice picks one by one; joined by spaces they are the notation.
    Kept: every step of a guided choice splits every legal move again."""
    try:
        action = parse(notation)
    except IllegalAction:
        return tuple(notation.split())
    if isinstance(action, Place) and action.figure == "worker":
        return (str(action),)
    if isinstance(action, Place):
        return (f"place {action.figure}", _tail(action.hex, _logs_word(action.logs)))
    if isinstance(action, Special):
        logs = _logs_word(action.logs)
        if action.action == "reserve":
            return (action.figure, f"reserve {action.ahu}", _tail(str(action.hex), logs))
        if action.action == "logs":
            return (action.figure, _tail("logs", str(action.hex), logs))
        return (action.figure, _tail(action.action, logs))
    if isinstance(action, Move):
        head = f"move {action.item}"
        return (head, str(action)[len(head):].strip()) if str(action) != head else (head,)
    return (str(action),)


# --- prompts ----------------------------------------------------------------------------------

def prompt(kind: str, chosen: tuple[str, ...], lang: str) -> str:
    """The question of the step after ``chosen``."""
    if not chosen:
        return t(f"{KEY}.prompt.{kind}", lang)
    first = chosen[0]
    if kind == "place" and first.startswith("place "):
        return t(f"{KEY}.prompt.where.{first.split()[1]}", lang)
    if kind == "place" and len(chosen) == 1:
        return t(f"{KEY}.prompt.action.{first}", lang)
    if kind == "place":
        return t(f"{KEY}.prompt.reserve", lang, ahu=_ahu(chosen[1].split()[-1]))
    if kind == "transport":
        return t(f"{KEY}.prompt.move", lang, item=first.split()[-1])
    return t(f"{KEY}.prompt.{kind}", lang)


# --- labels -----------------------------------------------------------------------------------

def label(kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
    """An option in words: what ``part`` adds to the move chosen so far."""
    if kind == "place":
        return _place_label(chosen, part, lang)
    if kind == "transport" and chosen:
        return _cap(_where(part, lang))
    if kind == "transport" and part.startswith("move "):
        return t(f"{KEY}.label.move", lang, item=part.split()[1])
    if kind == "bid":
        return _cap(_bid_words(part, lang))
    return _cap(_moves.words(part, lang))


def _place_label(chosen: tuple[str, ...], part: str, lang: str) -> str:
    if not chosen:
        if part.startswith("place worker "):
            return _cap(_moves.words(part, lang))
        if part.startswith("place "):
            return t(f"{KEY}.label.place.{part.split()[1]}", lang)
        if part in ("sorcerer", "chief"):
            return t(f"{KEY}.label.action.{part}", lang)
        return _cap(_moves.words(part, lang))
    if chosen[0].startswith("place ") or len(chosen) == 2:
        return _hex_label(part, lang)
    words = part.split()
    logs = _logs_phrase(words[-1], lang)
    if words[0] == "reserve":
        return t(f"{KEY}.label.reserve", lang, ahu=_ahu(words[1]))
    if words[0] == "logs":
        return t(f"{KEY}.label.logs", lang, hex=words[1], n=FOREST_LOGS.get(words[1], 0),
                 logs=logs)
    return t(f"{KEY}.label.{words[0]}", lang, hex=ACTION_HEX.get(words[0], ""), logs=logs)


def _logs_phrase(word: str, lang: str) -> str:
    """``2logs`` as a phrase to append (empty for any other word)."""
    if not word.endswith("logs") or not word[:-4].isdecimal():
        return ""
    return t(f"{KEY}.with_logs", lang, logs=int(word[:-4]))


def _hex_label(part: str, lang: str) -> str:
    """``K8 1logs``: the hex (with its kind when it is not plain land) and the logs."""
    words = part.split()
    hexlabel = words[0]
    kind = SPECIAL_KINDS.get(KIND.get(hexlabel, ""))
    text = t(f"{KEY}.hex.kind", lang, hex=hexlabel, kind=t(f"render.giants.key.{kind}", lang)) \
        if kind else hexlabel
    return text + (_logs_phrase(words[-1], lang) if len(words) > 1 else "")


def _ahu(ahu: str) -> str:
    return AHU_NAMES.get(ahu, ahu)


def _where(part: str, lang: str) -> str:
    """Where a moved item ends and what happens there: ``L7 K8 erect oroi`` -> "to K8, 2
    steps: erect it on ahu Oroi"."""
    words = part.split()
    path = [w for w in words if w[:1].isupper()]
    rest = [w for w in words if not w[:1].isupper()]
    place = t(f"{KEY}.to", lang, to=path[-1], steps=len(path)) if path \
        else t(f"{KEY}.here", lang)
    if rest[:1] and rest[0] in ("erect", "crown") and len(rest) > 1:
        place = t(f"{KEY}.end.{rest[0]}", lang, where=place, ahu=_ahu(rest[1]))
    if "mark" in rest:
        place = t(f"{KEY}.end.mark", lang, where=place)
    favour = next((w.partition("=")[2] for w in rest if w.startswith("favour=")), "")
    if favour:
        place = t("move.giants.and_then", lang, first=place, then=t(
            "move.giants.move.favour", lang, colour=colour_name(favour, lang)))
    return place


def _bid_words(part: str, lang: str) -> str:
    """A whole bid without its verb: "1 marker, 2 workers, the chief"."""
    try:
        bid = parse(part)
    except IllegalAction:
        return part
    if not isinstance(bid, Bid):
        return _moves.words(part, lang)
    words = [t("move.giants.bid.markers", lang, markers=bid.markers)]
    if bid.workers:
        words.append(t("move.giants.bid.workers", lang, workers=bid.workers))
    words += [t(f"move.giants.bid.{figure}", lang) for figure in ("chief", "sorcerer")
              if getattr(bid, figure)]
    return join(words, lang)


# --- groups -----------------------------------------------------------------------------------

def group(kind: str, chosen: tuple[str, ...], part: str, lang: str) -> str:
    """The group of ``part`` when its step has more than 25 options ("" for none)."""
    try:
        if kind == "place":
            return _place_group(chosen, part, lang)
        if kind == "transport":
            return _transport_group(chosen, part, lang)
        if kind == "bid":
            return _bid_group(part, lang)
        if kind == "endround":
            return _endround_group(part, lang)
    except (IllegalAction, IndexError, KeyError):
        return ""
    return ""


def band_name(hexlabel: str, lang: str, what: str = "") -> str:
    """The band of rows a hex belongs to, in words (``what``: of a worker's placement)."""
    first, last, west, east = BAND[hexlabel]
    key = f"{KEY}.group.{what}." if what else f"{KEY}.group."
    if first != last:
        return t(f"{key}rows", lang, first=first, last=last, west=west, east=east)
    return t(f"{key}row", lang, row=first, first=west, last=east)


def _place_group(chosen: tuple[str, ...], part: str, lang: str) -> str:
    if not chosen:
        words = part.split()
        if part.startswith("place worker "):
            return band_name(words[2], lang, "worker")
        figure = words[-1] if words[0] == "place" else words[0]
        if figure in ("sorcerer", "chief"):
            return t(f"{KEY}.group.figure.{figure}", lang)
        return _cap(_moves.words(part, lang))
    if chosen[0].startswith("place ") or len(chosen) == 2:
        return band_name(part.split()[0], lang)
    words = part.split()
    if words[0] == "reserve":
        index = AHUS.index(words[1])
        run = AHUS[:HALF] if index < HALF else AHUS[HALF:]
        return t(f"{KEY}.group.reserve", lang, first=_ahu(run[0]), last=_ahu(run[-1]))
    if words[0] == "logs":
        return t(f"{KEY}.group.forest", lang)
    return t(f"{KEY}.group.actions", lang)


def _transport_group(chosen: tuple[str, ...], part: str, lang: str) -> str:
    if not chosen:
        action = parse(part)
        if isinstance(action, Move | Mark):
            kind = "moai" if action.item.startswith("moai") else "hat"
            return t(f"{KEY}.group.items.{kind}", lang)
        if isinstance(action, Peek):
            return t(f"{KEY}.group.peek", lang)
        return t(f"{KEY}.group.other", lang)
    words = part.split()
    for verb in ("erect", "crown"):
        if verb in words:
            return t(f"{KEY}.group.{verb}", lang)
    path = [w for w in words if w[:1].isupper()]
    return band_name(path[-1], lang) if path else t(f"{KEY}.group.here", lang)


def _bid_group(part: str, lang: str) -> str:
    bid = parse(part)
    if not isinstance(bid, Bid):
        return ""
    markers = t("move.giants.bid.markers", lang, markers=bid.markers)
    return t(f"{KEY}.group.bid_chief", lang, markers=markers) if bid.chief else markers


def _endround_group(part: str, lang: str) -> str:
    answer = parse(part)
    if not isinstance(answer, EndRound):
        return ""
    if not answer.mark:
        return t(f"{KEY}.group.mark_none", lang)
    return t(f"{KEY}.group.mark", lang, items=list(answer.mark))
