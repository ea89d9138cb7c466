"""Every decision by taps (issue 32), through Discord: the live table offers the first step to the
player whose turn it is, each tap answers with the next step in a message only they see (updated
in place), Back goes one step back, and the last tap names the move in words and plays it through
the same checks as /play. A chooser survives a restart; an outdated one is refused in words; a
secret decision's DM prompt is made by the same steps."""

from __future__ import annotations

import pytest

from bot.games import Button, Select, StaleChoice, game_ui
from bot.table.steps import chooser, claimed, decode, tapped
from tests.helpers.bots import close_dms, custom_ids, dm_prompt, home
from tests.helpers.tables import ephemeral_text, open_game, session_in, showing, start

PLACES = [f"place {h} {n}" for h in ("A1", "B1", "B2") for n in (1, 2)] + ["withdraw C1"]


# --- the components of a step (no Discord) ---------------------------------------------------

def test_the_table_shows_the_first_step_as_one_select_without_back() -> None:
    shown = chooser(game_ui("makemake"), "domination", PLACES, [], "en", first=True)
    [select] = shown.components
    assert isinstance(select, Select) and select.op == "step" and select.arg == ""
    assert select.placeholder == "Where do you place or withdraw?"
    assert [(c.label, c.value) for c in select.choices] == [
        ("Place on A1", "0:place A1"), ("Place on B1", "1:place B1"),
        ("Place on B2", "2:place B2"), ("withdraw from C1 (one token stays)", "3:withdraw C1")]


def test_a_small_step_is_buttons_with_back_and_a_last_tap_names_the_move() -> None:
    shown = chooser(game_ui("makemake"), "domination", PLACES, [1], "en")
    assert shown.text == "How many on B1?" and not shown.notation
    assert shown.message() == "Place on B1\n**How many on B1?**"
    assert [(b.op, b.label, b.arg, b.style) for b in shown.components
            if isinstance(b, Button)] == [
        ("step", "place 1 token on B1", "1.0:1", "success"),
        ("step", "place 2 tokens on B1", "1.1:2", "success"),
        ("back", "Back", "", "secondary")]
    played = chooser(game_ui("makemake"), "domination", PLACES, [1, 1], "en")
    assert (played.notation, played.words) == ("place B1 2", "place 2 tokens on B1")


def test_a_tap_whose_part_is_not_the_one_shown_is_outdated() -> None:
    """Taps are numbers: the part each was shown with is checked, so that taps made on one list
    of legal moves never play another move from another list."""
    ui = game_ui("makemake")
    assert chooser(ui, "domination", PLACES, [1], "en", part="place B1").text == \
        "How many on B1?"
    with pytest.raises(StaleChoice):
        chooser(ui, "domination", PLACES, [1], "en", part="place B2")
    assert claimed("1.0:2 chief", None) == "2 chief" and claimed("1", None) is None
    assert claimed("", "3:withdraw C1") == "withdraw C1" and claimed("", "2:") == ""


def test_taps_come_from_the_custom_id_and_the_option_picked() -> None:
    assert tapped("1.0:1", None) == [1, 0]
    assert tapped("", "3:withdraw C1") == [3]
    assert tapped("2", "0:") == [2, 0]
    assert tapped("x", None) is None and tapped("", "no") is None
    assert decode(".".join(["1"] * 40)) is None


# --- through Discord --------------------------------------------------------------------------

def _message(shown):
    """A message as Discord gives it (an interaction's response is read as one)."""
    return getattr(shown, "message", shown)


def _select_id(message, prefix: str) -> str:
    return next(cid for cid in custom_ids(_message(message)) if cid.startswith(prefix))


def _choices(message) -> list[tuple[str, str]]:
    return [(o.label, o.value) for row in _message(message).components for c in row.children
            if hasattr(c, "options") for o in c.options]


async def _red_to_play(env):
    guild = env.create_guild()
    channel = guild.create_text_channel("taps")
    alice = guild.add_member(env.create_user("alice"))
    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    return channel, alice


async def test_a_placement_by_taps_with_back(simcord_env):
    env = simcord_env
    channel, alice = await _red_to_play(env)
    session = session_in(env, channel)
    seq = session.seq
    live = showing(env, channel)
    first = _select_id(live, f"ks:{session.id}:t:{seq}:")
    assert [label for label, _ in _choices(live)] == [f"Row {r}" for r in "ABCDE"]

    opened = await alice.select(live, ["1:"], custom_id=first)  # Row B
    step = opened.response
    assert step is not None and step.ephemeral and step.id != live.id
    assert step.content == "Row B\n**Where do you place or withdraw?**"
    assert [label for label, _ in _choices(step)][:2] == ["Place on B1", "Place on B2"]
    assert session_in(env, channel).seq == seq, "a step plays nothing"

    hexes = _select_id(step, f"ks:{session.id}:e:{seq}:1")
    amounts = (await alice.select(step, ["1:place B2"], custom_id=hexes)).response
    assert amounts.id == step.id, "each tap updates the same message"
    assert amounts.content == "Row B › Place on B2\n**How many on B2?**"
    assert ("place 3 tokens and the chief on B2", "5:3 chief") in _choices(amounts)

    back = (await alice.click(amounts, label="Back")).response
    assert back.id == step.id and back.content == "Row B\n**Where do you place or withdraw?**"
    assert [label for label, _ in _choices(back)][:2] == ["Place on B1", "Place on B2"]

    hexes = _select_id(back, f"ks:{session.id}:e:{seq}:1")
    amounts = (await alice.select(back, ["1:place B2"], custom_id=hexes)).response
    chosen = _select_id(amounts, f"ks:{session.id}:e:{seq}:1.1")
    done = await alice.select(amounts, ["5:3 chief"], custom_id=chosen)
    assert done.response.id == step.id
    assert done.response.content == "Played: place 3 tokens and the chief on B2"
    assert not done.response.components
    assert session_in(env, channel).log[seq].line == "red place B2 3 chief"
    assert not env.bot.unexpected_errors


async def test_an_outdated_chooser_is_refused_in_words(simcord_env):
    env = simcord_env
    channel, alice = await _red_to_play(env)
    session = session_in(env, channel)
    seq = session.seq
    live = showing(env, channel)
    first = _select_id(live, f"ks:{session.id}:t:{seq}:")
    step = (await alice.select(live, ["4:"], custom_id=first)).response
    played = await alice.slash(home(channel), "play", notation="place A1 1")
    assert ephemeral_text(played).startswith("Played")
    assert session_in(env, channel).seq > seq

    hexes = _select_id(step, f"ks:{session.id}:e:{seq}:4")
    stale = await alice.select(step, ["0:place E1"], custom_id=hexes)
    assert stale.response.id == step.id
    assert stale.response.content.startswith("This choice is out of date")
    assert not stale.response.components
    assert session_in(env, channel).log[seq].line == "red place A1 1"
    assert not env.bot.unexpected_errors


async def test_a_choice_by_taps_survives_a_restart(simcord_env, new_bot):
    env = simcord_env
    channel, alice = await _red_to_play(env)
    session = session_in(env, channel)
    seq = session.seq
    live = showing(env, channel)
    step = (await alice.select(live, ["4:"], custom_id=_select_id(live, "ks:"))).response
    amounts = (await alice.select(step, ["0:place E1"],
                                  custom_id=_select_id(step, "ks:"))).response
    assert amounts.content == "Row E › Place on E1\n**How many on E1?**"

    await env.restart_bot(new_bot())
    done = await alice.select(amounts, ["0:1"], custom_id=_select_id(amounts, "ks:"))
    assert done.response.content == "Played: place 1 token on E1"
    assert session_in(env, channel).log[seq].line == "red place E1 1"
    assert not env.bot.unexpected_errors


async def test_a_secret_decision_by_taps_in_a_dm(simcord_env, monkeypatch):
    """A game whose placement were secret: the DM prompt holds the same steps, each tap edits
    it in place, and the last one hands the choice in."""
    monkeypatch.setattr(game_ui("makemake"), "private_kinds", frozenset({"domination"}))
    env = simcord_env
    channel, alice = await _red_to_play(env)
    session = session_in(env, channel)
    turn, seq = session.turns("red"), session.seq
    prompt = dm_prompt(env, alice)
    assert prompt is not None
    assert custom_ids(prompt) == [f"k:{session.id}:red:{turn}:s:{i}" for i in range(5)]
    step = (await alice.user.click(prompt, label="Row C")).response
    assert step.id == prompt.id and "Where do you place or withdraw?" in step.content
    hexes = _select_id(step, f"ks:{session.id}:red:{turn}:2")
    amounts = (await alice.user.select(step, ["0:place C1"], custom_id=hexes)).response
    assert amounts.id == prompt.id and "How many on C1?" in amounts.content
    back = (await alice.user.click(amounts, label="Back")).response
    assert "Where do you place or withdraw?" in back.content
    amounts = (await alice.user.select(back, ["0:place C1"], custom_id=hexes)).response
    done = await alice.user.select(amounts, ["1:1 chief"],
                                   custom_id=_select_id(amounts, f"ks:{session.id}:red:"))
    assert session_in(env, channel).log[seq].line == "red place C1 1 chief"
    assert done.response.id == prompt.id and not done.response.components
    assert done.response.content.startswith("✅ Handed in for game")
    assert not env.bot.unexpected_errors


@pytest.fixture(autouse=True)
def _english_users():
    """The simulator's users speak English (the default locale)."""
    yield


async def test_only_the_player_whose_turn_it_is_may_tap(simcord_env):
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("turns")
    alice, bob = (guild.add_member(env.create_user(n)) for n in ("alice", "bob"))
    lobby = await open_game(env, channel, alice, bob, ai_seats=1)
    await start(env, channel, alice, lobby)
    session = session_in(env, channel)
    seq = session.seq
    live = showing(env, channel)
    refused = await bob.select(live, ["1:"], custom_id=_select_id(live, "ks:"))
    assert "not your turn" in ephemeral_text(refused)
    assert session_in(env, channel).seq == seq
    assert not env.bot.unexpected_errors


async def test_a_secret_decision_by_taps_in_the_private_view(simcord_env, monkeypatch):
    """Closed DMs: the table's 🔒 shows the same steps in a message only the player sees,
    updated in place by each tap, and the last tap hands the choice in."""
    monkeypatch.setattr(game_ui("makemake"), "private_kinds", frozenset({"domination"}))
    env = simcord_env
    guild = env.create_guild()
    channel = guild.create_text_channel("closed")
    alice = guild.add_member(env.create_user("alice"))
    close_dms(env, alice)
    lobby = await open_game(env, channel, alice, ai_seats=2)
    await start(env, channel, alice, lobby)
    session = session_in(env, channel)
    seq, turn = session.seq, session.turns("red")
    live = showing(env, channel)
    opened = await alice.click(live, custom_id=f"t:{session.id}:{seq}:open")
    shown = (opened.followups or [opened.response])[-1]
    assert shown.ephemeral
    assert custom_ids(_message(shown)) == [f"k:{session.id}:red:{turn}:s:{i}" for i in range(5)]
    step = (await alice.click(shown, label="Row D")).response
    assert step.id == shown.id and "Where do you place or withdraw?" in step.content
    amounts = (await alice.select(step, ["7:place D8"],
                                  custom_id=_select_id(step, f"ks:{session.id}:red:"))).response
    assert "How many on D8?" in amounts.content
    await alice.select(amounts, ["0:1"], custom_id=_select_id(amounts, "ks:"))
    assert session_in(env, channel).log[seq].line == "red place D8 1"
    assert not env.bot.unexpected_errors
