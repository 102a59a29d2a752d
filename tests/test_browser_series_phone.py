"""A series' standings on a 360 px phone (issue 45 item 11): six nights of events are wider
than the phone, so the events scroll between the player, kept at the left, and the points,
kept at the right; each event's heading is its number, its name in the list above the table
and in the heading's title. The page itself never scrolls sideways."""

import pytest

from scoring.models import Series, SeriesEvent
from tests import browser as b
from tests.factories import make_director
from tests.test_series_pages import night

pytestmark = pytest.mark.browser

# Where a cell is, on the screen: its left and right edges.
EDGES = """(selector) => { const r = document.querySelector(selector).getBoundingClientRect();
  return [r.left, r.right]; }"""
SCROLL = """([selector, x]) => { document.querySelector(selector).scrollLeft = x; }"""


@pytest.fixture
def season(live_server, transactional_db):
    director = make_director("league")
    series = Series.objects.create(name="Rivertown Winter League", slug="winter")
    series.directors.add(director)
    for day in range(1, 7):
        event = night(
            director,
            f"Rivertown Thursday Night Number {day}",
            day,
            {"Bartholomew Featherstonehaugh": 5, "Ann Lee": 10 + day, "Cy Young": 40 - day},
        )
        SeriesEvent.objects.create(series=series, event=event)
    return live_server.url


@pytest.mark.parametrize("width", [360, 390])
def test_the_points_and_the_player_stay_in_view_while_the_events_scroll(season, pages, width):
    page = pages(**{**b.PHONE, "viewport": {"width": width, "height": 800}})
    page.goto(f"{season}/s/winter/")
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    table = "#division-1 .table-responsive"
    first_row = "#division-1 tbody tr:first-child"
    headings = page.locator("#division-1 thead th.event-col")
    short = headings.locator(".event-short")
    assert short.all_inner_texts() == ["1", "2", "3", "4", "5", "6"]
    assert short.first.is_visible()
    # the full name is kept for screen readers, one pixel wide on the screen
    assert headings.first.locator(".event-full").bounding_box()["width"] <= 1
    assert headings.first.get_attribute("title").startswith("Rivertown Thursday Night Number 1")
    key = page.locator("#division-1-events")
    assert key.is_visible() and "1: Rivertown Thursday Night Number 1" in key.inner_text()
    wide = page.evaluate(f"() => document.querySelector('{table}').scrollWidth")
    assert wide > width  # the events do not fit: they scroll
    for x in (0, wide):
        page.evaluate(SCROLL, [table, x])
        left, right = page.evaluate(EDGES, f"{first_row} td.total")
        assert 0 <= left and right <= width, (x, left, right)
        left, right = page.evaluate(EDGES, f"{first_row} th.name")
        assert 0 <= left and right <= width, (x, left, right)
    assert page.locator(f"{first_row} td.total").inner_text() == "78"  # 13 a night
    page.screenshot(path=str(b.artifact(f"series-phone-{width}.png")), full_page=True)
    # A wide screen names each event in its heading.
    wide_page = pages(viewport={"width": 1280, "height": 800})
    wide_page.goto(f"{season}/s/winter/")
    first = wide_page.locator("#division-1 thead th.event-col").first
    assert first.locator(".event-full").inner_text().startswith("Rivertown Thursday Night")
    assert not first.locator(".event-short").is_visible()
    assert not wide_page.locator("#division-1-events").is_visible()
