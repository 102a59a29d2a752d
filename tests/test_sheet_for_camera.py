"""The printed score sheet made to be read by a camera (issue 51 item 1): four solid corner
marks, three light digit boxes in every pip cell, and a QR code that says the table and the
sheet's version, each where scoring/sheet_reader/layout.py says, read back from the PDF's
positions on Letter and A4, in English and French; the grid still reads as today's."""

import io
from urllib.parse import parse_qs, urlsplit

import pdfplumber
import pypdfium2
import pytest
import zxingcpp

from scoring.printing import sheet_version
from scoring.sheet_reader.layout import SheetLayout
from scoring.sheets import table_sheet
from tests.factories import make_event, make_players, play, seat
from tournament.models import Seat

pytestmark = pytest.mark.django_db

PT = 25.4 / 72  # millimetres in a PDF point
FR = {"HTTP_ACCEPT_LANGUAGE": "fr-CA,fr;q=0.9,en;q=0.5"}


def sheet_pdf(client, table, blank=True, **headers) -> bytes:
    stage = table.stage
    kind = "blank-sheet.pdf" if blank else "sheet.pdf"
    response = client.get(
        f"/e/{stage.event.slug}/{stage.number}/table/{table.number}/{kind}", **headers
    )
    assert response.status_code == 200
    return response.content


def mm(box) -> tuple[float, float, float, float]:
    return (box["x0"] * PT, box["top"] * PT, (box["x1"] - box["x0"]) * PT, box["height"] * PT)


def near(a: float, b: float, tolerance: float = 0.3) -> bool:
    return abs(a - b) <= tolerance


def qr_text(pdf: bytes) -> str:
    image = pypdfium2.PdfDocument(pdf)[0].render(scale=200 / 72).to_pil()
    found = zxingcpp.read_barcodes(image)
    assert len(found) == 1
    return found[0].text


def check_page(pdf: bytes, layout: SheetLayout, rows_with_boxes: int) -> None:
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        assert len(doc.pages) == 1
        page = doc.pages[0]
        assert near(page.width * PT, layout.page[0], 0.5)
        assert near(page.height * PT, layout.page[1], 0.5)
        images = [mm(i) for i in page.images]
        marks = [i for i in images if near(i[2], i[3], 0.01) and near(i[2], 6.0)]
        for mark in layout.marks():
            assert any(near(m[0], mark.x) and near(m[1], mark.y) for m in marks), mark
        strips = [i for i in images if i not in marks]
        assert len(strips) == rows_with_boxes * layout.players
        for row in range(layout.engines - rows_with_boxes, layout.engines):
            for col in range(layout.players):
                strip = layout.strip_at(row, col)
                assert any(near(s[0], strip.x) and near(s[1], strip.y) for s in strips)
        # The grid's ruling: each engine row's bottom border where the layout says.
        lines = {round(e["top"] * PT, 1) for e in page.edges if e["orientation"] == "h"}
        for row in range(layout.engines):
            cell = layout.pip_cell(row, 0)
            assert any(near(y, cell.y + cell.h, 0.25) for y in lines), row


@pytest.fixture
def table(event):
    make_players(event, names=["Ann Lee", "Bo Diaz", "Cy Young", "Di Wu", "Ed Ray", "Flo Ng",
                               "Gus Poe", "Hal Orr"])  # fmt: skip
    stage = seat(event)
    return stage.tables.order_by("number").first()


@pytest.mark.parametrize("paper", ["letter", "a4"])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_blank_sheet_has_corner_marks_digit_boxes_and_a_versioned_qr_code(
    client, table, paper, language
):
    event = table.stage.event
    event.paper_size = paper
    event.save()
    pdf = sheet_pdf(client, table, **(FR if language == "fr" else {}))
    sheet = table_sheet(table)
    layout = SheetLayout("A4" if paper == "a4" else "letter", len(sheet.players), 13)
    check_page(pdf, layout, rows_with_boxes=13)
    text = pdfplumber.open(io.BytesIO(pdf)).pages[0].extract_text()
    assert ("Locomotive" if language == "fr" else "Engine") in text
    found = urlsplit(qr_text(pdf))
    assert found.path == f"/e/{event.slug}/1/table/{table.number}/"
    assert parse_qs(found.query) == {"sheet": [sheet_version(sheet, layout)]}


def test_a_partly_played_sheet_has_boxes_only_in_the_rows_to_play_and_totals_on_one_line(
    client, event
):
    make_players(event, count=4)
    stage = seat(event)
    table = stage.tables.get()
    play(table, 4)
    pdf = sheet_pdf(client, table, blank=False)
    check_page(pdf, SheetLayout("letter", 4, 13), rows_with_boxes=9)
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        words = doc.pages[0].extract_words()
    sheet = table_sheet(table)
    game_total = next(w for w in words if w["text"] == "total" and w["x0"] * PT < 45)
    for total in sheet.totals.values():  # each total one word, on the game total's line
        assert any(w["text"] == str(total) and abs(w["top"] - game_total["top"]) < 3 for w in words)


def test_a_compact_sheet_of_eight_players_keeps_room_for_three_digits(client, director):
    event = make_event(
        director, game_minutes=None, table_size=8, set_size=9, sets=2,
        engines=list(range(9, -1, -1)), tiles_drawn={"8": 10},
    )  # fmt: skip
    make_players(event, count=8)
    table = seat(event).tables.get()
    assert Seat.objects.filter(table=table).count() == 8
    layout = SheetLayout("letter", 8, 10)
    assert layout.compact and layout.readable
    width, height = layout.box_size
    assert width >= 3.5 and height >= 4.4  # a digit written by hand still fits
    check_page(sheet_pdf(client, table), layout, rows_with_boxes=10)


def test_a_table_of_twelve_has_no_boxes_too_small_to_write_in():
    layout = SheetLayout("letter", 12, 16)
    assert not layout.readable and layout.box_size[0] < 3.0
