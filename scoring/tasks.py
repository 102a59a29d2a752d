"""Background work of the scoring app, each task a thin call of a service.

Backups (scoring/backups.py): every committed change to an event (``event_changed``, sent by
tournament/history.py after the commit) asks for a backup of its file. One worker thread per
server process writes them, so a save never waits on the disk:

- at most one file per event every ``BACKUP_SECONDS`` (30): a change within that time is
  backed up when it has passed (the last change of a burst is never left out);
- a stage's close is backed up at once, in a file that is kept for good;
- a change already in the newest file (another process wrote it) writes nothing.

The worker starts with the first change (nothing to start by hand); when the process ends
(Ctrl+C on `make hall`, a command that changed an event) what still waits for its turn is
written first. ``wait_for_backups`` lets the tests wait for it.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from scoring import backups

logger = logging.getLogger(__name__)

EXIT_SECONDS = 20  # how long a stopping process waits for its last backups


@dataclass
class _Due:
    at: float
    closed_stage_ids: list[int]


class BackupWorker:
    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._due: dict[int, _Due] = {}  # event id -> when its backup is due
        self._last: dict[int, float] = {}  # event id -> when this process last wrote one
        self._busy = False
        self._flushing = False  # every turn is taken now, whatever the wait
        self._at_exit = False
        self._thread: threading.Thread | None = None

    def ask(self, event_id: int, closed_stage_id: int | None = None, after: float = 0.0) -> None:
        """A change of the event was committed: back it up now, or when its wait is over
        (``after``: seconds another process's backup asks to wait)."""
        now = time.monotonic()
        with self._lock:
            if closed_stage_id is not None:
                at = now
            else:
                at = max(now + after, self._last.get(event_id, -1e9) + settings.BACKUP_SECONDS)
            due = self._due.get(event_id)
            if due is None:
                self._due[event_id] = _Due(at, [closed_stage_id] if closed_stage_id else [])
            else:
                due.at = min(due.at, at)
                if closed_stage_id:
                    due.closed_stage_ids.append(closed_stage_id)
            self._start()
            self._lock.notify_all()

    def _start(self) -> None:
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

    def _next(self) -> tuple[int, _Due]:
        with self._lock:
            while True:
                now = time.monotonic()
                ready = [(d.at, e) for e, d in self._due.items() if d.at <= now]
                if ready:
                    event_id = min(ready)[1]
                    self._busy = True
                    self._last[event_id] = now
                    return event_id, self._due.pop(event_id)
                soonest = min((d.at for d in self._due.values()), default=None)
                self._lock.wait(None if soonest is None else soonest - now)

    def _run(self) -> None:
        while True:
            event_id, due = self._next()
            try:
                self._back_up(event_id, due)
            except Exception:  # the worker outlives any one backup; the failure is logged
                logger.exception("Backup of event %s failed", event_id)
            finally:
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
        from tournament.models import Event

        version = Event.objects.filter(pk=event_id).values_list("version", flat=True).first()
        if version is None or version == backups.last_backed_up_version(event_id):
            return  # the event is gone, or this change is in the newest file already
        wait = backups.take_turn(event_id, 0 if self._flushing else settings.BACKUP_SECONDS)
        if wait:  # another process wrote one within the wait: this change goes after it
            self.ask(event_id, after=wait)
            return
        backups.back_up(event_id)

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


worker = BackupWorker()


def event_changed(sender, event_id: int, stage_id: int | None = None, verb: str = "", **kwargs):
    """``tournament.history.event_changed``: a committed change asks for a backup."""
    if not settings.BACKUPS_ON:
        return
    worker.ask(event_id, stage_id if verb == "stage.closed" else None)


def wait_for_backups(timeout: float = 60) -> bool:
    return worker.wait(timeout)
