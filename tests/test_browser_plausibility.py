""" "Are you sure?" in a real browser (issue 33 item 2): a count above what 999 losing hands in
1,000 leave asks before anything is sent, names the player, the typical range and the likely
typo; the answer saves the round once. A phone's round kept offline that the server asks about
is never lost: answered on its page, saved once."""

from dataclasses import asdict

import pytest
from django.core.cache import cache
from playwright.sync_api import expect

from scoring import plausibility as kept
from scoring.models import Round
from scoring.services.rounds import record_round
from scoring.sheets import table_sheet
from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat
from tournament.game import plausibility
from tournament.game.rules import RuleSet
from tournament.models import Event

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"
ENTER = "/director/e/spring/1/table/1/enter/"
NVSO = plausibility.shipped()[plausibility.key(RuleSet(), 4)]
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def seated(table):
    return [s.player for s in table.seats.select_related("player").order_by("position")]


@pytest.fixture
def site(browser, live_server, transactional_db):
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    make_players(event, count=8)
    stage = seat(event)
    return {"url": live_server.url, "table": stage.tables.get(number=1)}


def test_287_asks_first_and_the_answer_saves_the_round_once(site, pages):
    table = site["table"]
    players = seated(table)
    page = pages()
    page.goto(site["url"] + ENTER)
    b.log_in(page, "desk", PASSWORD)
    expect(page.get_by_role("heading", name="Round 12-12")).to_be_visible()
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    for value in ["0", "12", "287", "7"]:
        page.keyboard.type(value)
        page.keyboard.press("Tab" if value != "7" else "Enter")

    question = page.locator("#plausible-question")
    expect(question).to_be_visible()
    expect(question).to_contain_text(
        f"{players[2].name}: 287 is more than 999 hands in 1,000 leave at this table "
        f"(19 in 20 leave 0 to {NVSO.typical}): is it 28 or 27?"
    )
    expect(page.locator(f"input[name=p{players[2].pk}]")).to_be_focused()  # to type it again
    assert not Round.objects.exists() and posts == []  # asked before anything was sent

    page.get_by_role("button", name="Yes, save 287").click()
    expect(page.get_by_role("heading", name="Round 11-11")).to_be_visible()
    saved = Round.objects.get(table=table)
    assert saved.scores.get(player=players[2]).pips == 287

    # The likely count, one tap: 28 in the cell, saved with no question.
    for i, value in enumerate(["5", "0", "287", "9"]):
        page.locator(f"input[name=p{players[i].pk}]").fill(value)
    page.get_by_role("button", name="Save round 11-11").click()
    page.get_by_role("button", name="28", exact=True).click()
    expect(page.locator(f"input[name=p{players[2].pk}]")).to_have_value("28")
    expect(question).to_be_hidden()
    page.get_by_role("button", name="Save round 11-11").click()
    expect(page.get_by_role("heading", name="Round 10-10")).to_be_visible()
    assert Round.objects.get(table=table, engine=11).scores.get(player=players[2]).pips == 28
    assert Round.objects.filter(table=table).count() == 2


@pytest.fixture
def custom(browser, live_server, transactional_db):
    """A custom rule set (14 tiles each): not in the shipped file, its threshold not yet
    computed (the tests' settings compute none) when the phone opens its table."""
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring", tiles_drawn={"4": 14, "5": 14})
    Event.objects.filter(pk=event.pk).update(table_entry=True)
    make_players(event, count=8)
    stage = seat(event)
    return {"url": live_server.url, "table": stage.tables.get(number=1), "rules": event.rules}


def test_a_round_kept_offline_that_the_server_asks_about_is_answered_and_saved_once(custom, pages):
    table = custom["table"]
    players = seated(table)
    phone = pages(**PHONE)
    phone.goto(f"{custom['url']}/t/{table.code}/")
    phone.get_by_role("button", name=players[0].name, exact=True).click()
    expect(phone.get_by_role("heading", name="Round 12-12")).to_be_visible()

    # No connection: the round is kept on the phone (the page knows no threshold yet).
    phone.context.set_offline(True)
    cells = phone.locator(".round-cells input")
    for i, value in enumerate([0, 12, 287, 7]):
        cells.nth(i).fill(str(value))
    phone.get_by_role("button", name="Save the round").click()
    expect(phone.locator("#entry-status")).to_contain_text("Waiting to send")

    # Meanwhile the background task has kept this rule set's threshold.
    threshold = plausibility.Threshold(
        rare=150, typical=60, low=140, high=160, hands=1, rounds=1, seed=1
    )
    cache.set(kept.cache_key(plausibility.key(custom["rules"], 4)), asdict(threshold), None)

    phone.context.set_offline(False)
    phone.evaluate("window.dispatchEvent(new Event('online'))")
    question = phone.locator("#plausible-question")
    expect(question).to_contain_text(
        f"{players[2].name}: 287 is more than 999 hands in 1,000 leave at this table "
        "(19 in 20 leave 0 to 60): is it 28 or 27?"
    )
    assert not Round.objects.exists()
    # not lost: on this phone's list of rounds not saved until it is answered
    expect(phone.locator("#refused-rounds")).to_contain_text("287")

    phone.get_by_role("button", name="Yes, save 287").click()
    expect(phone.get_by_role("heading", name="Round 11-11")).to_be_visible()
    expect(phone.locator("#refused-rounds")).to_be_hidden()
    saved = Round.objects.get(table=table)
    assert saved.scores.get(player=players[2]).pips == 287
    kept_rounds = phone.evaluate("localStorage.getItem('mexican-train-rounds-to-send')")
    assert kept_rounds in (None, "[]")


def test_a_correction_asks_only_about_a_count_it_changes(site, pages):
    table = site["table"]
    players = seated(table)
    record_round(table, {p.pk: v for p, v in zip(players, [0, 12, 287, 7], strict=True)}, None)
    page = pages()
    page.goto(site["url"] + ENTER.replace("enter/", "round/1/correct/"))
    b.log_in(page, "desk", PASSWORD)
    page.locator(f"input[name=p{players[1].pk}]").fill("13")  # 287 stays: not asked again
    page.get_by_label("Reason for the correction").fill("misread")
    page.get_by_role("button", name="Save correction").click()
    expect(page.get_by_text("Round corrected: 1 score changed.")).to_be_visible()

    page.goto(site["url"] + ENTER.replace("enter/", "round/1/correct/"))
    page.locator(f"input[name=p{players[2].pk}]").fill("290")
    page.get_by_label("Reason for the correction").fill("misread")
    page.get_by_role("button", name="Save correction").click()
    expect(page.locator("#plausible-question")).to_contain_text("290 is more than 999 hands")
    page.get_by_role("button", name="Yes, save 290").click()
    expect(page.get_by_text("Round corrected: 1 score changed.")).to_be_visible()
    assert table_sheet(table).rounds[0].pips[players[2].pk] == 290


def test_a_kept_round_asked_about_on_another_tables_page_is_kept_until_answered_on_its_own(
    custom, pages
):
    """A director's laptop keeps table 1's round offline and opens table 2 once back online:
    the round is sent from there, the server asks, and it waits on the list of rounds not
    saved, never lost, until it is answered on table 1's page: saved once."""
    table = custom["table"]
    players = seated(table)
    page = pages()
    page.goto(custom["url"] + ENTER)
    b.log_in(page, "desk", PASSWORD)
    expect(page.get_by_role("heading", name="Round 12-12")).to_be_visible()
    page.context.set_offline(True)
    for i, value in enumerate([0, 12, 287, 7]):
        page.locator(f"input[name=p{players[i].pk}]").fill(str(value))
    page.get_by_role("button", name="Save round 12-12").click()
    expect(page.locator("#entry-status")).to_contain_text("Waiting to send")
    threshold = plausibility.Threshold(
        rare=150, typical=60, low=140, high=160, hands=1, rounds=1, seed=1
    )
    cache.set(kept.cache_key(plausibility.key(custom["rules"], 4)), asdict(threshold), None)

    page.context.set_offline(False)
    page.goto(custom["url"] + ENTER.replace("table/1/", "table/2/"))
    refused = page.locator("#refused-rounds")
    expect(refused).to_contain_text(f"{players[2].name}: 287 is more than 999 hands")
    assert not Round.objects.exists()

    page.goto(custom["url"] + ENTER)
    refused.get_by_role("button", name="Put these numbers in the form").click()
    page.get_by_role("button", name="Save round 12-12").click()
    page.get_by_role("button", name="Yes, save 287").click()
    expect(page.get_by_role("heading", name="Round 11-11")).to_be_visible()
    expect(refused).to_be_hidden()
    assert Round.objects.get().scores.get(player=players[2]).pips == 287
