"""The stage clock in the site (PRODUCT.md §5): the buttons, who pressed them, what score entry
may still do once time is called, the big screen and clock.json. The clock's arithmetic is
tests/test_clock.py's."""

import html
import io
import json
import re
from datetime import datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from pypdf import PdfReader

from scoring.models import Round
from scoring.services.rounds import RoundRejected, record_round
from scoring.sheets import table_sheet
from tests.factories import make_director, make_event, make_players, play, seat
from tests.test_advancement import advance_url, play_totals
from tournament.clock import read_clock
from tournament.forms import new_key
from tournament.game.clock import ClockError
from tournament.game.rules import confirm_after_time
from tournament.models import ClockEvent, Event, Stage, Table
from tournament.services.clock import call_time, pause_clock, resume_clock, start_clock

MIN = timedelta(minutes=1)


def hhmm(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%H:%M")


def text(response) -> str:
    return html.unescape(response.content.decode())


def entry_url(table):
    return f"/director/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}/enter/"


def control_url(stage):
    return f"/director/e/{stage.event.slug}/{stage.number}/clock/"


def big_url(stage):
    return f"/e/{stage.event.slug}/{stage.number}/clock/"


def json_url(stage):
    return f"/e/{stage.event.slug}/{stage.number}/clock.json"


def pips_form(table, values):
    players = table_sheet(table).players
    return {f"p{p.pk}": v for p, v in zip(players, values, strict=True)}


def a_round(table):
    return {p.pk: 5 + i for i, p in enumerate(table_sheet(table).players)}


def fresh(stage) -> Stage:
    return Stage.objects.select_related("event").get(pk=stage.pk)


def page_config(page: str) -> dict:
    """The clock's json_script on a page (the first one)."""
    found = re.search(r'<script type="application/json">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


@pytest.fixture
def table(seated):
    return Table.objects.get(stage=seated, number=1)


@pytest.fixture
def keeper_client(client, table):
    """The table's scorekeeper: bound by time called (a director may enter a late round)."""
    keeper = get_user_model().objects.create_user("desk-keeper")
    table.scorekeepers.add(keeper)
    client.force_login(keeper)
    return client


# -- the rule, as plain Python ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed_before_call", "typed", "confirm"),
    [
        (0, 0, False),  # paper-first: the first round typed after the call
        (0, 1, True),  # ... and every one after it is confirmed
        (4, 4, False),  # the round in progress
        (4, 5, True),
        (4, 9, True),
    ],
)
def test_a_round_beyond_the_one_in_progress_is_confirmed(typed_before_call, typed, confirm):
    assert confirm_after_time(typed_before_call, typed) is confirm


def test_round_counts_are_never_negative():
    with pytest.raises(ValueError, match="negative"):
        confirm_after_time(-1, 3)


# -- the buttons ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_every_button_is_saved_and_recorded_with_who_pressed_it(seated, director):
    t0 = timezone.now() - 40 * MIN
    start_clock(seated, director, t0)
    pause_clock(seated, director, t0 + 10 * MIN)
    resume_clock(seated, director, t0 + 12 * MIN)
    call_time(seated, director, t0 + 30 * MIN)

    stage = fresh(seated)
    assert stage.clock_started_at == t0
    assert stage.clock_paused_at is None
    assert stage.clock_paused_total == 2 * MIN
    assert stage.time_called_at == t0 + 30 * MIN
    assert [(e.action, e.at, e.by) for e in ClockEvent.objects.filter(stage=stage)] == [
        ("start", t0, director),
        ("pause", t0 + 10 * MIN, director),
        ("resume", t0 + 12 * MIN, director),
        ("call_time", t0 + 30 * MIN, director),
    ]
    reading = read_clock(stage)
    assert reading.state == "time_called"
    assert reading.remaining == timedelta(0)
    assert reading.elapsed == 28 * MIN


@pytest.mark.django_db
def test_the_clock_is_read_back_from_the_stage_the_same_everywhere(seated, director):
    t0 = timezone.now() - 20 * MIN
    start_clock(seated, director, t0)
    pause_clock(seated, director, t0 + 15 * MIN)
    for later in (0, 5, 500):
        reading = read_clock(fresh(seated), now=t0 + (15 + later) * MIN)
        assert (reading.state, reading.remaining, reading.digits) == ("paused", 45 * MIN, "45:00")


@pytest.mark.django_db
def test_a_button_that_cannot_be_pressed_changes_nothing(seated, director):
    with pytest.raises(ClockError, match="has not been started"):
        pause_clock(seated, director)
    start_clock(seated, director)
    with pytest.raises(ClockError, match="already been started"):
        start_clock(seated, director)
    call_time(seated, director)
    with pytest.raises(ClockError, match="Time has already been called"):
        call_time(seated, director)
    assert list(ClockEvent.objects.values_list("action", flat=True)) == ["start", "call_time"]


@pytest.mark.django_db
def test_a_closed_stages_clock_cannot_change(seated, director):
    Stage.objects.filter(pk=seated.pk).update(closed=True)
    with pytest.raises(ClockError, match="stage is closed"):
        start_clock(seated, director)
    assert not ClockEvent.objects.exists()


# -- who may press them -----------------------------------------------------------------------


@pytest.mark.django_db
def test_a_director_starts_the_clock_from_the_standings_page(director_client, seated, director):
    page = text(director_client.get(f"/e/spring/{seated.number}/"))
    assert 'id="clock-controls"' in page and "Start the clock" in page

    response = director_client.post(control_url(seated), {"action": "start"}, follow=True)
    assert response.redirect_chain[-1][0] == f"/e/spring/{seated.number}/"
    started = fresh(seated).clock_started_at
    assert f"Clock started at {hhmm(started)}." in text(response)
    page = text(response)
    assert "Start the clock" not in page and "Pause" in page and "Call time" in page
    assert re.search(r"Started by\s+boss", page)  # the clock log
    assert ClockEvent.objects.get().by == director


@pytest.mark.django_db
def test_a_button_pressed_at_the_wrong_time_says_why(director_client, seated):
    response = director_client.post(control_url(seated), {"action": "resume"}, follow=True)
    assert "The clock has not been started" in text(response)
    response = director_client.post(control_url(seated), {"action": "explode"}, follow=True)
    assert "Unknown clock button." in text(response)
    assert not ClockEvent.objects.exists()


@pytest.mark.django_db
def test_the_public_sees_the_clock_but_not_the_buttons(client, seated, director):
    start_clock(seated, director)
    page = text(client.get(f"/e/spring/{seated.number}/"))
    assert "data-clock" in page and "Running" in page
    assert 'id="clock-controls"' not in page and "Clock log" not in page


@pytest.mark.django_db
def test_only_directors_of_the_event_press_the_buttons(client, seated, table):
    response = client.post(control_url(seated), {"action": "start"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]

    keeper = get_user_model().objects.create_user("keeper")
    table.scorekeepers.add(keeper)
    client.force_login(keeper)
    assert client.post(control_url(seated), {"action": "start"}).status_code == 403

    other = make_director("other")
    make_event(other, slug="elsewhere")
    client.force_login(other)
    assert client.post(control_url(seated), {"action": "start"}).status_code == 403
    assert not ClockEvent.objects.exists()
    assert fresh(seated).clock_started_at is None


@pytest.mark.django_db
def test_the_buttons_are_post_only(director_client, seated):
    assert director_client.get(control_url(seated), {"action": "start"}).status_code == 405
    assert fresh(seated).clock_started_at is None


# -- score entry once time is called ----------------------------------------------------------


@pytest.mark.django_db
def test_rounds_are_entered_while_the_clock_runs_or_is_paused(director_client, table, director):
    start_clock(table.stage, director, timezone.now() - 57 * MIN)  # the last five minutes
    assert director_client.post(entry_url(table), pips_form(table, [0, 1, 2, 3])).status_code == 302
    pause_clock(table.stage, director)
    assert director_client.post(entry_url(table), pips_form(table, [1, 0, 2, 3])).status_code == 302
    assert Round.objects.count() == 2


def entry_post(table, values, **extra):
    """What the entry page posts: the pips typed, the round it shows, checkboxes ticked."""
    sheet = table_sheet(table)
    data = pips_form(table, values)
    data.update(number=len(sheet.rounds) + 1, shown_engine=sheet.next_engine, **extra)
    return data


def called_after(table, director, rounds_before, minutes=30):
    """The stage's clock started ``minutes`` ago; ``rounds_before`` typed; time called now."""
    play(table, rounds_before)
    start_clock(table.stage, director, timezone.now() - minutes * MIN)
    call_time(table.stage, director)
    return fresh(table.stage).time_called_at


@pytest.mark.django_db
def test_a_paper_first_table_types_seven_rounds_after_time(keeper_client, table, director):
    called = called_after(table, director, 0)
    page = text(keeper_client.get(entry_url(table)))
    assert f"Time was called at {hhmm(called)}: no new round starts." in page
    assert "Round 12-12" in page and "was played before time was called" not in page
    assert keeper_client.post(entry_url(table), entry_post(table, [0, 4, 5, 6])).status_code == 302

    # Round 2 onwards: more than one past what was typed before the call: confirm it.
    response = keeper_client.post(entry_url(table), entry_post(table, [4, 0, 5, 6]))
    assert "Tick the box if round 11-11 was played before time was called." in text(response)
    assert Round.objects.filter(table=table).count() == 1
    page = text(keeper_client.get(entry_url(table)))
    assert "Round 11-11 was played before time was called." in page
    for n in range(2, 8):
        extra = {"played_before_call": "on"}
        if n == 7:
            extra["last"] = "on"
        response = keeper_client.post(entry_url(table), entry_post(table, [n, 0, 5, 6], **extra))
        assert response.status_code == 302, text(response)
    assert [r.engine for r in table_sheet(table).rounds] == [12, 11, 10, 9, 8, 7, 6]
    page = text(keeper_client.get(entry_url(table)))
    assert "Game over after round 6-6 (time called)." in page
    assert 'id="round-form"' not in page
    with pytest.raises(RoundRejected, match=r"Game over after round 6-6 \(time called\)"):
        record_round(table, a_round(table), director, played_before_call=True)


@pytest.mark.django_db
def test_a_table_with_no_round_in_progress_ends_without_inventing_one(
    keeper_client, table, director
):
    called_after(table, director, 5)  # round 5 finished, round 6 never started
    page = text(keeper_client.get(entry_url(table)))
    assert "Game over after round 8-8" in page
    response = keeper_client.post(
        "/director/e/spring/1/table/1/game-over/", {"rounds": "5"}, follow=True
    )
    assert "Game over after round 8-8 (time called)." in text(response)
    assert Round.objects.filter(table=table).count() == 5
    assert Table.objects.get(pk=table.pk).game_over_after == 5
    assert table_sheet(Table.objects.get(pk=table.pk)).game_over


@pytest.mark.django_db
def test_the_game_over_mark_of_an_out_of_date_page_is_refused(keeper_client, table, director):
    called_after(table, director, 5)
    record_round(table, a_round(table), director)  # another device typed round 6 meanwhile
    response = keeper_client.post("/director/e/spring/1/table/1/game-over/", {"rounds": "5"})
    assert Table.objects.get(pk=table.pk).game_over_after is None
    page = text(keeper_client.get(response["Location"]))
    assert "Table 1 has 6 rounds now, not 5: reload the page." in page


@pytest.mark.django_db
def test_void_rule_the_round_in_progress_is_simply_not_entered(keeper_client, table, director):
    event = table.stage.event
    event.round_in_progress = "void"
    event.save()
    called_after(table, director, 3)
    page = text(keeper_client.get(entry_url(table)))
    assert "Under this event's rules the round in progress does not count: do not enter it." in page
    keeper_client.post("/director/e/spring/1/table/1/game-over/", {"rounds": "3"})
    assert [r.engine for r in table_sheet(table).rounds] == [12, 11, 10]
    assert table_sheet(Table.objects.get(pk=table.pk)).game_over


@pytest.mark.django_db
def test_a_game_is_marked_over_only_once_time_is_called(keeper_client, table, director):
    play(table, 2)
    start_clock(table.stage, director)
    response = keeper_client.post("/director/e/spring/1/table/1/game-over/", {"rounds": "2"})
    assert Table.objects.get(pk=table.pk).game_over_after is None
    assert "only once time has been called" in text(keeper_client.get(response["Location"]))
    keeper_client.post(entry_url(table), entry_post(table, [0, 1, 2, 3], last="on"))
    assert Table.objects.get(pk=table.pk).game_over_after is None  # no such box before time
    with pytest.raises(RoundRejected, match="only once time has been called"):
        record_round(table, a_round(table), director, last=True)


@pytest.mark.django_db
def test_a_director_takes_back_a_game_over_mark_with_a_reason(director_client, table, director):
    called_after(table, director, 4)
    director_client.post("/director/e/spring/1/table/1/game-over/", {"rounds": "4"})
    url = "/director/e/spring/1/table/1/reopen/"
    director_client.post(url, {"reason": ""})
    assert Table.objects.get(pk=table.pk).game_over_after == 4
    director_client.post(url, {"reason": "wrong table"})
    assert Table.objects.get(pk=table.pk).game_over_after is None
    assert 'id="round-form"' in text(director_client.get(entry_url(table)))


@pytest.mark.django_db
def test_the_history_names_a_game_over_by_its_last_rounds_engine(director_client, table, director):
    called_after(table, director, 4)
    director_client.post("/director/e/spring/1/table/1/game-over/", {"rounds": "4"})
    engine = Round.objects.get(table=table, number=4).engine
    history = text(director_client.get("/director/e/spring/history/"))
    assert f"table 1: game over after round {engine}-{engine}" in history


@pytest.mark.django_db
def test_the_close_waits_for_every_table_to_be_marked(director_client, table, director):
    other = Table.objects.get(stage=table.stage, number=2)
    play(other, 4)
    called_after(table, director, 5)
    close = f"/director/e/spring/{table.stage.number}/close/"
    page = text(director_client.get(close))
    assert "These tables still have rounds to play: 1, 2" in page
    fifth = Round.objects.get(table=table, number=5).engine  # rounds named by their engine
    assert f"Table 1: game over after round {fifth}-{fifth}" in page and 'value="2:4"' in page
    response = director_client.post(close, {"action": "end_games", "over": ["1:5", "2:4"]})
    assert [t.game_over_after for t in Table.objects.filter(stage=table.stage)] == [5, 4]
    assert "Game over at tables 1, 2." in text(director_client.get(response["Location"]))
    page = text(director_client.get(close))
    assert "still have rounds to play" not in page and "Confirm: close Game 1" in page


@pytest.mark.django_db
def test_a_table_that_finished_all_engines_before_time_is_complete(
    director_client, table, director
):
    event = table.stage.event
    event.engines = [2, 1, 0]
    event.save()
    play(table, 3)
    start_clock(table.stage, director, timezone.now() - 30 * MIN)
    call_time(table.stage, director)
    page = text(director_client.get(entry_url(table)))
    assert "Every round of this table has been entered: the game is over." in page
    data = json.loads(director_client.get(json_url(table.stage)).content)
    assert data["finished_tables"] == [1] and data["table_count"] == 2


@pytest.mark.django_db
def test_the_clock_calls_time_by_itself_when_it_runs_out(director_client, table, director):
    now = timezone.now()
    play(table, 2)
    Round.objects.filter(table=table).update(entered_at=now - 40 * MIN)
    start_clock(table.stage, director, now - 61 * MIN)  # ran out a minute ago
    ran_out = now - MIN

    stage = fresh(table.stage)
    assert stage.time_called_at is None  # nothing written: it is computed
    data = json.loads(director_client.get(json_url(stage)).content)
    assert (data["state"], data["remaining"]) == ("time_called", 0)
    assert data["time_called_at"] == ran_out.isoformat()

    notice = f"Time was called at {hhmm(ran_out)}: no new round starts."
    assert notice in text(director_client.get(entry_url(table)))
    record_round(table, a_round(table), director)  # the round in progress
    with pytest.raises(RoundRejected, match="confirm that round 4 was played before the call"):
        record_round(table, a_round(table), director)

    response = director_client.post(control_url(stage), {"action": "call_time"}, follow=True)
    assert "Time has already been called" in text(response)
    page = text(director_client.get(f"/e/spring/{stage.number}/"))
    assert "Time ran out: the clock called time by itself" in page


# -- clock.json and the big screen ------------------------------------------------------------


@pytest.mark.django_db
def test_clock_json_before_the_start(client, seated):
    response = client.get(json_url(seated))
    assert response["Content-Type"] == "application/json"
    assert "no-cache" in response["Cache-Control"]
    data = response.json()
    assert data["state"] == "not_started" and data["timed"] is True
    assert data["remaining"] == 3600 and data["elapsed"] == 0
    assert data["last_minutes"] is False and data["time_called_at"] is None
    server_time = datetime.fromisoformat(data["server_time"])
    assert abs(server_time - timezone.now()) < 5 * MIN
    assert data["finished_tables"] == [] and data["table_count"] == 2


@pytest.mark.django_db
def test_clock_json_counts_down_while_running(client, seated, director):
    start_clock(seated, director, timezone.now() - 10 * MIN)
    data = client.get(json_url(seated)).json()
    assert data["state"] == "running" and data["label"] == "Running"
    assert 3000 - 5 < data["remaining"] <= 3000


@pytest.mark.django_db
def test_clock_json_is_frozen_while_paused(client, seated, director):
    t0 = timezone.now() - 30 * MIN
    start_clock(seated, director, t0)
    pause_clock(seated, director, t0 + 10 * MIN)
    first = client.get(json_url(seated)).json()
    second = client.get(json_url(seated)).json()
    assert first["state"] == second["state"] == "paused"
    assert first["remaining"] == second["remaining"] == 3000


@pytest.mark.django_db
def test_clock_json_of_an_unknown_stage_is_404(client, seated):
    assert client.get("/e/spring/9/clock.json").status_code == 404


@pytest.mark.django_db
def test_the_big_screen_shows_event_stage_digits_and_state(client, seated, director):
    start_clock(seated, director, timezone.now() - 10 * MIN)
    response = client.get(big_url(seated))
    page = text(response)
    assert "Spring Games" in page and "Game 1" in page
    assert 'data-state="running"' in page and "data-last" not in page
    assert re.search(r'id="big-digits"[^>]*>(50:00|49:5\d)<', page)
    assert "no-cache" in response["Cache-Control"]
    config = page_config(response.content.decode())
    assert config["url"] == json_url(seated)
    assert config["clock"]["state"] == "running"
    assert config["last_seconds"] == 300
    assert config["labels"]["time_called"] == "Time called"


@pytest.mark.django_db
def test_the_big_screen_turns_in_the_last_five_minutes(client, seated, director):
    start_clock(seated, director, timezone.now() - 56 * MIN)
    page = text(client.get(big_url(seated)))
    assert re.search(r'data-state="running"\s+data-last', page)
    assert "Last five minutes" in page


@pytest.mark.django_db
def test_the_big_screen_at_time_called(client, seated, director):
    start_clock(seated, director, timezone.now() - 30 * MIN)
    call_time(seated, director)
    called = fresh(seated).time_called_at
    page = text(client.get(big_url(seated)))
    assert 'data-state="time_called"' in page
    assert re.search(r'id="big-digits"[^>]*>0:00<', page)
    assert f"Time called at {hhmm(called)}" in page
    assert "Finish the round in progress; no new round starts." in page


@pytest.mark.django_db
def test_the_big_screen_lists_the_tables_that_finished(client, seated):
    event = seated.event
    event.engines = [1, 0]
    event.save()
    play(Table.objects.get(stage=seated, number=2), 2)
    page = text(client.get(big_url(seated)))
    assert '<ul id="finished-tables" data-clock-finished><li>2</li></ul>' in page


def count_queries(client, url):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["clock/", "clock.json"])
def test_the_room_pages_use_a_fixed_number_of_queries_whatever_the_size(client, path):
    small, large = make_event(), make_event()
    make_players(small, count=8)
    make_players(large, count=60)
    for event in (small, large):
        stage = seat(event)
        start_clock(stage, event.directors.get())
        for table in Table.objects.filter(stage=stage):
            play(table, 3)
    assert count_queries(client, f"/e/{small.slug}/1/{path}") == count_queries(
        client, f"/e/{large.slug}/1/{path}"
    )


# -- the clock on the entry pages and the event home ------------------------------------------


@pytest.mark.django_db
def test_the_entry_page_and_the_event_home_show_the_time_left(client, director_client, table):
    start_clock(table.stage, table.stage.event.directors.get(), timezone.now() - 15 * MIN)
    for page, url in (
        # a table's page reads its own clock (the minutes a director gave it: none here)
        (text(director_client.get(entry_url(table))), json_url(table.stage) + "?table=1"),
        (text(client.get("/e/spring/")), json_url(table.stage)),
    ):
        assert "Time left" in page and 'data-state="running"' in page
        assert re.search(r"data-clock-digits[^>]*>(45:00|44:5\d)<", page)
        assert "js/clock.js" in page
        assert page_config(page)["url"] == url


@pytest.mark.django_db
def test_the_event_home_shows_a_clock_only_for_seated_open_stages(client, seated):
    page = text(client.get("/e/spring/"))
    assert page.count("data-clock ") == 1  # Game 1; the Final is not seated yet


@pytest.mark.django_db
def test_names_in_the_page_are_escaped(client, seated):
    Stage.objects.filter(pk=seated.pk).update(name="<b>Game 1</b>")
    page = client.get(big_url(seated)).content.decode()
    assert "<b>Game 1</b>" not in page and "&lt;b&gt;Game 1&lt;/b&gt;" in page


# -- untimed stages work as before ------------------------------------------------------------


@pytest.fixture
def untimed(db):
    director = make_director("boss")
    event = make_event(director, name="Club Night", slug="club", game_minutes=None)
    make_players(event, count=4)
    return seat(event)


@pytest.mark.django_db
def test_an_untimed_stage_shows_no_clock_and_enters_every_round(client, untimed):
    client.force_login(untimed.event.directors.get())
    table = Table.objects.get(stage=untimed, number=1)
    page = text(client.get(entry_url(table)))
    assert "data-clock" not in page and "Time left" not in page
    play(table, 13)
    assert table_sheet(table).all_engines_played
    data = client.get(json_url(untimed)).json()
    assert (data["state"], data["timed"], data["remaining"]) == ("not_started", False, None)
    assert data["finished_tables"] == [1]


@pytest.mark.django_db
def test_an_untimed_clock_counts_up_and_time_can_still_be_called(client, untimed):
    director = untimed.event.directors.get()
    start_clock(untimed, director, timezone.now() - 20 * MIN)
    data = client.get(json_url(untimed)).json()
    assert data["state"] == "untimed" and data["remaining"] is None
    assert 1200 <= data["elapsed"] < 1205
    page = text(client.get(big_url(untimed)))
    assert "Time played" in page and re.search(r'id="big-digits"[^>]*>20:0\d<', page)

    call_time(untimed, director)
    table = Table.objects.get(stage=untimed, number=1)
    record_round(table, a_round(table), director)  # the round in progress
    with pytest.raises(RoundRejected, match="confirm that round 2 was played before the call"):
        record_round(table, a_round(table), director)


@pytest.mark.django_db
def test_marking_from_the_close_page_is_all_or_nothing(director_client, table, director):
    other = Table.objects.get(stage=table.stage, number=2)
    play(other, 4)
    called_after(table, director, 5)
    close = f"/director/e/spring/{table.stage.number}/close/"
    response = director_client.post(close, {"action": "end_games", "over": ["1:5", "2:3"]})
    assert [t.game_over_after for t in Table.objects.filter(stage=table.stage)] == [None, None]
    page = text(director_client.get(response["Location"]))
    assert "Table 2 has 4 rounds now, not 3: reload the page." in page


# -- every screen follows the buttons within one poll (issue 28 item 3) -----------------------


def shown_version(client) -> int:
    """What every live screen asks every LIVE_REFRESH_SECONDS (static/js/live.js)."""
    response = client.get("/e/spring/version.json")
    assert response.status_code == 200 and len(response.content) < 40  # a few bytes
    return response.json()["version"]


@pytest.mark.django_db
def test_every_clock_button_moves_the_version_every_screen_asks(director_client, client, seated):
    presses = [
        {"action": "start"},
        {"action": "pause"},
        {"action": "resume"},
        {"action": "add_minutes", "minutes": "5", "reason": "Fire drill"},
        {"action": "call_time"},
        {"action": "undo_call", "reason": "Pressed by mistake"},
    ]
    for posted in presses:
        before = shown_version(client)
        form = {**posted, "once": new_key()}
        assert director_client.post(control_url(seated), form).status_code == 302
        moved = shown_version(client)
        assert moved > before, posted["action"]
        director_client.post(control_url(seated), form)  # the same press, sent again
        assert shown_version(client) == moved, posted["action"]
    # A button that cannot be pressed now changes nothing a screen would read again.
    director_client.post(control_url(seated), {"action": "resume", "once": new_key()})
    assert shown_version(client) == moved
    assert ClockEvent.objects.count() == len(presses)


def clock_asks(page: str) -> dict:
    """The version a page's clock asks for (data- attributes of its [data-clock] element)."""
    found = re.search(r"<(?:section|main)[^>]*\bdata-clock\b[^>]*>", page)
    assert found, "no clock on the page"
    return dict(re.findall(r'data-(refresh|version|version-url)="([^"]*)"', found.group(0)))


@pytest.mark.django_db
def test_every_page_showing_the_clock_reads_it_again_when_the_event_changes(
    client, director_client, table, director, settings
):
    settings.LIVE_REFRESH_SECONDS = 2
    stage = table.stage
    Event.objects.filter(pk=stage.event_id).update(table_entry=True)  # phones score tables
    start_clock(stage, director)
    phone = Client()
    first = table.seats.order_by("position").first().player
    assert phone.post(f"/t/{table.code}/", {"player": first.pk}).status_code == 302  # "It's me"
    pages = {
        "standings (director)": director_client.get("/e/spring/1/"),
        "standings (public)": client.get("/e/spring/1/"),
        "event home": client.get("/e/spring/"),
        "entry page": director_client.get(entry_url(table)),
        "dashboard": director_client.get("/director/e/spring/1/dashboard/"),
        "phone's table page": phone.get(f"/t/{table.code}/enter/"),
        "big screen": client.get(big_url(stage)),
    }
    version = str(fresh(stage).event.version)
    for name, response in pages.items():
        assert response.status_code == 200, name
        page = response.content.decode()
        assert clock_asks(page) == {
            "refresh": "2",
            "version": version,
            "version-url": "/e/spring/version.json",
        }, name
        assert "js/clock.js" in page and "js/live.js" in page, name


# -- a one-round playoff has no clock ----------------------------------------------------------


CLOCK_WORDS = {
    "en": ("Time left", "Start the clock", "A playoff is one round: it has no clock."),
    "fr": (
        "Temps restant",
        "Démarrer le",
        "Un barrage se joue en une manche : sans chronomètre.",
    ),
}


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_one_round_playoff_shows_no_game_clock(client, director_client, director, language):
    """A tie at a table's top under the playoff rule: its one-round playoff is not a 60-minute
    game. Its pages (table, entry, phone, standings, dashboard, event home, printed sheet)
    show no clock and no clock button; the big screen has none to show; a start is refused."""
    headers = {"HTTP_ACCEPT_LANGUAGE": language}
    left, start, refused = CLOCK_WORDS[language]
    event = make_event(director, engines=[1, 0], game_minutes=60, finals_top_n=1)
    Event.objects.filter(pk=event.pk).update(advancement_tie="playoff", table_entry=True)
    make_players(event, count=8)
    game1 = seat(event)
    assert left in text(client.get(f"/e/{event.slug}/", **headers))  # a game's 60 minutes
    t1, t2 = Table.objects.filter(stage=game1).order_by("number")
    tied = play_totals(t1, [5, 5, 20, 30])
    play_totals(t2, [40, 12, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    playoff = Stage.objects.get(event=event, kind="playoff")
    table = playoff.tables.get()
    phone = Client()
    assert phone.post(f"/t/{table.code}/", {"player": tied[0].pk}).status_code == 302
    n = playoff.number
    pages = {
        "table page": client.get(f"/e/{event.slug}/{n}/table/1/", **headers),
        "entry page": director_client.get(entry_url(table), **headers),
        "phone": phone.get(f"/t/{table.code}/enter/", **headers),
        "standings (public)": client.get(f"/e/{event.slug}/{n}/", **headers),
        "standings (director)": director_client.get(f"/e/{event.slug}/{n}/", **headers),
        "dashboard": director_client.get(f"/director/e/{event.slug}/{n}/dashboard/", **headers),
        "event home": director_client.get(f"/e/{event.slug}/", **headers),
    }
    for name, response in pages.items():
        assert response.status_code == 200, name
        page = text(response)
        assert "data-clock" not in page and "60:00" not in page, name
        assert left not in page and start not in page, name
    assert client.get(big_url(playoff)).status_code == 404
    assert client.get(json_url(playoff)).status_code == 404
    pressed = director_client.post(
        control_url(playoff), {"action": "start"}, follow=True, **headers
    )
    assert refused in text(pressed) and fresh(playoff).clock_started_at is None
    sheet = client.get(f"/e/{event.slug}/{n}/table/1/blank-sheet.pdf", **headers)
    printed = PdfReader(io.BytesIO(sheet.content)).pages[0].extract_text()
    assert tied[0].name in printed and "Clock start" not in printed
    assert "Début du chronomètre" not in printed
