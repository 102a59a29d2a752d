import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories import make_players
from tests.importing import import_list
from tournament.models import Player

pytestmark = pytest.mark.django_db


def upload(client, event, text, name="players.csv"):
    """Upload, then confirm the preview as shown (tests/importing.py)."""
    return import_list(client, event.slug, text.encode(), name)


def test_director_adds_a_player_by_hand(director_client, event):
    response = director_client.post(
        f"/director/e/{event.slug}/players/", {"name": "Ann Lee", "ref": "A1", "club": "Reno"}
    )
    assert response.status_code == 302
    assert event.players.get().name == "Ann Lee"
    page = director_client.get(f"/director/e/{event.slug}/players/").content.decode()
    assert "Ann Lee" in page and "Reno" in page


def test_a_player_needs_a_name(director_client, event):
    response = director_client.post(f"/director/e/{event.slug}/players/", {"name": ""})
    assert "This field is required" in response.content.decode()
    assert not event.players.exists()


def test_csv_import_adds_every_row(director_client, event):
    text = "name,id,club,division\nAnn Lee,1,Reno,55-59\nBo Díaz,2,,60-64\nCy Young,,,\n"
    response = upload(director_client, event, text)
    assert response.status_code == 302
    assert [(p.name, p.ref, p.club, p.division) for p in event.players.all()] == [
        ("Ann Lee", "1", "Reno", "55-59"),
        ("Bo Díaz", "2", "", "60-64"),
        ("Cy Young", "", "", ""),
    ]


def test_csv_with_only_a_name_column(director_client, event):
    upload(director_client, event, "Name\nAnn Lee\nBo Diaz\n")
    assert event.players.count() == 2


def test_csv_bad_rows_are_reported_by_line_and_nothing_is_saved(director_client, event):
    text = "name,id\nAnn Lee,1\n,2\nBo Diaz,1\nCy Young,3\n"
    page = upload(director_client, event, text).content.decode()
    assert "Line 3: the name is empty." in page
    assert "Line 4: id 1 is also on line 2." in page
    assert "Nothing was imported" in page
    assert not Player.objects.exists()


def test_a_list_without_a_name_column_joins_first_and_last_names(director_client, event):
    upload(director_client, event, "first,last\nAnn,Lee\n")
    assert list(Player.objects.values_list("name", flat=True)) == ["Ann Lee"]


def test_csv_that_is_broken_utf8_is_refused(director_client, event):
    # Mostly UTF-8 (é as c3 a9), with one broken sequence: not read as a Windows code page.
    response = director_client.post(
        f"/director/e/{event.slug}/players/import/",
        {"file": SimpleUploadedFile("p.csv", b"name\nRen\xc3\xa9e\nZo\xe9\xa9\n")},
    )
    assert "not UTF-8 text" in response.content.decode()
    assert not Player.objects.exists()


def test_check_in_and_out(director_client, event):
    ann, bo = make_players(event, ["Ann", "Bo"], checked_in=False)
    director_client.post(
        f"/director/e/{event.slug}/players/check-in/",
        {"player": [ann.pk, bo.pk], "checked_in": "1"},
    )
    assert set(event.players.filter(checked_in=True)) == {ann, bo}
    director_client.post(
        f"/director/e/{event.slug}/players/check-in/", {"player": [bo.pk], "checked_in": "0"}
    )
    assert list(event.players.filter(checked_in=True)) == [ann]


def test_check_in_only_touches_this_events_players(director_client, event):
    from tests.factories import make_event

    other = make_event()
    (stranger,) = make_players(other, ["Stranger"], checked_in=False)
    director_client.post(
        f"/director/e/{event.slug}/players/check-in/", {"player": [stranger.pk], "checked_in": "1"}
    )
    stranger.refresh_from_db()
    assert not stranger.checked_in


def test_players_page_needs_a_login(client, event):
    assert client.get(f"/director/e/{event.slug}/players/").status_code == 302
    client.post(f"/director/e/{event.slug}/players/", {"name": "Intruder"})
    assert not event.players.exists()


# -- lists as people bring them (issue 13: sniffed delimiter and encoding, .xlsx) ----------------


def xlsx_bytes(rows) -> bytes:
    import io

    from openpyxl import Workbook

    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def upload_bytes(client, event, content: bytes, name="players.csv"):
    return import_list(client, event.slug, content, name)


@pytest.mark.parametrize(
    "content",
    [
        "name;club\nChloé Dubois;Lyon\nAnn Lee;Reno\n".encode(),
        "name\tclub\nChloé Dubois\tLyon\nAnn Lee\tReno\n".encode(),
        "name;club\r\nChloé Dubois;Lyon\r\nAnn Lee;Reno\r\n".encode("cp1252"),
        "\ufeffname\tclub\nChloé Dubois\tLyon\nAnn Lee\tReno\n".encode("utf-16"),
        '"name","club"\n"Chloé Dubois","Lyon"\n"Ann Lee","Reno"\n'.encode(),
    ],
    ids=["semicolons", "tabs", "excel-windows-csv", "excel-unicode-text", "quoted"],
)
def test_lists_with_other_delimiters_and_encodings_import(director_client, event, content):
    response = upload_bytes(director_client, event, content)
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert list(event.players.values_list("name", "club")) == [
        ("Ann Lee", "Reno"),
        ("Chloé Dubois", "Lyon"),
    ]


def test_an_excel_workbook_imports(director_client, event):
    content = xlsx_bytes(
        [["Name", "ID", "Club"], ["Chloé Dubois", 101, "Lyon"], [None], ["Bo", 102]]
    )
    response = upload_bytes(director_client, event, content, "players.xlsx")
    assert response.status_code == 302
    assert list(event.players.values_list("name", "ref", "club")) == [
        ("Bo", "102", ""),
        ("Chloé Dubois", "101", "Lyon"),
    ]


def test_an_old_xls_or_a_broken_workbook_is_a_clear_message(director_client, event):
    old = upload_bytes(director_client, event, b"\xd0\xcf\x11\xe0rest", "p.xls")
    assert "old Excel file (.xls)" in old.content.decode()
    broken = upload_bytes(director_client, event, b"PK\x03\x04broken", "p.xlsx")
    assert "not an Excel workbook the site can read" in broken.content.decode()
    assert not Player.objects.exists()
