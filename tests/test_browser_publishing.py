"""Draft, then Publish, in a browser (issue 49 item 4): the director draws Game 1 on its seating
page and sees the draft; a player's phone open on the seating list says "not published yet",
and shows the tables by itself once the director presses Publish; the hall screen the same. In
French too. axe-core checks every page opened (tests/browser.py), at 320 px for the phone."""

import pytest
from playwright.sync_api import expect

from tests import browser as b
from tests.factories import make_director, make_event, make_players

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"
NAMES = ["Ann Lee", "Bo Diaz", "Cy Wu", "Di Ray", "Ed Fox", "Flo Kim", "Gus Hart", "Hal Moe"]


@pytest.fixture
def site(browser, live_server, transactional_db):
    director = make_director("pubboss", PASSWORD)
    event = make_event(director, name="Draft Night", slug="draft", engines=[1, 0])
    make_players(event, NAMES)
    return live_server.url


def test_a_draft_is_published_and_the_open_phones_and_screen_follow(site, pages):
    desk = pages()
    desk.goto(site + "/accounts/login/?next=/e/draft/1/seating/")
    b.log_in(desk, "pubboss", PASSWORD)
    desk.get_by_role("button", name="Draw the seating").click()
    draft = desk.locator("#draft-seating")
    expect(draft).to_contain_text("Draft: players do not see it yet.")
    expect(desk.locator("#alphabetical")).to_contain_text("Ann Lee")

    phone = pages(**b.PHONE)
    phone.goto(site + "/e/draft/1/seating/")
    expect(phone.locator("#not-published")).to_have_text(
        "Seating not published yet: the directors publish it before play starts."
    )
    french = pages(**b.PHONE, locale="fr-FR")
    french.goto(site + "/e/draft/1/seating/")
    expect(french.locator("#not-published")).to_contain_text("Placement pas encore publié")
    screen = pages(viewport={"width": 1280, "height": 720})
    screen.goto(site + "/e/draft/1/screen/?show=seating")
    expect(screen.locator("#live-screen-seating")).to_contain_text("Seating not published yet.")

    with desk.expect_navigation():
        draft.get_by_role("button", name="Publish").click()
    expect(desk.locator(".alert-success")).to_contain_text("The seating of Game 1 is published")
    expect(desk.locator("#draft-seating")).to_have_count(0)
    # The phone and the screen, left open, show the seating by themselves.
    expect(phone.locator("#alphabetical")).to_contain_text("Ann Lee", timeout=10_000)
    expect(french.locator("#alphabetical")).to_contain_text("Ann Lee", timeout=10_000)
    expect(screen.locator("#live-screen-seating")).to_contain_text("Ann Lee", timeout=10_000)
    phone.screenshot(path=b.artifact("seating-published-phone.png"), full_page=True)
