"""Pages whose output does not grow with the event cost the same at any size (issue 14): the
same number of queries at 12 players as at 400, every page a phone, the room's screen or a
scorekeeper opens; and once the event is finished (issue 32 item 2), every stage closed and the
later stages seated, a playoff among them, at 12 players as at 40. Time is measured by the
benchmark (`make bench`), never by a test."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring.services.infractions import log_infraction
from scoring.services.rounds import correct_round
from scoring.services.simulation import play_to_medals
from scoring.sheets import table_sheet
from tests.factories import make_director, make_event, make_players, play, seat
from tests.test_advancement import play_totals
from tournament.models import Seat, Stage, StageKind, Table
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


# -- a finished event (issue 32 item 2) ---------------------------------------------------------

FINISHED = [
    "/e/{slug}/",
    "/e/{slug}/bracket/",
    "/e/{slug}/results/",
    "/e/{slug}/find/?q=Player",
    "/e/{slug}/player/{player}/",
    "/e/{slug}/1/clock/",
    "/e/{slug}/1/clock.json",
    "/e/{slug}/{final}/clock/",
    "/e/{slug}/{final}/clock.json",
]


def finished(players: int, director):
    """An event played to its medals: Game 1 (two rounds) with a tie at the top of the first
    table of each twenty players (one playoff at 12 players, two at 40), the playoffs, the
    semifinal when the field has one, the Final, every stage closed. The player looked at
    played Game 1 and a playoff."""
    event = make_event(
        director,
        slug=f"finished-{players}",
        engines=[1, 0],
        game_minutes=None,
        advancement_tie="playoff",
        medal_tie="playoff",
    )
    make_players(event, count=players)
    game1 = seat(event)
    for table in game1.tables.all():
        top = [10, 10] if table.number <= max(1, players // 20) else [5, 10]
        play_totals(table, top + [20, 30, 40, 50][: table.seats.count() - 2])
    play_to_medals(event, 7, director)
    stages = Stage.objects.filter(event=event)
    assert not stages.filter(closed=False).exists()
    playoff = stages.filter(kind=StageKind.PLAYOFF).first()
    return {
        "slug": event.slug,
        "final": stages.get(kind=StageKind.FINAL).number,
        "player": Seat.objects.filter(stage=playoff).first().player_id,
    }


@pytest.fixture
def finished_sizes():
    director = make_director()
    return director, finished(12, director), finished(40, director)


def test_a_finished_events_pages_ask_as_many_queries_at_40_players_as_at_12(finished_sizes):
    """Each page, rendered afresh after a change (nothing kept) and kept: the seating-conflict
    note, the stages' counts and a playoff's name ask no query per player, table or playoff."""
    _director, small, large = finished_sizes
    large_stages = Stage.objects.filter(event__slug=large["slug"])
    assert large_stages.filter(kind=StageKind.SEMIFINAL).exists()
    assert large_stages.filter(kind=StageKind.PLAYOFF).count() == 2
    client = Client()
    counts = {}
    for path in FINISHED:
        queries(client, path.format(**small))  # the session and the like settle first
        for shape in (small, large):
            cold = queries(client, path.format(**shape))
            with CaptureQueriesContext(connection) as kept:
                assert client.get(path.format(**shape)).status_code == 200
            counts.setdefault(path, []).append((cold, len(kept)))
    assert {path: n for path, n in counts.items() if n[0] != n[1]} == {}
    assert counts["/e/{slug}/"][0][1] <= 3  # the event, its stages; nothing of its tables


def test_a_correction_after_the_final_is_seated_shows_on_the_finished_events_pages(client):
    """The note is kept for the event's version: the correction, a write, moves it."""
    director = make_director()
    shape = finished(12, director)
    home = "/e/{slug}/".format(**shape)
    assert "changed who advances" not in client.get(home).content.decode()
    table = Table.objects.get(stage__event__slug=shape["slug"], stage__number=1, number=2)
    sheet = table_sheet(table)
    winner, second = sheet.players[0], sheet.players[1]  # totals 5 and 10
    last = table.rounds.order_by("-number").first()
    pips = {s.player_id: s.pips for s in last.scores.all()}
    pips[winner.pk] += 10  # 15: the second wins the table
    correct_round(last, pips, director, "Sheet misread")
    for page in (home, "/e/{slug}/bracket/".format(**shape)):
        text = client.get(page).content.decode()
        assert "A correction to Game 1 changed who advances, but Final is already seated." in text
        assert f"Advance now: {second.name}" in text
        assert f"Seated but no longer advance: {winner.name}" in text
    with CaptureQueriesContext(connection) as kept:
        assert "The directors are deciding." in client.get(home).content.decode()
    assert len(kept) <= 3  # worked out once for this version, not on every view
