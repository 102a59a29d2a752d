"""Issue 28 items 5 and 18 as a person sees them, on a phone (360 px) and a laptop (1280 px):
a stage in progress says its standings are partial, the players who played come first and
the others are unranked; a Final lists its bronze playoff's winner third."""

import pytest
from playwright.sync_api import expect

from tests import browser as b
from tests.factories import make_director, make_event, make_players, play, seat

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


@pytest.fixture
def site(browser, live_server, transactional_db):
    """24 players seated at six tables of Game 1; table 1 has played one round."""
    event = make_event(make_director("desk", PASSWORD), name="Spring Games", slug="spring")
    make_players(event, count=24)
    stage = seat(event)
    play(stage.tables.get(number=1), 1)
    return {"url": live_server.url, "table": stage.tables.get(number=1)}


@pytest.mark.parametrize("width", [360, 1280])
def test_partial_standings_rank_only_those_who_played(site, pages, width):
    page = pages(viewport={"width": width, "height": 800})
    page.goto(site["url"] + "/e/spring/1/")
    expect(page.locator("#standings-partial")).to_have_text(
        "Partial standings: 1 of 78 rounds played, 0 of 6 tables finished."
    )
    expect(page.locator("#standings-partial")).to_be_visible()
    places = page.locator("table#standings tbody tr td:first-child").all_inner_texts()
    assert len(places) == 24 and "—" not in places[:4] and set(places[4:]) == {"—"}
    page.screenshot(path=str(b.ARTIFACTS / f"standings-partial-{width}.png"), full_page=True)
