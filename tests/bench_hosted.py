"""Benchmark: push on a hosted site (issue 48 item 3). Two application servers, started as the
README's "Deploying on PostgreSQL" starts them (gunicorn with ``-c
python:tournament.gunicorn_hooks``, 2 processes of 508 threads each, ``LIVE_STREAMS=500``,
DEBUG off), on PostgreSQL and Redis (``CACHE_URL``: the rendered pages and each beat's live
answers, tournament/streams.py ``CacheShared``), while phones follow the public pages of a
1,000-player event, half of them on each server, and a director saves a round every second
through the entry form on the first.

Run by ``make bench`` with ``--hosted`` (tests/bench.py), or alone:

    .venv/bin/python -m tests.bench_hosted --phones 2000 --players 1000 --seconds 30

The phones and the writer are tests/bench_hall.py's (what live.js and clock.js do, each phone
a keep-alive connection and its stream). A phone refused a stream (204: its server process
already serves 500) checks every LIVE_REFRESH_SECONDS instead, as live.js does.

Printed: the hall bench's table of requests, bytes and CPU (both servers together); then for
each server its CPU (gunicorn's master and workers, from /proc) in % of one core and per 300
phones; the pages each server's hubs rendered (checks) against the beats they ran: with the
answers shared through Redis a version is rendered once for the site, not once per process;
and the time from a save (its post answered) to every phone on an event-wide page (standings,
bracket, results, big screen: a table's page changes only with its own table) showing a version
at least as new: median and maximum over the saves. Targets: within one beat
(LIVE_REFRESH_SECONDS) and under 10 % of one core per 300 phones. The database is PostgreSQL
(DATABASE_URL, or the local server's ``postgres`` database's throwaway copy), Redis's
database 14 on 127.0.0.1:6379, emptied first.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests import bench_hall as hall

REDIS_DB = 14
PER_300 = 0.10  # of one core, per 300 phones
EVENT_WIDE = {"standings", "bracket", "results", "big screen"}


class HostedServer(hall.Server):
    """One application server as the README starts it, counting its CPU as the hall's does."""

    def __init__(self, folder: Path, redis: str):
        folder.mkdir()
        super().__init__(folder, workers=2)
        self.env.update({"LIVE_STREAMS": "500", "CACHE_URL": redis, "HALL": "0"})

    def __enter__(self) -> HostedServer:
        command = [sys.executable, "-m", "gunicorn", "-c", "python:tournament.gunicorn_hooks"]
        command += ["-b", f"127.0.0.1:{self.port}", "--workers", "2", "--threads", "508"]
        command += ["--timeout", "60", "tests.bench_hall:served()"]
        self.process = hall.subprocess.Popen(  # noqa: S603 (our gunicorn)
            command, cwd=hall.ROOT, env=self.env, stdout=self.log, stderr=self.log
        )
        deadline = time.monotonic() + 60
        while len(list(self.cpu_folder.glob("*.json"))) < self.workers:
            if self.process.poll() is not None or time.monotonic() > deadline:
                said = self.output()
                self.__exit__()
                raise RuntimeError("gunicorn did not start:\n" + said)
            time.sleep(0.1)
        return self


class Phone(hall.Phone):
    """bench_hall's phone, noting when the version it shows moves (monotonic time)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.moves: list[tuple[float, int]] = []
        self.streaming = False

    def load(self) -> None:
        super().load()
        self.streaming = self.feed.sock is not None  # its stream opened, not refused

    def settle(self, answer: dict) -> bool:
        before = self.shown
        taken = super().settle(answer)
        if self.shown != before:
            self.moves.append((time.monotonic(), int(self.shown)))
        return taken


class Writer(hall.Writer):
    """bench_hall's writer, noting each save's moment and the event's version after it."""

    def __init__(self, port: int, entries: list[str], event_id: int):
        super().__init__(port, entries)
        self.event_id = event_id
        self.versions: list[tuple[float, int]] = []

    def save(self, line, n: int) -> None:
        done = len(self.saves)
        super().save(line, n)
        if len(self.saves) > done:
            from django.db import connection

            from tournament.models import Event

            at = time.monotonic()
            version = Event.objects.values_list("version", flat=True).get(pk=self.event_id)
            connection.close()  # this save's thread ends
            with self.lock:
                self.versions.append((at, version))


def empty_redis(db: int) -> str:
    with socket.create_connection(("127.0.0.1", 6379), timeout=10) as redis:
        redis.sendall(f"*2\r\n$6\r\nSELECT\r\n${len(str(db))}\r\n{db}\r\n".encode())
        redis.sendall(b"*1\r\n$7\r\nFLUSHDB\r\n")
        answer = b""
        while answer.count(b"\r\n") < 2:
            answer += redis.recv(100)
    assert answer == b"+OK\r\n+OK\r\n", answer
    return f"redis://127.0.0.1:6379/{db}"


def delays(writer: Writer, crowd: list[Phone]) -> list[float]:
    """For each save whose version some phone showed: the seconds until every phone on an
    event-wide page showed that version or a newer one (a phone that never did: not counted,
    the run's end came first)."""
    watching = [p for p in crowd if p.name in EVENT_WIDE]
    out = []
    for saved_at, version in writer.versions:
        shown = []
        for phone in watching:
            at = next((t for t, v in phone.moves if v >= version), None)
            if at is None:
                break
            shown.append(max(0.0, at - saved_at))
        else:
            if shown:
                out.append(max(shown))
    return out


def run(phones: int = 2000, players: int = hall.PLAYERS, seconds: float = hall.SECONDS) -> int:
    from django.db import connection

    from tests.factories import make_director

    assert connection.vendor == "postgresql", "the hosted bench runs on PostgreSQL"
    password = "a-Long-pass-phrase-42"  # noqa: S105 (a throwaway database's director)
    director = make_director(password=password)
    started = time.perf_counter()
    event, tables = hall.build(players, hall.ROUNDS, director)
    connection.close()  # the servers and the writer's threads use their own
    print()
    print(
        f"Push on a hosted site (issue 48 item 3): {players:,} players at {len(tables)} "
        f"tables; built in {time.perf_counter() - started:.0f} s"
    )
    entries = [f"/director/e/{event.slug}/1/table/{t.number}/enter/" for t in tables]
    redis = empty_redis(REDIS_DB)
    with (
        tempfile.TemporaryDirectory(prefix="mt-bench-hosted-") as tmp,
        HostedServer(Path(tmp) / "one", redis) as one,
        HostedServer(Path(tmp) / "two", redis) as two,
    ):
        servers = [one, two]
        rng = random.Random(7)
        pages = hall.watched(phones, event.slug, len(tables))
        crowd = [Phone(servers[i % 2].port, n, p, rng) for i, (n, p) in enumerate(pages)]
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(Phone.load, crowd))
        writer = Writer(one.port, entries, event.pk)
        writer.log_in(director.username, password)
        writer.open_forms(int(seconds / hall.SAVE_EVERY) + 1)
        connection.close()
        before = [hall.worker_cpu(s.cpu_folder, time.time()) for s in servers]
        cpu_before = [hall.server_cpu(s.process.pid) for s in servers]
        here_before = time.process_time()
        opened = time.monotonic()
        start = opened + 0.5
        stop = threading.Event()
        threads = [threading.Thread(target=p.follow, args=(start, stop)) for p in crowd]
        for thread in threads:
            thread.start()
        writer.play(start, seconds, stop)
        stop.wait(max(0.0, start + seconds + hall.SAVE_EVERY * 3 - time.monotonic()))
        stop.set()
        for thread in threads:
            thread.join()
        wall = time.monotonic() - opened
        here = time.process_time() - here_before
        cpu = [hall.server_cpu(s.process.pid) - b for s, b in zip(servers, cpu_before, strict=True)]
        after = [hall.worker_cpu(s.cpu_folder, time.time()) for s in servers]
    kinds: dict[str, list] = {}
    for b, a in zip(before, after, strict=True):
        for k, v in a.items():
            was = b.get(k, [0, 0.0])
            kind = kinds.setdefault(k, [0, 0.0])
            kind[0] += v[0] - was[0]
            kind[1] += v[1] - was[1]
    from django.conf import settings

    beat = settings.LIVE_REFRESH_SECONDS
    print(
        f"  {phones} phones (half on each server), a round saved every {hall.SAVE_EVERY:g} s for "
        f"{seconds:g} s; two servers as the README starts them (2 processes, 508 threads, "
        f"LIVE_STREAMS=500 each), PostgreSQL and Redis; window {wall:.1f} s; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    )
    failures = hall.report(False, crowd, writer, kinds, wall, sum(cpu), here)
    streamed = sum(p.streaming for p in crowd)
    print()
    print(f"  phones on a stream: {streamed} of {phones} (the others refused: they check)")
    for name, server_cpu, b, a in zip(("one", "two"), cpu, before, after, strict=True):
        beats = a["hub: beats"][0] - b.get("hub: beats", [0, 0.0])[0]
        checks = a["hub: checks"][0] - b.get("hub: checks", [0, 0.0])[0]
        share = 100 * server_cpu / wall
        print(
            f"  server {name}: CPU {share:.1f} % of one core, "
            f"{share * 300 / (phones / 2):.1f} % per 300 phones; its hubs rendered {checks} "
            f"answers in {beats} beats"
        )
    took = delays(writer, crowd)
    if took:
        print(
            f"  from a save to every phone on an event-wide page showing it: median "
            f"{statistics.median(took):.2f} s, max {max(took):.2f} s over {len(took)} saves "
            f"(one beat: {beat} s)"
        )
    else:
        print("  no save was seen by every phone before the run ended")
        failures += 1
    per_300 = 100 * sum(cpu) / wall * 300 / phones
    for what, value, limit, unit in [
        ("CPU per 300 phones", per_300, 100 * PER_300, "% of one core"),
        ("save to every phone, median", statistics.median(took) if took else 1e9, beat, "s"),
    ]:
        ok = value < limit
        failures += not ok
        print(f"  {'PASS' if ok else 'FAIL'} {what}: {value:.2f} {unit}, target under {limit:g}")
    return failures


def main(argv=None) -> int:
    from tests.bench import setup_django

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=2000, help="default 2000")
    parser.add_argument("--players", type=int, default=hall.PLAYERS)
    parser.add_argument("--seconds", type=float, default=hall.SECONDS)
    args = parser.parse_args(argv)
    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    with tempfile.TemporaryDirectory(prefix="mt-bench-") as tmp:
        old_name = setup_django(Path(tmp))
        try:
            failures = run(args.phones, args.players, args.seconds)
        finally:
            if old_name is not None:
                from django.db import connection

                connection.creation.destroy_test_db(old_name, verbosity=0)
    print(f"{'PASS' if not failures else 'FAIL'}: {failures} target(s) missed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
