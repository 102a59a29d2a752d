"""The medal ceremony on the projector (issue 50 item 3): a presenter's remote (page down, the
right arrow) reveals the next medal, page up goes back; axe finds nothing (the ``pages``
fixture checks every page), and a 320 px screen does not scroll sideways."""

import pytest

from scoring.services.stages import close_and_seat
from tests import browser as b
from tests.factories import make_director, make_players, seat
from tests.test_advancement import play_totals, short_event
from tournament.models import StageKind

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


@pytest.fixture
def medals(live_server, transactional_db):
    director = make_director("boss", password=PASSWORD)
    event = short_event(director, name="Spring Games", slug="spring")
    make_players(event, ["Ann", "Bo", "Thelma", "Zoë", "Ed"])
    final = seat(event, stage_number=2)
    assert final.kind == StageKind.FINAL
    play_totals(final.tables.get(), dict(Ann=3, Bo=10, Thelma=20, Zoë=30, Ed=40))
    close_and_seat(final, director)
    return live_server.url


@pytest.mark.parametrize(
    "viewport", [{"width": 1280, "height": 720}, {"width": 320, "height": 640}]
)
def test_the_remotes_keys_reveal_bronze_silver_gold_and_go_back(medals, pages, viewport):
    page = pages(viewport=viewport)
    page.goto(medals + "/director/e/spring/ceremony/")  # to the log-in form first
    b.log_in(page, "boss", PASSWORD)
    assert "3 medals to reveal" in page.inner_text("main")
    seen = []
    for key in ("PageDown", "ArrowRight", " "):
        with page.expect_navigation():
            page.keyboard.press(key)
        seen.append(page.inner_text("#reveal"))
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert [s.split("\n")[0].strip() for s in seen] == ["BRONZE", "SILVER", "GOLD"]
    assert "Thelma" in seen[0] and "Bo" in seen[1] and "Ann" in seen[2]
    with page.expect_navigation():
        page.keyboard.press("PageUp")
    assert "Bo" in page.inner_text("#reveal")
    with page.expect_navigation():
        page.click("#ceremony-next")
    assert "Ann" in page.inner_text("#reveal")
