"""Progressive tables with more than one mover (issue 45 item 8, PRODUCT.md §12): k is checked
against the usual table size; at a smaller table, half that table (rounded down) moves each
way. Through the event form and by playing an event where a table of 3 occurs."""

import pytest

from tests.test_formats_flow import SHORT, close, create, names, play_game, seat_game_1
from tournament.models import Event, Table

pytestmark = pytest.mark.django_db


def tables_by_number(stage) -> list[list[str]]:
    return [
        [s.player.name for s in t.seats.select_related("player").order_by("position")]
        for t in Table.objects.filter(stage=stage).order_by("number")
    ]


def test_two_up_and_two_down_at_tables_of_4_is_accepted_when_tables_of_3_are_allowed(
    director_client,
):
    # NVSO's chart deals tables of 2 to 5: a table of 3 is allowed when the count does not
    # divide, and 2 moving each way is half the usual table of 4.
    event = create(
        director_client,
        format_kind="cumulative",
        format_games=2,
        format_reseat="progressive",
        format_move=2,
    )
    assert (event.table_size, event.format_move) == (4, 2)


def test_more_than_half_the_usual_table_is_refused_naming_the_usual_size(director_client):
    response = director_client.post(
        "/director/new/",
        {
            **SHORT,
            "name": "Club Night",
            "format_kind": "cumulative",
            "format_reseat": "progressive",
            "format_move": 3,
        },
    )
    assert response.status_code == 200
    assert (
        "3 players cannot move up and 3 down at tables of 4 (at most 2)."
        in response.content.decode()
    )
    assert not Event.objects.filter(name="Club Night").exists()


def test_a_table_of_3_moves_one_each_way_when_two_move_at_tables_of_4(director_client):
    event = create(
        director_client,
        format_kind="cumulative",
        format_games=2,
        format_reseat="progressive",
        format_move=2,
    )
    from tests.factories import make_players

    make_players(event, names(11))
    game1 = seat_game_1(director_client, event)
    before = tables_by_number(game1)
    assert [len(t) for t in before] == [4, 4, 3]
    # Lower totals for earlier seats at every table: the movers are known by seat.
    totals = {name: 10 * (seat + 1) for table in before for seat, name in enumerate(table)}
    play_game(director_client, game1, totals)
    page = close(director_client, game1).content.decode()
    assert "Game 2 seated" in page
    after = tables_by_number(event.stages.get(number=2))
    t1, t2, t3 = before
    # Table 1: its 2 highest move down; table 2: its 2 lowest up, its 2 highest down;
    # table 3 (of 3): its 1 lowest moves up, nobody is below it.
    where = {name: i for i, table in enumerate(after) for name in table}
    assert [where[n] for n in t1] == [0, 0, 1, 1]
    assert [where[n] for n in t2] == [0, 0, 2, 2]
    assert [where[n] for n in t3] == [1, 2, 2]
    assert sorted(map(len, after)) == [3, 4, 4]
