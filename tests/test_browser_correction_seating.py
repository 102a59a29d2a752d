"""A correction's preview in a real browser (issue 45 item 6): the page's script shows what the
correction changes to the seating and the "Save the correction and reseat" button, and a
double click on that button corrects and reseats the next game once."""

import pytest
from django.test import Client
from playwright.sync_api import expect

from scoring.models import ScoreChange
from tests import browser as b
from tests.factories import make_director
from tests.test_correction_seating import correct_url, progressive_event, where
from tournament.models import Action

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


@pytest.fixture
def site(browser, live_server, transactional_db):
    director = make_director("desk", PASSWORD)
    client = Client()
    client.force_login(director)
    return {"url": live_server.url, **progressive_event(client)}


def test_the_preview_names_the_move_and_a_double_click_reseats_the_next_game_once(site, pages):
    c, d, game2 = site["c"], site["d"], site["game2"]
    page = pages()
    page.goto(site["url"] + correct_url(site["t1"]))
    b.log_in(page, "desk", PASSWORD)
    player = site["event"].players.get(name=d)
    page.locator(f"input[name=p{player.pk}]").fill("7")  # 70 → 7
    page.get_by_label("Reason for the correction").fill("Sheet misread")
    page.get_by_role("button", name="Save correction").click()
    effects = page.locator("#effects")
    expect(effects).to_contain_text(f"Game 1, table 1 — down to table 2: {c}")
    expect(effects).to_contain_text(f"Game 2: {d} at table 1")
    assert not ScoreChange.objects.exists()  # nothing saved before the confirmation
    page.get_by_role("button", name="Save the correction and reseat Game 2").dblclick()
    expect(page.get_by_text("Game 2 is seated again from the corrected totals.")).to_be_visible()
    assert ScoreChange.objects.count() == 1
    assert where(game2)[d] == 1 and where(game2)[c] == 2
    seated = Action.objects.filter(verb="stage.seated", stage=game2)
    assert seated.count() == 2  # at the close, and once from the corrected totals
