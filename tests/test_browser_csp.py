"""Every page passes the site's Content-Security-Policy in a real browser (django-csp).

conftest.py fails any browser test during which Chromium reports a violation; this one opens
the main pages, public and the directors', and uses what used to be inline script (select
all, confirm, print) now in static/js/site.js.
"""

import pytest
from playwright.sync_api import expect

from scoring.services.infractions import log_infraction
from tests import browser as b
from tests.factories import make_director, make_event, make_players, play, seat
from tournament.models import Table

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"

PUBLIC = [
    "/",
    "/e/spring/",
    "/e/spring/find/?q=Player",
    "/e/spring/1/",
    "/e/spring/1/table/1/",
    "/e/spring/1/seating/",
    "/e/spring/1/clock/",
    "/e/spring/bracket/",
    "/e/spring/results/",
    "/e/spring/player/{player}/",
    "/e/spring/find/?q=%00",  # the 400 page
    "/e/nowhere/",  # the 404 page
    "/accounts/login/",
]
DIRECTORS = [
    "/director/new/",
    "/director/e/spring/edit/",
    "/director/e/spring/players/",
    "/director/e/spring/players/import/",
    "/director/e/spring/players/{player}/",
    "/director/e/spring/desk/",
    "/director/e/spring/delete/",
    "/director/e/spring/scorekeepers/",
    "/director/e/spring/1/table/1/enter/",
    "/director/e/spring/1/table/1/round/1/correct/",
    "/director/e/spring/1/table/1/infraction/",
    "/director/e/spring/infractions/",
    "/director/e/spring/infractions/{infraction}/",
    "/director/e/spring/1/close/",
    "/director/import/",
    "/accounts/password_change/",
    "/admin/",
    "/admin/tournament/player/",
]


@pytest.fixture
def site(browser, live_server, transactional_db):
    director = make_director("desk", PASSWORD)
    director.is_staff = director.is_superuser = True
    director.save()
    event = make_event(director, name="Spring Games", slug="spring")
    make_players(event, count=8)
    stage = seat(event)
    table = Table.objects.get(stage=stage, number=1)
    play(table, 1, director)
    player = table.seats.order_by("position").first().player
    infraction = log_infraction(table, player, 12, "wrong_tile", "", director)
    return {"url": live_server.url, "ids": {"player": player.pk, "infraction": infraction.pk}}


def test_the_main_pages_pass_the_content_security_policy(site, pages):
    page = pages()
    for path in PUBLIC:
        response = page.goto(site["url"] + path.format(**site["ids"]))
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "style-src 'self'" in policy, path
    page.goto(site["url"] + "/accounts/login/")
    b.log_in(page, "desk", PASSWORD)
    for path in DIRECTORS:
        response = page.goto(site["url"] + path.format(**site["ids"]))
        assert response.ok, path
    page.wait_for_timeout(200)  # let the last page's console messages arrive
    assert b.CSP_VIOLATIONS == []

    # The watch can see one: an inline style attribute is refused.
    page.evaluate("document.body.setAttribute('style', 'color: red')")
    page.wait_for_timeout(200)
    assert any("style-src" in v for v in b.CSP_VIOLATIONS)
    b.CSP_VIOLATIONS.clear()


def test_select_all_confirm_and_print_work_without_inline_script(site, pages):
    page = pages()
    page.goto(site["url"] + "/director/e/spring/players/")
    b.log_in(page, "desk", PASSWORD)
    page.get_by_label("Select all").check()
    expect(page.locator("input.pick:checked")).to_have_count(8)
    page.get_by_label("Select all").uncheck()
    expect(page.locator("input.pick:checked")).to_have_count(0)

    page.goto(site["url"] + "/e/spring/1/seating/")
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.get_by_role("button", name="Draw again").click()
    assert asked == ["Draw the seating again? The current one is replaced."]
    expect(page).to_have_url(site["url"] + "/e/spring/1/seating/")  # dismissed: not sent

    page.evaluate("window.print = () => { window.printed = true; }")
    page.get_by_role("button", name="Print").click()
    assert page.evaluate("window.printed") is True
