"""The close page tells what this close will really do (issue 28 items 6 and 23): its road to
the Final counts the advancers the results produce (a tie at a table's top sends both on), its
preview is not yet "closed", and a playoff already created is not listed again as owed."""

import re

import pytest

from tests.factories import make_players, seat
from tests.test_advancement import advance_url, close, play_totals, short_event
from tournament.models import StageKind, Table

pytestmark = pytest.mark.django_db


def text(response) -> str:
    page = response.content.decode()
    page = page[page.index("<main") :]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))


def road(response) -> str:
    return " ".join(
        re.sub(r"<[^>]+>", "", m)
        for m in re.findall(r'<span class="finals-plan">(.*?)</span>', response.content.decode())
    )


@pytest.fixture
def game1(director):
    """24 players at 6 tables of Game 1; each table's winner advances (ties: all of them)."""
    event = short_event(director, finals_top_n=None)
    make_players(event, count=24)
    return seat(event)


def play_all(stage, tie_at_table_one: bool):
    for table in Table.objects.filter(stage=stage).order_by("number"):
        totals = [5, 5, 20, 30] if tie_at_table_one and table.number == 1 else [5, 9, 20, 30]
        play_totals(table, totals)


def test_the_road_counts_a_tie_at_a_tables_top_before_and_after_closing(director_client, game1):
    play_all(game1, tie_at_table_one=True)
    preview = director_client.get(advance_url(game1))
    assert "→ 7 →" in road(preview), road(preview)
    assert "→ 6 →" not in road(preview)
    assert "Semifinal, 2 tables of 4 or 3" in road(preview)

    closed = close(director_client, game1)
    game1.refresh_from_db()
    assert game1.closed
    after = director_client.get(advance_url(game1))
    assert "→ 7 →" in road(after) and "Semifinal, 2 tables of 4 or 3" in road(after)
    assert closed.status_code == 200


def test_without_a_tie_the_road_is_the_plan(director_client, game1):
    play_all(game1, tie_at_table_one=False)
    preview = director_client.get(advance_url(game1))
    assert "→ 6 →" in road(preview) and "Semifinal, 2 tables of 3" in road(preview)


def test_the_preview_is_not_yet_closed(director_client, game1):
    play_all(game1, tie_at_table_one=False)
    preview = director_client.get(advance_url(game1)).content.decode()
    assert "Confirm: close Game 1" in preview
    assert ">closed<" not in preview.replace(" ", "")
    close(director_client, game1)
    after = director_client.get(advance_url(game1)).content.decode()
    assert ">closed<" in after.replace(" ", "")


def test_a_created_playoff_is_not_listed_again_as_owed(director_client, director):
    event = short_event(director, advancement_tie="playoff")
    make_players(event, count=8)
    stage = seat(event)
    t1, t2 = Table.objects.filter(stage=stage).order_by("number")
    play_totals(t1, [5, 5, 20, 30])
    play_totals(t2, [5, 9, 20, 30])
    preview = text(director_client.get(advance_url(stage)))
    assert "Playoffs owed" in preview  # the preview says a playoff will be owed

    closed = text(close(director_client, stage))
    assert event.stages.filter(kind=StageKind.PLAYOFF).count() == 1
    assert "Playoff created:" in closed
    assert "Playoffs owed" not in closed
