"""A Giants placement by taps through Discord (issue 32): the live table's select asks what to
place and offers a worker by the rows of the island; a tap on a row answers with its hexes in a
message only the player sees (Back returns to the rows), and the hex names the move in words
and plays it: two taps for a worker."""

from __future__ import annotations

from tests.helpers.bots import custom_ids, home
from tests.helpers.hidden import labels, open_giants, type_choice
from tests.helpers.tables import session_in, showing


def _message(shown):
    """A message as Discord gives it (an interaction's response is read as one)."""
    return getattr(shown, "message", shown)


def _select_id(message, prefix: str) -> str:
    return next(cid for cid in custom_ids(_message(message)) if cid.startswith(prefix))


def _choices(message) -> list[tuple[str, str]]:
    return [(o.label, o.value) for row in _message(message).components for c in row.children
            if hasattr(c, "options") for o in c.options]


def _value(message, label: str) -> str:
    return next(value for shown, value in _choices(message) if shown == label)


async def _to_placement(env, channel, alice) -> None:
    """Bids typed in a DM, no statue taken: the human is the first to place."""
    session = session_in(env, channel)
    for _ in range(20):
        kind = session.kind()
        if kind == "place" and "red" in session.pending():
            return
        if kind == "bid":
            await type_choice(env, alice, "bid 0m")
        elif kind == "choose":
            played = await alice.slash(home(channel), "play", notation="done")
            assert played.response is not None
        else:
            raise AssertionError(kind)
    raise AssertionError("no placement")


SETTLE_WITHIN = 60.0
"""Real seconds the simulator waits for the bot to settle (its default is 5): each tap here
redraws no board, but the moves before it do, in a thread, and a busy machine is slow at it."""


async def test_a_worker_placed_by_taps_its_row_then_its_hex(simcord_env):
    env = simcord_env
    env.settle_timeout = SETTLE_WITHIN
    guild = env.create_guild()
    channel = guild.create_text_channel("taps")
    alice = guild.add_member(env.create_user("alice"))
    await open_giants(env, channel, alice, ai_seats=2, options="round_limit=1")
    await _to_placement(env, channel, alice)
    session = session_in(env, channel)
    seq = session.seq

    live = showing(env, channel)
    first = _select_id(live, f"ks:{session.id}:t:{seq}:")
    assert live.components[-1].children[0].placeholder == "What do you place?"
    groups = [label for label, _ in _choices(live)]
    assert groups[:2] == ["A worker: rows 1 and 2, G1 to I2", "A worker: rows 3 and 4, E3 to F4"]
    band = "A worker: rows 7 and 8, I7 to K8"
    assert band in groups
    opened = await alice.select(live, [_value(live, band)], custom_id=first)
    hexes = opened.response
    assert hexes is not None and hexes.ephemeral and hexes.id != live.id
    assert hexes.content == f"{band}\n**What do you place?**"
    assert [a.filename for a in hexes.attachments] == ["places.png"], \
        "the band's hexes close up, beside its options"
    assert [label for label, _ in _choices(hexes)] == [
        f"place a worker on {h}" for h in ("I7", "J7", "K7", "I8", "J8", "K8")], \
        "six hexes come as one select, each naming the whole move"
    assert labels(hexes) == ["Back"]
    assert session_in(env, channel).seq == seq, "a step plays nothing"

    back = (await alice.click(hexes, label="Back")).response
    assert back.id == hexes.id, "each tap updates the same message"
    assert band in [label for label, _ in _choices(back)]
    assert not back.attachments, "the list of bands is about the whole board: no close-up"
    hexes = (await alice.select(back, [_value(back, band)],
                                custom_id=_select_id(back, f"ks:{session.id}:e:{seq}:"))).response
    assert hexes.id == back.id

    done = await alice.select(hexes, [_value(hexes, "place a worker on K8")],
                              custom_id=_select_id(hexes, f"ks:{session.id}:e:{seq}:"))
    assert done.response.id == hexes.id
    assert done.response.content == "Played: place a worker on K8"
    assert not done.response.attachments
    assert session_in(env, channel).log[seq].line == "red place worker K8"
    assert not env.bot.unexpected_errors
