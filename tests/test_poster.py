"""The join poster and the big clock's QR code (issue 20): phones on the hall's Wi-Fi find the
site by a poster on the wall, read back here as a phone's camera would."""

import io
import re
from unittest import mock

import pypdfium2
import pytest
import zxingcpp
from django.utils.html import escape
from pypdf import PdfReader

from scoring.printing import qr_data_uri
from tests.concurrency import hidden_fields
from tests.factories import make_players, seat

pytestmark = pytest.mark.django_db

ON_THE_HALLS_WIFI = ["192.168.1.20"]


@pytest.fixture
def hall(settings):
    """The site as `make hall` serves it, on a laptop at 192.168.1.20."""
    settings.HALL, settings.HALL_BIND = True, "0.0.0.0:8000"
    with mock.patch("tournament.hall.lan_addresses", return_value=ON_THE_HALLS_WIFI):
        yield


def codes(pdf: bytes) -> list[str]:
    """The QR codes a camera reads on the PDF's first page."""
    page = pypdfium2.PdfDocument(pdf)[0]
    image = page.render(scale=4).to_pil()
    return sorted(code.text for code in zxingcpp.read_barcodes(image))


def poster(client, slug="spring", **fields):
    page = client.get(f"/director/e/{slug}/poster/")
    data = {k: v for k, v in hidden_fields(page).items()}
    data.update(fields)
    return page, client.post(f"/director/e/{slug}/poster/", data)


def test_the_poster_shows_the_wifi_and_the_sites_address_with_a_readable_qr_code(
    hall, director_client, event
):
    page, answer = poster(
        director_client,
        wifi_name="Community Hall",
        wifi_password="dominoes;2026",
        address="http://192.168.1.20:8000/",
    )
    assert re.search(r'<option value="http://192.168.1.20:8000/"\s+selected', page.content.decode())
    assert answer["Content-Type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(answer.content))
    assert len(reader.pages) == 1
    text = " ".join(reader.pages[0].extract_text().split())
    for shown in ("Spring Games", "Find your table", "Community Hall", "dominoes;2026"):
        assert shown in text
    assert "http://192.168.1.20:8000/e/spring/" in "".join(text.split())  # wrapped anywhere
    assert codes(answer.content) == [
        "WIFI:T:WPA;S:Community Hall;P:dominoes\\;2026;;",
        "http://192.168.1.20:8000/e/spring/",
    ]


def test_an_open_network_and_an_a4_event(hall, director_client, event):
    event.paper_size = "a4"
    event.save()
    _, answer = poster(director_client, wifi_name="Hall", address="http://192.168.1.20:8000/")
    page = PdfReader(io.BytesIO(answer.content)).pages[0]
    assert round(float(page.mediabox.width)) == 595  # A4: 210 mm
    assert "none (open network)" in " ".join(page.extract_text().split())
    assert "WIFI:T:nopass;S:Hall;;" in codes(answer.content)


def test_an_address_not_offered_is_refused_and_no_pdf_is_made(hall, director_client, event):
    _, answer = poster(director_client, wifi_name="Hall", address="http://evil.example/")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/html")
    assert "Select a valid choice" in answer.content.decode()
    _, answer = poster(director_client, wifi_name="", address="http://192.168.1.20:8000/")
    assert "This field is required" in answer.content.decode()


def test_a_site_served_to_this_computer_only_says_so(director_client, event):
    page = director_client.get("/director/e/spring/poster/", HTTP_HOST="127.0.0.1:8000")
    page = page.content.decode()
    assert "phones cannot reach it" in page and "make hall" in page


def test_a_hall_laptop_without_a_network_says_to_join_the_wifi(director_client, event, settings):
    settings.HALL, settings.HALL_BIND = True, "0.0.0.0:8000"
    with mock.patch("tournament.hall.lan_addresses", return_value=[]):
        page = director_client.get("/director/e/spring/poster/", HTTP_HOST="127.0.0.1:8000")
    assert "The laptop has no address on a network" in page.content.decode()


def test_only_the_events_directors_make_its_poster(client, event, django_user_model):
    other = django_user_model.objects.create_user("someone", password="x-Long-pass-99")
    client.force_login(other)
    assert client.get("/director/e/spring/poster/").status_code == 403


def test_the_big_clock_shows_the_same_qr_code_in_a_corner(hall, client, event):
    make_players(event, count=8)
    seat(event)
    page = client.get("/e/spring/1/clock/").content.decode()
    assert escape(qr_data_uri("http://192.168.1.20:8000/e/spring/")) in page
    assert 'class="big-join"' in page
