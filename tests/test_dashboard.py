"""The director's dashboard (issue 16 item 2): every table of a stage at a glance, quiet tables
flagged after the set time (an injected clock), a fixed number of queries."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from scoring.dashboard import tiles
from scoring.sheets import stage_sheets
from tests.factories import make_director, make_players, play, seat
from tournament.clock import stage_clock
from tournament.game.clock import Clock
from tournament.services.clock import pause_clock, start_clock

pytestmark = pytest.mark.django_db

QUIET = timedelta(minutes=15)


def tile_texts(page: str) -> dict[int, str]:
    """Table number -> the tile's text, as a director reads it."""
    found = re.findall(r'<li class="dashboard-tile([^"]*)" id="tile-(\d+)">(.*?)</li>', page, re.S)
    return {int(n): cls + " " + re.sub(r"<[^>]+>|\s+", " ", body) for cls, n, body in found}


def test_every_table_is_a_tile_with_its_rounds_next_engine_and_last_save(director_client, seated):
    t1, t2 = seated.tables.order_by("number")
    play(t1, 3)
    page = director_client.get("/director/e/spring/1/dashboard/").content.decode()
    tiles_shown = tile_texts(page)
    assert set(tiles_shown) == {1, 2}
    assert "3 of 13 rounds" in tiles_shown[1] and "Next: 9-9" in tiles_shown[1]
    assert "Last round saved" in tiles_shown[1]
    assert "0 of 13 rounds" in tiles_shown[2] and "No round yet" in tiles_shown[2]
    assert 'href="/director/e/spring/1/table/2/enter/"' in page  # one tap to the entry page


def test_a_table_quiet_for_the_set_time_is_flagged_while_the_clock_runs(director, seated):
    t1, _t2 = seated.tables.order_by("number")
    start = timezone.now() - timedelta(minutes=40)
    start_clock(seated, director, now=start)
    play(t1, 1)  # saved just now: table 1 is busy, table 2 has said nothing for 40 minutes
    sheets = stage_sheets(seated)
    clock = stage_clock(seated)
    flagged = {t.sheet.table.number: t.quiet for t in tiles(sheets, clock, timezone.now(), QUIET)}
    assert flagged == {1: False, 2: True}
    # Not before the set time: 14 minutes after the start nobody is quiet yet.
    early = start + timedelta(minutes=14)
    assert not any(t.quiet for t in tiles(sheets, clock, early, QUIET))
    # Table 1 goes quiet 15 minutes after its round.
    later = timezone.now() + QUIET
    assert all(t.quiet for t in tiles(sheets, clock, later, QUIET))


def test_nobody_is_quiet_while_the_clock_is_paused_or_not_started(director, seated):
    sheets = stage_sheets(seated)
    never = Clock.for_minutes(60)
    assert not any(t.quiet for t in tiles(sheets, never, timezone.now(), QUIET))
    start_clock(seated, director, now=timezone.now() - timedelta(minutes=40))
    pause_clock(seated, director, now=timezone.now() - timedelta(minutes=30))
    assert not any(
        t.quiet for t in tiles(stage_sheets(seated), stage_clock(seated), timezone.now(), QUIET)
    )


def test_the_page_shows_the_flag_and_the_count(director, director_client, seated):
    start_clock(seated, director, now=timezone.now() - timedelta(minutes=20))
    page = director_client.get("/director/e/spring/1/dashboard/").content.decode()
    assert "2 quiet for 15 minutes or more" in page
    assert all(
        "quiet" in text and "Quiet: no round saved lately" in text
        for text in tile_texts(page).values()
    )


def test_only_the_events_directors_see_it(seated):
    assert Client().get("/director/e/spring/1/dashboard/").status_code == 302  # log in first
    stranger = Client()
    stranger.force_login(make_director("stranger"))
    assert stranger.get("/director/e/spring/1/dashboard/").status_code == 403


def test_the_dashboard_costs_the_same_queries_at_any_size(
    director, director_client, event, django_assert_num_queries
):
    make_players(event, count=8)
    seat(event)
    url = "/director/e/spring/1/dashboard/"
    with CaptureQueriesContext(connection) as small:
        director_client.get(url)
    event.players.all().delete()
    for table in list(event.stages.get(number=1).tables.all()):
        table.delete()
    make_players(event, count=80)
    stage = seat(event)
    for table in stage.tables.all()[:5]:
        play(table, 2)
    with django_assert_num_queries(len(small.captured_queries)):
        response = director_client.get(url)
    assert len(tile_texts(response.content.decode())) == 20
