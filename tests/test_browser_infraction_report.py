"""A phone reports an infraction at its table in a real browser (issue 28, item 10): nobody is
chosen until a player is tapped, a report without a player is not sent, and the director's
"Log it" shows the penalty as a direct log does (item 11)."""

import pytest
from playwright.sync_api import expect

from scoring.models import Infraction, InfractionReport
from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat
from tournament.models import Event

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


@pytest.fixture
def site(browser, live_server, transactional_db):
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    Event.objects.filter(pk=event.pk).update(table_entry=True)
    make_players(event, count=8)
    stage = seat(event)
    return {"url": live_server.url, "table": stage.tables.get(number=1)}


def test_a_phones_report_names_nobody_until_a_player_is_chosen(site, pages):
    table = site["table"]
    holder, accused = [s.player for s in table.seats.order_by("position")][:2]
    phone = pages(**b.PHONE)
    phone.goto(f"{site['url']}/t/{table.code}/")
    phone.get_by_role("button", name=holder.name, exact=True).click()
    phone.get_by_text("Report an infraction").click()
    who = phone.get_by_label("Player", exact=True)
    expect(who).to_have_value("")
    expect(who.locator("option:checked")).to_have_text("Choose the player")
    phone.get_by_label("What happened").select_option("wrong_tile")
    phone.get_by_role("button", name="Report to the director").click()
    assert phone.evaluate("document.getElementById('report-player').validity.valueMissing")
    assert not InfractionReport.objects.exists()  # the browser did not send it

    who.select_option(label=accused.name)
    phone.get_by_role("button", name="Report to the director").click()
    expect(phone.get_by_text("Reported: a director will decide.")).to_be_visible()
    assert InfractionReport.objects.get().player == accused

    director = pages()
    director.goto(f"{site['url']}/accounts/login/?next=/e/spring/1/table/1/")
    b.log_in(director, "desk", PASSWORD)
    director.locator("#infraction-reports").get_by_role("button", name="Log it").click()
    expect(director.locator("#infraction-action")).to_contain_text("Warning: no penalty this time")
    assert Infraction.objects.get().player == accused


def test_the_dashboard_marks_a_phones_report_as_it_arrives_and_leads_to_the_log(site, pages):
    """The director's dashboard, open while a phone reports: its table's tile and the summary
    say a report waits (the page's live part, static/js/live.js); the summary leads to the
    infraction log, where the report is logged."""
    table = site["table"]
    holder, accused = [s.player for s in table.seats.order_by("position")][:2]
    director = pages()
    director.goto(f"{site['url']}/accounts/login/?next=/director/e/spring/1/dashboard/")
    b.log_in(director, "desk", PASSWORD)
    tile = director.locator("#tile-1")
    expect(tile).to_contain_text("Table 1")
    expect(tile).not_to_contain_text("awaits a decision")

    phone = pages(**b.PHONE)
    phone.goto(f"{site['url']}/t/{table.code}/")
    phone.get_by_role("button", name=holder.name, exact=True).click()
    phone.get_by_text("Report an infraction").click()
    phone.get_by_label("Player", exact=True).select_option(label=accused.name)
    phone.get_by_label("What happened").select_option("wrong_tile")
    phone.get_by_role("button", name="Report to the director").click()
    expect(phone.get_by_text("Reported: a director will decide.")).to_be_visible()

    waits = "1 reported infraction awaits a decision"
    expect(tile).to_contain_text(waits, timeout=10_000)  # within a beat or two
    expect(director.locator("#tile-2")).not_to_contain_text(waits)
    director.locator("#dashboard-summary").get_by_role("link", name=waits).click()
    reports = director.locator("#pending-reports")
    expect(reports).to_contain_text(f"Game 1, table 1 {accused.name}: Wrong tile")
    reports.get_by_role("button", name="Log it").click()
    expect(director.locator("#infraction-action")).to_contain_text("Warning: no penalty this time")
    assert Infraction.objects.get().player == accused
    director.goto(f"{site['url']}/director/e/spring/infractions/")
    expect(director.locator("#infraction-log")).to_contain_text(accused.name)
    expect(director.locator("#pending-reports")).to_have_count(0)
