"""A director uploads an event file as a new event (issue 11), exactly once per form.

A file up to ``IMPORT_IN_REQUEST_BYTES`` is imported within the request, as it always was. A
larger one (up to 20 MB: seconds of work) becomes an import job: a background task
(``run_import`` in scoring/tasks.py; Django's Tasks framework, the workers `make run` starts)
reads, checks and writes it, and the job's page shows each step, then the new event or every
error located in the file. No web worker waits.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation

from scoring.eventfile import EventFileError, import_event, validate, write_event
from scoring.models import ImportJob, ImportStatus
from tournament.history import claim, settle
from tournament.models import Event

logger = logging.getLogger(__name__)

SHOWN_ERRORS = 200  # a file's errors listed on its page; the others are counted


def shown_errors(error: EventFileError) -> tuple[list[tuple[str, str]], int]:
    """The file's located errors a page lists, and how many it has."""
    return error.located[:SHOWN_ERRORS], len(error.located)


def upload(data: bytes, user, key: str) -> Event | ImportJob:
    """The new event made from an uploaded file, or the job that will make it (a large file).

    A repeat of the form (``key``: a double click, a retry) answers what the first post made.
    Raises ``EventFileError`` when a file imported within the request has errors (nothing is
    written, and the form may be sent again).
    """
    from scoring.tasks import run_import  # here: the task calls this module

    # A small file is checked before the transaction: on SQLite (immediate transactions) the
    # writers of the hall would otherwise wait on the checking.
    plan = validate(data) if len(data) <= settings.IMPORT_IN_REQUEST_BYTES else None
    with transaction.atomic():
        made = _made_by(claim(key, user))
        if made is not None:
            return made
        if plan is not None:
            made = write_event(plan, director=user)
            settle(key, event=made.pk)
        else:
            language = translation.get_language() or ""
            made = ImportJob.objects.create(by=user, data=data, language=language)
            settle(key, job=made.pk)
            job_id = made.pk
            transaction.on_commit(lambda: run_import.enqueue(job_id))
    return made


def _made_by(earlier) -> Event | ImportJob | None:
    """What the earlier post of a form made (None for a new form, or when it is gone since)."""
    if earlier is None:
        return None
    if "job" in earlier.outcome:
        return ImportJob.objects.defer("data").filter(pk=earlier.outcome["job"]).first()
    return Event.objects.filter(pk=earlier.outcome.get("event")).first()


def run_import(job_id: int) -> None:
    """Import a job's file, its steps shown on its page; keep the outcome, drop the file (the
    task ``scoring.tasks.run_import``)."""
    if not ImportJob.objects.filter(pk=job_id, status=ImportStatus.QUEUED).update(
        status=ImportStatus.READING
    ):
        return  # another run took it: a task run twice imports once

    def step(status: str) -> None:
        ImportJob.objects.filter(pk=job_id).update(status=status)

    job = ImportJob.objects.select_related("by").get(pk=job_id)
    try:
        with translation.override(job.language or None):
            event = import_event(bytes(job.data), director=job.by, progress=step)
        outcome = {"status": ImportStatus.DONE, "event": event}
    except EventFileError as error:
        shown, count = shown_errors(error)
        outcome = {"status": ImportStatus.FAILED, "errors": shown, "error_count": count}
    except Exception:  # noqa: BLE001 (the page says it failed; the log has why)
        logger.exception("Import job %s failed", job_id)
        outcome = {"status": ImportStatus.FAILED}
    ImportJob.objects.filter(pk=job_id).update(data=None, finished_at=timezone.now(), **outcome)
