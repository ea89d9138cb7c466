"""The SQLite schema: numbered migrations, each the SQL that brings a database from the version
before it to its own (``PRAGMA user_version`` keeps where a database is). The PostgreSQL
schema (``_postgres_store_schema``) has the same steps in its own dialect.
"""

from __future__ import annotations

_SCHEMA_1 = """
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    channel_id  INTEGER NOT NULL,
    guild_id    INTEGER,
    game        TEXT    NOT NULL,
    options     TEXT    NOT NULL DEFAULT '',
    seed        INTEGER NOT NULL,
    header      TEXT,
    status      TEXT    NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'aborted')),
    creator_id  INTEGER NOT NULL,
    language    TEXT    NOT NULL,
    ai_level    TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);
CREATE UNIQUE INDEX one_active_game_per_channel
    ON games (channel_id) WHERE status IN ('lobby', 'running');
CREATE TABLE seats (
    game_id   INTEGER NOT NULL REFERENCES games (id),
    colour    TEXT    NOT NULL,
    user_id   INTEGER,
    ai_level  TEXT,
    name      TEXT    NOT NULL DEFAULT '',
    joined    INTEGER NOT NULL,
    PRIMARY KEY (game_id, colour),
    CHECK ((user_id IS NULL) <> (ai_level IS NULL))
);
CREATE TABLE actions (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    seq      INTEGER NOT NULL,
    line     TEXT    NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE snapshots (
    game_id  INTEGER PRIMARY KEY REFERENCES games (id),
    seq      INTEGER NOT NULL,
    state    TEXT    NOT NULL
);
"""

_TURN_TIMERS = """
ALTER TABLE games ADD COLUMN turn_seconds INTEGER;
ALTER TABLE games ADD COLUMN deadline_at TEXT;
ALTER TABLE games ADD COLUMN reminded INTEGER NOT NULL DEFAULT 0;
"""

_HIDDEN_SEATS = """
CREATE TABLE hidden_seats (
    game_id         INTEGER NOT NULL REFERENCES games (id),
    colour          TEXT    NOT NULL,
    dm_closed       INTEGER NOT NULL DEFAULT 0,
    prompt_turn     INTEGER,
    prompt_channel  INTEGER,
    prompt_message  INTEGER,
    screen_hash     TEXT,
    PRIMARY KEY (game_id, colour)
);
"""
"""Per human seat: closed DMs (the prompt and screen columns are no longer used since schema 4)."""

_TABLE = """
ALTER TABLE actions ADD COLUMN sealed TEXT;
ALTER TABLE actions ADD COLUMN events TEXT NOT NULL DEFAULT '[]';
ALTER TABLE actions ADD COLUMN by TEXT NOT NULL DEFAULT 'human';
ALTER TABLE games ADD COLUMN thread_id INTEGER;
ALTER TABLE games ADD COLUMN lobby_message_id INTEGER;
ALTER TABLE seats ADD COLUMN acted_at TEXT;
CREATE TABLE messages (
    game_id     INTEGER NOT NULL REFERENCES games (id),
    slot        TEXT    NOT NULL,
    channel_id  INTEGER NOT NULL,
    message_id  INTEGER NOT NULL,
    digest      TEXT    NOT NULL DEFAULT '',
    stage       TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (game_id, slot)
);
CREATE INDEX messages_by_id ON messages (message_id);
CREATE TABLE guild_settings (
    guild_id  INTEGER PRIMARY KEY,
    threads   INTEGER NOT NULL DEFAULT 1
);
"""
"""The calm table: each log row says whether it is sealed (private to a seat until the engine
reveals it), its events (for the stage's log lines) and who played it; a game remembers its
thread and lobby message; a seat when its human last acted; ``messages`` maps each of a game's
Discord messages (live table, ping, DM screens and prompts) to its ids and the digest of what
it last showed, so the outbox edits instead of re-posting and a second run changes nothing."""

_RATINGS = """
CREATE TABLE results (
    game_id      INTEGER NOT NULL REFERENCES games (id),
    colour       TEXT    NOT NULL,
    guild_id     INTEGER NOT NULL,
    game         TEXT    NOT NULL,
    player       TEXT    NOT NULL,
    place        INTEGER NOT NULL,
    score        INTEGER NOT NULL,
    won          INTEGER NOT NULL,
    finished_at  TEXT    NOT NULL,
    PRIMARY KEY (game_id, colour)
);
CREATE INDEX results_by_player ON results (guild_id, player, game);
CREATE TABLE ratings (
    guild_id    INTEGER NOT NULL,
    game        TEXT    NOT NULL,
    player      TEXT    NOT NULL,
    mu          REAL    NOT NULL,
    sigma       REAL    NOT NULL,
    plays       INTEGER NOT NULL,
    updated_at  TEXT    NOT NULL,
    PRIMARY KEY (guild_id, game, player)
);
"""
"""Records and ratings: one ``results`` row per seat of a finished game (who held it at the end:
a user id, or ``ai:<level>`` for an AI seat; its place, ties sharing one; its score; whether it
won), and per server, game and player a Weng-Lin rating (``mu``, ``sigma``). A game's results
are written once, with the ratings they change, in one transaction: the rows of a game are the
mark that it was rated."""

_PACE = """
ALTER TABLE games ADD COLUMN paused_by INTEGER;
ALTER TABLE games ADD COLUMN paused_left INTEGER;
ALTER TABLE seats ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE seats ADD COLUMN away INTEGER NOT NULL DEFAULT 0;
CREATE TABLE takebacks (
    game_id   INTEGER NOT NULL REFERENCES games (id),
    number    INTEGER NOT NULL,
    after_seq INTEGER NOT NULL,
    colour    TEXT    NOT NULL,
    steps     TEXT    NOT NULL,
    taken_at  TEXT    NOT NULL,
    PRIMARY KEY (game_id, number)
);
CREATE TABLE user_settings (
    user_id  INTEGER PRIMARY KEY,
    notify   INTEGER NOT NULL DEFAULT 0
);
"""
"""The pace of a game: who paused it (NULL: running) and the turn time left then; per seat its
timeouts in a row and whether it is away (the AI plays for it); every take-back (``/game
undo``): the log rows it removed, as they were, and the log length after it, so the log stays
append-only in meaning; per user whether they want a DM when it is their turn."""

_SEAT_CHANGES = """
ALTER TABLE seats ADD COLUMN was_human INTEGER NOT NULL DEFAULT 0;
CREATE TABLE seat_changes (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    n        INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    colour   TEXT    NOT NULL,
    what     TEXT    NOT NULL,
    user_id  INTEGER,
    old_id   INTEGER,
    by_id    INTEGER,
    at       TEXT    NOT NULL,
    PRIMARY KEY (game_id, n)
);
"""
"""Seats change hands: a seat remembers that a human held it (an AI seat that a player left
or was removed from may be taken over), and ``seat_changes`` keeps who left, was removed or
took over which seat, when (``seq``: the actions applied by then), for the table to say so."""

_SECRET_SEED = """
ALTER TABLE games ADD COLUMN secret_seed TEXT;
UPDATE games SET secret_seed = CAST(seed AS TEXT);
"""
"""Fair dice: a game's secret seed has 128 bits, more than SQLite's 64-bit INTEGER holds, so it
is kept as decimal TEXT in ``secret_seed``; the old ``seed`` column stays 0 for new games."""

_LANGUAGES = """
ALTER TABLE user_settings ADD COLUMN locale TEXT;
UPDATE games SET language = 'zh-CN' WHERE language = 'zh';
"""
"""One language per person: each user's language, from the Discord locale of their latest
interaction (NULL: not known yet), for every private message to them; and Simplified Chinese
is stored under Discord's code ``zh-CN`` (it was ``zh``)."""

_INSTANCES = """
CREATE TABLE heartbeat (
    instance    TEXT    PRIMARY KEY,
    pid         INTEGER NOT NULL,
    host        TEXT    NOT NULL,
    started_at  TEXT    NOT NULL,
    beat_at     TEXT    NOT NULL
);
CREATE TABLE synced_guilds (
    guild_id   INTEGER PRIMARY KEY,
    synced_at  TEXT    NOT NULL
);
"""
"""Running it: one ``heartbeat`` row per running bot (its process, host and start, and when it
last beat; ``python -m bot health`` reads it, a clean stop deletes it), and the servers the
slash commands were copied to (``GUILD_ID``), so a later sync can clear the copies of a server
that is no longer ``GUILD_ID``."""

_DEPARTURES = """
CREATE TABLE guild_departures (
    guild_id  INTEGER PRIMARY KEY,
    left_at   TEXT    NOT NULL
);
"""
"""Servers the bot was removed from, and when: their games are deleted once the retention
(``PURGE_AFTER_DAYS``) has passed, unless the bot is invited back before."""

_SHARDS = """
ALTER TABLE heartbeat ADD COLUMN shard_count INTEGER;
ALTER TABLE heartbeat ADD COLUMN shard_ids TEXT NOT NULL DEFAULT '';
"""
"""Sharded processes: each heartbeat says which gateway shards its process runs (the count of
the whole bot, NULL when it is not sharded; the numbers it runs, comma-separated), so
``health`` and ``check`` can tell the processes of one bot apart."""

_APPLICATION = """
CREATE TABLE discord_application (
    one             INTEGER PRIMARY KEY CHECK (one = 1),
    application_id  INTEGER NOT NULL,
    recorded_at     TEXT    NOT NULL
);
CREATE TABLE guild_absences (
    guild_id  INTEGER PRIMARY KEY,
    starts    INTEGER NOT NULL,
    first_at  TEXT    NOT NULL,
    last_at   TEXT    NOT NULL
);
"""
"""Whose games these are: the one Discord application the database belongs to, recorded at
the first login (a bot that logs in as another application is refused before it acts on any
server), and the servers with games that were missing from Discord's list of the bot's
servers at a start: on how many starts, the first and the latest (a server is judged removed
only after several starts over days, never on one)."""

_MESSAGE_FIELDS = """
ALTER TABLE messages ADD COLUMN stage_start INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN holder INTEGER;
ALTER TABLE messages ADD COLUMN turn INTEGER;
ALTER TABLE messages ADD COLUMN mentions TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN reminder INTEGER NOT NULL DEFAULT 0;
UPDATE messages
    SET stage_start = CAST(substr(stage, length(rtrim(stage, '0123456789')) + 1) AS INTEGER),
        stage = substr(stage, 1, length(rtrim(stage, '0123456789')) - 1)
    WHERE slot = 'live' AND rtrim(stage, '0123456789') LIKE '%|'
        AND rtrim(stage, '0123456789') <> stage;
UPDATE messages
    SET mentions = substr(stage, 1, instr(stage, '|') - 1),
        reminder = substr(stage, instr(stage, '|') + 1) = 'remind'
    WHERE slot = 'ping' AND instr(stage, '|') > 0
        AND substr(stage, 1, instr(stage, '|') - 1) NOT GLOB '*[^0-9,]*';
UPDATE messages SET holder = CAST(stage AS INTEGER)
    WHERE slot LIKE 'screen:%' AND stage <> '' AND stage NOT GLOB '*[^0-9]*';
UPDATE messages
    SET turn = CASE WHEN instr(stage, '@') > 0 THEN substr(stage, 1, instr(stage, '@') - 1)
                    ELSE stage END,
        holder = CASE WHEN instr(stage, '@') > 0 THEN substr(stage, instr(stage, '@') + 1) END
    WHERE slot LIKE 'prompt:%';
UPDATE messages SET turn = CASE WHEN turn <> '' AND turn NOT GLOB '*[^0-9]*'
                                THEN CAST(turn AS INTEGER) END,
                    holder = CASE WHEN holder <> '' AND holder NOT GLOB '*[^0-9]*'
                                  THEN CAST(holder AS INTEGER) END
    WHERE slot LIKE 'prompt:%';
UPDATE messages SET turn = CAST(stage AS INTEGER)
    WHERE slot LIKE 'turn:%' AND stage <> '' AND stage NOT GLOB '*[^0-9]*';
UPDATE messages SET stage = ''
    WHERE slot <> 'live' OR stage_start = 0;
"""
"""Each message remembers what the outbox decides from in a column of its own, where one text
column (``stage``) held a different encoding per kind: the live message keeps its stage's key
in ``stage`` and its first action in ``stage_start`` (it was ``<key>|<start>``); the ping the
users it mentioned and whether it was the reminder (``<ids>|remind``); a DM screen or prompt
the user it was sent to (``holder``); a prompt or "your turn" DM the seat's action count it was
made for (``turn``; a prompt's was ``<turn>@<holder>``). The rows stored the old way are
converted; what cannot be read stays unknown (NULL, 0), as the outbox read it before."""

_KICK_HOLDS = """
CREATE TABLE kick_holds (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    user_id  INTEGER NOT NULL,
    by_id    INTEGER NOT NULL,
    at       TEXT    NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
"""
"""Kicks hold: a player removed from a game (``/game kick``) may not take a seat in it again,
by any path, until its creator or a server manager gives one back (``/game allow`` lifts the
hold; giving them a seat with ``/game take user:`` does too). One row per held player: who
removed them and when."""

MIGRATIONS: dict[int, str] = {1: _SCHEMA_1, 2: _TURN_TIMERS, 3: _HIDDEN_SEATS, 4: _TABLE,
                              5: _SECRET_SEED, 6: _SEAT_CHANGES, 7: _PACE, 8: _RATINGS,
                              9: _LANGUAGES, 10: _INSTANCES, 11: _DEPARTURES,
                              12: _SHARDS, 13: _APPLICATION, 14: _MESSAGE_FIELDS,
                              15: _KICK_HOLDS}
"""``version -> SQL`` that brings a database from ``version - 1`` to ``version``."""
