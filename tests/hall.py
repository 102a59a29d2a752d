"""`make hall` as a director starts it, and phones using it over plain HTTP.

``Hall`` runs the README's `make hall` in a folder of its own (its SQLite database, backups and
secret key there; a free port on 127.0.0.1; the static files collected once per test worker),
waits until it answers, and stops it. ``Phone`` is a browser's worth of HTTP: cookies, the login
form, a table's entry form filled in and posted as the page holds it. Used by tests/test_hall.py
and by `python -m tests.hall_load` (20 scorekeepers at once against the served site).
"""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
START_SECONDS = 300  # `make hall` may have packages to install first
PORT_TRIES = 3  # ports tried, when the one chosen is taken before the hall binds it
# The static files the halls of this checkout and test worker serve: collected by the first
# hall, as `make hall` collects them again only when a file changed (a director's second start).
STATIC_ROOT = Path(tempfile.gettempdir()) / (
    f"hall-static-{hashlib.blake2b(str(ROOT).encode(), digest_size=4).hexdigest()}"
    f"-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
)
LEFT_OUT = ("DEBUG", "DJANGO_SETTINGS_MODULE", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL")


def free_port() -> int:
    """A port nothing listens on now. Another process (a live server, a connection of another
    test worker) may take it before gunicorn binds it: ``Hall`` then starts again on another."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PortTaken(RuntimeError):
    """gunicorn could not bind the hall's port: something took it after free_port()."""


class Hall:
    """`make hall` serving from ``folder`` on a free port of 127.0.0.1."""

    def __init__(self, folder: Path, **env: str):
        self.folder = folder
        self.port = free_port()
        self.backups = folder / "backups"
        self.backups.mkdir(parents=True, exist_ok=True)
        base = {k: v for k, v in os.environ.items() if k not in LEFT_OUT}
        self.env = {
            **base,
            "DATABASE_URL": f"sqlite:///{folder / 'hall.sqlite3'}",
            "HOST": f"127.0.0.1:{self.port}",
            "BACKUP_DIR": str(self.backups),
            "HALL_SECRET_KEY_FILE": str(folder / "secret-key"),
            "STATIC_ROOT": str(STATIC_ROOT),
            **env,
        }
        self.output: list[str] = []
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Hall:
        for _ in range(PORT_TRIES - 1):
            try:
                return self._start()
            except PortTaken:  # between free_port() and gunicorn's bind: another port
                self.port = free_port()
                self.env["HOST"] = f"127.0.0.1:{self.port}"
        return self._start()

    def _start(self) -> Hall:
        self.output = []
        self.process = subprocess.Popen(  # noqa: S603 (the README's own command)
            ["make", "--no-print-directory", "hall"],  # noqa: S607
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        reader = threading.Thread(target=self._read, args=(self.process, self.output), daemon=True)
        reader.start()
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                reader.join(30)  # all it printed
                said = "".join(self.output)
                if f"Connection in use: ('127.0.0.1', {self.port})" in said:
                    raise PortTaken(said)
                raise RuntimeError("make hall stopped:\n" + said)
            if "Phones open:" in "".join(self.output):
                try:
                    if Phone(self.port).get("/healthz")[1].startswith(b"ok\n"):
                        return self
                except (OSError, http.client.HTTPException):
                    pass
            time.sleep(0.3)
        self.__exit__()
        raise RuntimeError("make hall did not answer in time:\n" + "".join(self.output))

    @staticmethod
    def _read(process: subprocess.Popen, output: list[str]) -> None:
        for line in process.stdout:
            output.append(line)

    def __exit__(self, *exc) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the hall as a director (SIGINT: Ctrl+C) or a crash (SIGKILL: kill -9, every
        process of it at once) would, and wait until it has."""
        os.killpg(self.process.pid, sig)
        self.process.wait(timeout=60)

    @property
    def director_password(self) -> str:
        found = re.search(r"user 'director', password '([^']+)'", "".join(self.output))
        assert found, "make hall printed no director password"
        return found.group(1)

    def manage(self, *args: str, stdin: str | None = None, **env: str) -> str:
        """``manage.py ARGS`` against the served database, as the hall's settings read it
        (``env``: more variables, e.g. BACKUP_DIR="off")."""
        result = subprocess.run(  # noqa: S603
            [str(ROOT / ".venv/bin/python"), "manage.py", *args],
            cwd=ROOT,
            env={**self.env, "HALL": "1", "DEBUG": "0", "TIME_ZONE": "UTC", **env},
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode:
            raise RuntimeError(result.stderr)
        return result.stdout


class Form(HTMLParser):
    """The forms of a page: each one's attributes and its fields as the page fills them."""

    def __init__(self, html: str):
        super().__init__()
        self.forms: list[dict] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append({**a, "fields": {}})
        elif tag == "input" and self.forms and a.get("name"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            self.forms[-1]["fields"].setdefault(a["name"], a.get("value") or "")

    def named(self, **attrs) -> dict | None:
        for form in self.forms:
            if all(form.get(k) == v for k, v in attrs.items()):
                return form
        return None


class Phone:
    """A phone's browser on the hall's Wi-Fi: plain HTTP, cookies kept. ``source``: the
    address it connects from (any of 127.0.0.0/8 on Linux: another device, as the hall sees
    it); ``timeout``: seconds it waits for each answer. ``times``: each request's (method,
    path, status, seconds)."""

    def __init__(self, port: int, source: str | None = None, timeout: float = 120):
        self.port = port
        self.host = f"127.0.0.1:{port}"
        self.source = source
        self.timeout = timeout
        self.cookies: dict[str, str] = {}
        self.times: list[tuple[str, str, int, float]] = []

    def request(self, method: str, path: str, body: dict | None = None, more: dict | None = None):
        headers = {"Host": self.host, "User-Agent": "hall-phone", **(more or {})}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if body is not None:
            data = urlencode(body).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = f"http://{self.host}"
            headers["Referer"] = f"http://{self.host}{path}"
        connection = http.client.HTTPConnection(
            "127.0.0.1",
            self.port,
            timeout=self.timeout,
            source_address=(self.source, 0) if self.source else None,
        )
        started = time.monotonic()
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            content = response.read()
        finally:
            connection.close()
        self.times.append((method, path, response.status, time.monotonic() - started))
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response, content

    def get(self, path: str, more: dict | None = None):
        """``more``: headers besides a browser's own."""
        return self.request("GET", path, more=more)

    def log_in(self, username: str, password: str) -> None:
        _, content = self.get("/accounts/login/")
        form = next(f for f in Form(content.decode()).forms if "password" in f["fields"])
        fields = {**form["fields"], "username": username, "password": password}
        response, content = self.request("POST", "/accounts/login/", fields)
        if response.status != 302:
            raise AssertionError(f"log-in as {username}: {response.status} {content[:300]!r}")

    def save_round(self, entry: str, pips: list[int]) -> int | None:
        """Open the table's entry page, type ``pips`` in its players' fields (in the page's
        order) and post the form as it is; the answer's status, or None when the table
        takes no more rounds."""
        response, content = self.get(entry)
        if response.status != 200:
            return response.status
        form = Form(content.decode()).named(id="round-form")
        if form is None:
            return None
        fields = dict(form["fields"])
        players = [name for name in fields if re.fullmatch(r"p\d+", name)]
        for name, value in zip(players, pips, strict=False):
            fields[name] = str(value)
        return self.request("POST", entry, fields)[0].status


# The event the hall's scorekeepers play: 80 players at 20 tables of 4, untimed; one
# scorekeeper login per table (scorekeeper01..20, the password given), printed as
# "slug" then "username table-entry-path" lines.
SETUP = """
from django.contrib.auth import get_user_model
from tests.factories import make_event, make_players, seat
from tournament.models import Table
User = get_user_model()
director = User.objects.get(username="director")
event = make_event(director, name="Hall Trial", game_minutes=None)
make_players(event, count={players})
stage = seat(event)
print(event.slug)
for table in Table.objects.filter(stage=stage).order_by("number"):
    user = User.objects.create_user(f"scorekeeper{{table.number:02d}}", password={password!r})
    table.scorekeepers.add(user)
    entry = f"/director/e/{{event.slug}}/{{stage.number}}/table/{{table.number}}/enter/"
    print(user.username, entry)
"""

COUNT = """
from scoring.models import Round
from tournament.models import Table
for table in Table.objects.filter(stage__event__slug={slug!r}).order_by("number"):
    numbers = sorted(Round.objects.filter(table=table).values_list("number", flat=True))
    print(table.number, ",".join(map(str, numbers)))
"""


def hall_event(hall: Hall, tables: int, password: str) -> tuple[str, list[tuple[str, str]]]:
    """Make the trial event on the served database: its slug and (username, entry path)."""
    out = hall.manage(
        "shell", "--no-imports", "-c", SETUP.format(players=4 * tables, password=password)
    )
    lines = out.strip().splitlines()
    return lines[0], [tuple(line.split()) for line in lines[1:]]


def rounds_stored(hall: Hall, slug: str) -> dict[int, list[int]]:
    out = hall.manage("shell", "--no-imports", "-c", COUNT.format(slug=slug))
    stored = {}
    for line in out.strip().splitlines():
        number, _, numbers = line.partition(" ")
        stored[int(number)] = [int(n) for n in numbers.split(",") if n]
    return stored


def scorekeepers_at_once(
    port: int, keepers: list[tuple[str, str]], password: str, rounds: int = 13
) -> list[list[tuple[int | None, float]]]:
    """Every scorekeeper logs in on their own phone, then all save their table's rounds at
    the same moment: per scorekeeper, each save's (status, seconds)."""
    barrier = threading.Barrier(len(keepers))
    results: list = [None] * len(keepers)

    def keeper(i: int, username: str, entry: str) -> None:
        try:
            phone = Phone(port)
            phone.log_in(username, password)
            barrier.wait(120)
            answers = []
            for n in range(rounds):
                started = time.monotonic()
                status = phone.save_round(entry, [0, 5 + n, 9 + i % 7, 21])
                answers.append((status, time.monotonic() - started))
            results[i] = answers
        except BaseException as error:  # noqa: BLE001 (reported by the caller)
            results[i] = error

    threads = [threading.Thread(target=keeper, args=(i, u, e)) for i, (u, e) in enumerate(keepers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    return results
