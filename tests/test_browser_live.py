"""Live pages (issue 14): a round saved at a table shows on a phone already open on the
standings within 5 seconds, without reloading the page and without moving it.

Drives Debian's Chromium through Playwright against pytest-django's live server; see
tests/browser.py. The site's own refresh interval (LIVE_REFRESH_SECONDS) is used.
"""

import time

import pytest
from playwright.sync_api import expect

from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


@pytest.fixture
def site(browser, live_server, transactional_db):
    """Spring Games: 40 players seated at ten tables of Game 1, a director "desk"."""
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    make_players(event, count=40)
    stage = seat(event)
    return {"url": live_server.url, "table": stage.tables.get(number=1)}


def save_first_round(site, desk, players) -> None:
    """The director, on the table's entry page, saves round 12-12: the fourth player 41."""
    desk.goto(site["url"] + "/director/e/spring/1/table/1/enter/")
    b.log_in(desk, "desk", PASSWORD)
    for player, value in zip(players, [0, 25, 9, 41], strict=True):
        desk.locator(f"input[name=p{player.pk}]").fill(str(value))
    with desk.expect_navigation():
        desk.get_by_role("button", name="Save round 12-12").click()


def test_a_saved_round_shows_on_an_open_phone_within_5_seconds(site, pages):
    players = [s.player for s in site["table"].seats.select_related("player").order_by("position")]
    phone = pages(**b.PHONE)
    phone.goto(site["url"] + "/e/spring/1/")
    expect(phone.locator("table#standings tbody tr")).to_have_count(40)
    phone.evaluate("window.notReloaded = true")
    phone.evaluate("window.scrollTo(0, 600)")
    scrolled = phone.evaluate("window.scrollY")
    assert scrolled > 0
    last = phone.locator("#standings tr", has_text=players[3].name).locator("td").nth(4)
    expect(last).to_have_text("—")  # no round yet
    requests = []
    phone.on("request", lambda request: requests.append(request.headers))

    save_first_round(site, pages(), players)  # another context: the director's
    saved = time.monotonic()

    expect(last).to_have_text("41", timeout=5_000)
    assert time.monotonic() - saved <= 5.5
    expect(phone.locator("#live-tables")).to_contain_text("1 round")
    assert phone.evaluate("window.notReloaded") is True  # swapped in place, not reloaded
    assert phone.evaluate("window.scrollY") == scrolled
    # The page asked itself whether the event moved, with the state of its regions.
    assert any(
        "x-live-version" in headers and "live-standings=" in headers.get("x-live-states", "")
        for headers in requests
    )
    phone.screenshot(path=b.artifact("standings-live-phone.png"))


def test_a_phone_with_a_stream_is_sent_the_saved_round_and_asks_nothing(
    site, pages, settings, tmp_path
):
    """Streams on (as `make hall` runs): the phone's page opens its stream and is sent the
    round; it never asks its page whether the event moved (tournament/streams.py)."""
    settings.LIVE_STREAMS = 4
    settings.LIVE_SHARED_DIR = str(tmp_path)
    players = [s.player for s in site["table"].seats.select_related("player").order_by("position")]
    phone = pages(**b.PHONE)
    requests = []
    phone.on("request", lambda request: requests.append(request))
    with phone.expect_request(lambda r: "/e/spring/stream/" in r.url):
        phone.goto(site["url"] + "/e/spring/1/")
    phone.evaluate("window.notReloaded = true")
    last = phone.locator("#standings tr", has_text=players[3].name).locator("td").nth(4)
    expect(last).to_have_text("—")

    save_first_round(site, pages(), players)

    expect(last).to_have_text("41", timeout=10_000)  # within a beat or two
    expect(phone.locator("#live-tables")).to_contain_text("1 round")
    assert phone.evaluate("window.notReloaded") is True
    assert phone.evaluate("document.body.dataset.version") != "0"
    asked = [r for r in requests if "x-live-version" in r.headers or "x-live-region" in r.headers]
    assert asked == []  # pushed, not asked
    assert sum("/e/spring/stream/" in r.url for r in requests) == 1


def test_a_phone_whose_streams_beat_fails_asks_for_itself_and_shows_the_round(
    site, pages, settings, tmp_path, monkeypatch
):
    """A beat that fails (here the read of the events' versions) tells the stream's page to
    poll (tournament/streams.py POLL): it asks its page every few seconds again, and shows the
    round, instead of waiting on a stream that says nothing."""
    from tournament import streams

    settings.LIVE_STREAMS = 4
    settings.LIVE_SHARED_DIR = str(tmp_path)

    def failing(pages):
        raise OSError("the database's disk is gone")

    monkeypatch.setattr(streams, "changes_of", failing)
    players = [s.player for s in site["table"].seats.select_related("player").order_by("position")]
    phone = pages(**b.PHONE)
    requests = []
    phone.on("request", lambda request: requests.append(request))
    with phone.expect_request(lambda r: "/e/spring/stream/" in r.url):
        phone.goto(site["url"] + "/e/spring/1/")
    last = phone.locator("#standings tr", has_text=players[3].name).locator("td").nth(4)
    expect(last).to_have_text("—")

    save_first_round(site, pages(), players)

    expect(last).to_have_text("41", timeout=15_000)
    assert any("x-live-version" in r.headers for r in requests)  # asked, as before streams
