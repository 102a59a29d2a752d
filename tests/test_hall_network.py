"""What `make hall` calls the laptop on the hall's network (tournament/hall.py) and the
settings it serves with (HALL=1), read in a fresh process as `make hall` starts one."""

import os
import subprocess
import sys
from unittest import mock

import pytest

from tournament import hall

LAPTOP = ["192.168.1.20", "fd00::20"]


@pytest.fixture
def laptop():
    with (
        mock.patch("tournament.hall.lan_addresses", return_value=LAPTOP),
        mock.patch("tournament.hall.socket.gethostname", return_value="Gym-Laptop"),
    ):
        yield


def test_phones_get_every_lan_address_when_the_hall_listens_everywhere(laptop):
    assert hall.hall_urls("0.0.0.0:8000") == ["http://192.168.1.20:8000/"]
    assert hall.hall_urls("[::]:8000") == [
        "http://192.168.1.20:8000/",
        "http://[fd00::20]:8000/",
    ]
    assert hall.hall_urls("0.0.0.0:80") == ["http://192.168.1.20/"]
    assert hall.hall_urls("10.0.0.5:8000") == ["http://10.0.0.5:8000/"]


def test_the_laptops_addresses_and_names_are_allowed_hosts(laptop):
    hosts = hall.allowed_hosts()
    for host in ("192.168.1.20", "[fd00::20]", "gym-laptop", "gym-laptop.local", "localhost"):
        assert host in hosts


def test_loopback_and_link_local_addresses_are_not_offered_to_phones():
    for address in hall.lan_addresses():
        assert not address.startswith(("127.", "::1", "fe80:", "169.254."))


def test_the_laptops_own_zone_is_read_from_tz(monkeypatch):
    monkeypatch.setenv("TZ", "America/Los_Angeles")
    assert hall.local_time_zone() == "America/Los_Angeles"


def test_the_secret_key_is_made_once_and_kept(tmp_path):
    path = tmp_path / "key"
    key = hall.kept_secret_key(path)
    assert len(key) >= 50 and path.stat().st_mode & 0o077 == 0
    assert hall.kept_secret_key(path) == key


def hall_settings(tmp_path, **env):
    base = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY")}
    code = (
        "from django.conf import settings as s; print(s.DEBUG, s.SECURE_SSL_REDIRECT, "
        "s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS, "
        "'localhost' in s.ALLOWED_HOSTS, s.TIME_ZONE)"
    )
    return subprocess.run(  # noqa: S603 (our own manage.py)
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", code],
        capture_output=True,
        text=True,
        env={
            **base,
            "DJANGO_SETTINGS_MODULE": "tournament.settings",
            "HALL": "1",
            "HALL_SECRET_KEY_FILE": str(tmp_path / "key"),
            "DATABASE_URL": "sqlite:///:memory:",
            **env,
        },
        check=False,
    )


def test_the_hall_serves_plain_http_with_debug_off_and_a_kept_key(tmp_path):
    result = hall_settings(tmp_path, TZ="Europe/Paris", TIME_ZONE="local")
    assert result.stdout.split() == [
        "False",
        "False",
        "False",
        "False",
        "0",
        "True",
        "Europe/Paris",
    ], result.stderr
    assert (tmp_path / "key").is_file()


def test_the_hall_refuses_debug_and_a_zone_that_does_not_exist(tmp_path):
    assert "HALL serves the hall with DEBUG off" in hall_settings(tmp_path, DEBUG="1").stderr
    refused = hall_settings(tmp_path, TIME_ZONE="Moon/Base").stderr
    assert "TIME_ZONE must name a time zone" in refused
