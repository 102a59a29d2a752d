"""Log-ins are throttled (django-axes) and there are no password-reset pages (no e-mail).

A username and address pair is locked out after AXES_FAILURE_LIMIT wrong passwords; the page
says until when; the right password fails too until the cool-off has passed.
"""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client, RequestFactory
from django.utils import timezone

from tests.factories import make_director
from tournament import security
from tournament.security import client_ip

pytestmark = pytest.mark.django_db

PASSWORD = "a-Long-pass-phrase-42"
LOGIN = "/accounts/login/"


@pytest.fixture
def desk(db):
    return make_director("desk", PASSWORD)


def log_in(client, password, username="desk"):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/"})


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def fail_until_locked(client) -> list:
    return [log_in(client, "wrong") for _ in range(settings.AXES_FAILURE_LIMIT)]


def test_the_right_password_logs_in(client, desk):
    assert log_in(client, PASSWORD).status_code == 302 and logged_in(client)


def test_failures_lock_the_username_at_this_address(client, desk):
    *failures, last = fail_until_locked(client)
    assert {r.status_code for r in failures} == {200}  # the form again, with its error
    assert "Please enter a correct username and password" in failures[0].content.decode()
    assert last.status_code == 429
    page = last.content.decode()
    minutes = round(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    assert f"Try again in {minutes} minutes, after " in page
    assert last["Retry-After"] == str(int(settings.AXES_COOLOFF_TIME.total_seconds()))

    locked = log_in(client, PASSWORD)
    assert locked.status_code == 429 and not logged_in(client)
    assert "Too many failed log-ins" in locked.content.decode()


def test_the_lock_is_for_that_username_at_that_address(desk):
    make_director("other", PASSWORD)
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    fail_until_locked(attacker)
    assert log_in(attacker, PASSWORD).status_code == 429
    assert log_in(attacker, PASSWORD, username="other").status_code == 302  # another username
    at_the_hall = Client(REMOTE_ADDR="198.51.100.7")
    assert log_in(at_the_hall, PASSWORD).status_code == 302  # the same username elsewhere


def test_the_right_password_works_again_after_the_cool_off(client, desk):
    fail_until_locked(client)
    cool_off = settings.AXES_COOLOFF_TIME
    # 5 seconds before the wait is over: still locked (and the attempt starts the wait again)
    AccessAttempt.objects.update(attempt_time=timezone.now() - cool_off + timedelta(seconds=5))
    assert log_in(client, PASSWORD).status_code == 429
    assert AccessAttempt.objects.get().attempt_time > timezone.now() - timedelta(seconds=5)

    AccessAttempt.objects.update(attempt_time=timezone.now() - cool_off - timedelta(seconds=1))
    assert log_in(client, PASSWORD).status_code == 302 and logged_in(client)
    assert not AccessAttempt.objects.exists()  # a success clears the count


def test_behind_a_proxy_the_address_is_the_one_the_proxy_saw(desk, settings):
    settings.PROXY_COUNT = 1
    # The client may send its own X-Forwarded-For; the proxy appends the address it saw.
    forged = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="10.9.9.9, 203.0.113.9")
    fail_until_locked(forged)
    assert AccessAttempt.objects.get().ip_address == "203.0.113.9"
    other = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert log_in(other, PASSWORD).status_code == 302  # the proxy's own address is not locked


def test_behind_the_proxy_a_rotating_forwarded_for_is_still_the_same_client(desk, settings):
    settings.PROXY_COUNT = 1
    # The proxy appends the address it saw: whatever the client writes to the left of it.
    statuses = [
        log_in(
            Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}, 203.0.113.9"),
            "wrong",
        ).status_code
        for n in range(settings.AXES_FAILURE_LIMIT)
    ]
    assert statuses == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]
    again = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="10.0.0.99, 203.0.113.9")
    assert log_in(again, PASSWORD).status_code == 429 and not logged_in(again)
    director = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert log_in(director, PASSWORD).status_code == 302 and logged_in(director)


def test_a_forged_forwarded_for_straight_to_the_apps_port_is_ignored(desk, settings):
    settings.PROXY_COUNT = 1  # the proxy is on 127.0.0.1 (TRUSTED_PROXIES' default)
    statuses = [
        log_in(
            Client(REMOTE_ADDR="203.0.113.50", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}"), "wrong"
        ).status_code
        for n in range(settings.AXES_FAILURE_LIMIT)
    ]
    assert statuses == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]
    forged = Client(REMOTE_ADDR="203.0.113.50", HTTP_X_FORWARDED_FOR="198.51.100.99")
    assert log_in(forged, PASSWORD).status_code == 429
    assert AccessAttempt.objects.get().ip_address == "203.0.113.50"  # its own address
    behind_the_proxy = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.99")
    assert log_in(behind_the_proxy, PASSWORD).status_code == 302


@pytest.mark.parametrize(
    "peer, forwarded, seen",
    [
        ("10.1.2.3", "198.51.100.7", "198.51.100.7"),  # from the proxy's network: read
        ("10.1.2.3", "203.0.113.1, 198.51.100.7", "198.51.100.7"),  # the rightmost entry
        ("127.0.0.1", "198.51.100.7", "127.0.0.1"),  # loopback is no longer a proxy
        ("192.0.2.8", "198.51.100.7", "192.0.2.8"),  # anyone else: its own address
        ("10.1.2.3", "", "10.1.2.3"),  # the proxy said nothing
        ("10.1.2.3", "not-an-address", "10.1.2.3"),
    ],
)
def test_only_the_trusted_proxies_forwarded_address_is_read(settings, peer, forwarded, seen):
    settings.PROXY_COUNT = 1
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    meta = {"REMOTE_ADDR": peer, "HTTP_X_FORWARDED_FOR": forwarded}
    assert client_ip(RequestFactory().get("/", **meta)) == seen


@pytest.fixture
def fresh_log():
    """The one-time warnings not yet given in this process."""
    security._warned.clear()
    yield
    security._warned.clear()


def warnings_logged(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "tournament.security"]


def test_forwarded_requests_without_proxy_count_are_logged_once(fresh_log, caplog, desk):
    for n in range(3):
        behind = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
        log_in(behind, "wrong")
    [warning] = warnings_logged(caplog)
    assert "X-Forwarded-For but PROXY_COUNT is 0" in warning


def test_without_forwarded_for_nothing_is_logged(fresh_log, caplog, desk):
    log_in(Client(REMOTE_ADDR="198.51.100.7"), "wrong")
    assert warnings_logged(caplog) == []


@pytest.mark.parametrize(
    "meta, said",
    [
        ({"REMOTE_ADDR": "203.0.113.50", "HTTP_X_FORWARDED_FOR": "1.2.3.4"}, "not in TRUSTED"),
        ({"REMOTE_ADDR": "127.0.0.1"}, "is the proxy adding the client's address"),
    ],
)
def test_traffic_that_is_not_the_proxys_is_logged_once(
    fresh_log, caplog, desk, settings, meta, said
):
    settings.PROXY_COUNT = 1
    for _ in range(3):
        log_in(Client(**meta), "wrong")
    [warning] = warnings_logged(caplog)
    assert said in warning


@pytest.mark.parametrize(
    "url",
    [
        "/accounts/password_reset/",
        "/accounts/password_reset/done/",
        "/accounts/reset/MQ/set-password/",
        "/accounts/reset/done/",
    ],
)
def test_there_are_no_password_reset_pages(client, url):
    assert client.get(url).status_code == 404
    assert client.post(url, {"email": "a@example.org"}).status_code == 404


def test_a_director_changes_their_password(client, desk):
    log_in(client, PASSWORD)
    response = client.post(
        "/accounts/password_change/",
        {
            "old_password": PASSWORD,
            "new_password1": "another-Long-phrase-43",
            "new_password2": "another-Long-phrase-43",
        },
    )
    assert response.status_code == 302
    desk.refresh_from_db()
    assert desk.check_password("another-Long-phrase-43")
