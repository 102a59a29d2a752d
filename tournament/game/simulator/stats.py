"""Figures over many simulated rounds: what a losing hand and a round's total look like, and
how often a round ends blocked. No Django here.

    python -m tournament.game.simulator.stats --rounds 1000 --players 4 --set 12 --tiles 15 --seed 1

By default the rounds cycle through the engines 12-12 down to 0-0, as a game does; ``--engine``
plays one engine only.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from tournament.game.rules import RuleSet, default_engines
from tournament.game.simulator.play import RoundResult, play_round
from tournament.game.simulator.strategies import STRATEGIES


@dataclass(frozen=True)
class Spread:
    mean: float
    stdev: float
    quartiles: tuple[float, float, float]
    low: int
    high: int

    @classmethod
    def of(cls, values: Sequence[int]) -> Spread:
        q = statistics.quantiles(values, n=4, method="inclusive")
        return cls(
            statistics.fmean(values), statistics.stdev(values), tuple(q), min(values), max(values)
        )

    def __str__(self) -> str:
        q1, q2, q3 = self.quartiles
        return (
            f"mean {self.mean:.1f}, sd {self.stdev:.1f}, quartiles {q1:g} / {q2:g} / {q3:g}, "
            f"range {self.low}-{self.high}"
        )


@dataclass(frozen=True)
class Figures:
    rounds: int
    losing_hand: Spread
    round_total: Spread
    blocked: int
    turns: Spread

    @property
    def blocked_share(self) -> float:
        return self.blocked / self.rounds


def simulate(
    rules: RuleSet,
    players: int,
    rounds: int,
    seed: int,
    engines: Sequence[int] | None = None,
    strategy: str = "keep_train",
) -> tuple[list[RoundResult], Figures]:
    rng = random.Random(seed)
    engines = list(engines or rules.engines)
    results = [
        play_round(
            rules,
            engines[i % len(engines)],
            players,
            rng,
            starter=i % players,
            strategies=[STRATEGIES[strategy]] * players,
        )
        for i in range(rounds)
    ]
    figures = Figures(
        rounds=rounds,
        losing_hand=Spread.of([p for r in results for p in r.losing_hands]),
        round_total=Spread.of([r.total for r in results]),
        blocked=sum(1 for r in results if r.winner is None),
        turns=Spread.of([r.turns for r in results]),
    )
    return results, figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--set", type=int, default=12, help="double-N set (default 12)")
    parser.add_argument("--sets", type=int, default=1, choices=(1, 2), help="copies mixed")
    parser.add_argument("--tiles", type=int, default=15, help="tiles drawn (default 15)")
    parser.add_argument("--engine", type=int, help="play this engine only (default: all)")
    parser.add_argument("--double-blank", type=int, default=0, choices=(0, 50))
    parser.add_argument("--strategy", default="keep_train", choices=sorted(STRATEGIES))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rules = RuleSet(
        set=args.set,
        sets=args.sets,
        engines=default_engines(args.set),
        tiles_drawn={args.players: args.tiles},
        table_size=args.players,
        double_blank_points=args.double_blank,
    ).check()
    engines = [args.engine] if args.engine is not None else None
    _, f = simulate(rules, args.players, args.rounds, args.seed, engines, args.strategy)
    which = f"{args.engine}-{args.engine}" if engines else "every engine in turn"
    tiles = f"double-{args.set}" if args.sets == 1 else f"{args.sets} double-{args.set} sets"
    print(
        f"{f.rounds} rounds, {args.players} players, {tiles}, {args.tiles} tiles each, "
        f"{which}, strategy {args.strategy}, seed {args.seed}"
    )
    print(f"losing hand (pips): {f.losing_hand}")
    print(f"round total (pips): {f.round_total}")
    print(f"turns per round:    {f.turns}")
    print(f"ended blocked:      {f.blocked} of {f.rounds} ({100 * f.blocked_share:.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
