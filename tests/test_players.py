import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories import make_players
from tournament.models import Player

pytestmark = pytest.mark.django_db


def upload(client, event, text, name="players.csv"):
    return client.post(
        f"/director/e/{event.slug}/players/import/",
        {"file": SimpleUploadedFile(name, text.encode())},
    )


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
    text = "name,id\nAnn Lee,1\n,2\nBo Diaz,1\nCy Young,3,extra\n"
    page = upload(director_client, event, text).content.decode()
    assert "Line 3: the name is empty." in page
    assert "Line 4: id &#x27;1&#x27; is already used." in page
    assert "Line 5: more values than columns." in page
    assert "Nothing was imported" in page
    assert not Player.objects.exists()


def test_csv_without_a_name_column_is_refused(director_client, event):
    page = upload(director_client, event, "first,last\nAnn,Lee\n").content.decode()
    assert "Line 1: the header must have a &#x27;name&#x27; column" in page
    assert not Player.objects.exists()


def test_csv_that_is_not_text_is_refused(director_client, event):
    response = director_client.post(
        f"/director/e/{event.slug}/players/import/",
        {"file": SimpleUploadedFile("p.csv", b"\xff\xfe\x00\x81name")},
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
