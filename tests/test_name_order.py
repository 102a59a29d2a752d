"""Names as people type and read them (issue 28, item 4): a search ignores case, accents,
apostrophes of every kind, hyphens, periods and spaces ("obrien" and "O’Brien" find O'Brien),
and every A-to-Z list puts "Émile" among the E's, not after "Zoë": the desk, Find my table,
the seating page, the sign-in PDF and the standings CSV, on SQLite and PostgreSQL alike."""

import csv
import io
import re

import pdfplumber
import pytest

from tests.factories import make_players, seat
from tournament.models import Player
from tournament.text import name_key, name_sort_key

pytestmark = pytest.mark.django_db

# As registered, in no order; and A to Z as a person reads it.
NAMES = ["Zoë Ångström", "Olive O'Brien", "Émile Durand", "Fred Oak", "Eve Adams", "Ann Lee"]
NAMES += ["Ole Olsen", "José Núñez"]
A_TO_Z = [
    "Ann Lee",
    "Émile Durand",
    "Eve Adams",
    "Fred Oak",
    "José Núñez",
    "Ole Olsen",
    "Olive O'Brien",
    "Zoë Ångström",
]


@pytest.mark.parametrize(
    "typed",
    ["obrien", "o brien", "O'Brien", "O’Brien", "O‘Brien", "OʼBrien", "o.brien", "O-Brien"],
)
def test_apostrophes_hyphens_periods_and_spaces_do_not_count(typed):
    assert name_key(typed) == name_key("Olive O'Brien")[5:] == "obrien"


def test_the_sort_key_folds_accents_and_case_and_keeps_the_name_as_tie_break():
    assert sorted(NAMES, key=name_sort_key) == A_TO_Z
    assert sorted(["o'brien", "OBrien", "O'Brien"], key=name_sort_key) == [
        "O'Brien",
        "OBrien",
        "o'brien",
    ]


@pytest.mark.parametrize(
    ("typed", "found"),
    [
        ("obrien", "Olive O'Brien"),
        ("o brien", "Olive O'Brien"),
        ("O'Brien", "Olive O'Brien"),
        ("O’Brien", "Olive O'Brien"),  # the curly apostrophe a phone types
        ("olive o.brien", "Olive O'Brien"),
        ("jose", "José Núñez"),
        ("jose-nunez", "José Núñez"),
    ],
)
def test_the_desk_and_find_my_table_ignore_punctuation(
    client, director_client, event, typed, found
):
    make_players(event, NAMES)
    page = client.get(f"/e/{event.slug}/find/", {"q": typed}).content.decode()
    assert re.findall(r"<strong>([^<]+)</strong>", page) == [found.replace("'", "&#x27;")]
    desk = director_client.get(f"/director/e/{event.slug}/desk/", {"q": typed}).content.decode()
    assert re.findall(r'<a href="[^"]*/players/\d+/">([^<]+)</a>', desk) == [
        found.replace("'", "&#x27;")
    ]


def test_a_renamed_player_is_found_and_sorted_by_the_new_name(event):
    (player,) = make_players(event, ["Ann Lee"])
    player.name = "Seán O’Neill"
    player.save()
    assert list(event.players.matching("oneill")) == [player]
    assert Player.objects.get(pk=player.pk).search_key == "seanoneill"


def unescaped(names: list[str]) -> list[str]:
    return [n.replace("&#x27;", "'") for n in names]


def test_the_desk_lists_players_a_to_z(director_client, event):
    make_players(event, NAMES, checked_in=False)
    desk = director_client.get(f"/director/e/{event.slug}/desk/").content.decode()
    names = re.findall(r'<a href="[^"]*/players/\d+/">([^<]+)</a>', desk)
    assert unescaped(names) == A_TO_Z


def test_the_seating_pages_a_to_z_list_puts_emile_among_the_es(client, event):
    make_players(event, NAMES)
    seat(event)
    page = client.get(f"/e/{event.slug}/1/seating/").content.decode()
    section = re.search(r'id="alphabetical">(.*?)</table>', page, re.S).group(1)
    names = re.findall(r"<tr><td>([^<]+)</td>", section)
    assert unescaped(names) == A_TO_Z


def test_the_sign_in_sheet_lists_players_a_to_z(director_client, event):
    make_players(event, NAMES, checked_in=False)
    pdf = director_client.get(f"/director/e/{event.slug}/sign-in.pdf").content
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        text = " ".join(page.extract_text() for page in document.pages)
    text = " ".join(text.split()).replace("’", "'")
    positions = [text.index(name) for name in A_TO_Z]
    assert positions == sorted(positions)


def test_the_standings_csv_lists_unplaced_players_a_to_z(director_client, event):
    make_players(event, NAMES)
    stage = seat(event)
    response = director_client.get(f"/e/{event.slug}/{stage.number}/standings/export/?_export=csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    column = rows[0].index("Player")
    assert [row[column] for row in rows[1:]] == A_TO_Z
