"""`make hall` (issue 20): the README's command serves the hall's network over plain HTTP with
DEBUG off; a phone opens a page, the director logs in, a round is saved through the form and
backed up; then twenty scorekeepers save their tables' 13 rounds at once against the served
process, on SQLite: no error, every round stored once."""

import json
import os
import re
import signal
import socket
import subprocess
import time
from urllib.parse import urlencode

import pytest

from tests.hall import ROOT, Hall, Phone, hall_event, rounds_stored, scorekeepers_at_once

PASSWORD = "hall-trial-pass-phrase-7"  # noqa: S105 (a throwaway database's logins)


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    with Hall(tmp_path_factory.mktemp("hall")) as served:
        yield served


def test_make_hall_serves_the_site_over_plain_http_with_debug_off(hall):
    output = "".join(hall.output)
    assert f"http://127.0.0.1:{hall.port}/" in output.split("Phones open:", 1)[1]
    phone = Phone(hall.port)
    response, content = phone.get("/e/demo/")
    assert response.status == 200  # no redirect to HTTPS
    assert "Strictly-Transport-Security" not in dict(response.getheaders())
    response, content = phone.get("/e/demo/no-such-page/")
    assert response.status == 404 and b"Traceback" not in content  # DEBUG is off
    response, content = phone.get("/static/css/site.css")
    assert response.status == 200 and b"{" in content  # static files served
    assert (hall.folder / "secret-key").stat().st_mode & 0o077 == 0  # made, the owner's only


def test_the_director_logs_in_and_saves_a_round_through_the_hall(hall):
    phone = Phone(hall.port)
    phone.log_in("director", hall.director_password)
    assert "csrftoken" in phone.cookies and "sessionid" in phone.cookies
    saved = None
    for table in range(1, 30):
        status = phone.save_round(f"/director/e/demo/1/table/{table}/enter/", [0, 7, 14, 21])
        if status is not None:
            saved = (table, status)
            break
    assert saved and saved[1] == 302, saved
    written = backed_up(hall.backups / "demo")  # an event's first change is written at once
    assert written, "no backup after the save"
    rounds = [
        r
        for s in json.loads(written[-1].read_text())["stages"]
        for t in s["tables"]
        for r in t["rounds"]
    ]
    assert any(list(r["pips"].values()) == [0, 7, 14, 21] for r in rounds)


def backed_up(folder, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        written = sorted(folder.glob("*.json"))
        if written:
            return written
        time.sleep(0.2)
    return []


def test_twenty_scorekeepers_save_their_tables_at_once_through_the_hall(hall):
    slug, keepers = hall_event(hall, tables=20, password=PASSWORD)
    assert len(keepers) == 20
    results = scorekeepers_at_once(hall.port, keepers, PASSWORD, rounds=13)
    for answers in results:
        assert not isinstance(answers, BaseException), repr(answers)
        assert [status for status, _ in answers] == [302] * 13, answers
    stored = rounds_stored(hall, slug)
    assert stored == {n: list(range(1, 14)) for n in range(1, 21)}


def test_stopping_the_hall_backs_up_the_changes_still_waiting_for_their_turn(tmp_path):
    with Hall(tmp_path, HALL_WORKERS="1") as served:
        phone = Phone(served.port)
        phone.log_in("director", served.director_password)
        entry = "/director/e/demo/1/table/1/enter/"
        assert phone.save_round(entry, [0, 7, 14, 21]) == 302  # backed up at once
        assert backed_up(served.backups / "demo")
        assert phone.save_round(entry, [0, 1, 2, 3]) == 302  # its turn is 30 s away
        assert len(backed_up(served.backups / "demo")) == 1
    written = sorted((served.backups / "demo").glob("*.json"))  # Ctrl+C: the server stopped
    assert len(written) == 2
    last = json.loads(written[-1].read_text())
    rounds = [r for t in last["stages"][0]["tables"] for r in t["rounds"]]
    assert [0, 1, 2, 3] in [list(r["pips"].values()) for r in rounds]


def test_make_hall_collects_the_static_files_again_only_when_one_changed(tmp_path):
    """A hall started again serves the files collected at its last start, unless a file of
    static/ (or an installed package) is newer than that collection."""
    collected = tmp_path / "static"
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS")}

    def collects() -> bool:
        planned = subprocess.run(  # noqa: S603 (the README's command, dry run)
            ["make", "--no-print-directory", "-n", "hall"],  # noqa: S607
            cwd=ROOT,
            env={**env, "STATIC_ROOT": str(collected)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return "collectstatic" in planned

    assert collects()  # never collected
    collected.mkdir()
    (collected / ".collected").touch()
    assert not collects()  # collected after every file's last change
    os.utime(collected / ".collected", (0, 0))  # collected before the files last changed
    assert collects()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_phones_stream_is_sent_a_saved_round_and_does_not_hold_the_hall_at_its_stop(
    tmp_path, sig
):
    """Under `make hall` a phone on the standings holds a stream (tournament/streams.py): the
    round a director saves through the form is sent on it. Ctrl+C (SIGINT) or SIGTERM then
    stops the hall with the stream still open: its worker ends its streams first
    (tournament/hall_server.py). The graceful timeout is 10 minutes here: a stream left
    running would hold the hall that long, and the wait below would fail."""
    with Hall(tmp_path, HALL_WORKERS="1", GUNICORN_CMD_ARGS="--graceful-timeout 600") as served:
        response, page = Phone(served.port).get("/e/demo/1/")
        html = page.decode()
        stream = re.search(r'<body[^>]* data-stream-url="([^"]+)"', html).group(1)
        version = re.search(r'<body[^>]* data-version="(\d+)"', html).group(1)
        states = ",".join(
            f"{i}={s}" for i, s in re.findall(r'id="([\w-]+)"[^>]* data-live="(\w*)"', html)
        )
        query = urlencode({"page": "/e/demo/1/", "v": version, "s": states})
        line = socket.create_connection(("127.0.0.1", served.port), timeout=60)
        line.sendall(f"GET {stream}?{query} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        received = b""
        while b"retry:" not in received:
            received += line.recv(65536)
        assert received.startswith(b"HTTP/1.1 200")
        director = Phone(served.port)
        director.log_in("director", served.director_password)
        assert director.save_round("/director/e/demo/1/table/1/enter/", [0, 7, 14, 21]) == 302
        while b"data: " not in received:  # the next beat's answer
            received += line.recv(65536)
        assert b'"live-standings"' in received.split(b"data: ", 1)[1]
        served.stop(sig)  # waits for the hall to end
        line.close()
