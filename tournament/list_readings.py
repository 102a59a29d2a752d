"""A registration list too large to read within a request (issue 27), exactly once per form.

A list up to ``REGISTRATION_IN_REQUEST_BYTES`` is read within the request, as it always was. A
larger one (up to 2 MB: a second or more of a worker's time) becomes a ``ListReading``: a
background task (Django's Tasks framework, the workers `make run` starts; tournament/tasks.py)
reads it within the same limits, and its page shows how far it got, then the same preview, or
why the list was refused. No web worker waits.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone, translation

from tournament.history import claim, settle
from tournament.models import ListReading, ListReadingStatus
from tournament.registration import ReadError, read_list, stored

logger = logging.getLogger(__name__)


def start(event, user, data: bytes, key: str) -> ListReading:
    """The reading of an uploaded list, queued; the director's earlier readings for the event,
    read or not, are dropped (nothing is kept that no preview will show). A repeat of the form
    (``key``: a double click, a retry) answers the reading the first post queued."""
    from tournament.tasks import read_registration_list

    with transaction.atomic():
        earlier = claim(key, user)
        if earlier is not None:
            reading = ListReading.objects.filter(pk=earlier.outcome.get("reading")).first()
            if reading is not None:
                return reading
        # A new list replaces the director's earlier ones for the event, as in the session.
        ListReading.objects.filter(event=event, by=user).delete()
        reading = ListReading.objects.create(
            event=event, by=user, data=data, language=translation.get_language() or ""
        )
        settle(key, reading=reading.pk)
        reading_id = reading.pk
        transaction.on_commit(lambda: read_registration_list.enqueue(reading_id))
    return reading


def read(reading_id: int) -> None:
    """Read a queued list (the task); keep the list as read, or why it was refused; drop the
    file. A task run twice reads once."""
    if not ListReading.objects.filter(pk=reading_id, status=ListReadingStatus.QUEUED).update(
        status=ListReadingStatus.READING
    ):
        return
    reading = ListReading.objects.get(pk=reading_id)
    try:
        with translation.override(reading.language or None):
            try:
                outcome = {
                    "status": ListReadingStatus.DONE,
                    "sheet": stored(read_list(bytes(reading.data))),
                }
            except ReadError as error:
                outcome = {"status": ListReadingStatus.FAILED, "error": str(error)}
    except Exception:  # noqa: BLE001 (the page says it failed; the log has why)
        logger.exception("Reading of registration list %s failed", reading_id)
        outcome = {"status": ListReadingStatus.FAILED, "error": ""}
    ListReading.objects.filter(pk=reading_id).update(
        data=None, finished_at=timezone.now(), **outcome
    )


def take(reading: ListReading) -> dict | None:
    """The list as read, handed once to the director's preview (which keeps it in the
    session from then on): the reading keeps no copy."""
    with transaction.atomic():
        sheet = (
            ListReading.objects.select_for_update()
            .filter(pk=reading.pk)
            .values_list("sheet", flat=True)
            .first()
        )
        ListReading.objects.filter(pk=reading.pk).update(sheet=None)
    return sheet
