"""The container image's own parts (Containerfile, compose.yaml; README "The hall in a container"):
the hall's host check when it cannot see the laptop's addresses, the address given for phones,
the secret key kept by two servers starting at once, the user the site runs as, and the
process that starts the servers. The image itself is built and run by .ci/container-check."""

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.test_deployment import collected  # noqa: F401 (the fixture)
from tournament import hall
from tournament.container import run_as

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("192.168.1.20:8000", True),
        ("10.0.0.5", True),
        ("172.16.3.4:8080", True),
        ("[fd00::1]:8000", True),
        ("127.0.0.1:8000", True),
        ("[::1]", True),
        ("localhost:8000", True),
        ("laptop.local:8000", True),
        (".local", False),
        ("scores.example.org", False),
        ("8.8.8.8:80", False),
        ("100.64.0.1", False),  # shared address space: a carrier's, not the hall's
        ("[2606:4700::1111]", False),
        ("192.168.1.20.evil.com", False),
    ],
)
def test_a_hall_in_a_container_takes_the_hosts_of_a_private_network_only(host, allowed):
    assert hall.private_host(host) is allowed


def test_the_addresses_given_are_the_ones_phones_are_told(monkeypatch):
    monkeypatch.setenv("HALL_ADDRESS", "192.168.1.20, not-an-address, fd00::7")
    assert hall.lan_addresses() == ["192.168.1.20", "fd00::7"]
    assert hall.hall_urls("0.0.0.0:8000") == ["http://192.168.1.20:8000/"]
    assert hall.hall_urls("[::]:8000") == ["http://192.168.1.20:8000/", "http://[fd00::7]:8000/"]


def site(env: dict, code: str) -> subprocess.CompletedProcess:
    """``code`` run by ``manage.py shell`` in a fresh process with the hall's environment."""
    base = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "DJANGO_SETTINGS_MODULE")}
    return subprocess.run(  # noqa: S603 (our own manage.py)
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**base, "DATABASE_URL": "sqlite:///:memory:", **env},
        check=False,
    )


def statuses_for(hosts: list[str]) -> str:
    return (
        "from django.core.management import call_command\n"
        "from django.test import Client\n"
        "call_command('migrate', verbosity=0)\n"
        f"for host in {hosts!r}:\n"
        "    print(Client(raise_request_exception=False).get('/nothing/', headers={'host': host})"
        ".status_code)"
    )


def test_the_containers_hall_refuses_a_host_of_no_private_network(tmp_path, collected):  # noqa: F811
    hosts = ["192.168.1.20:8000", "laptop.local:8000", "scores.example.org", "8.8.8.8"]
    env = {
        "HALL": "1",
        "HALL_SECRET_KEY_FILE": str(tmp_path / "key"),
        "BACKUP_DIR": "off",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        **collected,
    }
    in_container = site({**env, "HALL_CONTAINER": "1"}, statuses_for(hosts))
    assert in_container.stdout.split() == ["404", "404", "400", "400"], in_container.stderr
    # On the laptop itself (make hall), its own addresses alone, as before.
    on_the_laptop = site(env, statuses_for(hosts))
    assert on_the_laptop.stdout.split()[2:] == ["400", "400"], on_the_laptop.stderr


def test_servers_starting_at_once_keep_one_secret_key(tmp_path):
    path = tmp_path / "secret-key"
    start = threading.Barrier(8)
    keys = []

    def start_a_server():
        start.wait()
        keys.append(hall.kept_secret_key(path))

    threads = [threading.Thread(target=start_a_server) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(keys)) == 1 and len(keys[0]) >= 50
    assert path.read_text().strip() == keys[0]
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in tmp_path.iterdir()] == ["secret-key"]  # no draft left behind
    assert hall.kept_secret_key(path) == keys[0]


def test_an_empty_key_file_is_replaced(tmp_path):
    path = tmp_path / "secret-key"
    path.write_text("")
    key = hall.kept_secret_key(path)
    assert len(key) >= 50 and path.read_text().strip() == key


def test_the_site_runs_as_the_backups_folders_owner_never_root(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    os.chown(mine, 1234, 1234)
    assert run_as(mine, site_uid=10001) == 1234
    made_by_the_engine = tmp_path / "root"
    made_by_the_engine.mkdir()
    os.chown(made_by_the_engine, 0, 0)
    assert run_as(made_by_the_engine, site_uid=10001) == 10001
    assert run_as(tmp_path / "missing", site_uid=10001) == 10001


SLEEPER = "import sys, time; sys.stdout.write('up\\n'); sys.stdout.flush(); time.sleep(120)"


def test_a_stop_reaches_every_process_the_container_started():
    code = (
        "import sys\n"
        "from tournament.management.commands.serve import supervise\n"
        f"sys.exit(supervise([[sys.executable, '-c', {SLEEPER!r}]] * 3))\n"
    )
    supervisor = subprocess.Popen(  # noqa: S603
        [sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        for _ in range(3):
            assert supervisor.stdout.readline() == "up\n"  # all three started
        supervisor.terminate()  # docker stop
        assert supervisor.wait(timeout=30) != 0
    finally:
        supervisor.kill()
    children = subprocess.run(  # noqa: S603
        ["pgrep", "-f", SLEEPER],  # noqa: S607
        capture_output=True,
        text=True,
        check=False,  # noqa: S607
    )
    assert children.stdout == ""
