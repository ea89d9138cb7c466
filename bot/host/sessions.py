"""The session host: the games of every channel, their locks, and the only path to change them.

Every change goes load -> lock -> check -> apply (pure) -> COMMIT -> update memory -> announce,
and only then does the caller answer; what Discord shows follows from the stored game (the
outbox, told by the host's announcement: :meth:`Host.listen`). The host plays chance and AI
seats itself until a human must act; when one of those steps fails (a locked database, a full
disk), the human's committed move stands and the game is left *stalled* for the next
:meth:`Host.resume` (the outbox's tick) to finish. It is generic over the engine contract
(``rules.core.GameModule``): it never looks inside a game's state, only at ``pending``,
``legal``, ``apply``, ``view`` and ``result``, so games with simultaneous sealed decisions plug
in unchanged. It knows nothing of Discord: refusals are :class:`Refusal` (a message key and
parameters) or the engine's ``IllegalAction``.

This module is the host's one public face; each concern lives in a private module of its own,
python-discord's ``bot/exts/moderation/infraction/`` as the model:

- :mod:`bot.host._session`: the session types (a game in memory, seats, steps, take-backs,
  reports, refusals); :mod:`bot.host._memo`: the table's memo of a game's positions
- :mod:`bot.host._base`: the shared state and the one seam after commit (``listen``)
- :mod:`bot.host._cache`: the game cache and lock, and catching up with other processes
- :mod:`bot.host._moves`: moves, the only writer of actions (acted-at, timeouts, away)
- :mod:`bot.host._lobby`, :mod:`bot.host._seats`, :mod:`bot.host._timers`,
  :mod:`bot.host._privacy`, :mod:`bot.host._results`: the lobby, seats changing hands, turn
  timers and pace, forgetting a user, results and ratings
"""

from __future__ import annotations

from bot.host._lobby import Lobby, option_refusal, parse_options
from bot.host._memo import KEEP_WORKED_OUT, Memo
from bot.host._moves import AWAY_AFTER, Moves, ai_rng, ai_seed, repeated, undo_point
from bot.host._privacy import Privacy
from bot.host._results import Results
from bot.host._seats import Seats
from bot.host._session import (
    KEEP_STATES,
    Forgot,
    Refusal,
    Report,
    Session,
    Step,
    Takeback,
)
from bot.host._timers import REMIND_AFTER, Timers
from bot.host.store import Seat
from rules.core import IllegalAction


class Host(Lobby, Seats, Moves, Timers, Privacy, Results):
    """All sessions of one bot. Create with ``Host(store, ...)``, then ``await load()``; every
    change it commits is announced to its listeners (:meth:`listen`)."""


__all__ = ["AWAY_AFTER", "KEEP_STATES", "KEEP_WORKED_OUT", "REMIND_AFTER", "Forgot", "Host",
           "IllegalAction", "Memo", "Refusal", "Report", "Seat", "Session", "Step", "Takeback",
           "ai_rng", "ai_seed", "option_refusal", "parse_options", "repeated", "undo_point"]
