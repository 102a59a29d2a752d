"""Phones asking for a live region at the same moment (issue 32 item 4): after a saved round,
the dozens of phones asking for the standings within the same 100 ms get one answer, rendered
once, not once per phone."""

import json

import pytest
from django.test import Client

from scoring.views.results import StandingsView
from tests.concurrency import at_once, logged_in, no_errors
from tests.test_live_pages import check, enter, state_of, version_of
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


def shown(html: str) -> dict:
    """What a phone holds once it loaded the page: the version and each region's state."""
    return {
        "version": version_of(html),
        "states": {r: state_of(html, r) for r in StandingsView.live_regions},
    }


def told(answer, held: dict) -> dict:
    """What a phone holds after a check's answer, as static/js/live.js takes it: the new
    version once every region of the page is brought up to date."""
    body = json.loads(answer.content)
    if body["version"] == held["version"]:
        return held
    regions = body.get("regions", {})
    if set(regions) != set(held["states"]):  # a region left out is asked again: not taken
        return held
    return {"version": body["version"], "states": {r: a["state"] for r, a in regions.items()}}


def test_phones_checking_while_rounds_are_saved_end_as_a_fresh_load(director, seated):
    """Eight phones check the standings at the moment two rounds are saved at two tables (the
    checks answered by the page, or again by LiveCheckMiddleware): no answer is an error, and
    one more check from what each was told brings every phone to what a fresh load shows (an
    answer kept under a version it does not show would leave a phone behind for good)."""
    page = "/e/spring/1/"
    held = shown(Client().get(page).content.decode())
    phones = [Client() for _ in range(PHONES)]
    tables = list(Table.objects.filter(stage=seated).order_by("number"))
    saves = [lambda t=t: enter(logged_in(director), t, [0, 9, 18, 27]) for t in tables]
    checks = [lambda c=c: check(page, held["version"], held["states"], c) for c in phones]
    answers = at_once(checks + saves)
    no_errors(answers[:PHONES])
    assert not [r for r in answers[PHONES:] if isinstance(r, BaseException)]  # both saved
    after = [told(a, held) for a in answers[:PHONES]]
    pairs = list(zip(phones, after, strict=True))
    again = at_once([lambda c=c, h=h: check(page, h["version"], h["states"], c) for c, h in pairs])
    no_errors(again)
    expected = shown(Client().get(page).content.decode())
    assert expected["version"] == held["version"] + 2
    assert [told(a, h) for a, h in zip(again, after, strict=True)] == [expected] * PHONES
