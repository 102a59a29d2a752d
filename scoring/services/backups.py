"""Backups that survive the laptop: each event's file, written into ``BACKUP_DIR`` after its
changes (scoring/tasks.py decides when), for a second laptop to import.

- A file is written whole or not at all: a temporary file in the same folder, flushed to the
  disk, then renamed over its final name (a reader never sees half a file).
- ``BACKUP_DIR/<event>/<event>-<UTC time>-v<version>.json``; the newest ``BACKUP_KEEP`` are
  kept, and every file written at a stage's close (``...-stage-<n>-closed.json``) for good.
- The outcome is kept in the event's ``Backup`` row (the director's event page shows it). A
  failure (the folder gone with its USB stick, the disk full) is recorded and logged, never
  raised: the save that caused the backup was answered long before.
- A folder on a USB stick stays on it: each file records the disk the folder was on (its mount
  point); when the stick is pulled, the folder left behind (or made again) is on the laptop's
  own disk, and a backup there is a failure, not a quiet file on the wrong disk.
- ``catch_up`` writes every event changed since its last file: `make hall` calls it when the
  server starts (after a crash, the changes the dead processes had not written yet) and
  when it stops.
"""

from __future__ import annotations

import logging
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.eventfile import dumps, export_event
from scoring.models import Backup
from tournament.models import Event, Stage
from tournament.refusals import Refusal

logger = logging.getLogger(__name__)

CLOSED_MARK = "-closed"
EXPORT_TRIES = 5  # an export that raced a write is done again, to hold one moment of the event


class BackupFailed(Refusal):
    """No backup was written; the message says why and what to do."""


def backup_folder() -> Path:
    """``BACKUP_DIR``; made when it is the project's default, else it must exist and be on the
    disk it was on at its last backup (a USB stick taken out must not turn into a folder of
    the laptop's own disk)."""
    folder = Path(settings.BACKUP_DIR)
    if folder == Path(settings.BASE_DIR) / "backups":
        folder.mkdir(exist_ok=True)
    if not folder.is_dir():
        raise BackupFailed(
            _("The backup folder %(folder)s is not there (a USB stick taken out?)")
            % {"folder": folder}
        )
    was = last_mount(folder)
    now = mount_point(folder)
    if was and Path(was) != now:
        raise BackupFailed(
            _(
                "The backup folder %(folder)s is no longer the USB stick it was (it was on the "
                "disk mounted at %(was)s, it is now on %(now)s): plug it back in"
            )
            % {"folder": folder, "was": was, "now": now}
        )
    return folder


def mount_point(folder: Path) -> Path:
    """Where the disk holding ``folder`` is mounted: its nearest parent (or itself) whose own
    parent is on another device (a USB stick's folder: the stick's mount point)."""
    folder = folder.resolve()
    device = os.stat(folder).st_dev
    while folder.parent != folder and os.stat(folder.parent).st_dev == device:
        folder = folder.parent
    return folder


def last_mount(folder: Path) -> str:
    """The mount point the folder was on at the newest backup written into it ("" if none)."""
    inside = str(folder.resolve()).rstrip(os.sep) + os.sep
    return (
        Backup.objects.filter(path__startswith=inside)
        .exclude(mount="")
        .order_by("-written_at")
        .values_list("mount", flat=True)
        .first()
        or ""
    )


def consistent_export(event: Event) -> tuple[dict, int]:
    """The event's file and the version it shows: exported again while a write slipped in
    between its queries (no transaction here, so that SQLite's writers never wait on it)."""
    for _try in range(EXPORT_TRIES):
        before = Event.objects.values_list("version", flat=True).get(pk=event.pk)
        event.refresh_from_db()
        data = export_event(event)
        if Event.objects.values_list("version", flat=True).get(pk=event.pk) == before:
            return data, before
    return data, Event.objects.values_list("version", flat=True).get(pk=event.pk)


def write_atomically(path: Path, text: str | bytes) -> None:
    """``text`` (or bytes: a photo) at ``path``, whole or not at all."""
    data = text.encode() if isinstance(text, str) else text
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
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
        root = backup_folder()
        folder = root.resolve() / event.slug
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
        defaults={
            "written_at": timezone.now(),
            "path": str(path),
            "version": version,
            "mount": str(mount_point(root)),
        },
    )
    logger.info("Backed up event %s to %s", event.slug, path)
    return path


def _describe(error: OSError) -> str:
    where = f" ({error.filename})" if error.filename else ""
    return f"{error.strerror or error}{where}"


def due_at(changed: float, last_turn: float | None, seconds: float) -> float:
    """When a change made at ``changed`` is to be written, the last file having been begun at
    ``last_turn``: at once after a quiet ``seconds``, else when they have passed since that
    file. Never later than ``changed + seconds`` (a change begun before the last file is in
    it): however long the changes keep coming, the first one not in a file waits no longer."""
    if last_turn is None:
        return changed
    return max(changed, last_turn + seconds)


def spacing(seconds: float, took: float) -> float:
    """The wait between two files' beginnings, the last one having taken ``took`` to write:
    ``seconds`` less that (up to half of them), so that each is written within ``seconds``."""
    return seconds - min(max(took, 0.0), seconds / 2)


def take_turn(event_id: int, seconds: float) -> float:
    """Take the event's turn to write a backup, shared by every process of the server: 0 when
    taken, else the seconds until the last turn's wait is over (one file begun per
    ``spacing``). Compare and set, so two processes never both take it."""
    Backup.objects.get_or_create(event_id=event_id)
    for _try in range(EXPORT_TRIES):
        now = timezone.now()
        started, written = Backup.objects.values_list("started_at", "written_at").get(
            event_id=event_id
        )
        took = (written - started).total_seconds() if started and written else 0.0
        last = started.timestamp() if started else None
        due = due_at(now.timestamp(), last, spacing(seconds, took))
        if due > now.timestamp():
            return max(0.05, due - now.timestamp())
        if Backup.objects.filter(event_id=event_id, started_at=started).update(started_at=now):
            return 0.0
    return 0.05  # other processes kept taking it: ask again in a moment


def catch_up() -> list[Path]:
    """Back up now every event changed since its last file (or, never backed up, changed at
    all): a server starting after a crash, or stopping (no other process of it running). The
    files written; not a turn of ``take_turn``: the server's first change is written at once
    too."""
    stale = Event.objects.filter(
        Q(backup__isnull=True, version__gt=0) | Q(version__gt=F("backup__version"))
    )
    written = []
    for event_id in stale.order_by("pk").values_list("pk", flat=True):
        if path := back_up(event_id):
            written.append(path)
    return written


def last_backed_up_version(event_id: int) -> int | None:
    return Backup.objects.filter(event_id=event_id).values_list("version", flat=True).first()
