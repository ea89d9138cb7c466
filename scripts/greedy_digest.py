"""Digests of greedy-against-greedy game records, to prove a speed-up changed no decision.

    python scripts/greedy_digest.py giants --seeds 20            # print the digests
    python scripts/greedy_digest.py giants --seeds 20 --check F  # compare with file F

A change meant to make the greedy AI faster must leave every game it plays the same: the same
seeds give the same records, move for move, so their digests agree.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.ai_match import play


def digests(game: str, seats: int, seeds: range) -> dict[str, str]:
    """The SHA-256 of each greedy game's record, by seed."""
    out = {}
    for seed in seeds:
        record = play(game, seats, None, seed, [], "greedy", "greedy").record()
        out[str(seed)] = hashlib.sha256(record.encode()).hexdigest()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game")
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--check", type=Path, default=None,
                        help="a JSON file of digests by seed that must match")
    args = parser.parse_args()
    found = digests(args.game, args.seats, range(args.seeds))
    if args.check is None:
        print(json.dumps(found, indent=1))
        return 0
    expected = json.loads(args.check.read_text())
    differ = [s for s in found if expected.get(s) != found[s]]
    print("differ: " + ", ".join(differ) if differ else f"{len(found)} records agree")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
