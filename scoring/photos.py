"""Photos of a table's paper sheet (issue 33): how an upload becomes the stored image, and which
photos a table keeps. The writes are scoring/services/photos.py's; the pages that show them check
who may see them (directors, that table's scorekeepers, the phones that opened it).

An upload is never stored as sent: Pillow decodes it (refusing what is not an image, and an image
of more pixels than ``Image.MAX_IMAGE_PIXELS``, a "decompression bomb"), turns it upright by its
EXIF orientation, shrinks it to ``LONGEST_SIDE`` and writes a new JPEG with no metadata at all
(no EXIF, no GPS position, no camera, no comment): a few hundred KB for a sheet.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from django.utils.translation import gettext as _
from PIL import Image, ImageOps, UnidentifiedImageError

from scoring.models import SheetPhoto
from tournament.refusals import Refusal

MAX_UPLOAD_BYTES = 15 * 1024 * 1024  # a phone's photo is 2-8 MB; more is no photo of a sheet
LONGEST_SIDE = 1600  # pixels: every cell of a sheet still reads
QUALITY = 80  # JPEG quality: 150-400 KB for a sheet at 1600 px


class PhotoRefused(Refusal):
    """The photo was not stored; the message says why."""


@dataclass(frozen=True)
class Encoded:
    """An upload re-encoded: the JPEG's bytes and its size in pixels."""

    data: bytes
    width: int
    height: int


def too_large_message() -> str:
    return _("The photo is too large (more than %(mb)s MB): take it again at a smaller size.") % {
        "mb": MAX_UPLOAD_BYTES // (1024 * 1024)
    }


def too_many_pixels(size: tuple[int, int]) -> bool:
    limit = Image.MAX_IMAGE_PIXELS
    return limit is not None and size[0] * size[1] > limit


def too_many_pixels_message() -> str:
    return _(
        "The photo has too many pixels (more than %(mp)s million): take it again at a smaller size."
    ) % {"mp": (Image.MAX_IMAGE_PIXELS or 0) // 1_000_000}


def not_an_image_message() -> str:
    return _("This file is not a photo (JPEG, PNG or WebP): choose a photo of the sheet.")


def reencode(upload) -> Encoded:
    """The upload (a file object) as a new JPEG: upright, at most ``LONGEST_SIDE`` pixels on its
    longest side, no metadata. Raises PhotoRefused for a file too large, not an image, or an
    image of too many pixels to decode safely."""
    size = getattr(upload, "size", None)
    if size is not None and size > MAX_UPLOAD_BYTES:
        raise PhotoRefused(too_large_message())
    try:
        with Image.open(upload) as image:
            # Pillow refuses more than twice MAX_IMAGE_PIXELS when it opens the file (before
            # decoding it); between once and twice it only warns: refused here.
            if too_many_pixels(image.size):
                raise PhotoRefused(too_many_pixels_message())
            # A JPEG is decoded at 1/2, 1/4 or 1/8 of its size when that still covers the
            # bound: a 12-megapixel photo takes a quarter of the memory and time.
            longest = max(image.size) or 1
            wanted = tuple(-(-side * LONGEST_SIDE // longest) for side in image.size)
            image.draft("RGB", wanted)
            image.load()
            image = ImageOps.exif_transpose(image)
            if image.mode not in ("RGB", "L"):
                image = flatten(image)
            image.thumbnail((LONGEST_SIDE, LONGEST_SIDE), Image.Resampling.LANCZOS)
            # Nothing of the original's metadata: Pillow writes what the image's info keeps
            # (its comment, EXIF, ICC profile, XMP) unless it is emptied.
            image.info = {}
            out = io.BytesIO()
            image.save(out, "JPEG", quality=QUALITY, optimize=True, progressive=True)
    except Image.DecompressionBombError:
        raise PhotoRefused(too_many_pixels_message()) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError):
        raise PhotoRefused(not_an_image_message()) from None
    return Encoded(out.getvalue(), image.width, image.height)


def flatten(image: Image.Image) -> Image.Image:
    """An image with transparency or a palette, on white, as RGB (JPEG has neither)."""
    rgba = image.convert("RGBA")
    white = Image.new("RGB", rgba.size, (255, 255, 255))
    white.paste(rgba, mask=rgba.getchannel("A"))
    return white


def table_photos(table) -> tuple[list[SheetPhoto], list[SheetPhoto]]:
    """The table's photos not removed and those removed (their rows: who removed them, when,
    why), each oldest first: one query."""
    photos = list(table.photos.select_related("added_by", "removed_by"))
    return (
        [photo for photo in photos if photo.removed_at is None],
        [photo for photo in photos if photo.removed_at is not None],
    )
