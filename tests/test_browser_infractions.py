"""A scorekeeper logs two infractions for one player in a real browser (PRODUCT.md §8).

The first is a warning, the second a penalty draw of one tile: the page says so at once.
Drives Debian's Chromium through Playwright against pytest-django's live server; see
tests/browser.py. Run only these with ``pytest -m browser``.
"""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from scoring.models import Infraction
from tests import browser as b
from tests.factories import make_director, make_event, make_players, play, seat

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"
TABLE = "/e/spring/1/table/1/"


@pytest.fixture
def site(browser, live_server, transactional_db):
    """Spring Games, 8 players at two tables of Game 1; "keeper" scores table 1, 2 rounds in."""
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    make_players(event, count=8)
    table = seat(event).tables.get(number=1)
    play(table, rounds=2, user=director)
    keeper = get_user_model().objects.create_user("keeper", password=PASSWORD)
    table.scorekeepers.add(keeper)
    return {"url": live_server.url, "table": table, "keeper": keeper}


@pytest.fixture
def page(browser):
    page = b.new_page(browser, **b.PHONE)
    yield page
    page.context.close()


def log_infraction(page, player: str, kind: str, note: str = "") -> None:
    """Tap the player, tap the kind, keep the round in play, send."""
    form = page.locator("#infraction-form")
    form.locator("#infraction-player label", has_text=player).click()
    form.locator("#infraction-kind label", has_text=kind).click()
    if note:
        form.get_by_label("Note").fill(note)
    with page.expect_navigation():
        form.get_by_role("button", name="Log infraction").click()


def test_two_infractions_for_one_player_are_a_warning_then_a_penalty_draw(site, page):
    player = site["table"].seats.select_related("player").get(position=2).player
    page.goto(site["url"] + TABLE)
    expect(page.locator("#infraction-form")).to_have_count(0)  # not logged in: no form
    page.goto(f"{site['url']}/accounts/login/?next={TABLE}")
    b.log_in(page, "keeper", PASSWORD)
    assert page.url == site["url"] + TABLE

    # The round in play is offered: 12-12 and 11-11 are entered, 10-10 is being played.
    expect(page.locator("#infraction-form").get_by_label("Round")).to_have_value("10")
    log_infraction(page, player.name, "Wrong tile", note="played a 4 on a 5")
    alert = page.locator("#infraction-action")
    expect(alert).to_contain_text("Warning: no penalty this time")
    expect(alert).to_contain_text(f"{player.name}: Wrong tile in round 10-10")

    log_infraction(page, player.name, "Out of turn")
    expect(alert).to_contain_text("Penalty: draw one tile")
    expect(alert).not_to_contain_text("Warning")
    expect(alert).to_have_class("alert alert-danger py-3 infraction-action")

    # The tally under the grid: two counted, a warning then a penalty draw.
    row = page.locator(f"#infraction-tally tr[data-player='{player.pk}']")
    expect(row.locator(".infraction-count")).to_have_text("2")
    expect(row.locator(".infraction")).to_have_text(
        [
            "10|10 Wrong tile: Warning – played a 4 on a 5",
            "10|10 Out of turn: Penalty draw of one tile",
        ]
    )
    page.screenshot(path=b.artifact("infractions.png"), full_page=True)

    saved = list(Infraction.objects.order_by("pk").values_list("action", "logged_by", "engine"))
    keeper = site["keeper"].pk
    assert saved == [("warning", keeper, 10), ("penalty_draw", keeper, 10)]
