"""Measure the hall: `python -m tests.hall_load [--tables 20] [--rounds 13] [--workers 2]`.

Starts `make hall` (SQLite, a folder of its own), makes an event of TABLES tables of 4 with a
scorekeeper per table, and has every scorekeeper save their table's ROUNDS rounds at the same
moment through the entry page over HTTP, as phones on the hall's Wi-Fi would. Prints the
answers (by status), the rounds stored, the time per save (median, 95th percentile, slowest)
and the whole run's time. Measures only: nothing here fails on a time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.hall import Hall, hall_event, rounds_stored, scorekeepers_at_once

PASSWORD = "hall-load-pass-phrase-7"  # noqa: S105 (a throwaway database's logins)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=13)
    parser.add_argument("--workers", default="2", help="gunicorn processes (HALL_WORKERS)")
    parser.add_argument("--threads", default="8", help="threads per process (HALL_THREADS)")
    args = parser.parse_args(argv)
    with (
        tempfile.TemporaryDirectory() as folder,
        Hall(Path(folder), HALL_WORKERS=args.workers, HALL_THREADS=args.threads) as hall,
    ):
        slug, keepers = hall_event(hall, args.tables, PASSWORD)
        started = time.monotonic()
        results = scorekeepers_at_once(hall.port, keepers, PASSWORD, args.rounds)
        elapsed = time.monotonic() - started
        stored = rounds_stored(hall, slug)
        backups = len(list((hall.backups / slug).glob("*.json")))
    statuses: Counter = Counter()
    seconds: list[float] = []
    for answers in results:
        if isinstance(answers, BaseException):
            statuses[f"failed: {answers!r}"] += 1
            continue
        for status, took in answers:
            statuses[status] += 1
            seconds.append(took)
    once = sum(numbers == list(range(1, args.rounds + 1)) for numbers in stored.values())
    seconds.sort()
    print(
        f"{args.tables} scorekeepers x {args.rounds} rounds at once, make hall "
        f"({args.workers} processes x {args.threads} threads, SQLite):"
    )
    print(f"  answers: {dict(statuses)}")
    print(f"  rounds stored: {sum(len(n) for n in stored.values())} of {args.tables * args.rounds}")
    print(f"  tables with every round stored once: {once} of {args.tables}")
    if seconds:
        p95 = seconds[min(len(seconds) - 1, int(len(seconds) * 0.95))]
        print(
            f"  seconds per save (open the page, post it): median "
            f"{statistics.median(seconds):.2f}, 95th percentile {p95:.2f}, slowest "
            f"{seconds[-1]:.2f}"
        )
    print(f"  whole run: {elapsed:.1f} s; backup files of the event: {backups}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
