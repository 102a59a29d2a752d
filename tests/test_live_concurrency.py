"""Phones asking for a live region at the same moment (issue 32 item 4): after a saved round,
the dozens of phones asking for the standings within the same 100 ms get one answer, rendered
once, not once per phone."""

import pytest
from django.test import Client

from scoring.views.results import StandingsView
from tests.concurrency import at_once, no_errors
from tests.test_live_pages import enter, state_of
from tournament import caching
from tournament.models import Table

pytestmark = pytest.mark.django_db(transaction=True)

PHONES = 8


@pytest.mark.parametrize("region", ["live-standings", "live-tables"])
def test_phones_asking_a_changed_region_at_once_share_one_render(
    director_client, seated, monkeypatch, region
):
    page = "/e/spring/1/"
    held = state_of(Client().get(page).content.decode(), region)
    enter(director_client, Table.objects.get(stage=seated, number=1), [0, 10, 20, 30])
    rendered = []
    real = caching.render_to_string

    def counted(template, *args, **kwargs):
        rendered.append(template)
        return real(template, *args, **kwargs)

    monkeypatch.setattr(caching, "render_to_string", counted)
    headers = {"X-Live-Region": region, "X-Live-State": held}
    phones = [Client() for _ in range(PHONES)]
    answers = at_once([lambda c=c: c.get(page, headers=headers) for c in phones])
    no_errors(answers)
    assert {a.status_code for a in answers} == {200}
    assert len({a.content for a in answers}) == 1  # the same answer for every phone
    assert b'"pieces"' in answers[0].content  # table 1's players changed
    assert rendered == [StandingsView.live_regions[region]]  # once, for all of them
