"""A stage's clock in the database: load it, press its buttons, read it, and what it leaves
score entry once time is called (PRODUCT.md §5).

tournament/clock.py does the arithmetic on a ``Clock`` value; this module is the thin shell:
``stage_clock`` loads the facts a ``Stage`` row stores, the four button functions save a
transition and the ``ClockEvent`` that says who pressed it, in one transaction with the stage
row locked, and ``entry_after_time`` applies ``rules.rounds_allowed_after_time`` to a table.

A clock that runs out calls time by itself: nothing is written then; every reader computes it
from the start, the pauses and the limit (``Clock.effective_time_called_at``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.dateformat import time_format
from django.utils.translation import gettext as _

from tournament.clock import ZERO, Clock, ClockError, ClockState
from tournament.models import ClockAction, ClockEvent, Stage
from tournament.rules import rounds_allowed_after_time

__all__ = [
    "ClockError",
    "ClockReading",
    "TimeCalledEntry",
    "call_time",
    "entry_after_time",
    "pause_clock",
    "read_clock",
    "resume_clock",
    "stage_clock",
    "start_clock",
]

LAST_MINUTES = 5
_FIELDS = ["clock_started_at", "clock_paused_at", "clock_paused_total", "time_called_at"]


def stage_clock(stage: Stage) -> Clock:
    """The stage's clock as stored, with the event's time limit (none: untimed)."""
    minutes = stage.event.game_minutes
    return Clock(
        limit=timedelta(minutes=minutes) if minutes else None,
        started_at=stage.clock_started_at,
        paused_at=stage.clock_paused_at,
        paused_total=stage.clock_paused_total or ZERO,
        time_called_at=stage.time_called_at,
    )


def clock_time(moment: datetime) -> str:
    """A moment as the room's wall clock shows it: 10:42."""
    return time_format(timezone.localtime(moment), "H:i")


# -- the buttons ------------------------------------------------------------------------------


def _press(stage: Stage, user, now: datetime | None, action: str, transition) -> Clock:
    now = now or timezone.now()
    with transaction.atomic():
        locked = Stage.objects.select_for_update().get(pk=stage.pk)
        if locked.closed:
            raise ClockError(_("This stage is closed: its clock can no longer be changed."))
        clock = transition(stage_clock(locked), now)
        locked.clock_started_at = clock.started_at
        locked.clock_paused_at = clock.paused_at
        locked.clock_paused_total = clock.paused_total
        locked.time_called_at = clock.time_called_at
        locked.save(update_fields=_FIELDS)
        ClockEvent.objects.create(stage=locked, action=action, at=now, by=user)
    for name in _FIELDS:
        setattr(stage, name, getattr(locked, name))
    return clock


def start_clock(stage: Stage, user, now: datetime | None = None) -> Clock:
    """Start the stage's clock (once); recorded with who started it."""
    return _press(stage, user, now, ClockAction.START, Clock.start)


def pause_clock(stage: Stage, user, now: datetime | None = None) -> Clock:
    """Pause the running clock: the remaining time stays frozen on every screen."""
    return _press(stage, user, now, ClockAction.PAUSE, Clock.pause)


def resume_clock(stage: Stage, user, now: datetime | None = None) -> Clock:
    """Resume a paused clock; the pause does not count against the time limit."""
    return _press(stage, user, now, ClockAction.RESUME, Clock.resume)


def call_time(stage: Stage, user, now: datetime | None = None) -> Clock:
    """Call time: no new round starts; the event's rule decides the round in progress."""
    return _press(stage, user, now, ClockAction.CALL_TIME, Clock.call_time)


# -- score entry after time is called ---------------------------------------------------------


@dataclass(frozen=True)
class TimeCalledEntry:
    """What a table may still enter once time has been called, and the sentence that says so."""

    called_at: datetime
    round_in_progress: str  # "finish" or "void", the event's rule
    entered: int  # rounds the table has
    allowed: int  # rounds it may have
    next_engine: int | None

    @property
    def may_enter(self) -> bool:
        return self.entered < self.allowed

    @property
    def message(self) -> str:
        values = {"at": clock_time(self.called_at), "e": self.next_engine}
        if self.may_enter:
            return (
                _(
                    "Time was called at %(at)s; the round in progress (%(e)s-%(e)s) may still "
                    "be entered, no new round."
                )
                % values
            )
        if self.round_in_progress == "void":
            return (
                _(
                    "Time was called at %(at)s: under this event's rules the round in progress "
                    "does not count, so no more rounds can be entered."
                )
                % values
            )
        return (
            _(
                "Time was called at %(at)s and the round that was in progress has been entered: "
                "no new round starts, so no more rounds can be entered."
            )
            % values
        )


def entry_after_time(sheet, now: datetime | None = None) -> TimeCalledEntry | None:
    """For a table's sheet (scoring.sheets.TableSheet): what it may enter after time is called.

    ``None`` while time has not been called (by a director or by the clock running out). The
    rounds that count as played before time are those entered by the moment it was called.
    """
    stage = sheet.table.stage
    called_at = stage_clock(stage).effective_time_called_at(now or timezone.now())
    if called_at is None:
        return None
    before = sum(1 for r in sheet.rounds if r.entered_at <= called_at)
    rules = sheet.rules
    return TimeCalledEntry(
        called_at=called_at,
        round_in_progress=rules.round_in_progress,
        entered=len(sheet.rounds),
        allowed=rounds_allowed_after_time(before, rules.round_in_progress, len(rules.engines)),
        next_engine=sheet.next_engine,
    )


# -- reading the clock on a page --------------------------------------------------------------


def _digits(seconds: int) -> str:
    """Minutes and seconds, minutes unpadded and past 59 if need be: 60:00, 4:59, 0:00."""
    return f"{seconds // 60}:{seconds % 60:02d}"


def _state_labels() -> dict[str, str]:
    return {
        "not_started": _("Not started"),
        "running": _("Running"),
        "paused": _("Paused"),
        "time_called": _("Time called"),
        "untimed": _("Running, untimed"),
    }


@dataclass(frozen=True)
class ClockReading:
    """A stage's clock read at one moment: what the pages, the big screen and clock.json show.

    Timed clocks show the time remaining (counting down); untimed ones the time played.
    """

    stage: Stage
    clock: Clock
    now: datetime

    @property
    def state(self) -> ClockState:
        return self.clock.state(self.now)

    @property
    def timed(self) -> bool:
        return self.clock.timed

    @property
    def remaining(self) -> timedelta | None:
        return self.clock.remaining(self.now)

    @property
    def elapsed(self) -> timedelta:
        return self.clock.elapsed(self.now)

    @property
    def called_at(self) -> datetime | None:
        return self.clock.effective_time_called_at(self.now)

    @property
    def last_minutes(self) -> bool:
        return self.clock.in_last_minutes(self.now, LAST_MINUTES)

    @property
    def shown(self) -> bool:
        """An untimed stage whose clock was never started shows no clock (as before clocks)."""
        return self.timed or self.state != "not_started"

    @property
    def digits(self) -> str:
        """What the clock face shows: remaining time rounded up, or time played rounded down."""
        if self.remaining is not None:
            return _digits(math.ceil(self.remaining.total_seconds()))
        return _digits(math.floor(self.elapsed.total_seconds()))

    @property
    def label(self) -> str:
        """The state in words; once time is called, when: "Time called at 10:42"."""
        if self.state == "time_called":
            return _("Time called at %(at)s") % {"at": clock_time(self.called_at)}
        return _state_labels()[self.state]

    @property
    def json_url(self) -> str:
        return reverse("clock_json", args=[self.stage.event.slug, self.stage.number])

    def as_json(self) -> dict:
        """The clock for clock.json and for the page's json_script, in seconds."""
        remaining = self.remaining
        called_at = self.called_at
        return {
            "state": self.state,
            "label": self.label,
            "timed": self.timed,
            "remaining": None if remaining is None else remaining.total_seconds(),
            "elapsed": self.elapsed.total_seconds(),
            "last_minutes": self.last_minutes,
            "time_called_at": None if called_at is None else called_at.isoformat(),
            "time_called_at_text": None if called_at is None else clock_time(called_at),
            "server_time": self.now.isoformat(),
        }

    def config(self) -> dict:
        """What static/js/clock.js needs to count between polls: the reading, its URL, labels."""
        return {
            "clock": self.as_json(),
            "url": self.json_url,
            "labels": _state_labels(),
            "last_seconds": LAST_MINUTES * 60,
        }


def read_clock(stage: Stage, now: datetime | None = None) -> ClockReading:
    return ClockReading(stage=stage, clock=stage_clock(stage), now=now or timezone.now())
