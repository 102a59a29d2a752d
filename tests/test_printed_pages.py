"""Printed sheets read on a wall or at a desk (issue 28 items 1 and 20): what the page says, in
one piece. Every PDF is fetched through its page's address and read back with its words and
their positions (pdfplumber)."""

import io
import itertools
import random
import re
import unicodedata
from collections import Counter
from html.parser import HTMLParser

import pdfplumber
import pytest

from scoring.models import Round
from scoring.services.rounds import correct_round
from scoring.services.stages import close_stage, seat_next_stage
from tests.factories import make_event, make_players, play, seat
from tests.test_advancement import play_totals
from tournament.models import Stage

pytestmark = pytest.mark.django_db

FIRST = ["Ann", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"]
SURNAMES = [
    "Okafor", "Lindqvist", "Nakamura", "Fitzgerald", "Castellanos",
    "Moreau", "Silva", "Kowalski", "Haddad", "Brennan",
]  # fmt: skip


def game_totals(size: int, number: int) -> list[int]:
    """Three-digit game totals for a table of ``size``, all different (no tie, no playoff)."""
    base = [100 + number, 200, 391 - number, 120 + number, 150 + number, 60 + number]
    return base[:size]


@pytest.fixture
def hundred(director):
    """A finished event of 100 players: every stage played and closed, medals given."""
    event = make_event(director, slug="hundred", engines=[1, 0], game_minutes=None)
    make_players(event, names=[f"{f} {s}" for f in FIRST for s in SURNAMES])
    stage = seat(event)
    while True:
        for table in stage.tables.all():
            play_totals(table, game_totals(table.seats.count(), table.number))
        close_stage(stage, director)
        if not Stage.objects.filter(event=event, closed=False).exists():
            break
        try:
            stage = seat_next_stage(event, rng=random.Random(1))
        except Exception:
            break
    return event


def squash(text) -> str:
    """Text without its line breaks and spaces: a name wrapped between its words reads whole."""
    return "".join(unicodedata.normalize("NFC", text or "").split())


# -- reading a page and a PDF back ---------------------------------------------------------------


class _BracketRows(HTMLParser):
    """The web bracket's rows: (name, total shown) and the medal badges, as the page shows."""

    def __init__(self):
        super().__init__()
        self.pairs: list[tuple[str, str]] = []
        self.medals = 0
        self._cell: str | None = None  # "name" or "total", while inside one
        self._name = ""
        self._text: list[str] = []
        self._depth = 0  # tags open inside the name cell (its badges are not the name)

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "td" and "bracket-name" in classes:
            self._cell, self._text, self._depth = "name", [], 0
        elif tag == "td" and self._name:
            self._cell, self._text = "total", []
        elif self._cell == "name":
            self._depth += 1
            self.medals += any(c.startswith("medal-badge-") for c in classes)

    def handle_endtag(self, tag):
        if tag == "td" and self._cell == "name":
            self._name, self._cell = " ".join("".join(self._text).split()), None
        elif tag == "td" and self._cell == "total":
            self.pairs.append((self._name, "".join(self._text).strip()))
            self._name, self._cell = "", None
        elif self._cell == "name":
            self._depth -= 1

    def handle_data(self, data):
        if self._cell == "total" or (self._cell == "name" and self._depth == 0):
            self._text.append(data)


def web_bracket(client, slug) -> _BracketRows:
    response = client.get(f"/e/{slug}/bracket/")
    assert response.status_code == 200
    rows = _BracketRows()
    rows.feed(response.content.decode())
    return rows


def pdf_lines(pdf: bytes, tolerance: float = 2.0) -> list[str]:
    """Every line of every page: its words left to right, words whose tops are within
    ``tolerance`` pt on one line (a total beside its name, not a line below)."""
    lines = []
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        for page in doc.pages:
            rows: list[list[dict]] = []
            for word in sorted(page.extract_words(), key=lambda w: (w["top"], w["x0"])):
                if rows and abs(rows[-1][0]["top"] - word["top"]) <= tolerance:
                    rows[-1].append(word)
                else:
                    rows.append([word])
            for row in rows:
                words = sorted(row, key=lambda w: w["x0"])
                lines.append(unicodedata.normalize("NFC", " ".join(w["text"] for w in words)))
    return lines


def read_on_one_line(lines, name: str, total: str) -> int:
    """How many lines hold the name, whole, then (after its marks, no number between) its
    total as one word."""
    pattern = re.compile(rf"(?<!\S){re.escape(name)}(?:\s+\D+?)?\s+{re.escape(total)}(?!\S)")
    return sum(len(pattern.findall(line.replace("▸", ""))) for line in lines)


# -- the bracket on the wall (item 1) -------------------------------------------------------------


MEDAL_WORDS = {"en": ["GOLD", "SILVER", "BRONZE"], "fr": ["OR", "ARGENT", "BRONZE"]}


@pytest.mark.parametrize(("paper", "language"), [("", "en"), ("?paper=large", "en"), ("", "fr")])
def test_every_total_of_the_bracket_reads_on_its_players_line_as_the_page_shows(
    client, hundred, paper, language
):
    hundred.sheet_language = language  # the PDF's language; the page is read in English
    hundred.save()
    web = web_bracket(client, "hundred")
    assert len(web.pairs) >= 100 + 24 + 6 and web.medals == 3
    assert any(len(total) == 3 for _name, total in web.pairs)
    lines = pdf_lines(client.get(f"/e/hundred/bracket.pdf{paper}").content)
    wrong = [
        f"{name} {total}"
        for (name, total), shown in Counter(web.pairs).items()
        if read_on_one_line(lines, name, total) != shown
    ]
    assert not wrong, f"{len(wrong)} of {len(web.pairs)} read otherwise on paper: {wrong[:5]}"
    words = Counter(w.strip(":") for line in lines for w in line.split())
    # Each medal word whole: once in the medal line at the top, once by its winner's name,
    # on that name's line, before its total (never on a line below).
    assert [words[medal] for medal in MEDAL_WORDS[language]] == [2, 2, 2]
    for medal in MEDAL_WORDS[language]:
        beside = [line for line in lines if re.search(rf"\S\s+{medal}\s+\d+$", line)]
        assert len(beside) == 1, f"{medal} is not on its winner's line"


# -- the sign-in sheet (item 20) ------------------------------------------------------------------

SIGN_IN_FIRST = ["Chloé", "Zoë", "José", "Seán", "Marguerite-Éléonore"]
SIGN_IN_LAST = [
    "O'Brien", "Lefèvre-Dubois de la Villemarqué", "Nakamura", "Castellanos", "Wu", "Okafor",
]  # fmt: skip
CLUBS = ["Club des Dominos de Trois-Rivières", "", "Mexican Train Society of Greater Springfield"]


@pytest.fixture
def desk(event):
    """30 registered players, some checked in, long names and clubs: the sheet takes pages."""
    names = [f"{f} {s}" for f in SIGN_IN_FIRST for s in SIGN_IN_LAST]
    players = make_players(event, names=names, checked_in=False)
    for i, player in enumerate(players):
        player.ref, player.club, player.division = f"R{i:03d}", CLUBS[i % 3], "Open"
        player.checked_in = i % 2 == 0
        player.save()
    assert sum(p.checked_in for p in players) == 15
    return players


def heading_line(page, first: str) -> dict[str, dict]:
    """The words of a list's heading line (the line where the word ``first`` is first seen)."""
    words = page.extract_words()
    top = min(w["top"] for w in words if w["text"] == first)
    return {w["text"]: w for w in words if abs(w["top"] - top) < 2}


def column_of(heading: dict, name: str, following: str) -> tuple[float, float]:
    """The x-range of a list's column: from its heading to the next one's."""
    return heading[name]["x0"] - 2, heading[following]["x0"] - 2


def cell_text(page, x: tuple[float, float], band: tuple[float, float]) -> str:
    """The squashed text of a list's cell: its column's x-range, its row's band."""
    return squash(page.crop((x[0], band[0], x[1], band[1])).extract_text())


def ruled_bands(page):
    """The bands between each two rules drawn across a page (the rows of a ruled list)."""
    rules = sorted({round(e["top"], 1) for e in page.edges if e["orientation"] == "h"})
    return list(itertools.pairwise(rules))


@pytest.mark.parametrize(
    ("language", "headings"),
    [("en", ["In", "Player", "Id", "Club"]), ("fr", ["Présent", "Joueur", "N°", "Club"])],
)
def test_no_row_of_the_sign_in_sheet_is_split_over_two_pages(
    director_client, event, desk, language, headings
):
    event.sheet_language = language
    event.save()
    pdf = director_client.get(f"/director/e/{event.slug}/sign-in.pdf").content
    tick, player, ref, club = headings
    rows = []
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        assert len(doc.pages) > 1
        for page in doc.pages:
            heading = heading_line(page, player)
            assert set(headings) <= set(heading)  # each heading on one line, on every page
            tick_x, name_x, ref_x = (
                column_of(heading, tick, player),
                column_of(heading, player, ref),
                column_of(heading, ref, club),
            )
            below = heading[player]["bottom"]
            for band in [band for band in ruled_bands(page) if band[0] >= below]:
                name = cell_text(page, name_x, band)
                if name:
                    rows.append((cell_text(page, ref_x, band), name, cell_text(page, tick_x, band)))
    expected = [
        (p.ref, squash(p.name), "✓" if p.checked_in else "☐")
        for p in sorted(desk, key=lambda p: p.name)
    ]
    assert sorted(rows) == sorted(expected)


# -- the standings' chart (item 20) ---------------------------------------------------------------

CHART_BLUE = (0.043137, 0.32549, 0.580392)  # the bars of the spread of totals (#0b5394)


@pytest.mark.parametrize("players", [23, 24, 25, 26, 27])
def test_the_standings_chart_and_its_caption_are_on_one_page(client, director, players):
    """A list of about 25 rows ends where the chart's bars fit page 1 and its caption does not:
    the caption follows its figure."""
    event = make_event(director, slug="chart", engines=[1, 0], game_minutes=None)
    make_players(event, count=players)
    stage = seat(event)
    for table in stage.tables.all():
        play(table, 2)
    pdf = client.get("/e/chart/1/standings.pdf").content
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        bars = {
            i
            for i, page in enumerate(doc.pages)
            for r in page.rects
            if tuple(r["non_stroking_color"] or ()) == CHART_BLUE
        }
        caption = {
            i
            for i, page in enumerate(doc.pages)
            if "How many players have a total" in (page.extract_text() or "")
        }
    assert len(bars) == 1 and bars == caption


# -- the corrected mark's legend on a filled sheet (item 20) --------------------------------------


def sheet_text(client, stage, table, tail="sheet.pdf") -> str:
    response = client.get(f"/e/{stage.event.slug}/{stage.number}/table/{table.number}/{tail}")
    assert response["Content-Type"] == "application/pdf"
    with pdfplumber.open(io.BytesIO(response.content)) as doc:
        return "\n".join(page.extract_text() for page in doc.pages)


def legend_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("* ")]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_sheet_with_a_corrected_cell_says_what_its_star_means(client, director, seated, language):
    seated.event.sheet_language = language
    seated.event.save()
    corrected, untouched = seated.tables.order_by("number")
    for table in (corrected, untouched):
        play(table, 2)
    first = Round.objects.filter(table=corrected).order_by("number").first()
    pips = {s.player_id: s.pips for s in first.scores.all()}
    changed = max(pips, key=pips.get)
    pips[changed] += 3
    correct_round(first, pips, director, "added up wrong")

    text = sheet_text(client, seated, corrected)
    assert f"{pips[changed]}*" in text.replace(" ", "")  # the marked cell: "84*"
    (legend,) = legend_lines(text)
    if language == "en":  # (the French words come with the catalog: "corrigé : voir …")
        assert legend == "* corrected: see the history"
    assert legend_lines(sheet_text(client, seated, untouched)) == []
    assert legend_lines(sheet_text(client, seated, corrected, "blank-sheet.pdf")) == []


# -- the seating list on the wall (item 20) -------------------------------------------------------


@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_the_seating_list_fills_its_pages_in_type_read_from_a_few_metres(client, director, paper):
    event = make_event(director, slug="wall", paper_size=paper)
    names = [f"{f} {s}" for f in FIRST for s in SURNAMES][:30]
    make_players(event, names=names)
    seat(event)
    pdf = client.get("/e/wall/1/seating.pdf").content
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        assert len(doc.pages) == 2  # A to Z, then table by table
        for page, heading in zip(doc.pages, ["Players A to Z", "Table by table"], strict=True):
            assert heading in page.extract_text()
            boxes = {(r["x0"], r["top"], r["x1"], r["bottom"]) for r in page.rects}
            texts = [page.crop(box).extract_text() for box in boxes] or [page.extract_text()]
            listed = squash("".join(texts))  # a table's box read alone, its names wrapped
            assert [name for name in names if squash(name) not in listed] == []
            body = [c for c in page.chars if c["size"] > 7.5]  # not the page's footer
            sizes = sorted(c["size"] for c in body)
            assert sizes[len(sizes) // 2] >= 16  # the names, mostly
            assert max(c["bottom"] for c in body) > page.height * 0.6  # down the page
