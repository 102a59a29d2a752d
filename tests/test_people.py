"""One person, one row (issue 45 item 4), through the pages: a club's list with no member
numbers typed into three nights is one row per member in the series; the same name with no
club or another club is offered on the series page and linked in one step; a link shows every
event of that person; "not the same person" keeps two of one name and club apart; ratings
count the same people."""

from __future__ import annotations

import datetime

import pytest

from scoring.models import PersonLink
from scoring.services.ratings import compute_ratings
from scoring.services.stages import close_stage
from scoring.sheets import table_sheet
from tests.concurrency import form_key, logged_in
from tests.factories import make_director, make_event, seat
from tests.test_ratings_pages import rows_of
from tests.test_series_pages import add, create, play_rounds, standings
from tournament.models import Action, Player, Table

pytestmark = pytest.mark.django_db

CLUB = "Rivertown Club"


def night(director, name, day, totals, clubs=None, typed=None):
    """A club night typed in from the club's list (no member numbers): one table, its Final.
    ``totals`` by name; ``clubs``: a name's club when not Rivertown's; ``typed``: how the
    night's typist spelled a name."""
    event = make_event(
        director,
        name=name,
        slug=name.lower().replace(" ", "-"),
        date=datetime.date(2026, 1, day),
        engines=[1, 0],
        game_minutes=None,
    )
    for n in totals:
        Player.objects.create(
            event=event,
            name=(typed or {}).get(n, n),
            club=(clubs or {}).get(n, CLUB),
            checked_in=True,
        )
    game1 = seat(event)
    for table in Table.objects.filter(stage=game1):
        by_name = {p.name: p for p in table_sheet(table).players}
        spelled = {(typed or {}).get(n, n): t for n, t in totals.items()}
        play_rounds(table, {n: spelled[n] for n in by_name}, 2)
    close_stage(game1, director)
    return event


def rows(client, series) -> list[list[str]]:
    return standings(client, series)[0]


def test_the_same_list_in_three_nights_is_one_row_per_member(director, director_client, client):
    """The issue's club: the leader was shown twice with 13 points instead of once with 26."""
    totals = {"Ann O'Brien": 5, "Bo Diaz": 10, "José Núñez": 20}
    typed = {"Ann O'Brien": "ann o’brien", "José Núñez": "JOSE NUNEZ"}
    nights = [
        night(director, "Night One", 5, totals),
        night(director, "Night Two", 12, totals, typed=typed),
        night(director, "Night Three", 19, totals, clubs={n: "RIVERTOWN club" for n in totals}),
    ]
    series = create(director_client, medal_bonus="3, 2, 1")
    for event in nights:
        add(director_client, series, event)
    shown = rows(client, series)
    assert [(r[0], r[1], r[-2]) for r in shown] == [
        ("1", "Ann O'Brien", "39"),  # 13 a night
        ("2", "Bo Diaz", "30"),
        ("3", "José Núñez", "21"),
    ]
    page = director_client.get(f"/s/{series.slug}/").content.decode()
    assert 'id="probable"' not in page  # nothing left to link by hand


def test_the_same_name_without_a_club_or_in_another_is_linked_in_one_step(
    director, director_client, client
):
    one = night(director, "Night One", 5, {"Ann Lee": 5, "Bo Diaz": 10, "Cy Young": 20})
    two = night(
        director,
        "Night Two",
        12,
        {"Ann Lee": 5, "Bo Diaz": 10, "Cy Young": 20},
        clubs={"Ann Lee": "", "Bo Diaz": "Lakeside"},
    )
    series = create(director_client)
    add(director_client, series, one)
    add(director_client, series, two)
    assert len(rows(client, series)) == 5  # Ann twice, Bo twice: only probably one person
    page = director_client.get(f"/s/{series.slug}/")
    html = page.content.decode()
    offered = html[html.index('id="probable"') :]
    assert ">Link these 2<" in offered
    assert "<strong>Ann Lee</strong>: Rivertown Club (Night One); no club (Night Two)" in offered
    assert "<strong>Bo Diaz</strong>: Rivertown Club (Night One); Lakeside (Night Two)" in offered
    assert "probable" not in client.get(f"/s/{series.slug}/").content.decode()  # directors'
    post = {"name": ["annlee", "bodiaz"], "action": "link", "once": form_key(page)}
    answer = director_client.post(f"/director/s/{series.slug}/people/", post, follow=True)
    assert "2 names linked: each one&#x27;s players are one person." in answer.content.decode()
    assert [(r[0], r[1], r[-2]) for r in rows(client, series)] == [
        ("1", "Ann Lee", "26"),
        ("2", "Bo Diaz", "20"),
        ("3", "Cy Young", "14"),
    ]
    # The same form again (a double click): nothing more, the same answer.
    again = director_client.post(f"/director/s/{series.slug}/people/", post, follow=True)
    assert "2 names linked" in again.content.decode()
    assert PersonLink.objects.filter(same=True).count() == 2
    for event in (one, two):  # said in both events' histories, once
        assert event.actions.filter(verb="player.linked").count() == 2
    after = director_client.get(f"/s/{series.slug}/").content.decode()
    assert 'id="probable"' not in after


def test_the_ticked_can_be_said_to_be_different_people(director, director_client, client):
    one = night(director, "Night One", 5, {"Ann Lee": 5, "Bo Diaz": 10})
    two = night(director, "Night Two", 12, {"Ann Lee": 5, "Bo Diaz": 10}, clubs={"Ann Lee": ""})
    series = create(director_client)
    add(director_client, series, one)
    add(director_client, series, two)
    page = director_client.get(f"/s/{series.slug}/")
    post = {"name": "annlee", "action": "apart", "once": form_key(page)}
    answer = director_client.post(f"/director/s/{series.slug}/people/", post, follow=True)
    assert "1 name kept apart: its players are different people." in answer.content.decode()
    assert not PersonLink.objects.get().same
    assert len(rows(client, series)) == 3
    assert 'id="probable"' not in director_client.get(f"/s/{series.slug}/").content.decode()


def test_only_the_series_directors_link(director, director_client, client):
    one = night(director, "Night One", 5, {"Ann Lee": 5, "Bo Diaz": 10})
    two = night(director, "Night Two", 12, {"Ann Lee": 5, "Bo Diaz": 10}, clubs={"Ann Lee": ""})
    series = create(director_client)
    add(director_client, series, one)
    add(director_client, series, two)
    post = {"name": "annlee", "action": "link"}
    url = f"/director/s/{series.slug}/people/"
    assert client.post(url, post).status_code == 302  # to the log-in page
    other = logged_in(make_director("other"))
    answer = other.post(url, post, follow=True)
    assert "Only the series&#x27; directors can do this." in answer.content.decode()
    assert not PersonLink.objects.exists()
    answer = director_client.post(url, {"action": "link"}, follow=True)
    assert "Tick at least one name." in answer.content.decode()


def test_a_link_shows_every_event_of_that_person(director, director_client, client):
    spring = night(director, "Spring", 5, {"Bob Smith": 5, "Cy Young": 10})
    summer = night(director, "Summer", 12, {"Bob Smith": 5, "Cy Young": 10})  # same name, club
    autumn = night(
        director,
        "Autumn",
        19,
        {"Bob Smith": 5, "Cy Young": 10},
        typed={"Bob Smith": "Robert Smith"},
    )
    robert = autumn.players.get(name="Robert Smith")
    bob = spring.players.get(name="Bob Smith")
    page = director_client.get(f"/e/autumn/player/{robert.pk}/").content.decode()
    assert 'id="link-person"' not in page  # no one of that name elsewhere
    # A director links Robert to Spring's Bob: Summer's Bob (the same by name and club) too.
    url = f"/director/e/autumn/player/{robert.pk}/same-person/"
    director_client.post(url, {"other": bob.pk})
    shown = client.get(f"/e/autumn/player/{robert.pk}/").content.decode()
    others = shown[shown.index('id="other-events"') :]
    for event in (spring, summer):
        mine = event.players.get(name="Bob Smith")
        assert f'href="/e/{event.slug}/player/{mine.pk}/"' in others
    assert "Bob Smith" in others  # named as they were there


def test_not_the_same_person_keeps_one_name_and_club_apart(director, director_client, client):
    spring = night(director, "Spring", 5, {"John Smith": 5, "Cy Young": 10})
    summer = night(director, "Summer", 12, {"John Smith": 5, "Cy Young": 10})
    series = create(director_client)
    add(director_client, series, spring)
    add(director_client, series, summer)
    assert len(rows(client, series)) == 2
    one, two = (e.players.get(name="John Smith") for e in (spring, summer))
    page = director_client.get(f"/e/summer/player/{two.pk}/").content.decode()
    others = page[page.index('id="other-events"') :]
    assert f'href="/e/spring/player/{one.pk}/"' in others and ">not the same person<" in others
    url = f"/director/e/summer/player/{two.pk}/same-person/"
    answer = director_client.post(url, {"other": one.pk, "action": "unlink"}, follow=True)
    assert "Not the same person as John Smith of Spring." in answer.content.decode()
    assert len(rows(client, series)) == 3
    assert 'id="other-events"' not in client.get(f"/e/summer/player/{two.pk}/").content.decode()
    said = Action.objects.filter(verb="player.not_same")
    assert sorted(said.values_list("event__slug", flat=True)) == ["spring", "summer"]
    # Said again the other way: one person once more, the history keeps both words.
    director_client.post(url, {"other": one.pk})
    assert len(rows(client, series)) == 2
    assert Action.objects.filter(verb="player.linked").count() == 2


def test_two_of_one_name_and_club_in_one_event_are_left_to_a_director(
    director, director_client, client
):
    spring = night(director, "Spring", 5, {"Ann Lee": 5, "Cy Young": 10})
    summer = make_event(director, name="Summer", slug="summer", date=datetime.date(2026, 1, 12))
    for _ in range(2):
        Player.objects.create(event=summer, name="Ann Lee", club=CLUB)
    one = spring.players.get(name="Ann Lee")
    page = client.get(f"/e/spring/player/{one.pk}/").content.decode()
    assert 'id="other-events"' not in page  # which Ann Lee of Summer is she? a director says
    page = director_client.get(f"/e/spring/player/{one.pk}/").content.decode()
    assert page.count('<option value="', page.index('id="link-person"')) == 2


def test_ratings_count_the_same_people(director, director_client, client, settings):
    settings.RATING_MIN_GAMES = 1
    totals = {"Ann Lee": 5, "Bo Diaz": 10, "Cy Young": 20}
    night(director, "Night One", 5, totals)
    night(director, "Night Two", 12, totals, typed={"Ann Lee": "ANN LEE"})
    compute_ratings()
    board = rows_of(client.get("/ratings/").content.decode(), "ratings")
    assert sorted((r[1], r[4], r[5]) for r in board) == [
        ("ANN LEE", "2", "2"),
        ("Bo Diaz", "2", "2"),
        ("Cy Young", "2", "2"),
    ]
