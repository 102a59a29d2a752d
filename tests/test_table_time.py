"""Time per table (issue 50 item 1, PRODUCT.md §15), through the pages: a director gives one
table minutes of its own from the stage's clock or the table's page; its phone and its entry
page count its own time, and it plays on after the room's time is called; the close names a
table that played fewer rounds than the others. The rule itself: tests/test_table_clock.py."""

import html
import io
import json
import re
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from pypdf import PdfReader

from scoring.eventfile import EventFileError, dumps, export_event, import_event
from scoring.models import Round
from scoring.services.rounds import end_game
from tests.concurrency import at_once, logged_in, no_errors, said
from tests.factories import make_director, make_event, make_players, play, seat
from tournament.models import Action, Event, Stage, Table
from tournament.services.clock import call_time, change_table_minutes, start_clock

MIN = timedelta(minutes=1)


def text(response) -> str:
    return html.unescape(response.content.decode())


def words(response) -> str:
    """The page as read: tags out, spaces (a no-break one too) as one."""
    plain = re.sub(r"<[^>]+>", " ", text(response))
    return re.sub(r"\s+", " ", plain.replace("\u00a0", " ").replace("\u202f", " "))


def table_time_form(response) -> dict[str, str]:
    """The hidden fields of the page's "extra time for a table" form, as the browser sends
    them (its once key, and on a table's page its table number)."""
    form = re.search(r'<form[^>]*id="table-time-form".*?</form>', text(response), re.S)
    assert form, "the page has no extra-time form"
    fields = {}
    for tag in re.findall(r"<input[^>]*>", form.group(0)):
        if 'type="hidden"' in tag:
            name = re.search(r'name="([^"]+)"', tag).group(1)
            fields[name] = re.search(r'value="([^"]*)"', tag).group(1)
    return fields


def clock_config(response) -> dict:
    """The clock's json_script on a page (the first one)."""
    found = re.search(r'<script type="application/json">(.*?)</script>', text(response), re.S)
    return json.loads(found.group(1))


STAGE_PAGE = "/e/spring/1/"
TIME_URL = "/director/e/spring/1/table-time/"
CLOSE_URL = "/director/e/spring/1/close/"


@pytest.fixture
def tables(seated, director):
    """Game 1's two tables, its clock started 10 minutes ago (60 minutes a game)."""
    Event.objects.filter(pk=seated.event.pk).update(table_entry=True)
    start_clock(seated, director, timezone.now() - 10 * MIN)
    return list(Table.objects.filter(stage=seated).order_by("number"))


def give(client, page_url, **fields):
    """Fill the page's extra-time form and send it, as the director's browser does."""
    page = client.get(page_url)
    data = {**table_time_form(page), "action": "add", **fields}
    return client.post(TIME_URL, data, follow=True)


@pytest.mark.django_db
def test_a_director_gives_one_table_minutes_from_the_stages_clock(director_client, tables):
    response = give(director_client, STAGE_PAGE, table="2", minutes="5", reason="Late start")
    assert response.redirect_chain[-1][0] == STAGE_PAGE
    page = words(response)
    assert re.search(r"Table 2: 5 minutes added, 5\d:\d\d left\.", page), page
    assert [t.clock_added for t in Table.objects.order_by("number")] == [timedelta(0), 5 * MIN]
    ends = timezone.localtime(tables[1].stage.clock_started_at + 65 * MIN).strftime("%H:%M")
    assert f"Tables with extra time: Table 2: +5 min, until {ends}" in page
    entry = Action.objects.get(verb="table.minutes_added")
    assert (entry.data["table"], entry.data["minutes"], entry.reason) == (2, 5, "Late start")
    history = words(director_client.get("/director/e/spring/history/"))
    assert "Game 1, table 2: 5 minutes added to its clock (5 min in all)" in history
    # the room's screen lists it too, and clock.json for every screen that reads it again
    assert f"Table 2: +5 min, until {ends}" in words(Client().get("/e/spring/1/clock/"))
    room = json.loads(Client().get("/e/spring/1/clock.json").content)
    assert room["extra_tables"] == [f"Table 2: +5 min, until {ends}"]


@pytest.mark.django_db
def test_the_tables_phone_and_entry_page_count_its_own_time(director_client, tables):
    table = tables[0]
    entry_url = f"/director/e/spring/1/table/{table.number}/enter/"
    give(director_client, entry_url, minutes="7", reason="Spilled the set")
    phone = Client()
    phone.post(f"/t/{table.code}/", {"player": table.seats.first().player_id})
    for response in (phone.get(f"/t/{table.code}/enter/"), director_client.get(entry_url)):
        config = clock_config(response)
        assert config["url"] == "/e/spring/1/clock.json?table=1"
        assert 56 * 60 < config["clock"]["remaining"] <= 57 * 60  # 50 left + its 7
        assert config["clock"]["added_minutes"] == 7
        assert "+7 min for this table" in words(response)
    # the other table keeps the room's time
    other = json.loads(Client().get("/e/spring/1/clock.json?table=2").content)
    assert other["remaining"] <= 50 * 60 and other["added_minutes"] == 0
    assert other["mark"] != clock_config(phone.get(f"/t/{table.code}/enter/"))["clock"]["mark"]


@pytest.mark.django_db
def test_the_room_is_called_and_the_table_with_minutes_plays_on(director_client, director, seated):
    Event.objects.filter(pk=seated.event.pk).update(table_entry=True)
    first, second = Table.objects.filter(stage=seated).order_by("number")
    start_clock(seated, director, timezone.now() - 58 * MIN)
    play(first, 3)
    play(second, 3)
    give(director_client, STAGE_PAGE, table="1", minutes="5", reason="Late start")
    start = seated.event.stages.get(number=1).clock_started_at
    Stage.objects.filter(pk=seated.pk).update(clock_started_at=start - 3 * MIN)  # ran out
    own = json.loads(Client().get("/e/spring/1/clock.json?table=1").content)
    room = json.loads(Client().get("/e/spring/1/clock.json?table=2").content)
    assert room["state"] == "time_called" and room["remaining"] == 0
    assert own["state"] == "running" and 3 * 60 < own["remaining"] <= 4 * 60
    assert own["label"].startswith("Extra time: until ")
    # table 1 enters its rounds as before the call; table 2 is told time was called
    entry = "/director/e/spring/1/table/{}/enter/"
    assert "Time was called" not in words(director_client.get(entry.format(1)))
    assert "Time was called at" in words(director_client.get(entry.format(2)))
    play(first, 2)  # no confirmation asked: its own time runs
    assert Round.objects.filter(table=first).count() == 5
    # the close page offers to mark over only the table whose time is called
    close = text(director_client.get(CLOSE_URL))
    assert 'id="over-2"' in close and 'id="over-1"' not in close


@pytest.mark.django_db
def test_minutes_are_taken_back_from_the_tables_page(director_client, tables):
    entry_url = "/director/e/spring/1/table/1/enter/"
    give(director_client, entry_url, minutes="5", reason="Late start")
    response = give(director_client, entry_url, minutes="9", reason="Oops", action="remove")
    assert response.redirect_chain[-1][0] == entry_url
    assert "Remove at most the 5 min added to this table" in words(response)
    assert Table.objects.get(number=1).clock_added == 5 * MIN
    response = give(director_client, entry_url, minutes="5", reason="Oops", action="remove")
    assert re.search(r"Table 1: 5 minutes taken back, (49:5\d|50:00) left\.", words(response))
    assert Table.objects.get(number=1).clock_added == timedelta(0)
    assert "+5 min for this table" not in words(response)
    assert Action.objects.filter(verb="table.minutes_removed").count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "said_"),
    [
        ({"table": "9", "minutes": "5", "reason": "x"}, "Game 1 has no table 9."),
        ({"table": "", "minutes": "5", "reason": "x"}, "Give the table's number."),
        ({"table": "1", "minutes": "five", "reason": "x"}, "Give the minutes as a whole number."),
        ({"table": "1", "minutes": "0", "reason": "x"}, "Add between 1 and 600 minutes"),
        ({"table": "1", "minutes": "5", "reason": " "}, "Give the reason."),
        ({"table": "1", "minutes": "-5", "reason": "x"}, "Give the minutes as a whole number."),
    ],
)
def test_bad_input_says_why_and_saves_nothing(director_client, tables, fields, said_):
    response = give(director_client, STAGE_PAGE, **fields)
    assert response.status_code == 200
    assert said_ in words(response)
    assert not Table.objects.exclude(clock_added=timedelta(0)).exists()
    assert not Action.objects.filter(verb__startswith="table.minutes").exists()


@pytest.mark.django_db
def test_a_table_whose_game_is_over_gets_no_more_minutes(director_client, director, tables):
    play(tables[0], 2)
    call_time(tables[0].stage, director)
    end_game(tables[0], 2, director)
    response = give(director_client, STAGE_PAGE, table="1", minutes="5", reason="x")
    assert "Table 1's game is marked over: reopen it first." in words(response)
    assert Table.objects.get(number=1).clock_added == timedelta(0)


@pytest.mark.django_db
def test_only_the_events_directors_give_minutes(client, tables):
    response = client.post(TIME_URL, {"table": "1", "minutes": "5", "reason": "x"})
    assert response.status_code in (302, 403)
    other = logged_in(make_director("other-boss"))
    assert other.post(TIME_URL, {"table": "1", "minutes": "5", "reason": "x"}).status_code == 403
    assert Client().get(TIME_URL).status_code in (302, 403, 405)
    assert not Table.objects.exclude(clock_added=timedelta(0)).exists()
    assert 'id="table-time-form"' not in text(client.get(STAGE_PAGE))


@pytest.mark.django_db
def test_the_same_form_sent_twice_adds_once(director_client, tables):
    page = director_client.get(STAGE_PAGE)
    data = {**table_time_form(page), "action": "add", "table": "1", "minutes": "5", "reason": "x"}
    director_client.post(TIME_URL, data)
    director_client.post(TIME_URL, data)  # a double click, a browser's retry
    assert Table.objects.get(number=1).clock_added == 5 * MIN
    assert Action.objects.filter(verb="table.minutes_added").count() == 1


@pytest.mark.django_db
def test_a_change_moves_the_version_every_screen_asks(director_client, tables):
    before = Event.objects.get(slug="spring")
    give(director_client, STAGE_PAGE, table="1", minutes="5", reason="x")
    after = Event.objects.get(slug="spring")
    assert after.version > before.version and after.shared_version > before.shared_version


# -- the close -------------------------------------------------------------------------------


def short_stage(director, seated):
    """Game 1 timed out: table 1 played 9 rounds, table 2 all 12 before the call; both marked."""
    first, second = Table.objects.filter(stage=seated).order_by("number")
    start_clock(seated, director, timezone.now() - 30 * MIN)
    play(first, 9)
    play(second, 12)
    call_time(seated, director)
    end_game(first, 9, director)
    end_game(second, 12, director)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "said_", "confirm"),
    [
        ("en", "Table 1 played 9 rounds, the others 12.", "Close the stage anyway?"),
        ("fr", "La table 1 a joué 9 manches, les autres 12.", "Clore la phase quand même ?"),
    ],
)
def test_the_close_names_the_table_that_played_fewer_rounds(
    director_client, director, seated, language, said_, confirm
):
    short_stage(director, seated)
    headers = {"HTTP_ACCEPT_LANGUAGE": language}
    page = director_client.get(CLOSE_URL, **headers)
    assert said_ in words(page)
    button = re.search(r'<button[^>]*id="close-stage"[^>]*>', text(page)).group(0)
    assert said_ in button and confirm in button.replace("\u00a0", " ")
    # the director can still close, and the closed page says it again
    director_client.post(CLOSE_URL, {"action": "close"}, **headers)
    assert seated.event.stages.get(number=1).closed
    closed = words(director_client.get(CLOSE_URL, **headers))
    assert "Confirm" not in closed and said_ in closed


@pytest.mark.django_db
def test_a_stage_whose_tables_played_alike_names_none(director_client, director, seated):
    first, second = Table.objects.filter(stage=seated).order_by("number")
    start_clock(seated, director, timezone.now() - 30 * MIN)
    play(first, 10)
    play(second, 10)
    call_time(seated, director)
    end_game(first, 10, director)
    end_game(second, 10, director)
    page = text(director_client.get(CLOSE_URL))
    button = re.search(r'<button[^>]*id="close-stage"[^>]*>', page).group(0)
    assert 'id="short-tables"' not in page and "data-confirm" not in button


# -- at once, on SQLite and PostgreSQL ----------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_directors_pressing_at_once_add_once_per_form(director):
    event = make_event(director, name="Spring Games", slug="spring")
    make_players(event, count=8)
    stage = seat(event)
    start_clock(stage, director, timezone.now() - 10 * MIN)
    clients = [logged_in(director), logged_in(director), logged_in(director)]
    forms = [table_time_form(c.get(STAGE_PAGE)) for c in clients]
    data = [{**f, "action": "add", "table": "1", "minutes": "5", "reason": "x"} for f in forms]
    # the first director's form three times (double clicks), the others once each
    sends = [(clients[0], data[0])] * 3 + [(clients[1], data[1]), (clients[2], data[2])]
    results = at_once([lambda c=c, d=d: c.post(TIME_URL, d) for c, d in sends])
    no_errors(results)
    assert Table.objects.get(stage=stage, number=1).clock_added == 15 * MIN
    assert Action.objects.filter(verb="table.minutes_added").count() == 3
    assert not [m for r in results for m in said(r) if "error" in m.lower()]


# -- the event file --------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_tables_minutes_travel_in_the_event_file_and_back(director_client, tables):
    give(director_client, STAGE_PAGE, table="2", minutes="6", reason="Late start")
    event = Event.objects.get(slug="spring")
    text_ = dumps(export_event(event))
    data = json.loads(text_)
    assert [t.get("extra", {}).get("added_minutes") for t in data["stages"][0]["tables"]] == [
        None,
        6,
    ]
    Event.objects.all().delete()
    response = director_client.post(
        "/director/import/", {"file": SimpleUploadedFile("e.json", text_.encode())}
    )
    assert response.status_code == 302
    copy = Event.objects.get()
    assert [t.clock_added for t in Table.objects.filter(stage__event=copy).order_by("number")] == [
        timedelta(0),
        6 * MIN,
    ]
    assert dumps(export_event(copy)) == text_


@pytest.mark.django_db
def test_a_file_giving_minutes_to_a_table_of_an_untimed_game_is_refused(director_client, tables):
    give(director_client, STAGE_PAGE, table="2", minutes="6", reason="Late start")
    data = json.loads(dumps(export_event(Event.objects.get(slug="spring"))))
    data["event"]["rules"]["game_minutes"] = None
    data["stages"][0].get("extra", {}).pop("clock", None)
    Event.objects.all().delete()
    with pytest.raises(EventFileError) as refused:
        import_event(data)
    assert "stages[0].tables[1].extra.added_minutes" in str(refused.value)
    assert "untimed game has no time limit" in str(refused.value)
    assert not Event.objects.exists()


@pytest.mark.django_db
def test_each_printed_sheet_says_its_own_tables_time_called(client, director, tables):
    start = timezone.now() - 50 * MIN
    Stage.objects.filter(pk=tables[0].stage_id).update(clock_started_at=start)
    change_table_minutes(tables[0].stage, 1, director, 5, "Late start")
    call_time(tables[0].stage, director, now=start + 40 * MIN)  # 10 minutes ago
    response = client.get("/e/spring/1/sheets.pdf")
    assert response["Content-Type"] == "application/pdf"
    pages = [p.extract_text() for p in PdfReader(io.BytesIO(response.content)).pages]
    shown = [re.search(r"Time called ?(\d\d:\d\d)?", p).group(1) for p in pages]
    hhmm = [timezone.localtime(start + m * MIN).strftime("%H:%M") for m in (45, 40)]
    assert shown == hhmm
