import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.services.rounds import record_round
from scoring.sheets import table_sheet
from tests.factories import make_event, make_players, play, seat
from tournament.models import Table

pytestmark = pytest.mark.django_db


def enter(table, values):
    players = table_sheet(table).players
    record_round(table, dict(zip([p.pk for p in players], values, strict=True)), None)
    return players


def shown_rows(page: str) -> list[list[str]]:
    """The standings rows as the page shows them: place, player, table, rounds, total, ..."""
    body = page.split('id="standings"', 1)[1].split("<tbody", 1)[1].split("</tbody>", 1)[0]
    return [
        [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body)
    ]


def test_standings_are_public_and_list_place_player_table_rounds_total(client, seated):
    t1, t2 = Table.objects.filter(stage=seated)
    a = enter(t1, [0, 10, 20, 30])
    enter(t2, [5, 0, 15, 25])
    response = client.get(f"/e/{seated.event.slug}/1/")
    rows = [
        (r.place, r.player.name, r.table.number, r.rounds, r.total)
        for r in response.context["rows"]
    ]
    assert rows[0] == (1, a[0].name, 1, 1, 0)
    assert [r[4] for r in rows] == [0, 0, 5, 10, 15, 20, 25, 30]
    page = response.content.decode()
    assert 'id="standings"' in page and a[3].name in page


def test_tied_totals_share_a_place(client, seated):
    t1, t2 = Table.objects.filter(stage=seated)
    enter(t1, [0, 10, 20, 30])
    enter(t2, [5, 0, 10, 25])
    response = client.get(f"/e/{seated.event.slug}/1/")
    places = [(r.place, r.total) for r in response.context["rows"]]
    assert places == [(1, 0), (1, 0), (3, 5), (4, 10), (4, 10), (6, 20), (7, 25), (8, 30)]
    assert ">T1<" in response.content.decode() and ">T4<" in response.content.decode()


def test_standings_sort_by_any_column(client, seated):
    t1, _ = Table.objects.filter(stage=seated)
    enter(t1, [0, 10, 20, 30])
    page = client.get(f"/e/{seated.event.slug}/1/?sort=-total").content.decode()
    assert [row[4] for row in shown_rows(page)][:2] == ["30", "20"]
    assert '<th class="desc orderable" scope="col"><a href="?sort=total">Total</a>' in page
    page = client.get(f"/e/{seated.event.slug}/1/?sort=player").content.decode()
    names = [row[1] for row in shown_rows(page)]
    assert names == sorted(names) and len(names) == 8


def test_the_table_sheet_shows_rounds_and_totals(client, seated):
    t1 = Table.objects.get(stage=seated, number=1)
    play(t1, 3)
    response = client.get(f"/e/{seated.event.slug}/1/table/1/")
    sheet = response.context["sheet"]
    assert len(sheet.rounds) == 3
    page = response.content.decode()
    for p, total, _place in sheet.columns():
        assert p.name in page and f'data-player="{p.pk}">{total}<' in page


def test_find_my_table_by_part_of_a_name(client, event):
    make_players(event, ["Ann Lee", "Bo Diaz", "Anne-Marie Roy", "Cy Young"])
    seat(event)
    page = client.get(f"/e/{event.slug}/find/?q=ann").content.decode()
    assert "Ann Lee" in page and "Anne-Marie Roy" in page and "Bo Diaz" not in page
    assert "Game 1: <a" in page and "Table 1" in page
    assert "No player named" in client.get(f"/e/{event.slug}/find/?q=zed").content.decode()


def test_event_home_lists_the_stages(client, seated):
    page = client.get(f"/e/{seated.event.slug}/").content.decode()
    assert "Game 1" in page and "Final" in page and "2 tables, 8 players" in page


def test_an_unknown_stage_is_a_404(client, seated):
    assert client.get(f"/e/{seated.event.slug}/9/").status_code == 404


def count_queries(client, url):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


@pytest.mark.parametrize("path", ["", "seating/", "table/1/"])
def test_pages_use_a_fixed_number_of_queries_whatever_the_size(client, path):
    small, large = make_event(), make_event()
    make_players(small, count=8)
    make_players(large, count=60)
    for event in (small, large):
        stage = seat(event)
        for table in Table.objects.filter(stage=stage):
            play(table, 3)
    assert count_queries(client, f"/e/{small.slug}/1/{path}") == count_queries(
        client, f"/e/{large.slug}/1/{path}"
    )


def test_find_my_table_uses_a_fixed_number_of_queries(client):
    small, large = make_event(), make_event()
    make_players(small, [f"Ann {i}" for i in range(4)])
    make_players(large, [f"Ann {i}" for i in range(40)])
    seat(small), seat(large)
    assert count_queries(client, f"/e/{small.slug}/find/?q=ann") == count_queries(
        client, f"/e/{large.slug}/find/?q=ann"
    )
