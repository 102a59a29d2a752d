"""The check-in desk on a phone (issue 13): a director types part of a name without accents,
the list narrows as they type, one tap checks the player in, the counts follow; nothing
scrolls sideways at 390 pixels."""

import pytest
from playwright.sync_api import expect

from tests import browser as b
from tests.factories import make_director, make_event, make_players
from tournament.models import Action, Player

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


@pytest.fixture
def desk_site(browser, live_server, transactional_db):
    director = make_director("deskboss", PASSWORD)
    event = make_event(director, name="Desk Open", slug="desk")
    make_players(event, count=200, checked_in=False)
    make_players(event, ["José Núñez", "Zoë Ångström", "Jürgen Müller"], checked_in=False)
    return {"url": live_server.url, "event": event}


def test_check_in_with_search_on_a_phone(desk_site, pages):
    page = pages(**b.PHONE)
    page.goto(desk_site["url"] + "/director/e/desk/desk/")
    b.log_in(page, "deskboss", PASSWORD)
    expect(page.get_by_role("heading", name="Check-in desk")).to_be_visible()
    rows = page.locator("#desk-list .desk-row")
    expect(rows).to_have_count(203)
    expect(page.locator('[data-count="registered"]')).to_have_text("203")

    page.get_by_label("Search a player").press_sequentially("jose nun")
    visible = page.locator("#desk-list .desk-row:not(.d-none)")
    expect(visible).to_have_count(1)
    expect(visible).to_contain_text("José Núñez")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    button = visible.locator(".desk-button")
    expect(button).to_have_accessible_name("Check in José Núñez")
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(page.locator('[data-count="checked_in"]')).to_have_text("1")
    assert Player.objects.get(name="José Núñez").checked_in

    page.get_by_label("Search a player").fill("muller")
    expect(visible).to_have_count(1)
    expect(visible).to_contain_text("Jürgen Müller")
    page.screenshot(path=b.artifact("desk-phone.png"))
    # Another tap on a checked-in player changes nothing; its own button undoes the check-in.
    page.get_by_label("Search a player").fill("NÚÑEZ")
    button.click()
    expect(page.locator("#desk-status")).to_have_text("José Núñez checked in.")
    assert Player.objects.get(name="José Núñez").checked_in
    visible.get_by_role("button", name="Undo check-in José Núñez").click()
    expect(page.locator("#desk-status")).to_have_text("José Núñez checked out.")
    expect(page.locator('[data-count="checked_in"]')).to_have_text("0")
    expect(button).to_have_attribute("aria-pressed", "false")
    expect(visible.get_by_role("button", name="Undo check-in José Núñez")).to_be_hidden()
    assert not Player.objects.get(name="José Núñez").checked_in


def test_a_double_click_on_check_in_never_checks_out(desk_site, pages):
    page = pages(**b.PHONE)
    page.goto(desk_site["url"] + "/director/e/desk/desk/")
    b.log_in(page, "deskboss", PASSWORD)
    page.get_by_label("Search a player").fill("zoe")
    row = page.locator("#desk-list .desk-row:not(.d-none)")
    expect(row).to_have_count(1)
    button = row.locator(".desk-button")
    button.dblclick()
    expect(page.locator("#desk-status")).to_have_text("Zoë Ångström checked in.")
    button.click()  # and once more, after the answer came back
    expect(page.locator("#desk-status")).to_have_text("Zoë Ångström checked in.")
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(page.locator('[data-count="checked_in"]')).to_have_text("1")
    page.reload()
    expect(page.locator('[data-count="checked_in"]')).to_have_text("1")
    page.set_viewport_size({"width": 360, "height": 740})
    page.get_by_label("Search a player").fill("zoe")
    expect(row.get_by_role("button", name="Undo check-in Zoë Ångström")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=b.artifact("desk-undo-360.png"))
    assert Player.objects.get(name="Zoë Ångström").checked_in
    assert not Action.objects.filter(verb="players.checked_out").exists()


@pytest.fixture
def apostrophe_site(browser, live_server, transactional_db):
    director = make_director("deskboss", PASSWORD)
    event = make_event(director, name="Desk Open", slug="desk")
    make_players(event, ["Zoë Ångström", "Olive O'Brien", "Émile Durand", "Eve Adams", "Ann Lee"])
    return {"url": live_server.url, "event": event}


@pytest.mark.parametrize("typed", ["O’Brien", "obrien"])
def test_a_name_typed_with_a_curly_apostrophe_or_none_is_found(apostrophe_site, pages, typed):
    page = pages(**b.PHONE)
    page.goto(apostrophe_site["url"] + "/director/e/desk/desk/")
    b.log_in(page, "deskboss", PASSWORD)
    names = page.locator("#desk-list .desk-row:not(.d-none) .flex-grow-1 > a")
    # A to Z as people read it: Émile among the E's.
    expect(names).to_have_text(
        ["Ann Lee", "Émile Durand", "Eve Adams", "Olive O'Brien", "Zoë Ångström"]
    )
    page.get_by_label("Search a player").press_sequentially(typed)
    expect(names).to_have_text(["Olive O'Brien"])
    page.get_by_role("button", name="Search").click()  # and the server's search agrees
    expect(names).to_have_text(["Olive O'Brien"])

    page.goto(apostrophe_site["url"] + "/e/desk/find/")
    page.get_by_label("Your name").press_sequentially(typed)
    page.get_by_label("Your name").press("Enter")
    expect(page.locator(".card strong")).to_have_text(["Olive O'Brien"])


@pytest.fixture
def french_desk(browser, live_server, transactional_db):
    director = make_director("accueil", PASSWORD)
    event = make_event(director, name="Tournoi de Lévis", slug="levis")
    make_players(event, ["Amélie Roy", "Benoît Côté", "Chloé Gagnon"], checked_in=False)
    return {"url": live_server.url, "event": event}


def test_the_counts_agree_with_their_number_after_each_tap_in_french(french_desk, pages):
    """Issue 45 item 10: a tap's answer words each count again, the script puts the whole
    phrase in place: "1 présent", then "2 présents", never "2 présent"."""
    page = pages(**b.PHONE, locale="fr-CA")
    page.goto(french_desk["url"] + "/director/e/levis/desk/")
    page.locator("input[name=username]").fill("accueil")
    page.locator("input[name=password]").fill(PASSWORD)
    with page.expect_navigation():
        page.locator("input[name=password]").press("Enter")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    present = page.locator('[data-count-phrase="checked_in"]')
    expect(present).to_have_text("0 présent")
    expect(page.locator('[data-count-phrase="registered"]')).to_have_text("3 inscrits")
    expect(page.locator('[data-count-phrase="seated"]')).to_have_text("0 placé")
    rows = page.locator("#desk-list .desk-row")
    status = page.locator("#desk-status")

    rows.filter(has_text="Amélie Roy").locator(".desk-button").click()
    expect(status).to_have_text("Amélie Roy : présent(e).")
    expect(present).to_have_text("1 présent")
    rows.filter(has_text="Benoît Côté").locator(".desk-button").click()
    expect(status).to_have_text("Benoît Côté : présent(e).")
    expect(present).to_have_text("2 présents")
    expect(present.locator("strong")).to_have_text("2")  # the number still stands out
    rows.filter(has_text="Chloé Gagnon").locator(".desk-button").click()
    expect(present).to_have_text("3 présents")
    rows.filter(has_text="Benoît Côté").locator(".desk-undo").click()
    expect(present).to_have_text("2 présents")
    rows.filter(has_text="Amélie Roy").locator(".desk-undo").click()
    expect(present).to_have_text("1 présent")
    said = "1 présent · 0 remplaçant · 2 absents · 3 inscrits · 0 placé"
    expect(page.locator("#desk-counts")).to_have_text(said)
    page.reload()  # the server says the same
    expect(page.locator("#desk-counts")).to_have_text(said)


@pytest.fixture
def standby_desk(browser, live_server, transactional_db):
    """Six places, taken; Wen and Xia on the waitlist (as sign-ups past the capacity leave
    them), nobody checked in yet."""
    from tournament.models import Signup, Waiting

    director = make_director("deskboss", PASSWORD)
    event = make_event(director, name="Desk Open", slug="desk", signup_capacity=6)
    make_players(event, ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"], checked_in=False)
    for place, name in enumerate(["Wen", "Xia"], start=1):
        (player,) = make_players(event, [name], checked_in=False, waiting=Waiting.WAITLIST)
        Signup.objects.create(event=event, player=player, place=place)
    return {"url": live_server.url, "event": event}


def test_standbys_at_the_desk_on_a_phone(standby_desk, pages):
    """Issue 49 item 2: a registrant on the waitlist checked in becomes a standby, a walk-on is
    added as standby, the counts (checked in, standby, no-show) follow each tap; after the
    draw, a no-show who turns up is offered a table by the late-arrival rule."""
    page = pages(**b.PHONE)
    page.goto(standby_desk["url"] + "/director/e/desk/desk/")
    b.log_in(page, "deskboss", PASSWORD)
    counts = page.locator("#desk-counts")
    expect(counts).to_have_text("0 checked in · 0 standbys · 6 no-shows · 6 registered · 0 seated")
    rows = page.locator("#desk-list .desk-row")
    wen = rows.filter(has_text="Wen")
    expect(wen.locator(".desk-entry")).to_have_text("on the waitlist")
    wen.locator(".desk-button").click()
    expect(wen.locator(".desk-entry")).to_have_text("standby")
    expect(page.locator('[data-count-phrase="standby"]')).to_have_text("1 standby")
    for name in ("Ann", "Bo", "Cy", "Di", "Ed"):  # Flo does not come
        rows.filter(has_text=name).locator(".desk-button").click()
        expect(page.locator("#desk-status")).to_have_text(f"{name} checked in.")
    expect(counts).to_have_text("5 checked in · 1 standby · 1 no-show · 6 registered · 0 seated")

    page.get_by_text("Add a walk-on").click()
    page.get_by_label("Name").fill("Yves Walk")
    expect(page.get_by_label("As standby: if a place is free at the draw")).to_be_checked()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=b.artifact("desk-walk-on.png"))
    with page.expect_navigation():
        page.get_by_role("button", name="Add and check in").click()
    expect(page.locator(".alert-success")).to_contain_text("Yves Walk added as standby")
    expect(counts).to_have_text("5 checked in · 2 standbys · 1 no-show · 6 registered · 0 seated")

    page.goto(standby_desk["url"] + "/e/desk/1/seating/")
    with page.expect_navigation():
        page.get_by_role("button", name="Draw the seating").click()
    expect(page.get_by_text("1 standby takes a no-show's place: Wen.")).to_be_visible()
    expect(
        page.get_by_text("1 standby is left over, not seated: Yves Walk.", exact=False)
    ).to_be_visible()

    page.goto(standby_desk["url"] + "/director/e/desk/desk/")
    expect(counts).to_have_text("6 checked in · 1 standby · 1 no-show · 7 registered · 6 seated")
    flo = rows.filter(has_text="Flo")
    expect(flo.locator(".desk-entry")).to_have_text("no-show")
    late = flo.get_by_role("link", name="Seat at a table (late arrival) Flo")
    expect(late).to_be_hidden()
    flo.locator(".desk-button").click()  # Flo turns up after the draw
    expect(flo.locator(".desk-entry")).to_be_hidden()
    expect(late).to_be_visible()
    expect(counts).to_have_text("7 checked in · 1 standby · 0 no-shows · 7 registered · 6 seated")
    page.set_viewport_size({"width": 320, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    page.screenshot(path=b.artifact("desk-after-draw-320.png"))
    late.click()
    expect(page.get_by_role("heading", name="Seat in Game 1")).to_be_visible()
