"""Event files that once held the site's workers (issue 11), and a large valid one.

Shared by the tests (which check what the import answers) and ``tests/bench.py --event-files``
(which times it). Each is built from the NVSO example: Game 1 at four tables, the Final, a
bronze playoff still to play.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

BASE_FILE = Path(__file__).parent / "data" / "nvso-tie-for-gold-bronze-pending.json"


def base() -> dict:
    return json.loads(BASE_FILE.read_text(encoding="utf-8"))


def empty_playoffs_file(count: int = 1_000) -> str:
    """``count`` more bronze playoffs seated with the tied players and not played (~290 KB
    for 1,000): the results were once computed again for each of them."""
    data = base()
    owed = data["stages"][-1]
    for n in range(count):
        playoff = copy.deepcopy(owed)
        playoff["name"] = f"Bronze playoff {n + 2}"
        data["stages"].append(playoff)
    return json.dumps(data, indent=2)


def long_engines_file(size: int = 98_000) -> str:
    """An engine list of ~``size`` characters: a rule set was once built per prefix of it."""
    data = base()
    engines = data["event"]["rules"]["engines"]
    short = size - len(json.dumps(engines))
    engines.extend([0] * max(0, -(-short // len(", 0"))))  # each 0 adds ", 0"
    return json.dumps(data)


def large_event_file(players: int = 100_000, played: int = 6) -> str:
    """A valid event of ``players`` players (a multiple of 4) at tables of 4, ``played`` rounds
    of Game 1 played (about 17 MB for 100,000)."""
    data = base()
    rules = data["event"]["rules"]
    data["players"] = [
        {"id": f"p{n}", "name": f"Player {n}", "division": None} for n in range(1, players + 1)
    ]
    tables = []
    for t in range(players // 4):
        seated = [f"p{4 * t + k}" for k in range(1, 5)]
        rounds = [
            {"engine": engine, "pips": dict(zip(seated, (0, 5 + n % 7, 11, 23), strict=True))}
            for n, engine in enumerate(rules["engines"][:played])
        ]
        tables.append({"number": t + 1, "players": seated, "rounds": rounds, "infractions": []})
    data["stages"] = [{"name": "Game 1", "kind": "qualifying", "closed": False, "tables": tables}]
    return json.dumps(data, separators=(",", ":"))
