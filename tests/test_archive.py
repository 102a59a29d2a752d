"""Archive and records (issue 16 item 3): past events with their medalists on the home page,
records per set and table size with links to the sheets, a player across events."""

import re
from datetime import date, timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from scoring.eventfile import import_event
from scoring.models import PersonLink
from scoring.results import load_results
from scoring.services.rounds import record_round
from scoring.sheets import table_sheet
from tests.factories import make_director, make_event, make_players, seat
from tournament.models import Action

pytestmark = pytest.mark.django_db

DATA = Path(__file__).parent / "data"


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_past_events_list_their_medalists_on_the_home_page(client):
    played = import_event((DATA / "nvso-tie-for-gold-bronze-played.json").read_text())
    shared = import_event((DATA / "shared-medals.json").read_text())
    page = client.get("/").content.decode()
    section = page[page.index('id="past-events"') :]
    for event in (played, shared):
        results = load_results(event)
        names = {pk: p.name for pk, p in results.players.items()}
        for pk, medal in results.medal_of().items():
            assert re.search(
                rf"{medal.capitalize()}[^<]*</span>[^<]*:[^<]*{re.escape(names[pk])}", section
            )
    # Latest first: the 2024 event before the 2019 one.
    assert section.index(shared.name) < section.index(played.name)


def test_an_event_of_today_or_to_come_is_not_in_the_archive(client, director):
    make_event(director, name="Games of today", date=timezone.localdate())
    make_event(director, name="Next month", date=timezone.localdate() + timedelta(days=30))
    page = client.get("/").content.decode()
    assert "Games of today" in page and 'id="past-events"' not in page


def play_full_game(table, rows):
    for pips in rows:
        record_round(table, pips, None)


def test_records_per_set_and_table_size_link_to_the_sheet(client, director):
    event = make_event(director, name="Club night", slug="club", date="2025-01-10")
    a, b, c, d = make_players(event, count=4)
    stage = seat(event)
    table = stage.tables.get()
    # 13 rounds: b goes out 5 times, a has the lowest total.
    rows = []
    for n in range(13):
        zero = b if n < 5 else a
        rows.append({a.pk: 0 if zero == a else 2, b.pk: 0 if zero == b else 9, c.pk: 20, d.pk: 30})
    play_full_game(table, rows)
    totals = table_sheet(table).totals
    assert totals[a.pk] == 10 and totals[b.pk] == 72
    page = client.get("/records/").content.decode()
    group = page[page.index('id="records-12-4"') :]
    game = re.search(r'data-kind="lowest_game">(.*?)</tr>', group, re.S).group(1)
    zeros = re.search(r'data-kind="most_zeros">(.*?)</tr>', group, re.S).group(1)
    assert "10" in text(game) and a.name in game and "Club night" in game
    assert f'href="/e/club/1/table/{table.number}/"' in game
    assert " 8 " in text(zeros) and a.name in zeros  # a went out in the last 8 rounds


def test_an_unfinished_game_sets_no_record(client, director):
    event = make_event(director, name="Club night", slug="club", date="2025-01-10")
    players = make_players(event, count=4)
    table = seat(event).tables.get()
    record_round(table, {p.pk: 0 if i == 0 else 1 for i, p in enumerate(players)}, None)
    assert "No complete game yet." in client.get("/records/").content.decode()


def test_a_players_page_links_the_same_player_in_other_events(client, director):
    spring = make_event(director, name="Spring", slug="spring", date="2025-04-01")
    autumn = make_event(director, name="Autumn", slug="autumn", date="2025-10-01")
    (ann_spring,) = make_players(spring, names=["Ann Lee"], ref="A17", club="Reno MT")
    (ann_autumn,) = make_players(autumn, names=["Ann Lee-Smith"], ref="A17", club="reno mt")
    elko = make_event(director, name="Elko open", slug="elko", date="2025-06-01")
    (other,) = make_players(elko, names=["Ann Lee"], ref="A17", club="Elko")  # another club
    page = client.get(f"/e/autumn/player/{ann_autumn.pk}/").content.decode()
    others = page[page.index('id="other-events"') :]
    assert f'href="/e/spring/player/{ann_spring.pk}/"' in others
    assert str(other.pk) not in re.findall(r"/player/(\d+)/", others)
    lonely = client.get(f"/e/elko/player/{other.pk}/").content.decode()
    assert 'id="other-events"' not in lonely


def test_a_director_links_the_same_person_across_events_once(director, director_client, client):
    spring = make_event(director, name="Spring", slug="spring", date="2025-04-01")
    autumn = make_event(director, name="Autumn", slug="autumn", date="2025-10-01")
    (bo_spring,) = make_players(spring, names=["Bo Diaz"])
    (bo_autumn,) = make_players(autumn, names=["bo diaz"])
    page = director_client.get(f"/e/autumn/player/{bo_autumn.pk}/").content.decode()
    form = page[page.index('id="link-person"') :]
    assert f'<option value="{bo_spring.pk}">Bo Diaz – Spring' in form
    url = f"/director/e/autumn/player/{bo_autumn.pk}/same-person/"
    for _ in range(2):  # a double click links once
        director_client.post(url, {"other": bo_spring.pk})
    assert PersonLink.objects.count() == 1
    # said once, in the history of both events
    linked = Action.objects.filter(verb="player.linked")
    assert sorted(linked.values_list("event__slug", flat=True)) == ["autumn", "spring"]
    # Both pages, public, now show the other event.
    assert (
        f"/e/spring/player/{bo_spring.pk}/"
        in client.get(f"/e/autumn/player/{bo_autumn.pk}/").content.decode()
    )
    assert (
        f"/e/autumn/player/{bo_autumn.pk}/"
        in client.get(f"/e/spring/player/{bo_spring.pk}/").content.decode()
    )
    director_client.post(url, {"other": bo_spring.pk, "action": "unlink"})
    assert not PersonLink.objects.get().same  # the last word: not the same person
    assert Action.objects.filter(verb="player.not_same").count() == 2
    assert (
        'id="other-events"' not in client.get(f"/e/spring/player/{bo_spring.pk}/").content.decode()
    )


@pytest.mark.parametrize("other", ["", "abc", "999999", "same-event"])
def test_a_bad_link_says_so_and_saves_nothing(director, director_client, other):
    event = make_event(director, name="Spring", slug="spring", date="2025-04-01")
    a, b = make_players(event, names=["Ann", "Bo"])
    value = str(b.pk) if other == "same-event" else other
    response = director_client.post(
        f"/director/e/spring/player/{a.pk}/same-person/", {"other": value}, follow=True
    )
    assert "Choose a player of another event you direct." in response.content.decode()
    assert not PersonLink.objects.exists()


def test_only_the_events_directors_link(director, client):
    spring = make_event(director, name="Spring", slug="spring", date="2025-04-01")
    autumn = make_event(director, name="Autumn", slug="autumn", date="2025-10-01")
    (a,) = make_players(spring, names=["Ann"])
    (b,) = make_players(autumn, names=["Ann"])
    url = f"/director/e/spring/player/{a.pk}/same-person/"
    assert client.post(url, {"other": b.pk}).status_code == 302  # to the login
    stranger = make_director("stranger")
    client.force_login(stranger)
    assert client.post(url, {"other": b.pk}).status_code == 403
    assert not PersonLink.objects.exists()


def test_the_same_person_across_two_imported_events(client, director):
    """Issue 16: a player's history across events, the events brought as event files."""
    from datetime import date

    from scoring.eventfile import dumps, export_event, import_event
    from tests.factories import make_event

    spring = make_event(director, name="Spring", slug="spring-x", date=date(2025, 4, 1))
    make_players(spring, names=["Ann Lee"], ref="A17", club="Reno MT")
    text = dumps(export_event(spring))
    first = import_event(text, slug="spring-a")
    second = import_event(text.replace('"Spring"', '"Autumn"', 1), slug="autumn-a")
    ann_first, ann_second = (e.players.get(name="Ann Lee") for e in (first, second))
    page = client.get(f"/e/autumn-a/player/{ann_second.pk}/").content.decode()
    assert f'href="/e/spring-a/player/{ann_first.pk}/"' in page


def test_a_director_links_only_to_events_they_direct(director, director_client):
    mine = make_event(director, name="Mine", slug="mine", date=date(2025, 4, 1))
    theirs = make_event(make_director("other"), name="Theirs", slug="theirs", date=date(2025, 5, 1))
    (a,) = make_players(mine, names=["Bo Diaz"])
    (b,) = make_players(theirs, names=["Bo Diaz"])
    page = director_client.get(f"/e/mine/player/{a.pk}/").content.decode()
    assert 'id="link-person"' not in page  # no candidate from an event they do not direct
    response = director_client.post(
        f"/director/e/mine/player/{a.pk}/same-person/", {"other": b.pk}, follow=True
    )
    assert "Choose a player of another event you direct." in response.content.decode()
    assert not PersonLink.objects.exists()
