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
    expect(page.get_by_role("columnheader", name="Manches jouées")).to_be_visible()
    switch = page.get_by_label("Langue")
    expect(switch).to_have_value("fr")
    page.screenshot(path=b.artifact("language-switch-fr-320.png"), full_page=True)
    assert page.evaluate("document.querySelector('nav').scrollWidth") <= 320  # the bar wraps

    switch.select_option("en")
    with page.expect_navigation():
        page.get_by_role("button", name="Changer").click()
    assert page.url == f"{live_server.url}/e/club/1/"  # back on the same page
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("columnheader", name="Rounds played")).to_be_visible()
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
