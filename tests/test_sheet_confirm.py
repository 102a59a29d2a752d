"""A photo of a filled sheet read, then confirmed by a person (issue 51 item 3), through the
pages: the upload from the table's page, the reading kept, the grid filled with the values read
and each unsure cell marked with its photo, nothing saved until Save, each round saved once
through the entry's checks; a refused photo says why and saves nothing; a saved round read
otherwise is shown as a difference and left as it is."""

import re
from html import unescape

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.models import ReadingStatus, Round, SheetPhoto, SheetReading
from scoring.printing import sheet_layout
from scoring.services.rounds import record_round
from scoring.sheet_reader import synth
from scoring.sheets import table_sheet
from tests.bench_sheets import page_image
from tests.factories import make_players, seat
from tournament.forms import new_key

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def hand():
    return synth.held_out_handwriting()


@pytest.fixture
def tables(event):
    make_players(event, count=8)
    return list(seat(event).tables.order_by("number"))


def where(table) -> str:
    return f"/director/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}"


def filled_photo(client, table, hand, seed=5, played=None):
    """A photo of ``table``'s sheet filled by a program, and the values written on it."""
    stage = table.stage
    pdf = client.get(f"/e/{stage.event.slug}/{stage.number}/table/{table.number}/blank-sheet.pdf")
    assert pdf.status_code == 200
    rng = np.random.default_rng(seed)
    layout = sheet_layout(table_sheet(table), "letter", False)
    values = synth.scores(layout, rng, played=played)
    page = synth.write(page_image(pdf.content), layout, values, hand, rng)
    return synth.photograph(page, rng), values


def send(client, table, photo: bytes, commit, key=None):
    """The table's "Read a photo of the sheet" form, as the page sends it."""
    entry = client.get(f"{where(table)}/enter/")
    assert 'id="read-sheet-form"' in entry.content.decode()
    assert 'capture="environment"' in entry.content.decode()
    html = entry.content.decode()
    sent = {
        "photo": SimpleUploadedFile("sheet.jpg", photo, "image/jpeg"),
        "once": key or field_value(html, "once", form="read-sheet-form"),
        "next": field_value(html, "next", form="read-sheet-form"),
    }
    with commit(execute=True):
        return client.post(f"{where(table)}/read/", sent)


def field_value(html: str, name: str, form: str) -> str:
    part = html[html.index(f'id="{form}"') :]
    found = re.search(rf'name="{name}"[^>]*value="([^"]*)"|value="([^"]*)"[^>]*name="{name}"', part)
    return unescape(found.group(1) or found.group(2))


def form_data(html: str) -> dict:
    """What the reading's form sends as drawn: every input's name and value."""
    form = html[html.index('id="reading-form"') : html.index("</form>", html.index("reading-form"))]
    data = {}
    for tag in re.findall(r"<input[^>]*>", form):
        name = re.search(r'name="([^"]+)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name and 'type="checkbox"' not in tag:
            data[name.group(1)] = unescape(value.group(1)) if value else ""
    return data


def cells_of(html: str) -> dict:
    return {k: v for k, v in form_data(html).items() if re.fullmatch(r"r\d+-p\d+", k)}


def confirm(client, url, data: dict):
    """Save, then answer "are you sure?" as a person does (a "Yes, save N" box each)."""
    answer = client.post(url, data)
    if answer.status_code == 200:
        sure = answers(answer.content.decode())
        if sure:
            answer = client.post(url, {**data, **sure})
    return answer


def answers(html: str) -> dict:
    """The "Yes, save N" boxes of the page's questions, ticked."""
    ticked: dict = {}
    for name, value in re.findall(r'name="(r\d+-sure)"[^>]*value="([^"]+)"', html):
        ticked.setdefault(name, []).append(unescape(value))
    return ticked


def test_a_photo_read_fills_the_grid_and_a_person_saves_the_whole_sheet(
    director_client, tables, hand, django_capture_on_commit_callbacks
):
    table = tables[0]
    photo, values = filled_photo(director_client, table, hand)
    answer = send(director_client, table, photo, django_capture_on_commit_callbacks)
    reading = SheetReading.objects.get()
    assert answer.status_code == 302 and answer.url == f"{where(table)}/read/{reading.pk}/"
    assert reading.status == ReadingStatus.DONE and reading.upload is None
    assert SheetPhoto.objects.filter(table=table).count() == 1  # kept with the table
    assert reading.photo == SheetPhoto.objects.get()
    assert Round.objects.count() == 0  # nothing saved before a person presses Save

    page = director_client.get(answer.url)
    html = page.content.decode()
    players = [s.player for s in table.seats.select_related("player").order_by("position")]
    shown = cells_of(html)
    assert len(shown) == 13 * 4
    sure = unsure = 0
    for row, read in enumerate(reading.cells):
        for col, cell in enumerate(read):
            name = f"r{row + 1}-p{players[col].pk}"
            if cell["state"] == "number":
                assert shown[name] == str(cell["value"])
            if cell["sure"]:
                sure += 1
                assert cell["value"] == values[row][col]
            else:
                unsure += 1
                assert f'id="id_{name}-unsure"' in html
    assert unsure and html.count("⚠ To check") == unsure
    assert sure >= 35
    crop = director_client.get(f"{answer.url}cell/0-0.jpg")
    assert crop.status_code == 200 and crop.content[:2] == b"\xff\xd8"

    data = form_data(html)
    for row, written in enumerate(values):  # the person types what the sheet says
        for col, value in enumerate(written):
            data[f"r{row + 1}-p{players[col].pk}"] = str(value)
    done = confirm(director_client, answer.url, {**data, "save": "all"})
    assert done.status_code == 302, done.content.decode()[:3000]
    saved = {
        (r.number, s.player_id): s.pips
        for r in Round.objects.prefetch_related("scores")
        for s in r.scores.all()
    }
    assert saved == {
        (row + 1, players[col].pk): v
        for row, written in enumerate(values)
        for col, v in enumerate(written)
    }
    again = director_client.get(answer.url).content.decode()
    assert 'id="reading-all-saved"' in again


def test_a_double_save_saves_a_round_once(
    director_client, tables, hand, django_capture_on_commit_callbacks
):
    table = tables[0]
    photo, values = filled_photo(director_client, table, hand, seed=6)
    url = send(director_client, table, photo, django_capture_on_commit_callbacks).url
    html = director_client.get(url).content.decode()
    players = [s.player for s in table.seats.select_related("player").order_by("position")]
    data = form_data(html)
    for col, value in enumerate(values[0]):
        data[f"r1-p{players[col].pk}"] = str(value)
    first = confirm(director_client, url, {**data, "save": "1"})
    assert first.status_code == 302
    second = confirm(director_client, url, {**data, "save": "1"})
    assert second.status_code == 302
    assert Round.objects.count() == 1
    # The same key, even were the round shown as still to save, answers with the saved round.
    assert director_client.post(url, {**data, "save": "all"}).status_code in (200, 302)
    assert Round.objects.filter(number=1).count() == 1


def test_a_saved_round_read_otherwise_is_shown_as_a_difference_and_left_unchanged(
    director_client, director, tables, hand, django_capture_on_commit_callbacks
):
    table = tables[0]
    photo, values = filled_photo(director_client, table, hand, seed=5)
    players = [s.player for s in table.seats.select_related("player").order_by("position")]
    first = {p.pk: v for p, v in zip(players, values[0], strict=True)}
    url = send(director_client, table, photo, django_capture_on_commit_callbacks).url
    reading_first = SheetReading.objects.get()
    sure_col = next(c for c, cell in enumerate(reading_first.cells[0]) if cell["sure"])
    typed = dict(first)
    typed[players[sure_col].pk] = first[players[sure_col].pk] + 5  # typed wrong at the desk
    record_round(table, typed, director, engine=12, number=1, key=new_key())
    html = director_client.get(url).content.decode()
    who = players[sure_col]
    shown = f"{who.name}: saved {typed[who.pk]}, read {first[who.pk]}"
    assert shown in html
    assert f"{where(table)}/round/1/correct/" in html
    assert "r1-p" not in "".join(cells_of(html))  # no field for the saved round
    data = form_data(html)
    for row, written in enumerate(values[1:3], start=2):
        for col, value in enumerate(written):
            data[f"r{row}-p{players[col].pk}"] = str(value)
    confirm(director_client, url, {**data, "save": "2"})
    saved = {s.player_id: s.pips for s in Round.objects.get(number=1).scores.all()}
    assert saved == typed
    assert Round.objects.count() == 2


def test_another_tables_sheet_is_refused_with_its_message_and_saves_nothing(
    director_client, tables, hand, django_capture_on_commit_callbacks
):
    photo, _values = filled_photo(director_client, tables[1], hand)
    answer = send(director_client, tables[0], photo, django_capture_on_commit_callbacks)
    html = director_client.get(answer.url).content.decode()
    assert "This sheet is table 2&#x27;s of Game 1: photograph this table&#x27;s sheet." in html
    assert 'id="reading-refused"' in html and "Nothing was saved." in html
    director_client.cookies["django_language"] = "fr"
    french = director_client.get(answer.url).content.decode()
    assert "Cette feuille" in french and "table 2" in french
    assert SheetPhoto.objects.count() == 0 and Round.objects.count() == 0
    assert SheetReading.objects.get().upload is None


@pytest.mark.parametrize(
    "upload, english, french",
    [
        (b"not an image", "This file is not a photo (JPEG, PNG or WebP)", "pas une photo"),
        (b"\xff\xd8\xff" + bytes(16 * 1024 * 1024), "The photo is too large", "trop grande"),
    ],
    ids=["not-a-photo", "huge"],
)
def test_a_file_that_is_no_photo_or_too_large_is_refused_at_once(
    director_client, tables, django_capture_on_commit_callbacks, upload, english, french
):
    answer = send(director_client, tables[0], upload, django_capture_on_commit_callbacks)
    assert answer.status_code == 302 and answer.url == f"{where(tables[0])}/enter/"
    page = director_client.get(answer.url).content.decode()
    assert english in page
    director_client.cookies["django_language"] = "fr"
    send(director_client, tables[0], upload, django_capture_on_commit_callbacks)
    assert french in director_client.get(answer.url).content.decode()
    assert SheetReading.objects.count() == 0 and SheetPhoto.objects.count() == 0


def test_only_the_tables_scorekeepers_and_directors_see_a_reading(
    client, director_client, tables, hand, django_capture_on_commit_callbacks
):
    from django.contrib.auth import get_user_model

    photo, _values = filled_photo(director_client, tables[0], hand)
    url = send(director_client, tables[0], photo, django_capture_on_commit_callbacks).url
    assert client.get(url).status_code == 302  # to the login page
    client.force_login(get_user_model().objects.create_user("stranger"))
    assert client.get(url).status_code == 403
    assert client.get(f"{url}cell/0-0.jpg").status_code == 403
    assert client.post(url, {"save": "all"}).status_code == 403
    assert Round.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_two_saves_of_the_whole_sheet_at_once_save_each_round_once(director, hand):
    from tests.concurrency import at_once, logged_in
    from tests.factories import make_event

    event = make_event(director, name="Race Games", slug="race")
    make_players(event, count=4)
    table = seat(event).tables.get()
    client = logged_in(director)
    photo, values = filled_photo(client, table, hand, seed=7, played=3)
    entry = client.get(f"{where(table)}/enter/").content.decode()
    key = field_value(entry, "once", form="read-sheet-form")
    answer = client.post(
        f"{where(table)}/read/",
        {"photo": SimpleUploadedFile("sheet.jpg", photo, "image/jpeg"), "once": key},
    )
    url = answer.url
    html = client.get(url).content.decode()
    players = [s.player for s in table.seats.select_related("player").order_by("position")]
    data = form_data(html)
    for row, written in enumerate(values[:3]):
        for col, value in enumerate(written):
            data[f"r{row + 1}-p{players[col].pk}"] = str(value)
        # "are you sure?" answered yes for any count it asks about, as a person would
        data[f"r{row + 1}-sure"] = [f"p{p.pk}:{v}" for p, v in zip(players, written, strict=True)]
    data["save"] = "all"
    results = at_once([lambda: logged_in(director).post(url, data) for _ in range(2)])
    assert [r.status_code for r in results] == [302, 302], results
    assert sorted(Round.objects.values_list("number", flat=True)) == [1, 2, 3]
