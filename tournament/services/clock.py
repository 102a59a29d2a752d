"""The clock's buttons (PRODUCT.md §5): each saves a transition and the ``ClockEvent`` that says
who pressed it, in one transaction with the stage row locked (tournament/game/clock.py says
which transitions are allowed; tournament/clock.py reads the clock)."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.clock import _FIELDS, minutes_of, stage_clock
from tournament.game.clock import ZERO, Clock, ClockError, TableClock
from tournament.history import claim, log_action
from tournament.models import ClockAction, ClockEvent, Stage, Table
from tournament.services.seating import publish_draft

# -- the buttons ------------------------------------------------------------------------------


def _press(
    stage: Stage,
    user,
    now: datetime | None,
    action: str,
    transition,
    key: str | None = None,
    *,
    minutes: int | None = None,
    reason: str = "",
    then=None,
) -> Clock:
    """Press a clock button: the transition, its ClockEvent and history entry, and ``then``
    (what else the press changes), once per form key, with the event and stage locked."""
    now = now or timezone.now()
    with transaction.atomic():
        stage.event.locked()
        locked = Stage.objects.select_for_update().select_related("event").get(pk=stage.pk)
        if claim(key, user) is not None:  # the same button press, sent again
            clock = stage_clock(locked)
        else:
            if locked.closed:
                raise ClockError(_("This stage is closed: its clock can no longer be changed."))
            if not locked.has_clock:
                raise ClockError(_("A playoff is one round: it has no clock."))
            before = stage_clock(locked)
            clock = transition(before, now)
            locked.clock_started_at = clock.started_at
            locked.clock_paused_at = clock.paused_at
            locked.clock_paused_total = clock.paused_total
            locked.time_called_at = clock.time_called_at
            if clock.limit != before.limit:
                locked.clock_added = (locked.clock_added or ZERO) + (clock.limit - before.limit)
            locked.save(update_fields=_FIELDS)
            ClockEvent.objects.create(
                stage=locked, action=action, at=now, by=user, minutes=minutes, reason=reason
            )
            log_action(
                locked.event,
                f"clock.{action}",
                user,
                stage=locked,
                reason=reason,
                minutes=minutes,
            )
            if then is not None:
                then(locked)
    for name in _FIELDS:
        setattr(stage, name, getattr(locked, name))
    return clock


def start_clock(stage: Stage, user, now: datetime | None = None, key: str | None = None) -> Clock:
    """Start the stage's clock (once); recorded with who started it. A draft seating is
    published with it: a director who starts play means it (issue 49 item 4)."""

    def publish(locked: Stage) -> None:
        if publish_draft(locked, user, because="clock"):
            stage.seating_draft = False

    return _press(stage, user, now, ClockAction.START, Clock.start, key, then=publish)


def pause_clock(stage: Stage, user, now: datetime | None = None, key: str | None = None) -> Clock:
    """Pause the running clock: the remaining time stays frozen on every screen."""
    return _press(stage, user, now, ClockAction.PAUSE, Clock.pause, key)


def resume_clock(stage: Stage, user, now: datetime | None = None, key: str | None = None) -> Clock:
    """Resume a paused clock; the pause does not count against the time limit."""
    return _press(stage, user, now, ClockAction.RESUME, Clock.resume, key)


def stop_at_close(locked: Stage, user, now: datetime | None = None) -> None:
    """Closing a stage ends it: a clock still running (or paused) stops, as time called at
    the close, so that every screen reads it frozen and "Closed". The caller holds the lock."""
    now = now or timezone.now()
    clock = stage_clock(locked)
    if clock.started_at is None or clock.effective_time_called_at(now) is not None:
        return
    stopped = clock.call_time(now)
    locked.clock_paused_at = stopped.paused_at
    locked.clock_paused_total = stopped.paused_total
    locked.time_called_at = stopped.time_called_at
    locked.save(update_fields=_FIELDS)
    ClockEvent.objects.create(
        stage=locked, action=ClockAction.CALL_TIME, at=now, by=user, reason=_("Stage closed")
    )


def call_time(stage: Stage, user, now: datetime | None = None, key: str | None = None) -> Clock:
    """Call time: no new round starts; the event's rule decides the round in progress."""
    return _press(stage, user, now, ClockAction.CALL_TIME, Clock.call_time, key)


def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ClockError(_("Give the reason."))
    return reason[:300]


def undo_call_time(
    stage: Stage, user, reason: str, now: datetime | None = None, key: str | None = None
) -> Clock:
    """A director takes back time called by mistake: the clock runs on with the time that was
    left at the call (the minutes since count as a pause). Rounds entered meanwhile stay; the
    tables whose games were marked over since the call are open again (the call made them)."""
    return _press(
        stage,
        user,
        now,
        ClockAction.UNDO_CALL,
        Clock.undo_call_time,
        key,
        reason=_reason(reason),
        then=lambda locked: locked.tables.filter(game_over_after__isnull=False).update(
            game_over_after=None
        ),
    )


def add_minutes(
    stage: Stage,
    user,
    minutes: int,
    reason: str,
    now: datetime | None = None,
    key: str | None = None,
) -> Clock:
    """A director lengthens the stage's game, with a reason (a break the clock ran through)."""
    reason = _reason(reason)
    return _press(
        stage,
        user,
        now,
        ClockAction.ADD_MINUTES,
        lambda clock, _now: clock.add_minutes(minutes),
        key,
        minutes=minutes,
        reason=reason,
    )


# -- one table's minutes ----------------------------------------------------------------------


def change_table_minutes(
    stage: Stage,
    number: int,
    user,
    minutes: int,
    reason: str,
    *,
    remove: bool = False,
    key: str | None = None,
) -> Table:
    """A director gives one table minutes of its own (a late start, a spilled set), or takes
    back minutes given by mistake, with a reason: that table's time is called that long after
    the room's (tournament/game/clock.py ``TableClock``). Once per form key, with the event,
    the stage and the table locked; the history says it, and every screen of the event reads
    the clocks again (the stage's list of tables with extra time changes too)."""
    reason = _reason(reason)
    with transaction.atomic():
        stage.event.locked()
        locked = Stage.objects.select_for_update().select_related("event").get(pk=stage.pk)
        table = Table.objects.select_for_update().filter(stage=locked, number=number).first()
        if table is None:
            raise ClockError(_("%(s)s has no table %(t)s.") % {"s": locked.title, "t": number})
        if claim(key, user) is not None:  # the same button press, sent again
            return table
        if locked.closed:
            raise ClockError(_("This stage is closed: its clock can no longer be changed."))
        if not locked.has_clock:
            raise ClockError(_("A playoff is one round: it has no clock."))
        if not remove and table.game_over_after is not None:
            raise ClockError(
                _("Table %(t)s's game is marked over: reopen it first.") % {"t": number}
            )
        before = TableClock(stage_clock(locked), table.clock_added or ZERO)
        after = before.remove_minutes(minutes) if remove else before.add_minutes(minutes)
        table.clock_added = after.added
        table.save(update_fields=["clock_added"])
        log_action(
            locked.event,
            "table.minutes_removed" if remove else "table.minutes_added",
            user,
            stage=locked,
            reason=reason,
            table=number,
            minutes=minutes,
            total=minutes_of(after.added),
        )
    return table
