"""Issue 28 item 5: players with no round yet are unranked, listed after those who played, and
a stage in progress says its standings are partial, on the page, its PDF and its exports."""

import csv
import io
import re

import pytest

from tests.factories import make_players, play, seat
from tests.test_standings import shown_rows
from tournament.models import Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def six_tables(event):
    """24 players seated at six tables of four in Game 1."""
    make_players(event, count=24)
    return seat(event)


def test_before_anyone_plays_nobody_is_ranked(client, six_tables):
    page = client.get(f"/e/{six_tables.event.slug}/1/").content.decode()
    rows = shown_rows(page)
    assert len(rows) == 24
    assert {row[0] for row in rows} == {"—"}
    assert "No round has been played yet: nobody is ranked." in page


def test_after_one_round_at_one_table_those_who_played_are_ranked_first(client, six_tables):
    first = Table.objects.get(stage=six_tables, number=1)
    play(first, 1)
    page = client.get(f"/e/{six_tables.event.slug}/1/").content.decode()
    rows = shown_rows(page)
    played, waiting = rows[:4], rows[4:]
    assert all(row[2] == "1" and row[3] == "1" for row in played)
    assert [row[0] for row in played][0] == "1"
    assert all(row[0] != "—" for row in played)
    assert len(waiting) == 20 and {row[0] for row in waiting} == {"—"}
    assert {row[4] for row in waiting} == {"—"}
    assert "Partial standings: 1 of 78 rounds played, 0 of 6 tables finished." in page


def test_the_partial_note_goes_once_every_table_has_finished(client, seated):
    for table in Table.objects.filter(stage=seated):
        play(table, 13)
    page = client.get(f"/e/{seated.event.slug}/1/").content.decode()
    assert "Partial standings" not in page
    assert "—" not in "".join(row[0] for row in shown_rows(page))


def test_the_standings_pdf_says_partial_and_leaves_the_unplayed_unranked(client, six_tables):
    import pdfplumber

    play(Table.objects.get(stage=six_tables, number=1), 2)
    response = client.get(f"/e/{six_tables.event.slug}/1/standings.pdf")
    assert response["Content-Type"] == "application/pdf"
    with pdfplumber.open(io.BytesIO(response.content)) as pdf:
        text = "\n".join(page.extract_text() for page in pdf.pages)
    assert "Partial standings: 2 of 78 rounds played, 0 of 6 tables finished." in text
    assert "T1" not in text and "T5" not in text
    waiting = [line for line in text.splitlines() if line.startswith("— Player")]
    assert len(waiting) == 20


def test_the_csv_export_leaves_the_place_of_the_unplayed_empty(client, six_tables):
    play(Table.objects.get(stage=six_tables, number=2), 1)
    response = client.get(f"/e/{six_tables.event.slug}/1/standings/export/?_export=csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    head, body = rows[0], rows[1:]
    place = head.index("Place")
    assert [row[place] for row in body[:4]] != ["", "", "", ""]
    assert all(row[place] for row in body[:4])
    assert [row[place] for row in body[4:]] == [""] * 20


def test_the_results_page_leaves_a_stage_in_progress_unranked_where_nobody_played(
    client, six_tables
):
    play(Table.objects.get(stage=six_tables, number=1), 1)
    page = client.get(f"/e/{six_tables.event.slug}/results/").content.decode()
    body = page.split('data-stage="1"', 1)[1].split("</tbody>", 1)[0]
    rows = [
        re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body)
    ]
    rows = [r for r in rows if r]
    assert len(rows) == 24
    assert all(r[0] != "—" and r[3] != "—" for r in rows[:4])
    assert all(r[0] == "—" and r[3] == "—" for r in rows[4:])
