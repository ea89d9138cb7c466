"""Bot configuration: read from the environment in production, built in code by tests."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.constants import PING_AFTER, PURGE_AFTER_DAYS, RECONCILE_TICK
from bot.host.clock import Clock, system_clock
from render.i18n import DEFAULT, LANGUAGES
from render.i18n import language as i18n_language


def random_seed() -> int:
    """A fresh 128-bit secret seed for a new game's chance and AI moves (``rules.fair``)."""
    return secrets.randbits(128)


@dataclass
class Settings:
    """Everything the bot needs to run; nothing here reaches the network by itself."""

    token: str | None = None
    db_path: Path = Path("data/games.sqlite3")
    language: str = "en"
    log_level: str = "INFO"
    clock: Clock = system_clock
    seed_source: Callable[[], int] = random_seed
    sync_commands: bool = True
    """Upload the slash commands to Discord at start-up (global, or to ``guild_id`` only)."""
    guild_id: int | None = None
    """Sync commands to this one server only: they appear at once, handy while developing."""
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
    extensions: tuple[str, ...] = field(
        default=("bot.exts.errors", "bot.exts.lobby", "bot.exts.play", "bot.exts.dms",
                 "bot.exts.timers", "bot.exts.watch", "bot.exts.info",
                 "bot.exts.pace", "bot.exts.seats", "bot.exts.records",
                 "bot.exts.privacy"))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from environment variables (see the README for the list)."""
        env = os.environ if env is None else env
        given = env.get("BOT_LANGUAGE", "").strip()
        language = i18n_language(given) if given else ""
        if given and language == DEFAULT and not given.lower().startswith(DEFAULT):
            raise ValueError(
                f"BOT_LANGUAGE must be one of {', '.join(LANGUAGES)}, not {given!r}")
        if not language:
            # LANGUAGE is also the system's gettext list (``en_US:en``): read it leniently.
            first = env.get("LANGUAGE", "").split(":")[0].strip().replace("_", "-")
            language = i18n_language(first)
        guild = env.get("GUILD_ID", "").strip()
        return cls(
            token=env.get("DISCORD_TOKEN", "").strip() or None,
            db_path=Path(env.get("GAMES_DB", "").strip() or "data/games.sqlite3"),
            language=language,
            log_level=(env.get("LOG_LEVEL", "").strip() or "INFO").upper(),
            sync_commands=env.get("SYNC_COMMANDS", "yes").strip().lower()
            not in ("0", "no", "false"),
            guild_id=int(guild) if guild else None,
            purge_after_days=purge_days(env.get("PURGE_AFTER_DAYS", "")),
        )


def purge_days(given: str) -> int:
    """``PURGE_AFTER_DAYS``: a whole number of days, 0 or more (unset: :data:`PURGE_AFTER_DAYS`)."""
    text = given.strip()
    if not text:
        return PURGE_AFTER_DAYS
    if not text.isdecimal() or not text.isascii():
        raise ValueError(f"PURGE_AFTER_DAYS must be a whole number of days, 0 or more, "
                         f"not {given!r}")
    return int(text)
