"""What the host and the table remember between moves, and that a change shows at once.

The table is worked out after every move; views, legal actions, log lines, the lobby card, board
keys and digests are kept where they cannot change. Each test changes what a kept answer depends
on and checks the answer changes with it (a stale one would show a wrong table)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot.games import game_ui
from bot.host.sessions import KEEP_WORKED_OUT, Host, Session, Step
from bot.host.store import SqliteStore
from bot.table import Post, desired, lobby_post
from bot.table.cards import _lobby_post
from bot.table.live import _components
from bot.table.pool import BOARDS
from bot.table.post import digest_of as _digest
from bot.table.words import step_line

CREATOR = 10


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[Host]:
    store = await SqliteStore.open(tmp_path / "games.sqlite3")
    try:
        yield Host(store, seed_source=itertools.count(3).__next__)
    finally:
        await store.close()


async def lobby(host: Host, game: str, channel: int = 1) -> Session:
    session = await host.create(channel_id=channel, guild_id=1, game=game, options={},
                                creator_id=CREATOR, language="en", creator_name="p0")
    for k in (1, 2):
        await host.join(session.id, CREATOR + k, f"p{k}")
    return session


async def started(host: Host, game: str, channel: int = 1) -> Session:
    session = await lobby(host, game, channel)
    await host.start(session.id, CREATOR)
    return session


async def play_one(host: Host, session: Session) -> str:
    """The first legal action of the first pending human."""
    seat = next(s for c in session.pending() if (s := session.seat(c)) and not s.is_ai)
    assert seat.user_id is not None
    line = session.legal_lines(seat.colour)[0]
    await host.play_game(session.id, seat.user_id, line)
    return line


def fresh(session: Session) -> dict[str, object]:
    """What the engine says of the current position, worked out now."""
    assert session.game is not None
    state, module = session.game.state, session.module
    return {"public": module.view(state, None),
            "seats": {s.colour: module.view(state, s.colour) for s in session.seats},
            "legal": {c: [str(a) for a in module.legal(state, c)] for c in session.pending()},
            "pending": module.pending(state).seats, "kind": module.pending(state).kind}


def remembered(session: Session) -> dict[str, object]:
    return {"public": session.view(None),
            "seats": {s.colour: session.view(s.colour) for s in session.seats},
            "legal": {c: session.legal_lines(c) for c in session.pending()},
            "pending": session.pending(), "kind": session.kind()}


@pytest.mark.parametrize("game", ["giants", "giganten", "makemake"])
async def test_views_and_legal_actions_follow_every_move(host: Host, game: str) -> None:
    session = await started(host, game)
    for _ in range(6):
        before = remembered(session)
        assert before == fresh(session)
        assert session.view(None) is before["public"], "asked again: the kept view"
        await play_one(host, session)
        after = remembered(session)
        assert after == fresh(session), "a move: the new position's answers"
        assert after["public"] != before["public"]


async def test_a_take_back_shows_the_earlier_position_again(host: Host) -> None:
    session = await started(host, "makemake")
    shown = remembered(session)
    assert session.game is not None
    state = session.game.state
    seat = session.seat(session.pending()[0])
    assert seat is not None and seat.user_id is not None
    await play_one(host, session)
    assert remembered(session) != shown
    await host.undo(session.row.channel_id, seat.user_id)
    assert session.game.state is state
    assert remembered(session) == shown == fresh(session)


async def test_legal_actions_are_a_copy(host: Host) -> None:
    session = await started(host, "makemake")
    colour = session.pending()[0]
    session.legal(colour).clear()
    session.legal_lines(colour).clear()
    assert session.legal_lines(colour) == fresh(session)["legal"][colour] != []  # type: ignore[index]


async def test_only_the_latest_positions_are_remembered(host: Host) -> None:
    session = await started(host, "makemake")
    worked: list[int] = []

    def work(n: int) -> Callable[[object], int]:
        def answer(state: object) -> int:
            worked.append(n)
            return n
        return answer

    states = [object() for _ in range(KEEP_WORKED_OUT + 1)]
    for n, state in enumerate(states):
        assert session.worked_out(state, "q", work(n)) == n
    assert session.worked_out(states[-1], "q", lambda _: -1) == KEEP_WORKED_OUT, "kept"
    assert session.worked_out(states[0], "q", lambda _: -1) == -1, "the oldest, forgotten"
    assert session.worked_out(states[-1], "other", lambda _: "x") == "x", "another question"
    assert worked == list(range(KEEP_WORKED_OUT + 1))


def test_a_sealed_line_says_what_it_was_once_revealed() -> None:
    """A game whose lines are public shows a line once nothing seals it (``sealed`` is set
    on a secret line and cleared by the reveal, on the same step)."""
    ui = game_ui("makemake")
    assert ui.public_lines
    names = {"red": "**Red**", "blue": "**Blue**"}
    step = Step("red", "red pass", [], "human", 1, "red")
    sealed = step_line(ui, step, "en", names)
    assert step_line(ui, step, "en", names) == sealed and "pass" not in sealed
    step.sealed = None  # the reveal
    revealed = step_line(ui, step, "en", names)
    assert "pass" in revealed
    assert revealed == step_line(ui, dataclasses.replace(step), "en", names), "as worked out anew"
    assert step_line(ui, step, "ru", names) != revealed, "each language its own line"
    assert "Ana" in step_line(ui, step, "en", {"red": "Ana"}), "and its own names"


async def test_the_lobby_card_follows_seats_status_and_changes(host: Host) -> None:
    session = await lobby(host, "giants")
    cards = [lobby_post(session)]

    async def changed() -> None:
        for lang in ("en", "es"):
            assert lobby_post(session, lang) == _lobby_post(session, lang)
        cards.append(lobby_post(session))
        assert cards[-1] != cards[-2]

    await host.add_ai(session.id, CREATOR)
    await changed()
    await host.leave(session.id, CREATOR + 2)
    await changed()
    await host.join(session.id, CREATOR + 2, "p2")
    await changed()
    await host.start(session.id, CREATOR)
    await changed()
    await host.step_down(session.id, CREATOR + 1)
    await changed()
    await host.set_turn_time(session.row.channel_id, CREATOR, 300)
    await changed()
    await host.abort(session.row.channel_id, CREATOR)
    await changed()


async def test_a_finished_game_card_shows_its_result(host: Host) -> None:
    session = await host.create(channel_id=1, guild_id=1, game="makemake", options={},
                                creator_id=CREATOR, language="en", ai_level="random",
                                join=False)
    for _ in range(3):
        await host.add_ai(session.id, CREATOR)
    running = lobby_post(session)
    await host.start(session.id, CREATOR)  # AI seats only: played to the end at once
    assert session.status == "finished"
    assert lobby_post(session) == _lobby_post(session, "en") != running


@pytest.mark.parametrize("game", ["giants", "giganten", "makemake"])
async def test_the_board_key_follows_the_position_language_and_names(host: Host,
                                                                    game: str) -> None:
    session = await started(host, game)
    now = host.store.clock()

    def key(names: dict[str, str], lang: str | None = None) -> str:
        live = desired(session, now, names, BOARDS[game], lang=lang).live
        assert live is not None and live.picture is not None
        view, shown_lang, shown_names = live.picture.args
        assert view == session.module.view(session.game.state, None)  # type: ignore[union-attr]
        highlight = sorted(live.picture.kwargs["highlight"])
        assert live.picture.key == _digest(view, shown_lang, shown_names, highlight)
        return live.picture.key

    first = key({})
    assert key({}) == first
    assert key({"red": "Ana"}) != first
    assert key({}, "es") != first
    await play_one(host, session)
    assert key({}) != first


def test_a_post_digest_is_its_content() -> None:
    post = Post(content="Red to move", seq=3)
    assert post.digest() == post.digest() == Post(content="Red to move", seq=3).digest()
    assert dataclasses.replace(post, content="Blue to move").digest() != post.digest()
    assert dataclasses.replace(post, seq=4).digest() != post.digest()



@pytest.mark.parametrize("game", ["giants", "giganten", "makemake"])
async def test_the_components_follow_every_move(host: Host, game: str) -> None:
    session = await started(host, game)
    ui = game_ui(game)
    for _ in range(8):
        assert session.game is not None
        state, module = session.game.state, session.module
        for colour in session.pending():
            for lang in ("en", "es"):
                assert _components(session, ui, colour, lang) == ui.components(
                    module.pending(state).kind, module.view(state, None), colour,
                    [str(a) for a in module.legal(state, colour)], lang)
        await play_one(host, session)
