"""Benchmark: a 250-table stage, its score sheets as one PDF, its standings page.

Run with ``make bench`` (``.venv/bin/python -m tests.bench``). Not a test: it asserts nothing
about time, it prints the figures. It sets Django up itself on a throwaway SQLite database
(a temporary file through DATABASE_URL), migrates it, builds the event with the tests'
factories and the scoring services, then times each page through Django's test client.

    .venv/bin/python -m tests.bench --tables 250 --rounds 13
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=250, help="tables of 4 (default 250)")
    parser.add_argument("--rounds", type=int, default=13, help="rounds played (default 13)")
    parser.add_argument("--repeat", type=int, default=3, help="timings of each HTML page")
    return parser.parse_args(argv)


def setup_django(database: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()  # the test client's host is allowed, e-mail stays in memory
    call_command("migrate", verbosity=0)


def build_stage(tables: int, rounds: int):
    """An event whose Game 1 seats ``tables`` tables of 4, each with ``rounds`` rounds."""
    from tests.factories import make_director, make_event, make_players, play, seat

    event = make_event(make_director(), name="Benchmark Open", slug="bench")
    make_players(event, count=tables * 4)
    stage = seat(event)
    for table in stage.tables.all():
        play(table, rounds)
    return stage


def timed(client, path: str):
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    reset_queries()  # DEBUG keeps the last 9,000 queries only: count from an empty log
    with CaptureQueriesContext(connection) as queries:
        start = time.perf_counter()
        response = client.get(path)
        seconds = time.perf_counter() - start
    assert response.status_code == 200, (path, response.status_code)
    return seconds, response, len(queries)


def pdf_pages(content: bytes) -> int:
    from pypdf import PdfReader

    return len(PdfReader(io.BytesIO(content)).pages)


def main(argv=None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mt-bench-") as tmp:
        setup_django(Path(tmp) / "bench.sqlite3")
        from django.test import Client

        print(f"Building a stage of {args.tables} tables of 4, {args.rounds} rounds each...")
        start = time.perf_counter()
        stage = build_stage(args.tables, args.rounds)
        print(f"  built in {time.perf_counter() - start:.1f} s ({stage.tables.count()} tables)")

        client = Client()
        base = f"/e/{stage.event.slug}/{stage.number}/"
        print()
        print(f"{'what':38} {'seconds':>8} {'queries':>8}  size")

        for what, path in [
            ("standings page (HTML)", base),
            ("seating page (HTML)", f"{base}seating/"),
        ]:
            runs = [timed(client, path) for _ in range(args.repeat)]
            seconds = statistics.median(r[0] for r in runs)
            size = len(runs[0][1].content)
            print(
                f"{what:38} {seconds:8.3f} {runs[0][2]:8d}  {size / 1024:.0f} KiB HTML"
                f" (median of {args.repeat})"
            )

        from scoring.printing import table_blocks

        blocks = table_blocks(stage.tables.count())
        for what, pdf in [
            ("all score sheets, filled (PDF)", "sheets.pdf"),
            ("all score sheets, blank (PDF)", "blank-sheets.pdf"),
        ]:
            # A stage's sheets are served 50 tables a request: time every block, add them up.
            runs = [timed(client, f"{base}{pdf}?tables={a}-{b}") for a, b in blocks]
            seconds = sum(r[0] for r in runs)
            pages = sum(pdf_pages(r[1].content) for r in runs)
            print(
                f"{what:38} {seconds:8.3f} {max(r[2] for r in runs):8d}  "
                f"{sum(len(r[1].content) for r in runs) / 1024:.0f} KiB, {pages} page(s) in "
                f"{len(runs)} request(s), {1000 * seconds / pages:.0f} ms a page, "
                f"slowest request {max(r[0] for r in runs):.1f} s"
            )

        for what, path in [
            ("standings (PDF)", f"{base}standings.pdf"),
            ("seating list (PDF)", f"{base}seating.pdf"),
            ("bracket, one page (PDF)", f"/e/{stage.event.slug}/bracket.pdf"),
        ]:
            seconds, response, queries = timed(client, path)
            pages = pdf_pages(response.content)
            per_page = f", {1000 * seconds / pages:.0f} ms a page" if pages > 1 else ""
            print(
                f"{what:38} {seconds:8.3f} {queries:8d}  {len(response.content) / 1024:.0f} KiB"
                f", {pages} page(s){per_page}"
            )

        for what, path in [
            ("standings export (CSV)", f"{base}standings/export/?_export=csv"),
            ("standings export (Excel)", f"{base}standings/export/?_export=xlsx"),
            ("every round score (CSV)", f"/e/{stage.event.slug}/round-scores/?_export=csv"),
            ("every round score (Excel)", f"/e/{stage.event.slug}/round-scores/?_export=xlsx"),
        ]:
            seconds, response, queries = timed(client, path)
            print(f"{what:38} {seconds:8.3f} {queries:8d}  {len(response.content) / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
