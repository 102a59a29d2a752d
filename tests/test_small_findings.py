"""The smaller findings of the audit (issue 27, item 10; issue 28, item 24): each refused or
answered without a server error, through the page a person uses."""

import logging
import re
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from scoring.models import PersonLink, Round
from scoring.sheets import table_sheet
from tests.concurrency import at_once, form_key, hidden_fields, logged_in, no_errors
from tests.factories import make_director, make_players
from tests.test_event_setup import NVSO_FORM
from tournament.models import Event, Seat
from tournament.services import events as services

# -- two directors create events of the same name at once ----------------------------------


def slug_checked_by_all(count: int):
    """``unique_slug`` as the site has it, where each of ``count`` threads, having checked its
    short name, waits for the others to have checked theirs before inserting (the race the
    audit saw on PostgreSQL). SQLite's writers queue at the start of their transaction
    (IMMEDIATE), so there no two can check at once: they run as they come."""
    real = services.unique_slug
    if connection.vendor == "sqlite":
        return real
    barrier = threading.Barrier(count)
    waited = set()

    def checked_then_wait(name, date):
        slug = real(name, date)
        if threading.get_ident() not in waited:
            waited.add(threading.get_ident())
            barrier.wait(60)
        return slug

    return checked_then_wait


@pytest.mark.django_db(transaction=True)
def test_directors_creating_events_of_the_same_name_at_once_each_get_their_own(monkeypatch):
    clients = [logged_in(make_director()) for _ in range(4)]
    posts = [{**NVSO_FORM, "once": form_key(c.get("/director/new/"))} for c in clients]
    monkeypatch.setattr(services, "unique_slug", slug_checked_by_all(len(clients)))
    results = at_once(
        [lambda c=c, p=p: c.post("/director/new/", p) for c, p in zip(clients, posts, strict=True)]
    )
    no_errors(results)
    events = Event.objects.filter(name="NVSO 2026")
    assert sorted(events.values_list("slug", flat=True)) == [
        "nvso-2026",
        "nvso-2026-2",
        "nvso-2026-3",
        "nvso-2026-4",
    ]
    for c, r in zip(clients, results, strict=True):
        mine = events.get(directors=c.session["_auth_user_id"])
        assert r["Location"] == f"/director/e/{mine.slug}/players/"
        assert list(mine.stages.values_list("name", flat=True)) == ["Game 1", "Final"]


@pytest.mark.django_db
def test_a_short_name_taken_between_its_check_and_the_insert_takes_the_next(
    director_client, monkeypatch
):
    """Another director's event inserted right after this one's check (same connection here,
    so that SQLite shows it too): the new event takes the next free short name."""
    real = services.unique_slug
    taken = []

    def taken_right_after_the_check(name, date):
        slug = real(name, date)
        if not taken:
            taken.append(Event.objects.create(name="Other", slug=slug, date=NVSO_FORM["date"]))
        return slug

    monkeypatch.setattr(services, "unique_slug", taken_right_after_the_check)
    response = director_client.post("/director/new/", NVSO_FORM)
    assert response.status_code == 302
    mine = Event.objects.get(name="NVSO 2026")
    assert mine.slug == "nvso-2026-2"
    assert response["Location"] == f"/director/e/{mine.slug}/players/"
    assert mine.stages.count() == 2


# -- ids out of the database's range -------------------------------------------------------

HUGE = "99999999999999999999"


@pytest.mark.django_db
@pytest.mark.parametrize("table", [HUGE, "²", "-1", "1.0"])
def test_a_table_id_the_database_cannot_hold_is_refused_on_the_scorekeepers_page(
    director_client, seated, table
):
    url = f"/director/e/{seated.event.slug}/scorekeepers/"
    response = director_client.post(url, {"username": "desk1", "tables": [table]})
    assert response.status_code == 200
    assert f"“{table}” is not a valid value." in response.content.decode()
    assert not get_user_model().objects.filter(username="desk1").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("other", [HUGE, "²"])
def test_an_other_player_id_the_database_cannot_hold_is_refused(director_client, seated, other):
    player = seated.event.players.first()
    url = f"/director/e/{seated.event.slug}/player/{player.pk}/same-person/"
    response = director_client.post(url, {"other": other}, follow=True)
    assert response.status_code == 200
    assert "Choose a player of another event you direct." in response.content.decode()
    assert not PersonLink.objects.exists()


@pytest.mark.django_db
def test_a_huge_table_or_player_id_in_the_seating_forms_is_refused(director_client, seated):
    slug = seated.event.slug
    (player,) = make_players(seated.event, names=["Late Comer"])
    late = director_client.post(
        f"/director/e/{slug}/players/{player.pk}/", {"late": "1", "table": HUGE}
    )
    assert "Select a valid choice." in late.content.decode()
    assert not player.seats.exists()
    moved = director_client.post(
        f"/director/e/{slug}/1/seat/", {"move": "1", "player": HUGE, "table": HUGE}, follow=True
    )
    assert "Choose a seated player and a table." in moved.content.decode()
    assert director_client.get(f"/director/e/{slug}/players/{HUGE}/").status_code == 404
    assert director_client.post(f"/director/e/{slug}/{HUGE}/seat/", {}).status_code == 404


# -- one player alone in a division ----------------------------------------------------------


def draw(client, event):
    page = client.get(f"/e/{event.slug}/1/seating/")
    return client.post(f"/director/e/{event.slug}/1/seat/", {"once": form_key(page)}, follow=True)


@pytest.mark.django_db
def test_one_player_alone_in_a_division_leaves_the_others_seated_and_is_named(
    director_client, event
):
    make_players(event, count=15, division="Open")
    (alone,) = make_players(event, names=["Ada Alone"], division="80+")
    page = draw(director_client, event).content.decode()
    seated = Seat.objects.filter(stage__event=event)
    assert seated.count() == 15
    assert not seated.filter(player=alone).exists()
    assert set(seated.values_list("player__division", flat=True)) == {"Open"}
    assert "4 tables drawn." in page
    assert (
        "Division 80+: 1 player checked in, a table needs at least 2: move them to another "
        "division, or check in more." in page
    )


@pytest.mark.django_db
def test_a_draw_where_no_division_can_be_seated_names_each_and_seats_nobody(director_client, event):
    make_players(event, names=["Ada"], division="80+")
    make_players(event, names=["Bea"], division="Juniors")
    page = draw(director_client, event).content.decode()
    assert not Seat.objects.exists()
    assert "Division 80+: 1 player checked in" in page
    assert "Division Juniors: 1 player checked in" in page
    assert "tables drawn" not in page


@pytest.mark.django_db
def test_a_division_the_rules_cannot_split_says_why(director_client, director):
    from tests.factories import make_event

    event = make_event(director, table_size=4, tiles_drawn={"4": 12})
    make_players(event, count=8, division="Open")
    make_players(event, names=["A", "B", "C"], division="80+")
    page = draw(director_client, event).content.decode()
    assert Seat.objects.filter(stage__event=event).count() == 8
    assert "Division 80+ cannot be seated: 3 players cannot be seated" in page


# -- pip cells posted without the page's script ---------------------------------------------


def entry_page(client, table):
    url = f"/director/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}/enter/"
    page = client.get(url)
    data = {k: v for k, v in hidden_fields(page).items() if k != "csrfmiddlewaretoken"}
    return url, data


def field_errors(response, name) -> list[str]:
    """The messages the page shows at the field ``name``."""
    form = response.context["form"]
    return [str(e) for e in form.errors.get(name, [])]


@pytest.mark.django_db
@pytest.mark.parametrize("typed", ["1_0", "٣", "１２", "+5", "5.0", "1e1", "0x1", " 3 4"])
def test_a_pip_count_that_is_not_ascii_digits_is_refused_at_its_cell(
    director_client, seated, typed
):
    table = seated.tables.first()
    players = table_sheet(table).players
    url, data = entry_page(director_client, table)
    data.update({f"p{p.pk}": v for p, v in zip(players, [typed, "0", "4", "5"], strict=True)})
    response = director_client.post(url, data)
    assert response.status_code == 200
    cell = f"p{players[0].pk}"
    assert field_errors(response, cell) == [f"'{typed.strip()}' is not a whole number of pips."]
    page = response.content.decode()
    assert f"&#x27;{typed.strip()}&#x27; is not a whole number of pips." in page
    assert not Round.objects.exists()


@pytest.mark.django_db
def test_a_pip_cell_posted_twice_is_refused_not_read_as_its_last_value(director_client, seated):
    table = seated.tables.first()
    players = table_sheet(table).players
    url, data = entry_page(director_client, table)
    data.update({f"p{p.pk}": v for p, v in zip(players, ["3", "0", "4", "5"], strict=True)})
    data[f"p{players[0].pk}"] = ["3", "30"]
    response = director_client.post(url, data)
    assert response.status_code == 200
    assert field_errors(response, f"p{players[0].pk}") == [
        "This field was sent more than once: enter the value again."
    ]
    assert "This field was sent more than once: enter the value again." in (
        response.content.decode()
    )
    assert not Round.objects.exists()


@pytest.mark.django_db
def test_a_hidden_field_posted_twice_is_refused_for_the_whole_form(director_client, seated):
    table = seated.tables.first()
    players = table_sheet(table).players
    url, data = entry_page(director_client, table)
    data.update({f"p{p.pk}": v for p, v in zip(players, ["3", "0", "4", "5"], strict=True)})
    data["number"] = [data["number"], "2"]
    response = director_client.post(url, data)
    assert response.status_code == 200
    assert "The form was sent with a field twice: reload the page." in response.content.decode()
    assert not Round.objects.exists()


@pytest.mark.django_db
def test_ascii_digits_and_spaces_around_them_still_save(director_client, seated):
    table = seated.tables.first()
    players = table_sheet(table).players
    url, data = entry_page(director_client, table)
    data.update({f"p{p.pk}": v for p, v in zip(players, [" 3 ", "0", "04", "5"], strict=True)})
    assert director_client.post(url, data).status_code == 302
    (saved,) = Round.objects.all()
    pips = dict(saved.scores.values_list("player_id", "pips"))
    assert pips == {players[0].pk: 3, players[1].pk: 0, players[2].pk: 4, players[3].pk: 5}


# -- refusals in the log ---------------------------------------------------------------------


def request_records(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "django.request"]


@pytest.mark.django_db
def test_a_refused_page_is_one_line_in_the_log_without_a_traceback(client, event, caplog):
    client.force_login(make_director("other"))
    with caplog.at_level(logging.INFO):
        assert client.get(f"/director/e/{event.slug}/players/").status_code == 403
    (record,) = request_records(caplog)
    assert record.levelno == logging.WARNING
    assert record.exc_info is None and record.exc_text is None
    line = record.getMessage()
    assert line.startswith(f"403 GET /director/e/{event.slug}/players/ by other: ")
    assert "\n" not in line
    assert "Traceback" not in caplog.text


@pytest.mark.django_db
def test_a_page_not_found_is_one_line_at_info_naming_nobody(client, caplog):
    with caplog.at_level(logging.INFO):
        assert client.get("/e/no-such-event/%0Aforged/").status_code == 404
    (record,) = request_records(caplog)
    assert record.levelno == logging.INFO
    assert record.exc_info is None
    line = record.getMessage()
    assert line == "404 GET /e/no-such-event/\\nforged/ by anonymous: Not Found"
    assert "\n" not in line


@pytest.mark.django_db
def test_a_server_error_keeps_its_traceback(event, caplog, monkeypatch):
    from tournament.views import events as views

    def broken(self, **kwargs):
        raise RuntimeError("the page broke")

    monkeypatch.setattr(views.FindTableView, "get_context_data", broken)
    with caplog.at_level(logging.INFO):
        response = Client(raise_request_exception=False).get(f"/e/{event.slug}/find/")
    assert response.status_code == 500
    (record,) = request_records(caplog)
    assert record.levelno == logging.ERROR
    assert record.exc_info and isinstance(record.exc_info[1], RuntimeError)
    assert "Traceback" in caplog.text and "the page broke" in caplog.text


# -- the favicon -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_pages_link_an_icon_that_exists_and_favicon_ico_leads_to_it(client):
    from django.conf import settings
    from django.contrib.staticfiles import finders

    page = client.get("/").content.decode()
    (href,) = re.findall(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', page)
    assert href.startswith(settings.STATIC_URL)
    icon = finders.find(href.removeprefix(settings.STATIC_URL))
    assert icon and "<svg" in open(icon, encoding="utf-8").read()
    asked = client.get("/favicon.ico")
    assert asked.status_code in (301, 302)
    assert asked["Location"] == href


def too_many(kind: str, settings) -> dict:
    """A form of more fields (or files) than Django reads, as a page's form would post it."""
    if kind == "files":
        from django.core.files.uploadedfile import SimpleUploadedFile

        count = settings.DATA_UPLOAD_MAX_NUMBER_FILES + 1
        return {"photo": [SimpleUploadedFile(f"{n}.jpg", b"x") for n in range(count)]}
    fields = {f"f{n}": "x" for n in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)}
    if kind == "urlencoded":
        from urllib.parse import urlencode

        return {"data": urlencode(fields), "content_type": "application/x-www-form-urlencoded"}
    return {"data": fields}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "kind, said",
    [
        ("multipart", "DATA_UPLOAD_MAX_NUMBER_FIELDS"),
        ("urlencoded", "DATA_UPLOAD_MAX_NUMBER_FIELDS"),
        ("files", "DATA_UPLOAD_MAX_NUMBER_FILES"),
    ],
)
def test_a_form_of_too_many_fields_is_one_line_in_the_log_without_a_traceback(
    caplog, settings, kind, said
):
    # The log-in form posted with more fields (or files) than Django reads: a 400, logged as
    # one line as a 403 is, not as an error with its traceback.
    posted = too_many(kind, settings)
    if "data" not in posted:
        posted = {"data": posted}
    with caplog.at_level(logging.INFO):
        response = Client(raise_request_exception=False).post("/accounts/login/", **posted)
    assert response.status_code == 400
    (record,) = [r for r in caplog.records if r.name.startswith("django.")]
    assert record.levelno == logging.WARNING
    assert record.exc_info is None and record.exc_text is None
    line = record.getMessage()
    assert line.startswith("400 POST /accounts/login/ by anonymous: ")
    assert said in line and "\n" not in line
    assert "Traceback" not in caplog.text
