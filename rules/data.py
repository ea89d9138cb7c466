"""Where the engines find their boards and cards: the package ``rapanui_data``.

The project's ``data/`` folder is installed with the code as that package (see pyproject.toml),
so the same files are found in a source checkout, an editable install and a plain
``pip install .``; they are read through ``importlib.resources``, never by a source-tree path.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

DATA_PACKAGE = "rapanui_data"
try:
    DATA_DIR: Traversable = files(DATA_PACKAGE)
except ModuleNotFoundError as exc:  # an install made before data/ became a package
    raise ModuleNotFoundError(
        f"the package {DATA_PACKAGE} (the project's data/ folder) is not installed: "
        "install the project again (pip install . or pip install -e .)",
        name=DATA_PACKAGE) from exc
"""The installed data: the boards here, ``fonts/`` and ``i18n/<locale>/`` below."""
BOARDS = ("giants_board.json", "giganten_data.json", "makemake_board.json")
"""Every data file of :func:`load`: the boards and cards of the three games."""


@cache
def load(name: str) -> Any:
    """A data file of the package (one of ``BOARDS``), parsed once."""
    return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))
