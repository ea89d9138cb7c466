"""Secret choices through DMs: prompts with components, typed notation, a channel fallback.

When a game's UI marks the pending decision as private (``GameUI.private_kinds``), every human
who owes it gets a DM prompt built by that UI (a form of selects and toggles, or the legal
actions as buttons) and may also type the choice as notation in the DM. A player whose DMs are
closed (``Forbidden``) is remembered per seat; the channel says so and its "private" button
opens the same prompt as an ephemeral message. Every submission goes through
:meth:`bot.sessions.Host.play_game` (lock, apply, commit) before anything is answered.

Components carry the game id, the seat and the seat's own action count in their custom_id: they
work after a restart, and another seat's submission does not make them outdated.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot import announce, hidden
from bot.constants import MAX_BUTTONS, MAX_CONTENT, SMALL_CHOICE
from bot.exts import errors
from bot.games import Form, game_ui
from bot.sessions import Refusal, Report, Seat, Session
from render.i18n import language, t
from rules.core import IllegalAction

if TYPE_CHECKING:
    from bot.bot import GameBot

log = logging.getLogger(__name__)

_KEY = (r"(?P<game>[0-9]+):(?P<colour>[a-z]+):(?P<turn>[0-9]+):(?P<what>[a-z0-9]+)"
        r":(?P<state>[0-9.]*)")
BUTTON_ID = "hbtn:" + _KEY
SELECT_ID = "hsel:" + _KEY
OPEN_ID = r"hopen:(?P<game>[0-9]+)"
SCREEN_FILE = "screen.png"
MAX_LABEL = 80
MAX_OPTIONS = 25


class Key:
    """What a prompt component refers to: game, seat, decision (the seat's action count)."""

    def __init__(self, game: int, colour: str, turn: int, what: str, state: str = "") -> None:
        self.game, self.colour, self.turn, self.what, self.state = game, colour, turn, what, state

    @classmethod
    def of(cls, match: re.Match[str]) -> Key:
        return cls(int(match["game"]), match["colour"], int(match["turn"]), match["what"],
                   match["state"])

    def id(self, prefix: str, what: str | None = None, state: str | None = None) -> str:
        return (f"{prefix}:{self.game}:{self.colour}:{self.turn}:{what or self.what}:"
                f"{self.state if state is None else state}")


# --- components ----------------------------------------------------------------------------------

class HiddenButton(discord.ui.DynamicItem[discord.ui.Button], template=BUTTON_ID):
    """A toggle of a form (``f<i>``), its submit (``ok``) or one legal action (``a<i>``)."""

    def __init__(self, key: Key, label: str = "·",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary) -> None:
        super().__init__(discord.ui.Button(label=label[:MAX_LABEL], style=style,
                                           custom_id=key.id("hbtn")))
        self.key = key

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str], /) -> HiddenButton:
        return cls(Key.of(match))

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        try:
            await handle(interaction, self.key, None)
        except Exception as error:
            await errors.report(interaction, error)


class HiddenSelect(discord.ui.DynamicItem[discord.ui.Select], template=SELECT_ID):
    """A pick of a form field (``f<i>``) or of a legal action (``act``)."""

    def __init__(self, key: Key, options: list[discord.SelectOption] | None = None,
                 placeholder: str | None = None) -> None:
        super().__init__(discord.ui.Select(
            custom_id=key.id("hsel"), placeholder=placeholder,
            options=options or [discord.SelectOption(label="·", value="0")]))
        self.key = key

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Select,
                             match: re.Match[str], /) -> HiddenSelect:
        return cls(Key.of(match))

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        try:
            values = (interaction.data or {}).get("values") or [""]  # type: ignore[union-attr]
            await handle(interaction, self.key, str(values[0]))
        except Exception as error:
            await errors.report(interaction, error)


class OpenButton(discord.ui.DynamicItem[discord.ui.Button], template=OPEN_ID):
    """In the channel: your private screen and, if one is due, your secret-choice prompt, as
    an ephemeral message (for closed DMs, or a DM gone missing)."""

    def __init__(self, game_id: int, lang: str = "en") -> None:
        super().__init__(discord.ui.Button(label=t("bot.hidden.open", lang),
                                           style=discord.ButtonStyle.secondary,
                                           custom_id=f"hopen:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str], /) -> OpenButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        try:
            await open_private(interaction, self.game_id)
        except Exception as error:
            await errors.report(interaction, error)


def open_button(session: Session) -> OpenButton | None:
    """The channel's "private" button, for games that have secret choices or screens."""
    if session.status != "running" or not game_ui(session.row.game).private_kinds:
        return None
    return OpenButton(session.id, session.row.language)


# --- prompts -------------------------------------------------------------------------------------

def prompt(session: Session, seat: Seat, lang: str,
           picks: list[int] | None = None) -> tuple[str, discord.ui.View | None]:
    """The text and components of ``seat``'s secret choice, from its own view."""
    ui = game_ui(session.row.game)
    kind = session.kind()
    view = session.view(seat.colour)
    key = Key(session.id, seat.colour, session.turns(seat.colour), "")
    head = t("bot.hidden.prompt.head", lang, game=announce.game_name(session.row.game, lang),
             channel=f"<#{session.row.channel_id}>", id=session.id,
             colour=announce.colour_name(seat.colour, lang))
    lines = [head, ui.prompt_text(kind, view, seat.colour, lang)]
    legal = [str(a) for a in session.legal(seat.colour)]
    components = discord.ui.View(timeout=None)
    form = ui.private_form(kind, view, seat.colour, lang)
    if form is not None:
        picks = picks if picks is not None and form.valid(picks) else [0] * len(form.fields)
        lines.append(t("bot.hidden.prompt.so_far", lang, line=form.compose(picks)))
        _form_items(components, key, form, picks, lang)
    elif len(legal) <= SMALL_CHOICE:
        for i, action in enumerate(legal):
            components.add_item(HiddenButton(Key(key.game, key.colour, key.turn, f"a{i}"),
                                             action, discord.ButtonStyle.primary))
    elif len(legal) <= MAX_OPTIONS:
        options = [discord.SelectOption(label=a[:100], value=str(i)) for i, a in enumerate(legal)]
        components.add_item(HiddenSelect(Key(key.game, key.colour, key.turn, "act"), options,
                                         t("bot.hidden.prompt.pick", lang)))
    if legal:
        lines.append(t("bot.hidden.prompt.type", lang, example=legal[0], id=session.id))
    return "\n".join(lines)[:MAX_CONTENT], (components if components.children else None)


def _form_items(components: discord.ui.View, key: Key, form: Form, picks: list[int],
                lang: str) -> None:
    state = hidden.encode(picks)
    for i, field in enumerate(form.fields):
        if len(field.choices) < 2:
            continue
        part = Key(key.game, key.colour, key.turn, f"f{i}", state)
        if field.toggle:
            on = picks[i] != 0
            style = discord.ButtonStyle.success if on else discord.ButtonStyle.secondary
            label = ("✓ " if on else "") + field.label
            components.add_item(HiddenButton(part, label, style))
        else:
            options = [discord.SelectOption(label=f"{field.label}: {label}"[:100], value=str(j),
                                            default=j == picks[i])
                       for j, (_, label) in enumerate(field.choices[:MAX_OPTIONS])]
            components.add_item(HiddenSelect(part, options, field.label))
    if len(components.children) < MAX_BUTTONS:
        components.add_item(HiddenButton(Key(key.game, key.colour, key.turn, "ok", state),
                                         t("bot.hidden.submit", lang),
                                         discord.ButtonStyle.primary))


async def handle(interaction: discord.Interaction, key: Key, value: str | None) -> None:
    """One click or pick on a prompt, in a DM or in an ephemeral message."""
    bot: GameBot = interaction.client  # type: ignore[assignment]
    lang = language(str(interaction.locale))
    try:
        session = await bot.games.get(key.game)
    except Refusal as error:
        await errors.answer(interaction, announce.refusal_text(None, error, lang))
        return
    seat = session.seat(key.colour)
    if seat is None or seat.user_id != interaction.user.id:
        await errors.answer(interaction, t("bot.hidden.not_yours", lang))
        return
    if not hidden.owes(session, seat) or session.turns(seat.colour) != key.turn:
        await interaction.response.edit_message(content=t("bot.hidden.outdated", lang),
                                                view=None)
        return
    ui = game_ui(session.row.game)
    legal = [str(a) for a in session.legal(seat.colour)]
    form = ui.private_form(session.kind(), session.view(seat.colour), seat.colour, lang)
    text: str | None = None
    if key.what.startswith("a") and key.what[1:].isdecimal():
        text = _nth(legal, int(key.what[1:]))
    elif key.what == "act":
        text = _nth(legal, int(value)) if value and value.isdecimal() else None
    elif form is not None:
        picks = hidden.decode(key.state, form)
        if picks is None:
            picks = [0] * len(form.fields)
        if key.what == "ok":
            text = form.compose(picks)
        elif key.what.startswith("f") and key.what[1:].isdecimal() \
                and int(key.what[1:]) < len(picks):
            i = int(key.what[1:])
            choices = len(form.fields[i].choices)
            picks[i] = (picks[i] + 1) % choices if value is None else \
                int(value) if value.isdecimal() and int(value) < choices else picks[i]
            content, view = prompt(session, seat, lang, picks)
            await interaction.response.edit_message(content=content, view=view)
            return
    if text is None:
        await interaction.response.edit_message(content=t("bot.hidden.outdated", lang),
                                                view=None)
        return
    await interaction.response.defer()
    try:
        report = await bot.games.play_game(session.id, interaction.user.id, text,
                                           expect_turn=key.turn)
    except (Refusal, IllegalAction) as error:
        await errors.answer(interaction, announce.refusal_text(session, error, lang))
        return
    done = submitted(report, seat, lang)
    await interaction.edit_original_response(content=done, view=None)
    message_id = interaction.message.id if interaction.message else None
    await finish(bot, report, seat, done, message_id)


def _nth(items: list[str], i: int) -> str | None:
    return items[i] if 0 <= i < len(items) else None


def submitted(report: Report, seat: Seat, lang: str) -> str:
    """The answer to a secret choice: what was handed in, and what only this seat learns."""
    session = report.session
    mine = next((s.line for s in report.steps if s.actor == seat.colour), "")
    line = mine.split(" ", 1)[1] if " " in mine else mine
    lines = [t("bot.hidden.submitted", lang, line=line, id=session.id)]
    lines += announce.private_lines(session, report.steps, seat.colour, lang)
    return "\n".join(lines)[:MAX_CONTENT]


async def finish(bot: GameBot, report: Report, seat: Seat, done: str,
                 answered: int | None = None) -> None:
    """After a committed secret choice: retire its DM prompt, then tell the channel."""
    record = await hidden.load(bot.games.store, report.session.id, seat.colour)
    await retire(bot, record, done, skip=answered)
    await post_safely(bot, report)


async def retire(bot: GameBot, record: hidden.HiddenSeat, text: str,
                 skip: int | None = None) -> None:
    """Take the components off a DM prompt whose choice is made (``skip``: that message was
    answered already), and forget it."""
    if not record.prompt_message:
        return
    if record.prompt_message != skip and record.prompt_channel:
        try:
            channel = bot.get_channel(record.prompt_channel) \
                or await bot.fetch_channel(record.prompt_channel)
            message = channel.get_partial_message(record.prompt_message)  # type: ignore[union-attr]
            await message.edit(content=text, view=None)
        except discord.HTTPException as error:
            log.info("could not retire a prompt of game %s: %s", record.game_id, error)
    await hidden.save(bot.games.store, record.with_(prompt_message=None))


async def post_safely(bot: GameBot, report: Report) -> None:
    """The move is committed: a failed channel post only costs that message."""
    try:
        await announce.post_report(bot, report)
    except discord.HTTPException as error:
        log.warning("could not post game %s in channel %s: %s", report.session.id,
                    report.session.row.channel_id, error)


async def open_private(interaction: discord.Interaction, game_id: int) -> None:
    """The channel button: the user's screen, and their prompt if a secret choice is due."""
    bot: GameBot = interaction.client  # type: ignore[assignment]
    lang = language(str(interaction.locale))
    try:
        session = await bot.games.get(game_id)
    except Refusal as error:
        await errors.answer(interaction, announce.refusal_text(None, error, lang))
        return
    seat = session.seat_of(interaction.user.id)
    if seat is None or session.status != "running":
        key = "bot.refuse.not_player" if session.status == "running" else "bot.refuse.game_closed"
        await errors.answer(interaction, t(key, lang))
        return
    png = await screen_png(session, seat, lang)
    files = [discord.File(io.BytesIO(png), filename=SCREEN_FILE)] if png else []
    if hidden.owes(session, seat):
        text, view = prompt(session, seat, lang)
    else:
        text, view = t("bot.hidden.nothing_due", lang), None
    await interaction.response.send_message(text, view=view or discord.utils.MISSING,
                                            files=files, ephemeral=True)


# --- delivery ------------------------------------------------------------------------------------

async def screen_png(session: Session, seat: Seat, lang: str) -> bytes | None:
    ui = game_ui(session.row.game)
    if session.game is None:
        return None
    try:
        return await asyncio.to_thread(ui.screen, session.view(seat.colour), seat.colour, lang)
    except Exception:
        log.exception("rendering the screen of %s in game %s failed", seat.colour, session.id)
        return None


async def _user(bot: GameBot, user_id: int) -> discord.User:
    return bot.get_user(user_id) or await bot.fetch_user(user_id)


_delivering: dict[int, asyncio.Lock] = {}
"""One delivery at a time per game: two submissions posted at once must not DM twice."""


async def deliver(bot: GameBot, session: Session, new_stage: bool = True) -> list[str]:
    """DM each human their private screen (when a phase begins and it changed) and the prompt
    of a secret choice now due (once per decision). Returns the colours whose DMs are closed
    among those who owe a choice: the channel tells them to use the button."""
    ui = game_ui(session.row.game)
    if session.status != "running" or not ui.private_kinds:
        _delivering.pop(session.id, None)
        return []
    async with _delivering.setdefault(session.id, asyncio.Lock()):
        return await _deliver(bot, session, new_stage)


async def _deliver(bot: GameBot, session: Session, new_stage: bool) -> list[str]:
    store = bot.games.store
    if new_stage:
        for seat in session.seats:
            if not seat.is_ai:
                await _send_screen(bot, session, seat, await hidden.load(store, session.id,
                                                                         seat.colour))
    closed = []
    due = announce.private_pending(session)
    for seat in session.seats:  # prompts answered another way (/play, the timer) close
        if not seat.is_ai and seat not in due:
            record = await hidden.load(store, session.id, seat.colour)
            if record.prompt_message:
                await retire(bot, record, t("bot.hidden.closed", session.row.language))
    for seat in due:
        record = await hidden.load(store, session.id, seat.colour)
        turn = session.turns(seat.colour)
        if record.prompt_turn != turn:
            if record.prompt_message:
                await retire(bot, record, t("bot.hidden.closed", session.row.language))
                record = record.with_(prompt_message=None)
            record = await _send_prompt(bot, session, seat, record, turn)
        if record.dm_closed:
            closed.append(seat.colour)
    return closed


async def _send_prompt(bot: GameBot, session: Session, seat: Seat, record: hidden.HiddenSeat,
                       turn: int) -> hidden.HiddenSeat:
    assert seat.user_id is not None
    text, view = prompt(session, seat, session.row.language)
    try:
        user = await _user(bot, seat.user_id)
        message = await user.send(text, view=view or discord.utils.MISSING)
    except discord.Forbidden:
        record = record.with_(dm_closed=True, prompt_turn=turn, prompt_message=None)
    except discord.HTTPException as error:
        log.warning("could not DM a prompt in game %s: %s", session.id, error)
        return record
    else:
        record = record.with_(dm_closed=False, prompt_turn=turn, prompt_message=message.id,
                              prompt_channel=message.channel.id)
    await hidden.save(bot.games.store, record)
    return record


async def _send_screen(bot: GameBot, session: Session, seat: Seat,
                       record: hidden.HiddenSeat) -> None:
    lang = session.row.language
    png = await screen_png(session, seat, lang)
    if png is None or hidden.digest(png) == record.screen_hash or record.dm_closed:
        return
    assert seat.user_id is not None
    round_, phase = session.stage()
    text = t("bot.hidden.screen", lang, game=announce.game_name(session.row.game, lang),
             id=session.id, round=round_, phase=game_ui(session.row.game).phase_name(
                 str(phase), lang))
    try:
        user = await _user(bot, seat.user_id)
        await user.send(text, file=discord.File(io.BytesIO(png), filename=SCREEN_FILE))
    except discord.Forbidden:
        record = record.with_(dm_closed=True)
    except discord.HTTPException as error:
        log.warning("could not DM a screen in game %s: %s", session.id, error)
        return
    else:
        record = record.with_(screen_hash=hidden.digest(png))
    await hidden.save(bot.games.store, record)


# --- typed choices in DMs ------------------------------------------------------------------------

class Hidden(commands.Cog):
    """Secret choices typed in DMs, and prompts owed after a restart."""

    def __init__(self, bot: GameBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Prompts a crash kept from going out (between a commit and its DMs) go out now."""
        for session in list(self.bot.games.sessions.values()):
            if announce.private_pending(session):
                try:
                    await deliver(self.bot, session, new_stage=False)
                except Exception:
                    log.exception("could not deliver the prompts of game %s", session.id)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.guild is not None or message.author.bot or not message.content.strip():
            return
        try:
            await self.typed(message)
        except Exception:
            log.exception("a typed choice in a DM failed")
            await message.channel.send(t("bot.error.unexpected", self.bot.settings.language))

    async def typed(self, message: discord.Message) -> None:
        """``bid 2m 1w chief`` (or ``#12 bid 0m`` when several games wait) typed in a DM."""
        host = self.bot.games
        game_id, text = hidden.split_prefix(message.content)
        found = hidden.decisions(host, message.author.id)
        if game_id is not None:
            found = [(s, seat) for s, seat in found if s.id == game_id]
        lang = found[0][0].row.language if found else self.bot.settings.language
        if not found or not text:
            await message.channel.send(t("bot.hidden.dm.nothing", lang))
            return
        if len(found) > 1:
            games = "\n".join(t("bot.hidden.dm.game", lang, id=s.id,
                                game=announce.game_name(s.row.game, lang),
                                channel=f"<#{s.row.channel_id}>",
                                colour=announce.colour_name(seat.colour, lang))
                              for s, seat in found)
            await message.channel.send(t("bot.hidden.dm.which", lang, games=games,
                                         id=found[0][0].id))
            return
        session, seat = found[0]
        private = game_ui(session.row.game).is_private(session.kind())
        try:
            report = await host.play_game(session.id, message.author.id, text)
        except (Refusal, IllegalAction) as error:
            await message.channel.send(announce.refusal_text(session, error, lang))
            return
        if not private:
            mine = next((s.line for s in report.steps if s.actor == seat.colour), text)
            await message.channel.send(t("bot.play.done", lang, line=mine))
            await post_safely(self.bot, report)
            return
        done = submitted(report, seat, lang)
        await message.channel.send(done)
        await finish(self.bot, report, seat, done)


def private_items(session: Session) -> list[discord.ui.Item[Any]]:
    """Components the channel's turn message adds for games with secret choices."""
    button = open_button(session)
    return [button] if button is not None else []


async def setup(bot: GameBot) -> None:
    bot.add_dynamic_items(HiddenButton, HiddenSelect, OpenButton)
    await bot.add_cog(Hidden(bot))
