"""PDFs and exports (PRODUCT.md §9), read back the way a person or a spreadsheet would.

Every PDF is parsed with pypdf/pdfplumber: its text holds the names, engines and totals the
database holds; the score sheets' grid is read cell by cell; a long accented name must lie
inside its cell. Exports are parsed with the csv module and openpyxl and matched to the rows.
"""

import csv
import datetime
import io
import itertools
import unicodedata
from collections import Counter

import openpyxl
import pdfplumber
import pytest
from django.db import connection
from django.db.models import Sum
from django.test.utils import CaptureQueriesContext
from pypdf import PdfReader

from scoring.models import Infraction, Round, Score
from scoring.services.infractions import log_infraction
from scoring.services.rounds import record_round
from scoring.services.stages import close_stage, seat_next_stage
from tests.factories import make_event, make_players, play, seat
from tournament.models import Player, Seat, StageKind
from tournament.services.clock import call_time, start_clock

pytestmark = pytest.mark.django_db

LONG = "Marguerite-Éléonore Lefèvre-Dubois de la Villemarqué"
NAMES = [
    LONG, "Zoë Ångström", "Ђорђе Петровић", "Νίκος Παπαδόπουλος",
    "Ann Lee", "Bo Diaz", "Cy Young", "Di Wu",
]  # fmt: skip


# -- reading PDFs back -------------------------------------------------------------------------


def nfc(text) -> str:
    return unicodedata.normalize("NFC", text or "")


def squash(text) -> str:
    """Text without its line breaks and spaces: a wrapped name reads as the name."""
    return "".join(nfc(text).split())


def pdf_of(response) -> bytes:
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    return response.content


def page_texts(pdf: bytes) -> list[str]:
    return [nfc(page.extract_text()) for page in PdfReader(io.BytesIO(pdf)).pages]


def link_targets(pdf: bytes, page: int = 0) -> set[str]:
    annotations = PdfReader(io.BytesIO(pdf)).pages[page].get("/Annots") or []
    return {a.get_object()["/A"]["/URI"] for a in annotations}


def grid_of(page):
    """The score grid of a sheet page: (rows of cell texts, rows of cell boxes), header first."""
    for table in page.find_tables():
        rows = table.extract()
        for i, row in enumerate(rows):
            if nfc(row[0]) == "Engine":
                return rows[i:], [r.cells for r in table.rows[i:]]
    raise AssertionError("no score grid on this page")


def by_label(rows):
    return {nfc(row[0]).replace("\n", " "): row for row in rows}


# -- the rows -----------------------------------------------------------------------------------


@pytest.fixture
def played(event, director):
    """Game 1 of Spring Games: 8 players (long, accented and non-Latin names) at two tables,
    three rounds each; two infractions at the long name's table."""
    make_players(event, names=NAMES)
    stage = seat(event)
    for table in stage.tables.all():
        play(table, 3)
    long = Player.objects.get(name=LONG)
    table = Seat.objects.get(stage=stage, player=long).table
    log_infraction(table, long, 12, "wrong_tile", "played a 5 on a 6", director)
    log_infraction(table, long, 11, "out_of_turn", "", director)
    return stage


def long_table(stage):
    return Seat.objects.get(stage=stage, player__name=LONG).table


def seat_order(table):
    return [s.player for s in table.seats.select_related("player").order_by("position")]


def db_rounds(table):
    """[(engine, {player id: pips})] in play order, straight from the database."""
    return [
        (r.engine, {s.player_id: s.pips for s in r.scores.all()})
        for r in Round.objects.filter(table=table).order_by("number").prefetch_related("scores")
    ]


def db_totals(**filters) -> dict[int, int]:
    rows = Score.objects.filter(**filters).values("player").annotate(total=Sum("pips"))
    return {row["player"]: row["total"] for row in rows}


def url(stage, tail=""):
    return f"/e/{stage.event.slug}/{stage.number}/{tail}"


# -- score sheets -------------------------------------------------------------------------------


def test_a_filled_sheet_has_every_engine_pips_running_totals_place_and_infractions(client, played):
    table = long_table(played)
    pdf = pdf_of(client.get(url(played, f"table/{table.number}/sheet.pdf")))
    text = page_texts(pdf)
    assert len(text) == 1
    assert "Spring Games" in text[0] and f"Game 1 · Table {table.number}" in text[0]

    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        rows, _ = grid_of(doc.pages[0])
    players = seat_order(table)
    assert [squash(rows[0][1 + 2 * i]) for i in range(len(players))] == [
        squash(p.name) for p in players
    ]
    grid = by_label(rows)
    running = {p.pk: 0 for p in players}
    for engine, pips in db_rounds(table):
        row = grid[f"{engine} {engine}"]  # the double drawn as a domino: two halves
        for i, p in enumerate(players):
            running[p.pk] += pips[p.pk]
            assert row[1 + 2 * i : 3 + 2 * i] == [str(pips[p.pk]), str(running[p.pk])]
    for engine in played.event.engines[3:]:  # not played yet: an empty row for each
        assert not any(grid[f"{engine} {engine}"][1:])

    totals = db_totals(round__table=table)
    places = {pk: 1 + sum(t < total for t in totals.values()) for pk, total in totals.items()}
    counted = {
        p.pk: Infraction.objects.filter(table=table, player=p).exclude(action="void").count()
        for p in players
    }
    assert grid["Game total"][1::2] == [str(totals[p.pk]) for p in players]
    assert grid["Place"][1::2] == [str(places[p.pk]) for p in players]
    assert grid["Infractions"][1::2] == [str(counted[p.pk]) for p in players]
    assert counted[Player.objects.get(name=LONG).pk] == 2
    # The public's sheet names the infraction, not the note (issue 13: notes are private).
    assert "Wrong tile – Warning" in text[0] and "played a 5 on a 6" not in text[0]
    assert "Out of turn – Penalty draw of one tile" in text[0]


def test_the_directors_sheet_keeps_the_infraction_notes(director_client, played):
    table = long_table(played)
    pdf = pdf_of(director_client.get(url(played, f"table/{table.number}/sheet.pdf")))
    assert "Wrong tile – Warning (played a 5 on a 6)" in page_texts(pdf)[0]


def test_a_sheet_carries_signature_lines_and_a_qr_code_to_the_tables_live_page(client, played):
    table = long_table(played)
    pdf = pdf_of(client.get(url(played, f"table/{table.number}/sheet.pdf")))
    live = f"http://testserver/e/spring/1/table/{table.number}/"
    assert link_targets(pdf) == {live}  # the QR code is a link to it too
    text = page_texts(pdf)[0]
    assert squash(live) in squash(text)
    signatures = text[text.index("Signatures") :]
    for p in seat_order(table):
        assert squash(p.name) in squash(signatures)
    assert "Scorekeeper (name and signature)" in signatures


def test_a_blank_sheet_has_the_names_and_an_empty_grid_for_play_on_paper(client, played):
    table = long_table(played)
    pdf = pdf_of(client.get(url(played, f"table/{table.number}/blank-sheet.pdf")))
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        rows, _ = grid_of(doc.pages[0])
    assert [squash(n) for n in rows[0][1::2]] == [squash(p.name) for p in seat_order(table)]
    grid = by_label(rows)
    for engine in played.event.engines:
        assert not any(grid[f"{engine} {engine}"][1:])
    for label in ("Game total", "Place", "Infractions"):
        assert not any(grid[label][1:])
    assert "Wrong tile" not in page_texts(pdf)[0]


def test_the_clock_start_and_the_time_called_are_printed(client, played, director):
    start = datetime.datetime(2026, 9, 19, 10, 5, tzinfo=datetime.UTC)
    start_clock(played, director, now=start)
    call_time(played, director, now=start + datetime.timedelta(minutes=47))
    text = page_texts(pdf_of(client.get(url(played, "table/1/blank-sheet.pdf"))))[0]
    assert "Clock start 10:05 Time called 10:52" in text


@pytest.mark.parametrize("kind", ["sheets.pdf", "blank-sheets.pdf"])
def test_a_stages_sheets_are_one_pdf_with_one_table_a_page(client, played, kind):
    pages = page_texts(pdf_of(client.get(url(played, kind))))
    tables = list(played.tables.order_by("number"))
    assert len(pages) == len(tables) == 2
    for text, table in zip(pages, tables, strict=True):
        assert f"Game 1 · Table {table.number}" in text
        for p in seat_order(table):
            assert squash(p.name) in squash(text)
        for engine in played.event.engines:
            assert f"{engine} {engine}" in text


def test_a_stages_sheets_take_the_same_queries_whatever_its_size(client, director):
    def queries_for(players):
        event = make_event(director)
        make_players(event, count=players)
        stage = seat(event)
        for table in stage.tables.all():
            play(table, 1)
        with CaptureQueriesContext(connection) as queries:
            pdf_of(client.get(url(stage, "sheets.pdf")))
        return len(queries)

    assert queries_for(8) == queries_for(24)


def test_a_long_accented_name_stays_inside_its_cells(client, played):
    table = long_table(played)
    pdf = pdf_of(client.get(url(played, f"table/{table.number}/sheet.pdf")))
    column = [p.name for p in seat_order(table)].index(LONG)
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        page = doc.pages[0]
        rows, boxes = grid_of(page)
        cell = boxes[0][1 + 2 * column]
        assert squash(page.within_bbox(cell).extract_text()) == squash(LONG)
        assert all(30 <= c["x0"] and c["x1"] <= page.width - 30 for c in page.chars)

    for tail in ("standings.pdf", "seating.pdf"):
        with pdfplumber.open(io.BytesIO(pdf_of(client.get(url(played, tail))))) as doc:
            for page in doc.pages:  # nothing past the margins
                assert all(30 <= c["x0"] and c["x1"] <= page.width - 30 for c in page.chars)


# -- lists ------------------------------------------------------------------------------------


def boxed_texts(page) -> set[str]:
    """The text inside each box drawn on a page, squashed."""
    boxes = {(r["x0"], r["top"], r["x1"], r["bottom"]) for r in page.rects}
    return {squash(page.within_bbox(box).extract_text()) for box in boxes}


def test_the_seating_list_is_a_to_z_with_tables_then_table_by_table(client, played):
    pdf = pdf_of(client.get(url(played, "seating.pdf")))
    pages = page_texts(pdf)
    assert len(pages) == 2
    seats = Seat.objects.filter(stage=played).select_related("player", "table")
    a_to_z = squash(pages[0][pages[0].index("Players A to Z") :])
    position = 0
    for seat_ in sorted(seats, key=lambda s: s.player.name.casefold()):
        entry = squash(seat_.player.name) + str(seat_.table.number)
        position = a_to_z.index(entry, position) + len(entry)  # in order, each with its table

    assert "Table by table" in pages[1]
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        boxes = boxed_texts(doc.pages[1])
    for table in played.tables.order_by("number"):
        listed = "".join(f"{i}.{squash(p.name)}" for i, p in enumerate(seat_order(table), 1))
        assert f"Table{table.number}{listed}" in boxes


def ruled_rows(page) -> list[str]:
    """The text between each two rules drawn across a list (its rows, top to bottom)."""
    rules = sorted({round(e["top"], 1) for e in page.edges if e["orientation"] == "h"})
    bands = (page.crop((0, top, page.width, bottom)) for top, bottom in itertools.pairwise(rules))
    return [text for text in (squash(band.extract_text()) for band in bands) if text]


def test_the_standings_pdf_lists_every_player_with_place_table_and_total(client, played):
    pdf = pdf_of(client.get(url(played, "standings.pdf")))
    assert "Game 1 standings" in page_texts(pdf)[0]
    totals = db_totals(round__table__stage=played)
    seats = Seat.objects.filter(stage=played).select_related("player", "table")
    expected = []
    for seat_ in sorted(seats, key=lambda s: (totals[s.player_id], s.player.name)):
        total = totals[seat_.player_id]
        place = 1 + sum(t < total for t in totals.values())
        tied = "T" if list(totals.values()).count(total) > 1 else ""
        infractions = Infraction.objects.filter(player=seat_.player).count()
        row = f"{tied}{place} {seat_.player.name} {seat_.table.number} 3 {total} {infractions}"
        expected.append(Counter(squash(row)))
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        (page,) = doc.pages
        # Every row holds its place, name, table, rounds, total and infractions, and nothing
        # else, however a long name wraps.
        rows = ruled_rows(page)
        header = next(i for i, row in enumerate(rows) if "PlacePlayer" in row)
        listed = rows[header + 1 : header + 1 + len(expected)]  # the spread of totals follows
        assert [Counter(row) for row in listed] == expected


def play_two_rounds(table, totals):
    """Two rounds (engines 1-1 and 0-0) leaving the players, in seat order, with ``totals``."""
    players = seat_order(table)
    lowest = totals.index(min(totals))
    first = {p.pk: 0 if i == lowest else 1 for i, p in enumerate(players)}
    record_round(table, first, None)
    record_round(table, {p.pk: t - first[p.pk] for p, t in zip(players, totals, strict=True)}, None)


@pytest.fixture
def finished(director):
    """Autumn Games, over: three tables of Game 1, their winners in the final, medals."""
    event = make_event(
        director, name="Autumn Games", slug="autumn", engines=[1, 0], game_minutes=None
    )
    make_players(event, names=[*NAMES, "Eve Ha", "Fay Ito", "Gus Jo", "Hal Ku"])
    game1 = seat(event)
    for table in game1.tables.all():
        play_two_rounds(table, [3, 10, 20, 30])
    close_stage(game1, director)
    final = seat_next_stage(event)
    play_two_rounds(final.tables.get(), [5, 9, 14])
    close_stage(final, director)
    return event


def test_the_results_pdf_names_the_medallists_and_every_stage(client, finished):
    whole = "\n".join(page_texts(pdf_of(client.get("/e/autumn/results.pdf"))))
    final = finished.stages.get(kind=StageKind.FINAL)
    finalists = seat_order(final.tables.get())  # totals 5, 9 and 14
    medals = zip(["Gold", "Silver", "Bronze"], finalists, [5, 9, 14], strict=True)
    for place, (medal, player, total) in enumerate(medals, start=1):
        assert squash(f"{medal} {player.name}") in squash(whole)
        if player.name != LONG:  # a long name wraps in its column
            assert f"{place} {player.name} 1 {total} {medal}" in whole.splitlines()
    for name in [*NAMES, "Hal Ku"]:
        assert squash(name) in squash(whole)


def test_the_bracket_is_one_landscape_page_with_every_stage(client, finished):
    pdf = pdf_of(client.get("/e/autumn/bracket.pdf"))
    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert (box.width, box.height) == (792, 612)  # US Letter, landscape
    text = squash(reader.pages[0].extract_text())
    for stage in finished.stages.exclude(kind=StageKind.PLAYOFF):
        assert squash(stage.name) in text
    for name in [*NAMES, "Hal Ku"]:
        assert squash(name) in text
    assert "GOLD" in text and "▸" in text  # ▸: advances (the legend says so)


def test_a_big_events_bracket_puts_the_first_stage_tables_in_an_appendix(client, director):
    """Above 100 players the bracket's page shows who goes on; every table is in the
    appendix (issue 12 item 6)."""
    tables = 40
    event = make_event(director, slug="big", paper_size="a4")
    make_players(event, names=[f"Player {i:04d} {LONG}" for i in range(1, 4 * tables + 1)])
    stage = seat(event)
    assert stage.tables.count() == tables
    pdf = pdf_of(client.get("/e/big/bracket.pdf"))
    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) > 1
    box = reader.pages[0].mediabox
    assert (round(box.width), round(box.height)) == (842, 595)  # A4, landscape
    first = squash(reader.pages[0].extract_text())
    assert "Nobodyadvancesyet" in first and "Appendix" not in first
    rest = squash("".join(page.extract_text() for page in reader.pages[1:]))
    assert "Appendix" in rest
    for i in range(1, 4 * tables + 1):
        assert f"Player{i:04d}" in rest


def test_the_paper_is_the_events_letter_by_default_a4_as_a_setting(client, played):
    letter = PdfReader(io.BytesIO(pdf_of(client.get(url(played, "sheets.pdf")))))
    assert (letter.pages[0].mediabox.width, letter.pages[0].mediabox.height) == (612, 792)
    played.event.paper_size = "a4"
    played.event.save()
    a4 = PdfReader(io.BytesIO(pdf_of(client.get(url(played, "sheets.pdf")))))
    assert (round(a4.pages[0].mediabox.width), round(a4.pages[0].mediabox.height)) == (595, 842)
    assert len(a4.pages) == 2


# -- exports ----------------------------------------------------------------------------------


def csv_rows(response):
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response.content.startswith(b"\xef\xbb\xbf")  # UTF-8 with a byte order mark
    return list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))


def xlsx_rows(response):
    assert response.status_code == 200
    assert "spreadsheetml" in response["Content-Type"]
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    header, *rows = sheet.iter_rows(values_only=True)
    return [
        dict(zip(header, ("" if v is None else str(v) for v in row), strict=True)) for row in rows
    ]


@pytest.mark.parametrize("fmt, read", [("csv", csv_rows), ("xlsx", xlsx_rows)])
def test_the_standings_export_matches_the_database(director_client, played, fmt, read):
    # The director's export: with the player ids (the public's has none, tests/test_privacy).
    response = director_client.get(url(played, f"standings/export/?_export={fmt}"))
    assert f'filename="spring-1-standings.{fmt}"' in response["Content-Disposition"]
    rows = read(response)
    totals = db_totals(round__table__stage=played)
    seats = {s.player.name: s for s in Seat.objects.filter(stage=played).select_related("player")}
    assert len(rows) == len(seats) == 8
    assert [int(r["Total"]) for r in rows] == sorted(totals.values())  # by place
    for row in rows:
        seat_ = seats[row["Player"]]
        total = totals[seat_.player_id]
        infractions = Infraction.objects.filter(player=seat_.player).exclude(action="void")
        assert row == {
            "Place": str(1 + sum(t < total for t in totals.values())),
            "Player": seat_.player.name,
            "Player id": seat_.player.ref,  # empty for a player with no registration id
            "Table": str(seat_.table.number),
            "Rounds played": "3",
            "Total": str(total),
            "Infractions": str(infractions.count()),
        }


@pytest.mark.parametrize("fmt, read", [("csv", csv_rows), ("xlsx", xlsx_rows)])
def test_every_round_score_exports_one_row_per_player_per_round(director_client, played, fmt, read):
    Player.objects.filter(name="Ann Lee").update(ref="NV-0042")  # a registration id wins
    rows = read(director_client.get(f"/e/spring/round-scores/?_export={fmt}"))
    scores = Score.objects.select_related("round__table__stage", "player")
    expected = [
        {
            "Stage": s.round.table.stage.name,
            "Table": str(s.round.table.number),
            "Round": str(s.round.number),
            "Engine": str(s.round.engine),
            "Player id": s.player.ref,
            "Player": s.player.name,
            "Pips": str(s.pips),
        }
        for s in scores
    ]
    assert len(rows) == len(expected) == 2 * 3 * 4
    key = lambda r: (r["Table"], int(r["Round"]), r["Player"])  # noqa: E731
    assert sorted(rows, key=key) == sorted(expected, key=key)
    assert rows == sorted(rows, key=lambda r: (int(r["Table"]), int(r["Round"])))
    assert any(r["Player id"] == "NV-0042" for r in rows)


def test_an_unknown_export_format_is_not_found(client, played):
    assert client.get(url(played, "standings/export/?_export=pdf")).status_code == 404
    assert client.get("/e/spring/round-scores/").status_code == 404


# -- links on the pages -----------------------------------------------------------------------


def test_every_pdf_and_export_is_linked_from_its_page_and_opens(client, finished):
    final = finished.stages.get(kind=StageKind.FINAL)
    base = f"/e/autumn/{final.number}/"
    pages = {
        f"{base}table/1/": [f"{base}table/1/sheet.pdf", f"{base}table/1/blank-sheet.pdf"],
        base: [
            f"{base}standings.pdf",
            f"{base}standings/export/?_export=csv",
            f"{base}standings/export/?_export=xlsx",
            f"{base}sheets.pdf",
            f"{base}blank-sheets.pdf",
        ],
        f"{base}seating/": [f"{base}seating.pdf", f"{base}blank-sheets.pdf"],
        "/e/autumn/results/": [
            "/e/autumn/results.pdf",
            "/e/autumn/round-scores/?_export=csv",
            "/e/autumn/round-scores/?_export=xlsx",
        ],
        "/e/autumn/bracket/": ["/e/autumn/bracket.pdf"],
    }
    for page, links in pages.items():
        html = client.get(page).content.decode()
        for link in links:
            assert f'href="{link}"' in html, (page, link)
            response = client.get(link)
            assert response.status_code == 200, link
            assert response["Content-Type"].split(";")[0] in (
                "application/pdf",
                "text/csv",
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            )


def test_a_large_stage_prints_its_sheets_in_blocks_of_tables(client, director):
    from pypdf import PdfReader

    from scoring.printing import table_blocks

    assert table_blocks(120) == [(1, 50), (51, 100), (101, 120)]
    event = make_event(director)
    make_players(event, count=12)
    seat(event)
    response = client.get(f"/e/{event.slug}/1/sheets.pdf?tables=2-3")
    assert len(PdfReader(io.BytesIO(response.content)).pages) == 2
    assert client.get(f"/e/{event.slug}/1/sheets.pdf?tables=x-3").status_code == 404
    assert client.get(f"/e/{event.slug}/1/sheets.pdf?tables=7-9").status_code == 404


def test_the_standings_page_links_sheet_blocks_for_a_large_stage(client, director):
    event = make_event(director)
    make_players(event, count=208)  # 52 tables of 4
    seat(event)
    page = client.get(f"/e/{event.slug}/1/").content.decode()
    assert "sheets.pdf?tables=1-50" in page and "sheets.pdf?tables=51-52" in page
    assert "All score sheets (PDF)" not in page
    seating = client.get(f"/e/{event.slug}/1/seating/").content.decode()
    assert "blank-sheets.pdf?tables=51-52" in seating


@pytest.fixture
def huge_stage(director):
    """A stage of 52 tables: more than one PDF renders in time."""
    event = make_event(director, slug="huge")
    make_players(event, count=208)
    return seat(event)


@pytest.mark.parametrize("kind", ["sheets.pdf", "blank-sheets.pdf"])
def test_a_large_stages_sheets_are_refused_whole_with_the_blocks_to_ask_for(
    client, huge_stage, kind
):
    from scoring.printing import SHEETS_PER_PDF

    assert huge_stage.tables.count() == 52 > SHEETS_PER_PDF
    response = client.get(url(huge_stage, kind))
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode().splitlines() == [
        "This stage has 52 tables: ask for them 50 at a time:",
        f"/e/huge/1/{kind}?tables=1-50",
        f"/e/huge/1/{kind}?tables=51-52",
    ]


@pytest.mark.parametrize("tables", ["1-51", "2-52", "1-999999"])
def test_a_range_wider_than_one_pdf_is_refused(client, huge_stage, played, tables):
    for stage in (huge_stage, played):  # however many tables the stage has
        response = client.get(url(stage, "blank-sheets.pdf"), {"tables": tables})
        assert response.status_code == 400
        assert "at most 50 tables at a time" in response.content.decode()
    if tables == "1-51":  # the widest range one PDF takes, rendered once (50 pages: seconds)
        response = client.get(url(huge_stage, "blank-sheets.pdf"), {"tables": "3-52"})
        assert len(PdfReader(io.BytesIO(pdf_of(response))).pages) == 50


@pytest.fixture
def renders(monkeypatch):
    """The page counts of every WeasyPrint layout made, in order."""
    from scoring import printing

    counts = []
    real = printing.HTML

    class Counted:
        def __init__(self, **kwargs):
            self.html = real(**kwargs)

        def render(self):
            document = self.html.render()
            counts.append(len(document.pages))
            return document

    monkeypatch.setattr(printing, "HTML", Counted)
    return counts


def test_the_bracket_is_laid_out_once_at_the_estimated_size(client, finished, renders):
    assert len(PdfReader(io.BytesIO(pdf_of(client.get("/e/autumn/bracket.pdf")))).pages) == 1
    assert renders == [1]


def test_a_wrong_bracket_estimate_costs_one_more_layout_at_most(
    client, director, renders, monkeypatch
):
    from scoring.views import printing as print_views

    monkeypatch.setattr(print_views, "_PAGE_HEIGHT", 520.0 * 4)  # the estimate: far too big
    event = make_event(director, slug="big")
    make_players(event, names=[f"Player {i:03d} {LONG}" for i in range(1, 49)])
    seat(event)
    pdf_of(client.get("/e/big/bracket.pdf"))
    assert len(renders) == 2 and renders[0] > renders[1]  # not one layout per type size
