"""A phone on the hall's Wi-Fi logs in with the password, then the code from the laptop's
screen, in a real browser (the code page is checked for accessibility as every page is)."""

import pytest
from playwright.sync_api import expect

from tests import browser as b
from tests.factories import make_director
from tournament.models import HallLoginCode

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


def test_a_phone_on_the_halls_wi_fi_logs_in_with_the_laptops_code(
    browser, live_server, transactional_db, settings, monkeypatch
):
    settings.HALL = True
    # The browser reaches the live server over loopback: here it stands for a phone.
    monkeypatch.setattr("tournament.hall_login.is_laptop", lambda address: False)
    make_director("ann", PASSWORD)

    page = b.new_page(browser, **b.PHONE)
    page.goto(f"{live_server.url}/accounts/login/")
    b.log_in(page, "ann", PASSWORD)
    expect(page.get_by_role("heading", name="Log-in code")).to_be_visible()
    code = HallLoginCode.objects.get().code

    page.get_by_label("Log-in code").fill("000000" if code != "000000" else "111111")
    with page.expect_navigation():
        page.get_by_role("button", name="Log in", exact=True).click()
    expect(page.get_by_text("This is not the code shown on the laptop: try again.")).to_be_visible()

    page.get_by_label("Log-in code").fill(code)
    with page.expect_navigation():
        page.get_by_role("button", name="Log in", exact=True).click()
    assert page.url == f"{live_server.url}/director/tables/"
