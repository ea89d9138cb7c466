"""The outbox's private part: each human seat's DMs, its screen (edited as it changes), the
prompt of its secret decision (retired, saying how it was decided, once it is made), its
"your turn" DM, and, when a seat changes hands, its previous holder's DMs saying so. A DM
that Discord refuses marks the seat's DMs closed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

import discord

from bot.adapter._outbox_base import OutboxBase, digest_of, noted, picture_changed, sent_row
from bot.adapter.items import prompt_view
from bot.host.sessions import Session
from bot.host.store import MessageRow
from bot.table import Desired, Post, Private
from bot.table.private import private_language
from bot.table.words import move_text, refusal_text
from render.i18n import t


class Dms(OutboxBase):
    """Every seat's DMs, for :class:`bot.adapter.outbox.Outbox`."""

    async def _private_part(self, session: Session, want: Desired,
                            stored: dict[str, MessageRow]) -> None:
        """Every seat's DMs: screens, prompts and "your turn" DMs."""
        wanted = {p.colour: p.user_id for p in want.privates}
        for slot, row in list(stored.items()):  # seats that changed hands: the previous
            kind, _, colour = slot.partition(":")  # holder's DMs go first
            if kind in ("screen", "prompt") and (colour not in wanted or row.holder not in (
                    None, wanted[colour])):
                await self._hand_over(session, slot, row)
                del stored[slot]
        for private in want.privates:
            await self._private(session, private, stored)
            await self._turn(session, private, stored)

    async def _private(self, session: Session, private: Private,
                       stored: dict[str, MessageRow]) -> None:
        if private.colour in session.dm_closed:
            return
        store = self.bot.games.store
        screen = private.screen
        slot = f"screen:{private.colour}"
        row = stored.get(slot)
        holder = private.user_id
        if screen is not None and row is not None and row.digest == digest_of(screen) \
                and row.holder != holder:  # stored before screens named their holder
            row = MessageRow(slot, row.channel_id, row.message_id, row.digest, holder=holder)
            await store.set_message(session.id, row)
        if screen is not None and (row is None or row.digest != digest_of(screen)):
            lang = private_language(session, holder, self.bot.languages)
            edited = row is not None and await self._edit_dm(row, screen, None,
                                                              picture_changed(row, screen), lang)
            if edited:
                assert row is not None
                await store.set_message(session.id, MessageRow(
                    slot, row.channel_id, row.message_id, digest_of(screen), holder=holder))
            else:  # none yet, gone, or its edits capped (30046): a fresh one
                if row is not None:
                    self._capped.pop(row.message_id, None)
                message = await self._dm(session, private, lambda user: self._sized(
                    screen, lang, lambda sent, note: user.send(noted(screen.content, note),
                                                               files=sent)))
                if message is None:
                    return
                await self._keep(session, replace(sent_row(slot, message, screen), holder=holder))
        owed = private.prompt
        slot = f"prompt:{private.colour}"
        row = stored.get(slot)
        if owed is None:
            if row is not None:
                await self._retire(session, private.colour, row)
            return
        if row is not None and row.turn == owed.turn:
            return
        if row is not None:
            await self._retire(session, private.colour, row)
        post = Post(content=owed.text, seq=owed.turn)
        view = prompt_view(session.id, owed)
        message = await self._dm(session, private, lambda user: user.send(
            owed.text, view=view or discord.utils.MISSING))
        if message is not None:
            await self._keep(session, replace(sent_row(slot, message, post), turn=owed.turn,
                                              holder=holder))

    async def _turn(self, session: Session, private: Private,
                    stored: dict[str, MessageRow]) -> None:
        """The "your turn" DM: one new DM per decision that becomes the player's; an older
        one stays as it was (it has no components)."""
        if private.turn is None or private.colour in session.dm_closed:
            return
        slot = f"turn:{private.colour}"
        row = stored.get(slot)
        if row is not None and row.turn == _decision(private):
            return
        turn = private.turn
        message = await self._dm(session, private, lambda user: user.send(turn.content))
        if message is not None:
            await self._keep(session, replace(sent_row(slot, message, turn),
                                              turn=_decision(private)))

    async def _dm(self, session: Session, private: Private, send: Callable[
            [discord.User], Awaitable[discord.Message]]) -> discord.Message | None:
        """A new DM; None (and the seat's DMs marked closed) when Discord refuses it."""
        try:
            user = self.bot.get_user(private.user_id)
            if user is None:
                user = await self._call(self.bot.fetch_user(private.user_id))
            return await self._call(send(user))
        except discord.Forbidden:
            await self.bot.games.set_dm_closed(session.id, private.colour, True)
            return None

    async def _edit_dm(self, row: MessageRow, post: Post, view: discord.ui.View | None,
                       new_picture: bool, lang: str) -> bool:
        try:
            return await self._edit(row, post, view, new_picture, lang)
        except discord.Forbidden:
            return False

    async def _retire(self, session: Session, colour: str, row: MessageRow) -> None:
        """A prompt whose decision is made (or gone) loses its components and says so, in
        the language of the user it was sent to."""
        seat = session.seat(colour)
        holder = row.holder or (seat.user_id if seat is not None else None)
        lang = private_language(session, holder, self.bot.languages)
        own = [s for s in session.log if s.actor == colour]
        turn = row.turn if row.turn is not None else -1
        if session.status == "aborted":
            text = t("bot.hidden.aborted", lang)
        elif 0 <= turn < len(own):
            line = own[turn].line.split(" ", 1)[1] if " " in own[turn].line else own[turn].line
            key = "bot.hidden.played_by_ai" if own[turn].by == "timeout" else \
                "bot.hidden.submitted"
            text = t(key, lang, move=move_text(session, line, lang), id=session.id)
        else:
            text = t("bot.hidden.closed", lang)
        await self._last_edit(row, content=text, view=None)
        await self.bot.games.store.drop_message(session.id, f"prompt:{colour}")

    async def _hand_over(self, session: Session, slot: str, row: MessageRow) -> None:
        """A seat changed hands: its previous holder's DM screen or prompt says they no
        longer hold it, why, and loses its picture and components (the secret stays with
        the seat)."""
        colour = slot.partition(":")[2]
        holder = row.holder
        if holder is None:  # stored before messages named their holder: the latest one out
            holder = next((c.old_id for c in reversed(session.changes)
                           if c.colour == colour and c.old_id is not None), None)
        gone = session.gone(holder, colour) if holder is not None else None
        lang = private_language(session, holder, self.bot.languages)
        text = refusal_text(session, gone, lang) if gone is not None \
            else t("bot.hidden.closed", lang)
        await self._last_edit(row, content=text, embed=None, attachments=[], view=None)
        await self.bot.games.store.drop_message(session.id, slot)


def _decision(private: Private) -> int:
    """The seat's action count a "your turn" DM is for (its ``turn_key``)."""
    return int(private.turn_key)


__all__ = ["Dms"]
