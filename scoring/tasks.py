"""Background work of the scoring app, each task a thin call of a service: a print job's
blocks of sheets (``render_block``), a large event file's import (``run_import``), the
ratings (``compute_ratings``), backups.

Ratings (scoring/services/ratings.py): every committed change to an event (``event_changed``,
an event made or imported, an event deleted: ``ratings_changed``) asks for a computation of
the ratings, never made in the request. One waits at a time: the change that finds none asked
for enqueues the task (``ask_for_ratings`` flips the state's ``pending`` flag, a conditional
UPDATE), the others find it asked for; the task lowers the flag before it reads the history,
so a change during a computation asks for one more. A computation whose history is the one
already rated writes nothing.

Backups (scoring/services/backups.py): every committed change to an event (``event_changed``,
sent by tournament/history.py after the commit) asks for a backup of its file. One worker
thread per server process writes them, so a save never waits on the disk:

- at most one file per event every ``BACKUP_SECONDS`` (30): a change within that time is
  backed up when it has passed (the last change of a burst is never left out), and never
  later: the first change not yet in a file is in one ``BACKUP_SECONDS`` after it at the most,
  however long the changes keep coming (``backups.due_at``), a file being begun as much
  earlier as the event's last one took to write;
- a stage's close is backed up at once, in a file that is kept for good;
- a change already in the newest file (another process wrote it) writes nothing.

The worker starts with the first change (nothing to start by hand); when the process ends
(Ctrl+C on `make hall`, a command that changed an event) what still waits for its turn is
written first. Under `make hall` the server also writes, when it starts and when it stops,
every event changed since its last file (``backups.catch_up``, tournament/hall_server.py):
what a process killed before its turn had not written. ``wait_for_backups`` lets the tests
wait for it.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.tasks import task

from scoring import plausibility
from scoring.services import backups, imports, printing, sheet_reading
from scoring.services import ratings as ratings_service
from tournament.models import Event, Stage

logger = logging.getLogger(__name__)

EXIT_SECONDS = 20  # how long a stopping process waits for its last backups


@task()
def render_block(block_id: int) -> None:
    """Render one block of a print job (scoring/services/printing.py)."""
    printing.render_block(block_id)


@task()
def read_sheet(table_id: int, photo: str, language: str = "en") -> dict:
    """Read a photo of a table's filled sheet (scoring/services/sheet_reading.py): a few
    seconds of the worker's CPU, never the request's."""
    from django.utils import translation

    with translation.override(language):
        return sheet_reading.read_for_task(table_id, photo)


@task()
def read_stored_sheet(reading_id: int) -> None:
    """Read a photo a person sent from a table's page and keep the reading, for them to
    confirm (scoring/services/sheet_reading.py ``read_stored``)."""
    sheet_reading.read_stored(reading_id)


@task()
def run_import(job_id: int) -> None:
    """Import a large event file's job (scoring/services/imports.py)."""
    imports.run_import(job_id)


@task()
def compute_threshold(
    the_set: int, sets: int, engines: list, drawn: int, double_blank_points: int, players: int
) -> None:
    """Simulate a custom rule set's "are you sure?" threshold once (scoring/plausibility.py)."""
    plausibility.compute(the_set, sets, engines, drawn, double_blank_points, players)


@task()
def compute_ratings() -> None:
    """Compute the ratings asked for (scoring/services/ratings.py)."""
    ratings_service.begin_asked()
    ratings_service.compute_ratings()


def ratings_changed(sender=None, **kwargs) -> None:
    """A committed change to an event (``event_changed``; an event made, imported or deleted):
    ask for the ratings once, however many changes come before the task begins. Only closed
    stages' games are rated: a change to a stage that is open and stays open (a round saved
    during play, a clock button) asks for nothing, for one indexed query."""
    stage_id, verb = kwargs.get("stage_id"), kwargs.get("verb", "")
    if stage_id is not None and verb != "stage.reopened":
        if Stage.objects.filter(pk=stage_id, closed=False).exists():
            return
    if not ratings_service.ask_for_ratings():
        return
    try:
        compute_ratings.enqueue()
    except Exception:
        ratings_service.begin_asked()  # not enqueued: the next change asks again
        raise


def event_saved(sender, instance, created: bool = False, raw: bool = False, **kwargs) -> None:
    """An event made (a new one, an imported file's): ratings once it is committed (an
    import's rows log no history entry, so no ``event_changed`` is sent)."""
    if created and not raw:
        transaction.on_commit(ratings_changed)


def event_deleted(sender, instance, **kwargs) -> None:
    """An event deleted (no history entry is left to send ``event_changed``)."""
    transaction.on_commit(ratings_changed)


@dataclass
class _Due:
    at: float
    closed_stage_ids: list[int]


class BackupWorker:
    """``clock`` is the real one but in tests, which also run it ``threaded=False``
    (``run_due``)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, threaded: bool = True) -> None:
        self.clock, self.threaded = clock, threaded
        self._lock = threading.Condition()
        self._due: dict[int, _Due] = {}  # event id -> when its backup is due
        self._last: dict[int, float] = {}  # event id -> when this process last began one
        self._took: dict[int, float] = {}  # event id -> how long its last one took here
        self._busy = False
        self._flushing = False  # every turn is taken now, whatever the wait
        self._at_exit = False
        self._thread: threading.Thread | None = None

    def ask(self, event_id: int, closed_stage_id: int | None = None, after: float = 0.0) -> None:
        """A change of the event was committed: back it up now, or when its wait is over
        (``after``: seconds another process's backup asks to wait)."""
        now = self.clock()
        with self._lock:
            if closed_stage_id is not None:
                at = now
            else:
                last = self._last.get(event_id)
                at = max(now + after, backups.due_at(now, last, self._spacing(event_id)))
            due = self._due.get(event_id)
            if due is None:
                self._due[event_id] = _Due(at, [closed_stage_id] if closed_stage_id else [])
            else:
                due.at = min(due.at, at)
                if closed_stage_id:
                    due.closed_stage_ids.append(closed_stage_id)
            self._start()
            self._lock.notify_all()

    def _spacing(self, event_id: int) -> float:
        """The wait between two files' beginnings: ``BACKUP_SECONDS`` less what the event's
        last file took to write (up to half of it), so that each is complete in time."""
        return backups.spacing(settings.BACKUP_SECONDS, self._took.get(event_id, 0.0))

    def _start(self) -> None:
        if not self.threaded:
            return
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="backups", daemon=True)
            self._thread.start()
            if not self._at_exit:
                atexit.register(self.flush, EXIT_SECONDS)
                self._at_exit = True

    def flush(self, timeout: float = EXIT_SECONDS) -> bool:
        """Write now what waits for its turn, and wait for it (a server stopping, Ctrl+C on
        `make hall`: the last changes are in a file before the process ends)."""
        with self._lock:
            for due in self._due.values():
                due.at = 0.0
            self._last.clear()
            self._flushing = True
            self._lock.notify_all()
        try:
            return self.wait(timeout)
        finally:
            with self._lock:
                self._flushing = False

    def _ready(self) -> tuple[int, _Due] | None:
        """The backup due soonest if its time has come (taken off the list), with the lock."""
        now = self.clock()
        ready = [(d.at, e) for e, d in self._due.items() if d.at <= now]
        if not ready:
            return None
        event_id = min(ready)[1]
        self._busy = True
        return event_id, self._due.pop(event_id)

    def _next(self) -> tuple[int, _Due]:
        with self._lock:
            while (ready := self._ready()) is None:
                soonest = min((d.at for d in self._due.values()), default=None)
                self._lock.wait(None if soonest is None else soonest - self.clock())
            return ready

    def _run(self) -> None:
        while True:
            self._do(*self._next())

    def run_due(self) -> None:
        """Write, here and now, the backups whose time has come (a worker not threaded)."""
        while True:
            with self._lock:
                ready = self._ready()
            if ready is None:
                return
            self._do(*ready)

    def _do(self, event_id: int, due: _Due) -> None:
        try:
            self._back_up(event_id, due)
        except Exception:  # the worker outlives any one backup; the failure is logged
            logger.exception("Backup of event %s failed", event_id)
        finally:
            if self.threaded:
                connection.close()
            with self._lock:
                self._busy = False
                self._lock.notify_all()

    def _back_up(self, event_id: int, due: _Due) -> None:
        for stage_id in due.closed_stage_ids:
            backups.take_turn(event_id, 0)
            backups.back_up(event_id, closed_stage_id=stage_id)
        if due.closed_stage_ids:
            return
        version = Event.objects.filter(pk=event_id).values_list("version", flat=True).first()
        if version is None or version == backups.last_backed_up_version(event_id):
            return  # the event is gone, or this change is in the newest file already
        began = self.clock()
        wait = backups.take_turn(event_id, 0 if self._flushing else settings.BACKUP_SECONDS)
        if wait:  # another process began one within the wait: this change goes when it ends
            self.ask(event_id, after=wait)
            return
        with self._lock:
            self._last[event_id] = began
        backups.back_up(event_id)
        with self._lock:
            self._took[event_id] = self.clock() - began

    def wait(self, timeout: float = 60) -> bool:
        """Wait until every backup asked for is written (however long its debounce); False
        when ``timeout`` seconds were not enough."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._due or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(min(left, 0.05))
            return True

    def forget(self) -> None:
        """Drop what is due and what was written (tests start from nothing)."""
        with self._lock:
            self._due.clear()
            self._last.clear()
            self._took.clear()


worker = BackupWorker()


def event_changed(sender, event_id: int, stage_id: int | None = None, verb: str = "", **kwargs):
    """``tournament.history.event_changed``: a committed change asks for a backup."""
    if not settings.BACKUPS_ON:
        return
    worker.ask(event_id, stage_id if verb == "stage.closed" else None)


def catch_up(sender, **kwargs) -> int:
    """``tournament.history.catch_up`` (the hall's server starting or stopping): back up every
    event changed since its last file; how many files were written."""
    if not settings.BACKUPS_ON:
        return 0
    return len(backups.catch_up())


def wait_for_backups(timeout: float = 60) -> bool:
    return worker.wait(timeout)
