"""Writes that race: several devices press the same button, or save at once, through the pages.

Each request runs in its own thread with its own database connection, on whichever database
the suite runs on (CI runs it on SQLite and on PostgreSQL). Every request must answer without
a server error, and the event must end as if the requests had come one after the other.
"""

import random
import time

import pytest

from scoring.models import Round, Score
from scoring.services.rounds import store_totals
from scoring.sheets import table_sheet
from tests.concurrency import at_once, form_key, hidden_fields, logged_in, no_errors, said
from tests.factories import make_director, make_event, make_players, seat
from tests.test_advancement import play_totals, short_event
from tournament.models import Player, Seat, Stage, Table

pytestmark = pytest.mark.django_db(transaction=True)


def entry_url(table):
    return f"/director/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}/enter/"


def round_fields(client, table) -> dict:
    """The hidden fields of the table's entry form (the round it shows, its key)."""
    page = client.get(entry_url(table))
    return {k: v for k, v in hidden_fields(page).items() if k != "csrfmiddlewaretoken"}


def round_post(client, table, values):
    """Open the table's entry page and post what its form holds: the pips typed, the round it
    shows and its key."""
    page = client.get(entry_url(table))
    if 'id="round-form"' not in page.content.decode():
        return None  # nothing left to enter at this table
    data = {k: v for k, v in hidden_fields(page).items() if k != "csrfmiddlewaretoken"}
    players = table_sheet(table).players
    data.update({f"p{p.pk}": v for p, v in zip(players, values, strict=True)})
    return client.post(entry_url(table), data)


def test_directors_confirming_a_close_at_once_close_and_seat_once(director):
    event = short_event(director)
    make_players(event, count=16)
    game1 = seat(event)
    for table in Table.objects.filter(stage=game1):
        play_totals(table, [1, 9, 9, 9])
    clients = [logged_in(make_director()) for _ in range(4)]
    for c in clients:
        event.directors.add(c.session["_auth_user_id"])
    url = f"/director/e/{event.slug}/1/close/"
    posts = [{"action": "close", "once": form_key(c.get(url))} for c in clients]
    results = at_once(
        [lambda c=c, p=p: c.post(url, p) for c, p in zip(clients, posts, strict=True)]
    )
    no_errors(results)
    assert list(event.stages.values_list("name", "closed")) == [("Game 1", True), ("Final", False)]
    final = event.stages.get(name="Final")
    assert Seat.objects.filter(stage=final).count() == 4


def test_directors_seating_a_semifinal_at_once_seat_one(director):
    event = short_event(director)
    make_players(event, count=24)
    game1 = seat(event)
    for table in Table.objects.filter(stage=game1):
        play_totals(table, [1, 9, 9, 9])
    from scoring.services.stages import close_stage

    close_stage(game1, director)  # closed without seating: the next stage waits for a click
    clients = [logged_in(director) for _ in range(5)]
    url = f"/director/e/{event.slug}/1/close/"
    results = at_once([lambda c=c: c.post(url, {"action": "seat_next"}) for c in clients])
    no_errors(results)
    semis = Stage.objects.filter(event=event, kind="semifinal")
    assert semis.count() == 1
    assert Seat.objects.filter(stage=semis.get()).count() == 6


def test_two_draws_at_once_leave_one_whole_seating(director, event):
    make_players(event, count=18)
    clients = [logged_in(director) for _ in range(3)]
    url = f"/director/e/{event.slug}/1/seat/"
    results = at_once([lambda c=c: c.post(url, {}) for c in clients])
    no_errors(results)
    tables = Table.objects.filter(stage__event=event, stage__number=1)
    assert sorted(tables.values_list("number", flat=True)) == [1, 2, 3, 4, 5]
    seated = list(Seat.objects.filter(stage__number=1, stage__event=event).values_list("player"))
    assert len(seated) == len(set(seated)) == 18


def test_the_same_player_id_added_twice_at_once_is_a_form_error(director, event):
    clients = [logged_in(director) for _ in range(4)]
    url = f"/director/e/{event.slug}/players/"
    results = at_once([lambda c=c: c.post(url, {"name": "Ann Lee", "ref": "A1"}) for c in clients])
    no_errors(results)
    assert Player.objects.filter(event=event, ref="A1").count() == 1
    refused = [r for r in results if r.status_code == 200]
    assert len(refused) == 3
    assert all("Another player of this event has id A1." in r.content.decode() for r in refused)


def test_a_redraw_racing_the_first_round_never_loses_an_acknowledged_round(director, event):
    make_players(event, count=8)
    seat(event)
    for trial in range(6):
        table = Table.objects.get(stage__event=event, stage__number=1, number=1)
        saver, drawer = logged_in(director), logged_in(director)
        data = round_fields(saver, table)
        data.update({f"p{p.pk}": 5 + i for i, p in enumerate(table_sheet(table).players)})
        data[f"p{table_sheet(table).players[0].pk}"] = 0
        saved, drawn = at_once(
            [
                lambda c=saver, t=table, d=data: c.post(entry_url(t), d),
                lambda c=drawer: c.post(f"/director/e/{event.slug}/1/seat/", {}),
            ]
        )
        no_errors([saved, drawn])
        # Saved, as its answer says: a redirect may also be a refusal (the draw came first,
        # and the page's table had nobody seated any more).
        acknowledged = saved.status_code == 302 and "Round 12-12 saved." in said(saved)
        assert Round.objects.filter(table__stage__event=event).count() == int(acknowledged), (
            trial,
            said(saved),
        )
        if acknowledged:  # the round is kept; the draw was refused; start the next trial clean
            Round.objects.all().delete()
            store_totals(Table.objects.filter(stage__event=event))  # as the site keeps them


def test_twenty_writers_at_one_table_store_each_round_once(director):
    event = make_event(director, game_minutes=None)
    make_players(event, count=4)
    stage = seat(event)
    table = Table.objects.get(stage=stage)
    clients = [logged_in(director) for _ in range(20)]
    deadline = time.monotonic() + 180  # bounded: the writers stop when all 13 are saved

    def writer(client, seed):
        rng = random.Random(seed)
        answers = []
        while time.monotonic() < deadline:
            values = [0] + [rng.randint(1, 60) for _ in range(3)]
            answer = round_post(client, table, values)
            if answer is None:
                break
            answers.append(answer)
        return answers

    results = at_once([lambda c=c, i=i: writer(c, i) for i, c in enumerate(clients)])
    for answers in results:
        assert not isinstance(answers, BaseException), repr(answers)
        assert all(a.status_code < 500 for a in answers)
    numbers = list(Round.objects.filter(table=table).values_list("number", flat=True))
    assert sorted(numbers) == list(range(1, 14))
    assert Score.objects.filter(round__table=table).count() == 13 * 4


def test_twenty_scorekeepers_each_at_their_table_save_every_round(director):
    event = make_event(director, game_minutes=None)
    make_players(event, count=80)
    stage = seat(event)
    tables = list(Table.objects.filter(stage=stage).order_by("number"))
    assert len(tables) == 20

    def keeper(table, seed):
        client = logged_in(director)
        rng = random.Random(seed)
        answers = []
        for _ in range(13):
            answer = round_post(client, table, [0] + [rng.randint(1, 60) for _ in range(3)])
            answers.append(answer.status_code)
        return answers

    results = at_once([lambda t=t: keeper(t, t.number) for t in tables])
    for answers in results:
        assert answers == [302] * 13, answers
    assert Round.objects.filter(table__stage=stage).count() == 260
    for table in tables:
        numbers = Round.objects.filter(table=table).values_list("number", flat=True)
        assert sorted(numbers) == list(range(1, 14))
