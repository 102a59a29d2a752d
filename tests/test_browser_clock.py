"""The stage clock in a real browser (PRODUCT.md §5): the big screen counts down between server
readings, turns in the last five minutes, and shows time called when a director calls it.

Drives Debian's Chromium through Playwright against pytest-django's live server; see
tests/browser.py. Run only the browser tests with ``pytest -m browser``.
"""

import json
import re
from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone
from playwright.sync_api import expect

from tests import browser as b
from tests.concurrency import logged_in
from tests.factories import make_director, make_event, make_players, seat
from tests.test_browser_live_bytes import save_round
from tournament.models import ClockEvent, Event, Stage
from tournament.services.clock import pause_clock, start_clock

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"
BIG = "/e/spring/1/clock/"
SCREEN = {"viewport": {"width": 1280, "height": 720}}  # a projector or a television
MINUTES_10 = timedelta(minutes=10)
RED, AMBER = "rgb(179, 0, 27)", "rgb(255, 193, 7)"


@pytest.fixture
def site(browser, live_server, transactional_db):
    """Spring Games: a director "desk", 8 players seated at two tables of Game 1 (60 minutes)."""
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    make_players(event, count=8)
    return {"url": live_server.url, "director": director, "stage": seat(event)}


def big_screen(site, pages, fake_timers=False):
    page = pages(**SCREEN)
    if fake_timers:
        page.clock.install()  # time still flows; fast_forward runs the 15-second re-sync now
    page.goto(site["url"] + BIG)
    return page, page.locator("main[data-clock]"), page.locator("#big-digits")


def background(locator) -> str:
    return locator.evaluate("el => getComputedStyle(el).backgroundColor")


def test_the_big_screen_counts_down_and_shows_time_called(site, pages):
    start_clock(site["stage"], site["director"])
    screen, room, digits = big_screen(site, pages, fake_timers=True)
    expect(screen.get_by_role("heading", name="Spring Games")).to_be_visible()
    expect(screen.get_by_role("heading", name="Game 1")).to_be_visible()
    expect(room).to_have_attribute("data-state", "running")
    expect(screen.locator("#big-state")).to_have_text("Running")
    shown = digits.inner_text()
    assert re.fullmatch(r"60:00|59:[0-5]\d", shown)
    expect(digits).not_to_have_text(shown, timeout=5_000)  # counts down in the browser
    assert re.fullmatch(r"59:[0-5]\d", digits.inner_text())
    expect(screen.get_by_text("Last five minutes")).to_be_hidden()
    # The digits fill the screen: readable across a hall.
    assert digits.bounding_box()["height"] > 0.3 * SCREEN["viewport"]["height"]
    screen.screenshot(path=b.artifact("big_clock.png"))

    # A director calls time from the stage's page (and confirms).
    desk = pages()
    desk.goto(site["url"] + "/accounts/login/?next=/e/spring/1/")
    b.log_in(desk, "desk", PASSWORD)
    desk_clock = desk.locator("[data-clock] [data-clock-digits]")
    expect(desk_clock).to_have_text(re.compile(r"^(60:00|59:[0-5]\d)$"))
    desk.screenshot(path=b.artifact("clock_controls.png"))
    desk.once("dialog", lambda dialog: dialog.accept())
    with desk.expect_navigation():
        desk.get_by_role("button", name="Call time").click()
    expect(desk.get_by_role("alert")).to_have_text(re.compile(r"^Time called at \d\d:\d\d\.$"))
    called = ClockEvent.objects.get(action="call_time")
    assert called.by == site["director"]
    at = timezone.localtime(called.at).strftime("%H:%M")

    # The big screen was not reloaded: its next re-sync with the server shows time called.
    screen.clock.fast_forward("00:16")
    expect(room).to_have_attribute("data-state", "time_called")
    expect(screen.locator("#big-state")).to_have_text(f"Time called at {at}")
    expect(digits).to_have_text("0:00")
    expect(screen.get_by_text("Finish the round in progress; no new round starts.")).to_be_visible()
    assert background(room) == RED
    screen.screenshot(path=b.artifact("big_clock_time_called.png"))


def test_a_dismissed_call_time_does_not_call_time(site, pages):
    start_clock(site["stage"], site["director"])
    desk = pages()
    desk.goto(site["url"] + "/accounts/login/?next=/e/spring/1/")
    b.log_in(desk, "desk", PASSWORD)
    desk.once("dialog", lambda dialog: dialog.dismiss())
    desk.get_by_role("button", name="Call time").click()
    expect(desk.get_by_role("button", name="Pause")).to_be_visible()
    assert not ClockEvent.objects.filter(action="call_time").exists()


def test_the_big_screen_turns_in_the_last_five_minutes(site, pages):
    start_clock(site["stage"], site["director"], timezone.now() - timedelta(minutes=55, seconds=-3))
    screen, room, digits = big_screen(site, pages)
    expect(digits).to_have_text(re.compile(r"^5:0[0-3]$"))
    expect(room).to_have_attribute("data-last", "", timeout=6_000)  # turned in the browser
    expect(digits).to_have_text(re.compile(r"^4:5\d$"))
    expect(screen.get_by_text("Last five minutes")).to_be_visible()
    assert background(room) == AMBER
    screen.screenshot(path=b.artifact("big_clock_last_minutes.png"))


def test_the_big_screen_shows_time_called_when_the_clock_runs_out(site, pages):
    start_clock(site["stage"], site["director"], timezone.now() - timedelta(minutes=60, seconds=-3))
    screen, room, digits = big_screen(site, pages)
    expect(room).to_have_attribute("data-state", "running")
    expect(room).to_have_attribute("data-state", "time_called", timeout=8_000)
    expect(digits).to_have_text("0:00")
    # At zero the page asked the server, which called time by itself: its label says when.
    expect(screen.locator("#big-state")).to_have_text(re.compile(r"^Time called at \d\d:\d\d$"))
    assert background(room) == RED


# -- every screen follows the director's buttons within one poll (issue 28 item 3) -------------

POLL = 3  # LIVE_REFRESH_SECONDS in this test (its default)
WITHIN = 15_000  # what Playwright waits at most; the polls are counted, not the seconds

# Counts the page's asks of the event's version (static/js/live.js: version.json, or the page
# itself with X-Live-Version) and, at each change of a
# clock's state, how many it had made: a change must come with the first ask after the press.
POLLS = """(() => {
  window.__polls = 0;
  window.__changes = [];
  const original = window.fetch;
  window.fetch = function (input, init) {
    const headers = (init && init.headers) || {};
    if (String(input.url || input).includes("version.json") || headers["X-Live-Version"]) {
      window.__polls += 1;
    }
    return original.apply(this, arguments);
  };
  document.addEventListener("DOMContentLoaded", () => {
    new MutationObserver((mutations) => {
      // the clock writes its state at every tick: only a new value is a change
      if (mutations.some((m) => m.oldValue !== m.target.dataset.state)) {
        window.__changes.push(window.__polls);
      }
    }).observe(document.body, {
      subtree: true, attributes: true, attributeOldValue: true, attributeFilter: ["data-state"],
    });
  });
})();"""


def test_every_screen_follows_the_directors_clock_buttons_within_one_poll(site, pages, settings):
    settings.LIVE_REFRESH_SECONDS = POLL
    stage = site["stage"]
    Event.objects.filter(pk=stage.event_id).update(table_entry=True)  # phones score tables
    start_clock(stage, site["director"])
    table = stage.tables.order_by("number").first()

    screen = pages(**SCREEN)
    screen.add_init_script(POLLS)
    screen.goto(site["url"] + BIG)
    room, digits = screen.locator("main[data-clock]"), screen.locator("#big-digits")
    phone = pages(**b.PHONE)
    phone.add_init_script(POLLS)
    phone.goto(f"{site['url']}/t/{table.code}/")
    with phone.expect_navigation():  # the phone says it is at that table (its first player)
        phone.locator("#table-players button, button#join-table").first.click()
    public = pages()
    public.add_init_script(POLLS)
    public.goto(site["url"] + "/e/spring/1/")
    desk = pages()
    desk.goto(site["url"] + "/accounts/login/?next=/e/spring/1/")
    b.log_in(desk, "desk", PASSWORD)
    screens = {
        "big screen": (room, screen.locator("#big-state")),
        "phone": (phone.locator("[data-clock]"), phone.locator("[data-clock-label]")),
        "standings": (public.locator("[data-clock]"), public.locator("[data-clock-label]")),
    }
    for clock, label in screens.values():
        expect(clock).to_have_attribute("data-state", "running")
        expect(label).to_have_text("Running")

    watched = (screen, phone, public)
    marks = {}

    def everywhere(state: str, label_text) -> None:
        for clock, label in screens.values():
            expect(clock).to_have_attribute("data-state", state, timeout=WITHIN)
            expect(label).to_have_text(label_text, timeout=WITHIN)
        within_one_poll()

    def within_one_poll() -> None:
        """Each screen changed with the first ask of the version after the press, or before
        it (an ask on its way as the press was saved): within one poll interval."""
        for page in watched:
            changes = page.evaluate("window.__changes")
            assert not changes or changes[0] - marks[page] <= 1, (page.url, marks[page], changes)

    def press(name: str) -> None:
        with desk.expect_navigation():
            desk.get_by_role("button", name=name, exact=True).click()
        for page in watched:  # the press is saved: count the asks from now on
            marks[page] = page.evaluate("window.__polls")
            page.evaluate("window.__changes.length = 0")

    press("Pause")
    everywhere("paused", "Paused")
    press("Resume")
    everywhere("running", "Running")

    desk.get_by_text("Time called by mistake, or a break the clock ran through").click()
    desk.get_by_label("Minutes", exact=True).fill("10")
    desk.get_by_label("Why", exact=True).fill("A break the clock ran through")
    press("Add minutes")
    expect(digits).to_have_text(re.compile(r"^(70:00|69:[0-5]\d)$"), timeout=WITHIN)

    desk.once("dialog", lambda dialog: dialog.accept())
    press("Call time")
    at = timezone.localtime(ClockEvent.objects.get(action="call_time").at).strftime("%H:%M")
    everywhere("time_called", f"Time called at {at}")
    expect(digits).to_have_text("0:00")

    desk.get_by_label("Why time called is taken back").fill("Called by mistake")
    press("Take back time called")
    everywhere("running", "Running")
    expect(digits).to_have_text(re.compile(r"^(70:00|69:[0-5]\d)$"), timeout=WITHIN)


# Counts the clock's readings of clock.json.
COUNT_CLOCK_READS = """(() => {
  window.__clockReads = 0;
  const fetch = window.fetch;
  window.fetch = function (input) {
    if (String(input.url || input).includes("clock.json")) window.__clockReads += 1;
    return fetch.apply(this, arguments);
  };
})();"""


def test_a_saved_round_leaves_the_standings_clock_unread_and_a_press_reads_it(
    site, pages, settings
):
    """A round saved every second at a big event made every phone's clock read clock.json
    again: the page's check now says the clock's mark, and the clock reads only when it moved."""
    settings.LIVE_REFRESH_SECONDS = 1
    stage = site["stage"]
    start_clock(stage, site["director"])
    public = pages(**b.PHONE)
    public.add_init_script(COUNT_CLOCK_READS)
    public.goto(site["url"] + "/e/spring/1/")
    expect(public.locator("[data-clock]")).to_have_attribute("data-state", "running")
    director = logged_in(site["director"])
    table = stage.tables.order_by("number").first()
    for values in ([0, 5, 9, 11], [3, 0, 8, 60]):
        save_round(director, table, values)
        version = Event.objects.get(slug="spring").version
        expect(public.locator("body")).to_have_attribute("data-version", str(version))
    expect(public.locator("#live-standings")).to_contain_text("71")  # 11 + 60
    assert public.evaluate("window.__clockReads") == 0
    pause_clock(stage, site["director"])
    expect(public.locator("[data-clock]")).to_have_attribute("data-state", "paused")
    assert public.evaluate("window.__clockReads") == 1


def test_a_clock_reads_in_case_only_where_the_checks_do_not_say_its_mark(site, pages, settings):
    """Every 15 seconds a clock read clock.json in case a change was missed: 14 readings a
    second from 210 phones on a standings page while nothing moved. The standings' checks say
    the clock's mark, so none can be missed there: no reading in case. The event's home page,
    whose clock follows version.json, still reads every 15 seconds."""
    settings.LIVE_REFRESH_SECONDS = 1
    start_clock(site["stage"], site["director"])
    for path, marked in [("/e/spring/1/", True), ("/e/spring/", False)]:
        page = pages(**b.PHONE)
        page.add_init_script(COUNT_CLOCK_READS)
        page.clock.install()  # time still flows; fast_forward runs the 15-second readings now
        page.goto(site["url"] + path)
        clock = page.locator("[data-clock]").first
        expect(clock).to_have_attribute("data-state", "running")
        assert (clock.get_attribute("data-marked") is not None) is marked
        page.clock.fast_forward(31_000)  # two readings' time, and the checks in it
        reads = page.evaluate("window.__clockReads")
        assert reads == 0 if marked else reads >= 1, (path, reads)
        expect(clock).to_have_attribute("data-state", "running")


def test_a_page_the_browser_kept_reads_the_clock_again_at_once(site, pages):
    """A reload of a public page while the event has not changed is answered 304: the browser
    shows the page it kept, with the clock's reading of then. The clock asks the server at
    once rather than showing the time of then until its next re-sync."""
    stage = site["stage"]
    start_clock(stage, site["director"])
    page = pages()
    page.goto(site["url"] + "/e/spring/1/")
    digits = page.locator("[data-clock] [data-clock-digits]")
    expect(digits).to_have_text(re.compile(r"^(60:00|59:[0-5]\d)$"))
    # Ten minutes later (the clock moves on with time, the event's version does not).
    later = timezone.now() + timedelta(minutes=10)
    Stage.objects.filter(pk=stage.pk).update(clock_started_at=F("clock_started_at") - MINUTES_10)
    page.clock.set_system_time(later)
    page.reload()
    kept = json.loads(page.locator("[data-clock] script").text_content())["clock"]
    assert kept["remaining"] > 59 * 60  # the page as the browser kept it, ten minutes ago
    expect(digits).to_have_text(re.compile(r"^(50:00|49:[0-5]\d)$"), timeout=WITHIN)
