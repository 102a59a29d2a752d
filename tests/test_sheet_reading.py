"""A photo of a filled paper sheet read (issue 51 items 2 and 4): the site's own blank sheet
filled with handwritten digits the network never saw and photographed by a program (fixed
seeds), read through the service; the figures held to bounds; and every photo that is not this
table's filled sheet refused with a clear message, in English and French, nothing saved."""

import base64
import io

import cv2
import numpy as np
import pytest
from django.utils import translation

from scoring.models import Round, SheetPhoto
from scoring.photos import PhotoRefused
from scoring.services.sheet_reading import SheetNotRead, read_sheet_photo
from scoring.sheet_reader import synth
from scoring.tasks import read_sheet
from tests.bench_sheets import measure, page_image
from tests.factories import make_event, make_players, seat
from tournament.models import Action

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def hand():
    return synth.held_out_handwriting()


@pytest.fixture
def tables(event):
    make_players(event, count=8)
    return list(seat(event).tables.order_by("number"))


def blank_pdf(client, table) -> bytes:
    stage = table.stage
    response = client.get(
        f"/e/{stage.event.slug}/{stage.number}/table/{table.number}/blank-sheet.pdf"
    )
    assert response.status_code == 200
    return response.content


def photo_of(client, table, hand, seed=3, filled=True, turn=None) -> bytes:
    from scoring.printing import sheet_layout
    from scoring.sheets import table_sheet

    rng = np.random.default_rng(seed)
    page = page_image(blank_pdf(client, table))
    layout = sheet_layout(table_sheet(table), "letter", False)
    if filled:
        page = synth.write(page, layout, synth.scores(layout, rng), hand, rng)
    return synth.photograph(page, rng, turn=turn)


def refused(table, data: bytes) -> tuple[str, str]:
    """The refusal's message in English and in French; nothing saved either time."""
    before = (SheetPhoto.objects.count(), Round.objects.count(), Action.objects.count())
    texts = []
    for language in ("en", "fr"):
        with translation.override(language), pytest.raises((SheetNotRead, PhotoRefused)) as why:
            read_sheet_photo(table, data)
        texts.append(str(why.value))
    assert (SheetPhoto.objects.count(), Round.objects.count(), Action.objects.count()) == before
    assert texts[0] != texts[1]
    return texts[0], texts[1]


def test_photographed_sheets_are_read_within_the_measured_bounds(client, tables, hand):
    figures = measure(tables[0], blank_pdf(client, tables[0]), range(1000, 1012), hand)
    assert figures.refused == 0
    assert figures.share(figures.right) >= 0.85, figures.lines()
    assert figures.share(figures.wrong_sure) <= 0.005, figures.lines()
    assert figures.seconds / figures.sheets < 5


def test_a_sheet_photographed_upside_down_is_read(client, tables, hand):
    figures = measure(tables[0], blank_pdf(client, tables[0]), [7, 8], hand, turn=178)
    assert figures.refused == 0
    assert figures.share(figures.right) >= 0.75, figures.lines()


def test_another_tables_sheet_is_refused_and_says_whose_it_is(client, tables, hand):
    english, french = refused(tables[0], photo_of(client, tables[1], hand))
    assert english == "This sheet is table 2's of Game 1: photograph this table's sheet."
    assert "table 2" in french


def test_another_events_sheet_is_refused(client, tables, hand, director):
    other = make_event(director, name="Autumn Games", slug="autumn")
    make_players(other, count=4)
    their_table = seat(other).tables.get()
    english, french = refused(tables[0], photo_of(client, their_table, hand))
    assert english == "This sheet is another event's: photograph this table's sheet."


def test_a_photo_of_no_sheet_is_refused(tables):
    letter = np.full((1100, 850), 235, np.uint8)  # a page of text, no marks, no QR code
    for line in range(20):
        cv2.putText(letter, "Dear players, the hall opens at nine.", (60, 80 + 48 * line),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.9, 30, 2)  # fmt: skip
    ok, jpeg = cv2.imencode(".jpg", letter)
    english, french = refused(tables[0], jpeg.tobytes())
    assert english.startswith("No score sheet was found in this photo")


def test_a_blank_sheet_is_refused(client, tables, hand):
    english, french = refused(tables[0], photo_of(client, tables[0], hand, filled=False))
    assert english == "Nothing is written on this sheet yet: photograph it once it is filled."


def test_a_huge_image_is_refused_before_it_is_decoded(tables):
    huge = b"\xff\xd8\xff" + bytes(16 * 1024 * 1024)
    english, french = refused(tables[0], huge)
    assert english.startswith("The photo is too large")
    buffer = io.BytesIO()
    from PIL import Image

    Image.new("L", (12000, 12000), 255).save(buffer, "PNG")  # 144 megapixels in a few KB
    english, french = refused(tables[0], buffer.getvalue())
    assert "pixels" in english


def test_the_background_task_reads_and_answers_in_the_senders_language(client, tables, hand):
    photo = base64.b64encode(photo_of(client, tables[1], hand)).decode()
    answer = read_sheet.call(tables[0].pk, photo, "fr")
    assert "table 2" in answer["refused"] and answer["refused"].startswith("Cette feuille")
    photo = base64.b64encode(photo_of(client, tables[0], hand)).decode()
    answer = read_sheet.call(tables[0].pk, photo, "en")
    assert len(answer["cells"]) == 13 and len(answer["cells"][0]) == 4
    assert sum(c["sure"] for row in answer["cells"] for c in row) >= 30
