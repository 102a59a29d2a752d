"""A photo of a table's filled paper sheet read (issue 51 item 2): the photo is decoded as every
photo is (scoring/photos.py: a child process, shrunk, upright), then scoring/sheet_reader finds
the page by its marks and QR code, checks that the QR code names this table and the sheet
version the site prints for it today, and reads every pip cell. Nothing is written: the values
read fill the entry grid, and a person saves them (PRODUCT.md §16).

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

from django.utils.translation import gettext as _

from scoring.photos import PhotoRefused, reencode
from scoring.printing import cumulative_before, paper_of_version, sheet_layout, sheet_version
from scoring.sheet_reader import reading
from scoring.sheets import table_sheet
from tournament.models import Table
from tournament.refusals import Refusal

LIVE_PATH = re.compile(r"^/e/(?P<slug>[^/]+)/(?P<stage>\d+)/table/(?P<table>\d+)/$")
CODE_PATH = re.compile(r"^/t/(?P<code>[^/]+)/$")


class SheetNotRead(Refusal):
    """The photo was not read; the message says why. Nothing was saved."""


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
    started = time.perf_counter()
    jpeg = reencode(io.BytesIO(data)).data
    try:
        found = reading.find(jpeg)
    except reading.NotRead as why:
        raise SheetNotRead(message(why.code)) from None
    sheet = table_sheet(table)
    paper = check_qr(table, found.qr)
    before = cumulative_before(table.stage) is not None
    layout = sheet_layout(sheet, paper, before)
    if found_version(found.qr) != sheet_version(sheet, layout):
        raise SheetNotRead(message("old_version"))
    try:
        read = reading.read(found, layout)
    except reading.NotRead as why:
        raise SheetNotRead(message(why.code)) from None
    if read.blank:
        raise SheetNotRead(message("blank"))
    return {
        "cells": [[c.as_dict() for c in row] for row in read.cells],
        "players": [p.pk for p in sheet.players],
        "engines": list(sheet.engines),
        "version": found_version(found.qr),
        "seconds": round(time.perf_counter() - started, 2),
    }


def found_version(qr: str) -> str:
    return (parse_qs(urlsplit(qr).query).get("sheet") or [""])[0]


def check_qr(table: Table, qr: str) -> str:
    """The paper the sheet was printed on, once its QR code is found to name ``table``."""
    path = urlsplit(qr).path
    paper = paper_of_version(found_version(qr))
    live, code = LIVE_PATH.match(path), CODE_PATH.match(path)
    if paper is None or not (live or code):
        raise SheetNotRead(message("other_site"))
    stage = table.stage
    if code:
        other = Table.objects.filter(code=code["code"]).select_related("stage__event").first()
        if other is None or other.stage.event_id != stage.event_id:
            raise SheetNotRead(message("other_event"))
        where = (other.stage.number, other.number, other.stage.title)
    else:
        if live["slug"] != stage.event.slug:
            raise SheetNotRead(message("other_event"))
        other_stage = stage.event.stages.filter(number=int(live["stage"])).first()
        title = other_stage.title if other_stage else live["stage"]
        where = (int(live["stage"]), int(live["table"]), title)
    if where[:2] != (stage.number, table.number):
        raise SheetNotRead(message("other_table", table=where[1], stage=where[2]))
    return paper


def read_for_task(table_id: int, photo: str) -> dict:
    """The background task's reading (``scoring.tasks.read_sheet``): the photo as base64; the
    reading, or {"refused": why} in the language of the request that sent it."""
    table = Table.objects.select_related("stage__event").get(pk=table_id)
    try:
        return read_sheet_photo(table, base64.b64decode(photo))
    except (SheetNotRead, PhotoRefused) as refusal:
        return {"refused": str(refusal)}
