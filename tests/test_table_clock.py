"""One table's time (tournament/game/clock.py ``TableClock``): minutes added to one table move
that table's clock only (PRODUCT.md §15), and the close names the tables that played fewer
rounds (``short_tables``). Plain Python, explicit datetimes, no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournament.game.clock import Clock, ClockError, TableClock, short_tables

T0 = datetime(2019, 9, 19, 9, 0, tzinfo=UTC)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def mins(minutes: float) -> timedelta:
    return timedelta(minutes=minutes)


def started(minutes: int = 60) -> Clock:
    return Clock.for_minutes(minutes).start(at(0))


def test_a_table_ends_its_minutes_after_the_stage():
    table = TableClock(started(), mins(5))
    assert table.ends_at(at(10)) == at(65)
    assert table.remaining(at(10)) == mins(55)
    assert table.state(at(10)) == "running"


def test_the_rooms_time_called_leaves_a_table_with_minutes_playing():
    stage = started()
    table = TableClock(stage, mins(5))
    assert stage.state(at(61)) == "time_called"
    assert table.state(at(61)) == "running"
    assert table.in_extra_time(at(61))
    assert table.remaining(at(61)) == mins(4)
    assert table.effective_time_called_at(at(61)) is None
    assert table.in_last_minutes(at(61))


def test_a_tables_own_time_is_called_when_its_minutes_run_out():
    table = TableClock(started(), mins(5))
    assert table.effective_time_called_at(at(65)) == at(65)
    assert table.effective_time_called_at(at(70)) == at(65)
    assert table.state(at(70)) == "time_called"
    assert table.remaining(at(70)) == timedelta(0)
    assert not table.in_extra_time(at(70))


def test_a_table_without_minutes_is_the_room():
    stage = started()
    table = TableClock(stage)
    for minute in (0, 30, 59, 60, 61, 90):
        now = at(minute)
        assert table.state(now) == stage.state(now)
        assert table.remaining(now) == stage.remaining(now)
        assert table.effective_time_called_at(now) == stage.effective_time_called_at(now)
        assert table.elapsed(now) == stage.elapsed(now)


def test_a_call_by_hand_gives_the_table_its_minutes_after_the_call():
    stage = started().call_time(at(40))
    table = TableClock(stage, mins(5))
    assert stage.state(at(41)) == "time_called"
    assert table.state(at(41)) == "running"
    assert table.remaining(at(41)) == mins(4)
    assert table.effective_time_called_at(at(46)) == at(45)


def test_a_paused_stage_pauses_the_table():
    table = TableClock(started().pause(at(20)), mins(5))
    assert table.state(at(30)) == "paused"
    assert table.remaining(at(30)) == mins(45)
    assert table.remaining(at(50)) == mins(45)
    assert table.ends_at(at(30)) is None


def test_a_pause_moves_the_tables_end_with_the_stages():
    table = TableClock(started().pause(at(20)).resume(at(30)), mins(5))
    assert table.ends_at(at(31)) == at(75)
    assert table.state(at(72)) == "running"
    assert table.effective_time_called_at(at(80)) == at(75)


def test_undoing_the_rooms_call_runs_the_table_with_the_stage():
    stage = started().call_time(at(40)).undo_call_time(at(42))
    table = TableClock(stage, mins(5))
    assert table.state(at(43)) == "running"
    assert table.ends_at(at(43)) == at(67)


def test_elapsed_counts_the_tables_own_minutes():
    table = TableClock(started(), mins(5))
    assert table.elapsed(at(63)) == mins(63)
    assert table.elapsed(at(90)) == mins(65)


def test_not_started_table():
    table = TableClock(Clock.for_minutes(60), mins(5))
    assert table.state(at(0)) == "not_started"
    assert table.remaining(at(0)) == mins(65)
    assert table.ends_at(at(0)) is None


def test_minutes_on_an_untimed_clock_do_not_count():
    stage = Clock.for_minutes(None).start(at(0)).call_time(at(50))
    table = TableClock(stage, mins(5))
    assert table.remaining(at(51)) is None
    assert table.effective_time_called_at(at(51)) == at(50)
    with pytest.raises(ClockError, match="untimed"):
        TableClock(Clock.for_minutes(None)).add_minutes(5)


def test_adding_and_removing_minutes():
    table = TableClock(started()).add_minutes(5).add_minutes(3)
    assert table.added == mins(8)
    assert table.remove_minutes(8).added == timedelta(0)
    with pytest.raises(ClockError, match="at most the 8 min"):
        table.remove_minutes(9)
    with pytest.raises(ClockError, match="no minutes"):
        TableClock(started()).remove_minutes(1)
    with pytest.raises(ClockError, match="between 1 and 600"):
        table.add_minutes(0)
    with pytest.raises(ClockError, match="at most 600"):
        table.add_minutes(595)


def test_adding_minutes_after_the_tables_time_ran_out_runs_it_again():
    table = TableClock(started(), mins(5))
    assert table.state(at(66)) == "time_called"
    longer = table.add_minutes(5)
    assert longer.state(at(66)) == "running"
    assert longer.remaining(at(66)) == mins(4)


@given(
    limit=st.integers(1, 120),
    added=st.integers(0, 60),
    call=st.one_of(st.none(), st.integers(0, 200)),
    now=st.integers(0, 400),
)
def test_a_table_is_never_called_before_the_room_and_ends_its_minutes_after(
    limit, added, call, now
):
    stage = Clock.for_minutes(limit).start(at(0))
    if call is not None and call < limit:
        stage = stage.call_time(at(call))
    table = TableClock(stage, mins(added))
    room = stage.effective_time_called_at(at(now))
    own = table.effective_time_called_at(at(now))
    if room is None:
        assert own is None
        assert table.remaining(at(now)) == stage.remaining(at(now)) + mins(added)
    elif own is not None:
        assert own == room + mins(added)
    else:
        assert at(now) < room + mins(added)
        assert table.remaining(at(now)) == room + mins(added) - at(now)


def test_short_tables_names_those_below_the_most():
    assert short_tables({1: 12, 2: 12, 3: 10, 4: 9}) == ([(3, 10), (4, 9)], 12)
    assert short_tables({1: 12, 2: 12}) == ([], 12)
    assert short_tables({}) == ([], 0)
