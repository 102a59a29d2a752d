"""A photo of the paper sheet in a real browser (issue 33 item 1): a table's phone takes one
(the file input opens its camera; a tiny PNG of 88 million pixels is refused at the field), the
second phone of the table sees it beside its entry, the
director sees it on the table's page and removes it with a reason; a visitor's table page shows
none. Every page opened is checked by axe (conftest.py) at the phone's and the desk's size."""

import io

import pytest
from PIL import Image
from playwright.sync_api import expect

from scoring.models import SheetPhoto
from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat
from tournament.models import Action, Event

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"


@pytest.fixture
def site(browser, live_server, transactional_db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    Event.objects.filter(pk=event.pk).update(table_entry=True)
    make_players(event, count=8)
    stage = seat(event)
    return {"url": live_server.url, "table": stage.tables.get(number=1)}


def camera_jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (2400, 1800), (240, 238, 230)).save(out, "JPEG", quality=90)
    return out.getvalue()


def png_bomb() -> bytes:
    from tests.test_photo_bombs import bomb

    return bomb("9400² RGB PNG")


def test_a_phone_photographs_the_sheet_the_director_sees_and_removes_it(site, pages):
    table = site["table"]
    first, second = [s.player for s in table.seats.order_by("position")][:2]
    phone = pages(**b.PHONE)
    phone.goto(f"{site['url']}/t/{table.code}/")
    phone.get_by_role("button", name=first.name, exact=True).click()
    field = phone.get_by_label("Photo of the filled sheet")
    expect(field).to_have_attribute("capture", "environment")
    expect(field).to_have_attribute("accept", "image/*")
    # A tiny PNG of 9400 × 9400 pixels (issue 46): refused, its reason at the field.
    field.set_input_files({"name": "sheet.png", "mimeType": "image/png", "buffer": png_bomb()})
    phone.get_by_role("button", name="Add the photo").click()
    expect(phone.locator("#sheet-photo-error")).to_contain_text(
        "The photo has too many pixels (more than 12 million)"
    )
    expect(field).to_have_attribute("aria-invalid", "true")
    assert SheetPhoto.objects.count() == 0
    field.set_input_files(
        {"name": "IMG_2041.jpg", "mimeType": "image/jpeg", "buffer": camera_jpeg()}
    )
    phone.get_by_role("button", name="Add the photo").click()
    expect(phone.get_by_text("Photo of the sheet added.")).to_be_visible()
    shown = phone.locator("#sheet-photo-list img")
    expect(shown).to_have_count(1)
    shown.scroll_into_view_if_needed()  # loaded lazily: once on the screen
    phone.wait_for_function(
        "() => { const i = document.querySelector('#sheet-photo-list img');"
        " return i.complete && i.naturalWidth > 0; }"
    )
    assert phone.evaluate("document.querySelector('#sheet-photo-list img').naturalWidth") == 1600
    assert SheetPhoto.objects.count() == 1

    other = pages(**b.PHONE)  # the table's second phone sees it too
    other.goto(f"{site['url']}/t/{table.code}/")
    other.get_by_role("button", name=second.name, exact=True).click()
    expect(other.locator("#sheet-photo-list img")).to_have_count(1)

    visitor = pages()
    visitor.goto(f"{site['url']}/e/spring/1/table/1/")
    expect(visitor.locator("#sheet-photos")).to_have_count(0)

    director = pages(viewport={"width": 320, "height": 640})  # the narrowest screen
    director.goto(f"{site['url']}/accounts/login/?next=/e/spring/1/table/1/")
    b.log_in(director, "desk", PASSWORD)
    expect(director.locator("#sheet-photo-list img")).to_have_count(1)
    director.get_by_text("Remove this photo").click()
    director.get_by_label("Why remove it").fill("a player's face, not the sheet")
    director.get_by_role("button", name="Remove the photo").click()
    expect(director.get_by_text("Photo removed.")).to_be_visible()
    expect(director.locator("#sheet-photo-list img")).to_have_count(0)
    expect(director.locator("#removed-sheet-photos")).to_contain_text(
        "by desk: a player's face, not the sheet"
    )
    assert Action.objects.get(verb="table.photo_removed").reason == "a player's face, not the sheet"
    other.reload()
    expect(other.locator("#sheet-photo-list img")).to_have_count(0)
