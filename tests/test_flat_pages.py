"""Pages whose output does not grow with the event cost the same at any size (issue 14): the
same number of queries at 12 players as at 400, every page a phone, the room's screen or a
scorekeeper opens. Time is measured by the benchmark (`make bench`), never by a test."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring.services.infractions import log_infraction
from scoring.sheets import table_sheet
from tests.factories import make_director, make_event, make_players, play, seat
from tournament.models import Table
from tournament.services.clock import start_clock

pytestmark = pytest.mark.django_db

PUBLIC = [
    "/e/{slug}/",
    "/e/{slug}/1/clock.json",
    "/e/{slug}/1/clock/",
    "/e/{slug}/1/table/2/",
    "/e/{slug}/find/?q=Player",
    "/e/{slug}/player/{player}/",
]
SCOREKEEPING = ["/director/e/{slug}/1/table/2/enter/"]


def build(players: int, director):
    """An event of ``players`` players seated in Game 1, a round played at every table, two at
    table 2, an infraction and a running clock."""
    event = make_event(director, slug=f"size-{players}")
    make_players(event, count=players)
    stage = seat(event)
    tables = list(stage.tables.order_by("number"))
    for table in tables:
        play(table, 2 if table.number == 2 else 1, director)
    seated = tables[1].seats.select_related("player").first().player
    log_infraction(tables[1], seated, 12, "out_of_turn", "", director)
    start_clock(stage, director)
    return {"slug": event.slug, "player": seated.pk}


def queries(client, path: str) -> int:
    """The queries of a GET with nothing kept from an earlier one (clock.json keeps its count
    of finished tables until the event changes)."""
    cache.clear()
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return len(captured)


@pytest.fixture
def sizes():
    director = make_director()
    return director, build(12, director), build(400, director)


def test_every_page_asks_as_many_queries_at_400_players_as_at_12(sizes):
    director, small, large = sizes
    public, keeper = Client(), Client()
    keeper.force_login(director)
    counts = {}
    for path in PUBLIC + SCOREKEEPING:
        client = keeper if path in SCOREKEEPING else public
        queries(client, path.format(**small))  # the session and the like settle first
        counts[path] = (
            queries(client, path.format(**small)),
            queries(client, path.format(**large)),
        )
    assert {path: n for path, n in counts.items() if n[0] != n[1]} == {}
    assert counts["/e/{slug}/1/clock.json"][1] <= 4  # one aggregate, no sheet loaded
    assert "100 tables, 400 players" in public.get("/e/{slug}/".format(**large)).content.decode()


def test_clock_json_and_the_big_screen_count_the_finished_tables():
    director = make_director()
    small = build(12, director)
    client = Client()
    data = client.get("/e/{slug}/1/clock.json".format(**small)).json()
    assert data["table_count"] == 3 and data["finished_tables"] == []
    table = Table.objects.get(stage__event__slug=small["slug"], number=3)
    play(table, len(table_sheet(table).engines) - 1, director, seed=3)
    data = client.get("/e/{slug}/1/clock.json".format(**small)).json()
    assert data["finished_tables"] == [3]
    page = client.get("/e/{slug}/1/clock/".format(**small)).content.decode()
    assert '<ul id="finished-tables" data-clock-finished><li>3</li></ul>' in page


def test_clock_json_counts_the_finished_tables_once_per_change():
    """Every screen asks every few seconds: the count is made once per change of the event
    (the reading itself moves with time and is never kept)."""
    director = make_director()
    small = build(12, director)
    client, path = Client(), "/e/{slug}/1/clock.json".format(**small)
    cold = queries(client, path)
    with CaptureQueriesContext(connection) as captured:
        first = client.get(path).json()
    assert len(captured) == cold - 1  # the event and the stage; no count
    table = Table.objects.get(stage__event__slug=small["slug"], number=1)
    play(table, len(table_sheet(table).engines) - 1, director, seed=4)
    with CaptureQueriesContext(connection) as captured:
        after = client.get(path).json()
    assert len(captured) == cold and after["finished_tables"] == [1] != first["finished_tables"]
