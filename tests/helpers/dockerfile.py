"""The repository's Dockerfile read as instructions: the one instruction of a kind, and each
``COPY``'s sources and destination."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def instructions(text: str) -> list[tuple[str, str]]:
    """A Dockerfile's instructions in order, each (KEYWORD, its arguments on one line)."""
    found, pending = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        whole = (pending + stripped).strip()
        pending = ""
        keyword, _, args = whole.partition(" ")
        found.append((keyword.upper(), " ".join(args.split())))
    return found


DOCKERFILE = instructions((ROOT / "Dockerfile").read_text("utf-8"))


def only(keyword: str) -> str:
    [args] = [args for key, args in DOCKERFILE if key == keyword]
    return args


def copies() -> list[tuple[list[str], str]]:
    """Each COPY instruction's sources and destination."""
    found = []
    for key, args in DOCKERFILE:
        if key == "COPY":
            *sources, destination = args.split()
            assert not any(s.startswith("--") for s in sources), "no COPY flags expected"
            found.append((sources, destination))
    return found
