"""Time per table in a real browser (issue 50 item 1): a director gives one table minutes from
the stage's clock; that table's phone counts its own time, live, and plays on after the room's
time is called. Every page opened is checked by axe-core (tests/browser.py). No sleeps: the
phones run on Playwright's clock (page.clock) and wait on what the page shows."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat
from tournament.models import Event, Table
from tournament.services.clock import change_table_minutes, start_clock

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"
MIN = timedelta(minutes=1)


@pytest.fixture
def site(browser, live_server, transactional_db):
    """Spring Games: a director "desk", 8 players at two tables of Game 1 (60 minutes), phones
    allowed to score their table."""
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    Event.objects.filter(pk=event.pk).update(table_entry=True)
    make_players(event, count=8)
    stage = seat(event)
    return {"url": live_server.url, "director": director, "stage": stage}


def phone_of(site, pages, number):
    """A player's phone at table ``number``, on its table's page, its timers Playwright's."""
    table = Table.objects.get(stage=site["stage"], number=number)
    phone = pages(**b.PHONE)
    phone.clock.install()
    phone.goto(f"{site['url']}/t/{table.code}/")
    phone.locator(".join-as").first.click()
    expect(phone.locator("#round-form")).to_be_visible()
    return phone


def test_the_director_gives_a_table_minutes_and_its_phone_shows_them_live(site, pages):
    start_clock(site["stage"], site["director"], timezone.now() - 30 * MIN)
    phone = phone_of(site, pages, 2)
    digits = phone.locator("[data-clock-digits]")
    expect(digits).to_have_text(re.compile(r"^(30:00|29:[0-5]\d)$"))
    expect(phone.get_by_text("+5 min for this table")).to_be_hidden()

    desk = pages()
    desk.goto(site["url"] + "/accounts/login/?next=/e/spring/1/")
    b.log_in(desk, "desk", PASSWORD)
    desk.get_by_text("Extra time for one table").click()
    desk.get_by_label("Table", exact=True).fill("2")
    desk.get_by_label("Minutes for the table").fill("5")
    desk.get_by_label("Why this table").fill("Late start: a player was at the desk")
    with desk.expect_navigation():
        desk.get_by_role("button", name="Add to the table").click()
    expect(desk.get_by_role("alert")).to_contain_text("Table 2: 5 minutes added")
    expect(desk.locator("[data-clock-extra]")).to_contain_text(
        re.compile(r"Table 2: \+5 min, until \d\d:\d\d")
    )
    assert Table.objects.get(stage=site["stage"], number=2).clock_added == 5 * MIN

    # The phone was not reloaded: its next look at the event reads its clock again.
    phone.clock.fast_forward("00:16")
    expect(phone.get_by_text("+5 min for this table")).to_be_visible()
    expect(digits).to_have_text(re.compile(r"^(35:00|34:[0-5]\d)$"))
    phone.screenshot(path=b.artifact("table_time_phone.png"))


def test_a_table_with_minutes_plays_on_after_the_rooms_time_is_called(site, pages):
    start_clock(site["stage"], site["director"], timezone.now() - 61 * MIN)  # the room: called
    change_table_minutes(site["stage"], 1, site["director"], 5, "Spilled the set")
    own = phone_of(site, pages, 1)
    room = phone_of(site, pages, 2)

    clock = own.locator("[data-clock]")
    expect(clock).to_have_attribute("data-state", "running")
    expect(own.locator("[data-clock-label]")).to_have_text(
        re.compile(r"^Extra time: until \d\d:\d\d$")
    )
    digits = own.locator("[data-clock-digits]")
    expect(digits).to_have_text(re.compile(r"^(4:00|3:[0-5]\d)$"))
    shown = digits.inner_text()
    own.clock.fast_forward("00:05")
    expect(digits).not_to_have_text(shown)  # counts down in the browser
    expect(clock).to_have_attribute("data-last", "")  # its last five minutes
    expect(own.locator("#time-called-notice")).to_have_count(0)

    expect(room.locator("[data-clock]")).to_have_attribute("data-state", "time_called")
    expect(room.locator("[data-clock-digits]")).to_have_text("0:00")
    expect(room.locator("#time-called-notice")).to_contain_text("Time was called at")


def test_the_stage_page_with_a_table_given_minutes_fits_a_small_phone(site, pages):
    start_clock(site["stage"], site["director"], timezone.now() - 10 * MIN)
    change_table_minutes(site["stage"], 1, site["director"], 5, "Late start")
    desk = pages(viewport={"width": 320, "height": 640})
    desk.goto(site["url"] + "/accounts/login/?next=/e/spring/1/")
    b.log_in(desk, "desk", PASSWORD)
    desk.get_by_text("Extra time for one table").click()
    expect(desk.locator("#table-time-form")).to_be_visible()
    expect(desk.locator("[data-clock-extra]")).to_contain_text("Table 1: +5 min")
    desk.goto(site["url"] + "/director/e/spring/1/table/1/enter/")
    desk.get_by_text("Extra time for this table").click()
    expect(desk.locator("#table-time-form")).to_be_visible()
    expect(desk.get_by_text("+5 min for this table")).to_be_visible()
