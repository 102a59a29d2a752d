import pytest

from scoring.models import Round
from tests.factories import make_event, make_players, play, seat
from tournament.models import Seat, Table

pytestmark = pytest.mark.django_db


def draw(client, event, stage=1):
    return client.post(f"/director/e/{event.slug}/{stage}/seat/", follow=True)


def test_draw_seats_checked_in_players_at_balanced_tables(director_client, event):
    make_players(event, count=13)
    make_players(event, ["No Show"], checked_in=False)
    page = draw(director_client, event).content.decode()
    sizes = sorted(t.seats.count() for t in Table.objects.all())
    assert sizes == [4, 4, 5]
    assert not Seat.objects.filter(player__name="No Show").exists()
    assert "3 tables drawn." in page


def test_no_table_is_larger_than_the_rules_can_deal(director_client, director):
    event = make_event(director, table_size=5, tiles_drawn={"4": 15, "5": 15})
    make_players(event, count=11)  # 4 + 4 + 3 needs a table of 3, 5 + 6 one of 6: neither deals
    page = draw(director_client, event).content.decode()
    assert (
        "11 players cannot be seated at balanced tables of the sizes this rule set deals (4, 5)."
        in page
    )
    assert not Table.objects.exists()


def test_a_count_that_cannot_be_dealt_is_refused_with_a_message(director_client, director):
    event = make_event(director, tiles_drawn={"4": 15})
    make_players(event, count=6)
    page = draw(director_client, event).content.decode()
    assert "cannot" in page
    assert not Table.objects.exists()


def test_one_player_cannot_be_seated(director_client, event):
    make_players(event, count=1)
    page = draw(director_client, event).content.decode()
    assert "Seating needs at least 2 players; 1 checked in." in page


def test_divisions_are_seated_apart(director_client, event):
    make_players(event, [f"A{i}" for i in range(8)], division="55-59")
    make_players(event, [f"B{i}" for i in range(4)], division="60-64")
    draw(director_client, event)
    for table in Table.objects.all():
        assert len({s.player.division for s in table.seats.all()}) == 1


def test_the_director_moves_a_player(director_client, seated):
    seat_ = Seat.objects.filter(table__number=1).first()
    target = Table.objects.get(stage=seated, number=2)
    director_client.post(
        f"/director/e/{seated.event.slug}/1/seat/",
        {"move": "1", "player": seat_.player.pk, "table": target.pk},
    )
    seat_.refresh_from_db()
    assert seat_.table == target
    assert target.seats.count() == 5


def test_a_move_that_breaks_the_deal_is_refused(director_client, director):
    event = make_event(director, table_size=5, tiles_drawn={"4": 15, "5": 15})
    make_players(event, count=10)  # two tables of 5: a sixth player cannot be dealt
    stage = seat(event)
    big = Table.objects.filter(stage=stage).first()
    mover = Seat.objects.exclude(table=big).first()
    page = director_client.post(
        f"/director/e/{event.slug}/1/seat/",
        {"move": "1", "player": mover.player.pk, "table": big.pk},
        follow=True,
    ).content.decode()
    assert "cannot deal" in page
    mover.refresh_from_db()
    assert mover.table != big


def test_no_redraw_once_rounds_are_entered(director_client, seated):
    play(Table.objects.filter(stage=seated).first(), 1)
    page = draw(director_client, seated.event).content.decode()
    assert "Rounds have been entered at this stage" in page
    assert Round.objects.count() == 1


def test_seating_page_lists_a_to_z_and_table_by_table(client, event):
    make_players(event, ["Zoe Ng", "Ann Lee", "Émile Roy", "Bo Diaz"])
    seat(event)
    page = client.get(f"/e/{event.slug}/1/seating/").content.decode()
    alphabetical = page[page.index('id="alphabetical"') :]
    assert (
        alphabetical.index("Ann Lee") < alphabetical.index("Bo Diaz") < alphabetical.index("Zoe Ng")
    )
    assert 'id="table-1"' in page
    assert "Draw again" not in page  # public visitors see no director buttons


def test_seating_is_a_director_action(client, event):
    make_players(event, count=8)
    client.post(f"/director/e/{event.slug}/1/seat/")
    assert not Table.objects.exists()


def test_a_move_that_leaves_a_table_too_small_is_refused(director_client, director):
    event = make_event(director, table_size=3, tiles_drawn={"3": 15, "4": 15})
    make_players(event, count=6)  # two tables of 3; a table of 2 cannot be dealt here
    stage = seat(event)
    mover = Seat.objects.filter(table__number=1).first()
    target = Table.objects.get(stage=stage, number=2)
    page = director_client.post(
        f"/director/e/{event.slug}/1/seat/",
        {"move": "1", "player": mover.player.pk, "table": target.pk},
        follow=True,
    ).content.decode()
    assert "Table 1 would be left with 2 players, which this rule set cannot deal." in page
    mover.refresh_from_db()
    assert mover.table.number == 1


def test_a_move_across_divisions_is_refused(director_client, event):
    make_players(event, [f"A{i}" for i in range(4)], division="55-59")
    make_players(event, [f"B{i}" for i in range(4)], division="60-64")
    stage = seat(event)
    mover = Seat.objects.get(player__name="A0")
    other = Seat.objects.get(player__name="B0").table
    page = director_client.post(
        f"/director/e/{event.slug}/1/seat/",
        {"move": "1", "player": mover.player.pk, "table": other.pk},
        follow=True,
    ).content.decode()
    assert f"Table {other.number} plays in another division than A0." in page
    mover.refresh_from_db()
    assert mover.table != other and stage


def test_check_in_ignores_ids_that_are_not_numbers(director_client, event):
    make_players(event, ["Ann"], checked_in=False)
    response = director_client.post(
        f"/director/e/{event.slug}/players/check-in/",
        {"player": ["²", "9" * 23], "checked_in": "1"},
    )
    assert response.status_code == 302
    assert not event.players.filter(checked_in=True).exists()


def test_five_players_on_a_double_9_set_sit_three_and_two(director_client, director):
    event = make_event(
        director,
        slug="nine",
        set_size=9,
        engines=list(range(9, -1, -1)),
        tiles_drawn={"2": 15, "3": 13, "4": 10},
        table_size=4,
    )
    make_players(event, count=5)
    response = director_client.post("/director/e/nine/1/seat/", follow=True)
    page = response.content.decode()
    sizes = sorted(
        (t.seats.count() for t in Table.objects.filter(stage__event=event)), reverse=True
    )
    assert sizes == [3, 2]
    assert "Tables of 2 are used: tables of 4 players, one more or one fewer, cannot seat" in page
