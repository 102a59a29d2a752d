"""Stages in play order on every page, an unplayed playoff shown "—", and what a redraw of a
later stage does (issue 12 item 5)."""

import re

import pytest

from tests.factories import make_event, make_players, seat
from tests.test_advancement import advance_url, play_totals
from tournament.models import Seat, Stage, StageKind, Table

pytestmark = pytest.mark.django_db


def names_in_order(page, names):
    positions = [page.find(n) for n in names]
    assert all(p >= 0 for p in positions), names
    return positions == sorted(positions)


@pytest.fixture
def tied(director, director_client):
    """Game 1 closed with a tie at table 1's top under the playoff rule: a playoff is owed."""
    event = make_event(
        director, engines=[1, 0], game_minutes=None, advancement_tie="playoff", finals_top_n=1
    )
    make_players(event, count=8)
    game1 = seat(event)
    t1, t2 = Table.objects.filter(stage=game1)
    play_totals(t1, [3, 3, 20, 30])
    play_totals(t2, [5, 10, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    return event


def test_an_advancement_playoff_comes_before_the_stage_it_seats(director_client, tied):
    stages = [(s.number, s.kind) for s in tied.stages.all()]
    assert stages == [(1, "qualifying"), (2, "playoff"), (3, "final")]
    home = director_client.get(f"/e/{tied.slug}/").content.decode()
    assert names_in_order(
        home, ["Game 1</strong>", "Playoff: Game 1, table 1</strong>", "Final</strong>"]
    )
    bracket = director_client.get(f"/e/{tied.slug}/bracket/").content.decode()
    headings = re.findall(r'<h3 class="h5">([^<]*?) ?<', bracket)
    assert headings == ["Game 1", "Playoff: Game 1, table 1", "Final"]


def test_an_unplayed_playoff_shows_a_dash_not_zero(director_client, tied):
    playoff = Stage.objects.get(event=tied, kind=StageKind.PLAYOFF)
    bracket = director_client.get(f"/e/{tied.slug}/bracket/").content.decode()
    section = bracket[bracket.find('<h3 class="h5">Playoff: Game 1, table 1') :]
    section = section[: section.find("</section>")]
    assert re.findall(r'<td class="text-end">([^<]*)</td>', section) == ["—", "—"]
    standings = director_client.get(f"/e/{tied.slug}/{playoff.number}/").content.decode()
    # place (none before a round: issue 28 item 5), rounds played, total, infractions of each
    # of the two players
    cells = re.findall(r'<td ?(?:class="[^"]*")?>(—|0)</td>', standings)
    assert cells == ["—", "0", "—", "0"] * 2


def test_the_results_list_stages_in_play_order(director_client, director):
    event = make_event(director, engines=[1, 0], game_minutes=None)
    make_players(event, count=8)
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    final = Stage.objects.get(event=event, kind=StageKind.FINAL)
    play_totals(final.tables.get(), [3, 10, 20, 30])
    director_client.post(advance_url(final), {"action": "close"})
    results = director_client.get(f"/e/{event.slug}/results/").content.decode()
    assert names_in_order(results, ['data-stage="1"', f'data-stage="{final.number}"'])
    assert "Gold" in results


def test_a_later_stage_redraws_only_its_players_apart_from_tablemates(director_client, director):
    event = make_event(director, engines=[1, 0], game_minutes=None)
    make_players(event, count=24)
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})
    semifinal = Stage.objects.get(event=event, kind=StageKind.SEMIFINAL)
    players = set(Seat.objects.filter(stage=semifinal).values_list("player", flat=True))
    url = f"/e/{event.slug}/{semifinal.number}/seating/"
    page = director_client.get(url).content.decode()
    assert "Drawing again seats only this stage's 6 players (the advancers), apart from " in (page)
    director_client.post(f"/director/e/{event.slug}/{semifinal.number}/seat/", {})
    again = set(Seat.objects.filter(stage=semifinal).values_list("player", flat=True))
    assert again == players
    game1_table = dict(Seat.objects.filter(stage=game1).values_list("player", "table"))
    for table in semifinal.tables.all():
        seated = [game1_table[s.player_id] for s in table.seats.all()]
        assert len(seated) == len(set(seated))  # six winners of six tables: none meet again
