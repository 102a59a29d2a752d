"""The series file (issue 31 item 4, docs/series-file.md): a series' settings and its events'
files, downloaded by its directors and uploaded as a new series, all or nothing, once per form;
the archive's records of one series."""

import json
from copy import deepcopy
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from scoring.eventfile import dumps, export_event, import_event
from scoring.eventfile.series import SeriesFileError, export_series, validate_series
from scoring.models import Series, SeriesEvent
from scoring.services.archive import keep_apart, link_same_person
from scoring.services.series import add_event, create_series
from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_director, make_event, make_players, play, seat
from tournament.models import Event, Player

pytestmark = pytest.mark.django_db

DATA = Path(__file__).parent / "data"
IMPORT = "/director/import/series/"
SETTINGS = {
    "scoring": "points",
    "points": [12, 9, 7, 5],
    "medal_bonus": [5, 3, 1],
    "best_of": 2,
    "tie_break": "head_to_head",
}


def make_series(director, *files, name="Club season", slug="club-season", **settings):
    """A series of the example events ``files``, imported and added by ``director``."""
    series = create_series(Series(name=name, slug=slug, **{**SETTINGS, **settings}), director)
    for file in files:
        add_event(series, import_event((DATA / file).read_bytes(), director=director), director)
    return series


def download(client, series):
    return client.get(f"/director/s/{series.slug}/series.json")


def upload(client, content: bytes, key: str | None = None, **headers):
    """The import page's form, posted as it is drawn (its key), with ``content`` as the file."""
    if key is None:
        key = form_key(client.get(IMPORT, **headers))
    data = {"file": SimpleUploadedFile("season.series.json", content), "once": key}
    return client.post(IMPORT, data, **headers)


def season_file(*files, **settings) -> dict:
    """A series file of the example events ``files``, as a tool could write it."""
    return {
        "format": "mexican-train-series",
        "version": 1,
        "series": {"name": "Club season", "slug": "club-season", **deepcopy(SETTINGS), **settings},
        "events": [json.loads((DATA / file).read_text(encoding="utf-8")) for file in files],
    }


def nothing_saved():
    assert not Series.objects.exists() and not Event.objects.exists()
    assert not Player.objects.exists() and not SeriesEvent.objects.exists()


# -- round trip ----------------------------------------------------------------------------------


def test_a_series_downloads_as_one_file_that_imports_into_an_empty_site_as_the_same_series(
    director, director_client
):
    series = make_series(director, "shared-medals.json", "divisions.json")
    played = make_event(director, name="Club night", slug="club-night")
    make_players(played, count=8)
    for table in seat(played).tables.all():
        play(table, 3, director)
    add_event(series, played, director)
    events = {e.name: dumps(export_event(e)) for e in Event.objects.all()}
    standings = director_client.get("/s/club-season/export/?_export=csv").content.decode()
    assert standings.count("\n") > 10  # the finished events count (the played one is not over)

    link = 'href="/director/s/club-season/series.json"'
    assert link in director_client.get("/s/club-season/").content.decode()
    assert link not in Client().get("/s/club-season/").content.decode()
    answer = download(director_client, series)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/json; charset=utf-8"
    assert answer["Content-Disposition"] == 'attachment; filename="club-season.series.json"'
    text = answer.content.decode()
    assert text == dumps(export_series(series))
    data = json.loads(text)
    assert list(data) == ["format", "version", "series", "events"]
    assert data["series"] == {"name": "Club season", "slug": "club-season", **SETTINGS}
    assert len(data["events"]) == 3  # each whole, as its own file: no rating in any
    assert all(dumps(e) in events.values() for e in data["events"])

    Series.objects.all().delete()
    Event.objects.all().delete()
    answer = upload(director_client, text.encode())
    copy = Series.objects.get()
    assert answer.status_code == 302 and answer["Location"] == "/s/club-season/"
    assert copy.is_director(director)
    assert download(director_client, copy).content.decode() == text
    assert {e.name: dumps(export_event(e)) for e in Event.objects.all()} == events
    assert all(e.is_director(director) for e in Event.objects.all())
    assert director_client.get("/s/club-season/export/?_export=csv").content.decode() == standings


# -- refusals ------------------------------------------------------------------------------------


def test_a_bad_event_refuses_the_whole_file_naming_each_error_at_its_place(director_client):
    data = season_file("shared-medals.json", "nvso-tie-for-gold-bronze-pending.json")
    data["events"][1]["stages"][0]["tables"][2]["rounds"][0]["pips"]["p10"] = 2000
    data["events"][1]["players"][3]["id"] = "p1"
    data["events"][0]["event"]["rules"]["set"] = 13
    data["series"]["points"][1] = -2
    page = upload(director_client, json.dumps(data).encode()).content.decode()
    assert "Nothing was imported." in page
    assert "<code>series.points[1]</code>: -2 is below 0" in page
    assert "<code>events[0].event.rules.set</code>: The set must be double-6, double-9" in page
    assert (
        "<code>events[1].stages[0].tables[2].rounds[0].pips.p10</code>: 2000 is more than the "
        "731 pips that can be left"
    ) in page
    assert "<code>events[1].players[3].id</code>: &quot;p1&quot; is the id of players[0]" in page
    nothing_saved()


def test_the_series_settings_are_checked_each_at_its_place(director_client):
    data = season_file("shared-medals.json")
    data["series"].update(
        name=" ", slug="club season", scoring="best", medal_bonus=[3, 2, 1, 1], best_of=0
    )
    data["series"]["colour"] = "red"
    del data["series"]["tie_break"]
    page = upload(director_client, json.dumps(data).encode()).content.decode()
    for said in (
        "<code>series.tie_break</code>: missing",
        "<code>series.colour</code>: unknown key (expected name, slug, scoring, points, "
        "medal_bonus, best_of, tie_break)",
        "<code>series.name</code>: cannot be empty",
        "<code>series.slug</code>: &quot;club season&quot; is not a short name for links "
        "(letters, digits, - and _)",
        "<code>series.scoring</code>: &quot;best&quot; is not one of &quot;points&quot;, "
        "&quot;per_round&quot;",
        "<code>series.medal_bonus</code>: 4 items: a series file holds at most 3 here",
        "<code>series.best_of</code>: 0 is below 1",
    ):
        assert said in page
    assert "The file has 7 errors" in page
    nothing_saved()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (
            b'{"format": \n  mexican}',
            "<code>line 2, column 3</code>: not valid JSON: Expecting value",
        ),
        (b"[1, 2]", "<code>file</code>: expected an object, not a list"),
        (b"\xff{}", "<code>line 1, column 1</code>: not UTF-8 text (byte 1 cannot be read)"),
        (
            (DATA / "shared-medals.json").read_bytes(),
            "<code>format</code>: &quot;mexican-train-event&quot; is not "
            "&quot;mexican-train-series&quot; (an event file: import it as an event)",
        ),
        (
            json.dumps({**season_file(), "version": 2}).encode(),
            "<code>version</code>: 2 is not a version this site reads (1)",
        ),
        (
            json.dumps({"format": "mexican-train-series", "version": 1, "event": {}}).encode(),
            "<code>series</code>: missing",
        ),
    ],
    ids=["not-json", "not-an-object", "not-utf8", "an-event-file", "version-2", "no-series"],
)
def test_a_file_that_is_not_a_series_file_is_refused_clearly(director_client, content, said):
    page = upload(director_client, content).content.decode()
    assert "Nothing was imported." in page and said in page
    nothing_saved()


def test_a_file_larger_than_a_request_imports_is_refused_saying_the_limit(
    director_client, settings
):
    settings.IMPORT_IN_REQUEST_BYTES = 1_500_000
    text = json.dumps(season_file("shared-medals.json")) + " " * 1_500_000
    page = upload(director_client, text.encode()).content.decode()
    assert "The file is larger than 1.5 MB, the most a series file may be here." in page
    nothing_saved()


def test_events_already_on_the_site_import_as_new_events_and_a_taken_short_name_gives_way(
    director, director_client
):
    make_series(director, "shared-medals.json")
    text = json.dumps(season_file("shared-medals.json")).encode()
    answer = upload(director_client, text)
    copy = Series.objects.get(slug="club-season-2")
    assert answer["Location"] == "/s/club-season-2/"
    first, second = Event.objects.order_by("pk")
    assert second.slug == f"{first.slug}-2" and second.series_entry.series == copy
    assert first.series_entry.series.slug == "club-season"


def test_importing_needs_a_login_and_the_permissions_to_add_series_and_events(client):
    answer = client.get(IMPORT)
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    text = json.dumps(season_file("shared-medals.json")).encode()
    data = {"file": SimpleUploadedFile("s.json", text)}
    assert client.post(IMPORT, data)["Location"].startswith("/accounts/login/")
    user = get_user_model().objects.create_user("keeper", password="x")
    user.user_permissions.add(Permission.objects.get(codename="add_event"))
    client.force_login(user)
    link = f'href="{IMPORT}"'
    assert client.get(IMPORT).status_code == 403 and link not in client.get("/s/").content.decode()
    assert client.post(IMPORT, {"file": SimpleUploadedFile("s.json", text)}).status_code == 403
    nothing_saved()
    user.user_permissions.add(Permission.objects.get(codename="add_series"))
    assert client.get(IMPORT).status_code == 200 and link in client.get("/s/").content.decode()


def test_only_a_director_of_the_series_and_of_each_event_downloads_it(client, director):
    series = make_series(director, "shared-medals.json", "divisions.json")
    answer = download(client, series)
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    other = make_director("another")
    client.force_login(other)
    refused = download(client, series)
    assert refused.status_code == 403
    assert "Only a director of the series and of each of its events" in refused.content.decode()
    series.directors.add(other)  # directs the series, not its events
    assert download(client, series).status_code == 403
    for event in Event.objects.all():
        event.directors.add(other)
    assert download(client, series).status_code == 200
    admin = get_user_model().objects.create_superuser("admin", password="x")
    assert download(logged_in(admin), series).status_code == 200
    assert download(logged_in(admin), Series(slug="nowhere")).status_code == 404


# -- exactly once --------------------------------------------------------------------------------


def test_the_same_form_sent_twice_imports_once(director_client):
    text = json.dumps(season_file("shared-medals.json", "divisions.json")).encode()
    key = form_key(director_client.get(IMPORT))
    first, again = upload(director_client, text, key), upload(director_client, text, key)
    assert first["Location"] == again["Location"] == "/s/club-season/"
    assert Series.objects.count() == 1 and Event.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_directors_double_clicking_the_upload_at_once_import_once(director):
    clients = [logged_in(director) for _ in range(3)]
    text = json.dumps(season_file("shared-medals.json", "divisions.json")).encode()
    key = form_key(clients[0].get(IMPORT))
    results = at_once([lambda c=c: upload(c, text, key) for c in clients])
    no_errors(results)
    assert {r["Location"] for r in results} == {"/s/club-season/"}
    assert Series.objects.count() == 1 and SeriesEvent.objects.count() == 2
    assert Event.objects.count() == 2


# -- records of a series ---------------------------------------------------------------------------


def records_page(client, query="", **headers):
    return client.get(f"/records/{query}", **headers)


def test_the_records_page_shows_a_series_records_over_its_events_only(client, director):
    series = make_series(director, "shared-medals.json")
    outside = import_event((DATA / "untimed-double-9.json").read_bytes(), director=director)
    inside = Event.objects.exclude(pk=outside.pk).get()
    every = records_page(client).content.decode()
    assert inside.name in every and outside.name in every
    assert '<option value="club-season">Club season</option>' in every

    page = records_page(client, "?series=club-season").content.decode()
    assert "Records of Club season" in page and '<option value="club-season" selected>' in page
    assert inside.name in page and outside.name not in page

    add_event(series, outside, director)  # the series' records follow at once
    assert outside.name in records_page(client, "?series=club-season").content.decode()


def test_a_series_not_there_is_said_so_on_the_records_page(client, director):
    make_series(director, "shared-medals.json")
    answer = records_page(client, "?series=nowhere")
    page = answer.content.decode()
    assert answer.status_code == 404
    assert "There is no series with the short name “nowhere”." in page
    assert "Reno Senior Games" not in page and '<option value="club-season">' in page
    assert "Reno Senior Games" in records_page(client).content.decode()


# -- in French -------------------------------------------------------------------------------------


def test_the_import_and_the_records_speak_french_where_the_words_are_translated(
    director, director_client
):
    with translation.override(translation.get_language()):
        french = {"HTTP_ACCEPT_LANGUAGE": "fr"}
        text = json.dumps({**season_file("shared-medals.json"), "version": 2}).encode()
        page = upload(director_client, text, **french).content.decode()
        assert "Rien n'a été importé." in page
        assert "<code>version</code>: 2 n&#x27;est pas une version que ce site lit (1)" in page
        data = season_file("shared-medals.json")
        del data["events"][0]["event"]["rules"]["set"]
        page = upload(director_client, json.dumps(data).encode(), **french).content.decode()
        assert "<code>events[0].event.rules.set</code>: manquante" in page
        make_series(director, "shared-medals.json")
        records = records_page(director_client, "?series=club-season", **french)
        assert "Afficher" in records.content.decode()


def test_a_series_records_are_read_in_as_many_queries_for_three_events_as_for_one(client, director):
    series = make_series(director, "shared-medals.json")

    def queries() -> int:
        records_page(client, "?series=club-season")  # computed once, then kept
        with CaptureQueriesContext(connection) as done:
            page = records_page(client, "?series=club-season").content.decode()
        assert "Records of Club season" in page
        return len(done)

    one = queries()
    for name in ("divisions.json", "untimed-double-9.json"):
        add_event(series, import_event((DATA / name).read_bytes(), director=director), director)
    assert queries() == one


def test_reading_stops_at_a_thousand_errors_over_the_whole_file(director_client):
    data = season_file("shared-medals.json", "divisions.json")
    for event in data["events"]:
        event["players"] += [{"id": f"x{i}", "name": "", "division": None} for i in range(600)]
    with pytest.raises(SeriesFileError) as refused:
        validate_series(json.dumps(data))
    located = refused.value.located
    assert len(located) == 1_001 and located[-1] == ("file", "reading stopped after 1000 errors")
    assert located[600][0].startswith("events[1].players[")
    page = upload(director_client, json.dumps(data).encode()).content.decode()
    assert "The file has 1001 errors" in page and "and 801 more errors" in page
    nothing_saved()


# -- who is who (issue 45 item 4) ----------------------------------------------------------------


def test_the_directors_words_on_who_is_who_travel_with_the_series(director, director_client):
    from tests.test_people import night  # a club night typed from the list, no member numbers

    one = night(director, "Night One", 5, {"Ann Lee": 5, "Bo Diaz": 10, "Cy Young": 20})
    two = night(
        director,
        "Night Two",
        12,
        {"Ann Lee": 5, "Bo Diaz": 10, "Cy Young": 20},
        clubs={"Ann Lee": ""},  # only probably the same Ann: a director links her
    )
    series = create_series(Series(name="Club season", slug="club-season"), director)
    for event in (one, two):
        add_event(series, event, director)
    ann, cy = (two.players.get(name=n) for n in ("Ann Lee", "Cy Young"))
    link_same_person(ann, one.players.get(name="Ann Lee"), director)
    keep_apart(cy, one.players.get(name="Cy Young"), director)  # two Cy Youngs of one club
    standings = director_client.get("/s/club-season/export/?_export=csv").content.decode()
    assert standings.count("Ann Lee") == 1 and standings.count("Cy Young") == 2
    text = download(director_client, series).content.decode()
    people = json.loads(text)["people"]
    assert [p["same"] for p in people] == [True, False]
    assert all(len({e for e, _id in p["players"]}) == 2 for p in people)

    Series.objects.all().delete()
    Event.objects.all().delete()
    assert upload(director_client, text.encode()).status_code == 302
    copy = Series.objects.get()
    assert download(director_client, copy).content.decode() == text
    assert director_client.get("/s/club-season/export/?_export=csv").content.decode() == standings


@pytest.mark.parametrize(
    ("people", "where", "said"),
    [
        ("nobody", "people", "expected a list"),
        ([{"players": [[0, "x"]], "same": True}], "people[0].players", "expected two players"),
        (
            [{"players": [[0, "x"], [1, "y"]]}],
            "people[0]",
            "expected an object with players and same",
        ),
        (
            [{"players": [[0, "nobody"], [1, "p1"]], "same": True}],
            "people[0].players[0]",
            "is not a player of events[0]",
        ),
        (
            [{"players": [[0, "p1"], [7, "p1"]], "same": True}],
            "people[0].players[1]",
            "is not the index of an event of this file",
        ),
        (
            [{"players": [[0, "p1"], [0, "p2"]], "same": True}],
            "people[0].players",
            "two players of one event are two people",
        ),
        ([{"players": [[0, "p1"], [1, "p1"]], "same": "yes"}], "people[0].same", "true or false"),
    ],
)
def test_bad_words_on_who_is_who_are_refused_at_their_place(director_client, people, where, said):
    data = season_file("shared-medals.json", "divisions.json")
    first = [p["id"] for p in data["events"][0]["players"]]
    second = [p["id"] for p in data["events"][1]["players"]]
    for word in people if isinstance(people, list) else []:
        for pair in word.get("players", []):
            ids = first if pair[0] == 0 else second
            pair[1] = {"p1": ids[0], "p2": ids[1]}.get(pair[1], pair[1])
    data["people"] = people
    answer = upload(director_client, json.dumps(data).encode())
    page = answer.content.decode()
    assert answer.status_code == 200 and where in page and said in page
    nothing_saved()
