"""A form sent twice (double click, browser retry, resent form) writes once: each writing
form carries the key its page was drawn with, and a repeat answers with the first outcome."""

import pytest

from scoring.models import Infraction, Round
from tests.concurrency import form_key
from tests.factories import make_players, play, seat
from tests.test_event_setup import NVSO_FORM
from tournament.models import Action, ClockEvent, Event, Stage, Table

pytestmark = pytest.mark.django_db


def twice(client, url, data, **kwargs):
    """Post the same form twice, as a double click does; both answers."""
    return client.post(url, data, **kwargs), client.post(url, data, **kwargs)


def test_a_double_click_on_new_event_creates_one_event(director_client):
    key = form_key(director_client.get("/director/new/"))
    first, second = twice(director_client, "/director/new/", {**NVSO_FORM, "once": key})
    assert Event.objects.count() == 1
    assert (
        first["Location"]
        == second["Location"]
        == f"/director/e/{Event.objects.get().slug}/players/"
    )


def test_a_new_page_makes_a_new_key(director_client):
    keys = {form_key(director_client.get("/director/new/")) for _ in range(3)}
    assert len(keys) == 3


def test_a_resent_player_form_adds_the_player_once(director_client, event):
    url = f"/director/e/{event.slug}/players/"
    key = form_key(director_client.get(url))
    twice(director_client, url, {"name": "Ann Lee", "once": key})
    assert list(event.players.values_list("name", flat=True)) == ["Ann Lee"]
    director_client.post(url, {"name": "Ann Lee", "once": form_key(director_client.get(url))})
    assert event.players.count() == 2  # a new form is a new player (namesakes exist)


def test_an_import_confirmed_twice_with_one_form_imports_once(director_client, event):
    from tests.importing import confirm, upload

    preview = upload(director_client, event.slug, b"name\nAnn\nBo\n")
    for _ in range(2):
        confirm(director_client, event.slug, preview)
    assert event.players.count() == 2
    assert event.actions.filter(verb="players.added").count() == 1


def test_a_double_tap_logs_one_infraction(director_client, seated):
    table = Table.objects.get(stage=seated, number=1)
    page = director_client.get(table.get_absolute_url())
    player = table.seats.first().player
    data = {"player": player.pk, "kind": "wrong_tile", "engine": 12, "once": form_key(page)}
    url = f"/director/e/{seated.event.slug}/1/table/1/infraction/"
    twice(director_client, url, data)
    assert Infraction.objects.count() == 1
    assert Infraction.objects.get().action == "warning"  # not escalated by its own repeat


def test_a_double_click_on_draw_draws_once(director_client, event):
    make_players(event, count=8)
    url = f"/e/{event.slug}/1/seating/"
    key = form_key(director_client.get(url))
    first, second = twice(director_client, f"/director/e/{event.slug}/1/seat/", {"once": key})
    seated = list(Table.objects.filter(stage__event=event).values_list("pk", flat=True))
    assert len(seated) == 2
    assert Action.objects.filter(verb="stage.seated").count() == 1


def test_a_repeated_clock_button_presses_it_once(director_client, seated):
    page = director_client.get(f"/e/{seated.event.slug}/1/")
    url = f"/director/e/{seated.event.slug}/1/clock/"
    data = {"action": "start", "once": form_key(page)}
    first, second = twice(director_client, url, data, follow=True)
    assert ClockEvent.objects.count() == 1
    assert "already been started" not in second.content.decode()


def test_a_double_confirm_closes_and_seats_once(director_client, director):
    from tests.test_advancement import play_totals, short_event

    event = short_event(director)
    make_players(event, count=16)
    game1 = seat(event)
    for table, totals in zip(Table.objects.filter(stage=game1), [[1, 9, 9, 9]] * 4, strict=True):
        play_totals(table, totals)
    url = f"/director/e/{event.slug}/1/close/"
    key = form_key(director_client.get(url))
    first, second = twice(director_client, url, {"action": "close", "once": key})
    assert first["Location"] == second["Location"]
    assert Stage.objects.filter(event=event).count() == 2  # Game 1 and the Final, seated once
    assert Table.objects.filter(stage__number=2, stage__event=event).count() == 1


def test_a_repeat_of_a_saved_round_answers_with_it(director_client, seated):
    table = Table.objects.get(stage=seated, number=1)
    url = f"/director/e/{seated.event.slug}/1/table/1/enter/"
    page = director_client.get(url)
    data = {f"p{s.player_id}": v for s, v in zip(table.seats.all(), [0, 5, 6, 7], strict=True)}
    data.update(number=1, shown_engine=12, once=form_key(page))
    first, second = twice(director_client, url, data, follow=True)
    assert Round.objects.filter(table=table).count() == 1
    assert "Round 12-12 saved." in second.content.decode()


def test_every_write_is_in_the_event_history(director_client, seated):
    table = Table.objects.get(stage=seated, number=1)
    play(table, 1, user=None)
    verbs = list(Action.objects.filter(event=seated.event).values_list("verb", flat=True))
    assert "event.created" in verbs and "stage.seated" in verbs and "round.saved" in verbs


def test_a_write_bumps_the_event_and_stage_versions(seated):
    event, before = seated.event, Event.objects.get(pk=seated.event.pk).version
    stage_before = Stage.objects.get(pk=seated.pk).version
    play(Table.objects.get(stage=seated, number=1), 1)
    assert Event.objects.get(pk=event.pk).version > before
    assert Stage.objects.get(pk=seated.pk).version > stage_before
