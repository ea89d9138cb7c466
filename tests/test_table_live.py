"""The live table message on a phone: the board is the message's own picture (shown at the
message's width, not as an embed's small image), and the stage's log is short enough to leave
the board and the buttons on the first screen."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.constants import BOARD_FILE, LOG_LINES
from bot.games import game_ui
from bot.host.sessions import Host, Session
from bot.host.store import SqliteStore
from bot.table import desired
from bot.table.live import (
    LIVE_LOG_LINES,
    LIVE_LOG_ROWS,
    ROW_COLUMNS,
    _latest,
    _tail,
    _width,
    focus_now,
)
from bot.table.words import step_lines
from render import giganten as render_giganten
from render import makemake as render_makemake
from render.i18n import t

CREATOR = 10
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _no_picture(*args: object, **kwargs: object) -> bytes:
    return b""


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[Host]:
    store = await SqliteStore.open(tmp_path / "games.sqlite3")
    try:
        yield Host(store, seed_source=itertools.count(3).__next__)
    finally:
        await store.close()


async def started(host: Host, game: str) -> Session:
    session = await host.create(channel_id=1, guild_id=1, game=game, options={},
                                creator_id=CREATOR, language="en", creator_name="p0")
    for k in (1, 2):
        await host.join(session.id, CREATOR + k, f"p{k}")
    await host.start(session.id, CREATOR)
    return session


async def play_one(host: Host, session: Session) -> None:
    seat = next(s for c in session.pending() if (s := session.seat(c)) and not s.is_ai)
    assert seat.user_id is not None
    await host.play_game(session.id, seat.user_id, session.legal_lines(seat.colour)[0])


@pytest.mark.parametrize("game", ["giants", "giganten", "makemake"])
async def test_the_board_is_the_message_s_picture_not_the_embed_s_image(host: Host,
                                                                         game: str) -> None:
    session = await started(host, game)
    want = desired(session, NOW, {}, _no_picture)
    assert want.live is not None and want.live.embed is not None
    assert want.live.picture is not None and want.live.picture.filename == BOARD_FILE
    assert want.live.embed.image is None, "an embed's image is shown small and height-capped"


async def test_the_live_message_shows_the_latest_few_log_lines(host: Host) -> None:
    session = await started(host, "makemake")
    for _ in range(LOG_LINES + 2):
        await play_one(host, session)
    want = desired(session, NOW, {}, _no_picture)
    assert want.live is not None and want.live.embed is not None
    log = dict(want.live.embed.fields)[t("bot.table.log", "en")].splitlines()
    assert LIVE_LOG_LINES < LOG_LINES
    assert 2 <= len(log) <= LIVE_LOG_LINES, log
    latest = step_lines(session, session.log, "en")[-len(log):]
    assert log[1:] == latest[1:], "the latest lines, whole"
    assert log[0] == latest[0] or (log[0].startswith("… ") and latest[0].endswith(log[0][2:])), \
        "the end of the line before them"
    assert sum(-(-_width(line) // ROW_COLUMNS) for line in log) <= LIVE_LOG_ROWS, \
        "a few rows of a phone's screen"


def test_the_live_log_fits_a_few_rows_and_keeps_a_take_back_in_sight() -> None:
    short = [f"▶ **Red** move {n}." for n in range(8)]
    assert _latest(short, set(), LIVE_LOG_LINES, LIVE_LOG_ROWS) == short[-LIVE_LOG_LINES:]
    note = "↩️ **Red** took back a move: **Red** claims A1 with 1 token."
    lines = [*short[:4], note, *short[4:7]]
    assert _latest(lines, {note}, LIVE_LOG_LINES, LIVE_LOG_ROWS) == [note, *short[4:7]], \
        "a take-back stays in sight after the turn that follows it"
    assert _latest([*lines, short[7]], {note}, LIVE_LOG_LINES, LIVE_LOG_ROWS) == short[5:8]
    long = "▶ " + " ".join(f"**Seat{n}** bids {n} markers;" for n in range(20)) + " Done."
    older = "🎲 Dice 1, 2: statues of size 1, 2 wait in the quarry."
    [shown] = _latest([older, long], set(), LIVE_LOG_LINES, LIVE_LOG_ROWS)
    assert shown.startswith("… ") and shown.count("**") % 2 == 0, shown
    assert shown.endswith("**Seat19** bids 19 markers; Done."), "the latest events"
    assert _width(shown) <= LIVE_LOG_ROWS * ROW_COLUMNS, "the latest line, cut to the rows"
    middle = "x" * (ROW_COLUMNS * (LIVE_LOG_ROWS - 2))  # with the last: one row to spare
    [end, *rest] = _latest([older, middle, "▶ last."], set(), LIVE_LOG_LINES, LIVE_LOG_ROWS)
    assert rest == [middle, "▶ last."], "the latest lines whole while they fit"
    assert end == "… statues of size 1, 2 wait in the quarry.", "then the end of the one before"
    bold = "▶ " + "x " * 60 + "**the bluff fails here**."
    assert _tail(bold, 14) == "… **fails here**.", "a bold part cut open opens again"


def test_each_game_names_the_places_its_legal_moves_go_to() -> None:
    giants, giganten, makemake = (game_ui(g) for g in ("giants", "giganten", "makemake"))
    assert giants.focus_places("place", {}, ["pass", "place worker K8 2logs",
                                             "place sorcerer K8", "place worker G1"]) == [
        "K8", "G1"]
    assert giganten.focus_places("move", {}, ["drive A1 A2", "drive B3", "skip"]) == [
        "A2", "B3"]
    assert giganten.focus_places("produce", {}, ["produce H7=jet:black"]) == ["H7"]
    assert giganten.focus_places("bid", {}, ["bid 1", "bid 2"]) == []
    territory = next(iter(render_makemake.HEX_XY))
    assert makemake.focus_places("domination", {}, [f"place {territory} 1",
                                                    f"place {territory} 2 chief"]) == [territory]


async def test_the_live_message_shows_the_decision_s_places_close_up(host: Host) -> None:
    session = await started(host, "giganten")
    focused = 0
    for _ in range(40):
        want = desired(session, NOW, {}, render_giganten.board)
        assert want.live is not None and want.live.picture is not None
        picture = want.live.picture
        assert picture.filename == BOARD_FILE
        places = focus_now(session, game_ui("giganten"), session.view(None),
                           render_giganten.board)
        if places:
            focused += 1
            assert picture.art is render_giganten.focus and picture.args[1] == places
            assert len(places) < len(render_giganten.GRID) / 2
            box = render_giganten.place_box(session.view(None), places)
            assert box[2] - box[0] <= render_giganten.WIDTH / 2
        else:
            assert picture.art is render_giganten.board
        if session.status != "running":
            break
        await play_one(host, session)
    assert focused, "no decision about a few places in the first moves"
