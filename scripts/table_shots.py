"""Phone screenshots of a game's table and of a DM, and how readable they are there.

    python scripts/table_shots.py giants --out shots/ [--json] [--stages N] [--seed 1]

Plays a game through the offline Discord simulator as ``scripts/table_report.py`` does (three
humans and one AI seat; the humans act only through what the bot shows them), and at the first
decision of each stage opens the simulator's own preview of the live table message and of the
first player's latest DM (the screen or hand; the "your turn" DM in a game without a private
side) in Chromium, at 390x844 CSS px with device scale 3, the size of a phone, and saves a
screenshot of that first screen: ``DIR/NN-table.png`` and ``DIR/NN-dm.png``.

It reads from the page each picture's natural and shown width and each message's height, and
reports per place (``table``, ``dm``), over the stages:

- ``label_pt_min``: the smallest label as shown, in CSS px (a phone's points): the renderers'
  own heights (:mod:`render.labels`, in image pixels) of the labels a player names (hexes,
  ahu, spaces) and of the numbers on pieces, on the picture the player looks at to name the
  decision's places, times the picture's shown width over its natural width (a private
  picture is cut to its content, not scaled: its labels keep their heights). On the table
  that picture is the live message's focus on the decision's places; or, when the places are
  spread over the board, the focus on the message of the first guided step about places
  close together (a band of hexes, a row: the script taps its way there as the player
  would, and that step's message is captured too, ``NN-step.png``); or else the whole
  board. A decision that names no place on the board (a bid, a statue to take) has no such
  label: its stage counts for ``table_screens`` only.
- ``table_screens``: the message's height over the phone screen's (844): at most 1.0 puts
  the board and the buttons on the first screen.

Chromium is the system's (``--chromium``, default ``/usr/bin/chromium``), driven by Playwright
through ``executable_path``: no browser is downloaded. Prints one JSON object with ``--json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import simcord

from bot import create_bot
from bot.games import Step, game_ui, playable
from bot.settings import Settings
from bot.table.live import focus_now, step_picture
from bot.table.private import pending_humans, secret_now
from bot.table.steps import chooser, encode, replay
from render import labels
from render.__main__ import renderer
from scripts import table_report as report
from scripts.tables.counting import game_of
from scripts.tables.humans import Table, _mine

PHONE = (390, 844)
"""A phone's screen in CSS px (points)."""
SCALE = 3
"""Its device pixels per CSS px."""
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync")
PICTURES = {"table": "board.png", "dm": "screen.png"}
STEP_PICTURE = "places.png"
"""The picture of a guided step's message (its places close up)."""
MOST_STEPS = 6
"""Taps the script makes at most to reach a step about close places."""
"""The picture each place's message carries."""
MEASURE = """() => {
  const surface = document.getElementById('focused-content');
  if (!surface) return null;
  const box = surface.getBoundingClientRect();
  const images = [...surface.querySelectorAll('img')]
    .filter(i => i.naturalWidth > 64)
    .map(i => ({natural: [i.naturalWidth, i.naturalHeight],
                shown: [i.getBoundingClientRect().width, i.getBoundingClientRect().height]}));
  const tall = (selector) => [...surface.querySelectorAll(selector)]
    .reduce((sum, e) => sum + e.getBoundingClientRect().height, 0);
  const parts = {content: tall('.message-content'), title: tall('.embed-title'),
                 status: tall('.embed-description'), components: tall('.message-components'),
                 pictures: tall('.message-attachments')};
  surface.querySelectorAll('.embed-field').forEach(f => {
    const name = f.querySelector('.embed-field-name');
    parts[name ? name.textContent : 'field'] = f.getBoundingClientRect().height;
  });
  for (const key of Object.keys(parts)) parts[key] = Math.round(parts[key]);
  return {height: Math.max(box.height, surface.scrollHeight), images, parts};
}"""
"""What the page tells: the focused message's height, its pictures' natural and shown sizes
and the height of each of its parts (the embed's title, status and fields, the components,
the pictures), in CSS px."""
HIDE_WORKBENCH = "#toolbar { display: none !important; }"
"""The preview's own toolbar is not part of what a phone shows."""


# --- measuring (no browser needed) ------------------------------------------------------------

def shown_px(height: float, natural_width: float, shown_width: float) -> float:
    """A label ``height`` image pixels tall, as shown: the picture is scaled to its shown
    width, so the label is scaled by shown width over natural width (CSS px)."""
    if natural_width <= 0:
        raise ValueError("a picture has a width")
    return height * shown_width / natural_width


def label_pt_min(heights: Iterable[float], natural_width: float,
                 shown_width: float) -> float | None:
    """The smallest of the labels ``heights`` (image pixels) as shown, in CSS px; None when
    the picture has no label."""
    found = [shown_px(h, natural_width, shown_width) for h in heights if h > 0]
    return round(min(found), 2) if found else None


def table_screens(message_height: float, screen_height: float = PHONE[1]) -> float:
    """How many phone screens a message takes (at most 1.0: all of it on the first)."""
    return round(message_height / screen_height, 3)


@dataclass
class Shot:
    """One place at one stage: what the page measured."""

    stage: int
    place: str
    file: str
    height: float
    natural: tuple[int, int] | None
    shown: tuple[float, float] | None
    label_pt_min: float | None
    table_screens: float
    parts: dict[str, int]
    """Where the height goes (CSS px by part), to see what to shorten."""


def shot(stage: int, place: str, file: str, measured: dict[str, Any],
         heights: Iterable[float]) -> Shot:
    """A :class:`Shot` from what :data:`MEASURE` read and the picture's label heights: the
    picture is the message's largest one."""
    images = sorted(measured.get("images") or [],
                    key=lambda i: i["natural"][0] * i["natural"][1])
    picture = images[-1] if images else None
    natural = tuple(picture["natural"]) if picture else None
    shown = tuple(picture["shown"]) if picture else None
    smallest = label_pt_min(heights, natural[0], shown[0]) if natural and shown else None
    return Shot(stage, place, file, round(measured["height"], 1), natural,  # type: ignore[arg-type]
                shown, smallest, table_screens(measured["height"]),
                dict(measured.get("parts") or {}))


def summary(shots: list[Shot]) -> dict[str, Any]:
    """Per place, the worst over the stages: the smallest label and the tallest message; and
    the worst of the places. The table's labels include its guided steps' (``step``: where a
    decision about places spread over the board names them), its height only the live
    message's."""
    out: dict[str, Any] = {}
    for place in (*PICTURES, "step"):
        mine = [s for s in shots if s.place == place]
        named = [s for s in shots if s.place in ((place, "step") if place == "table"
                                                 else (place,))]
        labels = [s.label_pt_min for s in named if s.label_pt_min is not None]
        out[place] = {"label_pt_min": min(labels) if labels else None,
                      "table_screens": max((s.table_screens for s in mine), default=None),
                      "shots": len(mine)}
    labels = [out[p]["label_pt_min"] for p in PICTURES if out[p]["label_pt_min"] is not None]
    screens = [out[p]["table_screens"] for p in PICTURES if out[p]["table_screens"] is not None]
    out["label_pt_min"] = min(labels) if labels else None
    out["table_screens"] = max(screens) if screens else None
    return out


# --- the renderers' labels ----------------------------------------------------------------------

def picture_labels(session: Any, place: str, lang: str, user_id: int,
                   focus: list[str] | None = None) -> list[float]:
    """The heights (image pixels) of the labels a player names and of the numbers on pieces
    (:data:`render.labels.NAMED`) on the picture ``place`` shows now: the public board (or
    its focus on ``focus``, a guided step's places), or the screen or hand of ``user_id``'s
    seat, drawn again while :mod:`render.labels` reads it."""
    ui = game_ui(session.row.game)
    if place == "table":
        drawer = renderer(session.row.game)
        if drawer is None:
            return []
        view = session.view(None)
        places = focus or focus_now(session, ui, view, drawer.board)
        picture = (labels.read_focus(drawer, view, places, lang) if places
                   else labels.read_one(drawer.board, view, lang))
    else:
        seat = session.seat_of(user_id)
        if seat is None or not ui.has_screen():
            return []
        picture = labels.read_one(ui.screen_art(), session.view(seat.colour), seat.colour, lang)
    return [float(label.height) for label in picture.of(labels.NAMED)]


# --- the browser ----------------------------------------------------------------------------

class Phone:
    """One Chromium, one page per capture, at the phone's size."""

    def __init__(self, chromium: str) -> None:
        self.chromium = chromium
        self._playwright: Any = None
        self.browser: Any = None

    async def __aenter__(self) -> Phone:
        # imported here: only the screenshots need Playwright, not the measures' tests
        from playwright.async_api import async_playwright

        self._playwright = await async_playwright().start()
        self.browser = await self._playwright.chromium.launch(
            executable_path=self.chromium, args=list(CHROMIUM_ARGS))
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self.browser is not None:
            await self.browser.close()
        if self._playwright is not None:
            await self._playwright.stop()

    async def capture(self, env: Any, channel: Any, viewer: Any, target: Any,
                      path: Path) -> dict[str, Any]:
        """Open the simulator's preview of ``target`` (a message in ``channel``) as ``viewer``,
        save the phone's first screen to ``path`` and return what :data:`MEASURE` read."""
        async with env.preview(channel, viewers=[viewer], width=PHONE[0],
                               height=PHONE[1]) as preview:
            await preview.show(target)
            context = await self.browser.new_context(
                viewport={"width": PHONE[0], "height": PHONE[1]},
                device_scale_factor=SCALE, reduced_motion="reduce", bypass_csp=True)
            try:
                page = await context.new_page()
                await page.goto(preview.url, wait_until="domcontentloaded")
                await page.wait_for_function(
                    "() => window.simcordPreview && window.simcordPreview.ready === true",
                    timeout=30000)
                await page.add_style_tag(content=HIDE_WORKBENCH)
                await page.wait_for_function(
                    "() => [...document.images].every(i => i.complete)", timeout=30000)
                measured = await page.evaluate(MEASURE)
                await page.screenshot(path=str(path), type="png")
            finally:
                await context.close()
        if measured is None:
            raise RuntimeError("the preview shows no message")
        return dict(measured)


# --- the game -------------------------------------------------------------------------------

def _latest(messages: list[Any], filename: str) -> Any:
    found = [m for m in messages if any(a.filename == filename for a in m.attachments)]
    return found[-1] if found else None


async def run(game: str, out: Path, seed: int, lang: str, stages: int,
              chromium: str) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        clock = report.SimClock()
        settings = Settings(db_path=Path(folder) / "games.sqlite3", language=lang,
                            clock=clock, seed_source=lambda: seed, render_workers=0)
        bot = create_bot(settings)
        try:
            async with simcord.run(bot, settle_timeout=report.SETTLE_WITHIN) as env, \
                    Phone(chromium) as phone:
                clock.env = env
                shots = await _play(env, phone, game, out, seed, stages, lang,
                                    game_ui(game).has_screen())
        finally:
            if bot.store is not None:
                await bot.store.close()
    return {"game": game, **summary(shots), "stages": [asdict(s) for s in shots]}


async def _play(env: Any, phone: Phone, game: str, out: Path, seed: int, stages: int,
                lang: str, screens: bool) -> list[Shot]:
    guild = env.create_guild()
    channel = guild.create_text_channel("games")
    members = [guild.add_member(env.create_user(f"player{i + 1}")) for i in range(3)]
    closed = members[-1]
    env.inject_error("POST", f"/channels/{closed.user.dm_channel.id}/messages", status=403,
                     code=50007, message="Cannot send messages to this user", times=None)
    result = await members[0].slash(channel, "game new", game=game)
    lobby = next(m for m in channel.history() if m.id == result.response.id)
    game_id = game_of(lobby)
    for member in members[1:]:
        await member.click(lobby, custom_id=f"lobby:{game_id}:join")
    await members[0].click(lobby, custom_id=f"lobby:{game_id}:ai")
    if not screens:  # a game without a private side: the first player's DM is "your turn"
        await members[0].slash(channel, "game notify", setting="on")
    await members[0].click(lobby, custom_id=f"lobby:{game_id}:start")
    table = Table(env, channel, members, closed, seed)
    host = env.bot.games
    by_id = {m.id: m for m in members}
    shots: list[Shot] = []
    seen: set[int] = set()
    for _ in range(report.MAX_DECISIONS):
        session = host.sessions.get(game_id)
        if session is None or session.status != "running":
            break
        await env.advance_time(report.THINK)
        session = host.sessions.get(game_id)
        if session is None or session.status != "running":
            break
        seat = next((s for s in session.seats if s.colour in session.pending()
                     and not s.is_ai), None)
        if seat is None:
            continue
        live = _latest([m for p in table.places() for m in _mine(env, p.history())],
                       PICTURES["table"])
        if live is not None and live.id not in seen:
            seen.add(live.id)
            shots += await _stage(env, phone, table, members[0], live, len(seen), out,
                                  lang, session, by_id)
            if stages and len(seen) >= stages:
                break
        if not await table.act(by_id[seat.user_id], session):
            raise RuntimeError(f"{seat.colour} could not act on what the bot shows")
    return shots


async def _stage(env: Any, phone: Phone, table: Any, member: Any, live: Any, number: int,
                 out: Path, lang: str, session: Any, by_id: dict[int, Any]) -> list[Shot]:
    """The table and the first player's latest DM at this stage's first decision; and, when
    the decision's places are spread over the board, the message of the first guided step
    about some of them close together (:func:`step_way`), as the player sees it."""
    found = []
    name = f"{number:02d}-table.png"
    measured = await phone.capture(env, table.home(), member, live, out / name)
    seat, places = decision_places(session)
    way = None
    if places and not focus_now(session, game_ui(session.row.game), session.view(None),
                                _board_of(session)):
        way = step_way(session, seat, lang) if _has_first_step(live, session) else None
    heights = (picture_labels(session, "table", lang, member.id) if places and way is None
               else [])
    found.append(shot(number, "table", name, measured, heights))
    if way is not None:
        taps, close = way
        acting = by_id[seat.user_id]
        step = await _tap_to(acting, live, session.id, session.seq, taps)
        name = f"{number:02d}-step.png"
        measured = await phone.capture(env, table.home(), acting,
                                       getattr(step, "message", step), out / name)
        found.append(shot(number, "step", name, measured,
                          picture_labels(session, "table", lang, member.id, focus=close)))
    dms = table.dm_messages(member)
    dm = _latest(dms, PICTURES["dm"]) or (dms[-1] if dms else None)
    if dm is not None:
        name = f"{number:02d}-dm.png"
        measured = await phone.capture(env, member.user.dm_channel, member.user, dm,
                                       out / name)
        found.append(shot(number, "dm", name, measured,
                          picture_labels(session, "dm", lang, member.id)))
    return found


# --- the decision's places ----------------------------------------------------------------

def _board_of(session: Any) -> Any:
    drawer = renderer(session.row.game)
    return drawer.board if drawer is not None else None


def decision_places(session: Any) -> tuple[Any, list[str]]:
    """The first pending human's seat and the places on the board their public decision
    names (none for a secret one, or with nobody to act)."""
    if session.game is None or session.paused or secret_now(session):
        return None, []
    humans = pending_humans(session)
    if not humans:
        return None, []
    ui = game_ui(session.row.game)
    return humans[0], ui.focus_places(session.kind(), session.view(None),
                                      session.legal_lines(humans[0].colour))


def step_way(session: Any, seat: Any, lang: str) -> tuple[list[int], list[str]] | None:
    """The taps that lead ``seat``'s player from the table's first step to the first guided
    step shown with its places close up (:func:`bot.table.live.step_picture`), and those
    places; each tap the first option that leads to a further step (none plays a move).
    None when no step within :data:`MOST_STEPS` taps shows one."""
    ui = game_ui(session.row.game)
    legal, kind = session.legal_lines(seat.colour), session.kind()
    taps: list[int] = []
    for _ in range(MOST_STEPS):
        found = replay(ui, kind, legal, taps, lang)
        if not isinstance(found, Step):
            return None
        following = next((i for i in range(len(found.options)) if isinstance(
            replay(ui, kind, legal, [*taps, i], lang), Step)), None)
        if following is None:
            return None
        taps.append(following)
        shown = chooser(ui, kind, legal, taps, lang)
        if step_picture(session, _board_of(session), list(shown.moves), lang) is not None:
            return taps, ui.focus_places(kind, session.view(None), list(shown.moves))
    return None


def _has_first_step(live: Any, session: Any) -> bool:
    """Whether the live message offers the table's first step of a guided choice."""
    return any((getattr(c, "custom_id", "") or "").startswith(f"ks:{session.id}:t:")
               for row in live.components for c in getattr(row, "children", []))


async def _tap_to(member: Any, live: Any, game_id: int, count: int, taps: list[int]) -> Any:
    """Tap the options ``taps`` one after another, from the live table's first step on, as
    the player would: the message only they see, after the last tap."""
    message = live
    for n, index in enumerate(taps):
        message = await _tap(member, message, game_id, "t" if n == 0 else "e", count,
                             taps[:n], index)
    return message


def _items(message: Any) -> list[dict[str, Any]]:
    """A message's components as Discord sends them (a message, or an interaction's raw
    response, whose rows are plain data)."""
    out: list[dict[str, Any]] = []
    for row in getattr(message, "message", message).components:
        out += (row.get("components", []) if isinstance(row, dict)
                else [item.to_dict() for item in row.children])
    return out


async def _tap(member: Any, message: Any, game_id: int, where: str, count: int,
               before: list[int], index: int) -> Any:
    select_id = f"ks:{game_id}:{where}:{count}:{encode(before)}"
    message = getattr(message, "message", message)
    for item in _items(message):
        custom_id = item.get("custom_id") or ""
        if custom_id == select_id and item.get("options"):
            value = next(o["value"] for o in item["options"]
                         if o["value"].partition(":")[0] == str(index))
            return (await member.select(message, [value], custom_id=custom_id)).response
        if custom_id.startswith(f"k:{game_id}:{where}:{count}:s:") and custom_id.split(
                ":", 5)[5].partition(":")[0] == encode([*before, index]):
            return (await member.click(message, custom_id=custom_id)).response
    shown = [item.get("custom_id") for item in _items(message)]
    raise RuntimeError(f"no option {index} after the taps {before} is shown: {shown}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=playable())
    parser.add_argument("--out", required=True, type=Path, help="the folder for the PNGs")
    parser.add_argument("--json", action="store_true", help="print JSON (the only output)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--stages", type=int, default=0,
                        help="stop after this many stages (0: play the whole game)")
    parser.add_argument("--chromium", default=CHROMIUM, help="the Chromium to drive")
    args = parser.parse_args(argv)
    found = asyncio.run(run(args.game, args.out, args.seed, args.lang, args.stages,
                            args.chromium))
    if args.json:
        print(json.dumps(found))
    else:
        for place in (*PICTURES, "step"):
            print(f"{place}: {found[place]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
