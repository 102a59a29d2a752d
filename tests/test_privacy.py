"""Anonymous pages and exports show names, clubs, tables and scores only (issue 13): no
registration id, no infraction note, no username, anywhere a visitor can reach by following
links from the event's home page, PDFs and spreadsheets included. The directors' exports keep
everything."""

import csv
import io
import re
from urllib.parse import urljoin, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from openpyxl import load_workbook
from pypdf import PdfReader

from scoring.services.infractions import log_infraction
from tests.factories import make_event, make_players, play, seat
from tournament.models import Player, Table

pytestmark = pytest.mark.django_db

SECRETS = ("REGID-7Q4X", "NOTE-ZEBRA-SECRET", "keeper-kq9w")


@pytest.fixture
def private_event(director):
    event = make_event(director, name="Privacy Open", slug="privacy", engines=[2, 1, 0])
    make_players(event, count=8, club="Reno Club")
    for i, p in enumerate(Player.objects.filter(event=event)):
        p.ref = f"REGID-7Q4X-{i}"
        p.save()
    stage = seat(event)
    keeper = get_user_model().objects.create_user("keeper-kq9w")
    tables = list(Table.objects.filter(stage=stage))
    for table in tables:
        table.scorekeepers.add(keeper)
        play(table, 3, user=keeper)
    first = tables[0]
    player = first.seats.first().player
    log_infraction(first, player, 2, "other", "NOTE-ZEBRA-SECRET played early", keeper)
    log_infraction(first, player, 1, "other", "NOTE-ZEBRA-SECRET again", keeper)
    return event


def text_of(response) -> str:
    kind = response.get("Content-Type", "")
    body = b"".join(response.streaming_content) if response.streaming else response.content
    if "pdf" in kind:
        return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(body)).pages)
    if "spreadsheetml" in kind:
        book = load_workbook(io.BytesIO(body))
        return "\n".join(
            str(cell.value) for sheet in book for row in sheet.iter_rows() for cell in row
        )
    return body.decode("utf-8", "replace")


def crawl(client, start: str, limit: int = 250) -> dict[str, str]:
    """Every page, PDF and export of the event reachable by links, as text."""
    seen: dict[str, str] = {}
    queue = [start]
    while queue and len(seen) < limit:
        url = queue.pop(0)
        if url in seen:
            continue
        response = client.get(url)
        if response.status_code != 200:
            seen[url] = ""
            continue
        seen[url] = text = text_of(response)
        if "text/html" not in response.get("Content-Type", ""):
            continue
        for href in re.findall(r'href="([^"#]+)', text):
            href = urljoin(url, href.replace("&amp;", "&"))
            parts = urlsplit(href)
            if parts.netloc or not parts.path.startswith("/e/privacy/"):
                continue
            if "sort=" in parts.query:  # the same rows in another order
                continue
            queue.append(href)
    return seen


def test_no_id_note_or_username_on_any_anonymous_page_or_export(private_event):
    pages = crawl(Client(), "/e/privacy/")
    kinds = " ".join(pages)
    assert ".pdf" in kinds and "_export=csv" in kinds and "_export=xlsx" in kinds
    assert "/table/1/" in kinds and "/player/" in kinds
    for url, text in pages.items():
        for secret in SECRETS:
            assert secret not in text, f"{secret} shown at {url}"
    # The crawl saw the names, clubs and scores.
    assert any("Player 01" in text for text in pages.values())


def test_the_directors_exports_keep_the_ids_and_notes(director_client, private_event):
    rows = director_client.get("/e/privacy/round-scores/?_export=csv")
    text = text_of(rows)
    assert "REGID-7Q4X-0" in text
    standings = text_of(director_client.get("/e/privacy/1/standings/export/?_export=csv"))
    assert "REGID-7Q4X" in standings
    table = Table.objects.get(stage__event=private_event, stage__number=1, number=1)
    page = director_client.get(table.get_absolute_url()).content.decode()
    assert "NOTE-ZEBRA-SECRET" in page


def test_the_public_csv_opens_in_excel(private_event):
    body = Client().get("/e/privacy/round-scores/?_export=csv").content
    assert body.startswith("\ufeff".encode())
    header = next(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    assert "Player id" not in header and "Player" in header
