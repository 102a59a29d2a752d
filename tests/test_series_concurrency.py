"""A series' writes that race, through the pages (issue 31 item 1): an event added by several
directors at once is added once, with one history entry; one event added to two series at once
goes to one of them, the other told which; a series' form posted from several threads with one
key creates one series; two series of one short name at once: one, the other refused."""

import pytest

from scoring.models import Series, SeriesEvent
from tests.concurrency import at_once, form_key, logged_in, no_errors
from tests.factories import make_director, make_event
from tests.test_series_pages import NEW, series_form
from tournament.models import Action

pytestmark = pytest.mark.django_db(transaction=True)


def series_of(director, slug="winter", name="Rivertown Winter League"):
    client = logged_in(director)
    key = form_key(client.get(NEW))
    response = client.post(NEW, series_form(slug=slug, name=name) | {"once": key})
    assert response.status_code == 302
    return Series.objects.get(slug=slug)


def test_directors_adding_one_event_at_once_add_it_once(director):
    event = make_event(director, name="Night One", slug="night-one")
    series = series_of(director)
    clients = [logged_in(make_director()) for _ in range(4)]
    for c in clients:
        event.directors.add(c.session["_auth_user_id"])
        series.directors.add(c.session["_auth_user_id"])
    url = f"/director/s/{series.slug}/events/"
    results = at_once([lambda c=c: c.post(url, {"event": event.pk}) for c in clients])
    no_errors(results)
    assert [r.status_code for r in results] == [302] * 4
    assert SeriesEvent.objects.get().event == event
    assert Action.objects.filter(event=event, verb="series.event_added").count() == 1


def test_one_event_added_to_two_series_at_once_goes_to_one(director):
    event = make_event(director, name="Night One", slug="night-one")
    summer = series_of(director, "summer", "Summer League")
    winter = series_of(director)
    clients = [logged_in(director), logged_in(director)]
    urls = [f"/director/s/{s.slug}/events/" for s in (summer, winter)]
    results = at_once(
        [
            lambda c=c, u=u: c.post(u, {"event": event.pk})
            for c, u in zip(clients, urls, strict=True)
        ]
    )
    no_errors(results)
    entry = SeriesEvent.objects.get()
    refused = next(r for r in results if r.status_code == 200)
    assert sorted(r.status_code for r in results) == [200, 302]
    assert (
        f"Night One is already in the series {entry.series.name}: an event belongs to one series."
        in refused.content.decode()
    )
    assert Action.objects.filter(event=event, verb="series.event_added").count() == 1


def test_one_form_posted_from_several_threads_creates_one_series(director):
    clients = [logged_in(director) for _ in range(3)]
    key = form_key(clients[0].get(NEW))
    results = at_once([lambda c=c: c.post(NEW, series_form() | {"once": key}) for c in clients])
    no_errors(results)
    assert [r.status_code for r in results] == [302] * 3
    assert len({r.url for r in results}) == 1
    assert Series.objects.count() == 1


def test_two_series_of_one_short_name_at_once_make_one(director):
    clients = [logged_in(director), logged_in(make_director())]
    keys = [form_key(c.get(NEW)) for c in clients]
    results = at_once(
        [
            lambda c=c, k=k, n=n: c.post(NEW, series_form(name=n) | {"once": k})
            for c, k, n in zip(clients, keys, ["First", "Second"], strict=True)
        ]
    )
    no_errors(results)
    assert sorted(r.status_code for r in results) == [200, 302]
    refused = next(r for r in results if r.status_code == 200).content.decode()
    assert (
        "Another series already uses the short name winter." in refused
        or "Series with this Short name in links already exists." in refused
    )
    assert Series.objects.count() == 1


def test_a_repeat_that_looked_before_the_first_committed_answers_as_the_first(
    director, monkeypatch
):
    """The race of the test above, made certain: a repeat of the form found no earlier post
    when it looked (the first one not yet committed), then its short name taken by the first:
    it answers as the first did, not with a refusal."""
    from scoring.views.series import SeriesCreateView

    client = logged_in(director)
    key = form_key(client.get(NEW))
    first = client.post(NEW, series_form() | {"once": key})
    assert first.status_code == 302
    looked = SeriesCreateView.repeated
    calls = []

    def not_yet_the_first_time(view):
        calls.append(1)
        return None if len(calls) == 1 else looked(view)

    monkeypatch.setattr(SeriesCreateView, "repeated", not_yet_the_first_time)
    again = client.post(NEW, series_form() | {"once": key})
    assert again.status_code == 302 and again.url == first.url
    assert Series.objects.count() == 1 and len(calls) == 2
