"""The qualifier report and the duplicate medals in a browser (issue 50 item 4): axe finds
nothing on the report, the players page, the results and the ceremony with a player from
outside the district (the ``pages`` fixture checks every page), and a 320 px screen does not
scroll sideways."""

import pytest

from scoring.services.stages import close_and_seat
from tests import browser as b
from tests.factories import make_director, make_players, seat
from tests.test_advancement import play_totals, short_event
from tournament.models import Event, Player

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


@pytest.fixture
def qualified(live_server, transactional_db):
    director = make_director("boss", password=PASSWORD)
    event = short_event(director, name="Spring Games", slug="spring")
    make_players(event, ["Ann", "Bo", "Thelma", "Zoë", "Ed"], division="55-59")
    Player.objects.filter(name="Ann").update(out_of_district=True)
    Event.objects.filter(pk=event.pk).update(qualifying_places=2, next_level="State Games")
    final = seat(event, stage_number=2)
    play_totals(final.tables.get(), dict(Ann=3, Bo=10, Thelma=20, Zoë=30, Ed=40))
    close_and_seat(final, director)
    return live_server.url


@pytest.mark.parametrize(
    "viewport", [{"width": 1280, "height": 720}, {"width": 320, "height": 640}]
)
def test_the_report_and_the_duplicate_medals_are_accessible(qualified, pages, viewport):
    page = pages(viewport=viewport)
    page.goto(qualified + "/director/e/spring/qualifiers/")  # to the log-in form first
    b.log_in(page, "boss", PASSWORD)
    table = page.inner_text("#qualifiers-1")
    assert "State Games" in page.inner_text("#qualifier-rule")
    assert table.index("Bo") < table.index("Ann") < table.index("Thelma")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    for url in (
        "/director/e/spring/players/",
        "/e/spring/results/",
        "/e/spring/bracket/",
        "/director/e/spring/ceremony/?step=3",
    ):
        page.goto(qualified + url)
        assert "out of district" in page.inner_text("body")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
