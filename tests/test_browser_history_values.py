"""The history's values and the close page's road read whole on a phone and a desk screen
(issue 28 items 6 and 9): 360 px and 1280 px, no sideways scroll, checked by axe-core."""

import pytest
from playwright.sync_api import expect

from scoring.models import Round
from scoring.services.rounds import correct_round
from scoring.sheets import table_sheet
from tests import browser as b
from tests.factories import make_director, make_players, seat
from tests.test_advancement import play_totals, short_event
from tournament.models import Table

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


@pytest.mark.parametrize("width", [360, 1280])
def test_history_values_and_the_close_road_read_whole(
    browser, live_server, transactional_db, width
):
    director = make_director("desk", PASSWORD)
    event = short_event(director, slug="club", finals_top_n=None)
    make_players(event, count=24)
    game1 = seat(event)
    for table in Table.objects.filter(stage=game1).order_by("number"):
        play_totals(table, [5, 5, 20, 30] if table.number == 1 else [5, 9, 20, 30])
    first = Table.objects.get(stage=game1, number=2)
    bo = table_sheet(first).players[1]
    round_ = Round.objects.get(table=first, number=2)
    pips = {s.player_id: s.pips for s in round_.scores.all()}
    old = pips[bo.pk]
    pips[bo.pk] = old + 1
    correct_round(round_, pips, director, "Misread the sheet")

    page = b.new_page(browser, viewport={"width": width, "height": 900})
    page.goto(f"{live_server.url}/director/e/club/history/")
    b.log_in(page, "desk", PASSWORD)
    expect(page.get_by_text(f"{bo.name}: {old} → {old + 1}")).to_be_visible()
    expect(page.get_by_text("(1 score changed)")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=b.artifact(f"history-values-{width}.png"), full_page=True)

    page.goto(f"{live_server.url}/director/e/club/1/close/")
    expect(page.locator(".finals-plan")).to_contain_text("→ 7 →")
    expect(page.locator(".bracket-stage .badge", has_text="closed")).to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=b.artifact(f"close-road-{width}.png"), full_page=True)
