"""Provably fair chance: one derivation of every chance line from the seed (``rules.fair``),
shared by ``python -m rules play``, a replay that leaves chance lines out, and ``verify``."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from rules.__main__ import main
from rules.core import CHANCE
from rules.fair import chance_rng, commitment, draw
from rules.record import Game, parse_header, replay, verify
from rules.registry import game_module

SEED = 987654321987654321


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def played(capsys: pytest.CaptureFixture[str], game: str, seats: int, seed: int) -> str:
    assert main(["play", game, "--seats", str(seats), "--seed", str(seed)]) == 0
    return capsys.readouterr().out


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_the_commitment_is_the_sha256_of_game_and_seed() -> None:
    assert commitment("giants", 1234) == digest("giants:1234")
    assert commitment("giants", SEED) == \
        "797b6d713dcd14e75a61d2cb4c6095b7c4d12fa5b4f9a5c1ea15c02d0da8922e"
    assert commitment("giganten", 1234) != commitment("giants", 1234)


def test_a_chance_line_depends_only_on_the_seed_and_the_position() -> None:
    assert chance_rng(SEED, 3).random() == chance_rng(SEED, 3).random()
    assert chance_rng(SEED, 3).random() != chance_rng(SEED, 4).random()
    module = game_module("giganten")
    game = Game.start(parse_header(f"game giganten red grey blue seed={SEED}"))
    assert game.pending() == (CHANCE,)
    assert draw(module, game.state, SEED, 0) == game.next_chance()
    assert str(draw(module, game.state, SEED, 0)) != str(draw(module, game.state, SEED + 1, 0))


def test_played_giants_verifies_and_a_changed_dice_line_does_not(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The issue's own check, through the shell: play, verify (0), change one die (1)."""
    record = tmp_path / "g.txt"
    with record.open("w") as out:
        done = subprocess.run([sys.executable, "-m", "rules", "play", "giants", "--seats", "3",
                               "--seed", str(SEED)], stdout=out, check=False)
    assert done.returncode == 0
    text = record.read_text()
    assert text.splitlines()[0] == f"game giants red blue green seed={SEED}"
    hexdigest = digest(f"giants:{SEED}")
    ok = subprocess.run([sys.executable, "-m", "rules", "verify", str(record), "--commitment",
                         hexdigest], capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stdout
    assert ok.stdout.startswith("fair: ")

    lines = text.splitlines()
    index = next(i for i, line in enumerate(lines) if i > 10 and line.startswith("* dice "))
    faces = lines[index].split()[2:]
    faces[0] = "1" if faces[0] != "1" else "2"
    changed = [*lines[:index], " ".join(["*", "dice", *faces]), *lines[index + 1:]]
    record.write_text("\n".join(changed) + "\n")
    bad = subprocess.run([sys.executable, "-m", "rules", "verify", str(record), "--commitment",
                          hexdigest], capture_output=True, text=True, check=False)
    assert bad.returncode == 1
    assert bad.stdout.startswith(f"line {index + 1}: the seed draws `{lines[index]}`, not "
                                 f"`* dice {' '.join(faces)}`"), bad.stdout


def test_verify_refuses_a_wrong_commitment_and_reads_nothing_unreadable(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "g.txt"
    path.write_text("# a comment\n" + played(capsys, "giants", 3, SEED))
    code, out = cli(capsys, "verify", str(path), "--commitment", digest(f"giants:{SEED + 1}"))
    assert code == 1 and out.startswith(f"line 2: SHA-256 of giants:{SEED} is ")
    code, out = cli(capsys, "verify", str(path), "--commitment", digest(f"giants:{SEED}").upper())
    assert code == 0, out
    code, out = cli(capsys, "verify", str(tmp_path / "missing.txt"), "--commitment", "00")
    assert code == 2 and out == ""
    path.write_text("game chess white black\n")
    assert cli(capsys, "verify", str(path), "--commitment", "00")[0] == 2


@pytest.mark.parametrize("game", ["giants", "giganten"])
def test_every_kind_of_chance_line_is_checked(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path, game: str) -> None:
    """Each chance line of a played game, changed to another outcome the rules allow, is
    named by verify; the lines around it are untouched."""
    text = played(capsys, game, 3, 42)
    hexdigest = digest(f"{game}:42")
    path = tmp_path / "g.txt"
    path.write_text(text)
    assert cli(capsys, "verify", str(path), "--commitment", hexdigest)[0] == 0
    lines = text.splitlines()
    other = Game.start(parse_header(lines[0].replace("seed=42", "seed=43")))
    changed_kinds = set()
    for number, line in enumerate(lines[1:], start=2):
        if not line.startswith("* "):
            other.apply_text(line)
            continue
        alternative = f"* {other.next_chance()}"  # what another seed draws here
        other.apply_text(line)
        kind = line.split()[1]
        if alternative == line or kind in changed_kinds:
            continue
        changed_kinds.add(kind)
        path.write_text("\n".join([*lines[:number - 1], alternative, *lines[number:]]) + "\n")
        code, out = cli(capsys, "verify", str(path), "--commitment", hexdigest)
        assert code == 1 and out.startswith(f"line {number}: the seed draws "), (line, out)
    expected = {"giants": {"dice"}, "giganten": {"tiles", "prices", "reveal", "licences"}}
    assert expected[game] <= changed_kinds


@pytest.mark.parametrize(("game", "seats"), [("giants", 4), ("giganten", 3)])
def test_a_record_without_its_chance_lines_replays_to_the_same_game(
        capsys: pytest.CaptureFixture[str], game: str, seats: int) -> None:
    """``play`` and a replay that draws the omitted chance lines share one derivation."""
    text = played(capsys, game, seats, SEED)
    head, *lines = text.splitlines()
    bare = "\n".join([head, *(line for line in lines if not line.startswith("* "))]) + "\n"
    again, rejections = replay(bare)
    assert not rejections
    again.draw_chance()  # a replay draws none after the last line: those are the seed's too
    assert again.record() == text
    checked, mismatch = verify(bare, commitment(game, SEED))
    assert mismatch is None and checked.lines == again.lines[:len(checked.lines)]


def test_the_spec_example_of_giants_dice_from_a_seed_still_holds() -> None:
    """Giants pins its dice rule (spec 10.6): the shared derivation leaves it as it is."""
    game, rejections = replay((Path(__file__).parent / "records" / "giants" /
                               "dice_seed_10_6.txt").read_text())
    assert not rejections
    assert game.lines[0] == "* dice 2 0 2 2"
