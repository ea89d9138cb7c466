"""The live table explains the seat marks beside the board: each seat's mark (the shape its
pieces carry on the picture) with its colour and its player, so that the board reads without
telling colours apart."""

from __future__ import annotations

from bot.table.live import MARKS_BETWEEN
from render.i18n import t
from render.marks import mark_symbol
from tests.helpers.bots import live_table
from tests.helpers.hidden import open_giants


async def test_the_live_table_pairs_each_seats_mark_with_its_player(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("giants")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    session = await open_giants(env, channel, alice, bob, ai_seats=1)
    embed = live_table(env, channel).embeds[0]
    [marks] = [f.value for f in embed.fields if f.name == t("bot.marks.field", "en")]
    lines = marks.splitlines()
    assert lines[0] == t("bot.marks.explain", "en")
    assert len(lines) == 2, "the seats share one line"
    seats = lines[1].split(MARKS_BETWEEN)
    assert len(seats) == len(session.seats)
    for seat, part in zip(session.seats, seats, strict=True):
        assert part.startswith(f"{mark_symbol(seat.colour)} "), part
    assert len({part.split()[0] for part in seats}) == len(session.seats), "marks differ"
    assert alice.mention in marks and bob.mention in marks
