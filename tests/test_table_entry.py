"""Players score their own table (issue 15), through the pages a phone and a director use:
the sheet's code opens the table (its players first), a round entered from a phone counts at
once and waits for a second phone or a director, the close waits for it, codes are scoped."""

import itertools
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from scoring.models import CodeTries, Infraction, InfractionReport, Round, Score, TableDevice
from scoring.services.table_entry import TRIES_PER_HOUR
from tests.concurrency import at_once, form_key, hidden_fields, no_errors
from tests.factories import play
from tournament.models import Action, Event, Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(seated):
    Event.objects.filter(pk=seated.event.pk).update(table_entry=True)
    return Table.objects.select_related("stage__event").get(stage=seated, number=1)


ADDRESSES = (f"10.0.0.{n}" for n in itertools.count(2))  # each phone its own, as in a hall


def phone(table, player=None) -> Client:
    """A phone that scanned the table's sheet and said it is at that table, held by ``player``
    (by default the first seated player that no phone at the table has named yet)."""
    client = Client(REMOTE_ADDR=next(ADDRESSES), HTTP_USER_AGENT="Mozilla/5.0 (Android 14)")
    page = client.get(f"/t/{table.code}/")
    assert page.status_code == 200
    if player is None:
        named = TableDevice.objects.filter(table=table).values("player")
        player = table.seats.exclude(player__in=named).order_by("position").first().player
    client.post(f"/t/{table.code}/", {"player": player.pk})
    return client


def enter(client, table, values):
    url = f"/t/{table.code}/enter/"
    page = client.get(url)
    fields = hidden_fields(page)
    players = [s.player for s in table.seats.order_by("position")]
    data = {**fields, **{f"p{p.pk}": v for p, v in zip(players, values, strict=True)}}
    return client.post(url, data, follow=True)


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def shown_code(client, table, number=1) -> str:
    """The code the entering phone's page shows under its waiting round (issue 46), as its
    holder shows it to the second player, who types it to confirm."""
    page = client.get(f"/t/{table.code}/enter/").content.decode()
    found = re.search(rf'id="shown-code-{number}".*?confirm-code-shown">(\d+)<', page, re.S)
    assert found, "this phone shows no code for the round"
    return found.group(1)


def test_a_scan_shows_the_tables_players_first_then_opens_its_entry(table):
    client = Client()
    page = client.get(f"/t/{table.code.lower()}/")  # read aloud, typed in lower case
    names = [s.player.name for s in table.seats.order_by("position")]
    assert all(name in page.content.decode() for name in names)
    assert client.get(f"/t/{table.code}/enter/").status_code == 302  # not before saying so
    client.post(f"/t/{table.code}/", {"player": table.seats.first().player_id})
    entry = client.get(f"/t/{table.code}/enter/")
    assert entry.status_code == 200 and "Round 12-12" in text(entry)
    assert TableDevice.objects.filter(table=table).count() == 1


def test_a_phones_round_counts_at_once_and_waits_for_a_second_player(client, table):
    first, second = phone(table), phone(table)
    saved = enter(first, table, [0, 5, 6, 7])
    assert "Round 12-12 saved." in text(saved)
    round_ = Round.objects.get(table=table)
    assert round_.awaiting_confirmation and round_.entered_by is None
    # The standings count it at once and mark it.
    standings = text(client.get(f"/e/{table.stage.event.slug}/1/"))
    assert "1 not confirmed" in standings
    assert "not confirmed" in text(client.get(f"/e/{table.stage.event.slug}/1/table/1/"))
    # The phone that entered it cannot confirm it; the second phone can.
    own = first.get(f"/t/{table.code}/enter/").content.decode()
    assert "Waiting for a second player" in own and "confirm-round" not in own
    refused = first.post(f"/t/{table.code}/round/1/confirm/", {"round": round_.pk}, follow=True)
    assert "A second player confirms the round" in text(refused)
    assert Round.objects.get(table=table).awaiting_confirmation
    page = second.get(f"/t/{table.code}/enter/").content.decode()
    assert "Confirm: these are our pips" in page
    code = shown_code(first, table)
    for _ in range(2):  # a double tap confirms once
        second.post(f"/t/{table.code}/round/1/confirm/", {"round": round_.pk, "code": code})
    round_.refresh_from_db()
    assert not round_.awaiting_confirmation and round_.confirmed_device
    assert Action.objects.filter(verb="round.confirmed").count() == 1
    assert "not confirmed" not in text(client.get(f"/e/{table.stage.event.slug}/1/"))


@pytest.mark.django_db(transaction=True)  # two threads, each with its own connection
def test_a_round_sent_back_with_a_note_is_entered_again(table):
    first, second = phone(table), phone(table)
    enter(first, table, [0, 5, 6, 7])
    page = second.get(f"/t/{table.code}/enter/")
    key = re.search(
        r'action="/t/\w+/round/1/send-back/".*?name="once" value="([^"]+)"',
        page.content.decode(),
        re.S,
    ).group(1)
    data = {"note": "Bo had 15, not 5", "once": key, "round": Round.objects.get(table=table).pk}
    results = at_once([lambda: second.post(f"/t/{table.code}/round/1/send-back/", data)] * 2)
    no_errors(results)
    assert not Round.objects.filter(table=table).exists()
    assert Action.objects.filter(verb="round.sent_back").count() == 1
    again = first.get(f"/t/{table.code}/enter/")
    assert "Bo had 15, not 5" in text(again) and "Round 12-12" in text(again)
    enter(first, table, [0, 15, 6, 7])
    assert "Bo had 15, not 5" not in text(first.get(f"/t/{table.code}/enter/"))


def test_a_send_back_needs_a_note(table):
    first, second = phone(table), phone(table)
    enter(first, table, [0, 5, 6, 7])
    response = second.post(
        f"/t/{table.code}/round/1/send-back/",
        {"note": "  ", "round": Round.objects.get(table=table).pk},
        follow=True,
    )
    assert "Say what is wrong with the round" in text(response)
    assert Round.objects.filter(table=table).exists()


def test_a_director_confirms_from_the_tables_page_and_own_rounds_never_wait(director_client, table):
    enter(phone(table), table, [0, 5, 6, 7])
    page = director_client.get(f"/e/{table.stage.event.slug}/1/table/1/").content.decode()
    assert "confirm-round" in page and f"Table code {table.code}" in page
    director_client.post(f"/director/e/{table.stage.event.slug}/1/table/1/round/1/confirm/")
    assert not Round.objects.get(table=table).awaiting_confirmation
    play(table, 1, user=None)  # a scorekeeper's or director's round
    assert not Round.objects.get(table=table, number=2).awaiting_confirmation


@pytest.mark.parametrize("case", ["other-stage-closed", "entry-off", "nonsense", "too-long"])
def test_a_code_that_does_not_open_a_table_is_refused_clearly(table, case):
    code = table.code
    if case == "other-stage-closed":
        table.stage.closed = True
        table.stage.save()
    elif case == "entry-off":
        Event.objects.filter(pk=table.stage.event.pk).update(table_entry=False)
    elif case == "nonsense":
        code = "ZZZ-%00"
    else:
        code = "A" * 500
    response = Client().get(f"/t/{code}/")
    assert response.status_code == 404
    assert "No open table has the code" in text(response)
    assert Client().get(f"/t/{code}/enter/").status_code == 404


def test_a_phone_opens_only_the_table_it_scanned(seated, table):
    other = Table.objects.get(stage=seated, number=2)
    client = phone(table)
    response = client.get(f"/t/{other.code}/enter/")
    assert response.status_code == 302 and response["Location"] == f"/t/{other.code}/"


def test_a_new_code_shuts_out_the_phones_of_the_old_one(director_client, table):
    client = phone(table)
    old = table.code
    director_client.post(f"/director/e/{table.stage.event.slug}/1/table/1/code/")
    table.refresh_from_db()
    assert table.code != old
    assert client.get(f"/t/{old}/enter/").status_code == 404
    assert client.get(f"/t/{table.code}/enter/").status_code == 302  # asked again


def test_guessing_codes_is_rate_limited(table):
    guesser = Client()
    statuses = [guesser.get(f"/t/ABCDEF{i % 10}/").status_code for i in range(TRIES_PER_HOUR + 2)]
    assert statuses[:TRIES_PER_HOUR] == [404] * TRIES_PER_HOUR
    assert statuses[-1] == 429
    assert "Too many wrong codes" in text(guesser.get("/t/ABCDEF/"))
    assert guesser.get(f"/t/{table.code}/").status_code == 429  # even a right one, then


def test_the_close_waits_for_unconfirmed_rounds_unless_the_director_says_why(
    director_client, seated, table
):
    for t in seated.tables.all():
        play(t, 12, user=None)
    enter(phone(table), table, [0, 5, 6, 7])  # the 0-0 round of table 1, from a phone
    other = Table.objects.get(stage=seated, number=2)
    play(other, 1, user=None)
    url = f"/director/e/{seated.event.slug}/1/close/"
    page = director_client.get(url)
    assert 'id="unconfirmed"' in page.content.decode()
    refused = director_client.post(url, {"action": "close", "once": form_key(page)}, follow=True)
    assert "not confirmed" in text(refused)
    seated.refresh_from_db()
    assert not seated.closed
    page = director_client.get(url)
    director_client.post(
        url, {"action": "close", "override": "Table 1 left; pips agreed", "once": form_key(page)}
    )
    seated.refresh_from_db()
    assert seated.closed
    logged = Action.objects.get(verb="stage.closed_unconfirmed")
    assert logged.reason == "Table 1 left; pips agreed"


def test_a_phone_reports_an_infraction_and_a_director_logs_it_once(director_client, table):
    client = phone(table)
    page = client.get(f"/t/{table.code}/enter/")
    key = re.search(
        r'id="report-infraction".*?name="once" value="([^"]+)"', page.content.decode(), re.S
    ).group(1)
    player = table.seats.order_by("position").first().player
    data = {"player": player.pk, "kind": "wrong_tile", "note": "played a 5 on a 6", "once": key}
    for _ in range(2):  # a double tap reports once
        response = client.post(f"/t/{table.code}/infraction/", data, follow=True)
    assert "Reported: a director will decide." in text(response)
    report = InfractionReport.objects.get()
    assert report.engine == 12 and report.device
    assert not Infraction.objects.exists()  # nothing counts before a director decides
    slug = table.stage.event.slug
    sheet = director_client.get(f"/e/{slug}/1/table/1/").content.decode()
    assert "played a 5 on a 6" in sheet and 'id="infraction-reports"' in sheet
    url = f"/director/e/{slug}/1/table/1/report/{report.pk}/"
    for _ in range(2):
        director_client.post(url, {"action": "log"})
    infraction = Infraction.objects.get()
    assert infraction.player == player and infraction.action == "warning"  # the event's rule
    assert (
        'id="infraction-reports"'
        not in director_client.get(f"/e/{slug}/1/table/1/").content.decode()
    )


def test_a_report_for_someone_not_at_the_table_is_refused(seated, table):
    other = Table.objects.get(stage=seated, number=2).seats.first().player
    client = phone(table)
    response = client.post(
        f"/t/{table.code}/infraction/", {"player": other.pk, "kind": "wrong_tile"}, follow=True
    )
    assert "Choose a player seated at this table." in text(response)
    assert not InfractionReport.objects.exists()


def test_a_director_dismisses_a_report(director_client, table):
    client = phone(table)
    player = table.seats.first().player
    client.post(f"/t/{table.code}/infraction/", {"player": player.pk, "kind": "other"})
    report = InfractionReport.objects.get()
    director_client.post(
        f"/director/e/{table.stage.event.slug}/1/table/1/report/{report.pk}/", {"action": "dismiss"}
    )
    report.refresh_from_db()
    assert report.dismissed and not Infraction.objects.exists()


def test_the_dashboard_shows_each_tables_code_and_phones(director_client, table):
    phone(table), phone(table)
    page = director_client.get(f"/director/e/{table.stage.event.slug}/1/dashboard/")
    tile = re.search(r'id="tile-1">(.*?)</li>', page.content.decode(), re.S).group(1)
    assert f"Code {table.code}, 2 phones" in re.sub(r"\s+", " ", tile)


def test_a_stale_page_does_not_confirm_a_round_entered_again(table):
    first, second = phone(table), phone(table)
    enter(first, table, [0, 5, 6, 7])
    stale = Round.objects.get(table=table).pk
    page = second.get(f"/t/{table.code}/enter/")
    key = re.search(r'name="once" value="([^"]+)"', page.content.decode().split("send-back")[1])
    second.post(
        f"/t/{table.code}/round/1/send-back/",
        {"note": "wrong", "once": key.group(1), "round": stale},
    )
    enter(first, table, [0, 50, 6, 7])  # entered again, differently
    response = second.post(f"/t/{table.code}/round/1/confirm/", {"round": stale}, follow=True)
    assert "This round changed since the page was drawn" in text(response)
    assert Round.objects.get(table=table).awaiting_confirmation


def test_sending_back_the_round_marked_last_reopens_the_tables_game(table):
    # A phone's round, marked as the table's last once time was called.
    round_ = Round.objects.create(
        table=table, number=1, engine=12, entered_device="aaaa", awaiting_confirmation=True
    )
    for n, seat_ in enumerate(table.seats.all()):
        Score.objects.create(round=round_, player=seat_.player, pips=n)
    Table.objects.filter(pk=table.pk).update(game_over_after=1)
    second = phone(table)
    page = second.get(f"/t/{table.code}/enter/").content.decode()
    key = re.search(r'name="once" value="([^"]+)"', page.split("send-back")[1]).group(1)
    second.post(
        f"/t/{table.code}/round/1/send-back/",
        {"note": "not our last", "once": key, "round": round_.pk},
    )
    table.refresh_from_db()
    assert table.game_over_after is None and not Round.objects.filter(table=table).exists()


def test_public_sheets_never_carry_the_table_codes(client, director_client, table):
    import io

    from pypdf import PdfReader

    slug = table.stage.event.slug

    def pdf_text(response):
        return " ".join(p.extract_text() for p in PdfReader(io.BytesIO(response.content)).pages)

    public = pdf_text(client.get(f"/e/{slug}/1/blank-sheets.pdf"))
    assert table.code not in public and "Table code" not in public
    directors = pdf_text(director_client.get(f"/e/{slug}/1/blank-sheets.pdf"))
    assert f"/t/{table.code}/" in directors and "Table code" in directors


def a_kept_round(client, table) -> tuple[str, dict]:
    """The entry form's URL and fields as a phone's script keeps a round it could not send."""
    url = f"/t/{table.code}/enter/"
    fields = hidden_fields(client.get(url))
    players = [s.player for s in table.seats.order_by("position")]
    return url, {**fields, **{f"p{p.pk}": v for p, v in zip(players, [0, 5, 6, 7], strict=True)}}


def send_kept(client, url, data):
    """What static/js/entry.js posts for a kept round: the form, asking for JSON."""
    return client.post(url, data, HTTP_ACCEPT="application/json")


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("reissued", "This table has a new code: scan the new score sheet"),
        ("closed", "Game 1 is closed: show this round to a director."),
        ("entry-off", "Table entry is turned off: show this round to a director."),
    ],
)
def test_a_kept_round_sent_to_a_dead_code_is_refused_in_json_and_never_counted_as_a_guess(
    director_client, table, case, reason
):
    client = phone(table)
    url, data = a_kept_round(client, table)
    if case == "reissued":
        director_client.post(f"/director/e/{table.stage.event.slug}/1/table/1/code/")
    elif case == "closed":
        table.stage.__class__.objects.filter(pk=table.stage.pk).update(closed=True)
    else:
        Event.objects.filter(pk=table.stage.event.pk).update(table_entry=False)
    for _ in range(TRIES_PER_HOUR + 10):  # a phone sending its round again and again
        answer = send_kept(client, url, data)
        assert answer.status_code == 404 and answer["Content-Type"] == "application/json"
        assert answer.json()["saved"] is False
        assert reason in answer.json()["refused"]
    assert not Round.objects.filter(table=table).exists()
    assert "No open table has the code" in text(client.get(url))  # a person gets the page
    # The phone is not taken for a guesser: the table opens again for it.
    table.stage.__class__.objects.filter(pk=table.stage.pk).update(closed=False)
    Event.objects.filter(pk=table.stage.event.pk).update(table_entry=True)
    table.refresh_from_db()
    assert client.get(f"/t/{table.code}/", follow=True).status_code == 200
    assert not CodeTries.objects.exists()


def test_a_phone_that_guesses_codes_is_refused_in_json_too(table):
    guesser = Client()
    for i in range(TRIES_PER_HOUR):
        answer = send_kept(guesser, f"/t/ABCDE{i % 10}/enter/", {"p1": "5"})
        assert (
            answer.status_code == 404 and "No open table has this code" in answer.json()["refused"]
        )
    answer = send_kept(guesser, f"/t/{table.code}/enter/", {"p1": "5"})
    assert answer.status_code == 429 and "Too many wrong codes" in answer.json()["refused"]
    assert CodeTries.objects.get().count == TRIES_PER_HOUR


def test_a_kept_round_from_a_phone_that_has_not_opened_the_table_is_refused_in_json(table):
    client = phone(table)
    url, data = a_kept_round(client, table)
    stranger = Client()  # the cookies lost: the same form, from a session that never joined
    answer = send_kept(stranger, url, data)
    assert answer.status_code == 403 and "Open this table from its code" in answer.json()["refused"]
    assert not Round.objects.filter(table=table).exists()


def test_wrong_codes_count_for_an_hour_then_start_again(table):
    guesser = Client()
    for i in range(TRIES_PER_HOUR):
        guesser.get(f"/t/ABCDE{i % 10}/")
    assert guesser.get(f"/t/{table.code}/").status_code == 429
    CodeTries.objects.update(started=timezone.now() - timedelta(hours=1, seconds=1))
    assert guesser.get(f"/t/{table.code}/").status_code == 200
    guesser.get("/t/ABCDEF/")
    assert CodeTries.objects.get().count == 1


@pytest.mark.django_db(transaction=True)  # threads, each with its own connection
def test_wrong_codes_tried_at_the_same_moment_are_all_counted(table):
    guessers = [Client() for _ in range(8)]
    results = at_once([lambda c=c: c.get("/t/ABCDEF/") for c in guessers])
    no_errors(results)
    assert [r.status_code for r in results] == [404] * 8
    assert CodeTries.objects.get().count == 8
    results = at_once([lambda c=c: c.get("/t/ABCDEF/") for c in guessers])
    no_errors(results)
    assert CodeTries.objects.get().count == 16
