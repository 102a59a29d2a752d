"""A photo of the filled paper sheet read by the camera and confirmed in a real browser (issue 51
item 3): the director picks the photo on the table's entry page (the file input opens a phone's
camera), the grid comes back filled with what was read, an unsure cell is marked in words and
shows its photo when it has focus, the director types it from the sheet and saves the whole
sheet; the page in French. Every page opened is checked by axe (conftest.py), at 390 px and at
320 px."""

import pytest
from django.test import Client
from playwright.sync_api import expect

from scoring.models import Round, SheetReading
from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat
from tests.test_sheet_confirm import filled_photo

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


@pytest.fixture
def site(browser, live_server, transactional_db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    make_players(event, count=8)
    stage = seat(event)
    return {"url": live_server.url, "table": stage.tables.get(number=1)}


def test_the_desk_reads_a_photo_corrects_an_unsure_cell_and_saves_the_sheet(site, pages):
    from scoring.sheet_reader import synth

    table = site["table"]
    photo, values = filled_photo(Client(), table, synth.held_out_handwriting(), seed=5, played=4)
    players = [s.player for s in table.seats.select_related("player").order_by("position")]
    page = pages(**b.PHONE)
    page.goto(f"{site['url']}/accounts/login/?next=/director/e/spring/1/table/1/enter/")
    b.log_in(page, "desk", PASSWORD)
    field = page.get_by_label("Read a photo of the sheet")
    expect(field).to_have_attribute("capture", "environment")
    field.set_input_files({"name": "IMG_3001.jpg", "mimeType": "image/jpeg", "buffer": photo})
    page.get_by_role("button", name="Read the photo").click()
    # The worker reads it (at once under the tests; the page reloads itself until then).
    expect(page.locator("#reading-form")).to_be_visible()
    reading = SheetReading.objects.get()
    assert Round.objects.count() == 0
    for row, read in enumerate(reading.cells[:4]):
        for col, cell in enumerate(read):
            box = page.locator(f"#id_r{row + 1}-p{players[col].pk}")
            expect(box).to_have_value(str(cell["value"]) if cell["state"] == "number" else "")
    unsure = [
        (row, col)
        for row, read in enumerate(reading.cells[:4])
        for col, cell in enumerate(read)
        if not cell["sure"]
    ]
    assert unsure, "the photo has a cell the reader is not sure of"
    row, col = unsure[0]
    cell = page.locator(f"#id_r{row + 1}-p{players[col].pk}")
    mark = page.locator(".read-cell", has=cell).get_by_text("To check")
    expect(mark).to_be_visible()
    crop = page.locator(f"#id_r{row + 1}-p{players[col].pk}-photo")
    cell.focus()
    expect(crop).to_be_visible()
    crop.wait_for(state="visible")
    expect(crop).to_have_js_property("complete", True)
    assert crop.evaluate("i => i.naturalWidth") > 20
    for r, c in unsure:  # typed from the sheet, as the person reads it on the photo
        page.locator(f"#id_r{r + 1}-p{players[c].pk}").fill(str(values[r][c]))
    page.get_by_role("button", name="Save the 4 rounds read").click()
    question = page.locator("input[type=checkbox][name$='-sure']")
    if question.count():  # "are you sure?", as for a typed count: each answered yes
        for i in range(question.count()):
            question.nth(i).check()
        page.get_by_role("button", name="Save the 4 rounds read").click()
    expect(page.get_by_text("4 rounds saved.")).to_be_visible()
    expect(page.locator("#reading-all-saved")).to_be_visible()
    saved = {
        (r.number, s.player_id): s.pips
        for r in Round.objects.prefetch_related("scores")
        for s in r.scores.all()
    }
    assert saved == {
        (r + 1, players[c].pk): values[r][c] for r in range(4) for c in range(len(players))
    }

    french = pages(viewport={"width": 320, "height": 800}, locale="fr-FR")
    french.goto(f"{site['url']}/accounts/login/")
    french.get_by_label("Nom d’utilisateur").fill("desk")
    french.get_by_label("Mot de passe").fill(PASSWORD)
    with french.expect_navigation():
        french.locator("form button[type=submit], form button").last.click()
    french.goto(f"{site['url']}/director/e/spring/1/table/1/read/{reading.pk}/")
    expect(french.locator("html")).to_have_attribute("lang", "fr")
    expect(french.locator("#reading-all-saved")).to_have_text(
        "Toutes les manches lues sur cette feuille sont enregistrées."
    )
    french.goto(f"{site['url']}/director/e/spring/1/table/1/enter/")
    expect(french.get_by_label("Lire une photo de la feuille")).to_be_visible()
