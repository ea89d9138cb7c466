"""Results and ratings: a finished game's places and scores recorded once, its players' ratings
updated (the arithmetic is :mod:`bot.host.ratings`).
"""

from __future__ import annotations

import logging

from bot.host import ratings
from bot.host._cache import GameCache
from bot.host._session import (
    Session,
)

log = logging.getLogger("bot.host.sessions")  # one name for the host's lines, as documented


class Results(GameCache):
    """Results and ratings of finished games."""

    async def _rate_missed(self) -> None:
        """Results and ratings of games that finished while the bot could not record them
        (and, once after the upgrade to schema 8, of the games finished before it)."""
        for row in await self.store.unrated_finished():
            try:
                await self.rate(await self._load(row))
            except Exception:
                log.exception("game %s: its result could not be recorded", row.id)

    async def rate(self, session: Session) -> bool:
        """Record a finished game's places and scores and update its players' ratings, once:
        False when it had been recorded already (or is not finished)."""
        result = session.result()
        if session.status != "finished" or result is None:
            return False
        seats = [(s.colour, ratings.player_key(s.user_id, s.ai_level)) for s in session.seats]
        rows = ratings.result_rows(seats, result)
        return await self.store.record_results(
            session.id, session.row.guild_id or 0, session.row.game, rows,
            lambda before: ratings.rate(rows, before))

    async def _rate_safely(self, session: Session) -> None:
        """:meth:`rate` after the final commit: a failure leaves the game unrated until the
        next start (:meth:`load`), never undoes its end."""
        try:
            await self.rate(session)
        except Exception:
            log.exception("game %s: its result could not be recorded; it will be at the next"
                          " start", session.id)
