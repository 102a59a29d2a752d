"""Text size and contrast (issue 51 item 5): three sizes and a high-contrast choice on every
page, kept in cookies on the reader's device; the page's <html> carries them, the page's ETag
follows them (a phone that changes its size is not answered a 304 of the other size), and the
layout reflows at 320 px at the largest size (tests/test_browser_a11y.py opens every page so).
Through the form the pages carry (the test client, then a phone's browser)."""

import re

import pytest
from django.test import Client

from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat

PASSWORD = "a-Long-pass-phrase-42"


def html_classes(page: bytes) -> set[str]:
    found = re.search(rb'<html lang="[a-z-]+"( class="([^"]*)")?>', page)
    return set((found.group(2) or b"").decode().split())


@pytest.fixture
def table(db):
    director = make_director("boss", password=PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    make_players(event, count=8)
    return seat(event).tables.get(number=1)


def test_the_choice_is_kept_in_cookies_and_shown_on_every_page(table):
    client = Client()
    assert html_classes(client.get("/e/spring/1/table/1/").content) == set()
    answer = client.post("/display/", {"size": "largest", "next": "/e/spring/1/table/1/"})
    assert (answer.status_code, answer["Location"]) == (302, "/e/spring/1/table/1/")
    assert answer.cookies["text_size"].value == "largest"
    assert answer.cookies["text_size"]["max-age"] == 365 * 24 * 3600
    assert "contrast" not in answer.cookies  # only what was asked changes
    client.post("/display/", {"contrast": "high", "next": "/"})
    for path in ["/", "/e/spring/", "/e/spring/1/table/1/", "/e/spring/1/clock/"]:
        assert html_classes(client.get(path).content) == {"text-largest", "contrast-high"}, path
    client.post("/display/", {"contrast": "standard", "size": "large", "next": "/"})
    assert html_classes(client.get("/e/spring/").content) == {"text-large"}


def test_every_page_carries_the_switch_with_the_current_choice_pressed(table):
    client = Client()
    client.cookies["text_size"] = "large"
    for path in ["/", "/e/spring/1/table/1/", "/e/spring/1/clock/", "/e/spring/1/screen/"]:
        page = client.get(path).content.decode()
        switch = page.split('class="display-switch', 1)[1].split("</form>", 1)[0]
        pressed = re.findall(r'value="(\w+)"[^>]*aria-pressed="true"', switch)
        assert pressed == ["large"], path
        assert 'name="next" value="' + path in switch


@pytest.mark.parametrize(
    ("posted", "location"),
    [
        ({"size": "huge", "contrast": "neon", "next": "/e/spring/"}, "/e/spring/"),
        ({"size": "large", "next": "https://elsewhere.example/"}, "/"),
        ({"size": "large", "next": "//elsewhere.example/"}, "/"),
        ({"size": "large"}, "/"),
    ],
)
def test_a_choice_or_a_page_the_site_does_not_know_changes_nothing_else(table, posted, location):
    answer = Client().post("/display/", posted)
    assert (answer.status_code, answer["Location"]) == (302, location)
    assert answer.cookies.get("contrast") is None
    if posted.get("size") == "huge":
        assert answer.cookies.get("text_size") is None


def test_a_cookie_the_site_did_not_write_reads_as_standard(table):
    client = Client()
    client.cookies["text_size"], client.cookies["contrast"] = "<script>", "x"
    page = client.get("/e/spring/").content
    assert html_classes(page) == set()
    assert b"<script>" not in page.split(b"<head>")[0]


def test_a_page_kept_by_a_phone_is_sent_again_when_its_size_changed(table):
    client = Client()
    first = client.get("/e/spring/1/")
    etag = first["ETag"]
    assert client.get("/e/spring/1/", headers={"if-none-match": etag}).status_code == 304
    client.cookies["text_size"] = "largest"
    again = client.get("/e/spring/1/", headers={"if-none-match": etag})
    assert again.status_code == 200
    assert "text-largest" in html_classes(again.content)


def test_the_switch_needs_the_pages_form_token():
    client = Client(enforce_csrf_checks=True)
    assert client.post("/display/", {"size": "large"}).status_code == 403


@pytest.mark.browser
def test_a_phone_makes_its_text_larger_and_high_contrast_from_the_table_page(
    table, live_server, pages
):
    page = pages(viewport={"width": 320, "height": 640})
    page.goto(live_server.url + "/e/spring/1/table/1/")
    base = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
    with page.expect_navigation():
        page.get_by_role("button", name="Largest text").click()
    b.settle([page])
    assert page.url == live_server.url + "/e/spring/1/table/1/"
    assert page.locator("html.text-largest").count() == 1
    size = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
    assert size == base * 1.5
    assert page.get_by_role("button", name="Largest text").get_attribute("aria-pressed") == "true"
    with page.expect_navigation():
        page.get_by_role("button", name="High contrast").click()
    b.settle([page])
    body = page.evaluate("getComputedStyle(document.body).color")
    assert (body, page.locator("html.text-largest.contrast-high").count()) == ("rgb(0, 0, 0)", 1)
    # The room's big clock, on the same phone: its words grow too (sized by the screen's height).
    page.goto(live_server.url + "/e/spring/1/clock/")
    b.settle([page])
    scale = page.evaluate(
        "getComputedStyle(document.documentElement).getPropertyValue('--text-scale')"
    )
    assert scale.strip() == "1.5"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(0, 0, 0)"
