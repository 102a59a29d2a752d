"""The hall screen (issue 50 item 2): one projector page that shows in turn the clock, the
standings a screenful at a time, the tables still playing and, until the clock starts, the
seating A to Z; the director chooses which and for how long; it follows the event live.
Through the page (test client) and in a browser whose timers the test moves (no waiting)."""

import re

import pytest
from django.test import Client

from scoring.views.screen import panels_asked, seconds_asked
from tests import browser as b
from tests.factories import make_director, make_event, make_players, play, seat
from tournament.services.clock import start_clock

PASSWORD = "a-Long-pass-phrase-42"


def panels_of(html: str) -> list[str]:
    return re.findall(r'data-panel="(\w+)"', html)


@pytest.fixture
def stage(db):
    director = make_director("boss", password=PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring", engines=[1, 0])
    make_players(event, ["Zoë", "Ann", "Émile", "Bo", "Cy", "Di", "Ed", "Flo"])
    return seat(event)


def test_every_panel_by_default_and_the_ones_chosen_in_the_screens_order(stage):
    client = Client()
    page = client.get("/e/spring/1/screen/")
    assert page.status_code == 200
    assert panels_of(page.content.decode()) == ["seating", "clock", "standings", "tables"]
    chosen = client.get("/e/spring/1/screen/?show=seating&show=clock&seconds=30").content
    assert panels_of(chosen.decode()) == ["seating", "clock"]
    assert b'data-seconds="30"' in chosen
    assert b'<img src="data:image/' in chosen  # the event's QR code, for phones


def test_the_seating_lists_names_a_to_z_with_their_tables(stage):
    html = Client().get("/e/spring/1/screen/?show=seating").content.decode()
    seating = html.split('id="live-screen-seating"', 1)[1].split("</table>", 1)[0]
    names = re.findall(r"<tr><td>([^<]+)</td>", seating)
    assert names == ["Ann", "Bo", "Cy", "Di", "Ed", "Émile", "Flo", "Zoë"]


@pytest.mark.parametrize(
    ("asked", "panels"),
    [("", 4), ("nothing", 4), ("clock", 1), ("clock,,tables", 2), ("x" * 5000, 4)],
)
def test_a_choice_the_screen_does_not_know_shows_every_panel(asked, panels):
    assert len(panels_asked(asked)) == panels


@pytest.mark.parametrize(
    ("asked", "seconds"), [("", 15), ("3", 5), ("500", 120), ("20", 20), ("2e", 15), ("٣", 15)]
)
def test_the_seconds_stay_within_bounds(asked, seconds):
    assert seconds_asked(asked) == seconds


def test_a_screen_for_no_such_stage_is_not_found(stage):
    assert Client().get("/e/spring/9/screen/").status_code == 404


@pytest.mark.browser
def test_the_screen_turns_its_panels_pages_the_seating_and_drops_it_once_the_clock_starts(
    live_server, transactional_db, pages
):
    director = make_director("boss", password=PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring", engines=[1, 0])
    make_players(event, count=40)
    stage = seat(event)
    for table in stage.tables.order_by("number")[:3]:
        play(table, 1)
    page = pages(viewport={"width": 1280, "height": 720})
    page.clock.install()
    page.goto(live_server.url + "/e/spring/1/screen/?show=seating&show=standings&seconds=5")
    seating = page.locator("#panel-seating")
    assert seating.is_visible() and not page.locator("#panel-standings").is_visible()
    visible = seating.locator("tbody tr:visible")
    first_page = visible.all_inner_texts()
    assert 3 <= len(first_page) < 40  # a screenful, not all 40
    label = seating.locator("[data-page-label]").inner_text()
    assert re.fullmatch(r"1 / \d+", label)
    pages_count = int(label.split("/")[1])
    page.clock.run_for(5000)
    assert seating.locator("[data-page-label]").inner_text() == f"2 / {pages_count}"
    assert seating.locator("tbody tr:visible").all_inner_texts() != first_page
    for _ in range(pages_count - 1):
        page.clock.run_for(5000)
    assert page.locator("#panel-standings").is_visible() and not seating.is_visible()
    # The director starts the clock: the screen no longer shows the seating.
    start_clock(stage, director)
    page.clock.run_for(4000)  # the page asks whether anything changed (LIVE_REFRESH_SECONDS)
    page.locator('[data-clock][data-state="running"]').wait_for(state="attached")
    standings_pages = int(
        (page.locator("#panel-standings [data-page-label]").inner_text() or "1 / 1").split("/")[1]
    )
    for _ in range(standings_pages + 1):
        page.clock.run_for(5000)
        assert not seating.is_visible()
    page.screenshot(path=str(b.artifact("hall-screen.png")))
