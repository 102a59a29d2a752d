"""Sign-up in a browser (issue 49): the form on the event's page, on a phone, in English and in
French; the registrant's private page and its withdrawal; the director's sign-ups on the
players page. axe-core checks every page opened (tests/browser.py), at 320 px too."""

import datetime

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests import browser as b
from tests.factories import make_director, make_event
from tournament.models import Event, Player

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


@pytest.fixture
def signup_site(browser, live_server, transactional_db):
    director = make_director("signupboss", PASSWORD)
    event = make_event(director, name="Open Sign-up", slug="open")
    Event.objects.filter(pk=event.pk).update(
        signup_open=True,
        signup_capacity=1,
        signup_closes=timezone.now() + datetime.timedelta(days=7),
        age_brackets="50-59, 60-69, 70+",
    )
    return {"url": live_server.url, "event": event}


def test_sign_up_on_a_phone_wait_in_french_and_take_the_place_freed(signup_site, pages):
    url = signup_site["url"]
    ann = pages(**b.PHONE)
    ann.goto(url + "/e/open/")
    expect(ann.get_by_role("heading", name="Sign up")).to_be_visible()
    expect(ann.locator("#signup-terms")).to_contain_text("1 place left.")
    form = ann.locator("#signup-form")  # beside "Your name" that finds one's table
    form.get_by_label("Name").fill("Ann Lee")
    form.get_by_label("Club").fill("Reno")
    form.get_by_label("Birth date").fill("1960-05-01")
    form.get_by_label("E-mail").fill("ann@example.org")
    form.get_by_role("button", name="Sign up").click()
    expect(ann.locator("#entry")).to_have_text("You are registered.")
    assert ann.locator("#private-link").input_value() == ann.url
    ann.screenshot(path=b.artifact("signup-status-phone.png"))

    bo = pages(**b.PHONE, locale="fr-FR")
    bo.goto(url + "/e/open/")
    expect(bo.locator("#signup-terms")).to_contain_text("Tout est complet")
    bo.locator("#signup-form").get_by_label("Nom", exact=False).first.fill("Bo Diaz")
    bo.get_by_label("Date de naissance").fill("2000-01-01")
    bo.get_by_role("button", name="S'inscrire").click()
    birth = bo.locator("#id_birth_date_error")
    expect(birth).to_contain_text("aucune catégorie de ce tournoi ne prend cet âge")
    expect(bo.get_by_label("Date de naissance")).to_have_attribute("aria-invalid", "true")
    bo.get_by_label("Date de naissance").fill("1950-01-01")
    bo.get_by_role("button", name="S'inscrire").click()
    expect(bo.locator("#entry")).to_have_text("Vous êtes sur la liste d'attente : numéro 1.")
    assert Player.objects.get(name="Bo Diaz").division == "70+"

    confirm = ann.get_by_label("Yes, I withdraw from this event")
    ann.get_by_role("button", name="Withdraw").click()  # the box is not ticked: the browser
    assert confirm.evaluate("box => box.validity.valueMissing")  # says so at the box
    expect(ann.locator("#entry")).to_have_text("You are registered.")
    confirm.check()
    ann.get_by_role("button", name="Withdraw").click()
    expect(ann.locator("#entry")).to_have_text("You withdrew from this event.")
    bo.reload()
    expect(bo.locator("#entry")).to_have_text("Votre inscription est confirmée.")


def test_the_director_sees_new_sign_ups_and_approves_them(signup_site, pages):
    Event.objects.filter(slug="open").update(signup_approval=True, signup_capacity=2)
    url = signup_site["url"]
    registrant = pages(viewport={"width": 1280, "height": 800})
    for name in ("Cy Wu", "Di Ng", "Ed Fox"):
        registrant.goto(url + "/e/open/signup/")
        registrant.get_by_label("Name").fill(name)
        registrant.get_by_role("button", name="Sign up").click()
        expect(registrant.locator("#entry")).to_be_visible()
    expect(registrant.locator("#entry")).to_have_text("You are on the waitlist: number 1.")

    page = pages(viewport={"width": 1280, "height": 800})
    page.goto(url + "/director/e/open/players/")
    b.log_in(page, "signupboss", PASSWORD)
    signups = page.locator("#signups")
    expect(signups.get_by_role("heading", name="3 new sign-ups")).to_be_visible()
    expect(page.locator("#waitlist li")).to_have_text(["Ed Fox"])
    page.get_by_role("button", name="Approve Cy Wu").click()
    expect(page.locator(".alert-success")).to_have_text("Approved: Cy Wu is registered.")
    expect(page.locator("#to-approve li")).to_have_count(1)
    page.get_by_role("button", name="Mark these as seen").click()
    expect(page.get_by_role("heading", name="3 new sign-ups")).to_have_count(0)
    expect(page.locator("#player-counts")).to_have_text(
        "1 player registered, 0 checked in, 1 awaiting approval, 1 on the waitlist."
    )
    page.locator("#waitlist").get_by_role("link", name="Ed Fox").click()
    expect(page.locator("#signed-up")).to_contain_text("(sign-up number 3)")
    page.goto(url + "/director/e/open/desk/")
    expect(page.locator(".desk-row", has_text="Ed Fox")).to_contain_text("on the waitlist")
    page.goto(url + "/director/e/open/edit/")
    expect(page.get_by_label("Sign-up closes")).to_have_value(
        timezone.localtime(Event.objects.get().signup_closes).strftime("%Y-%m-%dT%H:%M")
    )
