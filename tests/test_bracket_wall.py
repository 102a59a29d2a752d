"""A bracket you can post on a wall (issue 12 item 6): up to 100 players on one landscape page
at 9 pt or more, every name in one piece; larger events show who goes on with the tables in an
appendix; ?paper=large prints on Tabloid or A3."""

import io

import pdfplumber
import pytest
from pypdf import PdfReader

from tests.factories import make_event, make_players, seat
from tests.test_advancement import advance_url, play_totals
from tournament.models import Table

pytestmark = pytest.mark.django_db

FIRST = ["Ann", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"]
SURNAMES = [
    "Okafor",
    "Lindqvist",
    "Nakamura",
    "Fitzgerald",
    "Castellanos",
    "Moreau",
    "Silva",
    "Kowalski",
    "Haddad",
    "Brennan",
]


def hundred_players(director, director_client, slug, paper_size="letter"):
    event = make_event(
        director, slug=slug, engines=[1, 0], game_minutes=None, paper_size=paper_size
    )
    names = [f"{first} {last}" for first in FIRST for last in SURNAMES]
    make_players(event, names=names)
    game1 = seat(event)
    for t in Table.objects.filter(stage=game1):
        play_totals(t, [3, 10, 20, 30])
    director_client.post(advance_url(game1), {"action": "close"})  # the semifinal is seated
    return event, names


def test_a_hundred_player_bracket_is_one_page_at_nine_points_with_whole_names(
    director, director_client, client
):
    event, names = hundred_players(director, director_client, "wall")
    pdf = client.get(f"/e/{event.slug}/bracket.pdf").content
    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == 1
    assert (reader.pages[0].mediabox.width, reader.pages[0].mediabox.height) == (792, 612)
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        page = doc.pages[0]
        # the bracket itself, not the 7 pt page footer (event name, page number)
        chars = [c for c in page.chars if c["text"].strip() and c["top"] < page.height - 36]
        sizes = {round(c["size"], 1) for c in chars}
        body = [c["size"] for c in chars]
        lines = page.extract_text().splitlines()
    assert min(sizes) >= 9 * 0.8 - 0.01  # the smallest marks are 0.8 em of at least 9 pt
    assert sorted(body)[len(body) // 2] >= 9  # the names and totals: 9 pt or more
    for name in names:
        assert any(name in line for line in lines), name  # in one piece, never wrapped


def test_large_paper_is_tabloid_or_a3(director, director_client, client):
    event, _names = hundred_players(director, director_client, "tabloid")
    large = PdfReader(io.BytesIO(client.get(f"/e/{event.slug}/bracket.pdf?paper=large").content))
    box = large.pages[0].mediabox
    assert (round(box.width), round(box.height)) == (1224, 792)  # Tabloid (ledger), landscape
    event.paper_size = "a4"
    event.save()
    a3 = PdfReader(io.BytesIO(client.get(f"/e/{event.slug}/bracket.pdf?paper=large").content))
    box = a3.pages[0].mediabox
    assert (round(box.width), round(box.height)) == (1191, 842)  # A3, landscape
