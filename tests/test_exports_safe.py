"""Exports open safely in a spreadsheet (OWASP's CSV injection advice; scoring/exports.py).

A player may be named anything: text that starts like a formula is quoted in CSV and stored as
text in XLSX, read back here with the csv module and openpyxl. Numbers stay numbers.
"""

import csv
import io

import openpyxl
import pytest

from scoring.exports import csv_cell
from tests.factories import make_players, play, seat
from tournament.models import Player, Table

pytestmark = pytest.mark.django_db

FORMULAS = [
    "=cmd|' /C calc'!A0",
    "+1+2",
    "-Ann",
    "@SUM(A1:A9)",
    "\tTab",
    '=HYPERLINK("http://evil.example","x")',
    "#N/A",  # an error value to openpyxl, plain text to the export
]


@pytest.fixture
def hostile(director, event):
    """Spring Games with the formula names and one plain name at two tables, three rounds."""
    make_players(event, [*FORMULAS, "Ann Lee"])
    Player.objects.filter(name="-Ann").update(ref="-5")
    stage = seat(event)
    for table in Table.objects.filter(stage=stage):
        play(table, 3, director)
    return stage


def read_csv(response) -> list[list[str]]:
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response.content.startswith("\ufeff".encode())  # Excel reads UTF-8 by its BOM
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


def read_xlsx(response):
    assert response.status_code == 200
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    return [list(row) for row in sheet.iter_rows()]


EXPORTS = ["/e/spring/1/standings/export/", "/e/spring/round-scores/"]


@pytest.mark.parametrize("url", EXPORTS)
def test_csv_quotes_every_cell_that_starts_like_a_formula(director_client, hostile, url):
    # The director's export: it has the player ids (the public's has none).
    header, *rows = read_csv(director_client.get(url, {"_export": "csv"}))
    names = {row[header.index("Player")] for row in rows}
    assert names == {"'" + name for name in FORMULAS if name != "#N/A"} | {"#N/A", "Ann Lee"}
    assert "'-5" in {row[header.index("Player id")] for row in rows}  # text, even if numeric
    for column in ("Total", "Table") if "Total" in header else ("Pips", "Round", "Table"):
        assert all(row[header.index(column)].isdigit() for row in rows), column


@pytest.mark.parametrize("url", EXPORTS)
def test_xlsx_stores_every_name_as_text_and_numbers_as_numbers(client, hostile, url):
    header, *rows = read_xlsx(client.get(url, {"_export": "xlsx"}))
    headers = [c.value for c in header]
    players = [row[headers.index("Player")] for row in rows]
    assert {c.value for c in players} == {*FORMULAS, "Ann Lee"}  # as typed, no quote added
    assert {c.data_type for c in players} == {"s"}  # never "f" (formula) or "e" (error)
    number = "Total" if "Total" in headers else "Pips"
    assert {row[headers.index(number)].data_type for row in rows} == {"n"}
    assert all(isinstance(row[headers.index(number)].value, int) for row in rows)


def test_a_stage_name_excel_refuses_as_a_sheet_name_still_exports(client, hostile):
    hostile.name = "Game 1 [A/B]: Semi?"
    hostile.save()
    sheet = openpyxl.load_workbook(io.BytesIO(client.get(EXPORTS[0], {"_export": "xlsx"}).content))
    assert sheet.active.title == "Game 1 -A-B-- Semi-"


def test_a_control_character_does_not_break_the_xlsx(client, hostile):
    Player.objects.filter(name="Ann Lee").update(name="Ann\x1bLee")  # ESC: not allowed in XLSX
    header, *rows = read_xlsx(client.get(EXPORTS[1], {"_export": "xlsx"}))
    column = [c.value for c in header].index("Player")
    assert "Ann\ufffdLee" in {row[column].value for row in rows}


@pytest.mark.parametrize(
    "value, cell",
    [
        ("=1+1", "'=1+1"),
        ("-Ann", "'-Ann"),
        ("\rx", "'\rx"),
        ("Ann", "Ann"),
        ("", ""),
        (-3, -3),  # a number is not a formula
        (0, 0),
        (None, ""),
    ],
)
def test_csv_cell(value, cell):
    assert csv_cell(value) == cell
