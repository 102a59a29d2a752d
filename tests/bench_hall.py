"""Benchmark: the hall during play (issue 32 item 4). A round is saved every second across the
tables while N phones follow the public pages as static/js/live.js and static/js/clock.js do.

Run by ``make bench`` (tests/bench.py calls ``run``; ``--hall`` runs only this), or alone:

    .venv/bin/python -m tests.bench_hall --phones 300 --players 1000 --seconds 30

A 1,000-player event is seated at Game 1 (250 tables of 4), a few rounds played at every table
and its clock running, in the benchmark's throwaway database (SQLite; PostgreSQL when
DATABASE_URL is set). The site is served as ``make hall`` serves it: gunicorn with the hall's
settings (tournament/hall_server.py: 2 processes of 8 threads), DEBUG off (tests/bench_site.py).

- The phones (``--phones``, 300) watch the pages people watch during play: mostly Game 1's
  standings, some a table's page, the bracket, the results, a big screen. Each loads its page
  once, reads from it what live.js and clock.js read (the version, where to ask it, how often,
  the live regions and the state of each, the clock's clock.json and its mark), then, on a
  timer of its own (each phone's started at its own moment), asks its page every
  LIVE_REFRESH_SECONDS whether the version moved (``X-Live-Version``, and the state of each
  region it holds: ``X-Live-States``; a page without regions asks /e/<slug>/version.json).
  When it moved, it takes the regions' changes from that answer, asks clock.json unless the
  answer said the mark of the clock it holds, and asks alone each region the answer could not
  bring up to date (``X-Live-Region``, ``X-Live-State``); clock.js's own reading every 15
  seconds too, of a clock whose page's checks do not say its mark (not data-marked). A phone
  is one keep-alive HTTP/1.1 connection (opened again when the server closed it), sending
  the headers a phone's browser sends. Where the page names a stream (``data-stream-url``:
  streams on, as `make hall` runs), the phone opens it as it loads the page, on a connection
  of its own (as EventSource does), and takes its messages as they come instead of checking:
  the same answers, clock.json and regions asked alone as after a check; refused (204), it
  checks. The bytes it receives are counted as they come over
  the wire: status line, headers and body.
- The writer, a director logged in, saves a round every second at the tables in turn through
  the entry form over HTTP, as a browser does: the post of the form the table's page holds,
  and the entry page the post redirects to (the next round's form: each table's page is
  loaded once before the run, as the phones' pages are); each save on a connection of its
  own, started at its second, so that a slow answer does not slow the saves down.

Printed, for the run's window (from the phones' first timer to the last phone stopped): per
kind of request, the requests, bytes, and the server's CPU for them (each worker measures the
time its thread spends in Django per request: ``served``; and its streams' hub, the checks it
asks once a beat for every stream: "hub"); per page watched, the bytes per
saved round per phone; then the bytes per saved round per phone, the total bytes per second,
the server's CPU (gunicorn's master and workers, utime + stime from /proc, before and after)
in all and per 100 phones, and the load generator's own CPU (this process: the phones and the
writer; not the server's). PASS or FAIL, for 300 phones at a 1,000-player event: the server
under 10 % of one core, the phones' bytes under 2 MB/s (2,000,000 bytes a second). When the
server falls behind, a phone skips the checks its timer calls for while one is under way (as
live.js does): the skipped checks are counted, and the CPU the server would have needed to
answer them all is estimated.

``--workers`` sets the server's processes (HALL_WORKERS); the rest of the environment reaches
the server too: ``CACHE_URL=redis://...`` (one cache shared by the processes),
``GUNICORN_CMD_ARGS="--keep-alive 10"``, ``LIVE_REFRESH_SECONDS``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
HOW = ("pieces", "whole", "unchanged")  # what a live region's answer carried
PHONES, PLAYERS, SECONDS, ROUNDS = 300, 1000, 30.0, 6
SAVE_EVERY = 1.0  # seconds between two saved rounds
CLOCK_POLL = 15.0  # static/js/clock.js: POLL_MS
CPU_TARGET, BYTES_TARGET = 0.10, 2_000_000  # of one core; bytes a second
# The pages watched during play, and the share of the phones on each.
WATCHED = [
    ("standings", "/e/{slug}/1/", 0.70),
    ("table", "/e/{slug}/1/table/{table}/", 0.12),
    ("bracket", "/e/{slug}/bracket/", 0.08),
    ("results", "/e/{slug}/results/", 0.08),
    ("big screen", "/e/{slug}/1/clock/", 0.02),
]
# What a phone's browser sends with each request (Chrome on Android), besides Host, Cookie and
# the live headers.
BROWSER = {
    "Connection": "keep-alive",
    "User-Agent": "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Mobile Safari/537.36",
    "Accept": "*/*",
    "Accept-Encoding": "gzip, deflate",
    "Accept-Language": "en-US,en;q=0.9",
    "Cache-Control": "no-cache",  # fetch(..., {cache: "no-store"})
    "Pragma": "no-cache",
}


# The server side: the site as the hall serves it, each worker counting the CPU its threads
# spend in Django per kind of request.


def request_kind(environ) -> str:
    path, region = environ.get("PATH_INFO", ""), environ.get("HTTP_X_LIVE_REGION")
    if region:
        return f"region {region}"
    if "HTTP_X_LIVE_VERSION" in environ:
        return "check"
    if path.endswith(("/version.json", "/clock.json")):
        return path.rsplit("/", 1)[1]
    if path.endswith("/stream/"):
        return "stream"
    if path.endswith("/enter/"):
        return f"entry {environ.get('REQUEST_METHOD', 'GET')}"
    return "page"


def served():
    """The WSGI application gunicorn serves here (``tests.bench_hall:served()``): the site's,
    each request's thread CPU time added to its kind; the worker writes its totals to
    BENCH_HALL_CPU/<pid>.json four times a second."""
    from tournament.wsgi import application as site

    folder = Path(os.environ["BENCH_HALL_CPU"])
    totals: dict[str, list] = defaultdict(lambda: [0, 0.0])
    lock = threading.Lock()

    def application(environ, start_response):
        started = time.thread_time()
        try:
            return site(environ, start_response)
        finally:
            spent = time.thread_time() - started
            with lock:
                kind = totals[request_kind(environ)]
                kind[0] += 1
                kind[1] += spent

    def write() -> None:
        from tournament.streams import hub

        mine, scratch = folder / f"{os.getpid()}.json", folder / f"{os.getpid()}.tmp"
        while True:
            with lock:
                beats = [hub().ticks, hub().spent - hub().checking]
                kinds = {
                    **totals,
                    "hub: beats": beats,
                    "hub: checks": [hub().checks, hub().checking],
                }
                text = json.dumps({"at": time.time(), "kinds": kinds})
            scratch.write_text(text)
            scratch.replace(mine)
            time.sleep(0.25)

    threading.Thread(target=write, daemon=True).start()
    return application


def server_cpu(master: int) -> float:
    """CPU seconds (user + system) of gunicorn's master and its workers, living and reaped."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # a process that just ended
            continue
        pid, parent = int(stat.parent.name), int(fields[1])
        if pid == master:
            total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
        elif parent == master:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def worker_cpu(folder: Path, after: float) -> dict[str, list]:
    """Every worker's totals per kind, as written after ``after`` (time.time())."""
    deadline = time.monotonic() + 30
    while True:
        readings = []
        for path in folder.glob("*.json"):
            try:
                readings.append(json.loads(path.read_text()))
            except (OSError, ValueError):  # replaced while read: read again
                readings = []
                break
        if readings and all(r["at"] > after for r in readings):
            break
        if time.monotonic() > deadline:
            raise RuntimeError("the workers stopped writing their CPU time")
        time.sleep(0.05)
    totals: dict[str, list] = defaultdict(lambda: [0, 0.0])
    for reading in readings:
        for kind, (count, spent) in reading["kinds"].items():
            totals[kind][0] += count
            totals[kind][1] += spent
    return totals


class Server:
    """gunicorn as ``make hall`` starts it (tournament/hall_server.py), on a free port."""

    def __init__(self, folder: Path, workers: int | None = None):
        from tests.bench import database_url, free_port

        self.port = free_port()
        self.cpu_folder = folder / "cpu"
        self.cpu_folder.mkdir()
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.bench_site",
            "DATABASE_URL": database_url(),
            "HOST": f"127.0.0.1:{self.port}",
            "BENCH_HALL_CPU": str(self.cpu_folder),
            # Every phone here is the one address 127.0.0.1: no cap per address, or all but
            # 4 of them would poll instead of being sent their changes.
            "LIVE_STREAMS_PER_CLIENT": "0",
        }
        if workers:
            self.env["HALL_WORKERS"] = str(workers)
        self.workers = int(self.env.get("HALL_WORKERS", "2"))
        self.log = tempfile.TemporaryFile()
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Server:
        command = [sys.executable, "-m", "gunicorn", "-c", "python:tournament.hall_server"]
        command.append("tests.bench_hall:served()")
        self.process = subprocess.Popen(  # noqa: S603 (our gunicorn)
            command, cwd=ROOT, env=self.env, stdout=self.log, stderr=self.log
        )
        deadline = time.monotonic() + 60
        while len(list(self.cpu_folder.glob("*.json"))) < self.workers:  # every worker up
            if self.process.poll() is not None or time.monotonic() > deadline:
                said = self.output()
                self.__exit__()
                raise RuntimeError("gunicorn did not start:\n" + said)
            time.sleep(0.1)
        return self

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-3000:]

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


# The client side: phones and the writer.


class Closed(ConnectionError):
    """The server closed the connection before answering."""


@dataclass
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    received: int  # bytes over the wire: status line, headers, body


class Wire:
    """One keep-alive HTTP/1.1 connection, as a browser keeps one, opened again when the
    server closed it (gunicorn closes an idle one after its keep-alive seconds)."""

    def __init__(self, port: int):
        self.address = ("127.0.0.1", port)
        self.sock: socket.socket | None = None
        self.connects = 0

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _open(self) -> None:
        self.close()
        self.sock = socket.create_connection(self.address, timeout=120)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.connects += 1

    def exchange(self, request: bytes) -> Answer:
        # An idle connection the server has closed reads as readable (its end of file).
        if self.sock is None or self._readable():
            self._open()
        try:
            self.sock.sendall(request)
            return self._read()
        except (Closed, ConnectionResetError, BrokenPipeError):
            # closed between the look and the send: once more on a new one, as browsers do
            self._open()
            self.sock.sendall(request)
            return self._read()

    def _readable(self) -> bool:
        poll = select.poll()  # (select.select refuses descriptors above 1,023: many phones)
        poll.register(self.sock, select.POLLIN)
        return bool(poll.poll(0))

    def _recv(self) -> bytes:
        data = self.sock.recv(65536)
        if not data:
            raise Closed
        return data

    def _read(self) -> Answer:
        data = b""
        while b"\r\n\r\n" not in data:
            data += self._recv()
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines[1:]]
        named = {k.lower(): v for k, v in headers}
        wire = len(head) + 4
        if "content-length" in named:
            length = int(named["content-length"])
            while len(body) < length:
                body += self._recv()
            wire += len(body)
        elif named.get("transfer-encoding") == "chunked":
            while not body.endswith(b"0\r\n\r\n"):  # gunicorn's last chunk (no trailers)
                body += self._recv()
            wire += len(body)
            body = dechunk(body)
        else:  # no length: the body ends with the connection
            try:
                while True:
                    body += self._recv()
            except Closed:
                pass
            wire += len(body)
            self.close()
        if named.get("connection", "").lower() == "close":
            self.close()
        return Answer(int(lines[0].split()[1]), headers, body, wire)


def dechunk(data: bytes) -> bytes:
    out, at = b"", 0
    while True:
        end = data.index(b"\r\n", at)
        size = int(data[at:end].split(b";")[0], 16)
        if not size:
            return out
        out += data[end + 2 : end + 2 + size]
        at = end + 2 + size + 2


class Feed:
    """A page's stream as EventSource holds it: a connection of its own, its messages read as
    they come (chunked, as gunicorn sends a response of no length)."""

    def __init__(self, port: int):
        self.address = ("127.0.0.1", port)
        self.sock: socket.socket | None = None
        self.raw = b""  # received, not yet taken apart into chunks
        self.text = b""  # the stream's text, not yet taken apart into messages

    def open(self, request: bytes) -> tuple[int, int]:
        """The stream asked for: (its status, the bytes of the answer's head)."""
        self.close()
        self.sock = socket.create_connection(self.address, timeout=120)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            more = self.sock.recv(65536)
            if not more:
                raise Closed
            data += more
        head, _, self.raw = data.partition(b"\r\n\r\n")
        self.text = b""
        status = int(head.split(b" ", 2)[1])
        if status != 200:
            self.close()
        return status, len(head) + 4

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def read(self, timeout: float) -> tuple[list[bytes], int]:
        """The messages' data come within ``timeout`` seconds, and the bytes received."""
        poll = select.poll()
        poll.register(self.sock, select.POLLIN)
        received = 0
        if poll.poll(max(0, int(timeout * 1000))):
            more = self.sock.recv(65536)
            if not more:
                raise Closed
            received, self.raw = len(more), self.raw + more
        while b"\r\n" in self.raw:  # whole chunks only
            line, _, rest = self.raw.partition(b"\r\n")
            size = int(line.split(b";")[0], 16)
            if len(rest) < size + 2:
                break
            self.text += rest[:size]
            self.raw = rest[size + 2 :]
            if not size:
                raise Closed
        messages = []
        while b"\n\n" in self.text:
            message, _, self.text = self.text.partition(b"\n\n")
            data = [line[5:].strip() for line in message.split(b"\n") if line.startswith(b"data:")]
            if data:
                messages.append(b"\n".join(data))
        return messages, received


@dataclass
class Tally:
    """What one kind of request cost on the client's side."""

    requests: int = 0
    received: int = 0
    sent: int = 0
    seconds: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)


class Browser:
    """Cookies kept, requests as a phone's browser sends them, each counted by its kind."""

    def __init__(self, port: int):
        self.host = f"127.0.0.1:{port}"
        self.wire = Wire(port)
        self.cookies: dict[str, str] = {}
        self.tallies: dict[str, Tally] = defaultdict(Tally)

    def request(self, kind: str, method: str, path: str, headers=None, body=b"") -> Answer:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}"]
        lines += [f"{k}: {v}" for k, v in {**BROWSER, **(headers or {})}.items()]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if body:
            lines.append(f"Content-Length: {len(body)}")
        request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
        started = time.monotonic()
        answer = self.wire.exchange(request)
        tally = self.tallies[kind]
        tally.seconds.append(time.monotonic() - started)
        tally.requests += 1
        tally.received += answer.received
        tally.sent += len(request)
        tally.statuses[answer.status] += 1
        for name, value in answer.headers:
            if name.lower() == "set-cookie":
                cookie, _, rest = value.partition("=")
                self.cookies[cookie.strip()] = rest.split(";", 1)[0]
        return answer

    def post(self, kind: str, path: str, fields: dict) -> Answer:
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": f"http://{self.host}",
            "Referer": f"http://{self.host}{path}",
            "Accept": "text/html",
        }
        return self.request(kind, "POST", path, headers, urlencode(fields).encode())


class Page(HTMLParser):
    """What live.js and clock.js read from a page: <body>'s data- attributes (or, on a page
    that is not otherwise live, its clock's), the live regions (id -> state held) and each
    clock's clock.json (those read every 15 seconds in case: ``in_case``, the clocks without
    data-marked)."""

    def __init__(self, html: str):
        super().__init__()
        self.source: dict[str, str] = {}
        self.regions: dict[str, str] = {}
        self.clocks: dict[str, str | None] = {}  # clock.json's URL -> the mark of the reading held
        self.in_case: list[str] = []
        self._marked = False  # the clock being read carries data-marked
        self._clock_script = False  # in the first JSON script after a data-clock element
        self._clock_open = False
        self._text = ""
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "body" and "data-version-url" in a:
            self.source = a
        if "data-clock" in a:
            self._clock_open, self._marked = True, "data-marked" in a
            if not self.source and "data-version-url" in a:
                self.source = a
        if "data-live" in a:
            self.regions[a["id"]] = a["data-live"]
        if tag == "script" and self._clock_open and a.get("type") == "application/json":
            self._clock_script, self._clock_open, self._text = True, False, ""

    def handle_data(self, data):
        if self._clock_script:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "script" and self._clock_script:
            self._clock_script = False
            config = json.loads(self._text)
            self.clocks[config["url"]] = config["clock"].get("mark")
            if not self._marked:
                self.in_case.append(config["url"])


class Phone(Browser):
    """A phone on one public page, doing what live.js and clock.js do, with no page."""

    def __init__(self, port: int, name: str, path: str, rng: random.Random):
        super().__init__(port)
        self.name, self.path = name, path
        self.check_offset, self.clock_offset = rng.random(), rng.random() * CLOCK_POLL
        self.answers: Counter = Counter()  # (region, whole | pieces | unchanged)
        self.whole_bytes = 0  # received in answers that carried a whole region
        self.skipped: Counter = Counter()  # timer ticks skipped while busy
        self.late = 0.0
        self.feed = Feed(port)

    def load(self) -> None:
        answer = self.request("load", "GET", self.path, {"Accept": "text/html"})
        assert answer.status == 200, (self.path, answer.status)
        page = Page(answer.body.decode())
        self.version_url = page.source["data-version-url"]
        self.refresh = int(page.source["data-refresh"])
        self.shown = page.source["data-version"]
        self.stream_url = page.source.get("data-stream-url")
        self.regions, self.clocks, self.in_case = page.regions, page.clocks, page.in_case
        self.wire.close()  # the page's load is over: the phone's timers start on a fresh line
        if self.stream_url:  # live.js opens the page's stream as it loads
            self.open_stream()
        self.tallies.clear()
        self.wire.connects = 0

    def json(self, kind: str, path: str, headers=None) -> dict | None:
        headers = {"Referer": f"http://{self.host}{self.path}", **(headers or {})}
        answer = self.request(kind, "GET", path, headers)
        return json.loads(answer.body) if answer.status == 200 else None

    def check(self) -> None:
        """live.js's check(): one request to the page, the version and, when it moved, each
        region's changes since the state held (a page without regions asks version.json); a
        region the answer could not bring up to date asks alone."""
        if not self.regions:
            answer = self.json("version.json", self.version_url)
        else:
            states = ",".join(f"{region}={held}" for region, held in self.regions.items())
            headers = {"X-Live-Version": self.shown, "X-Live-States": states}
            answer = self.json("check", self.path, headers)
        if answer is not None:
            self.settle(answer)

    def settle(self, answer: dict) -> bool:
        """live.js's settle(): an answer (a check's or a stream's message) taken; False when a
        region was asked alone."""
        if str(answer["version"]) == self.shown:
            return True
        for url, mark in self.clocks.items():  # "live-changed": clock.js reads clock.json again
            if not answer.get("clock") or answer["clock"] != mark:  # unless the check said its mark
                self.read_clock(url)
        answered = answer.get("regions", {})
        brought = [
            self.take(region, answered[region], 0)
            if region in answered
            else self.refresh_region(region) and False
            for region in list(self.regions)
        ]
        self.shown = str(answer["version"])
        return all(brought)

    def open_stream(self) -> bool:
        """live.js's openStream(): the page's stream, saying what the phone holds; False when
        refused (204: the process serves no more streams)."""
        query = urlencode(
            {
                "page": self.path,
                "v": self.shown,
                "s": ",".join(f"{region}={held}" for region, held in self.regions.items()),
            }
        )
        lines = [f"GET {self.stream_url}?{query} HTTP/1.1", f"Host: {self.host}"]
        headers = {
            **BROWSER,
            "Accept": "text/event-stream",
            "Referer": f"http://{self.host}{self.path}",
        }
        lines += [f"{k}: {v}" for k, v in headers.items()]
        request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        status, head = self.feed.open(request)
        tally = self.tallies["stream"]
        tally.requests += 1
        tally.received += head
        tally.sent += len(request)
        tally.statuses[status] += 1
        return status == 200

    def read_clock(self, url: str) -> None:
        reading = self.json("clock.json", url)
        if reading is not None:
            self.clocks[url] = reading.get("mark")

    def take(self, region: str, body: dict, received: int) -> bool:
        held = self.regions[region]
        same = body["state"] == held
        self.answers[region, "whole" if "html" in body else "unchanged" if same else "pieces"] += 1
        if "html" in body:
            self.whole_bytes += received or len(json.dumps(body))
        self.regions[region] = body["state"]
        return True

    def refresh_region(self, region: str) -> bool:
        held = self.regions[region]
        headers = {"Referer": f"http://{self.host}{self.path}", "X-Live-Region": region}
        if held:
            headers["X-Live-State"] = held
        answer = self.request(f"region {region}", "GET", self.path, headers)
        if answer.status != 200:
            return False
        return self.take(region, json.loads(answer.body), answer.received)

    def follow(self, start: float, stop: threading.Event) -> None:
        """The page's timers from ``start`` (time.monotonic()) until ``stop``: a check every
        ``refresh`` seconds (a tick while a check is under way is skipped, as live.js's busy
        flag does), clock.json every 15 seconds for a clock whose page's checks do not say its
        mark. A page whose stream is open (load) takes its messages as they come instead of
        checking, from its first check's tick on (one the server refused checks)."""
        due = {"check": start + self.check_offset * self.refresh}
        every = {"check": float(self.refresh), "clock": CLOCK_POLL}
        if self.in_case:
            due["clock"] = start + self.clock_offset
        idle = start  # when the phone's last request ended
        try:
            while True:
                timer = min(due, key=due.get)
                if stop.wait(max(0.0, due[timer] - time.monotonic())):
                    return
                # late: how long after it was due (and the phone free) a timer ran
                self.late = max(self.late, time.monotonic() - max(due[timer], idle))
                if timer == "check" and self.feed.sock is not None:  # its stream is open
                    del due["check"]
                    self.streamed(due, every, stop)
                    return
                if timer == "check":
                    self.check()
                else:
                    for url in self.in_case:
                        self.read_clock(url)
                idle = time.monotonic()
                due[timer] += every[timer]
                while due[timer] < idle:
                    due[timer] += every[timer]
                    self.skipped[timer] += 1
        finally:
            self.wire.close()
            self.feed.close()

    def streamed(self, due: dict, every: dict, stop: threading.Event) -> None:
        """The stream's messages taken as they come until ``stop`` (and clock.json read in
        case, every 15 seconds); the stream opened again after a message the page could not
        take whole, or when the server closed it."""
        while not stop.is_set():
            wait = min([*due.values(), time.monotonic() + 0.2]) - time.monotonic()
            try:
                messages, received = self.feed.read(wait)
            except (Closed, ConnectionResetError):
                self.open_stream()
                continue
            self.tallies["stream"].received += received
            for message in messages:
                if not self.settle(json.loads(message)):
                    self.open_stream()
                    break
            for timer in [t for t, at in due.items() if at <= time.monotonic()]:
                for url in self.in_case:
                    self.read_clock(url)
                due[timer] += every[timer]


class Writer(Browser):
    """A director, logged in once, saving a round every ``SAVE_EVERY`` seconds at the tables
    in turn through the entry form, as a browser does: the form (its CSRF token), the post, the
    page the post redirects to. Each save on a line of its own, started at its second, as
    saves at different tables come from different phones: a slow answer delays no other."""

    def __init__(self, port: int, entries: list[str]):
        super().__init__(port)
        self.port, self.entries = port, entries
        self.lines: list[Browser] = []
        self.saves: list[float] = []
        self.refused: Counter = Counter()
        self.lock = threading.Lock()
        self.forms: list[dict] = []  # each save's form, as its table's page holds it

    def log_in(self, username: str, password: str) -> None:
        from tests.hall import Form

        page = self.request("log-in", "GET", "/accounts/login/")
        form = next(f for f in Form(page.body.decode()).forms if "password" in f["fields"])
        fields = {**form["fields"], "username": username, "password": password}
        answer = self.post("log-in", "/accounts/login/", fields)
        assert answer.status == 302, ("log-in", answer.status, answer.body[:300])
        self.tallies.clear()
        self.wire.close()

    def open_forms(self, saves: int) -> None:
        """The entry page of each table the run saves at, as its scorekeeper has it open
        before the run (as each phone has its page): after a save, the page the post
        redirects to is the next round's form."""
        from tests.hall import Form

        for n in range(saves):
            page = self.request("load", "GET", self.entries[n % len(self.entries)])
            assert page.status == 200, page.status
            self.forms.append(Form(page.body.decode()).named(id="round-form"))
        self.wire.close()
        self.tallies.clear()

    def save(self, line: Browser, n: int) -> None:
        entry, form = self.entries[n % len(self.entries)], self.forms[n]
        fields = dict(form["fields"])
        players = [name for name in fields if re.fullmatch(r"p\d+", name)]
        for name, pips in zip(players, [0, 5 + n % 17, 12, 30], strict=False):
            fields[name] = str(pips)
        started = time.monotonic()
        answer = line.post("entry POST", entry, fields)
        if answer.status != 302:
            with self.lock:
                self.refused[f"post {answer.status}"] += 1
            return
        self.saves.append(time.monotonic() - started)
        location = {k.lower(): v for k, v in answer.headers}["location"]
        line.request("entry GET", "GET", location, {"Accept": "text/html"})  # the redirect
        line.wire.close()

    def play(self, start: float, seconds: float, stop: threading.Event) -> None:
        """Saves at ``start``, a second later, ... for ``seconds``; returns once all are done."""
        threads = []
        while len(threads) * SAVE_EVERY < seconds:
            if stop.wait(max(0.0, start + len(threads) * SAVE_EVERY - time.monotonic())):
                break
            line = Browser(self.port)
            line.cookies = dict(self.cookies)
            self.lines.append(line)
            threads.append(threading.Thread(target=self.save, args=(line, len(threads))))
            threads[-1].start()
        for thread in threads:
            thread.join()


# The run.


def build(players: int, rounds: int, director, seed: int = 7):
    """``players`` players seated at Game 1's tables of 4, ``rounds`` rounds played at every
    table, the clock running: the event and its tables."""
    from django.db import transaction

    from scoring.services.simulation import simulate_table
    from tests.factories import make_event, make_players, seat
    from tournament.services.clock import start_clock

    event = make_event(director, name=f"Hall {players}", slug=f"hall-{players}")
    make_players(event, count=players)
    stage = seat(event)
    tables = list(stage.tables.order_by("number"))
    with transaction.atomic():
        for table in tables:
            simulate_table(table, seed, director, rounds=rounds)
    start_clock(stage, director)
    return event, tables


def watched(count: int, slug: str, tables: int) -> list[tuple[str, str]]:
    """(page name, path) of each of ``count`` phones, spread over WATCHED by its shares; a
    table's page is a table of its own (spread over every table)."""
    out = []
    for i in range(count):
        at, spot = (i + 0.5) / count, 0.0
        for name, path, share in WATCHED:
            spot += share
            if at < spot or name == WATCHED[-1][0]:
                out.append((name, path.format(slug=slug, table=1 + (i * 37) % tables)))
                break
    return out


def run(
    phones: int = PHONES,
    players: int = PLAYERS,
    seconds: float = SECONDS,
    rounds: int = ROUNDS,
    workers: int | None = None,
    still: bool = False,
) -> int:
    """Build, serve, play and print; the number of targets missed. ``still``: no round is
    saved (what the phones' checks cost when every answer is one already made)."""
    from django.db import connection

    from tests.factories import make_director

    password = "a-Long-pass-phrase-42"  # noqa: S105 (a throwaway database's director)
    director = make_director(password=password)
    started = time.perf_counter()
    event, tables = build(players, rounds, director)
    print()
    print(
        f"Hall during play (issue 32 item 4): {players:,} players at {len(tables)} tables, "
        f"{rounds} rounds played, the clock running; built in {time.perf_counter() - started:.0f} s"
    )
    entries = [f"/director/e/{event.slug}/1/table/{t.number}/enter/" for t in tables]
    with (
        tempfile.TemporaryDirectory(prefix="mt-bench-hall-") as tmp,
        Server(Path(tmp), workers) as server,
    ):
        rng = random.Random(7)
        crowd = [Phone(server.port, n, p, rng) for n, p in watched(phones, event.slug, len(tables))]
        with ThreadPoolExecutor(8) as pool:  # each page loaded once (warms both workers too)
            list(pool.map(Phone.load, crowd))
        writer = Writer(server.port, entries)
        writer.log_in(director.username, password)
        writer.open_forms(int(seconds / SAVE_EVERY) + 1)
        before_kinds = worker_cpu(server.cpu_folder, time.time())
        before_server, before_here = server_cpu(server.process.pid), time.process_time()
        opened = time.monotonic()
        start = opened + 0.2  # every phone's thread started by then
        stop = threading.Event()
        threads = [threading.Thread(target=p.follow, args=(start, stop)) for p in crowd]
        for thread in threads:
            thread.start()
        if not still:
            writer.play(start, seconds, stop)
        stop.wait(max(0.0, start + seconds - time.monotonic()))
        stop.set()
        for thread in threads:
            thread.join()
        wall = time.monotonic() - opened
        here = time.process_time() - before_here
        cpu = server_cpu(server.process.pid) - before_server
        after_kinds = worker_cpu(server.cpu_folder, time.time())
        kinds = {
            k: [v[0] - before_kinds.get(k, [0, 0.0])[0], v[1] - before_kinds.get(k, [0, 0.0])[1]]
            for k, v in after_kinds.items()
        }
    played = "no round saved (--still)" if still else f"a round saved every {SAVE_EVERY:g} s"
    print(
        f"  {phones} phones, {played} for {seconds:g} s; gunicorn "
        f"as `make hall` serves it (tournament/hall_server.py: {server.workers} processes), "
        f"{connection.vendor}; window {wall:.1f} s; {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    judged = phones == PHONES and players == PLAYERS and not still
    return report(judged, crowd, writer, kinds, wall, cpu, here)


def report(judged: bool, crowd, writer, kinds, wall, cpu, here) -> int:
    """Print the run's table and its PASS or FAIL lines; the number of targets missed."""
    saves, phones = len(writer.saves), len(crowd)
    # Per kind of request (the phones' and the writer's), with the server's CPU for them.
    client: dict[str, Tally] = defaultdict(Tally)
    for browser in [*crowd, writer, *writer.lines]:
        for kind, tally in browser.tallies.items():
            total = client[kind]
            total.requests += tally.requests
            total.received += tally.received
            total.sent += tally.sent
            total.seconds += tally.seconds
            total.statuses.update(tally.statuses)
    app = sum(spent for _, spent in kinds.values())
    rest = cpu - app  # gunicorn's own: connections, HTTP, the master
    print()
    print(
        f"  {'request':22} {'count':>6} {'per s':>6} {'KB in':>8} {'B each':>7} "
        f"{'ms wait':>8} {'CPU ms':>7} {'CPU %':>6}  statuses"
    )
    shown = {k for k, (count, _) in kinds.items() if count} | set(client)
    for kind in sorted(shown, key=lambda k: -kinds.get(k, [0, 0.0])[1]):
        tally, (count, spent) = client.get(kind, Tally()), kinds.get(kind, [0, 0.0])
        each = tally.received / tally.requests if tally.requests else 0
        wait = 1000 * statistics.median(tally.seconds) if tally.seconds else 0
        print(
            f"  {kind:22} {count:6d} {count / wall:6.1f} {tally.received / 1000:8.1f} "
            f"{each:7.0f} {wait:8.1f} {1000 * spent / max(count, 1):7.2f} "
            f"{100 * spent / wall:6.1f}  {dict(tally.statuses)}"
        )
    connects = sum(p.wire.connects for p in crowd)
    print(
        f"  {'gunicorn itself':22} {'':6} {'':6} {'':8} {'':7} {'':8} {'':7} "
        f"{100 * rest / wall:6.1f}  (the phones opened {connects} connections)"
    )
    received = sum(t.received for p in crowd for t in p.tallies.values())
    answers: Counter = Counter()
    skipped: Counter = Counter()
    for phone in crowd:
        answers.update(phone.answers)
        skipped.update(phone.skipped)
    whole = sum(p.whole_bytes for p in crowd)
    regions = sorted({region for region, _ in answers})
    said = "; ".join(
        f"{region} "
        + ", ".join(f"{how} {answers[region, how]}" for how in HOW if answers[region, how])
        for region in regions
    )
    print(f"  live regions answered: {said}")
    print(f"  the answers carrying a whole region: {whole / 1e6:.1f} MB of {received / 1e6:.1f} MB")
    # Per page watched: the bytes each phone received per saved round.
    print()
    per = "bytes per saved round" if saves else "bytes (none saved)"
    print(f"  {'page watched':14} {'phones':>6} {'requests':>8} {per:>22}")
    pages: dict[str, list[Phone]] = defaultdict(list)
    for phone in crowd:
        pages[phone.name].append(phone)
    for name, group in pages.items():
        got = sum(t.received for p in group for t in p.tallies.values())
        asked = sum(t.requests for p in group for t in p.tallies.values())
        print(f"  {name:14} {len(group):6d} {asked:8d} {got / max(saves, 1) / len(group):22,.0f}")
    sent = sum(t.sent for p in crowd for t in p.tallies.values())
    checks = client["version.json"].requests + client["check"].requests
    writing = sum(kinds.get(k, [0, 0.0])[1] for k in ("entry GET", "entry POST"))
    # The phones' share of the server's CPU, had every check their timers asked been made.
    full = writing + (cpu - writing) * (checks + skipped["check"]) / max(checks, 1)
    save_ms = 1000 * statistics.median(writer.saves) if writer.saves else 0
    print()
    print(
        f"  rounds saved: {saves} (the post: median {save_ms:.0f} ms); refused: "
        f"{dict(writer.refused) or 'none'}"
    )
    print(
        f"  phones: {received / max(saves, 1) / phones:,.0f} {per} per phone; "
        f"{received / wall / 1e6:.3f} MB/s received ({sent / wall / 1e6:.3f} MB/s sent)"
    )
    print(
        f"  server CPU: {cpu:.2f} s in {wall:.1f} s = {100 * cpu / wall:.1f} % of one core "
        f"(Django {100 * app / wall:.1f} %, gunicorn itself {100 * rest / wall:.1f} %), "
        f"{100 * cpu / wall * 100 / phones:.1f} % per 100 phones"
    )
    print(
        f"  checks made: {checks}; ticks skipped while a check was under way: "
        f"{skipped['check']} (the server behind)"
        + (
            f": at the full rate the server would need about {100 * full / wall:.0f} % "
            f"of one core (an estimate: the phones' CPU scaled by the checks asked)"
            if skipped["check"]
            else ""
        )
    )
    late = max(p.late for p in crowd)
    print(
        f"  load generator (this process, not the server): {100 * here / wall:.1f} % of one "
        f"core; a phone's timer at most {1000 * late:.0f} ms late"
    )
    failures = 0
    for what, value, limit, unit in [
        ("server CPU", 100 * cpu / wall, 100 * CPU_TARGET, "% of one core"),
        ("phones' bytes", received / wall / 1e6, BYTES_TARGET / 1e6, "MB/s"),
    ]:
        ok = value < limit
        if judged:
            failures += not ok
            verdict = "PASS" if ok else "FAIL"
        else:
            verdict = (
                f"(not judged: the target is for {PHONES} phones at {PLAYERS:,} players "
                "during play)"
            )
        print(
            f"  {verdict} {what}: {value:.2f} {unit}, target under {limit:g} {unit} "
            f"({PHONES} phones, {PLAYERS:,} players)"
        )
    return failures


def main(argv=None) -> int:
    from tests.bench import setup_django

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=PHONES, help=f"default {PHONES}")
    parser.add_argument("--players", type=int, default=PLAYERS, help=f"default {PLAYERS}")
    parser.add_argument("--seconds", type=float, default=SECONDS, help=f"default {SECONDS:g}")
    parser.add_argument(
        "--rounds", type=int, default=ROUNDS, help=f"played before (default {ROUNDS})"
    )
    parser.add_argument("--workers", type=int, help="gunicorn processes (HALL_WORKERS, 2)")
    parser.add_argument(
        "--still", action="store_true", help="no round saved: what the checks alone cost"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mt-bench-") as tmp:
        old_name = setup_django(Path(tmp))
        try:
            failures = run(
                args.phones, args.players, args.seconds, args.rounds, args.workers, args.still
            )
        finally:
            if old_name is not None:
                from django.db import connection

                connection.creation.destroy_test_db(old_name, verbosity=0)
    print(f"{'PASS' if not failures else 'FAIL'}: {failures} target(s) missed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
