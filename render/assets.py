"""Whether the shipped data is whole: every board, font and catalogue present and readable.

A missing catalogue would not crash anything: its keys would fall back to English or show as
keys (``bot.lobby.button.join`` on a button). A missing font or board would crash only once a
game draws or starts. So the bot checks everything at start (``GameBot.setup_hook``) and
``python -m bot check`` prints the same list: :func:`problems` names each problem in one short
line and is empty when all is well.

It reads the data exactly where the loaders do (``rules.data.DATA_DIR``,
``render.i18n.I18N_DIR``, ``render.common.FONT_DIR``): the installed package ``rapanui_data``.
"""

from __future__ import annotations

import json
from importlib.resources import as_file
from importlib.resources.abc import Traversable

from PIL import ImageFont

from render import common, i18n
from rules import data


def _reason(exc: BaseException) -> str:
    """An exception in a few words: its message, else its type."""
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _json_problem(path: Traversable) -> str | None:
    """Why a JSON file cannot be used (missing, unreadable, not an object), or None."""
    if not path.is_file():
        return "missing"
    try:
        parsed = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return f"cannot read ({_reason(exc)})"
    except ValueError as exc:
        return f"cannot parse ({_reason(exc)})"
    if not isinstance(parsed, dict):
        return "cannot parse (not a JSON object)"
    return None


def board_problems() -> list[str]:
    """Each board or card file the engines load that is missing or unreadable."""
    found = []
    for name in data.BOARDS:
        problem = _json_problem(data.DATA_DIR / name)
        if problem:
            found.append(f"board {name}: {problem}")
    return found


def font_problems() -> list[str]:
    """Each font the images use that is missing or that Pillow cannot open."""
    found = []
    for name in common.FONTS:
        path = common.FONT_DIR / name
        if not path.is_file():
            found.append(f"font {name}: missing")
            continue
        try:
            with as_file(path) as file:
                # Not ImageFont.truetype: it would find a system font of the same name.
                ImageFont.FreeTypeFont(str(file), common.MIN_FONT, index=0)
        except Exception as exc:  # Pillow raises OSError, ValueError and others
            found.append(f"font {name}: cannot open ({_reason(exc)})")
    return found


def catalogue_problems() -> list[str]:
    """Each locale folder missing, each catalogue file a locale lacks that English has, and
    each catalogue file that does not parse."""
    if not (i18n.I18N_DIR / i18n.DEFAULT).is_dir():
        return [f"catalogue {i18n.DEFAULT}: folder missing"]
    english = sorted(path.name for path in i18n.catalogue_files(i18n.DEFAULT))
    if not english:
        return [f"catalogue {i18n.DEFAULT}: no catalogue files"]
    found = []
    for lang in i18n.LANGUAGES:
        if not (i18n.I18N_DIR / lang).is_dir():
            found.append(f"catalogue {lang}: folder missing")
            continue
        names = sorted({*english, *(path.name for path in i18n.catalogue_files(lang))})
        for name in names:
            problem = _json_problem(i18n.I18N_DIR / lang / name)
            if problem:
                found.append(f"catalogue {lang}: {name} {problem}")
    return found


def problems() -> list[str]:
    """Every problem of the shipped data, one short line each; empty when all is well.

    Opens every font with Pillow and parses every board and catalogue file.
    """
    return board_problems() + font_problems() + catalogue_problems()
