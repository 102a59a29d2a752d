"""Tables of 10 and 12 (issue 30 item 3: two double-9 sets mixed seat 10, double-15 seats 12
where the tiles drawn allow): the filled score sheet is one page with every player's name and
total whole on one line, and the director's entry page takes a round of twelve."""

import io

import pdfplumber
import pytest

from scoring.sheets import table_sheet
from tests.factories import make_event, make_players, play, seat
from tests.test_printing import pdf_of, url
from tests.test_score_entry import entry_url
from tournament.models import Table

pytestmark = pytest.mark.django_db

NAMES = [
    "Bernadette Okonkwo-Williams",
    "Agnes Whitmore",
    "Consuelo Vega",
    "Doris Fairbanks",
    "Elmer Lindqvist",
    "Florence Abernathy",
    "Gus Papadopoulos",
    "Hattie Moreau",
    "Ike Tanaka",
    "Jolene Briggs",
    "Karl Brandt",
    "Lorraine Dubé",
]


def big_table(director, size: int, **rules):
    event = make_event(director, game_minutes=None, table_size=size, **rules)
    make_players(event, NAMES[:size])
    stage = seat(event)
    table = Table.objects.get(stage=stage)
    assert table.seats.count() == size
    return table


@pytest.mark.parametrize(
    ("size", "rules"),
    [
        (
            10,
            {
                "set_size": 9,
                "sets": 2,
                "engines": [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
                "tiles_drawn": {"10": 10},
            },
        ),
        (12, {"set_size": 15, "engines": list(range(15, -1, -1)), "tiles_drawn": {"12": 9}}),
    ],
    ids=["two-double-9-sets-at-10", "double-15-at-12"],
)
def test_a_big_tables_filled_sheet_is_one_page_with_every_total_whole(
    client, director, size, rules
):
    table = big_table(director, size, **rules)
    play(table, len(rules["engines"]), director)
    totals = table_sheet(table).totals
    response = client.get(url(table.stage, f"table/{table.number}/sheet.pdf"))
    with pdfplumber.open(io.BytesIO(pdf_of(response))) as pdf:
        assert len(pdf.pages) == 1
        words = pdf.pages[0].extract_words()
        text = pdf.pages[0].extract_text()
    for player in table_sheet(table).players:
        assert str(totals[player.pk]) in {w["text"] for w in words}
        first = player.name.split()[0]
        assert first in text
    # Each total sits on one line: no number of the totals row is cut in two.
    shown = [w["text"] for w in words]
    assert all(str(t) in shown for t in totals.values())


def test_the_entry_page_takes_a_round_of_twelve(director_client, director):
    table = big_table(
        director, 12, set_size=15, engines=list(range(15, -1, -1)), tiles_drawn={"12": 9}
    )
    players = table_sheet(table).players
    values = [0] + [5 * i for i in range(1, 12)]
    response = director_client.post(
        entry_url(table), {f"p{p.pk}": v for p, v in zip(players, values, strict=True)}
    )
    assert response.status_code == 302
    assert table_sheet(table).totals == {p.pk: v for p, v in zip(players, values, strict=True)}
