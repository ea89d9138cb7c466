"""The store: games, seats, the append-only action log, the latest snapshot, and the ids of
the Discord messages that show each game. Every SQL statement of the bot is in this package.

One interface (:class:`Store`), two backends: SQLite (:class:`SqliteStore`, one file, the
embedded default) and PostgreSQL (:class:`PostgresStore`, several bot processes over one
server); :func:`open_store` opens the one a path or URL names. Both have the same numbered
migrations (:data:`SCHEMA_VERSION`), return the same rows and raise the same errors, so the
host cannot tell them apart. Every applied action is written with its snapshot in one
transaction (:meth:`Store.append_action`), so a crash leaves an action either applied or not,
never half. The store knows nothing of Discord or of any game's rules: a message is a *slot*
name (``live``, ``ping``, ``screen:red``...) and two ids. Nor does it decide a rule: when a
seat's holder acted, their timeouts and away mark, whether a human held a seat, when a seat
changed hands, what a move reveals, when a deadline has come and how long its claim holds are
the host's to say, and the store writes the values it is given (it stamps only its own
bookkeeping: when a row was created or updated).

Each backend is one class built from private modules by concern over its connections
(``_sqlite_threads`` or ``_postgres_base``; then games, play, ratings, servers, privacy), as
``bot/host/`` is built.
"""

from bot.host.store._copy_store import (
    COPIED_TABLES,
    LEFT_OUT,
    Copied,
    SchemaDiffers,
    TargetNotEmpty,
    copy_to_postgres,
    prepare,
)
from bot.host.store._interface import Listener, Store, Transaction, run
from bot.host.store._open import POSTGRES_SCHEMES, is_postgres, open_store, sqlite_file
from bot.host.store._postgres_store import DEFAULT_POOL_SIZE, PostgresStore
from bot.host.store._postgres_store import inspect as inspect_postgres
from bot.host.store._postgres_store import read_heartbeats as read_postgres_heartbeats
from bot.host.store._postgres_store_schema import MIGRATIONS as POSTGRES_MIGRATIONS
from bot.host.store._rows import (
    ACTIVE,
    CLAIM_LEASE,
    EVERY_GAME,
    FORMER_ID,
    FORMER_PLAYER,
    GAME_TABLES,
    SCHEMA_VERSION,
    STATUSES,
    Absence,
    ActiveGame,
    BackupInfo,
    ChannelBusy,
    DatabaseInfo,
    Forgotten,
    GameMark,
    GameRow,
    Heartbeat,
    InstanceRunning,
    LogRow,
    MessageRow,
    PlayerStats,
    Purged,
    Rate,
    Rating,
    ResultRow,
    SchemaTooNew,
    Seat,
    SeatChangeRow,
    Snapshot,
    StaleGame,
    StoreClosed,
    TakebackRow,
    mark_of,
    shard_list,
)
from bot.host.store._sqlite_store import SqliteStore, backup_before_migrating, migrate
from bot.host.store._sqlite_store_schema import MIGRATIONS
from bot.host.store._sqlite_threads import CHECKPOINT_EVERY, Checkpointed
from bot.host.store._store_files import (
    InstanceLock,
    backup,
    inspect,
    lock_path,
    read_heartbeats,
)
from bot.host.store._unavailable import unavailable

__all__ = [
    "ACTIVE", "CHECKPOINT_EVERY", "CLAIM_LEASE", "COPIED_TABLES",
    "DEFAULT_POOL_SIZE", "EVERY_GAME", "FORMER_ID", "FORMER_PLAYER", "GAME_TABLES", "LEFT_OUT",
    "MIGRATIONS", "POSTGRES_MIGRATIONS", "POSTGRES_SCHEMES", "SCHEMA_VERSION", "STATUSES",
    "Absence", "ActiveGame", "BackupInfo", "ChannelBusy", "Checkpointed", "Copied", "DatabaseInfo",
    "Forgotten", "GameMark", "GameRow", "Heartbeat", "InstanceLock", "InstanceRunning",
    "Listener", "LogRow", "MessageRow", "PlayerStats", "PostgresStore", "Purged", "Rate",
    "Rating", "ResultRow", "SchemaDiffers", "SchemaTooNew", "Seat", "SeatChangeRow",
    "Snapshot", "SqliteStore", "StaleGame", "Store", "StoreClosed", "TakebackRow",
    "TargetNotEmpty", "Transaction", "backup", "backup_before_migrating", "copy_to_postgres",
    "inspect", "inspect_postgres", "is_postgres", "lock_path", "mark_of", "migrate",
    "open_store", "prepare", "read_heartbeats", "read_postgres_heartbeats", "run", "shard_list",
    "sqlite_file", "unavailable",
]
