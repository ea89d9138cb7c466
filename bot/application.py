"""Whose games these are: a games database belongs to the one Discord application that first
logged in on it. A bot started with another application's token sees none of the servers the
games are in; were it to go on, it would take every one of them for a server it was removed
from. So it is refused at login, before it acts on any server, and the games move to another
application only on purpose (``python -m bot adopt-application``).
"""

from __future__ import annotations

import logging

from bot.host.store import Store

log = logging.getLogger(__name__)


class WrongApplication(RuntimeError):
    """The token logs in as another application than the one the database belongs to."""

    def __init__(self, recorded: int, logged_in: int) -> None:
        super().__init__(f"the games database belongs to Discord application {recorded}, "
                         f"the token logs in as application {logged_in}")
        self.recorded = recorded
        self.logged_in = logged_in


async def belongs(store: Store, application_id: int) -> None:
    """Check that the database belongs to ``application_id``; a database without one (new, or
    of a bot older than schema 13) is recorded as this application's now. Raises
    :class:`WrongApplication` (having changed nothing) when it belongs to another."""
    recorded = await store.claim_application(application_id)
    if recorded is None:
        log.info("the games database now belongs to Discord application %s", application_id)
    elif recorded != application_id:
        raise WrongApplication(recorded, application_id)
