"""The director's dashboard of a stage (issue 16 item 2): every table at a glance.

Pure: built from loaded sheets, the stage's clock and the time now, so the "quiet table" flag
is tested with any clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils.translation import gettext as _

from scoring.sheets import TableSheet
from tournament.clock import stage_clock
from tournament.game.clock import Clock


@dataclass(frozen=True)
class Tile:
    sheet: TableSheet
    last_entry: datetime | None  # when the table's latest round was saved
    quiet: bool  # playing, the clock running, and no round saved for the set time
    devices: int = 0  # phones that opened the table's entry with its code (issue 15)
    reports: int = 0  # infractions reported from its phones, waiting for a director

    @property
    def infractions(self) -> int:
        return sum(self.sheet.infraction_counts.values())


def last_entry(sheet: TableSheet) -> datetime | None:
    """When the table's latest round was saved (None before its first)."""
    return max((r.entered_at for r in sheet.rounds if r.entered_at is not None), default=None)


def tiles(
    sheets: list[TableSheet],
    clock: Clock,
    now: datetime,
    quiet: timedelta,
    devices: dict[int, int] | None = None,
    reports: dict[int, int] | None = None,
) -> list[Tile]:
    """A tile per table. A table still playing while the clock runs, with no round saved for
    ``quiet`` or longer (since its last round, or since the start), is flagged: a scorekeeper
    who forgot, or a table that needs help. ``devices`` and ``reports``: by table id, its
    phones and the infractions they reported that wait for a director."""
    running = clock.state(now) in ("running", "untimed")
    out = []
    for sheet in sheets:
        last = last_entry(sheet)
        since = last or clock.started_at
        flagged = running and not sheet.game_over and since is not None and now - since >= quiet
        pk = sheet.table.pk
        out.append(
            Tile(sheet, last, flagged, (devices or {}).get(pk, 0), (reports or {}).get(pk, 0))
        )
    return out


def clock_never_started(stage, sheets: list[TableSheet]) -> str | None:
    """The director's warning when a timed stage's tables save rounds but its clock was never
    started (time would never be called); None otherwise. Rounds are not refused for it."""
    clock = stage_clock(stage)
    if stage.closed or not clock.timed or clock.started_at is not None:
        return None
    if not any(sheet.rounds for sheet in sheets):
        return None
    return _(
        "Rounds are being entered but %(s)s's clock was never started: start it now, or time "
        "will never be called at this stage's tables."
    ) % {"s": stage.title}
