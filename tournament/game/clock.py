"""The stage clock as a value computed from recorded facts: no Django here.

PRODUCT.md §5: "Each stage has a clock: start, pause, resume, time called; remaining time is
shown on the entry pages and on a big-screen page for the room." and "The clock lives on the
server: every screen shows the same time, a reload does not reset it, and a paused clock stays
paused."

So the clock is not a ticking thing: a ``Clock`` holds only what a database row stores (the
limit and the moments a director pressed a button), and everything shown is computed from it
and an injected ``now`` (an aware datetime). Transitions return a new ``Clock`` or raise
``ClockError`` with a message a director can read.

States (``Clock.state``):

- ``"not_started"``: never started.
- ``"running"``: started, timed, not paused, time not called and the limit not reached.
- ``"untimed"``: started without a limit (PRODUCT.md §2: "game time limit ... none (play all
  rounds)") and not paused: it counts up and never expires by itself.
- ``"paused"``: paused; remaining and elapsed time are frozen.
- ``"time_called"``: a director called time, or a timed clock ran out while running (the clock
  calls time by itself: see ``effective_time_called_at``).

Decisions where PRODUCT.md is silent:

- An untimed clock can be started, paused and resumed like a timed one, and a director may
  still call time on it (to end play at a venue's closing hour, say); it never expires alone.
- Time can be called while paused: the pause ends at that moment.
- Time cannot be called on a clock that has not been started, nor twice (also not after the
  clock ran out by itself).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Literal

from tournament.game.message import Message, Refusal

ClockState = Literal["not_started", "running", "paused", "time_called", "untimed"]

ZERO = timedelta(0)


class ClockError(Refusal, ValueError):
    """A clock button that cannot be pressed now; the message says why."""


def _check_aware(moment: datetime, name: str = "now") -> None:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{name} must be an aware datetime, got {moment!r}")


@dataclass(frozen=True)
class Clock:
    """One stage's clock, as stored.

    - ``limit``: the game time limit (``None``: untimed).
    - ``started_at``: when the director started it.
    - ``paused_at``: when the current pause began (``None`` unless paused).
    - ``paused_total``: the length of all finished pauses.
    - ``time_called_at``: when a director called time (``None`` unless called by hand; a clock
      that ran out by itself keeps ``None`` here, see ``effective_time_called_at``).
    """

    limit: timedelta | None
    started_at: datetime | None = None
    paused_at: datetime | None = None
    paused_total: timedelta = ZERO
    time_called_at: datetime | None = None

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit <= ZERO:
            raise ValueError(f"A clock's limit must be positive, got {self.limit}")
        if self.paused_total < ZERO:
            raise ValueError(f"paused_total cannot be negative, got {self.paused_total}")
        for name in ("started_at", "paused_at", "time_called_at"):
            moment = getattr(self, name)
            if moment is not None:
                _check_aware(moment, name)
        if self.started_at is None and (
            self.paused_at is not None or self.time_called_at is not None or self.paused_total
        ):
            raise ValueError(
                Message("A clock that has not been started cannot be paused or called")
            )
        if self.paused_at is not None and self.time_called_at is not None:
            raise ValueError(Message("A clock cannot be both paused and called"))

    @classmethod
    def for_minutes(cls, minutes: int | None) -> Clock:
        """A new, not started clock for ``game_minutes`` of the rule set (``None``: untimed)."""
        return cls(limit=None if minutes is None else timedelta(minutes=minutes))

    # -- computed values ----------------------------------------------------------------------
    @property
    def timed(self) -> bool:
        return self.limit is not None

    @property
    def expires_at(self) -> datetime | None:
        """When a running timed clock runs out: start + limit + finished pauses.

        ``None`` when not started, paused, untimed or time was called by hand. For a clock that
        already ran out by itself this is the (past) moment it did.
        """
        if (
            self.limit is None
            or self.started_at is None
            or self.paused_at is not None
            or self.time_called_at is not None
        ):
            return None
        return self.started_at + self.limit + self.paused_total

    def _ran_out_at(self, now: datetime) -> datetime | None:
        """The moment a timed clock ran out by itself, if it has by ``now``."""
        if self.limit is None or self.started_at is None or self.time_called_at is not None:
            return None
        deadline = self.started_at + self.limit + self.paused_total
        # A paused clock's time stopped at the pause: it ran out only if that came first.
        stopped = now if self.paused_at is None else min(now, self.paused_at)
        return deadline if stopped >= deadline else None

    def effective_time_called_at(self, now: datetime) -> datetime | None:
        """When time was called: by the director, or when the clock ran out by itself.

        Running out happens at start + limit + finished pauses. ``None`` while time has not
        been called.
        """
        _check_aware(now)
        if self.time_called_at is not None:
            return self.time_called_at
        return self._ran_out_at(now)

    def state(self, now: datetime) -> ClockState:
        """One of "not_started", "running", "paused", "time_called", "untimed"."""
        _check_aware(now)
        if self.started_at is None:
            return "not_started"
        if self.effective_time_called_at(now) is not None:
            return "time_called"
        if self.paused_at is not None:
            return "paused"
        return "untimed" if self.limit is None else "running"

    def elapsed(self, now: datetime) -> timedelta:
        """Play time so far: time since the start less all pauses.

        Frozen while paused and once time is called; never more than the limit, never negative.
        """
        _check_aware(now)
        if self.started_at is None:
            return ZERO
        # Play stopped when time was called, else when the current pause began, else runs on.
        stopped_at = self.effective_time_called_at(now) or self.paused_at or now
        played = stopped_at - self.started_at - self.paused_total
        if self.limit is not None:
            played = min(played, self.limit)
        return max(played, ZERO)

    def remaining(self, now: datetime) -> timedelta | None:
        """Time left: the limit less elapsed time (``None`` when untimed).

        Never negative; frozen while paused; zero once time is called.
        """
        _check_aware(now)
        if self.limit is None:
            return None
        if self.state(now) == "time_called":
            return ZERO
        return max(self.limit - self.elapsed(now), ZERO)

    def in_last_minutes(self, now: datetime, minutes: float = 5) -> bool:
        """Whether a timed clock, running or paused, has at most ``minutes`` left (big screen)."""
        remaining = self.remaining(now)
        if remaining is None or self.state(now) not in ("running", "paused"):
            return False
        return remaining <= timedelta(minutes=minutes)

    # -- transitions --------------------------------------------------------------------------
    def _check_not_before(self, now: datetime) -> None:
        last = max(
            (m for m in (self.started_at, self.paused_at, self.time_called_at) if m is not None),
            default=None,
        )
        if last is not None and now < last:
            raise ClockError(
                Message(
                    "The time given (%(now)s) is before the clock's last change (%(last)s)",
                    now=now.isoformat(),
                    last=last.isoformat(),
                )
            )

    def _check_can_change(self, now: datetime) -> None:
        _check_aware(now)
        if self.started_at is None:
            raise ClockError(Message("The clock has not been started"))
        self._check_not_before(now)
        if self.state(now) == "time_called":
            raise ClockError(Message("Time has already been called"))

    def start(self, now: datetime) -> Clock:
        """Start the clock; it can only be started once."""
        _check_aware(now)
        if self.started_at is not None:
            raise ClockError(Message("The clock has already been started"))
        return replace(self, started_at=now)

    def pause(self, now: datetime) -> Clock:
        """Pause a running clock (timed or untimed)."""
        self._check_can_change(now)
        if self.paused_at is not None:
            raise ClockError(Message("The clock is already paused"))
        return replace(self, paused_at=now)

    def resume(self, now: datetime) -> Clock:
        """Resume a paused clock; the pause is added to ``paused_total``."""
        self._check_can_change(now)
        if self.paused_at is None:
            raise ClockError(Message("The clock is not paused"))
        return replace(
            self, paused_at=None, paused_total=self.paused_total + (now - self.paused_at)
        )

    def call_time(self, now: datetime) -> Clock:
        """Call time, running or paused (a pause ends then); also allowed on an untimed clock.

        PRODUCT.md §5: "When time is called, the round in progress is finished and counts
        (default) or is void (setting). No later round can be entered."
        """
        self._check_can_change(now)
        paused_total = self.paused_total
        if self.paused_at is not None:
            paused_total += now - self.paused_at
        return replace(self, paused_at=None, paused_total=paused_total, time_called_at=now)

    def undo_call_time(self, now: datetime) -> Clock:
        """Take back a director's call of time (pressed by mistake): the clock runs again with
        the time that was left when time was called. Play stopped at the call, so the minutes
        from the call to now count as a pause.

        A clock that ran out by itself has no call to take back: add minutes instead.
        """
        _check_aware(now)
        if self.time_called_at is None:
            raise ClockError(Message("Time was not called by a director: there is no call to undo"))
        self._check_not_before(now)
        return replace(
            self,
            time_called_at=None,
            paused_total=self.paused_total + (now - self.time_called_at),
        )

    def add_minutes(self, minutes: int) -> Clock:
        """Lengthen the game by ``minutes`` (a break the clock was not paused for, say): a clock
        that ran out by itself runs again if the new limit is still ahead."""
        if self.limit is None:
            raise ClockError(Message("An untimed game has no time limit to lengthen"))
        if self.time_called_at is not None:
            raise ClockError(Message("Time was called by a director: undo the call first"))
        if not 1 <= minutes <= 600:
            raise ClockError(Message("Add between 1 and 600 minutes"))
        return replace(self, limit=self.limit + timedelta(minutes=minutes))


# -- one table's time -------------------------------------------------------------------------

MAX_TABLE_MINUTES = 600


@dataclass(frozen=True)
class TableClock:
    """One table's clock: its stage's, plus minutes a director added to this table alone (a
    late start, a spilled set). PRODUCT.md §15: "minutes added to one table move that table's
    clock only".

    The rule, where PRODUCT.md is silent, as a director runs the room:

    - A table's end is its stage's end plus the table's minutes. The stage's end is when the
      room's time is called: by the stage's clock running out, or by a director's call.
    - So the room's "time called" applies to the tables without extra time; a table with extra
      minutes plays on after it and its own time is called when its own minutes run out
      (call + minutes). Before the room's call, the table's clock runs (and pauses) with the
      stage's, its minutes ahead of the room's.
    - A director's call by hand gives such a table its minutes after the call, too: they were
      owed for time the table lost, whenever the room stops.
    - An untimed stage has no limit to lengthen: a table's minutes count only on a timed clock
      (an event made untimed later keeps them, unused).

    ``TableClock`` reads like a ``Clock`` (state, remaining, elapsed, time called), so a page
    shows a table's clock as it shows its stage's.
    """

    stage: Clock
    added: timedelta = ZERO

    def __post_init__(self) -> None:
        if self.added < ZERO:
            raise ValueError(f"A table's added time cannot be negative, got {self.added}")

    @property
    def extra(self) -> timedelta:
        """The minutes that count: none on an untimed clock."""
        return self.added if self.stage.limit is not None else ZERO

    @property
    def timed(self) -> bool:
        return self.stage.timed

    @property
    def limit(self) -> timedelta | None:
        return None if self.stage.limit is None else self.stage.limit + self.added

    @property
    def started_at(self) -> datetime | None:
        return self.stage.started_at

    def room_called_at(self, now: datetime) -> datetime | None:
        """When the room's time was called (the stage's clock), if it has been."""
        return self.stage.effective_time_called_at(now)

    def ends_at(self, now: datetime) -> datetime | None:
        """When this table's time is (or will be) called, if that is known now: ``None`` before
        the start, while paused, and on an untimed clock before a call."""
        called = self.room_called_at(now)
        if called is not None:
            return called + self.extra
        expires = self.stage.expires_at
        return None if expires is None else expires + self.extra

    def effective_time_called_at(self, now: datetime) -> datetime | None:
        """When this table's time was called: the room's call (as the stage's clock says it),
        plus the table's minutes once that moment has come; ``None`` before."""
        _check_aware(now)
        called = self.room_called_at(now)
        if called is None or not self.extra:
            return called
        end = called + self.extra
        return end if end <= now else None

    def in_extra_time(self, now: datetime) -> bool:
        """Whether the room's time is called and this table plays on in its own minutes."""
        return self.room_called_at(now) is not None and self.effective_time_called_at(now) is None

    def state(self, now: datetime) -> ClockState:
        """As ``Clock.state``; a table in its extra time is "running"."""
        if self.stage.started_at is None:
            return "not_started"
        if self.effective_time_called_at(now) is not None:
            return "time_called"
        if self.in_extra_time(now):
            return "running"
        return self.stage.state(now)

    def elapsed(self, now: datetime) -> timedelta:
        """The stage's play time, and the table's own minutes played after the room's call."""
        played = self.stage.elapsed(now)
        called = self.room_called_at(now)
        if called is not None:
            played += max(min(now, called + self.extra) - called, ZERO)
        return played

    def remaining(self, now: datetime) -> timedelta | None:
        """The table's time left (``None`` untimed): the stage's and its own minutes before the
        room's call, its own minutes after; zero once its time is called."""
        _check_aware(now)
        if self.stage.limit is None:
            return None
        called = self.room_called_at(now)
        if called is None:
            return self.stage.remaining(now) + self.extra
        return max(called + self.extra - now, ZERO)

    def in_last_minutes(self, now: datetime, minutes: float = 5) -> bool:
        remaining = self.remaining(now)
        if remaining is None or self.state(now) not in ("running", "paused"):
            return False
        return remaining <= timedelta(minutes=minutes)

    # -- a director's change ------------------------------------------------------------------
    def add_minutes(self, minutes: int) -> TableClock:
        """Give the table ``minutes`` more (1 to 600 at a time, 600 in all)."""
        if self.stage.limit is None:
            raise ClockError(Message("An untimed game has no time limit to lengthen"))
        if not 1 <= minutes <= MAX_TABLE_MINUTES:
            raise ClockError(Message("Add between 1 and 600 minutes"))
        added = self.added + timedelta(minutes=minutes)
        if added > timedelta(minutes=MAX_TABLE_MINUTES):
            raise ClockError(Message("A table can have at most 600 minutes added"))
        return replace(self, added=added)

    def remove_minutes(self, minutes: int) -> TableClock:
        """Take back minutes given by mistake, at most those the table has."""
        if minutes < 1:
            raise ClockError(Message("Give the minutes to remove, 1 or more"))
        have = int(self.added.total_seconds() // 60)
        if have == 0:
            raise ClockError(Message("This table has no minutes added"))
        if minutes > have:
            raise ClockError(
                Message("Remove at most the %(have)s min added to this table", have=have)
            )
        return replace(self, added=self.added - timedelta(minutes=minutes))


def short_tables(rounds: dict[int, int]) -> tuple[list[tuple[int, int]], int]:
    """The tables of a stage that played fewer rounds than the most any of its tables played:
    ([(table number, rounds played)], the most), tables in number order. PRODUCT.md §15: "the
    stage's close names every table that played fewer rounds than the most any table of the
    stage played"."""
    most = max(rounds.values(), default=0)
    return [(n, played) for n, played in sorted(rounds.items()) if played < most], most
