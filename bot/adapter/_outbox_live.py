"""The outbox's live table in the channel: one message per stage (edited as the stage goes on,
closed with its last board when the next stage opens, edited back on a take-back), the ping
of the players it waits for, and the board legend's names.

A live message that Discord no longer lets the bot edit (30046: older than an hour, edited
too often) is followed by a fresh one for the same stage, and loses its components once
Discord allows (:meth:`bot.adapter._outbox_base.OutboxBase._strip_capped`).
"""

from __future__ import annotations

from dataclasses import replace

import discord

from bot import table
from bot.adapter._outbox_base import OutboxBase, digest_of, noted, picture_changed, sent_row
from bot.adapter.items import embed_of, or_missing, table_view
from bot.host.sessions import Session
from bot.host.store import MessageRow
from bot.table import Desired, Post
from bot.table.words import ai_name
from render.i18n import t


class LiveTable(OutboxBase):
    """The live message, the ping and the legend, for :class:`bot.adapter.outbox.Outbox`."""

    async def _live(self, session: Session, want: Desired, home: discord.abc.Messageable,
                    row: MessageRow | None, names: dict[str, str],
                    renderer: table.Renderer | None) -> None:
        assert want.live is not None
        lang = session.row.language
        shown = shown_stage(row)
        if row is not None and shown != want.stage and not _went_back(shown, want.stage):
            start = table.parse_stage(want.stage)
            final = table.closing(session, shown, names, renderer,
                                  start[1] if start else session.seq + 1)
            if final is None:
                await self._strip(row)
            elif not await self._edit(row, final, None, picture_changed(row, final), lang) \
                    and self.capped(row.message_id):  # 30046: it keeps its last board
                self._owe_strip(row)
            await self.bot.games.store.drop_message(session.id, "live")
            row = None
        view = table_view(session.id, want.live.seq, want.live.components)
        if row is not None:
            if row.digest == digest_of(want.live):
                return
            if await self._edit(row, want.live, view, picture_changed(row, want.live), lang):
                await self.bot.games.store.set_message(session.id, _stage_row(MessageRow(
                    "live", row.channel_id, row.message_id, digest_of(want.live)), want.stage))
                return
            if self.capped(row.message_id):  # 30046: a fresh live message, this one stripped
                await self._strip(row)
        live = want.live
        message = await self._sized(live, lang, lambda files, note: (
            self._call(home.send(
                content=noted(live.content, note), embed=or_missing(embed_of(live)),
                files=files, view=view or discord.utils.MISSING,
                allowed_mentions=discord.AllowedMentions.none()))))
        await self._keep(session, _stage_row(sent_row("live", message, live), want.stage))

    async def _ping(self, session: Session, want: Post | None, home: discord.abc.Messageable,
                    row: MessageRow | None) -> None:
        store = self.bot.games.store
        if want is None:
            if row is not None:
                await self._delete(row)
                await store.drop_message(session.id, "ping")
            return
        mentions = tuple(sorted(want.mentions))
        reminder = bool(session.row.reminded)
        if row is not None:
            if mentions and set(mentions) <= set(row.mentions) and row.reminder == reminder:
                # fewer to nudge: an edit, which notifies nobody
                if row.digest != digest_of(want) and await self._edit(row, want, None, False):
                    await store.set_message(session.id, replace(row, digest=digest_of(want)))
                return
            await self._delete(row)
        message = await self._call(home.send(
            want.content, allowed_mentions=discord.AllowedMentions(
                users=[discord.Object(u) for u in want.mentions], roles=False, everyone=False)))
        await self._keep(session, replace(sent_row("ping", message, want), mentions=mentions,
                                          reminder=reminder))

    def _names(self, session: Session) -> dict[str, str]:
        """Colour -> a plain name for the board legend (images cannot show mentions)."""
        lang = session.row.language
        guild = self.bot.get_guild(session.row.guild_id) if session.row.guild_id else None
        out = {}
        for seat in session.seats:
            if seat.is_ai:
                out[seat.colour] = t("bot.legend.ai", lang, level=ai_name(seat.ai_level, lang))
                continue
            assert seat.user_id is not None
            member = guild.get_member(seat.user_id) if guild else None
            user = member or self.bot.get_user(seat.user_id)
            out[seat.colour] = (user.display_name if user else seat.name) \
                or t("bot.legend.player", lang)
        return out


def shown_stage(row: MessageRow | None) -> str:
    """The stage a live message shows, written as :mod:`bot.table` writes it
    (``<key>|<start>``; empty: not known)."""
    return f"{row.stage}|{row.stage_start}" if row is not None and row.stage_start else ""


def _stage_row(row: MessageRow, stage: str) -> MessageRow:
    """The live message's ``row`` showing ``stage`` (``<key>|<start>``, as :mod:`bot.table`
    writes it)."""
    known = table.parse_stage(stage)
    return replace(row, stage=known[0], stage_start=known[1]) if known else row


def _went_back(shown: str, wanted: str) -> bool:
    """Whether the table went back to an earlier stage (a take-back, ``/game undo``): the live
    message is then edited to it, not closed and followed by a new one."""
    old, new = table.parse_stage(shown), table.parse_stage(wanted)
    return old is not None and new is not None and new[1] <= old[1]


__all__ = ["LiveTable", "shown_stage"]
