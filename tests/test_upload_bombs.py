"""Registration lists built to hold a web worker (issue 27): a workbook of a million empty rows,
one that says it is 1,048,576 rows by 16,384 columns, a million shared strings, a CSV of a
million lines, a field of 100 MB. Each is uploaded through the players' import page as a
director does: it is refused with a message that says why, nothing is kept, and the reading
stopped at its limit (the rows and XML elements it read are counted, its memory measured)."""

import io
import tracemalloc
import zipfile
from contextlib import contextmanager

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from openpyxl import Workbook

from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_director
from tests.importing import confirm, import_list, upload
from tests.test_players import xlsx_bytes
from tournament import registration
from tournament.models import ListReading
from tournament.registration import (
    MAX_CELLS,
    MAX_READ_ROWS,
    MAX_SHEET_ELEMENTS,
)
from tournament.services.registration import read_later

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def read_in_the_request(settings):
    """Each list is read within its upload's request, unless a test says otherwise (the
    background reading of a large list is tested at the end, with the same limits)."""
    settings.REGISTRATION_IN_REQUEST_BYTES = 2_000_000


MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
HEADER_ROW = '<row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c></row>'
STRINGS_TYPE = (
    '<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
)
MEMORY_BOUND = 60_000_000  # bytes: a few copies of a 2 MB upload, never the bomb unpacked


def sheet_xml(rows: str, ref: str | None = None) -> bytes:
    """A first sheet: a header row, then ``rows``; its declared size when ``ref`` is given
    (openpyxl reads no row past a declared size: a bomb declares none, or a huge one)."""
    dimension = f'<dimension ref="{ref}"/>' if ref else ""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="{MAIN}">'
        f"{dimension}<sheetData>{HEADER_ROW}{rows}</sheetData></worksheet>"
    ).encode()


def strings_xml(items: str) -> bytes:
    return f'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="{MAIN}">{items}</sst>'.encode()


def two_sheets() -> bytes:
    book = Workbook()
    book.active.append(["Name"])
    book.active.append(["Ann"])
    book.create_sheet("Notes").append(["Bring a pen"])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def workbook_with(**parts: bytes) -> bytes:
    """A real workbook (made by openpyxl) with some parts replaced: ``sheet`` (the first
    sheet's XML), ``strings`` (the shared strings), any other ``name=...`` as it comes."""
    names = {"sheet": "xl/worksheets/sheet1.xml", "strings": "xl/sharedStrings.xml"}
    parts = {names.get(k, k): v for k, v in parts.items()}
    source = zipfile.ZipFile(io.BytesIO(two_sheets()))
    if "xl/sharedStrings.xml" in parts:  # openpyxl writes none: the manifest names it
        types = source.read("[Content_Types].xml").decode()
        parts["[Content_Types].xml"] = types.replace("</Types>", f"{STRINGS_TYPE}</Types>").encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as book:
        for info in source.infolist():
            book.writestr(info.filename, parts.pop(info.filename, source.read(info.filename)))
        for name, data in parts.items():
            book.writestr(name, data)
    return out.getvalue()


@contextmanager
def measured(monkeypatch):
    """What a reading took: the rows it counted, the XML elements it streamed, its peak memory."""
    work = {"rows": 0, "elements": 0}
    row, run = registration.Budget.row, registration._Scan.run

    def counting_row(self, number, cells):
        work["rows"] += 1
        return row(self, number, cells)

    def counting_run(self, archive):
        try:
            return run(self, archive)
        finally:
            work["elements"] += self.elements

    monkeypatch.setattr(registration.Budget, "row", counting_row)
    monkeypatch.setattr(registration._Scan, "run", counting_run)
    tracemalloc.start()
    try:
        yield work
        work["peak"] = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def assert_refused(response, event, message: str):
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="preview-form"' not in page
    assert message in page, page
    assert "Nothing was imported: correct the file and upload it again." in page
    assert not event.players.exists()
    assert f"players-import-{event.pk}" not in response.client.session


BOMBS = {
    # Empty rows are rows: the sheet's million of them is refused at the ten thousandth...
    "empty rows": (
        lambda: workbook_with(sheet=sheet_xml("<row/>" * 80_000)),
        "The list has more than 10,000 rows, empty ones included",
    ),
    # ... and so is one row numbered 1,048,576 (openpyxl would give each row before it).
    "last row of the sheet": (
        lambda: workbook_with(sheet=sheet_xml('<row r="1048576"/>')),
        "The list has more than 10,000 rows, empty ones included",
    ),
    "a million empty rows packed 1000 to 1": (
        lambda: workbook_with(sheet=sheet_xml("<row/>" * 1_000_000)),
        "The workbook&#x27;s part xl/worksheets/sheet1.xml unpacks to more than 100 times",
    ),
    "whole-sheet dimension": (
        lambda: workbook_with(sheet=sheet_xml('<row r="1048576"/>', ref="A1:XFD1048576")),
        "The workbook&#x27;s first sheet says it is 1,048,576 rows by 16,384 columns",
    ),
    "a row of 240,000 cells": (
        lambda: workbook_with(sheet=sheet_xml('<row r="2">' + "<c/>" * 240_000 + "</row>")),
        "The list has more than 200,000 cells",
    ),
    "a value in column 200": (
        lambda: workbook_with(sheet=sheet_xml('<row r="2"><c r="GR2"><v>1</v></c></row>')),
        "Row 2 has more than 100 columns",
    ),
    "250,000 shared strings": (
        lambda: workbook_with(
            strings=strings_xml("".join(f"<si><t>{i:x}</t></si>" for i in range(250_000)))
        ),
        "The workbook has more than 200,000 texts",
    ),
    "a shared string of 100,000 runs": (
        lambda: workbook_with(strings=strings_xml("<si>" + "<r><t>a</t></r>" * 50_000 + "</si>")),
        "The workbook&#x27;s part xl/sharedStrings.xml is too complex to read",
    ),
    "a style sheet of 150,000 formats": (
        lambda: workbook_with(
            **{
                "xl/styles.xml": (
                    f'<styleSheet xmlns="{MAIN}"><cellXfs>{"<xf/>" * 150_000}</cellXfs>'
                    "</styleSheet>"
                ).encode()
            }
        ),
        "The workbook&#x27;s part xl/styles.xml is too complex to read",
    ),
    # Another sheet is read up to its rows only (its size): what comes before them is counted.
    "150,000 columns' widths before a second sheet's rows": (
        lambda: workbook_with(
            **{
                "xl/worksheets/sheet2.xml": (
                    f'<worksheet xmlns="{MAIN}"><cols>{"<col/>" * 150_000}</cols>'
                    "<sheetData/></worksheet>"
                ).encode()
            }
        ),
        "The workbook&#x27;s part xl/worksheets/sheet2.xml is too complex to read",
    ),
    "25 MB unpacked": (
        lambda: workbook_with(**{"xl/media/blank.txt": b" " * 25_000_000}),
        "Unpacked, the workbook is larger than 20 MB",
    ),
    "2,000 parts": (
        lambda: workbook_with(**{f"xl/media/{i}.txt": b"" for i in range(2000)}),
        "The workbook has more than 1,000 parts",
    ),
}


@pytest.mark.parametrize("bomb", BOMBS)
def test_a_workbook_bomb_is_refused_within_bounds_and_nothing_is_kept(
    director_client, event, monkeypatch, bomb
):
    build, message = BOMBS[bomb]
    data = build()
    assert len(data) < 2_000_000  # within the upload's limit: the reading must refuse it
    with measured(monkeypatch) as work:
        response = upload(director_client, event.slug, data, "players.xlsx")
    assert_refused(response, event, message)
    assert work["rows"] <= MAX_READ_ROWS + 1
    assert work["elements"] <= MAX_SHEET_ELEMENTS + 10
    assert work["peak"] < MEMORY_BOUND


def test_a_csv_of_a_million_short_lines_is_refused_before_it_is_parsed(
    director_client, event, monkeypatch
):
    data = b"Name\n" + b"a\n" * 999_997
    assert len(data) <= 2_000_000
    with measured(monkeypatch) as work:
        response = upload(director_client, event.slug, data, "players.csv")
    assert_refused(response, event, "The list has more than 10,000 rows, empty ones included")
    assert work["rows"] == 0
    assert work["peak"] < MEMORY_BOUND


def test_a_csv_of_empty_fields_is_refused_at_the_cells_limit(director_client, event, monkeypatch):
    data = b"Name" + b"," * 99 + b"\n" + (b"," * 99 + b"\n") * 2100
    with measured(monkeypatch) as work:
        response = upload(director_client, event.slug, data, "players.csv")
    assert_refused(response, event, "The list has more than 200,000 cells")
    assert work["rows"] <= MAX_CELLS // 100 + 1


def test_a_csv_row_of_too_many_columns_is_refused(director_client, event):
    response = upload(director_client, event.slug, b"Name" + b",x" * 150 + b"\n", "players.csv")
    assert_refused(response, event, "Row 1 has more than 100 columns")


@pytest.mark.parametrize("size", [5_000, 1_500_000])
def test_a_csv_field_too_long_is_refused(director_client, event, size):
    data = b'Name,Club\n"' + b"a" * size + b'",Reno\n'
    response = upload(director_client, event.slug, data, "players.csv")
    assert_refused(response, event, "Row 2 has a cell longer than 1,000 characters")


def test_a_csv_with_a_100_mb_field_is_refused_by_its_size(director_client, event):
    data = b'Name\n"' + b"a" * 100_000_000 + b'"\n'
    response = upload(director_client, event.slug, data, "players.csv")
    assert_refused(response, event, "The file is larger than 2 MB.")


def test_a_pasted_list_of_empty_lines_is_refused_at_the_rows_limit(
    director_client, event, monkeypatch
):
    with measured(monkeypatch) as work:
        response = upload(director_client, event.slug, pasted="Ann" + "\n" * 150_000 + "Bo")
    assert_refused(response, event, "The list has more than 10,000 rows, empty ones included")
    assert work["rows"] == MAX_READ_ROWS + 1


def test_a_pasted_list_of_more_than_5000_names_is_refused(director_client, event):
    pasted = "".join(f"P{i}\n" for i in range(5001))
    response = upload(director_client, event.slug, pasted=pasted)
    assert_refused(response, event, "The list has more than 5000 rows.")


def test_a_2000_row_workbook_still_imports(director_client, event, monkeypatch):
    rows = [["Name", "Club", "Id"]] + [[f"Player {i}", "Reno", str(i)] for i in range(2000)]
    with measured(monkeypatch) as work:
        response = import_list(director_client, event.slug, xlsx_bytes(rows), "players.xlsx")
    assert response.status_code == 302
    assert event.players.count() == 2000
    assert event.players.get(ref="1999").name == "Player 1999"
    assert work["rows"] == 2001


# -- a large list is read in the background ------------------------------------------------------

URL = "/director/e/spring/players/import/"


@pytest.fixture
def large_is_small(settings):
    settings.REGISTRATION_IN_REQUEST_BYTES = 1_000


def send(client, content: bytes, key: str = "", name="players.xlsx"):
    """Post the upload form as the page sends it (its key, unless given)."""
    key = key or form_key(client.get(URL))
    return client.post(URL, {"file": SimpleUploadedFile(name, content), "once": key})


def reading_url(reading) -> str:
    return f"{URL}reading/{reading.pk}/"


def test_a_large_list_is_read_in_the_background_then_previewed_and_imported(
    director_client, event, large_is_small, django_capture_on_commit_callbacks
):
    rows = [["Name", "Club", "E-mail"]] + [
        [f"P{i}", "Reno", f"p{i}@x.example"] for i in range(2000)
    ]
    answer = send(director_client, xlsx_bytes(rows))  # no worker yet: the task waits
    reading = ListReading.objects.get()
    assert answer["Location"] == reading_url(reading)
    page = director_client.get(reading_url(reading)).content.decode()
    assert "Step 1 of 2: waiting for its turn." in page
    assert '<meta http-equiv="refresh"' in page
    with django_capture_on_commit_callbacks(execute=True):
        from tournament.tasks import read_registration_list

        read_registration_list.enqueue(reading.pk)
    reading.refresh_from_db()
    assert reading.status == "done" and reading.data is None
    assert "p0@x.example" not in str(reading.sheet)  # the private column is never kept
    answer = director_client.get(reading_url(reading))
    assert answer["Location"] == "/director/e/spring/players/import/preview/"
    reading.refresh_from_db()
    assert reading.sheet is None  # handed to the preview: the reading keeps no copy
    preview = director_client.get(answer["Location"])
    assert "2000 rows" in preview.content.decode()
    assert confirm(director_client, event.slug, preview).status_code == 302
    assert event.players.count() == 2000


@pytest.mark.parametrize("bomb", ["empty rows", "whole-sheet dimension", "250,000 shared strings"])
def test_a_bomb_read_in_the_background_is_refused_on_the_reading_page(
    director_client, event, large_is_small, django_capture_on_commit_callbacks, bomb
):
    build, message = BOMBS[bomb]
    with django_capture_on_commit_callbacks(execute=True):
        answer = send(director_client, build())
    reading = ListReading.objects.get()
    assert reading.status == "failed" and reading.data is None
    response = director_client.get(answer["Location"])
    page = response.content.decode()
    assert message in page
    assert "Nothing was imported: correct the file and upload it again." in page
    assert 'id="import-form"' in page and "refresh" not in page  # the form, to send it again
    assert not event.players.exists()
    assert f"players-import-{event.pk}" not in director_client.session


def test_the_same_upload_sent_twice_is_read_once(
    director_client, event, large_is_small, django_capture_on_commit_callbacks
):
    data = xlsx_bytes([["Name"]] + [[f"P{i}"] for i in range(300)])
    key = form_key(director_client.get(URL))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        first = send(director_client, data, key)
        again = send(director_client, data, key)
    assert len(callbacks) == 1
    assert first["Location"] == again["Location"] == reading_url(ListReading.objects.get())
    read_later(ListReading.objects.get().pk)  # a task run twice reads once
    assert ListReading.objects.get().status == "done"


def test_a_new_list_replaces_the_directors_earlier_readings_never_taken(
    director_client, event, large_is_small, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        send(director_client, xlsx_bytes([["Name"]] + [[f"Old {i}"] for i in range(300)]))
    assert ListReading.objects.get().status == "done"  # read, its page never opened
    with django_capture_on_commit_callbacks(execute=True):
        answer = send(director_client, xlsx_bytes([["Name"]] + [[f"New {i}"] for i in range(300)]))
    reading = ListReading.objects.get()  # the first one is gone, with the names it held
    assert answer["Location"] == reading_url(reading) and "New 0" in str(reading.sheet)


def test_a_reading_is_only_its_directors(director_client, event, large_is_small):
    send(director_client, xlsx_bytes([["Name"]] + [[f"P{i}"] for i in range(300)]))
    reading = ListReading.objects.get()
    other = make_director("other")
    event.directors.add(other)  # a director of the same event, not the one who sent it
    assert logged_in(other).get(reading_url(reading)).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_directors_double_clicking_a_large_upload_at_once_make_one_reading(
    director, event, large_is_small
):
    clients = [logged_in(director) for _ in range(3)]
    data = xlsx_bytes([["Name"]] + [[f"P{i}"] for i in range(300)])
    key = form_key(clients[0].get(URL))
    results = at_once([lambda c=c: send(c, data, key) for c in clients])
    no_errors(results)
    reading = ListReading.objects.get()
    assert {r["Location"] for r in results} == {reading_url(reading)}
    assert reading.status == "done"


@pytest.mark.browser
def test_a_director_sends_a_large_list_and_a_bomb_from_a_browser(
    pages, live_server, transactional_db, large_is_small
):
    from tests import browser as b
    from tests.factories import make_event

    director = make_director("desk")
    event = make_event(director, name="Spring Games", slug="spring")
    page = pages()
    page.goto(live_server.url + "/accounts/login/")
    b.log_in(page, "desk", "a-Long-pass-phrase-42")

    def send_file(content: bytes) -> None:
        page.goto(live_server.url + URL)
        file = {"name": "players.xlsx", "mimeType": "application/octet-stream", "buffer": content}
        page.get_by_label("List of players (CSV or Excel .xlsx)").set_input_files(files=[file])
        with page.expect_navigation():
            page.get_by_role("button", name="Read the list").click()

    send_file(xlsx_bytes([["Name", "Club"]] + [[f"P{i}", "Reno"] for i in range(300)]))
    assert page.url == live_server.url + URL + "preview/"
    assert "300 rows" in page.content()
    send_file(BOMBS["whole-sheet dimension"][0]())
    refused = page.locator("#reading-refused")
    assert "first sheet says it is 1,048,576 rows by 16,384 columns" in refused.inner_text()
    assert page.get_by_label("List of players (CSV or Excel .xlsx)").is_visible()
    # A list waiting for a worker: its page follows it, then opens the preview by itself.
    waiting = ListReading.objects.create(event=event, by=director, data=b"Name\nZoe Waiting\n")
    page.goto(live_server.url + reading_url(waiting))
    progress = page.locator("label[for=reading-progress]").inner_text()
    assert progress == "Step 1 of 2: waiting for its turn."
    read_later(waiting.pk)  # the worker's turn
    page.wait_for_url(live_server.url + URL + "preview/")
    assert "Zoe Waiting" in page.content()
    assert not event.players.exists()


def test_a_csv_at_the_rows_limit_is_read_and_one_row_more_is_refused(director_client, event):
    players = "".join(f"P{i}\n" for i in range(4999))
    at_limit = ("Name\n" + players + "\n" * 5000).encode()  # 10,000 lines, 5,000 empty
    response = upload(director_client, event.slug, at_limit + b"\n", "players.csv")
    assert_refused(response, event, "The list has more than 10,000 rows, empty ones included")
    preview = upload(director_client, event.slug, at_limit, "players.csv").content.decode()
    assert "4999 rows" in preview


def test_a_workbook_that_declares_itself_smaller_than_it_is_is_read_whole(director_client, event):
    players = "".join(
        f'<row r="{n}"><c r="A{n}" t="inlineStr"><is><t>Player {n}</t></is></c></row>'
        for n in range(2, 5)
    )
    data = workbook_with(sheet=sheet_xml(players, ref="A1"))  # as some exporters write it
    response = import_list(director_client, event.slug, data, "players.xlsx")
    assert response.status_code == 302
    assert sorted(event.players.values_list("name", flat=True)) == [
        "Player 2",
        "Player 3",
        "Player 4",
    ]


def test_a_workbook_with_shared_strings_as_excel_writes_it_imports(director_client, event):
    strings = strings_xml("".join(f"<si><t>{t}</t></si>" for t in ["Name", "Zoë", "Chloé"]))
    rows = "".join(f'<row r="{n}"><c r="A{n}" t="s"><v>{n - 1}</v></c></row>' for n in (2, 3))
    data = workbook_with(strings=strings, sheet=sheet_xml(rows, ref="A1:A3"))
    response = import_list(director_client, event.slug, data, "players.xlsx")
    assert response.status_code == 302
    assert sorted(event.players.values_list("name", flat=True)) == ["Chloé", "Zoë"]
