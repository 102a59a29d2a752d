"""Sign-up on the event's page (issue 49 item 1): the director opens it on the event's form; a
registrant signs up (name, club, a birth date that gives the division, an e-mail), gets a
private link to their status, may withdraw there; past the capacity a waitlist in order, whose
first takes a place freed; the director sees new sign-ups on the players page and approves them
when the event asks for it. The list import's repeat check applies; sign-ups are limited per
address and per hour, a hidden field catches robots, every field is bounded.

Everything goes through the pages, as a registrant's browser and the director's send it."""

import datetime
import html
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from tests.concurrency import at_once, form_key, no_errors
from tests.factories import make_event, make_players, seat
from tests.importing import import_list
from tests.smtp import SmtpServer
from tests.test_deployment import PRODUCTION, manage, work_as_the_worker
from tests.test_event_setup import NVSO_FORM
from tournament.models import Action, Event, Player, Signup

pytestmark = pytest.mark.django_db

FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}


def open_signup(event, **fields) -> Event:
    """The event with its sign-up open (a director's form does the same: its own test)."""
    values = {"signup_open": True, **fields}
    Event.objects.filter(pk=event.pk).update(**values)
    event.refresh_from_db()
    return event


def text(response) -> str:
    """The page's words, tags stripped."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", page).split()))


def field_error(response, field: str) -> str:
    """The message shown at a field of the sign-up form (crispy's invalid-feedback under it)."""
    page = response.content.decode()
    found = re.findall(rf'<(\w+) id="error_\d+_id_{field}"[^>]*>(.*?)</\1>', page, re.S)
    words = " ".join(" ".join(re.sub(r"<[^>]+>", " ", said).split()) for _tag, said in found)
    return html.unescape(words)


def sign_up(client, event, name, club="", email="", birth_date="", website="", **headers):
    """Open the event's page and send its sign-up form as filled in."""
    page = client.get(f"/e/{event.slug}/", **headers)
    assert 'id="signup-form"' in page.content.decode(), "the event's page shows no sign-up form"
    data = {"once": form_key(page), "name": name, "club": club, "email": email}
    data |= {"website": website, "birth_date": birth_date}
    return client.post(f"/e/{event.slug}/signup/", data, **headers)


def status(client, response, **headers):
    """The registrant's private page a sign-up led to."""
    assert response.status_code == 302, text(response)
    return client.get(response["Location"], **headers)


def withdraw(client, url, confirm=True):
    page = client.get(url)
    data = {"once": form_key(page)} | ({"confirm": "on"} if confirm else {})
    return client.post(url, data)


def entry(client, url) -> str:
    return re.search(r'id="entry" data-entry="(\w+)"', client.get(url).content.decode()).group(1)


@pytest.fixture
def open_event(event):
    return open_signup(event, signup_closes=timezone.now() + datetime.timedelta(days=7))


# -- the director opens it ----------------------------------------------------------------------


def test_the_director_opens_sign_up_on_the_events_form(director_client, event, client):
    assert 'id="signup"' not in client.get(f"/e/{event.slug}/").content.decode()
    form = {**NVSO_FORM, "name": event.name, "date": "2026-12-19"}
    form |= {"time_zone": "America/Los_Angeles", "signup_open": "on"}
    form |= {"signup_closes": "2026-12-12T18:00", "signup_capacity": "50"}
    response = director_client.post(f"/director/e/{event.slug}/edit/", form)
    assert response.status_code == 302, text(response)
    event.refresh_from_db()
    assert event.signup_open and event.signup_capacity == 50 and not event.signup_approval
    closes = event.signup_closes.astimezone(event.zone)
    assert (closes.date(), closes.hour, closes.minute) == (datetime.date(2026, 12, 12), 18, 0)
    # The form shows it again as typed, in the event's zone.
    edit = director_client.get(f"/director/e/{event.slug}/edit/").content.decode()
    assert 'value="2026-12-12T18:00"' in edit
    page = text(client.get(f"/e/{event.slug}/"))
    assert "Sign up" in page and "Open until Dec. 12, 2026, 6 p.m." in page
    assert "50 places left." in page
    assert "Sign-up closes: — → Dec. 12, 2026, 6 p.m." in text(
        director_client.get(f"/director/e/{event.slug}/history/")
    )


def test_no_sign_up_while_closed_past_the_cut_off_or_once_seated(client, event):
    assert "Sign-up is closed." in text(client.get(f"/e/{event.slug}/signup/"))
    refused = client.post(f"/e/{event.slug}/signup/", {"name": "Ann Lee"})
    assert "Sign-up is closed." in text(refused) and not Player.objects.exists()

    open_signup(event, signup_closes=timezone.now() - datetime.timedelta(minutes=1))
    page = text(client.get(f"/e/{event.slug}/"))
    assert "Sign-up closed on" in page and 'id="signup-form"' not in page
    client.post(f"/e/{event.slug}/signup/", {"name": "Ann Lee"})
    assert not Player.objects.exists()

    open_signup(event, signup_closes=None)
    make_players(event, count=8)
    seat(event)
    assert "the players are seated" in text(client.get(f"/e/{event.slug}/"))
    client.post(f"/e/{event.slug}/signup/", {"name": "Ann Lee"})
    assert not Player.objects.filter(name="Ann Lee").exists()


# -- signing up -----------------------------------------------------------------------------------


def test_a_sign_up_registers_the_player_and_shows_the_private_link(client, open_event):
    response = sign_up(client, open_event, "Ann Lee", "Reno Club", "ann@example.org")
    page = status(client, response)
    player = Player.objects.get()
    assert (player.name, player.club, player.entry) == ("Ann Lee", "Reno Club", "registered")
    signup = player.signup
    assert signup.email == "ann@example.org" and signup.place == 1
    assert response["Location"] == f"/e/spring/signup/{signup.token}/"
    words = text(page)
    assert "Thank you, Ann Lee." in words and "You are registered." in words
    assert f'value="http://testserver/e/spring/signup/{signup.token}/"' in page.content.decode()
    assert page["Cache-Control"] == "private, no-store" and page["Referrer-Policy"] == "same-origin"
    assert "Ann Lee signed up on the event's page" in str(Action.objects.first())


def test_a_repeated_post_signs_up_once(client, open_event):
    page = client.get(f"/e/{open_event.slug}/")
    data = {"once": form_key(page), "name": "Ann Lee", "club": "", "email": ""}
    first = client.post(f"/e/{open_event.slug}/signup/", data)
    again = client.post(f"/e/{open_event.slug}/signup/", data)
    assert Player.objects.count() == 1
    assert first["Location"] == again["Location"]


def test_past_the_capacity_a_waitlist_in_order_and_a_withdrawal_promotes_the_first(
    client, director_client, open_event
):
    open_signup(open_event, signup_capacity=2)
    make_players(open_event, ["Imported Ivy"], checked_in=False)  # holds one of the places
    links = {}
    for name in ("Ann", "Bo", "Cy"):
        links[name] = sign_up(client, open_event, name)["Location"]
    assert [entry(client, links[n]) for n in ("Ann", "Bo", "Cy")] == [
        "registered",
        "waitlist",
        "waitlist",
    ]
    assert "You are on the waitlist: number 2." in text(client.get(links["Cy"]))
    assert "Every place is taken" in text(client.get(f"/e/{open_event.slug}/"))
    players = text(director_client.get(f"/director/e/{open_event.slug}/players/"))
    assert "Waitlist, in order Bo Cy" in players
    assert "2 players registered, 0 checked in, 2 on the waitlist." in players

    unticked = withdraw(client, links["Ann"], confirm=False)
    assert field_error(unticked, "confirm") == "Tick the box to confirm that you withdraw."
    assert entry(client, links["Ann"]) == "registered"

    done = client.get(withdraw(client, links["Ann"])["Location"])
    assert "You withdrew from Spring Games." in text(done)
    assert 'id="withdraw-form"' not in done.content.decode()
    assert [entry(client, links[n]) for n in ("Ann", "Bo", "Cy")] == [
        "withdrawn",
        "registered",
        "waitlist",
    ]
    assert "You are on the waitlist: number 1." in text(client.get(links["Cy"]))
    history = text(director_client.get(f"/director/e/{open_event.slug}/history/"))
    assert "Bo takes a place, from the waitlist" in history
    assert "Ann withdrew, from their sign-up link" in history


def test_a_director_withdrawing_or_deleting_a_player_gives_the_place_to_the_waitlist(
    client, director_client, open_event
):
    open_signup(open_event, signup_capacity=1)
    ann, bo, cy = (sign_up(client, open_event, n)["Location"] for n in ("Ann", "Bo", "Cy"))
    player = Player.objects.get(name="Ann")
    url = f"/director/e/{open_event.slug}/players/{player.pk}/"
    page = director_client.get(url)
    director_client.post(url, {"withdraw": "1", "reason": "ill", "once": form_key(page)})
    assert (entry(client, ann), entry(client, bo), entry(client, cy)) == (
        "withdrawn",
        "registered",
        "waitlist",
    )
    bo_player = Player.objects.get(name="Bo")
    delete = f"/director/e/{open_event.slug}/players/{bo_player.pk}/delete/"
    director_client.post(delete, {"once": form_key(director_client.get(delete))})
    assert entry(client, cy) == "registered"


def test_a_larger_capacity_on_the_events_form_takes_the_first_on_the_waitlist(
    client, director_client, open_event
):
    open_signup(open_event, signup_capacity=1)
    links = [sign_up(client, open_event, n)["Location"] for n in ("Ann", "Bo", "Cy")]
    form = {**NVSO_FORM, "name": open_event.name, "date": "2026-09-19", "signup_open": "on"}
    director_client.post(f"/director/e/{open_event.slug}/edit/", form | {"signup_capacity": "2"})
    assert [entry(client, url) for url in links] == ["registered", "registered", "waitlist"]


def test_the_director_sees_new_sign_ups_and_approves_them(client, director_client, open_event):
    open_signup(open_event, signup_approval=True, signup_capacity=2)
    links = [sign_up(client, open_event, n, "Elko")["Location"] for n in ("Ann", "Bo", "Cy")]
    assert "Your sign-up holds a place and awaits a director's approval." in text(
        client.get(links[0])
    )
    assert [entry(client, url) for url in links] == ["approval", "approval", "waitlist"]
    url = f"/director/e/{open_event.slug}/players/"
    page = director_client.get(url)
    words = text(page)
    assert "3 new sign-ups" in words and "Awaiting your approval" in words
    assert "0 players registered, 0 checked in, 2 awaiting approval, 1 on the waitlist." in words
    assert words.count("new sign-up") == 4  # the heading's, and a badge for each in the list

    ann = Player.objects.get(name="Ann")
    player_page = director_client.get(f"{url}{ann.pk}/").content.decode()
    assert f'id="signup-link">http://testserver{links[0]}</a>' in player_page  # to give again
    approved = director_client.post(f"{url}signups/", {"id": [ann.pk], "approve": "1"})
    assert approved["Location"] == f"{url}#signups"
    assert entry(client, links[0]) == "registered"
    assert "Ann's sign-up approved" in str(Action.objects.first())

    bo = Player.objects.get(name="Bo")
    seen = re.findall(r'name="id" value="(\d+)"', page.content.decode())
    director_client.post(f"{url}signups/", {"id": seen[:3], "seen": "1"})
    after = text(director_client.get(url))
    assert "new sign-up" not in after
    # Refusing a sign-up is withdrawing the player: the waitlist's first takes the place.
    edit = f"/director/e/{open_event.slug}/players/{bo.pk}/"
    key = form_key(director_client.get(edit))
    director_client.post(edit, {"withdraw": "1", "reason": "not a member", "once": key})
    assert entry(client, links[2]) == "approval"  # promoted, to be approved in turn


def test_the_birth_date_gives_the_division_when_the_event_has_age_brackets(client, open_event):
    plain = client.get(f"/e/{open_event.slug}/").content.decode()
    assert 'name="birth_date"' not in plain  # no brackets: no birth date asked
    open_signup(open_event, age_brackets="50-54, 55-59, 60-64, 65+")
    page = text(client.get(f"/e/{open_event.slug}/"))
    assert "gives your division (ages on Sept. 19, 2026: 50-54, 55-59, 60-64, 65+)" in page

    young = sign_up(client, open_event, "Kid Lee", birth_date="2001-05-01")
    assert field_error(young, "birth_date") == (
        "On Sept. 19, 2026 you will be 25: no division of this event takes that age "
        "(50-54, 55-59, 60-64, 65+)."
    )
    future = sign_up(client, open_event, "Kid Lee", birth_date="2099-01-01")
    assert field_error(future, "birth_date") == "A birth date cannot be in the future."
    no_date = sign_up(client, open_event, "Kid Lee", birth_date="31/02/1960")
    assert field_error(no_date, "birth_date") == "Enter a valid date."
    assert not Player.objects.exists()

    status(client, sign_up(client, open_event, "Ann Lee", birth_date="1967-09-20"))
    status(client, sign_up(client, open_event, "Bo Diaz"))
    assert dict(Player.objects.values_list("name", "division")) == {
        "Ann Lee": "55-59",  # 58 on the event's date: 59 the day after
        "Bo Diaz": "",
    }


def test_the_same_person_twice_is_caught_as_the_list_import_catches_it(
    client, director_client, open_event
):
    status(client, sign_up(client, open_event, "José Núñez", "Reno Club", "jose@example.org"))
    again = sign_up(client, open_event, "jose nunez", "RENO club")
    assert field_error(again, "name") == (
        "José Núñez is already on this event's list. Lost your private link? Ask a director."
    )
    same_mail = sign_up(client, open_event, "Pepe Núñez", email="JOSE@example.org ")
    assert field_error(same_mail, "email") == "This e-mail has already signed up for this event."
    # Another club is another person, as in the list import.
    status(client, sign_up(client, open_event, "José Núñez", "Elko Club"))
    # A player the director imported is on the list too.
    import_list(director_client, open_event.slug, b"Name,Club\nAnn O'Brien,Sparks\n")
    imported = sign_up(client, open_event, "Ann OBrien", "sparks")
    assert "Ann O'Brien is already on this event's list." in field_error(imported, "name")
    assert Player.objects.count() == 3


def test_every_field_is_bounded_and_bad_input_is_said_at_its_field(client, open_event):
    long = sign_up(client, open_event, "A" * 121, "C" * 121, "x" * 250 + "@example.org")
    assert field_error(long, "name") == (
        "Ensure this value has at most 120 characters (it has 121)."
    )
    assert field_error(long, "club") == (
        "Ensure this value has at most 120 characters (it has 121)."
    )
    assert field_error(long, "email").startswith("Ensure this value has at most 254 characters")
    assert field_error(sign_up(client, open_event, "   "), "name") == "This field is required."
    bad_mail = sign_up(client, open_event, "Ann", email="ann at home")
    assert field_error(bad_mail, "email") == "Enter a valid email address."
    page = long.content.decode()
    for name, bound in (("name", 120), ("club", 120), ("email", 254), ("website", 200)):
        assert re.search(rf'<input[^>]*name="{name}"[^>]*maxlength="{bound}"', page), name
    assert not Player.objects.exists()


def test_the_hidden_field_catches_robots(client, open_event):
    page = client.get(f"/e/{open_event.slug}/").content.decode()
    assert re.search(r'<div[^>]*class="signup-trap"[^>]*>.*?name="website"', page, re.S)
    robot = sign_up(client, open_event, "Buy Now", website="http://spam.example")
    assert "a field people do not see was filled in" in text(robot)
    assert not Player.objects.exists()


def test_sign_ups_are_limited_per_address_and_in_total_per_hour(client, open_event, settings):
    settings.SIGNUPS_PER_ADDRESS, settings.SIGNUPS_PER_HOUR = 2, 3
    home = {"REMOTE_ADDR": "10.0.0.1"}
    for name in ("Ann", "Bo"):
        status(client, sign_up(client, open_event, name, **home))
    third = sign_up(client, open_event, "Cy", **home)
    assert "Too many sign-ups from this connection in the last hour" in text(third)
    status(client, sign_up(client, open_event, "Cy", REMOTE_ADDR="10.0.0.2"))
    fourth = sign_up(client, open_event, "Di", REMOTE_ADDR="10.0.0.3")
    assert "The site takes no more sign-ups this hour: try again later." in text(fourth)
    assert Player.objects.count() == 3
    # An hour later, the counts start again; the address is kept hashed only.
    Signup.objects.update(created=timezone.now() - datetime.timedelta(minutes=61))
    status(client, sign_up(client, open_event, "Di", **home))
    assert not Signup.objects.filter(address__contains="10.0").exists()


def test_a_link_not_signed_by_the_site_or_of_another_event_is_not_found(client, open_event):
    url = sign_up(client, open_event, "Ann Lee")["Location"]
    token = url.rstrip("/").rsplit("/", 1)[1]
    pk, signature = token.split(".")
    forged = client.get(f"/e/{open_event.slug}/signup/{int(pk) + 1}.{signature}/")
    assert forged.status_code == 404
    assert "This link is no sign-up of this event" in text(forged)
    other = open_signup(make_event(name="Fall Games", slug="fall"))
    assert client.get(f"/e/{other.slug}/signup/{token}/").status_code == 404
    assert client.get(f"/e/{open_event.slug}/signup/{token}/").status_code == 200


def test_the_private_page_shows_the_table_once_seated(client, open_event):
    url = sign_up(client, open_event, "Ann Lee")["Location"]
    assert "Your table shows here once the players are seated." in text(client.get(url))
    make_players(open_event, count=7)
    Player.objects.filter(name="Ann Lee").update(checked_in=True)
    stage = seat(open_event)
    page = client.get(url)
    table = Player.objects.get(name="Ann Lee").seats.get().table
    assert f"Game 1: Table {table.number}" in text(page)
    assert f'href="/e/spring/{stage.number}/table/{table.number}/"' in page.content.decode()
    assert 'id="withdraw-form"' not in page.content.decode()
    assert "You are seated: to withdraw, tell a director at the desk." in text(page)
    refused = client.post(url, {"confirm": "on"})
    assert "You are seated: tell a director at the desk that you leave." in text(refused)
    assert not Player.objects.get(name="Ann Lee").withdrawn


def test_sign_up_in_french(client, open_event):
    open_signup(open_event, signup_capacity=1, age_brackets="50-54, 55+")
    page = text(client.get(f"/e/{open_event.slug}/", **FR))
    assert "S'inscrire" in page and "1 place libre." in page
    young = sign_up(client, open_event, "Lou", birth_date="2010-01-01", **FR)
    assert field_error(young, "birth_date").startswith("Le 19 septembre 2026, vous aurez 16 ans")
    first = status(client, sign_up(client, open_event, "Ann", **FR), **FR)
    assert "Merci, Ann." in text(first) and "Votre inscription est confirmée." in text(first)
    second = status(client, sign_up(client, open_event, "Bo", **FR), **FR)
    assert "Vous êtes sur la liste d'attente : numéro 1." in text(second)
    assert "Tout est complet" in text(client.get(f"/e/{open_event.slug}/", **FR))


# -- a storm of sign-ups ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_storm_of_100_sign_ups_at_capacity_50_registers_50_and_waitlists_50_in_order():
    """100 sign-ups from 25 browsers at once (4 each, one after the other), on whichever
    database the suite runs on: exactly 50 registered, the next 50 on the waitlist in the order
    they came, nobody twice, every sign-up answered with its own private link."""
    event = open_signup(make_event(name="Storm Open", slug="storm"), signup_capacity=50)
    browsers, each = 25, 4
    clients = [Client(REMOTE_ADDR=f"10.1.0.{i + 1}") for i in range(browsers)]
    keys = [[form_key(c.get("/e/storm/")) for _ in range(each)] for c in clients]

    def sign_ups(i: int) -> list:
        return [
            clients[i].post(
                "/e/storm/signup/", {"once": key, "name": f"Storm {i:02d}-{n}", "email": ""}
            )
            for n, key in enumerate(keys[i])
        ]

    results = at_once([lambda i=i: sign_ups(i) for i in range(browsers)])
    assert not [r for r in results if isinstance(r, BaseException)], results
    answers = [r for browser in results for r in browser]
    no_errors(answers)
    assert [r.status_code for r in answers] == [302] * 100
    assert len({r["Location"] for r in answers}) == 100

    signups = list(event.signups.select_related("player").order_by("place"))
    assert [s.place for s in signups] == list(range(1, 101))
    assert len({s.player.name for s in signups}) == 100 == event.players.count()
    assert [s.player.entry for s in signups] == ["registered"] * 50 + ["waitlist"] * 50
    for i in range(browsers):  # each browser's sign-ups in the order it sent them
        mine = [s.player.name for s in signups if s.player.name.startswith(f"Storm {i:02d}-")]
        assert mine == [f"Storm {i:02d}-{n}" for n in range(each)]
    # The waitlist's numbers, as each registrant's page says them, follow the order.
    waitlisted = {f"/e/storm/signup/{s.token}/": n for n, s in enumerate(signups[50:], 1)}
    reader = Client()
    for url, number in waitlisted.items():
        assert f"You are on the waitlist: number {number}." in text(reader.get(url))


# -- e-mail ------------------------------------------------------------------------------------

DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


@pytest.fixture
def mail_server(settings):
    """The site sends e-mail to a real SMTP server started here, through the background
    worker's queue (the database's), as a hosted site with EMAIL_HOST does."""
    with SmtpServer() as server:
        settings.SEND_EMAIL = True
        settings.MAILERS = server.mailer()
        settings.DEFAULT_FROM_EMAIL = "Spring Games <games@example.org>"
        settings.TASKS = DATABASE_TASKS
        yield server


def mails_queued() -> int:
    return DBTaskResult.objects.filter(task_path="tournament.tasks.send_signup_mail").count()


def link_in(message) -> str:
    return re.search(r"http://testserver(/e/\S+/)", message.get_content()).group(1)


@pytest.mark.django_db(transaction=True)
def test_registrants_are_e_mailed_by_the_worker_through_a_real_smtp_server(client, mail_server):
    event = open_signup(make_event(name="Mail Open", slug="mail"), signup_capacity=1)
    ann = sign_up(client, event, "Ann Lee", email="ann@example.org")
    bo = sign_up(client, event, "Bo Diaz", email="bo@example.org", **FR)  # in French
    status(client, sign_up(client, event, "Cy Wu"))  # no address, no e-mail
    assert mail_server.messages == [] and mails_queued() == 2  # never sent in a request

    work_as_the_worker()
    sent = {m["To"]: m for m in mail_server.messages}
    assert sorted(sent) == ["ann@example.org", "bo@example.org"]
    assert mail_server.envelopes[0][0] == "games@example.org"
    to_ann = sent["ann@example.org"]
    assert to_ann["Subject"] == "Mail Open: you are signed up"
    assert to_ann["From"] == "Spring Games <games@example.org>"
    assert "Hello Ann Lee," in to_ann.get_content()
    assert "You signed up for Mail Open (Sept. 19, 2026): you are registered." in " ".join(
        to_ann.get_content().split()
    )
    assert link_in(to_ann) == ann["Location"]
    to_bo = sent["bo@example.org"]
    assert to_bo["Subject"] == "Mail Open : vous êtes sur la liste d'attente"
    assert "numéro 1" in to_bo.get_content() and link_in(to_bo) == bo["Location"]

    # Ann withdraws from the e-mail's link: Bo takes the place, and is told, in French.
    withdraw(client, link_in(to_ann))
    assert len(mail_server.messages) == 2
    work_as_the_worker()
    promoted = mail_server.messages[2]
    assert (promoted["To"], promoted["Subject"]) == (
        "bo@example.org",
        "Mail Open : une place pour vous",
    )
    assert entry(client, link_in(promoted)) == "registered"
    assert len(mail_server.messages) == 3  # Ann, who withdrew, is sent nothing more


@pytest.mark.django_db(transaction=True)
def test_an_approval_is_e_mailed(client, director, director_client, mail_server):
    event = open_signup(make_event(director, name="Club Night", slug="club"), signup_approval=True)
    url = sign_up(client, event, "Ann Lee", email="ann@example.org")["Location"]
    work_as_the_worker()
    assert mail_server.messages[0]["Subject"] == "Club Night: your sign-up awaits approval"
    ann = Player.objects.get(name="Ann Lee")
    director_client.post("/director/e/club/players/signups/", {"id": [ann.pk], "approve": "1"})
    work_as_the_worker()
    assert mail_server.messages[1]["Subject"] == "Club Night: your sign-up is approved"
    assert "A director approved your sign-up" in mail_server.messages[1].get_content()
    assert entry(client, url) == "registered"


@pytest.mark.django_db(transaction=True)
def test_without_e_mail_configured_nothing_is_queued_and_sign_up_works(client, settings):
    settings.TASKS = DATABASE_TASKS  # a hall's worker, and no EMAIL_HOST
    event = open_signup(make_event(name="Hall Open", slug="hall"), signup_capacity=1)
    ann = status(client, sign_up(client, event, "Ann Lee", email="ann@example.org"))
    bo = sign_up(client, event, "Bo Diaz", email="bo@example.org")["Location"]
    assert "It is also sent to the e-mail you gave." not in text(ann)
    withdraw(client, ann.wsgi_request.path)
    assert entry(client, bo) == "registered"
    assert mails_queued() == 0


def test_e_mail_is_configured_from_the_environment():
    shown = (
        "from django.conf import settings; mailer = getattr(settings, 'MAILERS', {}); "
        "mailer = mailer.get('default', {'BACKEND': 'none.none.none'}); "
        "print(settings.SEND_EMAIL, mailer['BACKEND'].rsplit('.', 2)[1], "
        "mailer.get('OPTIONS', {}).get('port'), settings.DEFAULT_FROM_EMAIL)"
    )
    none = manage("shell", "--no-imports", "-c", shown, **PRODUCTION)
    assert none.stdout.split() == ["False", "none", "None", "webmaster@localhost"], none.stderr
    sender = {"DEFAULT_FROM_EMAIL": "games@example.org", "EMAIL_HOST": "smtp.example.org"}
    tls = manage("shell", "--no-imports", "-c", shown, EMAIL_USE_TLS="1", **sender, **PRODUCTION)
    assert tls.stdout.split() == ["True", "smtp", "587", "games@example.org"], tls.stderr
    anonymous = manage("check", EMAIL_HOST="smtp.example.org", **PRODUCTION)
    assert anonymous.returncode != 0 and "Set DEFAULT_FROM_EMAIL" in anonymous.stderr
    both = manage("check", EMAIL_USE_TLS="1", EMAIL_USE_SSL="1", **sender, **PRODUCTION)
    assert both.returncode != 0 and "Set EMAIL_USE_TLS or EMAIL_USE_SSL, not both." in both.stderr


def test_the_event_file_keeps_the_waitlist_and_its_order(client, director_client, open_event):
    open_signup(open_event, signup_capacity=1)
    for name in ("Ann", "Bo", "Cy"):
        status(client, sign_up(client, open_event, name, email=f"{name}@example.org"))
    text_file = director_client.get(f"/director/e/{open_event.slug}/event.json").content.decode()
    assert "@example.org" not in text_file  # what registrants gave to be written to stays
    open_event.delete()
    key = form_key(director_client.get("/director/import/"))
    upload = SimpleUploadedFile("e.json", text_file.encode())
    assert (
        director_client.post("/director/import/", {"file": upload, "once": key}).status_code == 302
    )
    copy = Event.objects.get()
    assert [(p.name, p.entry) for p in copy.players.order_by("signup__place")] == [
        ("Ann", "registered"),
        ("Bo", "waitlist"),
        ("Cy", "waitlist"),
    ]
    assert [p.name for p in copy.players.waitlist()] == ["Bo", "Cy"]
    assert copy.players.counts()["registered"] == 1
    assert not copy.signups.unseen().exists() and not copy.signups.exclude(email="").exists()


def test_an_event_file_giving_one_sign_up_number_twice_is_refused(director_client, open_event):
    client = Client()
    for name in ("Ann", "Bo"):
        status(client, sign_up(client, open_event, name))
    text_file = director_client.get(f"/director/e/{open_event.slug}/event.json").content.decode()
    twice = text_file.replace('"signed_up": 2', '"signed_up": 1')
    key = form_key(director_client.get("/director/import/"))
    upload = SimpleUploadedFile("e.json", twice.encode())
    refused = director_client.post("/director/import/", {"file": upload, "once": key})
    assert "players[1].extra.signed_up : 1 is the sign-up of players[0] too" in text(refused)
    assert Event.objects.count() == 1


def test_the_sign_up_settings_travel_in_the_event_file(director):
    from scoring.eventfile import EventFileError, import_event
    from scoring.eventfile.exporter import export_event

    event = make_event(director, name="Open Night", slug="open-night")
    closes = datetime.datetime(2026, 12, 1, 18, 30, tzinfo=datetime.UTC)
    Event.objects.filter(pk=event.pk).update(
        signup_open=True, signup_closes=closes, signup_capacity=24, signup_approval=True
    )
    document = export_event(Event.objects.get(pk=event.pk))
    assert document["event"]["extra"]["signup"] == {
        "open": True,
        "closes": "2026-12-01T18:30:00+00:00",
        "capacity": 24,
        "approval": True,
    }
    document["event"]["name"] = "Copy"
    copy = import_event(json.dumps(document))
    assert (copy.signup_open, copy.signup_closes, copy.signup_capacity, copy.signup_approval) == (
        True,
        closes,
        24,
        True,
    )
    # A file without it (older, or an event that never opened sign-up): closed, no limit.
    del document["event"]["extra"]["signup"]
    older = import_event(json.dumps(document))
    assert (older.signup_open, older.signup_capacity, older.signup_approval) == (False, None, False)
    # Out of bounds: refused at its place, nothing saved.
    document["event"]["extra"]["signup"] = {"open": True, "capacity": 0}
    count = Event.objects.count()
    with pytest.raises(EventFileError) as refused:
        import_event(json.dumps(document))
    assert [e.split(":")[0] for e in refused.value.errors] == ["event.extra.signup.capacity"]
    assert Event.objects.count() == count
