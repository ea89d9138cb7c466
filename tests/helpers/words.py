"""English game words: what a translated text must not hold outside notation."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from render import i18n
from render.i18n import COUNT, DEFAULT, catalogue


def forms(template: i18n.Template) -> list[str]:
    """The texts of a template: itself, or each form of a plural object."""
    if isinstance(template, str):
        return [template]
    return [v for k, v in template.items() if k != COUNT]


NOTATION = re.compile(r"`[^`]*`|\{[^}]*\}|<[^>]*>|https?://\S+")
WORD = re.compile(r"[^\W\d_]+")
LATIN = re.compile(r"[A-Za-z]+")
"""A run of Latin letters: in Chinese text it stands between characters without a space."""
NAMES = frozenset({
    "giants", "giganten", "make", "tangata", "manu", "moai", "ahu", "rongo", "hudson", "jet",
    "standard", "oil", "industries", "inc", "trust", "us", "discord", "rapa", "nui", "png",
    "json", "sha", "id", "dm", "openskill", "bot", "ai",
})
"""Words every locale writes as they are: the games' and companies' names, formats."""
PLACES = frozenset(w.lower() for ahu in json.loads(
    (Path(i18n.I18N_DIR).parent / "giants_board.json").read_text("utf-8"))["ahus"]
    for w in WORD.findall(f"{ahu['id']} {ahu['name']}"))
"""The ahu of Rapa Nui, by their names (the same in every language)."""
FUNCTION_WORDS = frozenset({"the", "you", "your", "and", "with", "not", "for", "have", "are",
                            "from", "this", "that", "there", "what", "which", "will", "can"})


GAME_VOCABULARY = frozenset({
    "place", "placement", "move", "moves", "mark", "marks", "marker", "markers", "peek", "pass",
    "bid", "bids", "take", "build", "drive", "sell", "pay", "skip", "done", "claim", "withdraw",
    "recruit", "log", "logs", "worker", "workers", "chief", "sorcerer", "headdress",
    "headdresses", "statue", "statues", "base", "bases", "licence", "licences", "card", "cards",
    "chip", "chips", "derrick", "derricks", "truck", "trucks", "locomotive", "loco", "train",
    "tile", "tiles", "price", "prices", "round", "rounds", "point", "points", "pts", "seat",
    "seats", "turn", "turns", "player", "players", "game", "games", "step", "phase", "auction",
    "ceremony", "token", "tokens", "site", "sites", "reserve", "quarry", "forest", "village",
    "screen", "urn", "prestige", "half", "halves", "dice", "face", "faces", "score", "winner",
    "winners", "submit", "join", "start", "cancel", "leave", "none", "nothing", "yes", "off",
    "endround", "transport", "choose", "draw", "over",
})
"""The games' own English words, wherever they come from (notation verbs, pieces, steps)."""
LATIN_SCRIPT = frozenset({"en", "es"})


@cache
def english_game_words() -> frozenset[str]:
    words = set(FUNCTION_WORDS) | GAME_VOCABULARY
    for key, template in catalogue(DEFAULT).items():
        if key.startswith(("term.", "count.")):
            for form in forms(template):
                words |= {w.lower() for w in WORD.findall(NOTATION.sub(" ", form))}
    return frozenset(w for w in words if len(w) > 2 or w in FUNCTION_WORDS) - NAMES - PLACES


def english_words(text: str, allowed: frozenset[str], lang: str = "es") -> set[str]:
    """English words of ``text`` outside notation: game words for a Latin-script locale, any
    Latin word of three letters or more (but the shared names) for Russian and Chinese."""
    bare = NOTATION.sub(" ", text)
    if lang in LATIN_SCRIPT:
        return {w for w in WORD.findall(bare)
                if w.lower() in english_game_words() and w.lower() not in allowed}
    return {w for w in LATIN.findall(bare) if len(w) > 2
            and w.lower() not in NAMES | PLACES and w.lower() not in allowed}


@cache
def locale_words(lang: str) -> frozenset[str]:
    """Words a locale's own glossary writes (a shared name, say): never counted as English."""
    return frozenset(w.lower() for key, template in catalogue(lang).items()
                     if key.startswith("term.") for form in forms(template)
                     for w in WORD.findall(form))


SIMPLIFIED_ONLY = ("个这们时对说门马么车东开关发经为会后号戏将从间头点达过还"
                   "进运选场块员图应该让钱币轮论级备扑认识标记简领鸟许证层拦"
                   "岛气无乐执术码权删录设")
"""Common Simplified characters whose Traditional form differs (个 個, 这 這, 记 記, 鸟 鳥 ...):
none of them belongs in Traditional Chinese text about these games."""
