"""The series page's "link these N" at once (issue 45 item 4): two directors on two devices,
or one form posted from several threads, link each name once, with one history entry per
link in each event; a "not the same person" said at the same moment as a link leaves one word
of the two, never both. On SQLite and PostgreSQL (DATABASE_URL)."""

import pytest

from scoring.models import PersonLink
from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_director
from tests.test_people import night, rows
from tests.test_series_pages import add, create
from tournament.models import Action

pytestmark = pytest.mark.django_db(transaction=True)


def two_nights(director, client):
    totals = {"Ann Lee": 5, "Bo Diaz": 10, "Cy Young": 20}
    one = night(director, "Night One", 5, totals)
    two = night(director, "Night Two", 12, totals, clubs={"Ann Lee": "", "Bo Diaz": "Lakeside"})
    series = create(client)
    add(client, series, one)
    add(client, series, two)
    return series, one, two


def test_two_directors_linking_at_once_link_each_name_once(director):
    first = logged_in(director)
    series, one, two = two_nights(director, first)
    other = make_director("second")
    for model in (series, one, two):
        model.directors.add(other)
    clients = [first, logged_in(other), logged_in(director), logged_in(other)]
    keys = [form_key(c.get(f"/s/{series.slug}/")) for c in clients]
    url = f"/director/s/{series.slug}/people/"
    post = {"name": ["annlee", "bodiaz"], "action": "link"}
    results = at_once(
        [
            lambda c=c, k=k: c.post(url, post | {"once": k})
            for c, k in zip(clients, keys, strict=True)
        ]
    )
    no_errors(results)
    assert [r.status_code for r in results] == [302] * 4
    assert PersonLink.objects.filter(same=True).count() == 2
    for event in (one, two):
        assert Action.objects.filter(event=event, verb="player.linked").count() == 2
    assert [r[1] for r in rows(logged_in(director), series)] == ["Ann Lee", "Bo Diaz", "Cy Young"]


def test_one_form_posted_from_several_threads_links_once(director):
    client = logged_in(director)
    series, one, two = two_nights(director, client)
    key = form_key(client.get(f"/s/{series.slug}/"))
    clients = [logged_in(director) for _ in range(3)]
    url = f"/director/s/{series.slug}/people/"
    post = {"name": ["annlee", "bodiaz"], "action": "link", "once": key}
    results = at_once([lambda c=c: c.post(url, post) for c in clients])
    no_errors(results)
    assert PersonLink.objects.count() == 2
    assert Action.objects.filter(verb="player.linked").count() == 4  # 2 links, 2 events


def test_a_link_and_a_not_the_same_at_once_leave_one_word(director):
    client = logged_in(director)
    series, one, two = two_nights(director, client)
    clients = [logged_in(director), logged_in(director)]
    keys = [form_key(c.get(f"/s/{series.slug}/")) for c in clients]
    url = f"/director/s/{series.slug}/people/"
    results = at_once(
        [
            lambda c=c, k=k, a=a: c.post(url, {"name": "annlee", "action": a, "once": k})
            for c, k, a in zip(clients, keys, ["link", "apart"], strict=True)
        ]
    )
    no_errors(results)
    (link,) = PersonLink.objects.filter(first__name="Ann Lee")
    verbs = Action.objects.filter(verb__in=["player.linked", "player.not_same"])
    assert verbs.count() == 2  # the first word, in both events; the second found nothing
    assert set(verbs.values_list("verb", flat=True)) == {
        "player.linked" if link.same else "player.not_same"
    }
