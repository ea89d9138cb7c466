"""Bot configuration: read from the environment in production, built in code by tests.

:data:`VARIABLES` is the one table of environment variables: name, default, accepted values,
an example and what it means. :meth:`Settings.from_env` validates every variable against it
and reports every bad one at once; the admin handbook's configuration table (docs/ADMIN.md)
lists the same rows (a test keeps the two together).
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.constants import PING_AFTER, PURGE_AFTER_DAYS, RECONCILE_TICK
from bot.database_url import BadUrl, parse_postgres_url, redacted
from bot.host.clock import Clock, system_clock
from bot.host.store import DEFAULT_POOL_SIZE, POSTGRES_SCHEMES, is_postgres, sqlite_file
from render.i18n import LANGUAGES

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
YES = ("yes", "true", "on", "1")
NO = ("no", "false", "off", "0")
SYNCHRONOUS = ("FULL", "NORMAL")
"""The SQLite synchronous levels the bot accepts (docs/ADMIN.md, "Durability")."""
DISCORD_ID = re.compile(r"[0-9]{17,20}")
"""A Discord id (a snowflake) as Discord shows it: 17 to 20 digits."""
DEFAULT_DB = "data/games.sqlite3"
MAX_RENDER_WORKERS = 64
MAX_AI_WORKERS = 64
DEFAULT_AI_BUDGET_MS = 1000
MAX_AI_BUDGET_MS = 60_000
MAX_POOL_SIZE = 100
SQLITE_URL = "sqlite:///"
LOG_FORMATS = ("text", "json")
"""How log lines are written: one line of text, or one JSON object a line (for collectors)."""


def random_seed() -> int:
    """A fresh 128-bit secret seed for a new game's chance and AI moves (``rules.fair``)."""
    return secrets.randbits(128)


BAD_SETTING = "bad setting "
"""How every line about a variable that is not accepted begins (``check`` exits 2 on one)."""


class Invalid(ValueError):
    """One variable's value is not accepted: the message says what is wrong with it."""


@dataclass(frozen=True)
class Variable:
    """One environment variable: how it is documented and how its text becomes a value.
    ``parse`` gets the stripped, non-empty text and raises :class:`Invalid`; an unset or
    empty variable takes ``default`` (None: the setting is off or missing)."""

    name: str
    field: str
    """The :class:`Settings` field it sets."""
    default: str | None
    accepted: str
    example: str
    meaning: str
    parse: Callable[[str], Any]

    def complaint(self, problem: str) -> str:
        """The one line that says what is wrong and what would do."""
        return (f"{BAD_SETTING}{self.name}: {problem}; accepted: {self.accepted}, "
                f"e.g. {self.name}={self.example}")


def _token(text: str) -> str:
    return text


def _path(text: str) -> Path:
    path = Path(text)
    if text.endswith(("/", os.sep)) or path.is_dir():
        raise Invalid(f"{text!r} is a folder, not a file")
    folder = next((p for p in path.parents if p.exists()), None)
    if folder is not None and not folder.is_dir():
        raise Invalid(f"{str(folder)!r} in {text!r} is a file, not a folder")
    return path


def _database_url(text: str) -> str:
    if text.lower().startswith(POSTGRES_SCHEMES):
        try:
            parse_postgres_url(text)
        except BadUrl as exc:
            raise Invalid(f"{redacted(text)!r}: {exc}") from None
        return text
    if text.lower().startswith(SQLITE_URL):
        if not text[len(SQLITE_URL):]:
            raise Invalid(f"{text!r} names no file")
        _path(text[len(SQLITE_URL):])
        return text
    raise Invalid(f"{redacted(text)!r} is neither a sqlite:/// nor a postgresql:// URL")


def database_target(database_url: str | None, db_path: Path) -> Path | str:
    """What the store opens: ``DATABASE_URL`` when it is set (a PostgreSQL URL as it is, a
    ``sqlite:///`` URL as the file it names), else the ``GAMES_DB`` file."""
    if database_url is None:
        return db_path
    return sqlite_file(database_url) or database_url


def _pool_size(text: str) -> int:
    if not (text.isascii() and text.isdecimal()) or not 1 <= int(text) <= MAX_POOL_SIZE:
        raise Invalid(f"{text!r} is not a number of connections from 1 to {MAX_POOL_SIZE}")
    return int(text)


def _shard_count(text: str) -> int:
    if not (text.isascii() and text.isdecimal()) or int(text) < 1:
        raise Invalid(f"{text!r} is not a number of shards, 1 or more")
    return int(text)


def _shard_ids(text: str) -> tuple[int, ...]:
    """``0,1`` or ``0-3,8``: the shard numbers, each once, in order."""
    ids: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        first, dash, last = part.partition("-")
        numbers = [first.strip(), last.strip()] if dash else [first.strip()]
        if not all(n.isascii() and n.isdecimal() for n in numbers):
            raise Invalid(f"{part!r} in {text!r} is neither a shard number nor a range a-b")
        low, high = int(numbers[0]), int(numbers[-1])
        if low > high:
            raise Invalid(f"the range {part!r} in {text!r} runs backwards")
        for shard in range(low, high + 1):
            if shard in ids:
                raise Invalid(f"shard {shard} is named twice in {text!r}")
            ids.append(shard)
    return tuple(sorted(ids))


def _language(text: str) -> str:
    wanted = text.replace("_", "-").lower()
    if wanted == "zh":
        return "zh-CN"
    for lang in LANGUAGES:
        if lang.lower() == wanted:
            return lang
    raise Invalid(f"{text!r} is not a language the bot speaks")


def _log_level(text: str) -> str:
    if text.upper() not in LOG_LEVELS:
        raise Invalid(f"{text!r} is not a log level")
    return text.upper()


def _log_format(text: str) -> str:
    if text.lower() not in LOG_FORMATS:
        raise Invalid(f"{text!r} is not a log format")
    return text.lower()


def _port(text: str) -> int:
    if not (text.isascii() and text.isdecimal()) or not 1 <= int(text) <= 65535:
        raise Invalid(f"{text!r} is not a TCP port from 1 to 65535")
    return int(text)


def _host(text: str) -> str:
    if any(c.isspace() or c in "/[]" for c in text):
        raise Invalid(f"{text!r} is not an address to listen on")
    return text


def _guild(text: str) -> int:
    if not DISCORD_ID.fullmatch(text):
        raise Invalid(f"{text!r} is not a Discord server id")
    return int(text)


def _yes_no(text: str) -> bool:
    if text.lower() in YES:
        return True
    if text.lower() in NO:
        return False
    raise Invalid(f"{text!r} is neither yes nor no")


def _days(text: str) -> int:
    if not (text.isascii() and text.isdecimal()):
        raise Invalid(f"{text!r} is not a whole number of days")
    return int(text)


def _synchronous(text: str) -> str:
    if text.upper() not in SYNCHRONOUS:
        raise Invalid(f"{text!r} is not a synchronous level the bot offers")
    return text.upper()


def _workers(text: str) -> int | None:
    if text.lower() == "auto":
        return None
    if not (text.isascii() and text.isdecimal()) or int(text) > MAX_RENDER_WORKERS:
        raise Invalid(f"{text!r} is neither auto nor a number of processes from 0 to "
                      f"{MAX_RENDER_WORKERS}")
    return int(text)


def _ai_workers(text: str) -> int | None:
    if text.lower() == "auto":
        return None
    if not (text.isascii() and text.isdecimal()) or not 1 <= int(text) <= MAX_AI_WORKERS:
        raise Invalid(f"{text!r} is neither auto nor a number of processes from 1 to "
                      f"{MAX_AI_WORKERS}")
    return int(text)


def _ai_budget(text: str) -> int:
    if not (text.isascii() and text.isdecimal()) or not 1 <= int(text) <= MAX_AI_BUDGET_MS:
        raise Invalid(f"{text!r} is not a number of milliseconds from 1 to {MAX_AI_BUDGET_MS}")
    return int(text)


VARIABLES: tuple[Variable, ...] = (
    Variable("DISCORD_TOKEN", "token", None, "the token from the Developer Portal's Bot tab",
             "MTA5…", "the bot's token (required to run and to sync; `check` only needs it "
             "set; `backup` and `health` do without)", _token),
    Variable("GAMES_DB", "db_path", DEFAULT_DB, "a file path (not a folder)",
             "/var/lib/rapanui/games.sqlite3",
             "the SQLite file that holds every game (created with its folder if missing); "
             "DATABASE_URL, when set, wins over it", _path),
    Variable("DATABASE_URL", "database_url", None,
             "sqlite:///path or postgresql://user:password@host:port/database (postgres://… "
             "too; port 1 to 65535, an IPv6 host in brackets, a Unix socket as ?host=/folder)",
             "postgresql://rapanui:secret@db:5432/rapanui",
             "the database that holds every game: a PostgreSQL database, which several bot "
             "processes may share, or a SQLite file (`sqlite:///data/games.sqlite3` is "
             "relative, `sqlite:////var/lib/rapanui/games.sqlite3` absolute); unset: "
             "GAMES_DB", _database_url),
    Variable("DATABASE_POOL_SIZE", "pool_size", str(DEFAULT_POOL_SIZE),
             f"a number from 1 to {MAX_POOL_SIZE}", "20",
             "PostgreSQL only: the most connections a bot process opens for its statements "
             "(and as many again for the locks of the games it is changing)", _pool_size),
    Variable("SHARD_COUNT", "shard_count", None, "a number of shards, 1 or more", "2",
             "how many gateway shards the bot is split into, counting every process "
             "(Discord requires sharding past 2,500 servers: at most 2,500 a shard); unset: "
             "not sharded, one connection", _shard_count),
    Variable("SHARD_IDS", "shard_ids", None, "shard numbers below SHARD_COUNT, separated "
             "by commas, ranges too (0,1 or 0-3)", "0",
             "the shards this process runs (needs SHARD_COUNT; unset: all of them); "
             "processes that split the shards share one PostgreSQL DATABASE_URL, and only "
             "the one that runs shard 0 uploads the slash commands",
             _shard_ids),
    Variable("BOT_LANGUAGE", "language", "en", "en, es, ru, zh-CN or zh-TW (zh means zh-CN; "
             "any case)", "es",
             "language of new games where the server's preferred locale is not one the bot "
             "speaks (`/game new language:` overrides it per game; what only one user sees "
             "follows that user's Discord language)", _language),
    Variable("LOG_LEVEL", "log_level", "INFO", "DEBUG, INFO, WARNING or ERROR (any case)",
             "WARNING", "the least severe log lines written to standard error", _log_level),
    Variable("LOG_FORMAT", "log_format", "text", "text or json (any case)", "json",
             "how log lines are written: `text`, one readable line each; `json`, one JSON "
             "object a line (time, level, logger, message, and the exception's text when "
             "there is one), for a log collector", _log_format),
    Variable("DISCORD_LOG_LEVEL", "discord_log_level", None,
             "DEBUG, INFO, WARNING or ERROR (any case)", "WARNING",
             "the least severe log lines of the Discord library (the `discord` loggers) "
             "written; unset: as LOG_LEVEL", _log_level),
    Variable("HTTP_PORT", "http_port", None, "a TCP port from 1 to 65535", "8080",
             "serve `/healthz`, `/readyz` and `/metrics` (Prometheus) over HTTP on this port "
             "(see Health and metrics); unset: no HTTP server", _port),
    Variable("HTTP_HOST", "http_host", "0.0.0.0", "an IP address or host name to listen on",
             "127.0.0.1", "the address the HTTP server of HTTP_PORT listens on (`0.0.0.0`: "
             "every IPv4 address, as a container needs; `127.0.0.1`: this machine only)",
             _host),
    Variable("GUILD_ID", "guild_id", None, "a Discord server id (17 to 20 digits)",
             "123456789012345678",
             "sync the slash commands to this one server only (they appear at once); "
             "unset: globally", _guild),
    Variable("SYNC_COMMANDS", "sync_commands", "yes", "yes, no, true, false, on, off, 1 or 0",
             "no", "upload the slash commands at start-up, from the process that runs shard "
             "0 only (`no`: only `python -m bot sync` does)", _yes_no),
    Variable("SQLITE_SYNCHRONOUS", "sqlite_synchronous", "FULL", "FULL or NORMAL (any case)",
             "NORMAL", "how hard SQLite makes sure a commit is on disk (see Durability): "
             "FULL loses nothing committed; NORMAL may lose the last commits on a power "
             "loss", _synchronous),
    Variable("PURGE_AFTER_DAYS", "purge_after_days", str(PURGE_AFTER_DAYS),
             "a whole number of days, 0 or more", "90",
             "days after the bot is removed from a server until every game of that server is "
             "deleted (`0`: at once; inviting the bot back before then keeps them; see "
             "Privacy)", _days),
    Variable("RENDER_WORKERS", "render_workers", "auto", f"auto or a number from 0 to "
             f"{MAX_RENDER_WORKERS}", "2",
             "processes that draw the board pictures beside the bot (`auto`: one per core "
             "the bot may use; `0`: in the bot's own process, for a small server)", _workers),
    Variable("AI_BUDGET_MS", "ai_budget_ms", str(DEFAULT_AI_BUDGET_MS),
             f"a number of milliseconds from 1 to {MAX_AI_BUDGET_MS}", "500",
             "how long a `strong` AI seat thinks about one decision (its search stops then; "
             "`random` and `greedy` decide at once)", _ai_budget),
    Variable("AI_WORKERS", "ai_workers", "auto", f"auto or a number from 1 to {MAX_AI_WORKERS}",
             "1", "processes in which `strong` AI seats think, beside the bot (`auto`: one per "
             "core the bot may use); a decision waits only for other strong decisions, never "
             "for moves or pictures", _ai_workers),
)
"""Every environment variable the bot reads, in the order the admin handbook lists them."""


def _named(variable: str) -> Variable:
    return next(v for v in VARIABLES if v.name == variable)


def shard_problems(values: Mapping[str, Any]) -> list[str]:
    """What is wrong with SHARD_COUNT and SHARD_IDS together, and with the database they run
    on: ids need a count and must be below it; and a process that runs only some of the
    shards leaves the others to other processes, which can share a PostgreSQL database but
    never a SQLite file (its instance lock refuses a second bot)."""
    count, ids = values.get("shard_count"), values.get("shard_ids")
    if ids is None:
        return []
    complaint = _named("SHARD_IDS").complaint
    if count is None:
        return [complaint("it needs SHARD_COUNT, the number of shards of all the processes "
                          "together")]
    beyond = [shard for shard in ids if shard >= count]
    if beyond:
        return [complaint(f"shard {beyond[0]} is not below SHARD_COUNT={count} (the "
                          f"shards are numbered 0 to {count - 1})")]
    if len(ids) == count:
        return []
    target = database_target(values.get("database_url"), values.get("db_path") or
                             Path(DEFAULT_DB))
    if is_postgres(target):
        return []
    others = count - len(ids)
    return [complaint(
        f"this process runs {len(ids)} of the {count} shards and leaves {others} to other "
        "processes, which cannot share a SQLite database (one bot process per SQLite file); "
        "set DATABASE_URL to a PostgreSQL database that every process shares, or leave "
        "SHARD_IDS unset to run every shard in this one process")]


class BadSettings(ValueError):
    """Some variables are not accepted: ``problems`` holds one line per bad variable,
    ``values`` the :class:`Settings` fields of those that were (``python -m bot check`` goes
    on with them)."""

    def __init__(self, problems: list[str], values: dict[str, Any]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems
        self.values = values


@dataclass
class Settings:
    """Everything the bot needs to run; nothing here reaches the network by itself."""

    token: str | None = None
    db_path: Path = Path(DEFAULT_DB)
    database_url: str | None = None
    """``DATABASE_URL``: a ``sqlite:///`` or ``postgresql://`` URL that wins over ``db_path``
    (see :attr:`database`)."""
    pool_size: int = DEFAULT_POOL_SIZE
    """PostgreSQL: the most connections of each of the store's pools."""
    language: str = "en"
    log_level: str = "INFO"
    log_format: str = "text"
    """``text`` or ``json`` (one JSON object a line)."""
    discord_log_level: str | None = None
    """The ``discord`` loggers' level (None: as :attr:`log_level`)."""
    http_port: int | None = None
    """Serve health and metrics over HTTP on this port (None: no HTTP server)."""
    http_host: str = "0.0.0.0"
    clock: Clock = system_clock
    seed_source: Callable[[], int] = random_seed
    sync_commands: bool = True
    """Upload the slash commands to Discord at start-up (global, or to ``guild_id`` only)."""
    guild_id: int | None = None
    """Sync commands to this one server only: they appear at once, handy while developing."""
    sqlite_synchronous: str = "FULL"
    """SQLite's ``synchronous`` level: FULL (nothing committed is lost) or NORMAL."""
    timer_tick: float = 30.0
    """Seconds between two looks at the turn deadlines."""
    reconcile_tick: float = RECONCILE_TICK
    """Seconds between two reconciliations of every game with Discord (and resumptions of
    stalled games)."""
    ping_after: float = PING_AFTER
    """A human who must act is pinged once they have not acted in the game for this long."""
    purge_after_days: int = PURGE_AFTER_DAYS
    """Days after the bot is removed from a server until every game of that server is deleted
    (0: at once); inviting the bot back before then keeps them."""
    render_workers: int | None = None
    """Processes that draw pictures (None: one per core; 0: threads of the bot's process)."""
    ai_budget_ms: int = DEFAULT_AI_BUDGET_MS
    """How long a ``strong`` AI seat searches one decision, in milliseconds."""
    ai_workers: int | None = None
    """Processes in which ``strong`` AI seats search (None: one per core; 0, in code only: a
    thread of the bot's process, for tests)."""
    ai_iterations: int | None = None
    """In code only (tests, benchmarks): stop each strong search after this many iterations
    too, which makes its decisions repeatable for a seed."""
    shard_count: int | None = None
    """The gateway shards of the whole bot (None: not sharded, one connection as today)."""
    shard_ids: tuple[int, ...] | None = None
    """The shards this process runs, in order (None: all ``shard_count`` of them)."""
    extensions: tuple[str, ...] = field(
        default=("bot.exts.errors", "bot.exts.lobby", "bot.exts.play", "bot.exts.dms",
                 "bot.exts.timers", "bot.exts.watch", "bot.exts.info",
                 "bot.exts.pace", "bot.exts.seats", "bot.exts.records",
                 "bot.exts.privacy", "bot.exts.mine"))

    @property
    def database(self) -> Path | str:
        """What the store opens (:func:`database_target`): a SQLite file or a PostgreSQL
        URL."""
        return database_target(self.database_url, self.db_path)

    @property
    def sqlite_path(self) -> Path | None:
        """The SQLite file that holds the games (None: they are in PostgreSQL)."""
        target = self.database
        return target if isinstance(target, Path) else None

    @property
    def shards_here(self) -> tuple[int, ...]:
        """The shards this process runs (empty when the bot is not sharded)."""
        if self.shard_ids is not None:
            return self.shard_ids
        return tuple(range(self.shard_count or 0))

    @property
    def syncs_commands(self) -> bool:
        """Whether this process uploads the slash commands at start-up: when SYNC_COMMANDS
        says so and it runs shard 0 (every process that runs all the shards does). The
        others never do: one upload is all Discord needs, and two at once race."""
        return self.sync_commands and (self.shard_ids is None or 0 in self.shard_ids)

    def owns_guild(self, guild_id: int) -> bool:
        """Whether this process's shards carry the server's events (Discord's rule: shard
        ``(guild_id >> 22) % shard_count``); a process that runs every shard owns them all."""
        if self.shard_ids is None or self.shard_count is None:
            return True
        return (guild_id >> 22) % self.shard_count in self.shard_ids

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from the environment variables of :data:`VARIABLES`; raises
        :class:`BadSettings` naming every variable that is not accepted. An unset or empty
        variable takes its default."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        problems = []
        for variable in VARIABLES:
            text = env.get(variable.name, "").strip() or variable.default
            if text is None:
                values[variable.field] = None
                continue
            try:
                values[variable.field] = variable.parse(text)
            except Invalid as exc:
                problems.append(variable.complaint(str(exc)))
        if {"shard_count", "shard_ids", "database_url", "db_path"} <= values.keys():
            problems += shard_problems(values)  # each of them accepted by itself
        if problems:
            raise BadSettings(problems, values)
        return cls(**values)
