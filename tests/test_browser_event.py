"""A small event in a real browser: Game 1, a tie for gold, the bronze playoff, the results."""

import pytest
from playwright.sync_api import expect

from scoring.services.rounds import record_round
from scoring.sheets import table_sheet
from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat
from tournament.models import Player, Stage, StageKind, Table

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


def enter_round(page, totals_by_name, engine=None):
    """Type one round's pips by player name on the open entry page, and save it."""
    for name, pips in totals_by_name.items():
        pk = Player.objects.get(name=name).pk
        page.locator(f"input[name=p{pk}]").fill(str(pips))
    if engine is not None:
        page.get_by_label("Engine").select_option(str(engine))
    with page.expect_navigation():
        page.get_by_role("button", name="Save").click()


def test_game_1_to_a_tie_for_gold_a_bronze_playoff_and_the_results(
    browser, live_server, transactional_db
):
    director = make_director("desk", PASSWORD)
    event = make_event(director, slug="club", engines=[1, 0], game_minutes=None)
    make_players(event, ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"])
    game1 = seat(event)
    t1, t2 = Table.objects.filter(stage=game1)
    for table in (t1, t2):  # two tied at each top: four go on to the final
        players = table_sheet(table).players
        record_round(table, dict(zip([p.pk for p in players], [0, 1, 1, 1], strict=True)), None)
        record_round(table, dict(zip([p.pk for p in players], [5, 4, 19, 29], strict=True)), None)
    finalists = sorted(p.name for t in (t1, t2) for p in table_sheet(t).players[:2])

    page = b.new_page(browser)
    base = live_server.url
    page.goto(f"{base}/director/e/club/1/close/")
    b.log_in(page, "desk", PASSWORD)
    expect(page.get_by_text("When you confirm")).to_be_visible()
    with page.expect_navigation():
        page.get_by_role("button", name="Confirm: close Game 1").click()
    expect(page.get_by_text("Final seated.")).to_be_visible()

    first, second, third, fourth = finalists
    page.goto(f"{base}/director/e/club/2/table/1/enter/")
    enter_round(page, {first: 0, second: 1, third: 1, fourth: 1})
    expect(page.get_by_text("Round 1-1 saved.")).to_be_visible()
    enter_round(page, {first: 3, second: 2, third: 9, fourth: 11})  # 3, 3, 10, 12
    page.goto(f"{base}/director/e/club/2/close/")
    with page.expect_navigation():
        page.get_by_role("button", name="Confirm: close Final").click()
    expect(page.get_by_text("Playoff created: Bronze playoff.")).to_be_visible()

    page.goto(f"{base}/e/club/results/")
    medals = page.locator("#medals")
    expect(medals).to_contain_text("playoff pending")
    expect(medals).to_contain_text(f"{third}, {fourth}")

    playoff = Stage.objects.get(event=event, kind=StageKind.PLAYOFF)
    page.goto(f"{base}/director/e/club/{playoff.number}/table/1/enter/")
    enter_round(page, {third: 7, fourth: 0}, engine=12)

    public = b.new_page(browser, **b.PHONE)
    public.goto(f"{base}/e/club/results/")
    medals = public.locator("#medals")
    expect(medals.locator(".medal-gold")).to_contain_text(f"{first}, {second}")
    expect(medals.locator(".medal-silver")).to_contain_text("not awarded")
    expect(medals.locator(".medal-bronze")).to_contain_text(fourth)
    expect(medals).not_to_contain_text("playoff pending")
    public.screenshot(path=b.artifact("results.png"), full_page=True)
    public.goto(f"{base}/e/club/bracket/")
    expect(public.locator(".bracket-stage")).to_have_count(3)
    public.screenshot(path=b.artifact("bracket.png"), full_page=True)
