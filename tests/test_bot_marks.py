"""The live table names each seat by its mark as well as its colour: one players' line beside
the board gives each seat's mark (the shape its pieces carry on the picture), colour, player and
score, so that the board reads without telling colours apart; the sentence explaining the marks
is in ``/game help``, which a player reads once."""

from __future__ import annotations

from bot.table.live import MARKS_BETWEEN
from render.i18n import t
from render.marks import mark_symbol
from tests.helpers.bots import embed_of, home, live_table
from tests.helpers.hidden import open_giants


async def test_the_live_table_pairs_each_seats_mark_with_its_player(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("giants")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    session = await open_giants(env, channel, alice, bob, ai_seats=1)
    embed = live_table(env, channel).embeds[0]
    names = [f.name for f in embed.fields]
    assert t("bot.marks.field", "en") not in names, "the marks share the players' line"
    assert "Scores" not in names
    [players] = [f.value for f in embed.fields
                 if f.name == t("bot.compact.players_points", "en")]
    assert "Players (mark): points" in names, "the unit named once"
    assert len(players.splitlines()) == 1, "the seats share one line"
    seats = players.split(MARKS_BETWEEN)
    assert len(seats) == len(session.seats)
    for seat, part in zip(session.seats, seats, strict=True):
        assert part.startswith(f"{mark_symbol(seat.colour)} **"), part
        assert part.endswith(") 0"), "each seat's score beside its mark"
    assert len({part.split()[0] for part in seats}) == len(session.seats), "marks differ"
    assert seats[0] == "● **Red** (alice) 0"
    assert seats[1] == "■ **Blue** (bob) 0"
    assert seats[2] == "✚ **Green** (AI, standard) 0", "an AI seat says its level"
    assert alice.mention not in players, "names, not mentions (an embed shows a raw number)"
    assert embed.description.startswith("Now: ● **Red**, ■ **Blue**, sealed bids."), \
        "the status names the seats by mark too (several: the players' line says who)"


async def test_help_explains_the_marks_once(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("giants")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    session = await open_giants(env, channel, alice, bob, ai_seats=1)
    asked = embed_of(await alice.slash(home(channel), "game help"))
    [marks] = [f.value for f in asked.fields if f.name == t("bot.marks.field", "en")]
    lines = marks.splitlines()
    assert lines[0] == t("bot.marks.explain", "en")
    assert lines[1].split(MARKS_BETWEEN) == [
        f"{mark_symbol(s.colour)} {part}" for s, part in zip(
            session.seats, ("**Red** (alice)", "**Blue** (bob)", "**Green** (AI, standard)"),
            strict=True)]
