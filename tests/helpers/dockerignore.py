"""What ``docker build`` sends of a folder: ``.dockerignore`` read and matched as Docker does.

Docker (BuildKit) reads the file line by line: a line whose first character is ``#`` is a
comment; the rest are trimmed, blank ones skipped; a leading ``!`` makes an exception (a path it
matches is sent after all); each pattern is cleaned like Go's ``filepath.Clean`` and a leading
``/`` dropped, so every pattern is anchored at the context's root. A pattern is matched against a
path, and against each of the path's parent folders (a matched folder excludes all it holds);
patterns are applied in order and the last one that matches decides. In a pattern, ``*`` is any
run of characters but ``/``, ``?`` one character but ``/``, ``[...]`` a class, ``\\`` escapes
the next character, and ``**`` any number of folders (none included); a pattern that starts with
``**`` matches any path that ends with the rest, and one that ends in ``**`` any path that starts
with what comes before it.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

REGEX_SPECIAL = set(".+()|{}$")
"""Characters a regular expression gives a meaning that a path pattern does not: escaped."""


def go_clean(path: str) -> str:
    """Go's ``filepath.Clean`` on a slash path (Python keeps a leading ``//``; Go does not)."""
    cleaned = posixpath.normpath(path)
    return "/" + cleaned.lstrip("/") if cleaned.startswith("//") else cleaned


def read_patterns(text: str) -> list[str]:
    """The patterns of a ``.dockerignore`` file, cleaned, exceptions keeping their ``!``."""
    patterns = []
    for number, raw in enumerate(text.splitlines()):
        line = raw.removeprefix("\ufeff") if number == 0 else raw
        if line.startswith("#"):
            continue
        line = line.strip()
        if not line:
            continue
        exception = line.startswith("!")
        if exception:
            line = line[1:].strip()
        if line:
            line = go_clean(line)
            if len(line) > 1 and line.startswith("/"):
                line = line[1:]
        patterns.append("!" + line if exception else line)
    return patterns


@dataclass
class Pattern:
    text: str
    exception: bool
    kind: str = field(init=False)
    """How it is matched: ``exact``, ``prefix`` (ends in ``**``), ``suffix`` (starts with
    ``**``) or ``regex``."""
    regex: re.Pattern[str] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.kind, expression = self._compile(self.text)
        if self.kind == "regex":
            self.regex = re.compile(expression + "$")

    @staticmethod
    def _compile(pattern: str) -> tuple[str, str]:
        expression, kind, i = "^", "exact", 0
        while i < len(pattern):
            char = pattern[i]
            if char == "*" and pattern[i + 1:i + 2] == "*":
                start = i
                i += 2
                if pattern[i:i + 1] == "/":
                    i += 1
                if i == len(pattern):
                    if kind == "exact":
                        kind = "prefix"
                    else:
                        expression += ".*"
                        kind = "regex"
                else:
                    expression += "(.*/)?"
                    kind = "regex"
                if start == 0:
                    kind = "suffix"
                continue
            if char == "*":
                expression += "[^/]*"
                kind = "regex"
            elif char == "?":
                expression += "[^/]"
                kind = "regex"
            elif char in REGEX_SPECIAL:
                expression += "\\" + char
            elif char == "\\":
                if i + 1 < len(pattern):
                    i += 1
                    expression += "\\" + pattern[i]
                    kind = "regex"
                else:
                    expression += "\\\\"
            elif char in "[]":
                expression += char
                kind = "regex"
            else:
                expression += char
            i += 1
        return kind, expression

    def matches(self, path: str) -> bool:
        if self.kind == "exact":
            return path == self.text
        if self.kind == "prefix":
            return path.startswith(self.text[:-2])
        if self.kind == "suffix":
            suffix = self.text[2:]
            return path.endswith(suffix) or (suffix.startswith("/") and path == suffix[1:])
        assert self.regex is not None
        return self.regex.match(path) is not None


class DockerIgnore:
    """The patterns of one ``.dockerignore``."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = [Pattern(p[1:], True) if p.startswith("!") else Pattern(p, False)
                         for p in patterns]

    @classmethod
    def of(cls, context: Path) -> DockerIgnore:
        path = context / ".dockerignore"
        return cls(read_patterns(path.read_text("utf-8")) if path.exists() else [])

    def may_undo_inside(self, folder: str) -> bool:
        """Whether an exception could match something inside ``folder``: its text up to its
        first wildcard leads into the folder, or the folder's path starts with that text."""
        inside = folder + "/"
        for pattern in self.patterns:
            if pattern.exception:
                literal = re.split(r"[*?\[\\]", pattern.text, maxsplit=1)[0]
                if inside.startswith(literal) or literal.startswith(inside):
                    return True
        return False

    def excludes(self, path: str) -> bool:
        """Whether the context's file or folder ``path`` (relative, with ``/``) is left out."""
        path = go_clean(path)
        parents = posixpath.dirname(path).split("/") if "/" in path else []
        excluded = False
        for pattern in self.patterns:
            if pattern.exception != excluded:
                continue  # only an exception can undo an exclusion, and the other way round
            match = pattern.matches(path) or any(
                pattern.matches("/".join(parents[:i + 1])) for i in range(len(parents)))
            if match:
                excluded = not pattern.exception
        return excluded


def context_files(context: Path) -> Iterator[str]:
    """Every file ``docker build`` sends of the folder ``context``, relative, with ``/``."""
    ignore = DockerIgnore.of(context)
    for folder, folders, files in os.walk(context):
        base = Path(folder).relative_to(context).as_posix()
        base = "" if base == "." else base + "/"
        # An excluded folder is not entered unless an exception may match inside it.
        folders[:] = sorted(name for name in folders
                            if not ignore.excludes(base + name)
                            or ignore.may_undo_inside(base + name))
        for name in sorted(files):
            path = Path(folder) / name
            if not path.is_symlink() and not ignore.excludes(base + name):
                yield base + name
