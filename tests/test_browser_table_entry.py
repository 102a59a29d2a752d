"""Players score their own table in real browsers (issue 15): a director and two phones of one
table. The phones open the table from the QR code read off the printed sheet."""

import io

import pdfplumber
import pytest
import zxingcpp
from playwright.sync_api import expect

from scoring.models import Round
from tests import browser as b
from tests.factories import make_director, make_event, make_players, play, seat
from tournament.models import Event

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Mobile"


@pytest.fixture
def site(browser, live_server, transactional_db):
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    Event.objects.filter(pk=event.pk).update(table_entry=True)
    make_players(event, count=8)
    stage = seat(event)
    one, two = stage.tables.order_by("number")
    play(one, 11, user=director)  # 12-12 to 2-2: the phones enter 1-1 and 0-0
    play(two, 13, user=director)
    return {"url": live_server.url, "table": one, "stage": stage}


def qr_urls(pdf_bytes: bytes) -> list[str]:
    """What the QR code on each page of a sheets PDF says, read off the rendered page."""
    urls = []
    with pdfplumber.open(io.BytesIO(pdf_bytes)) as pdf:
        for page in pdf.pages:
            image = page.to_image(resolution=200).original
            urls += [found.text for found in zxingcpp.read_barcodes(image)]
    return urls


def enter_round(page, values):
    cells = page.locator(".round-cells input")
    for i, value in enumerate(values):
        cells.nth(i).fill(str(value))
    page.get_by_role("button", name="Save the round").click()


def test_two_phones_score_a_table_from_its_sheet_and_the_director_closes(site, pages):
    table = site["table"]
    director = pages()
    director.goto(site["url"] + "/director/e/spring/1/close/")
    b.log_in(director, "desk", PASSWORD)
    sheets = director.request.get(site["url"] + "/e/spring/1/blank-sheets.pdf")
    urls = qr_urls(sheets.body())
    # the first page is table 1's; its QR code says the sheet's version too, for the camera
    assert urls[0].split("?sheet=")[0] == f"{site['url']}/t/{table.code}/"

    # Two players' phones (each its own browser), each held by the player who taps their name.
    first, second = pages(**PHONE, user_agent=ANDROID), pages(**PHONE, user_agent=IPHONE)
    holders = [s.player for s in table.seats.select_related("player").order_by("position")]
    for phone, holder in zip((first, second), holders, strict=False):
        phone.goto(urls[0])
        for player in holders:  # the table's players first
            expect(phone.locator("#table-players")).to_contain_text(player.name)
        phone.get_by_role("button", name=holder.name, exact=True).click()
        expect(phone.get_by_role("heading", name="Round 1-1")).to_be_visible()
        expect(phone.locator("#phone-holder")).to_contain_text(f"You are {holder.name}")

    # The first phone enters 1-1; the second confirms it.
    enter_round(first, [0, 5, 6, 7])
    expect(first.locator(".awaiting")).to_be_visible()
    second.reload()
    code = first.locator(".confirm-code-shown").inner_text()  # shown to the second player
    second.get_by_label(f"Code shown on {holders[0].name}'s phone").fill(code)
    second.get_by_role("button", name="Confirm: these are our pips").click()
    expect(second.get_by_text("Round 1-1 confirmed.")).to_be_visible()
    assert not Round.objects.get(table=table, engine=1).awaiting_confirmation

    # The first phone enters 0-0 wrong; the second sends it back with a note.
    first.reload()
    enter_round(first, [0, 50, 6, 7])
    expect(first.locator(".awaiting")).to_be_visible()
    second.reload()
    second.get_by_label("Or send it back, saying what is wrong").fill("Bo had 5, not 50")
    second.get_by_role("button", name="Send back").click()
    first.reload()
    expect(first.locator("#sent-back")).to_contain_text("Bo had 5, not 50")
    enter_round(first, [0, 5, 6, 7])
    expect(first.locator(".awaiting")).to_be_visible()

    # The director's close waits for the unconfirmed round, then closes with a reason.
    director.goto(site["url"] + "/director/e/spring/1/close/")
    expect(director.locator("#unconfirmed")).to_contain_text("not confirmed")
    director.get_by_role("button", name="Confirm: close Game 1").click()
    expect(director.get_by_text("not confirmed").first).to_be_visible()
    site["stage"].refresh_from_db()
    assert not site["stage"].closed
    director.get_by_label("Confirm them first, or give the reason").fill("Pips agreed at the desk")
    with director.expect_navigation():  # the close is posted and answered
        director.get_by_role("button", name="Confirm: close Game 1").click()
    site["stage"].refresh_from_db()
    assert site["stage"].closed
    # A closed stage's code no longer opens the table: on a phone that opens it now (the
    # first phone's own page may be reloading itself, having seen the close).
    later = pages(**PHONE, user_agent=ANDROID)
    later.goto(urls[0])
    expect(later.locator("#code-refused")).to_be_visible()


def join(phone):
    """The phone says it is at the table its code opened (as the first player seated)."""
    phone.locator(".join-as, button:has-text('Yes, this is our table')").first.click()


def test_a_phones_round_kept_offline_and_refused_at_a_new_code_is_saved_at_the_new_one(
    site, pages, settings
):
    # The live parts would ask the old code again on their own (a 404: the page goes to the
    # table's sheet) whenever a poll falls in this test: its steps are what the phone sends.
    settings.LIVE_REFRESH_SECONDS = 3600
    table = site["table"]
    table.refresh_from_db()
    old = table.code
    director = pages()
    director.goto(site["url"] + "/accounts/login/?next=/e/spring/1/table/1/")
    b.log_in(director, "desk", PASSWORD)

    phone = pages(**PHONE)
    posts_to_old = []
    phone.on(
        "request",
        lambda r: posts_to_old.append(r.url) if r.method == "POST" and f"/t/{old}/" in r.url else 0,
    )
    phone.goto(f"{site['url']}/t/{old}/")
    join(phone)
    expect(phone.get_by_role("heading", name="Round 1-1")).to_be_visible()
    phone.wait_for_load_state("load")  # the page's script holds the round once offline

    # No connection: the round is kept on the phone, waiting to send.
    phone.context.set_offline(True)
    enter_round(phone, [0, 5, 6, 7])
    expect(phone.locator("#entry-status")).to_contain_text("Waiting to send (no connection)")

    # Meanwhile the director gives the table a new code.
    director.get_by_role("button", name="Give the table a new code").click()
    expect(director.get_by_text("Table 1's new code:")).to_be_visible()
    table.refresh_from_db()
    assert table.code != old

    # The connection returns: the round is refused, shown with its pips and the reason.
    phone.context.set_offline(False)
    phone.evaluate("window.dispatchEvent(new Event('online'))")
    refused = phone.locator("#refused-rounds")
    expect(refused).to_be_visible()
    expect(refused).to_contain_text("Round 1-1")
    expect(refused.locator(".refused-pips")).to_have_text(
        ", ".join(
            f"{s.player.name} {v}"
            for s, v in zip(table.seats.order_by("position"), [0, 5, 6, 7], strict=True)
        )
    )
    expect(refused).to_contain_text("This table has a new code: scan the new score sheet")
    expect(phone.locator("#entry-status")).not_to_contain_text("no connection")
    phone.screenshot(path=b.artifact("phone_round_refused.png"), full_page=True)
    sent = len(posts_to_old)
    assert sent >= 1
    # The script's retries send it no more.
    for _ in range(3):
        phone.evaluate("window.dispatchEvent(new Event('online'))")
    phone.evaluate("fetch('/healthz').then((r) => r.text())")  # after any request just made
    assert len(posts_to_old) == sent
    assert not Round.objects.filter(table=table, engine=1).exists()

    # The phone scans the new code: its round is there, put in the form and saved, once.
    phone.goto(f"{site['url']}/t/{table.code}/")
    join(phone)
    refused = phone.locator("#refused-rounds")
    expect(refused).to_contain_text("This table has a new code")
    refused.get_by_role("button", name="Put these numbers in the form").click()
    expect(phone.locator(".round-cells input").first).to_have_value("0")
    phone.get_by_role("button", name="Save the round").click()
    expect(phone.get_by_text("Round 1-1 saved.")).to_be_visible()
    expect(phone.locator("#refused-rounds")).to_be_hidden()
    saved = Round.objects.get(table=table, engine=1)
    assert saved.awaiting_confirmation
    by_seat = {s.player_id: s.pips for s in saved.scores.all()}
    assert [by_seat[s.player_id] for s in table.seats.order_by("position")] == [0, 5, 6, 7]
    assert len(posts_to_old) == sent
    phone.reload()
    expect(phone.locator("#refused-rounds")).to_be_hidden()
    assert Round.objects.filter(table=table, engine=1).count() == 1


def test_a_kept_round_refused_without_json_is_kept_and_sent_no_more(site, pages):
    """Any 4xx is final, even a page that is not JSON (a proxy's, a stale form's 403)."""
    table = site["table"]
    table.refresh_from_db()
    phone = pages(**PHONE)
    phone.goto(f"{site['url']}/t/{table.code}/")
    join(phone)
    entry = f"{site['url']}/t/{table.code}/enter/"
    posts = []
    phone.on("request", lambda r: posts.append(r.url) if r.method == "POST" else 0)

    def forbidden(route):
        if route.request.method != "POST":
            return route.continue_()
        return route.fulfill(status=403, content_type="text/html", body="<p>Forbidden</p>")

    expect(phone.get_by_role("heading", name="Round 1-1")).to_be_visible()
    phone.wait_for_load_state("load")  # the page's script holds the round once offline
    phone.context.set_offline(True)
    enter_round(phone, [0, 5, 6, 7])
    expect(phone.locator("#entry-status")).to_contain_text("Waiting to send (no connection)")
    phone.route(entry, forbidden)
    phone.context.set_offline(False)
    phone.evaluate("window.dispatchEvent(new Event('online'))")
    refused = phone.locator("#refused-rounds")
    expect(refused).to_contain_text("The site refused this round (error 403)")
    expect(phone.locator("#entry-status")).not_to_contain_text("no connection")
    sent = len(posts)
    for _ in range(3):
        phone.evaluate("window.dispatchEvent(new Event('online'))")
    phone.evaluate("fetch('/healthz').then((r) => r.text())")
    assert len(posts) == sent
    phone.unroute(entry, forbidden)

    # Nothing typed is lost: after a reload the round is still there, put back and saved once.
    phone.reload()
    refused.get_by_role("button", name="Put these numbers in the form").click()
    phone.get_by_role("button", name="Save the round").click()
    expect(phone.get_by_text("Round 1-1 saved.")).to_be_visible()
    expect(refused).to_be_hidden()
    assert Round.objects.filter(table=table, engine=1).count() == 1
