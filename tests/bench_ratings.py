"""Benchmark: the ratings' leaderboard of 10,000 rated players over 500 events (issue 31 item 5)
within 3x a template floor.

Run by ``make bench`` (tests/bench.py calls ``run``), or alone:

    .venv/bin/python -m tests.bench_ratings --players 10000 --events 500 --repeat 9

The rows are made in bulk in the benchmark's throwaway database, as scoring/services/ratings.py
writes them (events, a player per person per event, a Rating per person, a RatingPoint per
event they played, a RatedPlayer per player), not computed: the computation is timed by its
own helper. The floor is a bare template rendering the same rows' values (the page's rows,
computed once beforehand) with no logic and no query; each page is asked cold (the cache
emptied before each request: the queries over 10,000 ratings) and kept (rendered once per
computation of the ratings), interleaved with the floor so that a busy machine slows both
alike. PASS when the page's median is at most 3x the floor's. The leaderboard's pages (1,000
rows each, as the standings) are judged; a search by name or club is shown, not judged: it
reads every rating's name or club to find a few rows, which no floor of those rows measures.
"""

from __future__ import annotations

import argparse
import datetime
import tempfile
import time
from pathlib import Path

FLOOR_RATIO = 3.0
CLUBS = 40

FLOOR_TEMPLATE = """<!doctype html><html lang="en"><head><title>Floor</title></head><body><main>
<table class="table table-sm table-striped align-middle" id="ratings">
<thead><tr><th>Place</th><th>Player</th><th>Club</th><th>Rating</th><th>Games</th><th>Events</th>
<th>Last event</th></tr></thead><tbody>
{% for r in rows %}<tr><td>{{ r.place }}</td><td><a href="{{ r.url }}">{{ r.name }}</a></td>
<td>{{ r.club }}</td><td>{{ r.score }}</td><td>{{ r.games }}</td><td>{{ r.events }}</td>
<td>{{ r.last }} <span>{{ r.last_date }}</span></td></tr>
{% endfor %}</tbody></table></main></body></html>"""


def build(players: int, events: int, seed: int = 7) -> None:
    """``players`` rated people over ``events`` events: each played 1 to 4 of them (their
    latest the one shown), ratings spread as the model spreads them, a few ties."""
    import random

    from django.db import transaction
    from django.utils import timezone

    from scoring.models import RatedPlayer, Rating, RatingPoint, RatingsState
    from tournament.game import ratings as rule
    from tournament.models import Event, Player

    rng = random.Random(seed)
    start = datetime.date(2020, 1, 4)
    with transaction.atomic():
        made = Event.objects.bulk_create(
            Event(
                name=f"Club night {e + 1}",
                slug=f"bench-night-{e + 1}",
                date=start + datetime.timedelta(days=7 * e),
            )
            for e in range(events)
        )
        plays = []  # each person's events (indexes, in date order)
        for _ in range(players):
            first = rng.randrange(events)
            count = min(rng.randint(1, 4), events - first)
            plays.append(sorted(rng.sample(range(first, events), count)))
        rows = [
            Player(
                event=made[e],
                name=f"Person {person:05d}",
                club=f"Club {person % CLUBS:02d}",
                ref=str(person),
            )
            for person, mine in enumerate(plays)
            for e in mine
        ]
        Player.objects.bulk_create(rows, batch_size=2000)
        by_person: list[list[Player]] = [[] for _ in plays]
        for row in rows:
            by_person[int(row.ref)].append(row)
        ratings = []
        for mine in by_person:
            games = 3 * len(mine) + rng.randint(0, 9)
            mu, sigma = rng.gauss(25, 3), max(1.0, 8.33 - games / 6)
            ratings.append(
                Rating(
                    player=mine[-1],
                    mu=mu,
                    sigma=sigma,
                    score=rule.shown(mu, sigma),
                    games=games,
                    events=len(mine),
                )
            )
        Rating.objects.bulk_create(ratings, batch_size=2000)
        RatingPoint.objects.bulk_create(
            (
                RatingPoint(
                    rating=rating,
                    player=p,
                    event_id=p.event_id,
                    mu=rating.mu,
                    sigma=rating.sigma + n,
                    score=rule.shown(rating.mu, rating.sigma + n),
                    games=3 * (len(mine) - n),
                )
                for rating, mine in zip(ratings, by_person, strict=True)
                for n, p in enumerate(reversed(mine))
            ),
            batch_size=2000,
        )
        RatedPlayer.objects.bulk_create(
            (
                RatedPlayer(player=p, rating=rating)
                for rating, mine in zip(ratings, by_person, strict=True)
                for p in mine
            ),
            batch_size=2000,
        )
        state = RatingsState.objects.first() or RatingsState(pk=1)
        state.computed_at, state.fingerprint, state.games = timezone.now(), "bench", players
        state.save()


def run(repeat: int = 9, players: int = 10_000, events: int = 500) -> int:
    """Build the rows, time the leaderboard's pages against the floor; the targets missed."""
    from django.core.cache import cache
    from django.template import engines
    from django.test import Client

    from scoring.views.ratings import leaderboard
    from tests.bench import measure, verdict

    began = time.perf_counter()
    build(players, events)
    print(
        f"\n  built {players:,} rated players over {events} events: "
        f"{time.perf_counter() - began:.0f} s"
    )
    template = engines["django"].from_string(FLOOR_TEMPLATE)
    client = Client()
    pages = [  # name, path, filters, page, judged
        ("leaderboard", "/ratings/", {}, "1", True),
        ("leaderboard last page", "/ratings/?page=50", {}, "50", True),
        ("search by name", "/ratings/?q=Person+012", {"q": "Person 012"}, "1", False),
        ("one club", "/ratings/?club=Club+07", {"club": "Club 07"}, "1", False),
    ]
    failures = 0
    print(
        f"{'players':>7}  {'page':28} {'ms':>8} {'queries':>7} {'floor ms':>8} {'ratio':>6}"
        f"  {'KiB':>6}  {'rows':>4}  target"
    )
    for name, path, filters, page, judged in pages:
        rows = leaderboard(filters, page)["rows"]
        for how, before in [("cold", cache.clear), ("kept", None)]:
            ms, queries, fl, size, _ = measure(client, path, repeat, template, rows, before)
            ok = ms <= FLOOR_RATIO * fl
            failures += judged and not ok
            target = f"{verdict(ok)} <= {FLOOR_RATIO:.0f}x floor" if judged else "(shown)"
            print(
                f"{players:7d}  {name + ' ' + how:28} {ms:8.1f} {queries:7d} {fl:8.1f} "
                f"{ms / fl:6.1f}  {size / 1024:6.1f}  {len(rows):4d}  {target}"
            )
    return failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args(argv)
    from tests.bench import setup_django

    with tempfile.TemporaryDirectory(prefix="mt-bench-ratings-") as tmp:
        old_name = setup_django(Path(tmp))
        try:
            failures = run(args.repeat, args.players, args.events)
            print(f"\n{'PASS' if not failures else 'FAIL'}: {failures} target(s) missed")
        finally:
            if old_name is not None:
                from django.db import connection

                connection.creation.destroy_test_db(old_name, verbosity=0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
