"""Migrations that fill data: an event saved before them reads the same after."""

import datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("tournament", "0012_french_sheet_language"), ("scoring", "0008_import_jobs")]
AFTER = [("tournament", "0013_stored_totals"), ("scoring", "0009_fill_stored_totals")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture(autouse=True)
def latest_schema_afterwards():
    """The tests after these find the tables every migration makes (these go back in time)."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_the_stored_totals_are_filled_from_the_rounds_already_entered():
    apps = migrate(BEFORE)
    try:
        Event = apps.get_model("tournament", "Event")
        Stage = apps.get_model("tournament", "Stage")
        Table = apps.get_model("tournament", "Table")
        Player = apps.get_model("tournament", "Player")
        Seat = apps.get_model("tournament", "Seat")
        Round = apps.get_model("scoring", "Round")
        Score = apps.get_model("scoring", "Score")
        event = Event.objects.create(name="Old", slug="old", date=datetime.date(2026, 5, 2))
        stage = Stage.objects.create(event=event, number=1, name="Game 1")
        played, idle = (Table.objects.create(stage=stage, number=n, code=f"C{n}") for n in (1, 2))
        players = [Player.objects.create(event=event, name=f"P{n}") for n in range(6)]
        for i, p in enumerate(players):
            Seat.objects.create(stage=stage, table=played if i < 3 else idle, player=p, position=i)
        for number, engine, awaiting in [(1, 12, False), (2, 11, True)]:
            r = Round.objects.create(
                table=played, number=number, engine=engine, awaiting_confirmation=awaiting
            )
            for i, p in enumerate(players[:3]):
                Score.objects.create(round=r, player=p, pips=number * 10 + i)
    finally:
        apps = migrate(AFTER)
    Seat = apps.get_model("tournament", "Seat")
    Table = apps.get_model("tournament", "Table")
    assert dict(Seat.objects.values_list("player__name", "pips_entered")) == {
        "P0": 30,
        "P1": 32,
        "P2": 34,
        "P3": 0,
        "P4": 0,
        "P5": 0,
    }
    counts = Table.objects.order_by("number").values_list("rounds_played", "rounds_awaiting")
    assert list(counts) == [(2, 1), (0, 0)]
