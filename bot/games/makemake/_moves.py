"""Make Make moves in words: ``place B2 3 chief`` -> "place 3 tokens and the chief on B2".

The notation is read with the game's own parser; hexes and sites stay as they are typed. Every
word comes from the ``move.makemake.*`` keys of the catalogue.
"""

from __future__ import annotations

from render.i18n import t
from rules.core import IllegalAction
from rules.makemake.actions import Manu, Moai, Pass, Place, Withdraw, parse


def words(notation: str, lang: str) -> str:
    """``notation`` (one move of a seat) in words of ``lang``; the notation itself when it is
    not a move."""
    try:
        action = parse(notation)
    except IllegalAction:
        return notation
    if isinstance(action, Place):
        if action.chief and not action.count:
            return t("move.makemake.place.chief_alone", lang, hex=action.hex)
        key = "move.makemake.place.chief" if action.chief else "move.makemake.place.tokens"
        return t(key, lang, hex=action.hex, count=action.count)
    if isinstance(action, Withdraw):
        return t("move.makemake.withdraw", lang, hex=action.hex)
    if isinstance(action, Pass):
        return t("move.makemake.pass", lang)
    if isinstance(action, Moai):
        return t("move.makemake.moai", lang, hex=action.hex)
    if isinstance(action, Manu):
        key = "move.makemake.manu.one" if len(action.sites) == 1 else "move.makemake.manu.more"
        return t(key, lang, sites=list(action.sites))
    return notation
