"""The entry pages' rough edges (issue 28 items 7, 12-16, 22), through the pages a director,
a scorekeeper and a table's phones use: rounds named by their engine once time is called,
removing the last round where it works, a decided playoff thanked, a clock never started
warned about, a round saved meanwhile shown as saved, the phone's page live."""

import html
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from scoring.models import Round
from scoring.sheets import table_sheet
from tests.concurrency import hidden_fields
from tests.factories import make_players, play, seat
from tests.test_advancement import advance_url, play_totals
from tests.test_finals import edit, short_event
from tests.test_table_entry import enter, phone, shown_code
from tournament.models import Event, Stage, StageKind, Table
from tournament.services.clock import call_time, start_clock

pytestmark = pytest.mark.django_db
MIN = timedelta(minutes=1)


def text(response) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())))


def entry_url(table):
    return f"/director/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}/enter/"


def table_url(table):
    return f"/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}/"


def entry_post(table, values, **extra):
    """What the entry page posts: the pips typed, the round it shows, boxes ticked."""
    sheet = table_sheet(table)
    data = {f"p{p.pk}": v for p, v in zip(sheet.players, values, strict=True)}
    data.update(number=len(sheet.rounds) + 1, shown_engine=sheet.next_engine, **extra)
    return data


@pytest.fixture
def table(seated):
    return Table.objects.select_related("stage__event").get(stage=seated, number=1)


@pytest.fixture
def keeper_client(table):
    keeper = get_user_model().objects.create_user("keeper")
    table.scorekeepers.add(keeper)
    client = Client()
    client.force_login(keeper)
    return client


# -- 12, 13: after time is called, rounds are named by their engine -------------------------


def test_late_rounds_are_named_by_their_engine_and_the_page_says_what_to_do(
    keeper_client, table, director
):
    play(table, 3)  # 12-12, 11-11, 10-10 typed before the call
    start_clock(table.stage, director, timezone.now() - 30 * MIN)
    call_time(table.stage, director)
    assert keeper_client.post(entry_url(table), entry_post(table, [0, 4, 5, 6])).status_code == 302
    page = text(keeper_client.get(entry_url(table)))  # 8-8 is two past the call: a box to tick
    assert "Round 8-8 was played before time was called." in page
    assert "Game over after round 9-9" in page
    assert "If round 9-9 was this table's last when time was called" in page
    assert "Round 5 " not in page and "after round 4 " not in page
    refused = text(keeper_client.post(entry_url(table), entry_post(table, [0, 4, 5, 6])))
    assert (
        "Tick the box if round 8-8 was played before time was called. If it was not, do not "
        "enter it: end the table's game after its last round instead." in refused
    )
    assert Round.objects.filter(table=table).count() == 4
    ticked = entry_post(table, [0, 4, 5, 6], played_before_call="on", last="on")
    done = text(keeper_client.post(entry_url(table), ticked, follow=True))
    assert "Round 8-8 saved. Game over after round 8-8 (time called)." in done
    assert "Every round of this table has been entered" not in done
    assert 'id="round-form"' not in done


def test_the_game_over_button_names_the_last_round_by_its_engine(keeper_client, table, director):
    play(table, 5)
    start_clock(table.stage, director, timezone.now() - 30 * MIN)
    call_time(table.stage, director)
    end = f"/director/e/{table.stage.event.slug}/1/table/1/game-over/"
    page = text(keeper_client.post(end, {"rounds": "5"}, follow=True))
    assert "Game over after round 8-8 (time called)." in page
    assert "Every round of this table has been entered" not in page


# -- 14: "Remove the last round" where it works ----------------------------------------------


def test_the_last_round_is_removed_from_the_entry_and_table_pages_only(director_client, table):
    play(table, 3)
    remove = f"/director/e/{table.stage.event.slug}/1/table/1/round/3/remove/"
    for url in (entry_url(table), table_url(table)):
        page = director_client.get(url).content.decode()
        assert f'href="{remove}"' in page, url
        assert "Remove the last round (10-10)" in text(director_client.get(url))
    correct = f"/director/e/{table.stage.event.slug}/1/table/1/round/%s/correct/"
    assert "/remove/" not in director_client.get(correct % 1).content.decode()
    assert remove in director_client.get(correct % 3).content.decode()
    assert remove not in Client().get(table_url(table)).content.decode()  # not for visitors
    form = director_client.get(remove)
    done = director_client.post(
        remove, {"reason": "wrong table", "once": form.context["form"]["once"].value()}
    )
    assert done.status_code == 302 and Round.objects.filter(table=table).count() == 2


# -- 15: a phone confirming the playoff's deciding round is thanked and shown the result -----


def a_phones_playoff_round_confirmed(director_client, director, values):
    """A wildcard playoff of three players at one table, its round entered from one player's
    phone (``values``, engine 12-12) and confirmed from another's: the playoff and the
    confirming phone's answer, redirects followed."""
    event = short_event(director, advancement_tie="playoff")
    make_players(event, count=12)
    edit(director_client, event, advancement_tie="playoff", finals_fill_to=4)
    Event.objects.filter(pk=event.pk).update(table_entry=True)
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])  # three seconds tied at 10 for one wildcard
    director_client.post(advance_url(game1), {"action": "close"})
    playoff = Stage.objects.get(event=event, kind=StageKind.PLAYOFF)
    table = playoff.tables.select_related("stage__event").get()
    first, second = phone(table), phone(table)
    url = f"/t/{table.code}/enter/"
    fields = hidden_fields(first.get(url))
    players = [s.player for s in table.seats.order_by("position")]
    pips = {f"p{p.pk}": v for p, v in zip(players, values, strict=True)}
    assert first.post(url, {**fields, **pips, "engine": "12"}).status_code == 302
    round_ = Round.objects.get(table=table)
    code = shown_code(first, table)
    done = second.post(
        f"/t/{table.code}/round/1/confirm/", {"round": round_.pk, "code": code}, follow=True
    )
    return playoff, done


def test_confirming_the_deciding_playoff_round_shows_the_tables_result(director_client, director):
    playoff, done = a_phones_playoff_round_confirmed(director_client, director, [0, 5, 6])
    assert done.status_code == 200
    assert Stage.objects.get(pk=playoff.pk).closed
    page = text(done)
    assert "Round 12-12 confirmed." in page
    assert f"Thank you. {playoff.name} is over: here is the table's final sheet and result." in page
    assert done.redirect_chain[-1][0] == f"/e/{playoff.event.slug}/{playoff.number}/table/1/"
    assert "No open table has this code" not in page


def test_confirming_a_tied_playoff_round_says_it_is_played_again(director_client, director):
    playoff, done = a_phones_playoff_round_confirmed(director_client, director, [4, 4, 6])
    playoffs = Stage.objects.filter(event=playoff.event, kind=StageKind.PLAYOFF)
    replay = playoffs.order_by("number").last()
    assert replay.pk != playoff.pk
    page = text(done)
    assert f"Thank you. {playoff.name} tied: {replay.name} plays it again" in page
    assert "is over" not in page


# -- 16: rounds saved while a timed stage's clock was never started --------------------------


def test_rounds_saved_before_the_clock_started_warn_the_director(director_client, table, director):
    stage = table.stage
    warning = f"Rounds are being entered but {stage.name}'s clock was never started"
    dashboard = f"/director/e/{stage.event.slug}/1/dashboard/"
    assert warning not in text(director_client.get(dashboard))  # nothing entered yet
    saved = director_client.post(entry_url(table), entry_post(table, [0, 4, 5, 6]))
    assert saved.status_code == 302  # not refused
    for url in (dashboard, table_url(table)):
        assert warning in text(director_client.get(url)), url
    assert warning not in text(Client().get(table_url(table)))  # the director's alone
    start_clock(stage, director)
    for url in (dashboard, table_url(table)):
        assert warning not in text(director_client.get(url)), url


# -- 22: a round saved meanwhile by another device -------------------------------------------


def test_a_round_saved_meanwhile_is_shown_as_saved_with_the_next_round(director_client, table):
    stale = entry_post(table, [3, 0, 8, 9])
    assert (
        director_client.post(entry_url(table), entry_post(table, [0, 5, 6, 7])).status_code == 302
    )
    again = director_client.post(entry_url(table), stale, follow=True)
    page = text(again)
    assert again.redirect_chain[-1][0] == entry_url(table)
    assert "Round 12-12 was saved meanwhile from another device" in page
    assert "Saved by boss at " in page
    assert "Save round 11-11" in page and "Save round 12-12" not in page
    assert 'class="alert alert-danger" role="alert" id="round-errors" hidden' in (
        again.content.decode()
    )
    assert Round.objects.filter(table=table).count() == 1


def test_the_pages_script_is_told_the_round_was_saved_meanwhile(director_client, table):
    data = entry_post(table, [0, 12, 30, 7])
    headers = {"HTTP_ACCEPT": "application/json"}
    director_client.post(entry_url(table), data, **headers)
    taken = director_client.post(entry_url(table), data, **headers).json()
    assert taken["saved"] is False and "fields" not in taken
    assert taken["next_url"] == entry_url(table)
    assert taken["message"].startswith(
        "Round 12-12 was saved meanwhile from another device: the form was not saved. "
        "Saved by boss at "
    )


# -- 7: the phone's page is live -------------------------------------------------------------


def test_the_phones_page_serves_its_live_parts_alone(table):
    Event.objects.filter(pk=table.stage.event.pk).update(table_entry=True)
    first, second = phone(table), phone(table)
    enter(first, table, [0, 5, 6, 7])
    url = f"/t/{table.code}/enter/"
    page = first.get(url).content.decode()
    assert 'id="terminal-live"' in page and 'hx-trigger="live-changed from:body"' in page
    assert "data-version-url=" in page  # the page asks the event's version
    region = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "terminal-live"}
    waiting = first.get(url, **region).content.decode()
    assert "Waiting for a second player" in waiting and "<html" not in waiting
    assert 'id="round-form"' not in waiting
    round_ = Round.objects.get(table=table)
    code = shown_code(first, table)
    second.post(f"/t/{table.code}/round/1/confirm/", {"round": round_.pk, "code": code})
    confirmed = text(first.get(url, **region))
    assert "Round 12-12 is confirmed: it is on the sheet." in confirmed
    assert "Waiting for a second player" not in confirmed
    totals = first.get(url, **{**region, "HTTP_HX_TARGET": "terminal-totals"}).content.decode()
    assert 'id="running-totals"' in totals and "<html" not in totals
