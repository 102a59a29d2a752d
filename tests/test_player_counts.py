"""Issue 28 item 21: one count of players everywhere. Registered means not withdrawn (a
withdrawal is said beside it), checked in means registered and checked in; the event page, the
players page, the desk, the road to the Final and the list of events say the same numbers."""

import re

import pytest

from tests.factories import make_players

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_up(event):
    """28 players signed up: 25 checked in, 2 not yet, 1 who checked in and then withdrew."""
    make_players(event, [f"Player {i:02d}" for i in range(25)])
    make_players(event, ["Late One", "Late Two"], checked_in=False)
    make_players(event, ["Gone Home"], withdrawn=True)
    return event


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", response.content.decode()))


def test_the_event_page_counts_registered_without_the_withdrawn(director_client, signed_up):
    page = text(director_client.get(f"/e/{signed_up.slug}/"))
    assert "27 players registered (1 withdrew), 25 checked in." in page


def test_the_road_to_the_final_starts_from_the_players_checked_in(director_client, signed_up):
    page = text(director_client.get(f"/e/{signed_up.slug}/"))
    assert "25 players: Game 1" in page


def test_the_players_page_says_the_same_counts(director_client, signed_up):
    page = text(director_client.get(f"/director/e/{signed_up.slug}/players/"))
    assert "27 players registered (1 withdrew), 25 checked in." in page
    assert "Gone Home withdrawn" in page  # still listed, marked


def test_the_desk_says_the_same_counts(director_client, signed_up):
    response = director_client.get(f"/director/e/{signed_up.slug}/desk/")
    page = response.content.decode()
    assert '<strong data-count="registered">27</strong> registered</span> (1 withdrew)' in page
    assert '<strong data-count="checked_in">25</strong>' in page


def test_the_list_of_events_counts_the_registered(client, signed_up):
    assert "27 players" in text(client.get("/"))
