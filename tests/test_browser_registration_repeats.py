"""The import preview of a sign-up export with repeated rows, in a browser (issue 28, item 2):
the repeats are unticked and say why, the confirm button counts what it will import as boxes
are ticked; then a player registered by mistake is deleted from its page. Every page is
checked with axe-core (tests/conftest.py)."""

import pytest
from playwright.sync_api import expect

from tests import browser as b
from tests.factories import make_director, make_event
from tests.test_registration_repeats import SIGN_UP
from tournament.models import Action

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


@pytest.fixture
def site(browser, live_server, transactional_db):
    director = make_director("signups", PASSWORD)
    event = make_event(director, name="Sign-up Open", slug="signup")
    return {"url": live_server.url, "event": event}


def test_repeats_in_the_preview_then_a_mistake_deleted(site, pages, tmp_path):
    event = site["event"]
    export = tmp_path / "signup.csv"
    export.write_bytes(SIGN_UP)
    page = pages(viewport={"width": 1280, "height": 900})
    page.goto(site["url"] + "/director/e/signup/players/import/")
    b.log_in(page, "signups", PASSWORD)
    page.get_by_label("List of players (CSV or Excel .xlsx)").set_input_files(export)
    page.get_by_role("button", name="Read the list").click()
    expect(page.get_by_role("heading", name="The players it gives")).to_be_visible()

    repeat = page.get_by_label("repeats line 4 (same e-mail): left out; tick to import anyway")
    expect(repeat).not_to_be_checked()
    expect(
        page.get_by_label("repeats line 2 (same name and club): left out; tick to import anyway")
    ).not_to_be_checked()
    confirm = page.locator("#confirm-import")
    expect(confirm).to_have_text("Confirm: import 5 players")
    repeat.check()
    expect(confirm).to_have_text("Confirm: import 6 players")
    repeat.uncheck()
    expect(confirm).to_have_text("Confirm: import 5 players")
    repeat.check()
    page.screenshot(path=b.artifact("import-repeats.png"), full_page=True)
    confirm.click()
    expect(page.locator(".alert-success")).to_contain_text(
        "6 players imported, 0 changed, 2 skipped."
    )
    assert event.players.count() == 6

    # Jose Nunez was the same person after all: deleted from his page.
    page.get_by_role("link", name="Jose Nunez").click()
    page.get_by_role("link", name="Delete this player").click()
    expect(page.get_by_role("heading", name="Delete Jose Nunez?")).to_be_visible()
    page.get_by_role("button", name="Delete Jose Nunez").click()
    expect(page.locator(".alert-success")).to_contain_text("Jose Nunez is deleted.")
    assert event.players.count() == 5
    assert Action.objects.filter(event=event, verb="player.deleted").count() == 1
