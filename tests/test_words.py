"""Words that read right (issue 28 item 23): a new event's short name says its year once, and
the director's exports leave "Player id" empty for a player who has no registration id."""

import pytest

from tests.factories import make_players, play, seat
from tests.test_event_setup import NVSO_FORM
from tests.test_exports_safe import read_csv
from tournament.models import Event, Player, Table

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Spring 2026 Mexican Train", "spring-2026-mexican-train"),
        ("NVSO 2026", "nvso-2026"),
        ("Mexican Train", "mexican-train-2026"),
        ("Club 20260 night", "club-20260-night-2026"),  # a number that only contains the year
    ],
)
def test_a_new_events_short_name_says_its_year_once(director_client, name, slug):
    response = director_client.post("/director/new/", {**NVSO_FORM, "name": name})
    assert response.status_code == 302
    assert Event.objects.get(name=name).slug == slug
    assert response["Location"] == f"/director/e/{slug}/players/"


@pytest.mark.parametrize("url", ["/e/spring/1/standings/export/", "/e/spring/round-scores/"])
def test_player_id_is_empty_for_a_player_without_a_registration_id(director_client, event, url):
    make_players(event, ["Ann Lee", "Bo Chen", "Cy Diaz", "Di Ewa"])
    Player.objects.filter(name="Ann Lee").update(ref="R-17")
    stage = seat(event)
    play(Table.objects.get(stage=stage), 1)
    header, *rows = read_csv(director_client.get(url, {"_export": "csv"}))
    ids = {row[header.index("Player")]: row[header.index("Player id")] for row in rows}
    assert ids == {"Ann Lee": "R-17", "Bo Chen": "", "Cy Diaz": "", "Di Ewa": ""}


def test_the_hall_console_counts_backed_up_events_in_words():
    from tournament.hall_server import backed_up

    assert backed_up(1) == "Backed up 1 event changed since their last backup."
    assert backed_up(3) == "Backed up 3 events changed since their last backup."
