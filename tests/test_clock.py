"""The stage clock (tournament/game/clock.py), with explicit datetimes: PRODUCT.md §5."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournament.game.clock import Clock, ClockError

T0 = datetime(2019, 9, 19, 9, 0, tzinfo=UTC)
HOUR = timedelta(minutes=60)
MIN = timedelta(minutes=1)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def mins(minutes: float) -> timedelta:
    return timedelta(minutes=minutes)


def test_new_clock_is_not_started():
    clock = Clock.for_minutes(60)
    assert clock.limit == HOUR
    assert clock.state(at(0)) == "not_started"
    assert clock.remaining(at(0)) == HOUR
    assert clock.elapsed(at(0)) == timedelta(0)
    assert clock.expires_at is None
    assert clock.effective_time_called_at(at(0)) is None
    assert not clock.in_last_minutes(at(0), 5)


def test_start_runs_the_clock():
    clock = Clock.for_minutes(60).start(at(0))
    assert clock.state(at(10)) == "running"
    assert clock.elapsed(at(10)) == mins(10)
    assert clock.remaining(at(10)) == mins(50)
    assert clock.expires_at == at(60)


def test_start_twice_is_an_error():
    clock = Clock.for_minutes(60).start(at(0))
    with pytest.raises(ClockError, match="already been started"):
        clock.start(at(1))


def test_pause_freezes_remaining():
    clock = Clock.for_minutes(60).start(at(0)).pause(at(10))
    assert clock.state(at(10)) == "paused"
    for later in (10, 30, 500):
        assert clock.state(at(later)) == "paused"
        assert clock.remaining(at(later)) == mins(50)
        assert clock.elapsed(at(later)) == mins(10)
    assert clock.expires_at is None


def test_resume_adds_the_pause_to_paused_total():
    clock = Clock.for_minutes(60).start(at(0)).pause(at(10)).resume(at(25))
    assert clock.paused_total == mins(15)
    assert clock.paused_at is None
    assert clock.state(at(30)) == "running"
    assert clock.remaining(at(30)) == mins(45)
    assert clock.elapsed(at(30)) == mins(15)
    assert clock.expires_at == at(75)


def test_pause_while_paused_is_an_error():
    clock = Clock.for_minutes(60).start(at(0)).pause(at(10))
    with pytest.raises(ClockError, match="already paused"):
        clock.pause(at(11))


def test_resume_while_running_is_an_error():
    clock = Clock.for_minutes(60).start(at(0))
    with pytest.raises(ClockError, match="not paused"):
        clock.resume(at(5))


def test_buttons_before_start_are_errors():
    clock = Clock.for_minutes(60)
    for press in (clock.pause, clock.resume, clock.call_time):
        with pytest.raises(ClockError, match="not been started"):
            press(at(0))


def test_a_change_before_the_last_one_is_an_error():
    clock = Clock.for_minutes(60).start(at(10))
    with pytest.raises(ClockError, match="before the clock's last change"):
        clock.pause(at(5))


def test_expiry_calls_time_by_itself():
    clock = Clock.for_minutes(60).start(at(0))
    assert clock.state(at(59.99)) == "running"
    assert clock.effective_time_called_at(at(59.99)) is None
    # Time is called the moment remaining reaches zero.
    assert clock.state(at(60)) == "time_called"
    assert clock.remaining(at(60)) == timedelta(0)
    for later in (61, 120):
        assert clock.state(at(later)) == "time_called"
        assert clock.remaining(at(later)) == timedelta(0)
        assert clock.elapsed(at(later)) == HOUR
        assert clock.effective_time_called_at(at(later)) == at(60)


def test_auto_expiry_moment_accounts_for_pauses():
    clock = (
        Clock.for_minutes(60)
        .start(at(0))
        .pause(at(10))
        .resume(at(25))  # 15 minutes
        .pause(at(40))
        .resume(at(45))  # 5 minutes
    )
    assert clock.paused_total == mins(20)
    assert clock.expires_at == at(80)
    assert clock.state(at(79)) == "running"
    assert clock.remaining(at(79)) == mins(1)
    assert clock.state(at(90)) == "time_called"
    assert clock.effective_time_called_at(at(90)) == at(80)


def test_pausing_after_expiry_is_an_error():
    clock = Clock.for_minutes(60).start(at(0))
    with pytest.raises(ClockError, match="Time has already been called"):
        clock.pause(at(61))


def test_call_time_by_hand():
    clock = Clock.for_minutes(60).start(at(0)).call_time(at(42))
    assert clock.time_called_at == at(42)
    assert clock.state(at(42)) == "time_called"
    assert clock.state(at(100)) == "time_called"
    assert clock.remaining(at(50)) == timedelta(0)
    assert clock.elapsed(at(50)) == mins(42)
    assert clock.effective_time_called_at(at(50)) == at(42)
    assert clock.expires_at is None


def test_call_time_while_paused_ends_the_pause():
    clock = Clock.for_minutes(60).start(at(0)).pause(at(10)).call_time(at(30))
    assert clock.state(at(30)) == "time_called"
    assert clock.paused_at is None
    assert clock.paused_total == mins(20)
    assert clock.elapsed(at(40)) == mins(10)
    assert clock.remaining(at(40)) == timedelta(0)


def test_time_called_twice_is_an_error():
    clock = Clock.for_minutes(60).start(at(0)).call_time(at(42))
    with pytest.raises(ClockError, match="Time has already been called"):
        clock.call_time(at(43))


def test_time_called_after_expiry_is_an_error():
    clock = Clock.for_minutes(60).start(at(0))
    with pytest.raises(ClockError, match="Time has already been called"):
        clock.call_time(at(60))


def test_no_button_works_after_time_is_called():
    clock = Clock.for_minutes(60).start(at(0)).call_time(at(42))
    for press in (clock.pause, clock.resume):
        with pytest.raises(ClockError, match="Time has already been called"):
            press(at(43))


def test_in_last_minutes():
    clock = Clock.for_minutes(60).start(at(0))
    assert not clock.in_last_minutes(at(54), 5)
    assert clock.in_last_minutes(at(55), 5)
    assert clock.in_last_minutes(at(59), 5)
    assert not clock.in_last_minutes(at(60), 5)  # time called
    assert clock.pause(at(57)).in_last_minutes(at(200), 5)  # frozen with 3 minutes left
    assert clock.in_last_minutes(at(50), 10)


def test_untimed_clock():
    clock = Clock.for_minutes(None)
    assert clock.state(at(0)) == "not_started"
    assert clock.remaining(at(0)) is None
    started = clock.start(at(0))
    assert started.state(at(600)) == "untimed"
    assert started.remaining(at(600)) is None
    assert started.elapsed(at(600)) == mins(600)
    assert started.expires_at is None
    assert started.effective_time_called_at(at(600)) is None
    assert not started.in_last_minutes(at(600), 5)


def test_untimed_clock_pauses_and_can_still_be_called():
    clock = Clock.for_minutes(None).start(at(0)).pause(at(30))
    assert clock.state(at(40)) == "paused"
    assert clock.elapsed(at(40)) == mins(30)
    clock = clock.resume(at(40))
    assert clock.state(at(50)) == "untimed"
    assert clock.elapsed(at(50)) == mins(40)
    called = clock.call_time(at(200))
    assert called.state(at(300)) == "time_called"
    assert called.effective_time_called_at(at(300)) == at(200)
    assert called.remaining(at(300)) is None
    with pytest.raises(ClockError, match="Time has already been called"):
        called.call_time(at(301))


def test_transitions_return_new_clocks():
    clock = Clock.for_minutes(60)
    started = clock.start(at(0))
    assert clock.started_at is None
    assert started is not clock
    with pytest.raises(AttributeError):
        started.limit = HOUR  # type: ignore[misc]


def test_naive_now_is_refused():
    clock = Clock.for_minutes(60).start(at(0))
    with pytest.raises(ValueError, match="aware"):
        clock.state(datetime(2019, 9, 19, 9, 30))


def test_impossible_rows_are_refused():
    with pytest.raises(ValueError):
        Clock(limit=timedelta(0))
    with pytest.raises(ValueError):
        Clock(limit=HOUR, paused_at=at(1))
    with pytest.raises(ValueError):
        Clock(limit=HOUR, started_at=at(0), paused_at=at(1), time_called_at=at(2))


# -- properties ------------------------------------------------------------------------------

limits = st.integers(min_value=1, max_value=4 * 3600).map(lambda s: timedelta(seconds=s))
offsets = st.integers(min_value=0, max_value=8 * 3600).map(lambda s: timedelta(seconds=s))


@st.composite
def clocks_and_now(draw: st.DrawFn) -> tuple[Clock, datetime]:
    """A timed clock after a random series of pauses and resumes, and a later moment."""
    clock = Clock(limit=draw(limits)).start(T0)
    now = T0
    for _ in range(draw(st.integers(min_value=0, max_value=6))):
        now += draw(offsets)
        if clock.state(now) == "time_called":
            break
        clock = clock.resume(now) if clock.paused_at is not None else clock.pause(now)
    return clock, now + draw(offsets)


@given(clocks_and_now())
def test_remaining_plus_elapsed_is_the_limit_before_expiry(case: tuple[Clock, datetime]):
    clock, now = case
    remaining = clock.remaining(now)
    assert remaining is not None and clock.limit is not None
    assert remaining >= timedelta(0)
    if clock.state(now) in ("running", "paused"):
        assert remaining > timedelta(0)
        assert remaining + clock.elapsed(now) == clock.limit
    else:
        assert clock.state(now) == "time_called"
        assert remaining == timedelta(0)


@given(clocks_and_now())
def test_running_clock_expires_at_start_plus_limit_plus_pauses(case: tuple[Clock, datetime]):
    clock, now = case
    if clock.state(now) == "running":
        assert clock.expires_at == T0 + clock.limit + clock.paused_total
        assert clock.expires_at - now == clock.remaining(now)


# -- taking time called back, adding minutes -----------------------------------------------------


def test_undoing_a_call_gives_back_the_time_left_and_counts_the_gap_as_a_pause():
    clock = Clock.for_minutes(60).start(T0).call_time(T0 + 20 * MIN)
    undone = clock.undo_call_time(T0 + 22 * MIN)
    assert undone.state(T0 + 22 * MIN) == "running"
    assert undone.remaining(T0 + 22 * MIN) == 40 * MIN  # the 40 minutes left at the call
    assert undone.remaining(T0 + 32 * MIN) == 30 * MIN  # and counting
    assert undone.paused_total == 2 * MIN


def test_a_call_while_paused_is_undone_to_the_paused_time_left():
    clock = Clock.for_minutes(60).start(T0).pause(T0 + 10 * MIN).call_time(T0 + 30 * MIN)
    undone = clock.undo_call_time(T0 + 31 * MIN)
    assert undone.remaining(T0 + 31 * MIN) == 50 * MIN


def test_only_a_directors_call_can_be_undone():
    ran_out = Clock.for_minutes(60).start(T0)
    with pytest.raises(ClockError, match="no call to undo"):
        ran_out.undo_call_time(T0 + 70 * MIN)


def test_added_minutes_restart_a_clock_that_ran_out_during_an_unpaused_break():
    clock = Clock.for_minutes(60).start(T0)
    assert clock.state(T0 + 65 * MIN) == "time_called"
    longer = clock.add_minutes(15)  # the 15-minute break nobody paused for
    assert longer.state(T0 + 65 * MIN) == "running"
    assert longer.remaining(T0 + 65 * MIN) == 10 * MIN


def test_minutes_are_not_added_to_a_called_or_untimed_clock():
    with pytest.raises(ClockError, match="undo the call first"):
        Clock.for_minutes(60).start(T0).call_time(T0 + MIN).add_minutes(5)
    with pytest.raises(ClockError, match="untimed"):
        Clock.for_minutes(None).start(T0).add_minutes(5)
    with pytest.raises(ClockError, match="between 1 and 600"):
        Clock.for_minutes(60).start(T0).add_minutes(0)
