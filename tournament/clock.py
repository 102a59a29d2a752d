"""A stage's clock as it stands: load it from the stage row, read it for a page, and what it
leaves score entry once time is called (PRODUCT.md §5). Reads only; the buttons are
tournament/services/clock.py's.

tournament/game/clock.py does the arithmetic on a ``Clock`` value; ``stage_clock`` loads the
facts a ``Stage`` row stores, ``read_clock`` words them for a page, and ``entry_after_time``
says what a table may enter once time is called.

A clock that runs out calls time by itself: nothing is written then; every reader computes it
from the start, the pauses and the limit (``Clock.effective_time_called_at``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property
from typing import Literal

from django.urls import reverse
from django.utils import timezone
from django.utils.dateformat import time_format
from django.utils.translation import gettext as _

from tournament import live
from tournament.caching import live_context
from tournament.game.clock import ZERO, Clock, ClockState, TableClock
from tournament.game.rules import confirm_after_time
from tournament.models import Stage, Table
from tournament.text import labelled

LAST_MINUTES = 5
_FIELDS = [
    "clock_started_at",
    "clock_paused_at",
    "clock_paused_total",
    "time_called_at",
    "clock_added",
]


def stage_clock(stage: Stage) -> Clock:
    """The stage's clock as stored, with the event's time limit (none: untimed) and any
    minutes a director added; a one-round playoff's is untimed (it has no clock)."""
    minutes = stage.event.game_minutes if stage.has_clock else None
    limit = timedelta(minutes=minutes) + (stage.clock_added or ZERO) if minutes else None
    return Clock(
        limit=limit,
        started_at=stage.clock_started_at,
        paused_at=stage.clock_paused_at,
        paused_total=stage.clock_paused_total or ZERO,
        time_called_at=stage.time_called_at,
    )


def table_clock(table: Table, stage: Stage | None = None) -> TableClock:
    """The table's clock: its stage's and the minutes a director gave this table alone. A
    closed stage ended every table's time with it (its tables' minutes are over)."""
    stage = stage or table.stage
    added = ZERO if stage.closed else (table.clock_added or ZERO)
    return TableClock(stage=stage_clock(stage), added=added)


def minutes_of(added: timedelta | None) -> int:
    """Added time in whole minutes, as a director gave it."""
    return int((added or ZERO).total_seconds() // 60)


def clock_time(moment: datetime) -> str:
    """A moment as the room's wall clock shows it: 10:42."""
    return time_format(timezone.localtime(moment), "H:i")


# -- score entry after time is called ---------------------------------------------------------


@dataclass(frozen=True)
class TimeCalledEntry:
    """Score entry at a table once time has been called, and the sentences that say so.

    Scores may be typed after the call: any round is accepted until the table's game is
    marked over after its last round (PRODUCT.md §5); a round more than one past what was
    typed before the call asks for a confirmation (``rules.confirm_after_time``).
    """

    called_at: datetime
    round_in_progress: str  # "finish" or "void", the event's rule
    typed_before: int  # rounds typed by the moment time was called
    typed: int  # rounds typed now
    next_engine: int | None

    @property
    def needs_confirmation(self) -> bool:
        return self.next_engine is not None and confirm_after_time(self.typed_before, self.typed)

    @property
    def message(self) -> str:
        values = {"at": clock_time(self.called_at)}
        if self.round_in_progress == "void":
            rule = _(
                "Under this event's rules the round in progress does not count: do not enter it."
            )
        else:
            rule = _("The round that was in progress is finished and counts.")
        return " ".join(
            [
                _("Time was called at %(at)s: no new round starts.") % values,
                str(rule),
                _(
                    "Enter the rounds played before the call, then mark the table's game over "
                    "after its last round."
                ),
            ]
        )

    @property
    def confirmation(self) -> str:
        return _("Round %(e)s-%(e)s was played before time was called.") % {"e": self.next_engine}

    @property
    def unconfirmed(self) -> str:
        """What a scorekeeper does when the round is sent without its box ticked."""
        return _(
            "Tick the box if round %(e)s-%(e)s was played before time was called. If it was "
            "not, do not enter it: end the table's game after its last round instead."
        ) % {"e": self.next_engine}


def entry_after_time(sheet, now: datetime | None = None) -> TimeCalledEntry | None:
    """For a table's sheet (scoring.sheets.TableSheet): score entry once time is called.

    ``None`` while time has not been called (by a director or by the clock running out), and
    while a table with minutes of its own plays on after the room's call.
    """
    called_at = table_clock(sheet.table).effective_time_called_at(now or timezone.now())
    if called_at is None:
        return None
    return TimeCalledEntry(
        called_at=called_at,
        round_in_progress=sheet.rules.round_in_progress,
        typed_before=sum(1 for r in sheet.rounds if r.entered_at <= called_at),
        typed=len(sheet.rounds),
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
        "closed": _("Closed"),
    }


@dataclass(frozen=True)
class ClockReading:
    """A stage's clock read at one moment: what the pages, the big screen and clock.json show.

    Timed clocks show the time remaining (counting down); untimed ones the time played.
    """

    stage: Stage
    clock: Clock | TableClock
    now: datetime
    # A table's own clock (its stage's and its own minutes: the table's phone), or None: the
    # room's clock, which lists the tables given minutes of their own.
    table: Table | None = None

    @property
    def state(self) -> ClockState | Literal["closed"]:
        """The clock's state; "closed" once the stage is closed (its clock stopped then)."""
        if self.stage.closed:
            return "closed"
        return self.clock.state(self.now)

    @property
    def timed(self) -> bool:
        return self.clock.timed

    @property
    def mark(self) -> str:
        """What the clock is, apart from the time passing: it changes with a button pressed,
        minutes added, the limit edited, the stage closed (clock.js reads the clock again
        when a live page's check says another mark)."""
        return live.digest(repr((self.clock, self.stage.closed, self.extra_tables)))

    @property
    def added_minutes(self) -> int:
        """A table's reading: the minutes this table has of its own."""
        return minutes_of(self.clock.added) if isinstance(self.clock, TableClock) else 0

    @property
    def in_extra_time(self) -> bool:
        """A table's reading: the room's time is called, this table plays its own minutes."""
        return isinstance(self.clock, TableClock) and self.clock.in_extra_time(self.now)

    @cached_property
    def extra_tables(self) -> list[tuple[int, int, datetime | None]]:
        """The room's reading: the stage's tables with minutes of their own, (number, minutes,
        when their time is called if known), in number order."""
        if self.table is not None or self.stage.closed or not self.clock.timed:
            return []
        rows = (
            Table.objects.filter(stage=self.stage, clock_added__gt=ZERO)
            .order_by("number")
            .values_list("number", "clock_added")
        )
        return [
            (number, minutes_of(added), TableClock(self.clock, added).ends_at(self.now))
            for number, added in rows
        ]

    @property
    def extra_texts(self) -> list[str]:
        """The tables with minutes of their own as the room reads them: "Table 4: +5 min,
        until 10:47" (the end once it is known: not while paused)."""
        out = []
        for number, minutes, ends in self.extra_tables:
            label = _("Table %(t)s") % {"t": number}
            if ends is None:
                value = _("+%(m)s min") % {"m": minutes}
            else:
                value = _("+%(m)s min, until %(at)s") % {"m": minutes, "at": clock_time(ends)}
            out.append(labelled(label, value))
        return out

    @property
    def remaining(self) -> timedelta | None:
        """Time left; a closed stage keeps what was left when it closed."""
        if self.stage.closed and self.clock.limit is not None:
            return max(self.clock.limit - self.elapsed, ZERO)
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
        if self.in_extra_time:
            return _("Extra time: until %(at)s") % {"at": clock_time(self.clock.ends_at(self.now))}
        if self.state == "time_called":
            return _("Time called at %(at)s") % {"at": clock_time(self.called_at)}
        if self.state == "closed" and self.called_at is not None:
            return _("Closed (stopped at %(at)s)") % {"at": clock_time(self.called_at)}
        return _state_labels()[self.state]

    @property
    def json_url(self) -> str:
        url = reverse("clock_json", args=[self.stage.event.slug, self.stage.number])
        return url if self.table is None else f"{url}?table={self.table.number}"

    @property
    def live(self) -> dict:
        """Where and how often a screen showing this clock asks whether the event changed
        (static/js/live.js): every button above moves the event's version (``log_action``), so
        each screen reads the clock again within one ``LIVE_REFRESH_SECONDS``."""
        return live_context(self.stage.event)

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
            "mark": self.mark,
            "table": None if self.table is None else self.table.number,
            "added_minutes": self.added_minutes,
            "extra_tables": self.extra_texts,
        }

    def config(self) -> dict:
        """What static/js/clock.js needs to count between polls: the reading, its URL, labels."""
        return {
            "clock": self.as_json(),
            "url": self.json_url,
            "labels": _state_labels(),
            "added_label": _("+%(m)s min for this table"),
            "last_seconds": LAST_MINUTES * 60,
        }


def read_clock(
    stage: Stage, now: datetime | None = None, table: Table | None = None
) -> ClockReading:
    """The stage's clock read now; with ``table``, that table's own (its minutes added)."""
    now = now or timezone.now()
    if table is not None:
        return ClockReading(stage=stage, clock=table_clock(table, stage), now=now, table=table)
    return ClockReading(stage=stage, clock=stage_clock(stage), now=now)
