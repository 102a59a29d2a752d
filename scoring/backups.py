"""Backups that survive the laptop: each event's file, written into ``BACKUP_DIR`` after its
changes (scoring/tasks.py decides when), for a second laptop to import.

- A file is written whole or not at all: a temporary file in the same folder, flushed to the
  disk, then renamed over its final name (a reader never sees half a file).
- ``BACKUP_DIR/<event>/<event>-<UTC time>-v<version>.json``; the newest ``BACKUP_KEEP`` are
  kept, and every file written at a stage's close (``...-stage-<n>-closed.json``) for good.
- The outcome is kept in the event's ``Backup`` row (the director's event page shows it). A
  failure (the folder gone with its USB stick, the disk full) is recorded and logged, never
  raised: the save that caused the backup was answered long before.
"""

from __future__ import annotations

import logging
import os
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from scoring.eventfile import dumps, export_event
from scoring.models import Backup
from tournament.models import Event, Stage

logger = logging.getLogger(__name__)

CLOSED_MARK = "-closed"
EXPORT_TRIES = 5  # an export that raced a write is done again, to hold one moment of the event


class BackupFailed(Exception):
    pass


def backup_folder() -> Path:
    """``BACKUP_DIR``; made when it is the project's default, else it must exist (a USB stick
    taken out must not turn into a folder of the laptop's own disk)."""
    folder = Path(settings.BACKUP_DIR)
    if folder == Path(settings.BASE_DIR) / "backups":
        folder.mkdir(exist_ok=True)
    if not folder.is_dir():
        raise BackupFailed(f"The backup folder {folder} is not there (a USB stick taken out?).")
    return folder


def consistent_export(event: Event) -> tuple[dict, int]:
    """The event's file and the version it shows: exported again while a write slipped in
    between its queries (no transaction here, so that SQLite's writers never wait on it)."""
    for _ in range(EXPORT_TRIES):
        before = Event.objects.values_list("version", flat=True).get(pk=event.pk)
        event.refresh_from_db()
        data = export_event(event)
        if Event.objects.values_list("version", flat=True).get(pk=event.pk) == before:
            return data, before
    return data, Event.objects.values_list("version", flat=True).get(pk=event.pk)


def write_atomically(path: Path, text: str) -> None:
    """``text`` at ``path``, whole or not at all."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    try:  # the rename itself reaches the disk (POSIX; not possible on Windows)
        directory = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(directory)
    except OSError:
        pass
    finally:
        os.close(directory)


def prune(folder: Path, slug: str, keep: int) -> None:
    """Remove the event's older files beyond the newest ``keep``; stage-close files stay."""
    files = sorted(p for p in folder.glob(f"{slug}-*.json") if not p.stem.endswith(CLOSED_MARK))
    for old in files[:-keep]:
        old.unlink(missing_ok=True)


def back_up(event_id: int, closed_stage_id: int | None = None) -> Path | None:
    """Write the event's file into the backup folder now and record the outcome; the path
    written, or None (the event is gone, or the write failed: recorded, never raised)."""
    event = Event.objects.filter(pk=event_id).first()
    if event is None:
        return None
    try:
        data, version = consistent_export(event)
        folder = backup_folder() / event.slug
        folder.mkdir(exist_ok=True)
        name = f"{event.slug}-{datetime.now(UTC):%Y%m%d-%H%M%S-%f}-v{version}"
        if closed_stage_id is not None:
            stage = Stage.objects.filter(pk=closed_stage_id).first()
            name += f"-stage-{stage.number if stage else 0}{CLOSED_MARK}"
        path = folder / f"{name}.json"
        write_atomically(path, dumps(data))
        prune(folder, event.slug, settings.BACKUP_KEEP)
    except (OSError, BackupFailed) as error:
        why = str(error) if isinstance(error, BackupFailed) else _describe(error)
        logger.warning("Backup of event %s failed: %s", event.slug, why)
        Backup.objects.update_or_create(
            event=event, defaults={"failed_at": timezone.now(), "failure": why[:500]}
        )
        return None
    Backup.objects.update_or_create(
        event=event,
        defaults={"written_at": timezone.now(), "path": str(path), "version": version},
    )
    logger.info("Backed up event %s to %s", event.slug, path)
    return path


def _describe(error: OSError) -> str:
    where = f" ({error.filename})" if error.filename else ""
    return f"{error.strerror or error}{where}"


def take_turn(event_id: int, seconds: float) -> float:
    """Take the event's turn to write a backup, shared by every process of the server: 0 when
    taken, else the seconds until the last turn's wait is over (one file per ``seconds``). A
    conditional UPDATE, so two processes never both take it."""
    now = timezone.now()
    Backup.objects.get_or_create(event_id=event_id)
    taken = (
        Backup.objects.filter(event_id=event_id)
        .filter(Q(started_at__isnull=True) | Q(started_at__lte=now - timedelta(seconds=seconds)))
        .update(started_at=now)
    )
    if taken:
        return 0.0
    started = Backup.objects.values_list("started_at", flat=True).get(event_id=event_id)
    return max(0.05, (started + timedelta(seconds=seconds) - now).total_seconds())


def last_backed_up_version(event_id: int) -> int | None:
    return Backup.objects.filter(event_id=event_id).values_list("version", flat=True).first()
