"""A SQLite games database read from outside the bot: every row of every table, as committed.
What the privacy tests and the application tests look through for what is left of a user."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def rows(db_path: Path) -> dict[str, list[tuple]]:
    """Every row of every table, as committed (a second connection reads the WAL too)."""
    with sqlite3.connect(db_path) as db:
        tables = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        return {table: db.execute(f"SELECT * FROM {table}").fetchall() for table in tables}
