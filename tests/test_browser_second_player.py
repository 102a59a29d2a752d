"""The second confirmation is a second person's, in real browsers (issue 27): the phone that
entered a round, opened again in a new browser context (a private tab: no cookies, the same
address and browser), cannot confirm it; another player's phone does, and the director sees
which phone entered and which confirmed.

Issue 46: the same phone's other browser ("request desktop site": another browser name, no
cookies, the same address) passed for another player's phone. The entering phone now shows the
round's code, and the confirming phone types it: the other browser, alone, has no code to type,
and what it types instead is refused at the field."""

import pytest
from playwright.sync_api import expect

from scoring.models import Round
from tests import browser as b
from tests.factories import make_director, make_event, make_players, play, seat
from tournament.models import Event

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Mobile"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36"

CONFIRM_BY_HAND = """async ([url, round]) => {
  const form = new FormData();
  form.append("csrfmiddlewaretoken", document.querySelector("[name=csrfmiddlewaretoken]").value);
  form.append("round", round);
  form.append("code", "");
  const answer = await fetch(url, { method: "POST", body: form });
  return await answer.text();
}"""


@pytest.fixture
def site(browser, live_server, transactional_db):
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    Event.objects.filter(pk=event.pk).update(table_entry=True)
    make_players(event, count=8)
    stage = seat(event)
    table = stage.tables.get(number=1)
    play(table, 12, user=director)  # 12-12 to 1-1: the phones enter 0-0
    return {"url": live_server.url, "table": table}


def a_phone(pages, site, agent, holder):
    phone = pages(**b.PHONE, user_agent=agent)
    phone.goto(f"{site['url']}/t/{site['table'].code}/")
    phone.get_by_role("button", name=holder.name, exact=True).click()
    expect(phone.locator("#phone-holder")).to_contain_text(f"You are {holder.name}")
    return phone


def test_the_entering_phones_other_browsers_are_refused_and_another_player_confirms(site, pages):
    table = site["table"]
    ann, bo = [s.player for s in table.seats.select_related("player").order_by("position")][:2]
    first = a_phone(pages, site, ANDROID, ann)
    cells = first.locator(".round-cells input")
    for i, value in enumerate([0, 5, 6, 7]):
        cells.nth(i).fill(str(value))
    first.get_by_role("button", name="Save the round").click()
    expect(first.locator(".awaiting")).to_be_visible()
    round_ = Round.objects.get(table=table, engine=0)

    # The same phone in a private tab (a new context: no cookies), saying it is Bo.
    private = a_phone(pages, site, ANDROID, bo)
    waiting = private.locator("#waiting-13")
    expect(waiting).to_contain_text("the round was entered from this phone")
    expect(waiting.get_by_role("button", name="Confirm: these are our pips")).to_have_count(0)
    answer = private.evaluate(
        CONFIRM_BY_HAND, [f"/t/{table.code}/round/13/confirm/", round_.pk]
    )  # the form posted by hand all the same
    assert "A second player confirms the round from their own phone" in answer
    round_.refresh_from_db()
    assert round_.awaiting_confirmation

    # The entering phone shows the round's code, large, for another player to read.
    code = first.locator("#shown-code-13 .confirm-code-shown").inner_text()
    assert code.isdigit() and len(code) == 4

    # "Request desktop site" on the same phone: another browser name, no cookies, the same
    # address; it says it is Bo. It has the code's field, no code: what it sends is refused.
    desktop = a_phone(pages, site, DESKTOP, bo)
    field = desktop.get_by_label(f"Code shown on {ann.name}'s phone")
    expect(desktop.locator("#shown-code-13")).to_have_count(0)
    field.fill("0000" if code != "0000" else "1111")
    desktop.get_by_role("button", name="Confirm: these are our pips").click()
    expect(desktop.locator("#confirm-error-13")).to_contain_text(
        f"This is not the code shown on {ann.name}'s phone"
    )
    expect(field).to_have_attribute("aria-invalid", "true")
    round_.refresh_from_db()
    assert round_.awaiting_confirmation

    # Bo's own phone: he checks the pips on Ann's phone and types its code.
    second = a_phone(pages, site, IPHONE, bo)
    second.get_by_label(f"Code shown on {ann.name}'s phone").fill(code)
    second.get_by_role("button", name="Confirm: these are our pips").click()
    expect(second.get_by_text("Round 0-0 confirmed.")).to_be_visible()
    round_.refresh_from_db()
    assert not round_.awaiting_confirmation and round_.confirmed_player == bo

    # The director sees which phone entered it and which confirmed it.
    director = pages()
    director.goto(site["url"] + "/accounts/login/?next=/e/spring/1/table/1/")
    b.log_in(director, "desk", PASSWORD)
    trail = director.locator("#phone-rounds")
    device = round_.entered_device[:4]
    expect(trail).to_contain_text(f"0-0: entered from {ann.name}'s phone (device {device}…)")
    expect(trail).to_contain_text(f"confirmed from {bo.name}'s phone")
