"""Images built to eat a laptop's memory (issue 46 item 2), each sent through a table page's own
photo form as a phone or a director sends it: every bomb of the audit (a tall 1-bit PNG, a 9400²
RGB PNG, a 1-bit 9400² PNG, truncated JPEGs with a huge header, BMP, TIFF, GIF) is refused with
its reason at the field, having been decoded by nobody: the server's process holds little more
than the upload (tracemalloc), and the child that read its header peaked at a few tens of MB
(its own high-water mark, which it reports). The worst photos accepted are decoded within their
bound, the child's memory limit is enforced by the system, the twelve-photo limit and a repeated
form are answered before any decoding, and two decodings at most run at once in a process."""

import io
import logging
import struct
import threading
import tracemalloc
import zlib
from functools import cache

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections
from PIL import Image

from scoring import photo_decoder, photos
from scoring.models import SheetPhoto
from scoring.services.photos import MAX_PHOTOS, add_photo
from tests.test_photos import photo_form, post_photo, sheet_jpeg, stored_files, table_url, text
from tournament.models import Action, Event, Table

pytestmark = pytest.mark.django_db

MB = 2**20
REFUSED_BOUND = 64 * MB  # a child that read a bomb's header and refused it (measured: 18-33 MB)
WORST_BOUND = 320 * MB  # the worst photo accepted, a 12 MP WebP with transparency (262 MB)
SERVER_BOUND = 40 * MB  # the server's own allocations for one upload: its bytes, a few times


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def table(seated):
    Event.objects.filter(pk=seated.event.pk).update(table_entry=True)
    return Table.objects.select_related("stage__event").get(stage=seated, number=1)


# -- the bombs -----------------------------------------------------------------------------


def png(width: int, height: int, depth: int, colour: int, row: bytes) -> bytes:
    """A PNG every row of which is ``row``, deflated as it goes (never held whole)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    packer = zlib.compressobj(9)
    line = b"\0" + row
    block = line * max(1, (1 << 20) // len(line))
    parts, left = [], height
    while left:
        rows = min(left, len(block) // len(line))
        parts.append(packer.compress(block[: rows * len(line)]))
        left -= rows
    parts.append(packer.flush())
    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", b"".join(parts))
        + chunk(b"IEND", b"")
    )


def jpeg_claiming(width: int, height: int, progressive: bool) -> bytes:
    """A small JPEG whose header says it is ``width`` × ``height``, cut in the middle of its
    data: what the audit sent as "a truncated JPEG with a huge header"."""
    out = io.BytesIO()
    Image.new("RGB", (64, 64), (240, 240, 230)).save(out, "JPEG", progressive=progressive)
    data = out.getvalue()
    frame = data.index(b"\xff\xc2" if progressive else b"\xff\xc0")
    data = data[: frame + 5] + struct.pack(">HH", height, width) + data[frame + 9 :]
    scan = data.index(b"\xff\xda")
    return data[: scan + (len(data) - scan) // 2]


def other_format(fmt: str, mode: str) -> bytes:
    out = io.BytesIO()
    Image.new(mode, (9400, 9400), 0).save(out, fmt)
    return out.getvalue()


NOT_A_PHOTO = "This file is not a photo (JPEG, PNG or WebP): choose a photo of the sheet."
TOO_MANY = "The photo has too many pixels (more than 12 million): take it again at a smaller size."
BOMBS = {
    # name: (the file, its name, what the page says, whether a child reads its header)
    "tall 1-bit PNG": (
        lambda: png(1, 89_000_000, 1, 0, b"\x80"),
        "tall.png",
        TOO_MANY,
        True,
    ),
    "9400² RGB PNG": (
        lambda: png(9400, 9400, 8, 2, b"\xff" * 9400 * 3),
        "sheet.png",
        TOO_MANY,
        True,
    ),
    "1-bit 9400² PNG": (
        lambda: png(9400, 9400, 1, 0, b"\xff" * 1175),
        "sheet.png",
        TOO_MANY,
        True,
    ),
    "truncated progressive JPEG of 65000 × 1300": (
        lambda: jpeg_claiming(65000, 1300, progressive=True),
        "IMG_0001.JPG",
        TOO_MANY,
        True,
    ),
    "truncated JPEG of 65535 × 65535": (
        lambda: jpeg_claiming(65535, 65535, progressive=False),
        "IMG_0002.JPG",
        "The photo has too many pixels (more than 50 million)",
        True,
    ),
    "truncated JPEG of 8000 × 6000 in a few hundred bytes": (
        lambda: jpeg_claiming(8000, 6000, progressive=False),
        "IMG_0003.JPG",
        "This image says it is 8000 × 6000 pixels in a file of only 1 KB: no camera makes such "
        "a photo. Choose a photo of the sheet.",
        True,
    ),
    "BMP": (lambda: other_format("BMP", "1"), "sheet.bmp", NOT_A_PHOTO, False),
    "TIFF": (lambda: other_format("TIFF", "1"), "sheet.tif", NOT_A_PHOTO, False),
    "GIF": (lambda: other_format("GIF", "L"), "sheet.gif", NOT_A_PHOTO, False),
}


@cache
def bomb(name: str) -> bytes:
    return BOMBS[name][0]()


def decodings(caplog) -> list[logging.LogRecord]:
    """The children's reports, as the server logged them."""
    return [r for r in caplog.records if hasattr(r, "decoding_peak")]


@pytest.mark.parametrize("name", BOMBS)
def test_a_bomb_is_refused_at_the_field_having_been_decoded_by_nobody(
    director_client, table, media, caplog, name
):
    _build, filename, said, child = BOMBS[name]
    data = bomb(name)
    assert len(data) < 12 * MB  # within the upload's limit: the reading must refuse it
    tracemalloc.start()
    try:
        with caplog.at_level(logging.INFO, logger="scoring.photos"):
            refused = post_photo(director_client, table_url(table), data, name=filename)
        server_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    page = refused.content.decode()
    assert said in text(refused)
    assert 'id="sheet-photo-error"' in page and 'aria-invalid="true"' in page  # at the field
    assert not SheetPhoto.objects.exists() and stored_files(media) == []
    assert not Action.objects.filter(verb="table.photo_added").exists()
    assert server_peak < SERVER_BOUND + 3 * len(data)
    reports = decodings(caplog)
    if child:
        (report,) = reports
        assert "refused" in report.getMessage()
        assert 0 < report.decoding_peak < REFUSED_BOUND
    else:
        assert reports == []  # not a JPEG, PNG or WebP: no child started


def test_the_refusal_is_shown_once_then_the_form_is_as_new(director_client, table):
    refused = post_photo(director_client, table_url(table), bomb("GIF"), name="sheet.gif")
    assert NOT_A_PHOTO in text(refused)
    again = director_client.get(table_url(table)).content.decode()
    assert NOT_A_PHOTO not in again and 'aria-invalid="true"' not in again


# -- the worst photos accepted -------------------------------------------------------------


def smooth_noise(width: int, height: int, mode: str) -> Image.Image:
    """An image of ``width`` × ``height`` that compresses as a photo does (a few bits a pixel:
    well inside the pixels-per-byte bound), made in a second or two."""
    bands = [
        Image.effect_noise((width // 16, height // 16), 80)
        .resize((width, height))
        .point(lambda v: v // 16 * 16)
        for _ in Image.new(mode, (1, 1)).getbands()
    ]
    return Image.merge(mode, bands)


def worst(kind: str) -> tuple[bytes, str]:
    out = io.BytesIO()
    if kind == "12 MP WebP with transparency":
        smooth_noise(4000, 3000, "RGBA").save(out, "WEBP", quality=60, method=0)
        return out.getvalue(), "sheet.webp"
    if kind == "12 MP PNG with transparency":
        smooth_noise(4000, 3000, "RGBA").save(out, "PNG", compress_level=1)
        return out.getvalue(), "sheet.png"
    if kind == "12 MP progressive CMYK JPEG":
        smooth_noise(4000, 3000, "CMYK").save(out, "JPEG", quality=90, progressive=True)
        return out.getvalue(), "sheet.jpg"
    smooth_noise(8160, 6120, "RGB").save(out, "JPEG", quality=75, subsampling=0)  # 50 MP
    return out.getvalue(), "sheet.jpg"


@pytest.mark.parametrize(
    "kind",
    [
        "12 MP WebP with transparency",
        "12 MP PNG with transparency",
        "12 MP progressive CMYK JPEG",
        "50 MP JPEG",
    ],
)
def test_the_worst_photos_accepted_are_decoded_within_their_bound(
    director_client, table, caplog, kind
):
    data, filename = worst(kind)
    assert len(data) <= photos.MAX_UPLOAD_BYTES
    with caplog.at_level(logging.INFO, logger="scoring.photos"):
        done = post_photo(director_client, table_url(table), data, name=filename)
    assert "Photo of the sheet added." in text(done)
    photo = SheetPhoto.objects.get()
    assert max(photo.width, photo.height) == photos.LONGEST_SIDE
    (report,) = decodings(caplog)
    peak = report.decoding_peak
    print(f"{kind}: {len(data) // 1024} KB, its decoding peaked at {peak / MB:.0f} MB")
    assert 0 < peak < WORST_BOUND


def test_a_photo_over_the_childs_memory_limit_is_refused_and_stores_nothing(
    director_client, table, media, caplog, monkeypatch
):
    # The system holds the child to its limit: a photo the bounds accept, but that needs more
    # memory than the child is given here (100 MB), ends it, and is refused.
    monkeypatch.setattr(photos, "MEMORY_LIMIT", 100 * MB)
    data, filename = worst("12 MP PNG with transparency")
    with caplog.at_level(logging.INFO, logger="scoring.photos"):
        refused = post_photo(director_client, table_url(table), data, name=filename)
    assert (
        "This photo could not be read within the memory and time a photo of a sheet takes: "
        "take it again, or choose another." in text(refused)
    )
    assert "Photo not decoded: its process ended with 1: MemoryError" in caplog.text
    assert not SheetPhoto.objects.exists() and stored_files(media) == []


def test_the_pixel_bound_for_its_format_is_the_one_the_child_applies(
    director_client, table, monkeypatch
):
    monkeypatch.setattr(photo_decoder, "MAX_PIXELS", 1_000_000)
    said = "The photo has too many pixels (more than 1 million): take it again at a smaller size."
    refused = post_photo(director_client, table_url(table), sheet_jpeg(1100, 1000))
    assert said in text(refused)
    done = post_photo(director_client, table_url(table), sheet_jpeg(1000, 1000))
    assert "Photo of the sheet added." in text(done)


# -- answered before any decoding ----------------------------------------------------------


@pytest.fixture
def decoded(monkeypatch):
    """The uploads the photo service had decoded, counted."""
    from scoring.services import photos as service

    uploads = []
    reencode = service.reencode

    def counted(upload):
        uploads.append(upload)
        return reencode(upload)

    monkeypatch.setattr(service, "reencode", counted)
    return uploads


def test_a_full_table_refuses_a_photo_before_decoding_it(director, director_client, table, decoded):
    for _n in range(MAX_PHOTOS):
        add_photo(table, io.BytesIO(sheet_jpeg(80, 60, gps=False)), user=director)
    del decoded[:]
    refused = post_photo(director_client, table_url(table), bomb("9400² RGB PNG"), name="a.png")
    assert "This table has 12 photos of its sheet already" in text(refused)
    assert decoded == []
    assert SheetPhoto.objects.count() == MAX_PHOTOS


def test_a_repeated_form_is_answered_without_decoding_its_photo_again(
    director_client, table, decoded
):
    action, hidden = photo_form(director_client.get(table_url(table)))
    data = sheet_jpeg(800, 600)
    for _ in range(3):
        director_client.post(action, {**hidden, "photo": SimpleUploadedFile("s.jpg", data)})
    assert len(decoded) == 1
    assert SheetPhoto.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_decodings_at_most_run_at_once_and_a_third_waits_its_turn(director, monkeypatch):
    from tests.concurrency import logged_in
    from tests.factories import make_event, make_players, seat

    event = make_event(director, table_entry=True)
    make_players(event, count=8)
    table = Table.objects.get(stage=seat(event), number=1)
    inside, release = threading.Semaphore(0), threading.Event()
    run = photos.subprocess.run

    def held(*args, **kwargs):  # a decoding that lasts until the test lets it end
        inside.release()
        assert release.wait(60)
        return run(*args, **kwargs)

    monkeypatch.setattr(photos.subprocess, "run", held)
    monkeypatch.setattr(photos, "WAIT_SECONDS", 0.2)
    results = []

    def send():
        try:
            results.append(post_photo(logged_in(director), table_url(table), sheet_jpeg(800, 600)))
        finally:
            connections.close_all()

    phones = [threading.Thread(target=send) for _ in range(2)]
    for phone in phones:
        phone.start()
    for _ in phones:
        assert inside.acquire(timeout=60)  # both decodings under way
    third = post_photo(logged_in(director), table_url(table), sheet_jpeg(800, 600))
    assert "Other photos are being read: send this one again in a moment." in text(third)
    release.set()
    for phone in phones:
        phone.join(60)
    assert [("Photo of the sheet added." in text(r)) for r in results] == [True, True]
    assert SheetPhoto.objects.filter(table=table).count() == 2
