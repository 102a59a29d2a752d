"""A phone reports an infraction at its table and a director logs it (issue 28, items 10 and
11): the report names nobody until a player is tapped, and logging it says the penalty as a
direct log does."""

import re

import pytest

from scoring.models import Infraction, InfractionReport
from tests.test_dashboard import tile_texts
from tests.test_table_entry import phone, text
from tournament.models import Event, Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(seated):
    Event.objects.filter(pk=seated.event.pk).update(table_entry=True)
    return Table.objects.select_related("stage__event").get(stage=seated, number=1)


def report_form(page) -> str:
    return re.search(r'id="report-infraction".*?</form>', page.content.decode(), re.S).group(0)


def test_the_report_form_names_nobody_until_a_player_is_chosen(table):
    client = phone(table)
    form = report_form(client.get(f"/t/{table.code}/enter/"))
    select = re.search(r'<select[^>]*name="player"[^>]*>(.*?)</select>', form, re.S)
    assert "required" in select.group(0)
    options = re.findall(r"<option([^>]*)>([^<]*)</option>", select.group(1))
    chosen = [label for attrs, label in options if "selected" in attrs]
    assert chosen == ["Choose the player"]
    assert 'value=""' in options[0][0]
    names = [s.player.name for s in table.seats.order_by("position")]
    assert [label for _, label in options[1:]] == names


def test_a_report_without_a_player_is_refused_and_saves_nothing(table):
    client = phone(table)
    page = client.get(f"/t/{table.code}/enter/")
    key = re.search(
        r'id="report-infraction".*?name="once" value="([^"]+)"', page.content.decode(), re.S
    )
    data = {"player": "", "kind": "wrong_tile", "note": "", "once": key.group(1)}
    response = client.post(f"/t/{table.code}/infraction/", data, follow=True)
    assert response.status_code == 200
    assert "Choose a player seated at this table." in text(response)
    assert not InfractionReport.objects.exists()


def test_logging_a_report_shows_the_penalty_as_a_direct_log_does(director_client, table):
    client = phone(table)
    player = table.seats.order_by("position").first().player
    client.post(f"/t/{table.code}/infraction/", {"player": player.pk, "kind": "wrong_tile"})
    report = InfractionReport.objects.get()
    slug = table.stage.event.slug
    url = f"/director/e/{slug}/1/table/1/report/{report.pk}/"
    assert "Warning: no penalty this time" not in text(director_client.get(f"/e/{slug}/1/table/1/"))
    logged = director_client.post(url, {"action": "log"}, follow=True)
    shown = text(logged)
    assert "Warning: no penalty this time" in shown
    assert f"{player.name}: Wrong tile in round 12-12" in shown
    # The same words as a direct log from the table's own form.
    sheet = director_client.get(f"/e/{slug}/1/table/1/").content.decode()
    form = re.search(r'<form[^>]*id="infraction-form".*?</form>', sheet, re.S).group(0)
    once = re.search(r'name="once" value="([^"]+)"', form).group(1)
    action = re.search(r'action="([^"]+)"', form).group(1)
    other = table.seats.order_by("position").last().player
    direct = director_client.post(
        action,
        {"once": once, "player": other.pk, "kind": "wrong_tile", "engine": 12, "note": ""},
        follow=True,
    )
    assert "Warning: no penalty this time" in text(direct)
    assert Infraction.objects.count() == 2


def pending(page: str) -> str:
    """The log's list of reports that wait for a director, as read ("" when there is none)."""
    found = re.search(r'<section[^>]*id="pending-reports".*?</section>', page, re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(0))).strip() if found else ""


WAITING = {
    "en": ("1 reported infraction awaits a decision", "Game 1, table 1", "Wrong tile"),
    "fr": ("1 infraction signalée attend une décision", "Partie 1, table 1", "Mauvais domino"),
}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_phones_pending_report_shows_in_the_log_and_on_the_dashboard_tile(
    director_client, table, language
):
    """Reported from a phone, the infraction waits for a director: the log lists it (with
    the buttons to log or dismiss it) and the dashboard marks its table's tile, until a
    director logs it."""
    headers = {"HTTP_ACCEPT_LANGUAGE": language}
    waits, where, kind = WAITING[language]
    accused = table.seats.order_by("position")[1].player
    data = {"player": accused.pk, "kind": "wrong_tile", "note": "a 5 on a 6"}
    phone(table).post(f"/t/{table.code}/infraction/", data)
    slug = table.stage.event.slug
    log = director_client.get(f"/director/e/{slug}/infractions/", **headers).content.decode()
    shown = pending(log)
    assert shown.startswith(waits)
    colon = {"en": ":", "fr": " :"}[language]  # French: a (no-break) space before it
    plain = shown.replace("\u00a0", " ").replace("\u202f", " ")
    assert f"{where} {accused.name}{colon} {kind} – a 5 on a 6 (12-12," in plain
    other = table.stage.event.players.exclude(seats__table=table).first()
    narrowed = director_client.get(f"/director/e/{slug}/infractions/?player={other.pk}")
    assert pending(narrowed.content.decode()) == ""  # the log's filters narrow it too
    board = f"/director/e/{slug}/1/dashboard/"
    tiles = tile_texts(director_client.get(board, **headers).content.decode())
    assert waits in tiles[1] and waits not in tiles[2]
    summary = re.search(
        r'id="dashboard-summary">(.*?)</p>', director_client.get(board).content.decode(), re.S
    )
    assert "1 reported infraction awaits a decision" in re.sub(r"<[^>]+>", "", summary.group(1))

    form = re.search(r'<form method="post" action="([^"]+)"', log[log.index("pending-reports") :])
    logged = director_client.post(form.group(1), {"action": "log"}, follow=True)
    assert "Warning: no penalty this time" in text(logged)
    log = director_client.get(f"/director/e/{slug}/infractions/", **headers).content.decode()
    assert pending(log) == "" and Infraction.objects.get().player == accused
    tiles = tile_texts(director_client.get(board, **headers).content.decode())
    assert waits not in tiles[1]
