"""Photos of a table's paper sheet (issue 33 item 1), through the pages that take and show
them: a director's and a scorekeeper's table pages, a table's phone. Only they see a photo (a
public visitor and another table's phone get nothing, and 404 for its address); the upload is
re-encoded (no EXIF, at most 1600 px, a few hundred KB); what is not a photo or too large is
refused with its message at the field and stores nothing (the bombs: test_photo_bombs.py); a
director removes a photo with a reason, written in the history; a repeated form stores one
photo."""

import html
import io
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from PIL import Image, ImageDraw

from scoring.models import SheetPhoto
from scoring.photos import LONGEST_SIDE, MAX_UPLOAD_BYTES
from scoring.services.photos import MAX_PHOTOS, add_photo, remove_photo
from tests.concurrency import at_once, no_errors
from tests.test_table_entry import phone
from tests.test_table_entry import text as tags_out
from tournament.models import Action, Event, Table

pytestmark = pytest.mark.django_db

GPS = 0x8825  # the EXIF tag of the GPS block
ONCE = re.compile(r'id="sheet-photo-form".*?name="once" value="([^"]+)"', re.S)


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def table(seated):
    Event.objects.filter(pk=seated.event.pk).update(table_entry=True)
    return Table.objects.select_related("stage__event").get(stage=seated, number=1)


@pytest.fixture
def other_table(table):
    return Table.objects.select_related("stage__event").get(stage=table.stage, number=2)


def keeper_of(table, name="keeper") -> Client:
    keeper = get_user_model().objects.create_user(name)
    table.scorekeepers.add(keeper)
    client = Client()
    client.force_login(keeper)
    return client


def sheet_jpeg(width=4000, height=3000, gps=True) -> bytes:
    """A camera's photo of a sheet: lines on paper, with EXIF (camera, GPS position)."""
    image = Image.new("RGB", (width, height), (245, 243, 236))
    draw = ImageDraw.Draw(image)
    for y in range(0, height, height // 20):
        draw.line([(0, y), (width, y)], fill=(40, 40, 90), width=max(2, width // 800))
    for x in range(0, width, width // 6):
        draw.line([(x, 0), (x, height)], fill=(40, 40, 90), width=max(2, width // 800))
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # Make
    exif[0x0110] = "Phone 15"  # Model
    if gps:
        exif[GPS] = {1: "N", 2: (19.0, 25.0, 57.0), 3: "W", 4: (99.0, 7.0, 59.0)}
    out = io.BytesIO()
    image.save(out, "JPEG", quality=92, exif=exif, comment=b"Hotel Reforma, hall B")
    return out.getvalue()


def text(response) -> str:
    """What a person reads on the page: its words, entities as their characters."""
    return html.unescape(tags_out(response))


def upload(data: bytes, name="sheet.jpg", content_type="image/jpeg"):
    return SimpleUploadedFile(name, data, content_type=content_type)


def photo_form(page) -> tuple[str, dict]:
    """The photo form of a page, as its browser posts it: its address and hidden fields."""
    html = page.content.decode()
    form = re.search(r'<form[^>]*id="sheet-photo-form".*?</form>', html, re.S)
    assert form, "the page has no photo form"
    action = re.search(r'action="([^"]+)"', form.group(0)).group(1)
    hidden = dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', form.group(0)))
    assert 'accept="image/*"' in form.group(0) and 'capture="environment"' in form.group(0)
    assert 'enctype="multipart/form-data"' in form.group(0)
    return action, hidden


def post_photo(client, page_url, data=None, **file):
    page = client.get(page_url)
    assert page.status_code == 200
    action, hidden = photo_form(page)
    photo = upload(data if data is not None else sheet_jpeg(), **file)
    return client.post(action, {**hidden, "photo": photo}, follow=True)


def table_url(table) -> str:
    return f"/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}/"


def image_srcs(response) -> list[str]:
    return re.findall(r'<img[^>]*src="([^"]*photos/\d+\.jpg)"', response.content.decode())


def stored_files(media) -> list[Path]:
    return [p for p in Path(media).rglob("*") if p.is_file()]


# -- who adds and who sees ----------------------------------------------------------------


def test_a_director_adds_a_photo_from_the_tables_page_and_sees_it_beside_the_grid(
    director_client, table, media
):
    done = post_photo(director_client, table_url(table))
    assert "Photo of the sheet added." in text(done)
    photo = SheetPhoto.objects.get()
    assert photo.table == table and photo.added_by.username == "boss"
    slug = table.stage.event.slug
    assert photo.image.name.startswith(f"sheets/{slug}/1/1/") and photo.image.name.endswith(".jpg")
    [src] = image_srcs(done)
    assert src == f"/director/e/{slug}/1/table/1/photos/{photo.pk}.jpg"
    served = director_client.get(src)
    assert served.status_code == 200 and served["Content-Type"] == "image/jpeg"
    assert "private" in served["Cache-Control"]
    assert b"".join(served.streaming_content) == photo.image.open("rb").read()
    # Beside the grid while correcting a round and while entering one.
    from tests.factories import play

    play(table, 1)
    correct = director_client.get(f"/director/e/{slug}/1/table/1/round/1/correct/")
    assert image_srcs(correct) == [src]
    enter = director_client.get(f"/director/e/{slug}/1/table/1/enter/")
    assert image_srcs(enter) == [src]
    assert [p.parent.relative_to(media).as_posix() for p in stored_files(media)] == [
        f"sheets/{slug}/1/1"
    ]


def test_the_tables_scorekeeper_adds_and_sees_one_another_tables_does_not(table, other_table):
    keeper = keeper_of(table)
    done = post_photo(keeper, table_url(table))
    assert "Photo of the sheet added." in text(done)
    [src] = image_srcs(done)
    assert keeper.get(src).status_code == 200
    assert "Remove this photo" not in text(done)  # a director removes a photo
    photo = SheetPhoto.objects.get()
    slug = table.stage.event.slug
    remove = keeper.post(
        f"/director/e/{slug}/1/table/1/photos/{photo.pk}/remove/", {"reason": "mine"}
    )
    assert remove.status_code == 403
    # The scorekeeper of table 2: no photos on table 1's page, none fetched, none added.
    stranger = keeper_of(other_table, "keeper2")
    assert image_srcs(stranger.get(table_url(table))) == []
    assert "sheet-photos" not in stranger.get(table_url(table)).content.decode()
    assert stranger.get(src).status_code == 404
    refused = stranger.post(
        f"/director/e/{slug}/1/table/1/photos/", {"photo": upload(sheet_jpeg(400, 300))}
    )
    assert refused.status_code == 403
    assert SheetPhoto.objects.count() == 1
    assert SheetPhoto.objects.get().removed_at is None


def test_a_tables_phone_adds_a_photo_and_only_that_tables_phones_see_it(table, other_table):
    mine = phone(table)
    done = post_photo(mine, f"/t/{table.code}/enter/")
    assert "Photo of the sheet added." in text(done)
    photo = SheetPhoto.objects.get()
    assert photo.added_by is None and photo.added_device
    [src] = image_srcs(done)
    assert src == f"/t/{table.code}/photos/{photo.pk}.jpg"
    assert mine.get(src).status_code == 200
    assert phone(table).get(src).status_code == 200  # the table's second phone
    entry = Action.objects.get(verb="table.photo_added")
    assert entry.data["table"] == 1 and entry.data["device"] == photo.added_device
    assert entry.data["phone"] == table.seats.order_by("position").first().player.name
    # Another table's phone: its own page shows none, and this photo is no address of its.
    theirs = phone(other_table)
    assert image_srcs(theirs.get(f"/t/{other_table.code}/enter/")) == []
    assert theirs.get(f"/t/{other_table.code}/photos/{photo.pk}.jpg").status_code == 404
    assert theirs.get(src).status_code == 404  # not opened with table 1's code
    slug = table.stage.event.slug
    assert theirs.get(f"/director/e/{slug}/1/table/1/photos/{photo.pk}.jpg").status_code == 404


def test_a_public_visitor_never_sees_nor_fetches_a_photo(director_client, table):
    post_photo(director_client, table_url(table))
    photo = SheetPhoto.objects.get()
    visitor = Client()
    page = visitor.get(table_url(table))
    assert page.status_code == 200
    assert "sheet-photos" not in page.content.decode() and image_srcs(page) == []
    slug = table.stage.event.slug
    assert visitor.get(f"/director/e/{slug}/1/table/1/photos/{photo.pk}.jpg").status_code == 404
    assert visitor.get(f"/t/{table.code}/photos/{photo.pk}.jpg").status_code == 404
    for page in (f"/e/{slug}/", f"/e/{slug}/1/", f"/e/{slug}/results/", f"/e/{slug}/bracket/"):
        assert "photos/" not in visitor.get(page).content.decode(), page
    # Nothing uploaded has a public address: no media URL is served.
    assert visitor.get(f"/media/{photo.image.name}").status_code == 404
    # A visitor cannot add one either (the form asks for a log-in; the phone's for its code).
    visitor.post(f"/director/e/{slug}/1/table/1/photos/", {"photo": upload(sheet_jpeg(400, 300))})
    visitor.post(f"/t/{table.code}/photos/", {"photo": upload(sheet_jpeg(400, 300))})
    assert SheetPhoto.objects.count() == 1


# -- what is stored ------------------------------------------------------------------------


def test_exif_and_every_other_metadata_are_gone_after_upload(director_client, table):
    original = sheet_jpeg()
    with Image.open(io.BytesIO(original)) as sent:
        assert sent.getexif().get_ifd(GPS)  # the test's photo does carry a GPS position
    post_photo(director_client, table_url(table), original)
    stored = SheetPhoto.objects.get().image.open("rb").read()
    with Image.open(io.BytesIO(stored)) as image:
        assert image.format == "JPEG"
        assert not image.getexif()
        assert "exif" not in image.info and "comment" not in image.info
        assert "icc_profile" not in image.info
    assert b"Exif" not in stored and b"PhoneMaker" not in stored and b"Reforma" not in stored


def test_a_large_photo_is_resized_to_its_bound_and_a_few_hundred_kb(director_client, table):
    post_photo(director_client, table_url(table), sheet_jpeg(4032, 3024))
    photo = SheetPhoto.objects.get()
    with Image.open(photo.image.open("rb")) as image:
        assert max(image.size) == LONGEST_SIDE == 1600
        assert image.size == (1600, 1200) == (photo.width, photo.height)
    assert photo.image.size < 400 * 1024
    # A small one keeps its size (never enlarged); a portrait one keeps its orientation.
    post_photo(director_client, table_url(table), sheet_jpeg(900, 1200))
    assert SheetPhoto.objects.last().width == 900 and SheetPhoto.objects.last().height == 1200


def test_a_photo_turned_by_its_exif_orientation_is_stored_upright(director_client, table):
    image = Image.new("RGB", (800, 600), "white")
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: the camera was held upright, turned 90°
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif)
    post_photo(director_client, table_url(table), out.getvalue())
    photo = SheetPhoto.objects.get()
    assert (photo.width, photo.height) == (600, 800)


def test_a_png_with_transparency_is_stored_as_a_jpeg(director_client, table):
    out = io.BytesIO()
    Image.new("RGBA", (300, 200), (0, 0, 0, 0)).save(out, "PNG")
    done = post_photo(director_client, table_url(table), out.getvalue(), name="sheet.png")
    assert "Photo of the sheet added." in text(done)
    with Image.open(SheetPhoto.objects.get().image.open("rb")) as image:
        assert image.format == "JPEG" and image.getpixel((10, 10)) == (255, 255, 255)


# -- refused -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, name",
    [
        (b"%PDF-1.7\n1 0 obj << >> endobj\n", "sheet.pdf"),
        (b"GIF89a this is no image at all", "sheet.jpg"),
        (b"\x89PNG\r\n\x1a\n but no more of a PNG", "sheet.png"),  # a child reads it: no image
        (bytes(range(256)) * 40, "IMG_0001.JPG"),  # named and sent as a photo, but noise
    ],
)
def test_what_is_not_a_photo_is_refused_with_its_message_and_nothing_stored(
    director_client, table, media, data, name
):
    refused = post_photo(director_client, table_url(table), data, name=name)
    said = "This file is not a photo (JPEG, PNG or WebP): choose a photo of the sheet."
    assert said in text(refused)
    # At the photo's field, which says it is wrong, as a screen reader reads it.
    field = re.search(r'<input[^>]*name="photo"[^>]*>', refused.content.decode()).group(0)
    assert 'aria-invalid="true"' in field and "sheet-photo-error" in field
    error = re.search(r'id="sheet-photo-error"[^>]*>([^<]*)<', refused.content.decode())
    assert html.unescape(error.group(1)) == said
    assert not SheetPhoto.objects.exists() and stored_files(media) == []
    assert not Action.objects.filter(verb="table.photo_added").exists()


def test_a_phone_sending_no_image_is_refused_on_its_page(table, media):
    mine = phone(table)
    refused = post_photo(mine, f"/t/{table.code}/enter/", b"hello", name="notes.txt")
    assert refused.status_code == 200
    assert "This file is not a photo" in text(refused)
    page = mine.get(f"/t/{table.code}/enter/")
    _action, hidden = photo_form(page)
    empty = mine.post(f"/t/{table.code}/photos/", hidden, follow=True)
    assert "Take or choose a photo of the sheet." in text(empty)
    assert not SheetPhoto.objects.exists() and stored_files(media) == []


def test_a_file_too_large_is_refused_before_it_is_decoded(director_client, table, media):
    too_large = b"\xff\xd8" + b"\0" * MAX_UPLOAD_BYTES
    refused = post_photo(director_client, table_url(table), too_large)
    assert "The photo is too large (more than 15 MB)" in text(refused)
    assert not SheetPhoto.objects.exists() and stored_files(media) == []


# -- removal and history -------------------------------------------------------------------


def test_a_director_removes_a_photo_with_a_reason_written_in_the_history(
    director_client, table, media, django_capture_on_commit_callbacks
):
    keeper = keeper_of(table)
    post_photo(keeper, table_url(table))
    photo = SheetPhoto.objects.get()
    slug = table.stage.event.slug
    page = director_client.get(table_url(table))
    form = re.search(r'<form[^>]*action="([^"]+/remove/)".*?</form>', page.content.decode(), re.S)
    action = form.group(1)
    assert action == f"/director/e/{slug}/1/table/1/photos/{photo.pk}/remove/"
    nxt = re.search(r'name="next" value="([^"]*)"', form.group(0)).group(1)
    # No reason: refused, the photo kept.
    refused = director_client.post(action, {"reason": "  ", "next": nxt}, follow=True)
    assert "Say why the photo is removed (it is written in the history)." in text(refused)
    assert SheetPhoto.objects.get().removed_at is None
    src = f"/director/e/{slug}/1/table/1/photos/{photo.pk}.jpg"
    assert keeper.get(src).status_code == 200
    # With a reason: removed (its file deleted, its row kept), twice removes once.
    reason = "photo of table 2's sheet"
    with django_capture_on_commit_callbacks(execute=True):  # its file deleted once committed
        done = director_client.post(action, {"reason": reason, "next": nxt}, follow=True)
        director_client.post(action, {"reason": reason, "next": nxt})
    assert "Photo removed." in text(done)
    assert f"by boss: {reason}" in text(done)  # the removed photos' list on the table page
    photo.refresh_from_db()
    assert photo.removed_at and photo.removed_by.username == "boss" and not photo.image
    assert photo.removed_reason == reason
    assert stored_files(media) == []
    assert keeper.get(src).status_code == 404 and director_client.get(src).status_code == 404
    assert image_srcs(keeper.get(table_url(table))) == []
    [entry] = Action.objects.filter(verb="table.photo_removed")
    assert entry.reason == reason and entry.by.username == "boss" and entry.data["table"] == 1
    history = text(director_client.get(f"/director/e/{slug}/history/"))
    assert "Game 1, table 1: photo of the sheet added" in history
    assert "Game 1, table 1: photo of the sheet removed" in history
    assert reason in history


def test_a_double_submit_stores_one_photo(director_client, table, media):
    page = director_client.get(table_url(table))
    action, hidden = photo_form(page)
    data = sheet_jpeg(800, 600)
    for _ in range(3):
        director_client.post(action, {**hidden, "photo": upload(data)})
    assert SheetPhoto.objects.count() == 1
    assert Action.objects.filter(verb="table.photo_added").count() == 1
    assert len(stored_files(media)) == 1


# -- backed up with the event's folder -----------------------------------------------------


def test_a_photo_is_copied_into_the_events_backup_folder_and_removed_from_it(
    director_client, table, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.BACKUP_DIR = str(tmp_path / "backups")
    settings.BACKUPS_ON = True
    (tmp_path / "backups").mkdir()
    with django_capture_on_commit_callbacks(execute=True):
        post_photo(director_client, table_url(table))
    photo = SheetPhoto.objects.get()
    slug = table.stage.event.slug
    copy = tmp_path / "backups" / slug / "sheets" / "1" / "1" / Path(photo.image.name).name
    assert copy.read_bytes() == photo.image.open("rb").read()
    with django_capture_on_commit_callbacks(execute=True):
        director_client.post(
            f"/director/e/{slug}/1/table/1/photos/{photo.pk}/remove/", {"reason": "a face"}
        )
    assert not copy.exists()


# -- at once, on both databases ------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_same_form_posted_from_two_threads_at_once_stores_one_photo(director, media):
    from tests.concurrency import logged_in
    from tests.factories import make_event, make_players, seat

    event = make_event(director, table_entry=True)
    make_players(event, count=8)
    stage = seat(event)
    table = Table.objects.select_related("stage__event").get(stage=stage, number=1)
    clients = [logged_in(director) for _ in range(3)]
    action, hidden = photo_form(clients[0].get(table_url(table)))
    data = sheet_jpeg(800, 600)
    results = at_once(
        [lambda c=c: c.post(action, {**hidden, "photo": upload(data)}) for c in clients]
    )
    no_errors(results)
    assert all(r.status_code == 302 for r in results)
    assert SheetPhoto.objects.count() == 1
    assert Action.objects.filter(verb="table.photo_added").count() == 1
    assert len(stored_files(media)) == 1


# -- a fixed number of queries -------------------------------------------------------------


def count_queries(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


@pytest.mark.parametrize("page", ["table", "phone"])
def test_the_tables_pages_use_a_fixed_number_of_queries_whatever_the_photos(
    director_client, director, table, other_table, page
):
    for t, many in ((table, 2), (other_table, 12)):
        for n in range(many):
            photo = add_photo(t, io.BytesIO(sheet_jpeg(80, 60, gps=False)), user=director)
            if n % 2:
                remove_photo(photo, director, "taken twice")
    if page == "table":
        urls = [table_url(table), table_url(other_table)]
        client_of = {table_url(table): director_client, table_url(other_table): director_client}
    else:
        urls = [f"/t/{table.code}/enter/", f"/t/{other_table.code}/enter/"]
        client_of = dict(zip(urls, [phone(table), phone(other_table)], strict=True))
    few, many = (count_queries(client_of[url], url) for url in urls)
    assert few == many
    shown = client_of[urls[1]].get(urls[1])
    assert len(image_srcs(shown)) == 6


def test_deleting_the_event_deletes_its_photos_files_and_keeps_their_backup_copies(
    director_client, table, media, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.BACKUP_DIR = str(tmp_path / "backups")
    settings.BACKUPS_ON = True
    (tmp_path / "backups").mkdir()
    with django_capture_on_commit_callbacks(execute=True):
        post_photo(director_client, table_url(table))
        post_photo(director_client, f"/director/e/{table.stage.event.slug}/1/table/2/enter/")
    assert len(stored_files(media)) == 2
    copies = list((tmp_path / "backups").rglob("*.jpg"))
    assert len(copies) == 2
    slug = table.stage.event.slug
    with django_capture_on_commit_callbacks(execute=True):
        done = director_client.post(f"/director/e/{slug}/delete/", {"slug": slug}, follow=True)
    assert "Spring Games is deleted." in text(done)
    assert not SheetPhoto.objects.exists()
    assert stored_files(media) == []
    assert all(copy.exists() for copy in copies)  # the backup folder keeps what it had


def test_a_table_keeps_at_most_twelve_photos(director, director_client, table, media):
    for _n in range(MAX_PHOTOS):
        photo = add_photo(table, io.BytesIO(sheet_jpeg(80, 60, gps=False)), user=director)
    refused = post_photo(director_client, table_url(table), sheet_jpeg(80, 60))
    assert (
        "This table has 12 photos of its sheet already: a director removes one before another "
        "is added." in text(refused)
    )
    assert SheetPhoto.objects.count() == MAX_PHOTOS == len(stored_files(media))
    remove_photo(photo, director, "taken twice")
    done = post_photo(director_client, table_url(table), sheet_jpeg(80, 60))
    assert "Photo of the sheet added." in text(done)


@pytest.mark.parametrize("mode", ["CMYK", "L", "P"])
def test_a_print_shops_cmyk_a_grey_and_a_palette_image_are_stored_as_jpegs(
    director_client, table, mode
):
    out = io.BytesIO()
    Image.new("RGB", (2000, 1000), (250, 250, 250)).convert(mode).save(
        out, "JPEG" if mode != "P" else "PNG"
    )
    done = post_photo(director_client, table_url(table), out.getvalue())
    assert "Photo of the sheet added." in text(done)
    with Image.open(SheetPhoto.objects.get().image.open("rb")) as image:
        assert image.format == "JPEG" and image.mode in ("RGB", "L")
        assert image.size == (1600, 800)
