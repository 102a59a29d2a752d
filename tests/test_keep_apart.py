"""Keep apart at the draw (issue 49 item 3): a keep-apart group on a player (a household, a
club, a pair the director names); the draw and the random reseating seat a group at different
tables where the field allows, and the seating page says what it could not avoid before the
director publishes. Through the players page, the seating page's draw and the event file;
the draw checked over random fields against the rule: a group sits together only where it has
more players than the stage has tables, and then as few to a table as can be."""

import math
import random

import pytest

from scoring.eventfile import export_event, import_event
from scoring.services.stages import close_and_seat
from tests.factories import make_director, make_event, make_players, seat
from tests.test_advancement import play_totals, short_event
from tournament.game.seating import together
from tournament.models import Player, Seat, Table

pytestmark = pytest.mark.django_db


def tables_of(stage) -> list[list[Player]]:
    seats = Seat.objects.filter(stage=stage).select_related("player", "table")
    tables: dict[int, list[Player]] = {}
    for s in seats.order_by("table__number", "position"):
        tables.setdefault(s.table.number, []).append(s.player)
    return [tables[n] for n in sorted(tables)]


def worst_at_a_table(tables, groups) -> dict[str, int]:
    """Each group's largest number of players at one table."""
    worst: dict[str, int] = {}
    for table in tables:
        for group in {groups[p.pk] for p in table if p.pk in groups}:
            here = sum(groups.get(p.pk) == group for p in table)
            worst[group] = max(worst.get(group, 0), here)
    return worst


def test_the_director_names_a_household_and_the_draw_seats_it_apart(director_client, event):
    for name, household in [("Ann Smith", "Smith"), ("Bo Smith", "Smith"), ("Cy Smith", "Smith")]:
        page = director_client.post(
            f"/director/e/{event.slug}/players/",
            {"name": name, "keep_apart": household, "checked_in": "on"},
        )
        assert page.status_code == 302
    make_players(event, count=9)
    assert set(event.players.values_list("keep_apart", flat=True)) == {"Smith", ""}
    for _ in range(5):  # each draw at random: never together, there are 3 tables
        page = director_client.post(f"/director/e/{event.slug}/1/seat/", follow=True)
        assert page.status_code == 200
        stage = event.stages.get(number=1)
        smiths = [sum(p.keep_apart == "Smith" for p in t) for t in tables_of(stage)]
        assert len(smiths) == 3 and max(smiths) == 1
    seating = director_client.get(f"/e/{event.slug}/1/seating/").content.decode()
    assert "Every keep-apart group (1) is seated apart." in seating


def test_the_seating_page_names_what_it_could_not_keep_apart(director_client, event):
    make_players(event, count=8, keep_apart="Reno club")  # 8 of one club at 2 tables
    director_client.post(f"/director/e/{event.slug}/1/seat/")
    stage = event.stages.get(number=1)
    assert [len(t) for t in tables_of(stage)] == [4, 4]
    seating = director_client.get(f"/e/{event.slug}/1/seating/").content.decode()
    assert "Kept apart where the field allowed; these sit together:" in seating
    assert seating.count("(Reno club)</li>") == 2  # a line per table
    director_client.cookies["django_language"] = "fr"
    french = director_client.get(f"/e/{event.slug}/1/seating/").content.decode()
    assert "ces joueurs sont ensemble" in french


@pytest.mark.parametrize("seed", range(12))
def test_over_random_fields_a_group_meets_only_where_it_outnumbers_the_tables(seed):
    rng = random.Random(seed)
    event = make_event(make_director(f"d{seed}"), slug=f"f{seed}")
    count = rng.randint(8, 40)
    make_players(event, count=count)
    players = list(event.players.order_by("pk"))
    rng.shuffle(players)
    groups: dict[int, str] = {}
    at = 0
    for g in range(rng.randint(1, 5)):
        size = rng.randint(2, max(2, count // 4))
        for p in players[at : at + size]:
            p.keep_apart = f"group {g}"
            p.save(update_fields=["keep_apart"])
            groups[p.pk] = f"group {g}"
        at += size
    stage = seat(event, seed=seed)
    tables = tables_of(stage)
    for group, worst in worst_at_a_table(tables, groups).items():
        members = sum(g == group for g in groups.values())
        assert worst == math.ceil(members / len(tables)), (group, members, len(tables))


def test_a_cumulative_events_random_reseating_keeps_a_group_apart(director):
    event = short_event(director, format_kind="cumulative", format_games=2)
    make_players(event, count=12)
    first = list(event.players.order_by("pk"))[:3]
    Player.objects.filter(pk__in=[p.pk for p in first]).update(keep_apart="Lee family")
    game1 = seat(event)
    for table in Table.objects.filter(stage=game1):
        play_totals(table, [10 + i for i in range(table.seats.count())])
    close_and_seat(game1, director)
    game2 = event.stages.get(number=2)
    lees = [sum(p.keep_apart == "Lee family" for p in t) for t in tables_of(game2)]
    assert max(lees) == 1


def test_the_event_file_keeps_the_groups(director):
    event = make_event(director, slug="kept")
    make_players(event, count=8)
    Player.objects.filter(event=event, name="Player 01").update(keep_apart="Lee family")
    data = export_event(event)
    assert any(p["extra"].get("keep_apart") == "Lee family" for p in data["players"])
    again = import_event(data, director=director, slug="kept-again")
    assert again.players.get(name="Player 01").keep_apart == "Lee family"
    assert export_event(again)["players"] == data["players"]


def test_together_names_each_table_and_group():
    groups = {"a": "x", "b": "x", "c": "y", "d": "y", "e": ""}
    assert together([["a", "b", "c"], ["d", "e"]], groups) == [(1, "x", ["a", "b"])]
