"""A phone reports an infraction at its table and a director logs it (issue 28, items 10 and
11): the report names nobody until a player is tapped, and logging it says the penalty as a
direct log does."""

import re

import pytest

from scoring.models import Infraction, InfractionReport
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
