"""A photo of a table's filled paper sheet read (issue 51 item 2): the photo is decoded as every
photo is (scoring/photos.py: a child process, shrunk, upright), then scoring/sheet_reader finds
the page by its marks and QR code, checks that the QR code names this table and the sheet
version the site prints for it today, and reads every pip cell. Nothing is written: the values
read fill the entry grid, and a person saves them (PRODUCT.md §16).

The desk's path (item 3): ``start_reading`` keeps the upload (re-encoded, refused at once when
it is no photo or too large) in a ``SheetReading`` and asks the background worker to read it
(``scoring.tasks.read_stored_sheet`` → ``read_stored``); once read, the photo joins the table's
photos (scoring/services/photos.py ``add_photo``, as an added photo does) and the cells wait on
the confirm page; a refused photo keeps only why, and nothing else is saved. The rounds are
saved by a person on that page, through record_round.

A photo that cannot be read is refused with a message that says why, in the reader's language
(``SheetNotRead``): not an image, too large, not a score sheet, upside down beyond reading,
another table's or another event's sheet, a sheet printed before the table was seated again, a
blank sheet.
"""

from __future__ import annotations

import base64
import io
import re
import time
from urllib.parse import parse_qs, urlsplit

import cv2
import numpy as np
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.models import ReadingStatus, SheetReading
from scoring.photos import PhotoRefused, reencode
from scoring.printing import cumulative_before, paper_of_version, sheet_layout, sheet_version
from scoring.services.photos import add_photo
from scoring.sheet_reader import geometry, reading
from scoring.sheets import table_sheet
from tournament.history import claim, settle
from tournament.models import Table
from tournament.refusals import Refusal

LIVE_PATH = re.compile(r"^/e/(?P<slug>[^/]+)/(?P<stage>\d+)/table/(?P<table>\d+)/$")
CODE_PATH = re.compile(r"^/t/(?P<code>[^/]+)/$")


class SheetNotRead(Refusal):
    """The photo was not read; the message says why. Nothing was saved. ``code`` and
    ``params``: the reason, to say it again in another language (``message``)."""

    code = ""
    params: dict = {}


def not_read(code: str, **params) -> SheetNotRead:
    refusal = SheetNotRead(message(code, **params))
    refusal.code, refusal.params = code, params
    return refusal


def message(code: str, **params) -> str:
    """Why a photo was not read, in the reader's language."""
    messages = {
        "image": _("This file is not a photo (JPEG, PNG or WebP): choose a photo of the sheet."),
        "not_sheet": _(
            "No score sheet was found in this photo: photograph the whole sheet printed by this "
            "site, its four black corner squares in view."
        ),
        "marks": _(
            "The sheet's four black corner squares were not all found: photograph the whole "
            "sheet, flat, its corners in view."
        ),
        "qr": _(
            "The sheet's QR code could not be read: photograph the sheet again, closer and sharper."
        ),
        "several": _("This photo shows more than one sheet: photograph one sheet at a time."),
        "other_site": _("This sheet was not printed by this site for a table: print its sheet."),
        "other_event": _("This sheet is another event's: photograph this table's sheet."),
        "other_table": _(
            "This sheet is table %(table)s's of %(stage)s: photograph this table's sheet."
        ),
        "old_version": _(
            "This sheet was printed before the table was seated again (or on other paper): "
            "print its sheet again."
        ),
        "layout": _(
            "This table has too many players for its sheet to be read by the camera: type its "
            "scores."
        ),
        "blank": _("Nothing is written on this sheet yet: photograph it once it is filled."),
    }
    return messages[code] % params if params else messages[code]


def read_sheet_photo(table: Table, data: bytes) -> dict:
    """Read a photo (its bytes) of ``table``'s sheet: {"cells": a row per engine of
    {"state", "value", "confidence", "sure"} per player in seat order, "players": their ids,
    "engines", "version", "seconds"}. Raises SheetNotRead (or PhotoRefused: not an image, too
    large) with the reason; writes nothing."""
    return read_page(table, data)[0]


def read_page(table: Table, data: bytes) -> tuple[dict, np.ndarray]:
    """``read_sheet_photo``'s reading, each cell with its "box" ([x, y, w, h]: the pip cell in
    the straightened page's pixels), and the straightened page (grey)."""
    started = time.perf_counter()
    jpeg = reencode(io.BytesIO(data)).data
    try:
        found = reading.find(jpeg)
    except reading.NotRead as why:
        raise not_read(why.code) from None
    sheet = table_sheet(table)
    paper = check_qr(table, found.qr)
    before = cumulative_before(table.stage) is not None
    layout = sheet_layout(sheet, paper, before)
    if found_version(found.qr) != sheet_version(sheet, layout):
        raise not_read("old_version")
    try:
        read = reading.read(found, layout)
    except reading.NotRead as why:
        raise not_read(why.code) from None
    if read.blank:
        raise not_read("blank")
    cells = [
        [{**c.as_dict(), "box": pixels(layout.pip_cell(r, col))} for col, c in enumerate(row)]
        for r, row in enumerate(read.cells)
    ]
    return {
        "cells": cells,
        "players": [p.pk for p in sheet.players],
        "engines": list(sheet.engines),
        "version": found_version(found.qr),
        "seconds": round(time.perf_counter() - started, 2),
    }, geometry.straighten(found, layout)


def pixels(box) -> list[int]:
    """A box of the page (millimetres) in the straightened page's pixels."""
    scale = geometry.PIXELS_PER_MM
    return [round(box.x * scale), round(box.y * scale), round(box.w * scale), round(box.h * scale)]


def found_version(qr: str) -> str:
    return (parse_qs(urlsplit(qr).query).get("sheet") or [""])[0]


def check_qr(table: Table, qr: str) -> str:
    """The paper the sheet was printed on, once its QR code is found to name ``table``."""
    path = urlsplit(qr).path
    paper = paper_of_version(found_version(qr))
    live, code = LIVE_PATH.match(path), CODE_PATH.match(path)
    if paper is None or not (live or code):
        raise not_read("other_site")
    stage = table.stage
    if code:
        other = Table.objects.filter(code=code["code"]).select_related("stage__event").first()
        if other is None or other.stage.event_id != stage.event_id:
            raise not_read("other_event")
        where = (other.stage.number, other.number, other.stage.title)
    else:
        if live["slug"] != stage.event.slug:
            raise not_read("other_event")
        other_stage = stage.event.stages.filter(number=int(live["stage"])).first()
        title = other_stage.title if other_stage else live["stage"]
        where = (int(live["stage"]), int(live["table"]), title)
    if where[:2] != (stage.number, table.number):
        raise not_read("other_table", table=where[1], stage=where[2])
    return paper


def read_for_task(table_id: int, photo: str) -> dict:
    """The background task's reading (``scoring.tasks.read_sheet``): the photo as base64; the
    reading, or {"refused": why} in the language of the request that sent it."""
    table = Table.objects.select_related("stage__event").get(pk=table_id)
    try:
        return read_sheet_photo(table, base64.b64decode(photo))
    except (SheetNotRead, PhotoRefused) as refusal:
        return {"refused": str(refusal)}


def start_reading(table: Table, upload, user, key: str = "") -> SheetReading:
    """Keep ``upload`` (a photo of ``table``'s sheet, re-encoded: PhotoRefused when it is no
    photo or too large, nothing written) and ask the worker to read it. A repeated form (its
    ``key``) starts nothing and returns the reading it started."""
    earlier = SheetReading.objects.filter(key=key).first() if key else None
    if earlier is not None:
        return earlier
    encoded = reencode(upload)
    with transaction.atomic():
        earlier = claim(key, user)
        if earlier is not None:
            return SheetReading.objects.get(pk=(earlier.outcome or {}).get("reading"))
        made = SheetReading.objects.create(
            table=table,
            by=user if getattr(user, "is_authenticated", False) else None,
            key=key,
            upload=encoded.data,
        )
        settle(key, reading=made.pk)
        from scoring.tasks import read_stored_sheet  # here: the task calls this module

        reading_id = made.pk
        transaction.on_commit(lambda: read_stored_sheet.enqueue(reading_id))
    return made


def read_stored(reading_id: int) -> None:
    """The worker reads a kept upload: the photo joins the table's photos and the cells are
    kept, or the reason it was not read is (and the upload dropped). A reading done already (a
    task run twice) is left as it is."""
    reading = SheetReading.objects.select_related("table__stage__event", "by").get(pk=reading_id)
    if reading.status != ReadingStatus.QUEUED or reading.upload is None:
        return
    data = bytes(reading.upload)
    try:
        found, flat = read_page(reading.table, data)
    except SheetNotRead as refusal:
        finish(reading, refusal=refusal.code, refusal_params=refusal.params, message=str(refusal))
        return
    except PhotoRefused as refusal:
        finish(reading, message=str(refusal))
        return
    ok, jpeg = cv2.imencode(".jpg", flat, [cv2.IMWRITE_JPEG_QUALITY, 85])
    try:
        with transaction.atomic():
            if not lock_queued(reading):
                return
            photo = add_photo(reading.table, ContentFile(data, "sheet.jpg"), user=reading.by)
            finish(
                reading,
                photo=photo,
                cells=found["cells"],
                players=found["players"],
                engines=found["engines"],
                flat=jpeg.tobytes() if ok else None,
            )
    except PhotoRefused as refusal:  # the table keeps as many photos as it may already
        finish(reading, message=str(refusal))


def lock_queued(reading: SheetReading) -> bool:
    return (
        SheetReading.objects.select_for_update()
        .filter(pk=reading.pk, status=ReadingStatus.QUEUED)
        .exists()
    )


def finish(reading: SheetReading, **outcome) -> None:
    """The reading done (cells given) or refused, its upload dropped; once only."""
    with transaction.atomic():
        if not lock_queued(reading):
            return
        outcome["status"] = ReadingStatus.DONE if "cells" in outcome else ReadingStatus.REFUSED
        for name, value in outcome.items():
            setattr(reading, name, value)
        reading.upload = None
        reading.finished_at = timezone.now()
        reading.save()


def refusal_text(reading: SheetReading) -> str:
    """Why the photo was not read, in the language of whoever looks."""
    if reading.refusal:
        return message(reading.refusal, **reading.refusal_params)
    return reading.message


def cell_crop(reading: SheetReading, row: int, column: int) -> bytes | None:
    """The photo of one cell (with a little of its neighbours), a JPEG cut from the
    straightened page; None when there is none."""
    try:
        x, y, w, h = reading.cells[row][column]["box"]
    except (IndexError, KeyError, TypeError, ValueError):
        return None
    if not reading.flat:
        return None
    flat = cv2.imdecode(np.frombuffer(bytes(reading.flat), np.uint8), cv2.IMREAD_GRAYSCALE)
    if flat is None:
        return None
    mx, my = w // 6, h // 3
    cut = flat[max(0, y - my) : y + h + my, max(0, x - mx) : x + w + mx]
    if cut.size == 0:
        return None
    ok, jpeg = cv2.imencode(".jpg", cut, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return jpeg.tobytes() if ok else None
