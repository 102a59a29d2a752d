"""Whether a pip count is plausible, from simulated play: no Django here.

A count under the deal's bound (``RuleSet.max_pips``) can be played, but 287 at a 4-player
double-12 table is far more often a typo for 28 or 27 than a hand. For each rule set and table
size the site's simulator (``simulator.stats.simulate``, the default strategy, a fixed seed)
plays many rounds; the pips left in every losing hand give

- ``rare``: the count a losing hand exceeds once in a thousand rounds at most (the 99.9th
  percentile, nearest rank: 999 hands in 1,000 leave at most this);
- ``typical``: the 95th percentile (19 hands in 20 leave at most this), the range the question
  names and where the likely typo is looked for.

A round with a count above ``rare`` asks for confirmation before it is saved, never refused
(scoring/forms/entry.py, static/js/entry.js). The rule sets the site offers are computed once by
``manage.py compute_thresholds`` into ``data/thresholds.json``, shipped; any other (a custom
one) once by a background task (scoring/plausibility.py).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from tournament.game.rules import COPIES, NVSO_TILES_DRAWN, SETS, RuleSet, default_engines
from tournament.game.simulator.stats import simulate

RARE = 0.999  # "once in a thousand": the share of losing hands at or under the threshold
TYPICAL = 0.95  # "19 in 20": the typical range the question names
SEED = 33  # the shipped file's seed (issue 33)
ROUNDS = 20_000  # rounds simulated per rule set and table size
FILE = Path(__file__).with_name("data") / "thresholds.json"


@dataclass(frozen=True)
class Threshold:
    """What the simulated losing hands of one rule set at one table size say."""

    rare: int  # 999 losing hands in 1,000 leave at most this many pips
    typical: int  # 19 in 20 leave at most this many
    low: int  # the 95% confidence interval of ``rare`` (order statistics: no assumption
    high: int  # about the distribution's shape)
    hands: int  # losing hands simulated
    rounds: int
    seed: int


def nearest_rank(ordered: Sequence[int], share: float) -> int:
    """The value at or under which ``share`` of ``ordered`` (sorted) lies, nearest rank: the
    ``ceil(share * n)``-th smallest (1,000 values 1..1000: 999 at 0.999; only 1000 is above)."""
    if not ordered:
        raise ValueError("No values")
    rank = max(1, math.ceil(round(share * len(ordered), 9)))
    return ordered[rank - 1]


def rank_interval(ordered: Sequence[int], share: float, z: float = 1.96) -> tuple[int, int]:
    """A 95% confidence interval of the ``share`` quantile: the values at the ranks
    ``n·share ± z·sqrt(n·share·(1 - share))`` (the rank of the true quantile among n samples
    is binomial), clipped to the sample."""
    n = len(ordered)
    spread = z * math.sqrt(n * share * (1 - share))
    low = max(1, math.floor(n * share - spread))
    high = min(n, math.ceil(n * share + spread))
    return ordered[low - 1], ordered[high - 1]


def threshold_of(hands: Iterable[int], rounds: int, seed: int) -> Threshold:
    """The threshold of these losing hands' pips (simulated from ``rounds`` on ``seed``)."""
    ordered = sorted(hands)
    low, high = rank_interval(ordered, RARE)
    return Threshold(
        rare=nearest_rank(ordered, RARE),
        typical=nearest_rank(ordered, TYPICAL),
        low=low,
        high=high,
        hands=len(ordered),
        rounds=rounds,
        seed=seed,
    )


def simulated(rules: RuleSet, players: int, rounds: int = ROUNDS, seed: int = SEED) -> Threshold:
    """Play ``rounds`` rounds of ``rules`` at a table of ``players`` (every engine in turn, the
    default strategy) and take the threshold of their losing hands."""
    results, _figures = simulate(rules, players, rounds, seed)
    return threshold_of((p for r in results for p in r.losing_hands), rounds, seed)


def key(rules: RuleSet, players: int) -> str:
    """What decides a losing hand's spread, as text: the tiles, the table's size and draw, the
    double-blank's count, and the engines when they are not the highest down to 0-0."""
    text = (
        f"double-{rules.set} x{rules.sets}, {players} players drawing "
        f"{rules.tiles_drawn.get(players)}, double-blank {rules.double_blank_points}"
    )
    if tuple(rules.engines) != default_engines(rules.set):
        text += ", engines " + "-".join(map(str, rules.engines))
    return text


def offered() -> list[tuple[RuleSet, int]]:
    """The rule sets the site offers and the table sizes each deals: every set, one copy or
    two, NVSO's draw (15 tiles each for tables of 2 to 5), the double-blank 0, engines from
    the highest double down to 0-0."""
    out = []
    for the_set in SETS:
        for copies in COPIES:
            rules = RuleSet(
                set=the_set,
                sets=copies,
                engines=default_engines(the_set),
                tiles_drawn=dict(NVSO_TILES_DRAWN),
            )
            out += [(rules, players) for players in rules.dealable_sizes]
    return out


def dumps(thresholds: Mapping[str, Threshold]) -> str:
    """The shipped file's text: one threshold per key, sorted, the same every time."""
    return json.dumps({k: asdict(t) for k, t in sorted(thresholds.items())}, indent=1) + "\n"


def loads(text: str) -> dict[str, Threshold]:
    return {k: Threshold(**v) for k, v in json.loads(text).items()}


@lru_cache(maxsize=1)
def shipped() -> dict[str, Threshold]:
    """The thresholds computed by ``manage.py compute_thresholds`` (none if the file is gone)."""
    try:
        return loads(FILE.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def typos(value: int, typical: int) -> list[int]:
    """The counts ``value`` is likely a typo for: one digit dropped (a key pressed twice or
    a neighbour's), each in the typical range but 0 (the player who dominoed is another
    thing), from the last digit dropped to the first (287 at a typical 80: 28, 27; 87 is
    above it)."""
    digits = str(value)
    out: list[int] = []
    for i in range(len(digits) - 1, -1, -1):
        rest = digits[:i] + digits[i + 1 :]
        if rest and 0 < int(rest) <= typical and int(rest) not in out:
            out.append(int(rest))
    return out


__all__ = [
    "FILE",
    "RARE",
    "ROUNDS",
    "SEED",
    "TYPICAL",
    "Threshold",
    "dumps",
    "key",
    "loads",
    "nearest_rank",
    "offered",
    "rank_interval",
    "shipped",
    "simulated",
    "threshold_of",
    "typos",
]
