"""The entry pages in real browsers (issue 28 items 7, 22): a phone learns without a reload
that its round was confirmed or sent back, and what it is typing is never swapped away; a
second device saving a round already saved is shown it as saved, once, with the next round;
a round typed late after time is called says which box to tick (item 12)."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from scoring.models import Round
from tests import browser as b
from tests.factories import make_director, make_event, make_players, play, seat
from tournament.models import Event
from tournament.services.clock import call_time, start_clock

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"
ENTER = "/director/e/spring/1/table/1/enter/"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Mobile"


@pytest.fixture
def site(browser, live_server, transactional_db, settings):
    settings.LIVE_REFRESH_SECONDS = 1
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    make_director("desk2", PASSWORD).events.add(event)
    Event.objects.filter(pk=event.pk).update(table_entry=True)
    make_players(event, count=8)
    stage = seat(event)
    table = stage.tables.get(number=1)
    return {"url": live_server.url, "table": table, "director": director}


def seated(table):
    return [s.player for s in table.seats.select_related("player").order_by("position")]


def phone_at(site, pages, seat_number, user_agent):
    """A phone that opened the table from its code, held by the player in that seat."""
    table = site["table"]
    phone = pages(**b.PHONE, user_agent=user_agent)
    phone.goto(f"{site['url']}/t/{table.code}/")
    phone.get_by_role("button", name=seated(table)[seat_number].name, exact=True).click()
    expect(phone.locator("#round-form")).to_be_visible()
    return phone


def fill(page, values):
    cells = page.locator(".round-cells input")
    for i, value in enumerate(values):
        cells.nth(i).fill(str(value))


def test_a_phone_learns_without_a_reload_that_its_round_was_confirmed_or_sent_back(site, pages):
    table = site["table"]
    play(table, 11, user=site["director"])  # 12-12 to 2-2: the phones enter 1-1 and 0-0
    first, second = phone_at(site, pages, 0, ANDROID), phone_at(site, pages, 1, IPHONE)

    fill(first, [0, 5, 6, 7])
    first.get_by_role("button", name="Save the round").click()
    expect(first.locator(".awaiting")).to_be_visible()
    # The second phone, not reloaded, is shown the round to confirm: its holder types the code
    # the first phone shows.
    code = first.locator(".confirm-code-shown").inner_text()
    second.get_by_label(f"Code shown on {seated(table)[0].name}'s phone").fill(code)
    second.get_by_role("button", name="Confirm: these are our pips").click()
    expect(second.get_by_text("Round 1-1 confirmed.")).to_be_visible()
    # The first phone, not reloaded, sees it confirmed and the totals moved.
    expect(first.locator("#last-confirmed")).to_have_text(
        "Round 1-1 is confirmed: it is on the sheet."
    )
    expect(first.locator(".awaiting")).to_have_count(0)

    # 0-0 entered wrong; the second phone sends it back: the first is shown 0-0 again.
    fill(first, [0, 50, 6, 7])
    first.get_by_role("button", name="Save the round").click()
    expect(first.locator(".awaiting")).to_be_visible()
    second.get_by_label("Or send it back, saying what is wrong").fill("Bo had 5, not 50")
    second.get_by_role("button", name="Send back").click()
    expect(first.locator("#sent-back")).to_contain_text("Bo had 5, not 50")
    expect(first.get_by_role("heading", name="Round 0-0")).to_be_visible()
    expect(first.locator(".awaiting")).to_have_count(0)

    # What a phone is typing stays when the sheet moves on under it; its Save is disabled.
    first.locator(".round-cells input").first.fill("9")
    fill(second, [0, 5, 6, 7])
    second.get_by_role("button", name="Save the round").click()
    expect(second.locator(".awaiting")).to_be_visible()
    expect(first.locator("#entry-status")).to_contain_text(
        "This round is saved already: load the next round."
    )
    expect(first.locator(".round-cells input").first).to_have_value("9")
    expect(first.get_by_role("button", name="Save the round")).to_be_disabled()
    assert Round.objects.filter(table=table).count() == 13


def test_a_second_device_is_shown_the_round_as_saved_and_offered_the_next(site, pages):
    laptop, other = pages(), pages(**b.PHONE)
    for page, user in ((laptop, "desk"), (other, "desk2")):
        page.goto(site["url"] + ENTER)
        b.log_in(page, user, PASSWORD)
        expect(page.get_by_role("heading", name="Round 12-12")).to_be_visible()
    fill(laptop, [0, 5, 6, 7])
    fill(other, [3, 0, 8, 9])
    laptop.get_by_role("button", name="Save round 12-12").click()
    expect(laptop.get_by_role("heading", name="Round 11-11")).to_be_visible()

    other.get_by_role("button", name="Save round 12-12").click()
    status = other.locator("#entry-status")
    names = ", ".join(
        f"{p.name} {v}" for p, v in zip(seated(site["table"]), [0, 5, 6, 7], strict=True)
    )
    expect(status).to_contain_text("Round 12-12 was saved meanwhile from another device")
    expect(status).to_contain_text("Saved by desk at ")
    expect(status).to_contain_text(names)
    expect(other.locator("#round-errors")).to_be_hidden()  # one message, not two boxes
    expect(other.locator(".alert-danger:visible")).to_have_count(0)
    expect(other.get_by_role("button", name="Save round 12-12")).to_be_disabled()
    expect(other.locator("#save-why")).to_have_text(
        "This round is saved already: load the next round."
    )
    # The sheet shows the round saved; what was typed here is kept to compare.
    expect(other.locator("#sheet tr[data-engine='12'] .pips")).to_have_text(["0", "5", "6", "7"])
    expect(other.locator(".round-cells input").first).to_have_value("3")
    assert Round.objects.count() == 1

    other.get_by_role("link", name="Load the next round").click()
    expect(other.get_by_role("heading", name="Round 11-11")).to_be_visible()


def test_a_late_round_says_which_box_to_tick_and_saves_with_one_message(site, pages):
    """Time called after 12-12: 11-11 counts as the round in progress; 10-10 needs the box."""
    table, director = site["table"], site["director"]
    play(table, 1, user=director)
    start_clock(table.stage, director, timezone.now() - timedelta(minutes=30))
    call_time(table.stage, director)
    play(table, 1, user=director)  # 11-11, the round in progress
    page = pages()
    page.goto(site["url"] + ENTER)
    b.log_in(page, "desk", PASSWORD)
    expect(page.get_by_role("heading", name="Round 10-10")).to_be_visible()
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    fill(page, [0, 5, 6, 7])
    page.locator(".round-cells input").last.press("Enter")
    tick = page.get_by_label("Round 10-10 was played before time was called.")
    expect(page.locator("#save-why")).to_have_text(
        "Tick the box if round 10-10 was played before time was called. If it was not, do not "
        "enter it: end the table's game after its last round instead."
    )
    expect(tick).to_be_focused()
    expect(page.get_by_role("button", name="Save round 10-10")).to_be_disabled()
    assert posts == []
    expect(page.get_by_role("button", name="Game over after round 11-11")).to_be_visible()
    tick.check()
    page.get_by_role("button", name="Save round 10-10").click()
    expect(page.get_by_role("heading", name="Round 9-9")).to_be_visible()
    expect(page.get_by_text("Round 10-10 saved.")).to_be_visible()
    expect(page.locator(".alert-danger:visible")).to_have_count(0)
    expect(page.locator("#entry-status")).to_be_hidden()  # no "Not saved" left standing
    assert Round.objects.filter(table=table).count() == 3
    # A mistake in the next round: its red message alone, the green one of 10-10 gone.
    page.locator(".round-cells input").first.fill("x")
    expect(page.locator(".invalid-feedback:visible")).to_have_count(1)
    expect(page.get_by_text("Round 10-10 saved.")).to_have_count(0)
