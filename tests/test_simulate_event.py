"""`manage.py simulate_event`: a stage's tables filled with rounds the rules engine plays,
entered through the director's service, stopping where time would be called."""

import io
import json
import random

import pytest
from django.core.management import CommandError, call_command

from scoring.management.commands.load_demo import DEMO_FILE
from scoring.management.commands.make_demo_file import demo_file
from scoring.models import Round
from scoring.services.stages import close_stage, seat_next_stage
from scoring.sheets import table_sheet
from tests.factories import make_director, make_event, make_players, play, seat
from tournament.game.simulator import game_rng, play_timed_game
from tournament.models import Action, ClockAction, ClockEvent, Event, Seat, Stage
from tournament.services.clock import call_time, start_clock

pytestmark = pytest.mark.django_db


def simulate(event, *args):
    out = io.StringIO()
    call_command("simulate_event", event.slug, *map(str, args), stdout=out)
    return out.getvalue()


def new_event(players=10, **rules):
    event = make_event(make_director(), **rules)
    make_players(event, count=players)
    return event, seat(event)


def sheets(stage):
    return [table_sheet(t) for t in stage.tables.order_by("number")]


def pips_by_seat(stage):
    """Every table's rounds as (engine, pips in seat order): comparable across events."""
    return [
        [(r.engine, [r.pips[p.pk] for p in s.players]) for r in s.rounds] for s in sheets(stage)
    ]


def engine_game(seed, stage, sheet, rules, minutes=10):
    """What the rules engine plays at this table for this seed."""
    rng = game_rng(seed, stage.number, sheet.table.number)
    n = len(sheet.players)
    return play_timed_game(rules, rules.engines, n, rng, minutes, rules.game_minutes).rounds


def test_an_untimed_stage_is_played_to_the_last_engine_with_the_engines_scores():
    event, stage = new_event(game_minutes=None)
    out = simulate(event, "--seed", 5)
    assert "39 rounds simulated and entered at 3 tables of Game 1 (seed 5)." in out
    director = event.directors.get()
    rules = event.rules
    for sheet in sheets(stage):
        assert [r.engine for r in sheet.rounds] == list(range(12, -1, -1))
        expected = engine_game(5, stage, sheet, rules)
        assert [[r.pips[p.pk] for p in sheet.players] for r in sheet.rounds] == [
            list(g.pips) for g in expected
        ]
    assert set(Round.objects.filter(table__stage=stage).values_list("entered_by", flat=True)) == {
        director.pk
    }
    saved = Action.objects.filter(event=event, verb="round.saved")
    assert saved.count() == 39 and {a.by for a in saved} == {director}, "in the event's history"
    assert Stage.objects.get(pk=stage.pk).clock_started_at is None, "untimed: no clock started"


def test_a_timed_stage_stops_where_time_is_called_and_every_game_is_marked_over():
    event, stage = new_event()  # NVSO: 60 minutes, the round in progress finishes and counts
    director = event.directors.get()
    out = simulate(event, "--seed", 3)
    for sheet in sheets(stage):
        expected = engine_game(3, stage, sheet, event.rules)
        assert 3 <= len(sheet.rounds) == len(expected) < 13
        assert [r.engine for r in sheet.rounds] == list(range(12, 12 - len(expected), -1))
        assert sheet.table.game_over_after == len(expected) and sheet.game_over
    assert "time called, game over after" in out and "is finished and counts" in out
    assert "Time called on Game 1; the game of 3 tables marked over." in out
    stage.refresh_from_db()
    assert stage.clock_started_at is not None and stage.time_called_at is not None
    presses = ClockEvent.objects.filter(stage=stage).order_by("at")
    assert [(e.action, e.by) for e in presses] == [
        (ClockAction.START, director),
        (ClockAction.CALL_TIME, director),
    ]
    marks = Action.objects.filter(event=event, verb="table.game_over")
    assert marks.count() == 3 and {a.by for a in marks} == {director}
    close_stage(stage, director)  # every table's game is over: the stage closes
    assert Stage.objects.get(pk=stage.pk).closed


def test_under_void_the_round_in_progress_when_time_is_called_is_not_entered():
    finish, finish_stage = new_event(round_in_progress="finish")
    void, void_stage = new_event(round_in_progress="void")
    simulate(finish, "--seed", 4)
    out = simulate(void, "--seed", 4)
    assert [len(s.rounds) for s in sheets(void_stage)] == [
        len(s.rounds) - 1 for s in sheets(finish_stage)
    ]
    assert "(the round in progress is void)" in out


def test_longer_rounds_fit_fewer_in_the_hour():
    quick, quick_stage = new_event()
    slow, slow_stage = new_event()
    simulate(quick, "--seed", 4, "--minutes-per-round", 6)
    simulate(slow, "--seed", 4, "--minutes-per-round", 25)
    assert all(len(s.rounds) <= 3 for s in sheets(slow_stage))
    assert all(len(s.rounds) >= 8 for s in sheets(quick_stage))


def test_the_same_seed_enters_the_same_rounds_and_an_unseeded_run_says_its_seed():
    first, first_stage = new_event()
    second, second_stage = new_event()
    third, third_stage = new_event()
    out = simulate(first)
    seed = out.rsplit("(seed ", 1)[1].split(")")[0]
    simulate(second, "--seed", seed)
    simulate(third, "--seed", int(seed) + 1)
    assert pips_by_seat(first_stage) == pips_by_seat(second_stage) != pips_by_seat(third_stage)


def test_rounds_already_entered_are_kept_and_the_game_goes_on_from_there():
    event, stage = new_event(game_minutes=None)
    table = stage.tables.get(number=1)
    play(table, 2)
    before = table_sheet(table).rounds
    out = simulate(event, "--seed", 1)
    after = table_sheet(table).rounds
    assert len(after) == 13 and [r.pips for r in after[:2]] == [r.pips for r in before]
    assert "Table 1: entered 10-10 to 0-0 (11 rounds" in out
    assert simulate(event, "--seed", 1).count("nothing to enter (13 rounds already)") == 3


def test_a_table_already_past_where_time_would_stop_it_is_left_as_it_is():
    event, stage = new_event()
    table = stage.tables.get(number=1)
    play(table, 10)
    out = simulate(event, "--seed", 3)
    assert "Table 1: nothing to enter (10 rounds already).\n" in out
    assert len(table_sheet(table).rounds) == 10


def test_a_player_left_holding_just_the_double_blank_is_entered_with_a_second_0():
    event, stage = new_event(players=9, game_minutes=None)
    simulate(event, "--seed", 11)
    two_zeros = [
        (s.table.number, r.engine)
        for s in sheets(stage)
        for r in s.rounds
        if list(r.pips.values()).count(0) == 2
    ]
    assert (2, 10) in two_zeros


def test_without_a_director_the_rounds_are_entered_by_nobody():
    event, stage = new_event(game_minutes=None)
    event.directors.clear()
    simulate(event, "--seed", 1)
    assert set(Round.objects.filter(table__stage=stage).values_list("entered_by", flat=True)) == {
        None
    }


def test_the_default_stage_is_the_first_open_one_with_players_seated():
    event, game1 = new_event(players=12, game_minutes=None)
    simulate(event, "--seed", 3)
    close_stage(game1, event.directors.get())
    final = seat_next_stage(event, rng=random.Random(1))
    out = simulate(event, "--seed", 3)
    assert f"of {final.name} (seed 3)" in out
    assert all(len(s.rounds) == 13 for s in sheets(final))


# -- refusals: a clear message, nothing saved ----------------------------------------------------


def refused(event, *args):
    with pytest.raises(CommandError) as error:
        simulate(event, *args)
    return str(error.value)


def test_an_unknown_event_is_refused():
    with pytest.raises(CommandError, match="No event has the short name 'nope'"):
        call_command("simulate_event", "nope", stdout=io.StringIO())


def test_a_stage_with_nobody_seated_is_refused():
    event = make_event(make_director(), name="Empty Open")
    make_players(event, count=8)
    assert refused(event) == "No open stage of Empty Open has players seated: seat one first."
    assert refused(event, "--stage", 2) == "Nobody is seated in Final: seat it first."
    assert "has no stage 7; its stages are 1 (Game 1), 2 (Final)." in refused(event, "--stage", 7)


def test_a_closed_stage_is_refused():
    event, stage = new_event(game_minutes=None)
    simulate(event, "--seed", 1)
    close_stage(stage, event.directors.get())
    assert refused(event, "--stage", 1) == "Game 1 is closed: no more rounds can be entered."


def test_a_stage_whose_time_was_called_is_refused():
    event, stage = new_event()
    director = event.directors.get()
    start_clock(stage, director)
    call_time(stage, director)
    assert "Time was called on Game 1" in refused(event, "--seed", 1)
    assert not Round.objects.exists()


def test_a_table_the_rule_set_cannot_deal_saves_nothing_not_even_the_clock():
    event, stage = new_event(players=10)  # tables of 4, 3, 3
    lone = Seat.objects.filter(table__stage=stage, table__number=2).order_by("position")
    lone.exclude(pk=lone.first().pk).delete()  # one player left there: no table to deal
    message = refused(event, "--seed", 1)
    assert message.startswith(
        "Nothing was saved: Game 1, table 2: The rule set deals no table of 1 players"
    )
    assert not Round.objects.exists()
    stage.refresh_from_db()
    assert stage.clock_started_at is None and not ClockEvent.objects.exists()


def test_a_table_at_a_size_the_chart_does_not_list_draws_as_the_next_larger_size():
    """A table of 3 where the chart lists 2 and 4 (a withdrawal left it so): dealt 15 each, as
    the tables of 4, and played."""
    event, stage = new_event(players=10, game_minutes=None)  # tables of 4, 3, 3
    Event.objects.filter(pk=event.pk).update(tiles_drawn={"2": 16, "4": 15})
    simulate(event, "--seed", 1)
    assert [len(s.rounds) for s in sheets(stage)] == [13, 13, 13]
    threes = [s for s in sheets(stage) if len(s.players) == 3]
    rules = Event.objects.get(pk=event.pk).rules
    assert rules.tiles_for(3) == 15 and len(threes) == 2


def test_minutes_per_round_must_be_a_positive_number():
    event, _ = new_event()
    assert "'0' is not a number of minutes above 0" in refused(event, "--minutes-per-round", 0)
    assert "'soon' is not a number" in refused(event, "--minutes-per-round", "soon")


# -- the demo event file ------------------------------------------------------------------------


def test_the_demo_files_rounds_are_what_the_rules_engine_plays_with_its_seed():
    out = io.StringIO()
    call_command("make_demo_file", "--check", stdout=out)
    assert out.getvalue() == "demo-event.json is what seed 1 gives.\n"
    with pytest.raises(CommandError, match="is not what seed 2 gives"):
        call_command("make_demo_file", "--check", "--seed", "2", stdout=io.StringIO())


def test_another_seed_changes_the_rounds_and_keeps_the_demos_shape():
    text = DEMO_FILE.read_text(encoding="utf-8")
    old, new = json.loads(text), json.loads(demo_file(text, seed=5))
    assert new["players"] == old["players"] and new["event"] == old["event"]
    old_tables, new_tables = old["stages"][0]["tables"], new["stages"][0]["tables"]
    assert [t["players"] for t in new_tables] == [t["players"] for t in old_tables]
    assert [len(t["infractions"]) for t in new_tables] == [0, 2, 0, 0, 0]
    assert [t["rounds"] for t in new_tables] != [t["rounds"] for t in old_tables]
    for table in new_tables:
        engines = [r["engine"] for r in table["rounds"]]
        assert 2 <= len(engines) < 13 and engines == list(range(12, 12 - len(engines), -1))
