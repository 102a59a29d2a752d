"""Bad query strings: a clear 404 or the value ignored, never a 500.

``str.isdigit()`` is True for "²" and other non-ASCII digits that ``int()`` refuses, so numbers
in a URL are read with an ASCII-only pattern.
"""

import pytest

from scoring.services.infractions import log_infraction
from tournament.models import Table

pytestmark = pytest.mark.django_db

NOT_ASCII_NUMBERS = ["²", "³", "١٢", "½", "٣-٤"]  # superscripts, Arabic-Indic digits, a fraction


@pytest.mark.parametrize("kind", ["sheets.pdf", "blank-sheets.pdf"])
@pytest.mark.parametrize(
    "tables", ["²-³", "1-²", "١-٢", "½-1", "1-", "-1", "1--2", " 1-2", "1-2 ", "3-1", "1234567-9"]
)
def test_a_malformed_table_range_is_not_found(client, seated, kind, tables):
    response = client.get(f"/e/spring/1/{kind}", {"tables": tables})
    assert response.status_code == 404


@pytest.mark.parametrize("logged", [*NOT_ASCII_NUMBERS, "-1", "1e3", "9" * 40])
def test_a_bad_logged_infraction_is_ignored_on_the_table_page(
    director_client, director, seated, logged
):
    table = Table.objects.get(stage=seated, number=1)
    player = table.seats.first().player
    saved = log_infraction(table, player, 12, "wrong_tile", "", director)
    page = f"/e/spring/1/table/{table.number}/"

    response = director_client.get(page, {"logged": logged})
    assert response.status_code == 200
    assert "logged" not in response.context

    shown = director_client.get(page, {"logged": str(saved.pk)})  # the good value still shows
    assert shown.context["logged"]["infraction"] == saved
