"""Pictures (issue 16 item 4): a table's running totals and a stage's spread, drawn as SVG by
the server. Read back from the page: the points must say what the sheet says."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.charts import BOTTOM, HEIGHT, TOP, nice_ceiling, spread_chart
from scoring.sheets import stage_sheets, table_sheet
from tests.factories import play

pytestmark = pytest.mark.django_db


def values_drawn(points: str, top: int) -> list[int]:
    """The totals a polyline's points stand for, read back through the chart's scale."""
    plot = HEIGHT - TOP - BOTTOM
    ys = [float(p.split(",")[1]) for p in points.split()]
    return [round(top * (1 - (y - TOP) / plot)) for y in ys]


def test_the_tables_chart_draws_each_players_running_totals(client, seated):
    table = seated.tables.get(number=1)
    play(table, 4)
    sheet = table_sheet(table)
    page = client.get(f"/e/spring/1/table/{table.number}/").content.decode()
    lines = re.findall(r'<polyline class="chart-line" points="([^"]+)"', page)
    titles = re.findall(r"<polyline[^>]*><title>([^<]+)</title>", page)
    assert len(lines) == len(sheet.players) == len(titles)
    top = nice_ceiling(max(sheet.totals.values()))
    for player, points, title in zip(sheet.players, lines, titles, strict=True):
        running = [r.totals[player.pk] for r in sheet.rounds]
        assert values_drawn(points, top) == [0, *running]  # from 0 before the first round
        assert title == f"{player.name}: " + ", ".join(map(str, running))
    labels = re.findall(r'text-anchor="middle" font-size="10" fill="#212529">(\d+)<', page)
    assert labels == [str(r.engine) for r in sheet.rounds]  # 12, 11, 10, 9


def test_no_chart_before_the_first_round(client, seated):
    page = client.get("/e/spring/1/table/1/").content.decode()
    assert 'id="totals-chart"' not in page


def test_the_standings_show_the_spread_of_totals(client, seated):
    for table in seated.tables.all():
        play(table, 3)
    totals = [s.totals[p.pk] for s in stage_sheets(seated) for p in s.players]
    page = client.get("/e/spring/1/").content.decode()
    counts = [
        int(n)
        for n in re.findall(r"<rect class=\"chart-bar\"[^>]*><title>[^<]*: (\d+) player", page)
    ]
    assert sum(counts) == len(totals) == 8
    assert "Spread of totals, 8 players" in page


@given(st.lists(st.integers(min_value=0, max_value=900), min_size=1, max_size=300))
def test_every_total_falls_in_exactly_one_bar(totals):
    chart = spread_chart(totals)
    assert sum(b.count for b in chart.bars) == len(totals)
    for total in totals:
        assert sum(b.low <= total <= b.high for b in chart.bars) == 1
    assert max(b.height for b in chart.bars) == HEIGHT - TOP - BOTTOM  # the tallest fills


@pytest.mark.parametrize(
    "value, top", [(0, 10), (7, 10), (11, 20), (95, 100), (101, 200), (230, 500), (731, 1000)]
)
def test_the_axis_top_is_a_round_number_at_or_above_the_highest_total(value, top):
    assert nice_ceiling(value) == top


def test_a_players_page_draws_the_total_of_each_game(client, seated):
    table = seated.tables.get(number=1)
    play(table, 3)
    sheet = table_sheet(table)
    player = sheet.players[0]
    page = client.get(f"/e/spring/player/{player.pk}/").content.decode()
    bars = re.findall(
        r'<rect class="chart-bar"[^>]*height="([\d.]+)"[^>]*><title>([^<]+)</title>', page
    )
    assert [title for _, title in bars] == [f"Game 1: {sheet.totals[player.pk]}"]
    top = nice_ceiling(sheet.totals[player.pk])
    height = float(bars[0][0])
    assert round(top * height / (HEIGHT - TOP - BOTTOM)) == sheet.totals[player.pk]


def test_the_standings_pdf_carries_the_spread_of_totals(client, seated):
    import io

    from pypdf import PdfReader

    for table in seated.tables.all():
        play(table, 2)
    pdf = client.get("/e/spring/1/standings.pdf").content
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "How many players have a total in each range" in " ".join(text.split())
