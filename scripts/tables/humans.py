"""The report's scripted humans: what each sees of the table and its DMs, and how they act on
it (a button, a select, a form, ``/play``, a typed DM, or by touch alone: :mod:`.touch`)."""

from __future__ import annotations

import itertools
import random
from typing import Any

import discord

from bot.games import game_ui
from rules import ai
from scripts.tables import touch


def enabled(message: discord.Message) -> bool:
    return any(not getattr(c, "disabled", False) for row in message.components
               for c in getattr(row, "children", []))


def _mine(env: Any, messages: list[discord.Message]) -> list[discord.Message]:
    return [m for m in messages if m.author.id == env.bot.user.id and not m.flags.ephemeral]


class Table:
    """The game as the humans see it, and the report's counters."""

    def __init__(self, env: Any, channel: Any, humans: list[Any], closed: Any, seed: int,
                 touch_only: bool = False) -> None:
        self.env, self.channel, self.humans, self.closed = env, channel, humans, closed
        self.rng = random.Random(f"table:{seed}")
        self.touch_only = touch_only
        self.typed = 0
        self.taps: list[int] = []
        """Gestures per decision."""
        self.gestures = 0
        self.actions = 0
        self.live_max = 0
        self.typed_turns = itertools.count()

    # --- what a human sees ---------------------------------------------------------------------

    def places(self) -> list[Any]:
        return [self.channel, *self.channel.threads]

    def table_messages(self) -> list[discord.Message]:
        return [m for place in self.places() for m in _mine(self.env, place.history())]

    def dm_messages(self, member: Any) -> list[discord.Message]:
        return _mine(self.env, member.user.dm_channel.history())

    def live(self) -> discord.Message | None:
        live = [m for m in self.table_messages() if enabled(m) and m.embeds
                and "#" in (m.embeds[0].title or "") and not (m.embeds[0].fields and any(
                    f.name.startswith("Seats") for f in m.embeds[0].fields))]
        return live[-1] if live else None

    def watch(self) -> None:
        """The most messages with live components at this moment, per place."""
        counts = [sum(enabled(m) for m in self.table_messages())]
        counts += [sum(enabled(m) for m in self.dm_messages(h)) for h in self.humans]
        self.live_max = max(self.live_max, *counts)

    # --- acting --------------------------------------------------------------------------------

    async def act(self, member: Any, session: Any) -> bool:
        """One decision of ``member``; False if nothing they were shown let them act."""
        seat = session.seat_of(member.id)
        module = session.module
        want = str(ai.choose(module, session.game.state, seat.colour, "greedy",
                             random.Random(f"{self.rng.random()}")))
        ui = game_ui(session.row.game)
        before = self.gestures
        if ui.is_private(session.kind()):
            done = await self._private(member, session, seat, want)
        else:
            done = await self._public(member, session, seat, want)
        if done:
            self.actions += 1
            self.taps.append(self.gestures - before)
        return done

    async def _private(self, member: Any, session: Any, seat: Any, want: str) -> bool:
        if member is self.closed:
            live = self.live()
            if live is None:
                return False
            opened = await member.click(live, custom_id=_custom_id(live, ":open"))
            self.gestures += 1
            shown = (opened.followups or [opened.response])[-1]
            if shown is None:
                return False
            return await self._fill(member, session, seat, want, shown)
        prompts = [m for m in self.dm_messages(member) if enabled(m)]
        if not prompts:
            return False
        typing = not self.touch_only and next(self.typed_turns) % 3 == 0
        if not typing and await self._fill(member.user, session, seat, want, prompts[-1]):
            return True
        await member.send_dm(want)  # now and then the choice is typed in the DM
        self.gestures += 1
        self.typed += 1
        return True

    async def _fill(self, member: Any, session: Any, seat: Any, want: str, message: Any) -> bool:
        """Work a prompt's components into ``want``, then submit it (``member`` is the user
        for a DM, the guild member for an ephemeral prompt)."""
        ui = game_ui(session.row.game)
        form = ui.private_form(session.kind(), session.view(seat.colour), seat.colour,
                               session.row.language)
        words = want.split()
        if form is None and self.touch_only:
            return await self._touch(member, session, seat, want, message)
        if form is None:  # the legal actions themselves: button ``a<i>`` or option ``<i>``
            legal = [str(a) for a in session.legal(seat.colour)]
            number = str(legal.index(want)) if want in legal else None
            for row in _rows(message):
                for c in row:
                    if c.get("type") == 2 and c.get("custom_id", "").split(":")[4:5] \
                            == [f"a{number}"]:
                        await member.click(message, custom_id=c["custom_id"])
                        self.gestures += 1
                        return True
                    if c.get("type") == 3 and number in [o["value"] for o in c["options"]]:
                        await member.select(message, [number], custom_id=c["custom_id"])
                        self.gestures += 1
                        return True
            return False
        target = []
        for field in form.fields:
            tokens = [token for token, _ in field.choices]
            target.append(next((i for i, tok in enumerate(tokens) if tok and tok in words), 0))
        current = message
        for i, field in enumerate(form.fields):
            if len(field.choices) < 2:
                continue
            component = _find(current, f":f{i}:")
            if component is None:
                continue
            if component.get("type") == 3:
                chosen = next((o["value"] for o in component["options"] if o.get("default")), "0")
                if chosen != str(target[i]):
                    result = await member.select(current, [str(target[i])],
                                                 custom_id=component["custom_id"])
                    self.gestures += 1
                    current = _refreshed(result, current)
            else:
                on = "✓" in (component.get("label") or "")
                if on != bool(target[i]):
                    result = await member.click(current, custom_id=component["custom_id"])
                    self.gestures += 1
                    current = _refreshed(result, current)
        submit = _find(current, ":ok:")
        if submit is None:
            return False
        await member.click(current, custom_id=submit["custom_id"])
        self.gestures += 1
        return True

    async def _touch(self, member: Any, session: Any, seat: Any, want: str,
                     message: Any) -> bool:
        """Reach ``want`` by touch on ``message``: a component that plays it, an amount in a
        modal, or a choice by taps; False when nothing shown leads there."""
        legal = session.legal_lines(seat.colour)
        target = touch.play_target(message, want, legal)
        if target is not None:
            await self._tap(member, message, target)
            return True
        asks = touch.amount_button(message)
        if asks is not None and want.startswith("bid ") and want.split()[-1].isdecimal():
            shown = await member.click(message, custom_id=asks)
            await member.submit_modal(shown, {"amount": want.split()[-1]})
            self.gestures += 2
            return True
        steps = touch.plan(game_ui(session.row.game), session.kind(), legal, want,
                           session.row.language)
        if steps is None:
            return False
        current = message
        if not steps:  # one move left: its button, with no taps yet
            steps = [(-1, "")]
        for index, part in steps:
            target = touch.tap_target(current, index, part) if index >= 0 else next(
                ((c["custom_id"], None) for c in touch.components(current)
                 if str(c.get("custom_id", "")).startswith("k:")), None)
            if target is None:
                return False
            current = _refreshed(await self._tap(member, current, target), current)
        return True

    async def _tap(self, member: Any, message: Any, target: tuple[str, str | None]) -> Any:
        custom_id, value = target
        self.gestures += 1
        if value is None:
            return await member.click(message, custom_id=custom_id)
        return await member.select(message, [value], custom_id=custom_id)

    async def _public(self, member: Any, session: Any, seat: Any, want: str) -> bool:
        live = self.live()
        if self.touch_only and live is not None and await self._touch(member, session, seat,
                                                                      want, live):
            return True
        if live is not None:
            for row in _rows(live):
                for c in row:
                    cid = c.get("custom_id", "")
                    if c.get("type") == 2 and not c.get("disabled") and cid.split(":", 4)[3:5] \
                            == ["act", want]:
                        await member.click(live, custom_id=cid)
                        self.gestures += 1
                        return True
        choices = await member.autocomplete(self.home(), "play", "notation", want)
        self.gestures += 1
        self.typed += 1
        values = [c["value"] for c in choices]
        if want not in values:
            if not values:
                return False
            want = values[0]
        await member.slash(self.home(), "play", notation=want)
        self.gestures += 1
        return True

    def home(self) -> Any:
        threads = self.channel.threads
        return threads[-1] if threads else self.channel


def _rows(message: Any) -> list[list[dict[str, Any]]]:
    stored = message
    raw = getattr(stored, "components", [])
    out = []
    for row in raw:
        if isinstance(row, dict):
            out.append(row.get("components", []))
        else:
            out.append([c.to_dict() for c in row.children])
    return out


def _find(message: Any, part: str) -> dict[str, Any] | None:
    for row in _rows(message):
        for c in row:
            if part in c.get("custom_id", ""):
                return c
    return None


def _custom_id(message: Any, part: str) -> str:
    found = _find(message, part)
    assert found is not None
    return str(found["custom_id"])


def _refreshed(result: Any, old: Any) -> Any:
    """What a tap left to look at: its follow-up, else its response, else the same message."""
    shown = [*result.followups, result.response]
    return next((m for m in reversed(shown) if m is not None), old)


# --- the game ------------------------------------------------------------------------------
