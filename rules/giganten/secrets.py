"""Records of a running game with the secrets replaced by ``?`` (spec 7.3)."""

from __future__ import annotations

from rules.core import CHANCE, split_words
from rules.giganten.state import State


def public_line(state: State, line: str, seat: str | None = None) -> str:
    """One record line as ``seat`` (None: everyone) may read it while ``state`` is current.

    Unbuilt tile values and dealt licence values read ``?``; a seat sees its own dealt values.
    After the end every line is shown in full.
    """
    words = split_words(line)
    if state.phase == "over" or len(words) < 2 or words[0] != CHANCE:
        return line
    verb_ = words[1].lower()
    if verb_ == "tiles":
        shown = []
        for entry in words[2:]:
            label = entry.split("=", 1)[0].upper()
            built = state.spaces.get(label, {}).get("state") in ("derrick", "spent")
            shown.append(entry if built else f"{label}=?")
        return " ".join(["*", "tiles", *shown])
    if verb_ == "licences" and len(words) > 2 and words[2].lower() != seat:
        return " ".join(["*", "licences", words[2], *("?" for _ in words[3:])])
    return line


def public_record(state: State, header: str, lines: list[str], seat: str | None = None) -> str:
    """A whole record for export: the game line, then every line through :func:`public_line`."""
    return "\n".join([header, *(public_line(state, line, seat) for line in lines)]) + "\n"
