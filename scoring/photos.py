"""Photos of a table's paper sheet (issue 33): how an upload becomes the stored image, and which
photos a table keeps. The writes are scoring/services/photos.py's; the pages that show them check
who may see them (directors, that table's scorekeepers, the phones that opened it).

An upload is never stored as sent, and never decoded in the server's own process (issue 46: a
86 KB PNG of 89 million pixels took 4.4 GB there, and four phones sending a small one left a
worker at 5.8 GB, never given back). A file that does not start as a JPEG, PNG or WebP does is
refused at once; any other goes to a child process (scoring/photo_decoder.py) with at most
``MEMORY_LIMIT`` of address space and ``DECODE_SECONDS`` of processor, ``DECODES_AT_ONCE`` at a
time in a server process. The child refuses from the header what no phone's camera makes (too
many pixels for its format, or for its bytes), decodes the rest as small as it can, turns it
upright by its EXIF orientation, shrinks it to ``LONGEST_SIDE`` and writes a new JPEG with no
metadata at all (no EXIF, no GPS position, no camera, no comment): a few hundred KB for a
sheet. Its peak memory is logged with each photo.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from django.utils.translation import gettext as _

from scoring import photo_decoder
from scoring.models import SheetPhoto
from tournament.refusals import Refusal

logger = logging.getLogger(__name__)

MAX_UPLOAD_BYTES = 15 * 1024 * 1024  # a phone's photo is 2-8 MB; more is no photo of a sheet
LONGEST_SIDE = photo_decoder.LONGEST_SIDE  # pixels: every cell of a sheet still reads
# The decoding child's bounds: the worst photo it accepts (a 12-megapixel WebP with
# transparency) peaks at 260 MB; a 50-megapixel JPEG, decoded at 1/4, at 60 MB.
MEMORY_LIMIT = 512 * 1024 * 1024  # bytes of address space (Linux and BSD enforce it)
DECODE_SECONDS = 15  # of processor; the server waits twice that, then ends the child
DECODES_AT_ONCE = 2  # children of one server process; another upload waits its turn...
WAIT_SECONDS = 30  # ... this long at most
DECODER = Path(photo_decoder.__file__)
_turns = threading.BoundedSemaphore(DECODES_AT_ONCE)


# The session's note of a photo just refused, shown at the photo's field of the page the form
# goes back to: {"table": its pk, "texts": [why]} (scoring/views/photos.py, photo_tags).
PHOTO_REFUSED = "photo_refused"


class PhotoRefused(Refusal):
    """The photo was not stored; the message says why."""


@dataclass(frozen=True)
class Encoded:
    """An upload re-encoded: the JPEG's bytes, its size in pixels, and the decoding child's
    peak memory (bytes; 0 where the system does not say)."""

    data: bytes
    width: int
    height: int
    peak: int = 0


def too_large_message() -> str:
    return _("The photo is too large (more than %(mb)s MB): take it again at a smaller size.") % {
        "mb": MAX_UPLOAD_BYTES // (1024 * 1024)
    }


def too_many_pixels_message(limit: int) -> str:
    return _(
        "The photo has too many pixels (more than %(mp)s million): take it again at a smaller size."
    ) % {"mp": limit // 1_000_000}


def too_dense_message(size: tuple[int, int], length: int) -> str:
    return _(
        "This image says it is %(w)s × %(h)s pixels in a file of only %(kb)s KB: no camera makes "
        "such a photo. Choose a photo of the sheet."
    ) % {"w": size[0], "h": size[1], "kb": max(1, length // 1024)}


def not_an_image_message() -> str:
    return _("This file is not a photo (JPEG, PNG or WebP): choose a photo of the sheet.")


def unreadable_message() -> str:
    return _(
        "This photo could not be read within the memory and time a photo of a sheet takes: "
        "take it again, or choose another."
    )


def busy_message() -> str:
    return _("Other photos are being read: send this one again in a moment.")


def bounds() -> dict:
    """What the child refuses (scoring/photo_decoder.py ``refusal``) and its limits."""
    return {
        "max_pixels": photo_decoder.MAX_PIXELS,
        "max_whole_pixels": photo_decoder.MAX_WHOLE_PIXELS,
        "free_pixels": photo_decoder.FREE_PIXELS,
        "pixels_per_byte": photo_decoder.PIXELS_PER_BYTE,
        "memory": MEMORY_LIMIT,
        "seconds": DECODE_SECONDS,
    }


def read_upload(upload) -> bytes:
    """The upload's bytes (a file object), refused when larger than ``MAX_UPLOAD_BYTES``."""
    size = getattr(upload, "size", None)
    if size is not None and size > MAX_UPLOAD_BYTES:
        raise PhotoRefused(too_large_message())
    if hasattr(upload, "seek"):
        upload.seek(0)
    data = upload.read(MAX_UPLOAD_BYTES + 1)
    if len(data) > MAX_UPLOAD_BYTES:
        raise PhotoRefused(too_large_message())
    return data


def reencode(upload) -> Encoded:
    """The upload (a file object) as a new JPEG: upright, at most ``LONGEST_SIDE`` pixels on its
    longest side, no metadata, made by a child process within ``MEMORY_LIMIT``. Raises
    PhotoRefused for a file too large, not a JPEG, PNG or WebP, of more pixels than a phone's
    photo has (or than its bytes can hold), or that its child could not read within its bounds."""
    data = read_upload(upload)
    if not photo_decoder.may_be_photo(data):
        raise PhotoRefused(not_an_image_message())
    answer, jpeg = decode(data)
    source = answer.get("source") or {}
    logger.info(
        "Photo %s %s of %s bytes: %s; its decoding peaked at %s MB",
        source.get("format", "?"),
        "×".join(map(str, source.get("size", ()))) or "?",
        len(data),
        f"refused ({answer['refused']})" if "refused" in answer else "stored",
        answer.get("peak", 0) // 2**20,
        extra={"decoding_peak": answer.get("peak", 0)},
    )
    why = answer.get("refused")
    if why == "pixels":
        raise PhotoRefused(too_many_pixels_message(answer["limit"]))
    if why == "dense":
        raise PhotoRefused(too_dense_message(tuple(source["size"]), len(data)))
    if why:
        raise PhotoRefused(not_an_image_message())
    return Encoded(jpeg, answer["width"], answer["height"], answer.get("peak", 0))


def decode(data: bytes) -> tuple[dict, bytes]:
    """The child's answer for ``data`` (scoring/photo_decoder.py ``main``) and its JPEG: a turn
    among ``DECODES_AT_ONCE`` first. A child that fails (over its memory or its time, or
    killed) is refused with ``unreadable_message``, and logged."""
    if not _turns.acquire(timeout=WAIT_SECONDS):
        raise PhotoRefused(busy_message())
    try:
        ended = subprocess.run(  # noqa: S603 (this interpreter, this project's file)
            [sys.executable, "-I", str(DECODER), json.dumps(bounds())],
            input=data,
            capture_output=True,
            timeout=DECODE_SECONDS * 2,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        logger.warning("Photo not decoded: its process failed: %s", error)
        raise PhotoRefused(unreadable_message()) from None
    finally:
        _turns.release()
    head, _newline, jpeg = ended.stdout.partition(b"\n")
    try:
        answer = json.loads(head)
    except ValueError:
        answer = None
    if ended.returncode != 0 or not isinstance(answer, dict):
        why = ended.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no answer"]
        logger.warning("Photo not decoded: its process ended with %s: %s", ended.returncode, why[0])
        raise PhotoRefused(unreadable_message())
    return answer, jpeg


def table_photos(table) -> tuple[list[SheetPhoto], list[SheetPhoto]]:
    """The table's photos not removed and those removed (their rows: who removed them, when,
    why), each oldest first: one query."""
    photos = list(table.photos.select_related("added_by", "removed_by"))
    return (
        [photo for photo in photos if photo.removed_at is None],
        [photo for photo in photos if photo.removed_at is not None],
    )
