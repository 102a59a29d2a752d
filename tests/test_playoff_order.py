"""Issue 28 item 18: a playoff's result orders the Final's standings. After Zoë wins the
bronze playoff against Thelma (both at 20), Zoë is third and listed above Thelma, fourth, on
the results page, the bracket and the results PDF; who gets a medal does not change."""

import io
import re

import pdfplumber
import pytest

from scoring.sheets import table_sheet
from tests.factories import make_players, seat
from tests.test_advancement import close, medals, play_totals, short_event
from tournament.models import Stage, StageKind

pytestmark = pytest.mark.django_db


@pytest.fixture
def final(director):
    event = short_event(director)
    make_players(event, ["Ann", "Bo", "Thelma", "Zoë", "Ed"])
    return seat(event, stage_number=2)


def bronze_playoff(director_client, final):
    """Ann and Bo tie for gold; Thelma and Zoë tie at 20: the bronze playoff is owed."""
    play_totals(final.tables.get(), dict(Ann=5, Bo=5, Thelma=20, Zoë=20, Ed=40))
    close(director_client, final)
    return Stage.objects.get(event=final.event, kind=StageKind.PLAYOFF)


def zoe_wins(director_client, playoff):
    """The director enters the playoff round on its page: Zoë 0, Thelma 12."""
    url = f"/director/e/{playoff.event.slug}/{playoff.number}/table/1/enter/"
    pips = {p.name: p.pk for p in table_sheet(playoff.tables.get()).players}
    director_client.post(url, {"engine": 12, f"p{pips['Zoë']}": 0, f"p{pips['Thelma']}": 12})


def final_results(client, event):
    """(place, player, medal) per row of the Final on the results page."""
    page = client.get(f"/e/{event.slug}/results/").content.decode()
    body = page.split('data-stage="2"', 1)[1].split("</tbody>", 1)[0]
    return [
        (cells[0], cells[1], cells[4])
        for cells in (
            [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body)
        )
        if cells
    ]


def test_the_results_list_the_bronze_playoff_winner_third_above_the_player_she_beat(
    client, director_client, final
):
    playoff = bronze_playoff(director_client, final)
    zoe_wins(director_client, playoff)
    assert medals(final.event) == {"gold": ["Ann", "Bo"], "silver": [], "bronze": ["Zoë"]}
    assert final_results(client, final.event) == [
        ("T1", "Ann", "Gold"),
        ("T1", "Bo", "Gold"),
        ("3", "Zoë", "Bronze"),
        ("4", "Thelma", ""),
        ("5", "Ed", ""),
    ]


def test_until_the_playoff_is_played_the_tie_stays_a_tie(client, director_client, final):
    bronze_playoff(director_client, final)
    assert final_results(client, final.event) == [
        ("T1", "Ann", "Gold"),
        ("T1", "Bo", "Gold"),
        ("T3", "Thelma", "playoff pending"),
        ("T3", "Zoë", "playoff pending"),
        ("5", "Ed", ""),
    ]


def test_the_bracket_lists_the_playoff_winner_first(client, director_client, final):
    zoe_wins(director_client, bronze_playoff(director_client, final))
    page = client.get(f"/e/{final.event.slug}/bracket/").content.decode()
    section = page.split(">Final ", 1)[1].split("</section>", 1)[0]
    order = [n for n in re.findall(r'class="bracket-name">\s*([^<\s]+)', section)]
    assert order == ["Ann", "Bo", "Zoë", "Thelma", "Ed"]
    response = client.get(f"/e/{final.event.slug}/bracket/")
    rows = next(b for b in response.context["bracket"] if b["stage"].pk == final.pk)
    assert [r["place"] for r in rows["tables"][0]["rows"]] == [1, 1, 3, 4, 5]


def pdf_lines(content: bytes) -> list[str]:
    with pdfplumber.open(io.BytesIO(content)) as pdf:
        return [line for page in pdf.pages for line in page.extract_text().splitlines()]


def test_the_results_and_bracket_pdfs_list_zoe_third_and_thelma_fourth(
    client, director_client, final
):
    zoe_wins(director_client, bronze_playoff(director_client, final))
    lines = pdf_lines(client.get(f"/e/{final.event.slug}/results.pdf").content)
    final_part = lines[lines.index("Final") :]
    rows = [line for line in final_part if re.match(r"^(T?\d+) (Ann|Bo|Zoë|Thelma|Ed) ", line)]
    assert [line.split()[:2] for line in rows] == [
        ["T1", "Ann"],
        ["T1", "Bo"],
        ["3", "Zoë"],
        ["4", "Thelma"],
        ["5", "Ed"],
    ]
    text = "\n".join(pdf_lines(client.get(f"/e/{final.event.slug}/bracket.pdf").content))
    assert text.index("Zoë") < text.index("Thelma")


def test_the_finals_standings_page_and_export_follow_the_playoff(client, director_client, final):
    import csv

    from tests.test_standings import shown_rows

    zoe_wins(director_client, bronze_playoff(director_client, final))
    page = client.get(f"/e/{final.event.slug}/{final.number}/").content.decode()
    assert [row[:2] for row in shown_rows(page)] == [
        ["T1", "Ann"],
        ["T1", "Bo"],
        ["3", "Zoë"],
        ["4", "Thelma"],
        ["5", "Ed"],
    ]
    export = client.get(f"/e/{final.event.slug}/{final.number}/standings/export/?_export=csv")
    rows = list(csv.DictReader(io.StringIO(export.content.decode("utf-8-sig"))))
    assert [(r["Place"], r["Player"]) for r in rows] == [
        ("1", "Ann"),
        ("1", "Bo"),
        ("3", "Zoë"),
        ("4", "Thelma"),
        ("5", "Ed"),
    ]


# The rule alone (scoring/sheets.py settled_places), from what awards.medals gives.


def settled(totals, rule="nvso", playoffs=None):
    from scoring.sheets import settled_places
    from tournament.game.awards import medals
    from tournament.game.rules import places

    return settled_places(places(totals), medals(totals, rule, playoffs or {}))


def test_a_bronze_playoff_won_by_the_higher_total_puts_its_winner_third():
    totals = dict(a=100, b=100, c=120, d=130, e=150)
    assert settled(totals, playoffs={"bronze": [dict(c=9, d=0)]}) == dict(a=1, b=1, d=3, c=4, e=5)


def test_a_tie_for_second_settled_by_its_playoff_gives_two_then_three():
    totals = dict(a=100, b=110, c=110, d=130)
    assert settled(totals, playoffs={"silver": [dict(b=9, c=0)]}) == dict(a=1, c=2, b=3, d=4)


def test_a_replayed_playoff_orders_by_its_last_round():
    totals = dict(a=100, b=100, c=120, d=120, e=150)
    rounds = [dict(c=5, d=5), dict(c=7, d=2)]
    assert settled(totals, playoffs={"bronze": rounds}) == dict(a=1, b=1, d=3, c=4, e=5)


def test_places_stay_by_total_while_a_playoff_is_owed_or_none_was_needed():
    assert settled(dict(a=100, b=100, c=120, d=120)) == dict(a=1, b=1, c=3, d=3)
    assert settled(dict(a=1, b=1, c=1, d=9)) == dict(a=1, b=1, c=1, d=4)
    assert settled(dict(a=1, b=1, c=5, d=9), rule="shared") == dict(a=1, b=1, c=3, d=4)
