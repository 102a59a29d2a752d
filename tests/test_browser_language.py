"""The language switch in a real browser on a small phone: a French browser gets French, the
switch takes English and keeps it from page to page, with no sideways scroll at 320 px."""

import pytest
from playwright.sync_api import expect

from tests import browser as b
from tests.factories import make_event, make_players, play, seat

pytestmark = pytest.mark.browser


def test_a_french_phone_reads_french_and_switches_to_english(
    browser, live_server, transactional_db
):
    event = make_event(slug="club", engines=[2, 1, 0])
    make_players(event, count=8)
    for table in seat(event).tables.all():
        play(table, 1)

    page = b.new_page(browser, viewport={"width": 320, "height": 800}, locale="fr-CA")
    page.goto(f"{live_server.url}/e/club/1/")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.get_by_role("link", name="Connexion des directeurs")).to_be_visible()
    expect(page.get_by_role("columnheader", name="Joueur")).to_be_visible()  # not folded at 320
    switch = page.get_by_label("Langue")
    expect(switch).to_have_value("fr")
    page.screenshot(path=b.artifact("language-switch-fr-320.png"), full_page=True)
    assert page.evaluate("document.querySelector('nav').scrollWidth") <= 320  # the bar wraps

    switch.select_option("en")
    with page.expect_navigation():
        page.get_by_role("button", name="Changer").click()
    assert page.url == f"{live_server.url}/e/club/1/"  # back on the same page
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("columnheader", name="Player")).to_be_visible()
    page.goto(f"{live_server.url}/e/club/")  # remembered on the next page
    expect(page.get_by_label("Language")).to_have_value("en")
    expect(page.get_by_role("heading", name="Stages")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 320  # no sideways scroll
    page.get_by_label("Language").select_option("fr")
    with page.expect_navigation():
        page.get_by_role("button", name="Change").click()
    expect(page.get_by_role("heading", name="Phases")).to_be_visible()
    page.screenshot(path=b.artifact("language-switch-event-fr-320.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 320


def test_the_big_clock_reads_french_and_switches_from_its_corner(
    browser, live_server, transactional_db
):
    event = make_event(slug="room", engines=[2, 1, 0])
    make_players(event, count=8)
    seat(event)
    url = f"{live_server.url}/e/room/1/clock/"

    # A projector: the switch is small, in the top corner, clear of the title.
    screen = b.new_page(browser, viewport={"width": 1280, "height": 720}, locale="fr-FR")
    screen.goto(url)
    expect(screen.locator("html")).to_have_attribute("lang", "fr")
    expect(screen.get_by_text("Temps restant")).to_be_visible()
    expect(screen.get_by_text("Tables terminées")).to_be_visible()
    switch = screen.get_by_label("Langue")
    expect(switch).to_have_value("fr")
    form = screen.locator("form.language-switch").bounding_box()
    title = screen.get_by_role("heading", level=1).bounding_box()
    assert form["y"] + form["height"] < 0.08 * 720 and form["x"] > 1280 * 0.75  # its corner
    assert form["height"] < 0.06 * 720  # small beside the digits
    assert form["x"] >= title["x"] + title["width"] or form["y"] >= title["y"] + title["height"]
    digits = screen.locator("#big-digits").bounding_box()
    assert digits["height"] > 0.3 * 720  # the clock still fills the screen
    screen.screenshot(path=b.artifact("big-clock-switch-fr.png"))

    switch.select_option("en")
    with screen.expect_navigation():
        screen.get_by_role("button", name="Changer").click()
    assert screen.url == url  # back on the clock
    expect(screen.locator("html")).to_have_attribute("lang", "en")
    expect(screen.get_by_text("Time left")).to_be_visible()
    expect(screen.get_by_label("Language")).to_have_value("en")

    # A phone: the switch goes above the title, and nothing scrolls sideways.
    phone = b.new_page(browser, viewport={"width": 320, "height": 640}, locale="fr-CA")
    phone.goto(url)
    expect(phone.get_by_label("Langue")).to_be_visible()
    form = phone.locator("form.language-switch").bounding_box()
    title = phone.get_by_role("heading", level=1).bounding_box()
    assert form["y"] + form["height"] <= title["y"] + 1  # not over the title
    assert phone.evaluate("document.documentElement.scrollWidth") <= 320
    # The join QR code goes below the tables finished: in its corner it covered them.
    qr = phone.locator(".big-join").bounding_box()
    for covered in (".big-state", ".big-tables"):
        box = phone.locator(covered).bounding_box()
        assert qr["y"] >= box["y"] + box["height"] - 1, covered
    phone.screenshot(path=b.artifact("big-clock-switch-fr-320.png"), full_page=True)
