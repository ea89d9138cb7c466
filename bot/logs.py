"""How the bot's log is written: plain lines or one JSON object a line (``LOG_FORMAT``), the
Discord library's own level (``DISCORD_LOG_LEVEL``), and one calm line per reconnect.

discord.py logs every failed reconnect during an outage as an ERROR with a 60-line traceback
(``Attempting a reconnect in …``): an outage of a few minutes buries everything else. What an
admin needs is that the bot lost Discord and tries again, and why in a word; so
:class:`CalmReconnects` turns each of those records into one WARNING line, with the error's
type and text at its end and no traceback.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
RECONNECT = "Attempting a reconnect"
"""How discord.py's reconnect records begin (``discord.client`` and ``discord.shard``)."""
RECONNECT_LOGGERS = ("discord.client", "discord.shard", "discord.gateway")


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time`` (UTC, ISO 8601 with milliseconds), ``level``,
    ``logger``, ``message``, and ``exception`` (the traceback's text) when there is one; a
    message on several lines stays one line (JSON escapes its line breaks)."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False)


class CalmReconnects(logging.Filter):
    """A reconnect record of discord.py becomes one WARNING line without a traceback: the
    exception's type and text go to the end of the message. Every other record passes as it
    is."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not (isinstance(record.msg, str) and record.msg.startswith(RECONNECT)):
            return True
        if not logging.getLogger(record.name).isEnabledFor(logging.WARNING):
            return False  # DISCORD_LOG_LEVEL=ERROR: a warning is not wanted
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            why = f"{type(error).__name__}: {error}".rstrip(": ")
            record.msg = f"{record.getMessage()} (Discord unreachable: {why})"
            record.args = None
        record.exc_info = None
        record.exc_text = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def configure(level: str, fmt: str = "text", discord_level: str | None = None) -> None:
    """Write the log to standard error at ``level``, as text or JSON (``fmt``); the
    ``discord`` loggers at ``discord_level`` (None: as ``level``); reconnects calmed."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    logging.getLogger("discord").setLevel(discord_level or level)
    calm()


def calm() -> None:
    """Put :class:`CalmReconnects` on the loggers that log reconnects (once)."""
    for name in RECONNECT_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, CalmReconnects) for f in logger.filters):
            logger.addFilter(CalmReconnects())
