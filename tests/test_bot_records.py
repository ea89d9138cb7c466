"""``/game record`` and fair dice on Discord: the record so far as a private file, every secret
masked as the engine's public view masks it (twin games that differ in one secret give the
same file until the end), the complete record with its seed at the end, and the commitment the
lobby card shows from the start, which the finished record verifies against."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import simcord

import bot.adapter.outbox
import rules.fair
from bot.settings import random_seed
from rules.__main__ import main as rules_cli
from rules.fair import commitment
from rules.giganten.actions import Licences, Tiles
from rules.giganten.board import TILE_TYPE
from tests.helpers.bots import (
    Bots,
    dm_messages,
    home,
    make_settings,
    table_messages,
)
from tests.helpers.giganten_table import small_board
from tests.helpers.hidden import bid_in_dm, open_giants, session_in, texts, type_choice

SECRET = 2**127 + 2**64 + 12345
"""A seed as the bot draws them: 128 bits, more than SQLite's INTEGER holds."""
COMMITMENT = "🎲 Dice commitment"
DIGEST = re.compile(r"`([0-9a-f]{64})`")


# --- helpers ---------------------------------------------------------------------------------

def fair_settings(path: Path, seed: int = SECRET):
    made = make_settings(path)
    made.seed_source = lambda: seed
    return made


async def record_of(member, place) -> tuple[str, str, str]:
    """``/game record`` typed by ``member`` in ``place``: the answer's words, the file's name
    and its text. The answer must be private."""
    result = await member.slash(place, "game record")
    message = (result.followups or [result.response])[-1]
    assert message is not None and message.ephemeral, result
    files = message.attachments
    assert len(files) == 1, message.content
    return message.content, files[0].filename, (await files[0].read()).decode("utf-8")


async def refused(member, place) -> str:
    result = await member.slash(place, "game record")
    message = (result.followups or [result.response])[-1]
    assert message is not None and message.ephemeral and not message.attachments
    return message.content


def card(channel):
    """The game's lobby card (the newest one in the channel)."""
    return [m for m in channel.history() if m.embeds
            and m.embeds[0].title.split(": ")[-1] in ("new game", "started", "finished",
                                                      "aborted")][-1]


def shown_commitment(channel) -> tuple[str, str]:
    """The digest on the lobby card and the words around it."""
    [value] = [f.value for f in card(channel).embeds[0].fields if f.name == COMMITMENT]
    found = DIGEST.match(value)
    assert found, value
    return found[1], value


async def run_out_the_clock(env, session, most: int = 600) -> None:
    """The humans on a turn timer never act again: the AI plays each of their turns when the
    time runs out, until the game ends."""
    clock, tick = env.bot.settings.clock, env.bot.settings.timer_tick
    for _ in range(most):
        if session.status != "running":
            return
        clock.advance(61)
        await env.advance_time(tick)
    raise AssertionError("the game did not end")


async def final_record(env, channel, session) -> str:
    [final] = [m for m in table_messages(env, channel) if m.attachments
               and m.attachments[0].filename == f"{session.row.game}-{session.id}.txt"]
    return (await final.attachments[0].read()).decode("utf-8")


def verify(tmp_path: Path, record: str, digest: str) -> int:
    path = tmp_path / "record.txt"
    path.write_text(record, encoding="utf-8")
    return rules_cli(["verify", str(path), "--commitment", digest])


# --- fair dice -------------------------------------------------------------------------------

def test_the_bot_draws_128_bit_seeds() -> None:
    seeds = [random_seed() for _ in range(8)]
    assert all(0 <= s < 2**128 for s in seeds) and max(seeds) >= 2**64
    assert len(set(seeds)) == len(seeds)


async def test_a_giants_game_on_discord_verifies_against_the_commitment_its_card_showed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bots = Bots(fair_settings(tmp_path / "fair.sqlite3"))
    try:
        async with simcord.run(bots()) as env:
            guild = env.create_guild()
            channel = guild.create_text_channel("fair")
            alice, dan = (guild.add_member(env.create_user(n)) for n in ("alice", "dan"))
            session = await open_giants(env, channel, alice, ai_seats=2, turn_minutes=1)
            thread = home(channel)
            digest, words = shown_commitment(channel)
            assert digest == commitment("giants", SECRET) == session.commitment
            assert "SHA-256 of `giants:<seed>`" in words
            assert f"python -m rules verify giants-{session.id}.txt --commitment" in words
            public = "\n".join(texts(env, channel))
            assert str(SECRET) not in public and "seed=" not in public
            assert not [m for m in dm_messages(env, alice) if str(SECRET) in m.content]

            await type_choice(env, alice, "bid 1m")
            note, name, live = await record_of(dan, thread)
            assert name == f"giants-{session.id}.txt" and "so far" in note
            assert str(SECRET) not in live and "seed=" not in live
            assert live.startswith("game giants red blue green round_limit=2\n* dice ")

            await run_out_the_clock(env, session)
            assert session.status == "finished"
            record = await final_record(env, channel, session)
            assert record.splitlines()[0] == f"game giants red blue green round_limit=2 " \
                                             f"seed={SECRET}"
            capsys.readouterr()
            assert verify(tmp_path, record, digest) == 0, capsys.readouterr().out
            assert capsys.readouterr().out.startswith(f"fair: the commitment is SHA-256 of "
                                                      f"giants:{SECRET}")
            lines = record.splitlines()
            dice = next(i for i, line in enumerate(lines) if i > 1 and line.startswith("* dice"))
            faces = lines[dice].split()
            faces[2] = "1" if faces[2] != "1" else "2"
            lines[dice] = " ".join(faces)
            assert verify(tmp_path, "\n".join(lines) + "\n", digest) == 1
            assert capsys.readouterr().out.startswith(f"line {dice + 1}: the seed draws ")

            digest_after, words = shown_commitment(channel)
            assert digest_after == digest and f"The seed was `{SECRET}`" in words
            note, _, complete = await record_of(dan, thread)
            assert complete == record and "complete record" in note
            assert f"--commitment {digest}" in note
            assert (await record_of(alice, channel))[2] == record, "the channel's latest game"
            assert not env.bot.unexpected_errors
    finally:
        await bots.close()


async def test_make_make_has_no_dice_to_commit_to(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("makemake")
    alice = guild.add_member(env.create_user("alice"))
    lobby = (await alice.slash(channel, "game new", game="makemake")).response
    for _ in range(2):
        await alice.click(lobby, label="Add AI")
    await alice.click(lobby, label="Start")
    assert card(channel).embeds[0].title == "Make Make: started"
    assert COMMITMENT not in [f.name for f in card(channel).embeds[0].fields]
    _, name, live = await record_of(alice, home(channel))
    assert name.startswith("makemake-") and live.startswith("game makemake red blue green\n")


# --- /game record ----------------------------------------------------------------------------

async def test_record_refusals_an_aborted_game_and_the_latest_game_of_a_channel(
        simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("records")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    assert "No game has started in this channel yet" in await refused(bob, channel)
    lobby = (await alice.slash(channel, "game new", game="giants")).response
    assert "No game has started" in await refused(bob, channel), "a lobby has no record"
    await bob.click(lobby, label="Join")
    await alice.click(lobby, label="Add AI")
    await alice.click(lobby, label="Start")
    session = session_in(env, channel)
    thread = home(channel)
    note, _, live = await record_of(bob, thread)
    assert live.startswith("game giants red blue green\n* dice ") and "seed=" not in live
    assert (await record_of(bob, channel))[2] == live, "from the lobby's channel too"
    await bid_in_dm(env, alice, 2, chief=True)
    assert "red bid ?" in (await record_of(bob, thread))[2]
    assert "red bid ?" in (await record_of(alice, thread))[2], \
        "the bidder gets the public record like everyone"

    aborted = await alice.slash(thread, "game abort")
    assert aborted.response is not None and "aborted" in aborted.response.content
    note, name, after = await record_of(bob, thread)
    assert "aborted" in note and name == f"giants-{session.id}.txt"
    assert "red bid ?" in after and "2m" not in after and "seed=" not in after
    digest, words = shown_commitment(channel)
    assert words == f"`{digest}`", "an aborted game keeps its seed"

    await alice.slash(channel, "game new", game="giants")  # a new lobby in the same channel
    assert (await record_of(bob, channel))[2] == after, "the latest game that started here"
    assert not env.bot.unexpected_errors


async def giants_twin(tmp_path: Path, name: str, red_bid: dict[str, Any]) -> dict[str, Any]:
    """A Giants game where Red's sealed bid is the only difference between twins: the record
    files that a player and a spectator get before and after the reveal."""
    bots = Bots(make_settings(tmp_path / f"{name}.sqlite3"))
    out: dict[str, Any] = {}
    try:
        async with simcord.run(bots()) as env:
            guild = env.create_guild()
            channel = guild.create_text_channel("twins")
            alice, bob, cleo, dan = (guild.add_member(env.create_user(n))
                                     for n in ("alice", "bob", "cleo", "dan"))
            session = await open_giants(env, channel, alice, bob, cleo, ai_seats=1)
            thread = home(channel)
            await bid_in_dm(env, alice, **red_bid)
            await type_choice(env, bob, "bid 1m 1w sorcerer")
            out["before"] = [await record_of(who, thread) for who in (alice, cleo, dan)]
            out["lines"] = list(session.game.lines)
            await type_choice(env, cleo, "bid 0m")
            assert session.kind() != "bid"
            out["after"] = await record_of(dan, thread)
            assert not env.bot.unexpected_errors
    finally:
        await bots.close()
    return out


async def test_giants_twins_differing_in_one_bid_get_the_same_record_until_the_reveal(
        tmp_path: Path) -> None:
    one = await giants_twin(tmp_path, "one", {"markers": 2, "chief": True})
    two = await giants_twin(tmp_path, "two", {"markers": 1})
    assert "red bid 2m chief" in one["lines"] and "red bid 1m" in two["lines"]
    assert one["before"] == two["before"], "a record file tells the twins apart"
    assert len({text for _, _, text in one["before"]}) == 1, "the same file for everyone"
    _, _, record = one["before"][0]
    assert "red bid ?" in record and "blue bid ?" in record and "yellow bid ?" in record
    assert "sorcerer" not in record and "chief" not in record and "seed=" not in record
    assert one["after"] != two["after"]
    assert "red bid 2m chief" in one["after"][2] and "red bid 1m\n" in two["after"][2]


def swap_two_tiles(action: Tiles) -> Tiles:
    """The same tiles with two values of one type swapped: the last two spaces of a type (in
    board order) that hold different values, far from the trucks' start."""
    tiles = list(action.tiles)
    for first in reversed(range(len(tiles))):
        for second in reversed(range(first)):
            (a, x), (b, y) = tiles[first], tiles[second]
            if TILE_TYPE[a] == TILE_TYPE[b] and x != y:
                tiles[first], tiles[second] = (a, y), (b, x)
                return Tiles(tuple(tiles))
    raise AssertionError("no two tiles to swap")


def another_deal(action: Licences) -> Licences:
    """Red's deal with one licence of the other value."""
    values = list(action.values)
    values[0] = 2 if values[0] == 1 else 1
    return Licences(action.seat, tuple(sorted(values)))


def alice_move(session) -> str:
    """Alice's move, the same in both twins: done or pass when she may, else the first legal
    move (she never needs her secrets for it before the comparisons end)."""
    legal = [str(a) for a in session.legal("red")]
    return next((m for m in ("done", "pass") if m in legal), legal[0])


async def giganten_twin(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch,
                        change: str | None) -> dict[str, Any]:
    """A Giganten game of Alice (red) and two AI seats. With ``change``, the host's draw is
    changed once, as a host that cheated would: ``tiles`` swaps two tile values (one secret
    for the whole game), ``licence`` gives Red a licence of the other value in her first deal
    (later deals may follow from that). Gives the record files of a player and a spectator at
    Alice's first decisions, and the complete record at the end."""
    real = rules.fair.draw
    changed: list[str] = []

    def draw(module, state, seed, seq):
        action = real(module, state, seed, seq)
        if change == "tiles" and isinstance(action, Tiles) and not changed:
            action = swap_two_tiles(action)
        elif change == "licence" and isinstance(action, Licences) and action.seat == "red" \
                and not changed:
            action = another_deal(action)
        else:
            return action
        changed.append(f"* {action}")
        return action

    monkeypatch.setitem(bot.adapter.outbox.RENDERERS, "giganten", small_board)
    bots = Bots(fair_settings(tmp_path / f"{name}.sqlite3"))
    out: dict[str, Any] = {"live": []}
    try:
        with monkeypatch.context() as patch:
            patch.setattr(rules.fair, "draw", draw)
            async with simcord.run(bots()) as env:
                guild = env.create_guild()
                channel = guild.create_text_channel("oil")
                alice, dan = (guild.add_member(env.create_user(n)) for n in ("alice", "dan"))
                lobby = (await alice.slash(channel, "game new", game="giganten",
                                           turn_minutes=1)).response
                for _ in range(2):
                    await alice.click(lobby, label="Add AI")
                await alice.click(lobby, label="Start")
                session = session_in(env, channel)
                thread = home(channel)
                out["digest"] = shown_commitment(channel)[0]
                while len(out["live"]) < 8 and session.status == "running":
                    assert session.pending() == ("red",)
                    mine = await record_of(alice, thread)
                    assert await record_of(dan, thread) == mine, "one record for everyone"
                    out["live"].append(mine[2])
                    played = await alice.slash(thread, "play", notation=alice_move(session))
                    answer = (played.followups or [played.response])[-1]
                    assert answer is not None and answer.content.startswith("Played: "), \
                        answer.content if answer else played
                out["state"] = session.game.state
                out["changed"] = list(changed)
                await run_out_the_clock(env, session)
                out["final"] = await final_record(env, channel, session)
                out["asked"] = (await record_of(dan, thread))[2]
                assert not env.bot.unexpected_errors
    finally:
        await bots.close()
    return out


FAIR_TWIN: dict[str, Any] = {}


@pytest.mark.parametrize("change", ["tiles", "licence"])
async def test_giganten_twins_differing_in_one_secret_get_the_same_record_until_the_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        change: str) -> None:
    if not FAIR_TWIN:  # the same fair game for both changes
        FAIR_TWIN.update(await giganten_twin(tmp_path, "fair", monkeypatch, None))
    fair = FAIR_TWIN
    other = await giganten_twin(tmp_path, "other", monkeypatch, change)
    [line] = other["changed"]
    ours, theirs = fair["final"].splitlines(), other["final"].splitlines()
    index = next(i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b)
    assert theirs[index] == line, "the first difference is the one changed secret"
    if change == "tiles":
        swapped = [a.split("=")[0] for a, b in zip(ours[index].split(), line.split(),
                                                   strict=True) if a != b]
        assert len(swapped) == 2, swapped
        assert all(fair["state"].spaces[s]["state"] == "hidden" for s in swapped), \
            "the swapped tiles are still face down at the last comparison"
    if change == "licence":
        assert any(row.startswith("* licences red ") for row in fair["live"][-1].splitlines()), \
            "Alice's deal came before the last comparison"
    assert len(fair["live"]) == len(other["live"]) > 3, "Alice made several moves"
    assert fair["live"] == other["live"], "a live record tells the twins apart"
    for record in fair["live"]:
        assert "seed=" not in record
        for row in record.splitlines()[1:]:
            words = row.split()
            if words[:2] == ["*", "licences"]:
                assert set(words[3:]) == {"?"}, row
            if words[:2] == ["*", "tiles"]:  # a built tile's value is public
                built = {w[2] for w in map(str.split, record.splitlines()) if len(w) == 3
                         and w[1] == "build"}
                shown = {e.split("=")[0] for e in words[2:] if not e.endswith("=?")}
                assert shown <= built, (shown, built)
    assert fair["final"] != other["final"], "after the end the records differ"
    assert fair["asked"] == fair["final"] and other["asked"] == other["final"]
    assert fair["digest"] == other["digest"] == commitment("giganten", SECRET)
    capsys.readouterr()
    assert verify(tmp_path, fair["final"], fair["digest"]) == 0
    capsys.readouterr()
    assert verify(tmp_path, other["final"], other["digest"]) == 1, "a cheating host is caught"
    assert capsys.readouterr().out.startswith(f"line {index + 1}: the seed draws `{ours[index]}`")
