"""Compute the "are you sure?" thresholds of every rule set the site offers, from simulated play.

    python manage.py compute_thresholds [--rounds N] [--seed N] [--only TEXT] [--check] [--jobs N]

For each rule set and table size of ``tournament.game.plausibility.offered`` the site's
simulator plays ``--rounds`` rounds (every engine in turn, the default strategy, the seed) and
the file tournament/game/data/thresholds.json keeps the pips a losing hand exceeds once in a
thousand (with its 95% interval) and the typical range. The same seed writes the same file;
``--only`` recomputes the rule sets whose key contains the text (the others are kept);
``--check`` says whether the file is what the seed gives, without writing; ``--jobs`` plays the
rule sets in that many processes at once (the same file). Needs no database.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

from django.core.management import BaseCommand, CommandError

from tournament.game import plausibility


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("--rounds", type=int, default=plausibility.ROUNDS)
        parser.add_argument("--seed", type=int, default=plausibility.SEED)
        parser.add_argument("--only", default="", help="rule sets whose key contains this")
        parser.add_argument("--check", action="store_true", help="compare, do not write")
        parser.add_argument("--jobs", type=int, default=1, help="processes at once")

    def handle(self, *args, rounds, seed, only, check, jobs, **options):
        if rounds < 1000:
            raise CommandError("At least 1,000 rounds: fewer say nothing of one in a thousand.")
        kept = dict(plausibility.shipped()) if only or check else {}
        todo = [(r, n) for r, n in plausibility.offered() if only in plausibility.key(r, n)]
        computed = {}
        start = time.monotonic()
        # One job plays in this process; more in fresh ("spawn") processes, never forked from
        # a process that may run threads (a test's live server, a database driver).
        pool = (
            ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
            if jobs > 1
            else None
        )
        with pool or contextlib.nullcontext():
            done = (pool.map if pool else map)(
                plausibility.simulated,
                *zip(*todo, strict=True),
                [rounds] * len(todo),
                [seed] * len(todo),
            )
            for (rules, players), found in zip(todo, done, strict=True):
                key = plausibility.key(rules, players)
                computed[key] = found
                self.stdout.write(
                    f"{key}: {found.rare} ({found.low}-{found.high}), typical "
                    f"0-{found.typical}, {found.hands} losing hands, "
                    f"{time.monotonic() - start:.0f} s"
                )
        if not computed:
            raise CommandError(f"No rule set offered matches {only!r}.")
        if check:
            wrong = [k for k, t in computed.items() if kept.get(k) != t]
            if wrong:
                raise CommandError("Not what the seed gives: " + "; ".join(wrong))
            self.stdout.write(f"{len(computed)} thresholds as the file has them.")
            return
        plausibility.FILE.write_text(plausibility.dumps({**kept, **computed}), encoding="utf-8")
        plausibility.shipped.cache_clear()
        self.stdout.write(f"{len(computed)} thresholds written to {plausibility.FILE}.")
