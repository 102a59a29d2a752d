"""A cumulative event's writes that race, through the pages (issue 30): directors closing a
game at once close it once and seat the next game once; redraws of a later game at once leave
one whole seating by the event's rule."""

import pytest

from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_director, make_event, make_players, seat
from tests.test_advancement import play_totals
from tournament.models import Seat, Table

pytestmark = pytest.mark.django_db(transaction=True)


def cumulative_event(director, count=16):
    event = make_event(
        director,
        engines=[1, 0],
        game_minutes=None,
        format_kind="cumulative",
        format_games=3,
        format_reseat="by_standing",
    )
    make_players(event, count=count)
    game1 = seat(event)
    for n, table in enumerate(Table.objects.filter(stage=game1), start=1):
        play_totals(table, [n + 1, 10 * n, 10 * n + 1, 10 * n + 2])
    return event


def test_directors_closing_a_game_at_once_close_it_and_seat_the_next_once(director):
    event = cumulative_event(director)
    clients = [logged_in(make_director()) for _ in range(4)]
    for c in clients:
        event.directors.add(c.session["_auth_user_id"])
    url = f"/director/e/{event.slug}/1/close/"
    posts = [{"action": "close", "once": form_key(c.get(url))} for c in clients]
    results = at_once(
        [lambda c=c, p=p: c.post(url, p) for c, p in zip(clients, posts, strict=True)]
    )
    no_errors(results)
    assert list(event.stages.values_list("name", "closed")) == [
        ("Game 1", True),
        ("Game 2", False),
        ("Game 3", False),
    ]
    seated = list(Seat.objects.filter(stage__event=event, stage__number=2).values_list("player"))
    assert len(seated) == len(set(seated)) == 16
    assert Table.objects.filter(stage__event=event, stage__number=2).count() == 4


def test_redraws_of_game_2_at_once_leave_one_whole_seating_by_standing(director):
    event = cumulative_event(director)
    client = logged_in(director)
    client.post(f"/director/e/{event.slug}/1/close/", {"action": "close"})
    first = sorted(
        Seat.objects.filter(stage__event=event, stage__number=2).values_list(
            "table__number", "player"
        )
    )
    clients = [logged_in(director) for _ in range(3)]
    url = f"/director/e/{event.slug}/2/seat/"
    results = at_once([lambda c=c: c.post(url, {}) for c in clients])
    no_errors(results)
    again = sorted(
        Seat.objects.filter(stage__event=event, stage__number=2).values_list(
            "table__number", "player"
        )
    )
    assert again == first  # by standing: the same tables every time, never a mix of two draws
    assert sorted(
        Table.objects.filter(stage__event=event, stage__number=2).values_list("number", flat=True)
    ) == [1, 2, 3, 4]
