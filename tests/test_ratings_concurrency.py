"""Ratings computed at the same moment (issue 31 item 2): directors closing games of two
events at once (each commit computing the ratings, as the tests' tasks run at once), and
computations run side by side, leave exactly one set of rows: the history's, as one
computation alone writes them. Run on SQLite and on PostgreSQL (DATABASE_URL)."""

import pytest

from scoring.models import RatedPlayer, Rating, RatingPoint, RatingsState
from scoring.services.ratings import compute_ratings
from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_director
from tests.test_ratings import NAMES, play, register, short_event, snapshot
from tournament.models import Player, Stage
from tournament.services.seating import seat_stage

pytestmark = pytest.mark.django_db(transaction=True)


def played_night(director, date, names=NAMES):
    """An event whose Game 1 is played to the end, not closed yet."""
    event = short_event(director, date)
    register(event, names)
    stage = event.stages.get(number=1)
    seat_stage(stage, event.players.all())
    for n, table in enumerate(stage.tables.order_by("number"), start=1):
        play(table, [n + 1, 10 * n, 10 * n + 1, 10 * n + 2])
    return event


def consistent():
    """One set of rows: a rating per rated person, their points and players, no more."""
    ratings = list(Rating.objects.values_list("pk", "games", "events"))
    assert RatingPoint.objects.count() == sum(events for _, _, events in ratings)
    assert RatedPlayer.objects.count() == Player.objects.count()
    assert len(set(Rating.objects.values_list("player__ref", flat=True))) == len(ratings)
    return snapshot()


def test_games_closed_at_once_in_two_events_leave_one_set_of_ratings(director):
    nights = [played_night(director, "2026-03-01"), played_night(director, "2026-04-01")]
    clients = [logged_in(make_director()) for _ in nights]
    urls = [f"/director/e/{e.slug}/1/close/" for e in nights]
    for client, event in zip(clients, nights, strict=True):
        event.directors.add(client.session["_auth_user_id"])
    posts = [
        {"action": "close", "once": form_key(c.get(u))} for c, u in zip(clients, urls, strict=True)
    ]
    results = at_once(
        [lambda c=c, u=u, p=p: c.post(u, p) for c, u, p in zip(clients, urls, posts, strict=True)]
    )
    no_errors(results)
    assert Stage.objects.filter(number=1, closed=True).count() == 2

    after = consistent()
    state = RatingsState.objects.get()
    assert not state.pending and state.games == 4
    assert compute_ratings(force=True).written  # a computation alone gives the same rows
    assert consistent() == after
    assert all(r.games == 2 and r.events == 2 for r in Rating.objects.all())


def test_computations_side_by_side_write_one_after_the_other(director):
    client = logged_in(director)
    for date in ["2026-03-01", "2026-04-01", "2026-05-01"]:
        event = played_night(director, date)
        client.post(f"/director/e/{event.slug}/1/close/", {"action": "close"})
    alone = consistent()
    outcomes = at_once([lambda: compute_ratings(force=True) for _ in range(4)])
    assert all(o.written for o in outcomes), outcomes
    assert consistent() == alone
    RatingsState.objects.update(fingerprint="")
    outcomes = at_once([compute_ratings for _ in range(4)])
    assert sum(o.written for o in outcomes) >= 1, outcomes
    assert consistent() == alone
