"""Where the engines find their boards and cards."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


@cache
def load(name: str) -> Any:
    """A data file of ``data/``, parsed once."""
    return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))
