"""Directors allowing a table size for a stage at once, on SQLite and PostgreSQL (issue 45
item 1): the stage is seated once per form, whole, and the size allowed once."""

import pytest

from scoring.services.simulation import simulate_stage
from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_director, make_event, make_players, seat
from tests.test_allowed_size import SIX_TO_EIGHT, offer_key
from tournament.models import Action, Seat, Table
from tournament.services.seating import withdraw_player

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_directors_allowing_tables_of_five_at_once_seat_game_1_once(director):
    event = make_event(director, **SIX_TO_EIGHT)
    make_players(event, count=11)
    clients = [logged_in(director), logged_in(make_director())]
    event.directors.add(clients[1].session["_auth_user_id"])
    url = f"/director/e/{event.slug}/1/seat/"
    pages = [c.get(f"/e/{event.slug}/1/seating/?allow=5").content.decode() for c in clients]
    posts = [{"once": offer_key(page), "allow": "5"} for page in pages]
    twice = [(clients[0], posts[0]), (clients[0], posts[0]), (clients[1], posts[1])]
    no_errors(at_once([lambda c=c, p=p: c.post(url, p) for c, p in twice]))
    sizes = sorted(t.seats.count() for t in Table.objects.filter(stage__event=event))
    assert sizes == [5, 6]
    seated = list(Seat.objects.filter(stage__event=event).values_list("player", flat=True))
    assert len(seated) == len(set(seated)) == 11
    assert Action.objects.filter(event=event, verb="stage.size_allowed").count() == 1
    assert event.stages.get(number=1).allowed_size == 5


def test_directors_seating_game_2_with_the_size_offered_at_once_seat_it_once(director):
    event = make_event(director, format_kind="cumulative", format_games=2, **SIX_TO_EIGHT)
    make_players(event, count=12)
    game1 = seat(event)
    simulate_stage(game1, seed=3)
    withdraw_player(Seat.objects.filter(stage=game1).first().player, director, "Went home")
    first = logged_in(director)
    close = f"/director/e/{event.slug}/1/close/"
    first.post(close, {"once": form_key(first.get(close))})
    clients = [first, logged_in(director), logged_in(director)]
    posts = [
        {"once": offer_key(c.get(f"{close}?allow=5").content.decode()), "action": "seat_next"}
        for c in clients
    ]
    for post in posts:
        post["allow"] = "5"
    no_errors(
        at_once([lambda c=c, p=p: c.post(close, p) for c, p in zip(clients, posts, strict=True)])
    )
    game2 = event.stages.get(number=2)
    assert sorted(t.seats.count() for t in Table.objects.filter(stage=game2)) == [5, 6]
    assert Action.objects.filter(event=event, verb="stage.seated", stage=game2).count() == 1
    assert Action.objects.filter(event=event, verb="stage.size_allowed").count() == 1
