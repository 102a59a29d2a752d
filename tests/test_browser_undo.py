"""Reopening a stage closed too early, in a real browser on a small phone: the link on the
closed stage's page, the list of what goes, the reason, the confirm."""

import pytest
from playwright.sync_api import expect

from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat
from tests.test_advancement import play_totals
from tournament.models import Stage, StageKind, Table

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


def test_a_director_reopens_game_1_from_its_page(browser, live_server, transactional_db):
    director = make_director("desk", PASSWORD)
    event = make_event(director, slug="club", engines=[1, 0], game_minutes=None)
    make_players(event, count=8)
    game1 = seat(event)
    for table in Table.objects.filter(stage=game1):
        play_totals(table, [3, 10, 20, 30])

    page = b.new_page(browser, viewport={"width": 320, "height": 800})
    base = live_server.url
    page.goto(f"{base}/director/e/club/1/close/")
    b.log_in(page, "desk", PASSWORD)
    with page.expect_navigation():
        page.get_by_role("button", name="Confirm: close Game 1").click()
    expect(page.get_by_text("Final seated.")).to_be_visible()

    page.goto(f"{base}/director/e/club/1/close/")
    with page.expect_navigation():
        page.get_by_role("link", name="Reopen Game 1 (closed too early)").click()
    expect(page.get_by_role("heading", name="Reopen Game 1")).to_be_visible()
    expect(page.get_by_text("the seating of Final")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 320  # no sideways scroll
    page.screenshot(path=b.artifact("reopen-stage-320.png"), full_page=True)
    page.get_by_label("Why this stage is reopened").fill("a score of table 2 was wrong")
    with page.expect_navigation():
        page.get_by_role("button", name="Confirm: reopen Game 1").click()
    expect(page.get_by_text("Game 1 is open again: it takes rounds.")).to_be_visible()
    assert not Stage.objects.get(pk=game1.pk).closed
    assert not Stage.objects.get(event=event, kind=StageKind.FINAL).tables.exists()
