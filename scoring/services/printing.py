"""All of a stage's score sheets in one click, whatever its size (issue 14): a print job renders
the sheets in blocks of ``BLOCK`` tables, each block a background task (``render_block`` in
scoring/tasks.py; Django's Tasks framework, the database backend's workers share the blocks
between the cores), then joins them into one PDF that is kept until what the sheets show
changes. scoring/printing.py draws the sheets; this module keeps the jobs.

Blank sheets are prepared as soon as a stage is seated (``PRINT_BLANK_ON_SEATING``).
"""

from __future__ import annotations

import hashlib
import io
import logging

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone, translation
from pypdf import PdfWriter

from scoring.models import PrintBlock, PrintJob
from scoring.printing import render_pdf, sheets_context
from scoring.sheets import stage_sheets
from tournament.models import Stage

logger = logging.getLogger(__name__)

BLOCK = 25  # tables a task renders: a few seconds of WeasyPrint


def blocks_of(numbers: list[int], size: int) -> list[tuple[int, int]]:
    """The stage's table numbers (in order, gaps allowed: a no-show's table removed) in
    blocks of ``size``: (first, last) of each."""
    return [
        (numbers[i], numbers[min(i + size, len(numbers)) - 1]) for i in range(0, len(numbers), size)
    ]


def sheets_key(stage: Stage, blank: bool) -> str:
    """What the sheets show, as a short key: a new key is a new PDF. Filled sheets change
    with every change to the event (its version); blank ones only with what they print."""
    event = stage.event
    if not blank:
        return f"v{event.version}"
    seats = stage.seats.order_by("table__number", "position").values_list(
        "table__number", "table__code", "player__name"
    )
    printed = [
        event.name,
        str(event.date),
        event.venue,
        event.table_entry,
        event.paper_size,
        stage.number,
        stage.name,
        event.engines,
    ]
    return hashlib.sha256(repr((printed, list(seats))).encode()).hexdigest()[:40]


def start_print(stage: Stage, blank: bool, site: str, language: str = "") -> PrintJob:
    """The print job of the stage's sheets as they are now, in ``language``: the one already
    made or started (a second click, a second director), else a new one whose blocks are
    queued."""
    from scoring.tasks import render_block  # here: the task calls this module

    numbers = list(stage.tables.order_by("number").values_list("number", flat=True))
    blocks = blocks_of(numbers, BLOCK)
    site = site.rstrip("/")
    with transaction.atomic():
        stage.event.locked()
        # What the sheets show, in which language, for which site: one job each.
        made = f"{language}:{site}:{sheets_key(stage, blank)}"
        key = hashlib.sha256(made.encode()).hexdigest()[:64]
        # A job that failed is made again when asked again.
        PrintJob.objects.filter(stage=stage, blank=blank, key=key).exclude(error="").delete()
        job, created = PrintJob.objects.get_or_create(
            stage=stage,
            blank=blank,
            key=key,
            defaults={"site": site, "language": language, "blocks": len(blocks)},
        )
        if created:
            parts = PrintBlock.objects.bulk_create(
                PrintBlock(job=job, first=first, last=last) for first, last in blocks
            )
            ids = [p.pk for p in parts]
            transaction.on_commit(lambda: [render_block.enqueue(pk) for pk in ids])
    if created and not numbers:
        _finish(job.pk)
    return job


def render_block(block_id: int) -> None:
    """Render one block of a print job; the last block to finish joins them (the task
    ``scoring.tasks.render_block``)."""
    block = PrintBlock.objects.select_related("job__stage__event").get(pk=block_id)
    job, stage = block.job, block.job.stage
    try:
        sheets = [s for s in stage_sheets(stage) if block.first <= s.table.number <= block.last]
        with translation.override(job.language or None), timezone.override(stage.event.zone):
            context = sheets_context(
                stage, sheets, job.blank, lambda path: job.site + path, codes=True
            )
            block.pdf = render_pdf("print/sheets.html", context)
        block.save(update_fields=["pdf"])
    except Exception as error:  # noqa: BLE001 (the page says it failed; the log has why)
        logger.exception("Print job %s: tables %s-%s failed", job.pk, block.first, block.last)
        PrintJob.objects.filter(pk=job.pk).update(error=str(error)[:300])
        return
    PrintJob.objects.filter(pk=job.pk).update(done=F("done") + 1)
    _finish(job.pk)


def _finish(job_id: int) -> None:
    """Join the blocks once every one is rendered (exactly once: under the job's row lock)."""
    with transaction.atomic():
        job = PrintJob.objects.select_for_update().get(pk=job_id)
        if job.pdf is not None or job.done < job.blocks:
            return
        writer = PdfWriter()
        for part in job.parts.order_by("first"):
            writer.append(io.BytesIO(bytes(part.pdf)))
        out = io.BytesIO()
        writer.write(out)
        job.pdf = out.getvalue()
        job.save(update_fields=["pdf"])
        job.parts.update(pdf=None)  # the joined PDF is what is kept


def print_language(event) -> str:
    """The sheets' language: the event's, else the one the page is read in."""
    return getattr(event, "sheet_language", "") or translation.get_language() or ""


def blank_on_seating(stage: Stage, site: str) -> None:
    """A stage was seated: prepare its blank sheets in the background."""
    if settings.PRINT_BLANK_ON_SEATING and stage.tables.exists():
        start_print(stage, True, site, print_language(stage.event))
