"""Every director action can be taken back (issue 22): a round saved at the wrong table, time
called by mistake, minutes a break ran through, a seating drawn too early; each with a reason
kept in the event's history, each once however often it is sent."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from scoring.models import Round
from scoring.sheets import stage_standings, table_sheet
from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_players, play, seat
from tournament.models import Action, ClockEvent, Stage, Table
from tournament.services.clock import call_time, start_clock

pytestmark = pytest.mark.django_db

MIN = timedelta(minutes=1)


def entry(table):
    return f"/director/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}/enter/"


def round_post(client, table, values):
    """What the entry page posts: the pips typed, the round it shows, its key."""
    page = client.get(entry(table))
    form = page.context["form"]
    data = {name: form[name].value() for name in ("number", "shown_engine", "once")}
    players = table_sheet(table).players
    data.update({f"p{p.pk}": v for p, v in zip(players, values, strict=True)})
    return client.post(entry(table), data)


def remove_url(table, number):
    stage = table.stage
    return (
        f"/director/e/{stage.event.slug}/{stage.number}/table/{table.number}/round/{number}/remove/"
    )


def totals(stage):
    return {row.player.name: row.total for row in stage_standings(stage)}


@pytest.fixture
def tables(seated):
    return Table.objects.get(stage=seated, number=1), Table.objects.get(stage=seated, number=2)


# -- a round saved at the wrong table ----------------------------------------------------------


def test_a_round_removed_and_entered_again_at_the_right_table(director_client, tables):
    seven, eight = tables
    round_post(director_client, seven, [0, 5, 6, 7])
    round_post(director_client, eight, [0, 9, 9, 9])  # table 7's second round, on table 8's page
    wrong = Round.objects.get(table=eight)

    page = director_client.get(remove_url(eight, 1)).content.decode()
    assert "The table's next round is 12-12 again." in page
    response = director_client.post(
        remove_url(eight, 1),
        {"reason": "", "once": form_key(director_client.get(remove_url(eight, 1)))},
    )
    assert "This field is required" in response.content.decode()  # a reason first
    key = form_key(director_client.get(remove_url(eight, 1)))
    director_client.post(
        remove_url(eight, 1), {"reason": "saved at table 8 by mistake", "once": key}
    )
    assert not Round.objects.filter(pk=wrong.pk).exists()
    assert "Round 12-12" in director_client.get(entry(eight)).content.decode()

    round_post(director_client, seven, [0, 9, 9, 9])  # now at the right table
    stage = seven.stage
    by_name = totals(stage)
    for player, total in zip(table_sheet(seven).players, [0, 14, 15, 16], strict=True):
        assert by_name[player.name] == total
    assert all(by_name[p.name] == 0 for p in table_sheet(eight).players)
    removed = Action.objects.get(verb="round.removed")
    assert removed.reason == "saved at table 8 by mistake" and removed.data["engine"] == 12
    assert sorted(removed.data["pips"].values()) == [0, 9, 9, 9]  # what was removed is kept
    history = director_client.get(f"/director/e/{stage.event.slug}/history/").content.decode()
    assert "table 2: round 12-12 removed" in history and "saved at table 8 by mistake" in history


def test_only_the_last_round_can_be_removed(director_client, tables):
    seven, _ = tables
    play(seven, 2)
    page = director_client.get(remove_url(seven, 1)).content.decode()
    assert "Only the table's last round can be removed" in page
    key = form_key(director_client.get(remove_url(seven, 2)))
    director_client.post(remove_url(seven, 1), {"reason": "oops", "once": key})
    assert Round.objects.filter(table=seven).count() == 2


def test_removing_a_round_of_a_closed_stage_shows_what_it_changes_first(director_client, director):
    from tests.test_advancement import play_totals, short_event

    event = short_event(director)
    make_players(event, count=4)
    game1 = seat(event)
    table = Table.objects.get(stage=game1)
    play_totals(table, [1, 9, 9, 9])
    director_client.post(f"/director/e/{event.slug}/1/close/", {"action": "close"})
    page = director_client.get(remove_url(table, 2)).content.decode()
    assert "Game 1 is closed. Removing this round changes:" in page


# -- time called by mistake, minutes added --------------------------------------------------


def test_time_called_at_minute_20_and_taken_back_two_minutes_later(
    director_client, seated, director
):
    now = timezone.now()
    start_clock(seated, director, now - 22 * MIN)
    call_time(seated, director, now - 2 * MIN)
    url = f"/director/e/{seated.event.slug}/1/clock/"
    page = director_client.get(f"/e/{seated.event.slug}/1/")
    key = form_key(page)
    response = director_client.post(
        url, {"action": "undo_call", "reason": "meant to pause", "once": key}, follow=True
    )
    assert "Time called is taken back: 40:00 left, the clock runs." in response.content.decode()
    data = json.loads(director_client.get(f"/e/{seated.event.slug}/1/clock.json").content)
    assert data["state"] == "running" and 2395 <= data["remaining"] <= 2400
    stage = Stage.objects.get(pk=seated.pk)
    assert stage.time_called_at is None
    assert ClockEvent.objects.filter(action="undo_call", reason="meant to pause").count() == 1
    # the same form again (a double click, or a second director's device) changes nothing more
    director_client.post(url, {"action": "undo_call", "reason": "meant to pause", "once": key})
    assert ClockEvent.objects.filter(action="undo_call").count() == 1


def test_taking_back_time_called_reopens_the_games_it_ended(director_client, tables, director):
    seven, _ = tables
    play(seven, 3)
    start_clock(seven.stage, director, timezone.now() - 30 * MIN)
    call_time(seven.stage, director)
    director_client.post("/director/e/spring/1/table/1/game-over/", {"rounds": "3"})
    assert Table.objects.get(pk=seven.pk).game_over_after == 3
    director_client.post("/director/e/spring/1/clock/", {"action": "undo_call", "reason": "oops"})
    assert Table.objects.get(pk=seven.pk).game_over_after is None
    assert 'id="round-form"' in director_client.get(entry(seven)).content.decode()


def test_minutes_added_restart_a_clock_that_ran_out_during_a_break(
    director_client, seated, director
):
    start_clock(seated, director, timezone.now() - 65 * MIN)  # nobody paused for the break
    url = "/director/e/spring/1/clock/"
    response = director_client.post(
        url, {"action": "add_minutes", "minutes": "15", "reason": ""}, follow=True
    )
    assert "Give the reason." in response.content.decode()
    response = director_client.post(
        url, {"action": "add_minutes", "minutes": "15", "reason": "lunch break"}, follow=True
    )
    assert "15 minutes added" in response.content.decode()
    data = json.loads(director_client.get("/e/spring/1/clock.json").content)
    assert data["state"] == "running" and 590 <= data["remaining"] <= 600
    page = director_client.get("/e/spring/1/").content.decode()
    assert "Minutes added (15 min)" in page and "lunch break" in page


def test_the_undo_buttons_are_for_directors(client, seated, director):
    start_clock(seated, director)
    call_time(seated, director)
    client.post("/director/e/spring/1/clock/", {"action": "undo_call", "reason": "x"})
    assert Stage.objects.get(pk=seated.pk).time_called_at is not None


# -- a seating drawn too early -----------------------------------------------------------------


def test_a_seating_is_removed_while_no_round_is_entered(director_client, seated):
    url = f"/director/e/{seated.event.slug}/1/seat/"
    key = form_key(director_client.get(f"/e/{seated.event.slug}/1/seating/"))
    director_client.post(url, {"action": "clear", "reason": "drawn too early", "once": key})
    assert not Table.objects.filter(stage=seated).exists()
    assert Action.objects.filter(verb="stage.unseated").count() == 1


def test_a_seating_with_rounds_stays(director_client, tables):
    play(tables[0], 1)
    response = director_client.post(
        "/director/e/spring/1/seat/", {"action": "clear", "reason": "x"}, follow=True
    )
    assert "its seating stays" in response.content.decode()
    assert Table.objects.filter(stage=tables[0].stage).count() == 2


# -- each undo once, from two devices at once ------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_each_undo_sent_from_two_devices_at_once_changes_the_event_once(director):
    from tests.factories import make_event

    event = make_event(director, slug="two")
    make_players(event, count=8)
    stage = seat(event)
    seven = Table.objects.get(stage=stage, number=1)
    play(seven, 2)
    start_clock(stage, director, timezone.now() - 30 * MIN)
    call_time(stage, director)
    devices = [logged_in(director) for _ in range(2)]

    results = at_once(
        [
            lambda c=c, i=i: c.post(
                remove_url(seven, 2), {"reason": "wrong table", "once": f"k{i:020d}"}
            )
            for i, c in enumerate(devices)
        ]
    )
    no_errors(results)
    assert list(Round.objects.filter(table=seven).values_list("number", flat=True)) == [1]

    results = at_once(
        [
            lambda c=c: c.post("/director/e/two/1/clock/", {"action": "undo_call", "reason": "x"})
            for c in devices
        ]
    )
    no_errors(results)
    assert ClockEvent.objects.filter(stage=stage, action="undo_call").count() == 1
    assert Action.objects.filter(event=event, verb="round.removed").count() == 1
