"""What the bot posts in a channel: lobby embeds, turn messages with the board, final standings.

Built from the session's public view and the steps of a :class:`~bot.sessions.Report`; every
string goes through :func:`render.i18n.t` in the game's language.
"""

from __future__ import annotations

import asyncio
import importlib
import io
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.constants import BOARD_FILE, EMBED_COLOUR, MAX_BUTTONS, MAX_CONTENT, MAX_CUSTOM_ID
from bot.games import game_ui
from bot.sessions import Refusal, Report, Seat, Session, Step
from render.i18n import has, rule_error, t
from rules.core import IllegalAction

if TYPE_CHECKING:
    from bot.bot import GameBot

log = logging.getLogger(__name__)


# --- names ---------------------------------------------------------------------------------------

def colour_name(colour: str, lang: str) -> str:
    key = f"bot.colour.{colour}"
    return t(key, lang) if has(key, lang) else colour.capitalize()


def game_name(game: str, lang: str) -> str:
    key = f"bot.game.{game}"
    return t(key, lang) if has(key, lang) else game


def seat_label(seat: Seat, lang: str) -> str:
    """``Red (@alice)`` or ``Blue (AI, greedy)``: a mention renders as the member's name."""
    if seat.is_ai:
        return t("bot.seat.ai", lang, colour=colour_name(seat.colour, lang), level=seat.ai_level)
    return t("bot.seat.human", lang, colour=colour_name(seat.colour, lang),
             mention=f"<@{seat.user_id}>")


def colour_names(session: Session, lang: str) -> dict[str, str]:
    """Colour -> how summaries name that seat (the colour, in bold)."""
    return {s.colour: f"**{colour_name(s.colour, lang)}**" for s in session.seats}


def player_names(bot: GameBot, session: Session, lang: str) -> dict[str, str]:
    """Colour -> a plain name for the board legend (images cannot show mentions)."""
    guild = bot.get_guild(session.row.guild_id) if session.row.guild_id else None
    out = {}
    for seat in session.seats:
        if seat.is_ai:
            out[seat.colour] = t("bot.legend.ai", lang, level=seat.ai_level)
            continue
        assert seat.user_id is not None
        member = guild.get_member(seat.user_id) if guild else None
        user = member or bot.get_user(seat.user_id)
        out[seat.colour] = (user.display_name if user else seat.name) \
            or t("bot.legend.player", lang)
    return out


def mentions(session: Session, colours: list[str] | tuple[str, ...], lang: str) -> str:
    return ", ".join(seat_label(s, lang) for c in colours if (s := session.seat(c)))


def refusal_text(session: Session | None, error: Refusal | IllegalAction, lang: str) -> str:
    """A refusal in words, in the user's language."""
    if isinstance(error, IllegalAction):
        game = session.row.game if session else ""
        return t("bot.refuse.illegal", lang, reason=rule_error(game, error, lang))
    params = dict(error.params)
    if "pending" in params and session is not None:
        params["pending"] = mentions(session, params["pending"], lang)
    return t(error.key, lang, **params)


# --- lobby ---------------------------------------------------------------------------------------

def lobby_embed(session: Session) -> discord.Embed:
    lang = session.row.language
    module = session.module
    status = session.status
    title_key = "bot.lobby.title" if status == "lobby" else f"bot.lobby.title_{status}"
    embed = discord.Embed(title=t(title_key, lang, game=game_name(session.row.game, lang)),
                          colour=EMBED_COLOUR)
    embed.description = t("bot.lobby.description", lang, min=module.MIN_SEATS,
                          max=module.MAX_SEATS, creator=f"<@{session.row.creator_id}>")
    seats = "\n".join(seat_label(s, lang) for s in session.seats) or t("bot.lobby.empty", lang)
    embed.add_field(name=t("bot.lobby.seats", lang, count=len(session.seats),
                           max=module.MAX_SEATS), value=seats, inline=False)
    embed.add_field(name=t("bot.lobby.options", lang),
                    value=session.row.options or t("bot.lobby.defaults", lang), inline=True)
    embed.add_field(name=t("bot.lobby.ai_level", lang), value=session.row.ai_level, inline=True)
    if session.row.turn_seconds:
        embed.add_field(name=t("bot.lobby.turn_time", lang),
                        value=t("bot.lobby.minutes", lang,
                                minutes=session.row.turn_seconds // 60), inline=True)
    return embed


# --- turns ---------------------------------------------------------------------------------------

def step_lines(session: Session, steps: list[Step], lang: str) -> list[str]:
    """One line per applied action, from its events (the notation if no event has words)."""
    ui = game_ui(session.row.game)
    names = colour_names(session, lang)
    lines = []
    for step in steps:
        words = [w for e in step.events  # a wholly secret event is never summarised
                 if not isinstance(e.get("private"), str) and (w := ui.describe(e, lang, names))]
        who = names.get(step.actor, step.actor)
        if not words:
            words = [t("bot.step.plain", lang, who=who, line=step.line) if ui.public_lines
                     else t("bot.step.acted", lang, who=who)]
        text = " ".join(words)
        marker = t(f"bot.step.by_{step.by}", lang)
        lines.append(f"{marker} {text}")
    return lines


def private_lines(session: Session, steps: list[Step], colour: str, lang: str) -> list[str]:
    """The events of ``steps`` that only ``colour`` may read (a peek's answer...), in words."""
    ui = game_ui(session.row.game)
    names = colour_names(session, lang)
    return [w for step in steps for e in step.events
            if secret_seat(e) == colour and (w := ui.describe_private(e, lang, names))]


def secret_seat(event: dict[str, Any]) -> str | None:
    """Whose secret an event carries: ``"private": colour`` (the whole event is secret) or
    ``"private": {"seat": colour, ...}`` (only that part is; the summary tells the rest)."""
    secret = event.get("private")
    return secret.get("seat") if isinstance(secret, dict) else secret


def private_pending(session: Session) -> list[Seat]:
    """The humans who owe a secret choice now (prompted by DM, never in the channel)."""
    if session.status != "running" or session.game is None:
        return []
    if not game_ui(session.row.game).is_private(session.kind()):
        return []
    return [s for c in session.pending() if (s := session.seat(c)) and not s.is_ai]


def next_line(session: Session, lang: str) -> str:
    """Who acts now, mentioned so they get a ping; or the final standings."""
    result = session.result()
    if result is not None:
        return standings(session, lang)
    view = session.view()
    pending = list(view.get("pending", []))
    if private_pending(session):
        return t("bot.hidden.next", lang, who=mentions(session, pending, lang),
                 round=view.get("round"),
                 phase=game_ui(session.row.game).phase_name(session.kind(), lang))
    key = "bot.turn.next_buttons" if turn_buttons(session) else "bot.turn.next"
    return t(key, lang, who=mentions(session, pending, lang), round=view.get("round"),
             phase=t(f"bot.{session.row.game}.phase.{view.get('phase')}", lang)
             if has(f"bot.{session.row.game}.phase.{view.get('phase')}", lang)
             else view.get("phase"))


def standings(session: Session, lang: str) -> str:
    result = session.result()
    assert result is not None
    order = sorted(session.seats, key=lambda s: -result.scores.get(s.colour, 0))
    rows = [t("bot.end.row", lang, who=seat_label(s, lang), score=result.scores.get(s.colour, 0))
            for s in order]
    winners = mentions(session, result.winners, lang)
    reason_key = f"bot.end.reason.{result.reason}"
    reason = t(reason_key, lang) if has(reason_key, lang) else result.reason
    return "\n".join([t("bot.end.title", lang, reason=reason, winners=winners), *rows])


def turn_text(session: Session, steps: list[Step], lang: str) -> str:
    lines = step_lines(session, steps, lang)
    tail = next_line(session, lang)
    text = "\n".join([*lines, tail])
    if len(text) <= MAX_CONTENT:
        return text
    # Keep the newest steps and the turn line: what players need to act on.
    while lines and len("\n".join(["…", *lines, tail])) > MAX_CONTENT:
        lines.pop(0)
    return "\n".join(["…", *lines, tail])[:MAX_CONTENT]


def turn_buttons(session: Session) -> list[tuple[str, str]]:
    """``(label, custom_id)`` for the pending humans' small choices; empty if none fit."""
    if session.status != "running" or session.game is None:
        return []
    module = session.module
    kind = module.pending(session.game.state).kind
    ui = game_ui(session.row.game)
    if ui.is_private(kind):
        return []  # secret choices are made in private prompts, never in the channel
    out: list[tuple[str, str]] = []
    for colour in session.pending():
        seat = session.seat(colour)
        if seat is None or seat.is_ai:
            continue
        legal = [str(a) for a in session.legal(colour)]
        for action in ui.button_actions(kind, legal):
            custom_id = f"play:{session.id}:{session.seq}:{action}"
            if len(custom_id) <= MAX_CUSTOM_ID and ":" not in action \
                    and (action, custom_id) not in out:
                out.append((action, custom_id))
    return out[:MAX_BUTTONS]


async def board_file(bot: GameBot, session: Session, lang: str) -> discord.File | None:
    """The public board as a PNG, rendered in a worker thread; None if there is no renderer."""
    if session.game is None:
        return None
    try:
        renderer = importlib.import_module(f"render.{session.row.game}")
    except ModuleNotFoundError:
        log.warning("no renderer for %s yet: posting without an image", session.row.game)
        return None
    view = session.view(None)
    names = player_names(bot, session, lang)
    try:
        png = await asyncio.to_thread(renderer.board, view, lang, names)
    except Exception:
        log.exception("rendering game %s failed: posting without an image", session.id)
        return None
    return discord.File(io.BytesIO(png), filename=BOARD_FILE)


def record_file(session: Session) -> discord.File | None:
    record = session.record()
    if record is None:
        return None
    name = f"{session.row.game}-{session.id}.txt"
    return discord.File(io.BytesIO(record.encode("utf-8")), filename=name)


async def channel_of(bot: GameBot, session: Session) -> discord.abc.Messageable:
    channel = bot.get_channel(session.row.channel_id)
    if channel is None:
        channel = await bot.fetch_channel(session.row.channel_id)
    assert isinstance(channel, discord.abc.Messageable)
    return channel


async def post_turn(bot: GameBot, session: Session, steps: list[Step],
                    board: bool = True, new_stage: bool = True) -> discord.Message:
    """The board image, what happened, and who is next (or the standings) in the channel.

    Private prompts go out by DM first, so the message can say whose DMs are closed.
    ``board=False`` (a sealed choice was handed in, nothing else changed) posts text only."""
    from bot.exts.hidden import deliver  # DMs and their buttons live with the hidden feature
    from bot.exts.play import turn_view  # the buttons live with the play feature

    lang = session.row.language
    closed = await deliver(bot, session, new_stage)
    text = turn_text(session, steps, lang)
    if closed:
        note = t("bot.hidden.dm_closed", lang, who=mentions(session, closed, lang))
        text = f"{text}\n{note}"[:MAX_CONTENT]
    files = [record_file(session)]
    if board:
        files.insert(0, await board_file(bot, session, lang))
    channel = await channel_of(bot, session)
    return await channel.send(
        text, files=[f for f in files if f], view=turn_view(session),
        allowed_mentions=discord.AllowedMentions(users=True, roles=False, everyone=False))


async def post_report(bot: GameBot, report: Report) -> discord.Message:
    """The board comes with a new phase and whenever the turn passes to someone else.

    A sealed submission that changed nothing else, or a player's step after which that same
    player goes on (a truck's drive before its peek), is a short line without the board.
    """
    session = report.session
    continuing = bool(report.steps) and session.pending() == (report.steps[0].actor,)
    quiet = not report.new_stage and (private_pending(session) != [] or continuing)
    return await post_turn(bot, session, report.steps, board=not quiet,
                           new_stage=report.new_stage)
