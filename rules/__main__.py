"""``python -m rules``: replay, legal, verify, play (DESIGN.md, "The rules CLI").

Exit codes: 0 every line applied (verify: the record is fair), 1 a line was rejected (verify: the
commitment or a chance line does not match), 2 the file or game cannot be read.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from rules.ai import LEVELS, choose
from rules.core import CHANCE
from rules.ismcts import Budget
from rules.record import (
    Game,
    Header,
    RecordError,
    format_line,
    parse_header,
    replay,
    verify,
)
from rules.registry import GAME_NAMES, game_module


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def _load(path: str, keep_going: bool) -> tuple[Game, int] | int:
    """Replay the file, printing its rejections; the game and exit code, or 2 if unreadable.

    Braces in a rejection (a typed ``{``) become parentheses, so that with ``--json`` the first
    ``{`` of the output is where the view starts.
    """
    try:
        game, rejections = replay(_read(path), keep_going=keep_going)
    except (OSError, UnicodeDecodeError, RecordError) as exc:
        print(f"cannot read {path}: {exc}", file=sys.stderr)
        return 2
    for rejection in rejections:
        print(str(rejection).replace("{", "(").replace("}", ")"))
    return game, (1 if rejections else 0)


def _print_view(view: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(view, ensure_ascii=False, indent=1))
        return
    for key, value in view.items():
        print(f"{key}: {json.dumps(value, ensure_ascii=False)}")


def cmd_replay(args: argparse.Namespace) -> int:
    loaded = _load(args.file, args.keep_going)
    if isinstance(loaded, int):
        return loaded
    game, code = loaded
    _print_view(game.module.view(game.state, None), args.json)
    return code


def cmd_legal(args: argparse.Namespace) -> int:
    loaded = _load(args.file, keep_going=True)
    if isinstance(loaded, int):
        return loaded
    game, code = loaded
    seats = game.pending()
    if args.seat:
        seats = tuple(s for s in seats if s == args.seat.lower())
    for seat in seats:
        if seat == CHANCE:
            continue
        for action in game.module.legal(game.state, seat):
            print(format_line(seat, action))
    return code


def cmd_verify(args: argparse.Namespace) -> int:
    try:
        game, mismatch = verify(_read(args.file), args.commitment)
    except (OSError, UnicodeDecodeError, RecordError) as exc:
        print(f"cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    if mismatch is not None:
        print(mismatch)
        return 1
    drawn = sum(1 for line in game.lines if line.startswith(f"{CHANCE} "))
    print(f"fair: the commitment is SHA-256 of {game.module.NAME}:{game.header.seed}, and each "
          f"of the {drawn} chance line(s) is the one the seed draws")
    return 0


def _budget(args: argparse.Namespace) -> Budget | None:
    """The strong AI's budget per decision: iterations, milliseconds of this process's clock,
    or both (the first reached stops the search); neither: the search's default iterations.
    Only a budget in iterations alone gives the same record for the same seed."""
    if args.ai_iterations is None and args.ai_budget_ms is None:
        return None
    seconds = None if args.ai_budget_ms is None else args.ai_budget_ms / 1000
    return Budget(iterations=args.ai_iterations, seconds=seconds,
                  clock=time.perf_counter if seconds is not None else None)


def _positive(text: str) -> int:
    if not text.isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number, 1 or more")
    return int(text)


def cmd_play(args: argparse.Namespace) -> int:
    module = game_module(args.game)
    if not module.MIN_SEATS <= args.seats <= module.MAX_SEATS:
        print(f"{module.NAME} is for {module.MIN_SEATS}-{module.MAX_SEATS} seats", file=sys.stderr)
        return 2
    words = ["game", module.NAME, *module.COLOURS[: args.seats], *args.options]
    if args.seed:
        words.append(f"seed={args.seed}")
    try:
        header: Header = parse_header(" ".join(words))
    except RecordError as exc:
        print(f"cannot start {module.NAME}: {exc}", file=sys.stderr)
        return 2
    game = Game.start(header)
    ai_rng = random.Random(f"ai:{args.seed}")
    budget = _budget(args)
    while game.pending():
        game.draw_chance()
        for seat in game.pending():
            if seat != CHANCE:
                game.apply(seat, choose(module, game.state, seat, args.ai, ai_rng, budget))
    sys.stdout.write(game.record())
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="apply a record and print the public view")
    p.add_argument("file", help="record file, or - for standard input")
    p.add_argument("--json", action="store_true", help="print the view as JSON")
    p.add_argument("--keep-going", action="store_true", help="skip rejected lines")
    p.set_defaults(run=cmd_replay)
    p = sub.add_parser("legal", help="print the legal actions after a record")
    p.add_argument("file")
    p.add_argument("--seat", help="only this colour")
    p.set_defaults(run=cmd_legal)
    p = sub.add_parser("verify", help="check a record's chance lines against the commitment")
    p.add_argument("file", help="record file, or - for standard input")
    p.add_argument("--commitment", required=True, metavar="HEX",
                   help="the SHA-256 hex digest of <game>:<seed> shown before the game")
    p.set_defaults(run=cmd_verify)
    p = sub.add_parser("play", help="play a whole game with AI seats and print its record")
    p.add_argument("game", choices=GAME_NAMES)
    p.add_argument("--seats", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ai", choices=LEVELS, default="random")
    p.add_argument("--ai-iterations", type=_positive, metavar="N",
                   help="strong AI: search iterations per decision (repeatable for a seed)")
    p.add_argument("--ai-budget-ms", type=_positive, metavar="MS",
                   help="strong AI: milliseconds per decision (not repeatable)")
    p.add_argument("options", nargs="*", metavar="OPTION=VALUE")
    p.set_defaults(run=cmd_play)
    args, extra = parser.parse_known_args(argv)
    if extra and (args.command != "play" or not all("=" in word for word in extra)):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.options = [*getattr(args, "options", []), *extra]
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
