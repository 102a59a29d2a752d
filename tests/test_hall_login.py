"""Under `make hall`, a log-in from the hall's Wi-Fi takes the password and a one-time code
shown on the laptop's screen; its session works from that phone only (tournament/hall_login.py).

A player reading the Wi-Fi sees the password and the cookie: neither logs them in.
"""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from tests.concurrency import at_once
from tests.factories import make_director
from tournament.hall_login import pending_codes
from tournament.models import HallLoginCode
from tournament.services.hall_login import CodeRefused, use_hall_login_code

pytestmark = pytest.mark.django_db

PASSWORD = "a-Long-pass-phrase-42"
PHONE, SNIFFER = "192.168.1.23", "192.168.1.66"
LOGIN, CODE, CODES = "/accounts/login/", "/accounts/login/code/", "/accounts/login/codes/"
BOARD = "/accounts/password_change/"  # a page that needs a log-in


@pytest.fixture(autouse=True)
def hall(settings):
    settings.HALL = True
    settings.HALL_SESSION_HOURS = 8


@pytest.fixture
def ann(db):
    return make_director("ann", PASSWORD)


def log_in(client, password=PASSWORD, username="ann"):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/"})


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def the_code(username="ann") -> str:
    return pending_codes().get(user__username=username).code


def type_code(client, code):
    return client.post(CODE, {"code": code})


def phone_logged_in(address=PHONE) -> Client:
    phone = Client(REMOTE_ADDR=address)
    log_in(phone)
    assert type_code(phone, the_code()).status_code == 302
    return phone


def test_the_right_password_from_the_hall_asks_for_the_laptops_code(ann):
    phone = Client(REMOTE_ADDR=PHONE)
    response = log_in(phone)
    assert response.status_code == 302 and response["Location"] == CODE
    assert not logged_in(phone)
    page = phone.get(CODE).content.decode()
    assert "type the code shown on the director" in page
    assert 'autocomplete="one-time-code"' in page
    assert not logged_in(phone) and phone.get(BOARD).status_code == 302  # still logged out


def test_the_code_is_printed_on_the_laptops_console(ann, caplog):
    log_in(Client(REMOTE_ADDR=PHONE))
    code = the_code()
    assert re.fullmatch(r"\d{6}", code)
    assert f"Log-in code for 'ann' from {PHONE}: {code}" in caplog.text


def test_a_wrong_password_makes_no_code(ann):
    response = log_in(Client(REMOTE_ADDR=PHONE), password="wrong")
    assert response.status_code == 200 and not HallLoginCode.objects.exists()


def test_the_right_code_logs_in_for_hall_session_hours(ann):
    phone = Client(REMOTE_ADDR=PHONE)
    log_in(phone)
    response = type_code(phone, the_code())
    assert response.status_code == 302 and response["Location"] == "/"
    assert logged_in(phone) and phone.get(BOARD).status_code == 200
    assert phone.session.get_expiry_age() == 8 * 3600
    assert HallLoginCode.objects.get().used is not None


@pytest.mark.parametrize("typed", ["000000", "12345", "١٢٣٤٥٦", "12 456"])
def test_a_wrong_code_is_refused_and_the_right_one_still_works(ann, typed):
    phone = Client(REMOTE_ADDR=PHONE)
    log_in(phone)
    code = the_code()
    if typed == code:
        typed = "999999" if code != "999999" else "000000"
    response = type_code(phone, typed)
    assert response.status_code == 200 and not logged_in(phone)
    page = response.content.decode()
    assert (
        "not the code shown on the laptop" in page
        or "The code is 6 digits" in page
        or ("Ensure this value has at least 6 characters" in page)
    )
    assert type_code(phone, code).status_code == 302 and logged_in(phone)


def test_three_wrong_codes_void_it(ann):
    phone = Client(REMOTE_ADDR=PHONE)
    log_in(phone)
    code = the_code()
    wrong = "000000" if code != "000000" else "111111"
    *_, last = [type_code(phone, wrong) for _ in range(3)]
    assert "Too many wrong codes: log in again for a new one." in last.content.decode()
    assert type_code(phone, code).status_code == 302  # back to the password
    assert not logged_in(phone)


def test_an_expired_code_is_refused(ann):
    phone = Client(REMOTE_ADDR=PHONE)
    log_in(phone)
    code = the_code()
    HallLoginCode.objects.update(made=timezone.now() - timedelta(minutes=5, seconds=1))
    response = type_code(phone, code)
    assert "more than 5 minutes old: log in again" in response.content.decode()
    assert not logged_in(phone)
    log_in(phone)  # the password again: a new code
    assert type_code(phone, the_code()).status_code == 302 and logged_in(phone)


def test_a_used_code_logs_nobody_in_again(ann):
    phone = Client(REMOTE_ADDR=PHONE)
    log_in(phone)
    made = HallLoginCode.objects.get()
    type_code(phone, made.code)
    with pytest.raises(CodeRefused, match="used already"):
        use_hall_login_code(made.pk, PHONE, made.code)
    # A sniffer who read the password and the code: its own log-in gets its own code.
    sniffer = Client(REMOTE_ADDR=SNIFFER)
    log_in(sniffer)
    assert type_code(sniffer, made.code).status_code == 200 and not logged_in(sniffer)


def test_the_code_is_for_that_address_only(ann):
    phone = Client(REMOTE_ADDR=PHONE)
    log_in(phone)
    code = HallLoginCode.objects.get()
    with pytest.raises(CodeRefused):
        use_hall_login_code(code.pk, SNIFFER, code.code)
    assert HallLoginCode.objects.get().used is None


@pytest.mark.django_db(transaction=True)
def test_the_same_code_sent_twice_at_once_logs_in_once(ann):
    phone = Client(REMOTE_ADDR=PHONE)
    log_in(phone)
    code = HallLoginCode.objects.get()
    results = at_once([lambda: use_hall_login_code(code.pk, PHONE, code.code)] * 2)
    assert sorted(type(r).__name__ for r in results) == ["CodeRefused", "User"]


def test_the_cookie_sent_from_another_device_is_logged_out(ann):
    phone = phone_logged_in()
    sniffer = Client(REMOTE_ADDR=SNIFFER)
    sniffer.cookies = phone.cookies
    response = sniffer.get(BOARD, follow=True)
    assert response.redirect_chain[0][0].startswith(LOGIN)
    assert "You were logged out: this session was opened on another device." in (
        response.content.decode()
    )
    assert phone.get(BOARD).status_code == 302  # the read session is gone for good


def test_a_session_made_elsewhere_is_not_used_from_the_hall(ann):
    # The admin's own log-in page has no code: its session is refused on the hall's network.
    User.objects.filter(pk=ann.pk).update(is_staff=True, is_superuser=True)
    phone = Client(REMOTE_ADDR=PHONE)
    phone.post("/admin/login/", {"username": "ann", "password": PASSWORD, "next": "/admin/"})
    assert phone.get("/admin/").status_code == 302 and not logged_in(phone)


def test_the_laptop_logs_in_with_the_password_alone(ann):
    laptop = Client()  # 127.0.0.1
    assert log_in(laptop).status_code == 302 and logged_in(laptop)
    assert laptop.get(BOARD).status_code == 200
    assert not HallLoginCode.objects.exists()


def test_outside_a_hall_the_password_alone_logs_in(ann, settings):
    settings.HALL = False
    phone = Client(REMOTE_ADDR=PHONE)
    assert log_in(phone).status_code == 302 and logged_in(phone)
    assert phone.get(BOARD).status_code == 200


def test_the_laptop_shows_the_codes_waiting(ann):
    log_in(Client(REMOTE_ADDR=PHONE))
    laptop = Client()
    log_in(laptop)
    page = laptop.get(CODES).content.decode()
    assert the_code() in page and PHONE in page and "ann" in page


def test_the_codes_page_refuses_any_other_device(ann):
    director_on_a_phone = phone_logged_in()
    log_in(Client(REMOTE_ADDR=SNIFFER))  # a code waiting
    response = director_on_a_phone.get(CODES)
    assert response.status_code == 403
    page = response.content.decode()
    assert "shown on the laptop&#x27;s own screen only" in page and the_code() not in page


def test_the_codes_page_is_for_directors(ann):
    keeper = User.objects.create_user("keeper", password=PASSWORD)
    laptop = Client()
    laptop.force_login(keeper)
    assert laptop.get(CODES).status_code == 403
    assert Client().get(CODES).status_code == 302  # the log-in first


def test_the_event_page_links_the_codes_on_the_laptop(director_client, event, settings):
    assert "/accounts/login/codes/" in director_client.get(f"/e/{event.slug}/").content.decode()
    settings.HALL = False
    assert "/accounts/login/codes/" not in director_client.get(f"/e/{event.slug}/").content.decode()


def test_a_username_gets_at_most_ten_codes_an_hour(ann, caplog):
    phone = Client(REMOTE_ADDR=PHONE)
    for _ in range(10):
        assert log_in(phone).status_code == 302
    response = log_in(phone)
    assert response.status_code == 200 and not logged_in(phone)
    assert "Too many log-in codes for this username in the last hour" in response.content.decode()
    assert caplog.text.count("Log-in code for 'ann'") == 10
    assert HallLoginCode.objects.count() == 10 and len(list(pending_codes())) == 1
    HallLoginCode.objects.update(made=timezone.now() - timedelta(hours=1, seconds=1))
    assert log_in(phone).status_code == 302  # an hour later
    laptop = Client()
    assert log_in(laptop).status_code == 302 and logged_in(laptop)  # the laptop, at any time


def test_a_pending_log_in_replayed_from_another_address_fails_for_the_replayer_only(ann):
    # The phone typed the right password and waits for its code; a sniffer on the Wi-Fi read
    # its cookie and sends it from its own address, with a wrong code and with the right one.
    phone = Client(REMOTE_ADDR=PHONE)
    log_in(phone)
    code = the_code()
    sniffer = Client(REMOTE_ADDR=SNIFFER)
    sniffer.cookies = phone.cookies
    for typed in ("000000" if code != "000000" else "111111", code):
        refused = type_code(sniffer, typed)
        assert refused.status_code == 200 and not logged_in(sniffer)
        assert "from another address" in refused.content.decode()
    assert HallLoginCode.objects.get().used is None
    assert HallLoginCode.objects.get().wrong_tries == 0  # not counted against the phone
    # The phone's own log-in still completes: its code page, then its code.
    assert phone.get(CODE).status_code == 200
    done = type_code(phone, code)
    assert done.status_code == 302 and done["Location"] == "/" and logged_in(phone)
