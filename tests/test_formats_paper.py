"""A cumulative event on paper and on its bracket and results pages (issue 30 item 4): the
bracket and its one-page PDF show a table of players × games (each game's total, the running
total between games, the cumulative total), per division, with places, medals, the cut to the
Final and the Final; the results and their PDF give the medals with the totals they came from;
a game's score sheet says each player's cumulative total before it; the standings export has
a column per game and the cumulative total. Every PDF is read back with its words and their
positions (pdfplumber), every page through the test client; a knockout's output is untouched
(tests/test_printing.py, test_printed_pages.py and test_bracket_wall.py)."""

import csv
import io
import re
import unicodedata
from html.parser import HTMLParser

import openpyxl
import pdfplumber
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.printing import BoardDivision, BoardRow, CumulativeBoard
from scoring.services.rounds import record_round
from scoring.services.stages import close_and_seat
from scoring.sheets import table_sheet
from scoring.views import printing as views
from tests import browser as b
from tests.factories import make_event, make_players, seat
from tests.test_advancement import play_totals
from tournament.models import Player, Stage, Table
from tournament.services.seating import withdraw_player

pytestmark = pytest.mark.django_db

FIRST = ["Ann", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"]
SURNAMES = [
    "Okafor", "Lindqvist", "Nakamura", "Fitzgerald", "Castellanos",
    "Moreau", "Silva", "Kowalski", "Haddad", "Brennan",
]  # fmt: skip
MEDAL_WORDS = {"en": ["GOLD", "SILVER", "BRONZE"], "fr": ["OR", "ARGENT", "BRONZE"]}


def names(count: int) -> list[str]:
    return [f"{first} {last}" for last in SURNAMES for first in FIRST][:count]


def game_total(index: int, game: int) -> int:
    """The total of the ``index``-th player registered in stage ``game``: three digits, the
    order turned round from game to game, and every cumulative total different after each of
    three games for up to 48 players (no tie, no playoff)."""
    return 100 + (index * 7 + game * 31) % 89


def cumulative_event(director, slug, count, kind="cumulative", games=3, **fields):
    event = make_event(
        director,
        slug=slug,
        engines=[1, 0],
        game_minutes=None,
        format_kind=kind,
        format_games=games,
        **fields,
    )
    make_players(event, names=names(count))
    return event


def play_stage(stage) -> dict[str, int]:
    """Enter every table's rounds of ``stage``: each player's ``game_total``, by name."""
    event = stage.event
    order = {p.pk: i for i, p in enumerate(event.players.order_by("pk"))}
    totals = {}
    for table in Table.objects.filter(stage=stage):
        players = table_sheet(table).players
        play_totals(table, [game_total(order[p.pk], stage.number) for p in players])
        totals.update({p.name: game_total(order[p.pk], stage.number) for p in players})
    return totals


def play_games(event, director, stages: int | None = None) -> dict[str, list[int]]:
    """Seat Game 1 and play and close ``stages`` stages (all by default, the Final too) as
    the close page does (each close seats the next); each player's totals in play order."""
    played: dict[str, list[int]] = {}
    stage = seat(event)
    while stage is not None and (stages is None or stage.number <= stages):
        for name, total in play_stage(stage).items():
            played.setdefault(name, []).append(total)
        stage = close_and_seat(stage, director).seated
    return played


def board_numbers(totals: list[int], games: int) -> list[str]:
    """A row's numbers as the table shows them: each game's total, the running total after
    each game but the first and the last, then the cumulative total."""
    shown, running = [], 0
    for i, total in enumerate(totals[:games]):
        running += total
        shown.append(str(total))
        if 0 < i < games - 1:
            shown.append(str(running))
    return [*shown, str(sum(totals[:games]))]


# -- reading a page and a PDF back --------------------------------------------------------------


class Board(HTMLParser):
    """The page's cumulative tables (table.cumulative-table): each player's row (its cells'
    own text, the badges beside the name, its division), the heading rows, and the name above
    each cut line."""

    def __init__(self):
        super().__init__()
        self.rows: list[dict] = []
        self.headers: list[list[str]] = []
        self.heading_badges: list[str] = []
        self.cut_after: list[str] = []
        self._division = ""
        self._in_table = self._in_badge = False
        self._row: dict | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "section" and "cumulative-division" in classes:
            self._division = attrs.get("data-division", "")
        elif tag == "table":
            self._in_table = "cumulative-table" in classes
        elif self._in_table and tag == "tr":
            if "cut-line" in classes:
                self.cut_after.append(self.rows[-1]["name"] if self.rows else "")
            else:
                kind = "player" if "data-player" in attrs else "heading"
                self._row = {"kind": kind, "cells": [], "badges": [], "division": self._division}
        elif self._row is not None and tag in ("td", "th"):
            self._cell = []
        elif self._cell is not None and tag == "span":
            self._in_badge = True
            self._row["badges"].append("")

    def handle_endtag(self, tag):
        if tag == "span" and self._in_badge:
            self._in_badge = False
        elif tag in ("td", "th") and self._cell is not None:
            self._row["cells"].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            row, self._row = self._row, None
            if row["kind"] == "player":
                self.rows.append({**row, "name": row["cells"][1]})
            else:
                self.headers.append(row["cells"])
                self.heading_badges += row["badges"]
        elif tag == "table":
            self._in_table = False

    def handle_data(self, data):
        if self._in_badge:
            self._row["badges"][-1] += data.strip()
        elif self._cell is not None:
            self._cell.append(data)


def board_of(client, path: str) -> Board:
    response = client.get(path)
    assert response.status_code == 200
    board = Board()
    board.feed(response.content.decode())
    return board


def row_of(board: Board, name: str) -> dict:
    (row,) = [r for r in board.rows if r["name"] == name]
    return row


def pdf_lines(pdf: bytes, tolerance: float = 2.0) -> list[list[dict]]:
    """Every line of every page: its words left to right, words whose tops are within
    ``tolerance`` pt on one line (a total beside its name, never a line below)."""
    lines = []
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        for page in doc.pages:
            rows: list[list[dict]] = []
            for word in sorted(page.extract_words(), key=lambda w: (w["top"], w["x0"])):
                word["text"] = unicodedata.normalize("NFC", word["text"])
                word["page"] = page.page_number
                if rows and abs(rows[-1][0]["top"] - word["top"]) <= tolerance:
                    rows[-1].append(word)
                else:
                    rows.append([word])
            lines += [sorted(row, key=lambda w: w["x0"]) for row in rows]
    return lines


def line_texts(pdf: bytes) -> list[str]:
    return [" ".join(w["text"] for w in line).replace("▸", "") for line in pdf_lines(pdf)]


def reads_whole(texts: list[str], name: str, numbers: list[str]) -> int:
    """How many lines hold the name, whole, then (after its marks, no number between) its
    numbers in order, each one word: a total is never broken over two lines."""
    tail = r"\s+".join(map(re.escape, numbers))
    pattern = re.compile(rf"(?<!\S){re.escape(name)}(?:\s+\D+?)?\s+{tail}(?!\S)")
    return sum(len(pattern.findall(text)) for text in texts)


def page_count(pdf: bytes) -> int:
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        return len(doc.pages)


def body_sizes(pdf: bytes) -> list[float]:
    """The type sizes of the page's text, its 7 pt footer left out."""
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        page = doc.pages[0]
        return [c["size"] for c in page.chars if c["text"].strip() and c["top"] < page.height - 36]


# -- the bracket on one page ----------------------------------------------------------------------


@pytest.fixture
def forty(director):
    """40 players, 3 games, then a Final of the 4 lowest: every stage played, medals given."""
    event = cumulative_event(director, "forty", 40, kind="cumulative_final", format_final_size=4)
    return event, play_games(event, director)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_bracket_of_forty_players_and_three_games_is_one_page_every_row_whole(
    client, forty, language
):
    event, played = forty
    event.sheet_language = language
    event.save()
    pdf = client.get("/e/forty/bracket.pdf").content
    assert page_count(pdf) == 1
    sizes = body_sizes(pdf)
    assert sorted(sizes)[len(sizes) // 2] >= 9  # the names and numbers: 9 pt or more
    texts = line_texts(pdf)
    for name, totals in played.items():  # each row on one line, its numbers whole, in order
        assert reads_whole(texts, name, board_numbers(totals, 3)) == 1, name
    ranked = sorted(played, key=lambda n: sum(played[n][:3]))
    finalists = ranked[:4]
    # The Final's box: its players with their Final totals, medals beside the three best.
    for name in finalists:
        assert reads_whole(texts, name, [str(played[name][3])]) == 1, name
    words = [w for text in texts for w in text.split()]
    gold, silver, bronze = MEDAL_WORDS[language]
    # Each medal word once in the medal line, once in the table, once in the Final's box.
    assert [words.count(f"{m}:") + words.count(m) for m in (gold, silver, bronze)] == [3, 3, 3]
    order = sorted(finalists, key=lambda n: played[n][3])
    colon = {"en": ":", "fr": " :"}[language]  # French puts a space before it
    medal_line = next(t for t in texts if t.startswith(f"{gold}{colon}"))
    assert f"{gold}{colon} {order[0]} ({played[order[0]][3]})" in medal_line  # the Final's
    # The cut runs between the fourth lowest cumulative total and the fifth.
    lines = pdf_lines(pdf)
    tops = {}
    for line in lines:
        text = " ".join(w["text"] for w in line).replace("▸", "")
        for name in ranked[3:5]:
            if text.startswith(f"{ranked.index(name) + 1} {name}"):
                tops[name] = line[0]["top"]
    cut = [w["top"] for line in lines for w in line if w["text"] in ("CUT:", "LIMITE")]
    assert len(cut) == 1 and tops[ranked[3]] < cut[0] < tops[ranked[4]]


def test_the_bracket_page_shows_each_game_the_running_totals_and_the_final(client, forty):
    event, played = forty
    board = board_of(client, "/e/forty/bracket/")
    assert len(board.rows) == 40
    ranked = sorted(played, key=lambda n: sum(played[n][:3]))
    assert [r["name"] for r in board.rows] == ranked  # by the cumulative total
    for place, name in enumerate(ranked, start=1):
        row = row_of(board, name)
        assert row["cells"][0] == str(place)
        assert row["cells"][2:] == board_numbers(played[name], 3)
    assert board.headers[0][2:] == ["Game 1", "Game 2", "Game 3", "Total"]
    assert board.headers[1] == ["game", "game", "so far", "game"]
    assert board.cut_after == [ranked[3]]  # the cut under the Final's four
    assert [r["name"] for r in board.rows if "finalist" in r["badges"]] == ranked[:4]
    by_final = sorted(ranked[:4], key=lambda n: played[n][3])
    medals = {r["name"]: [x for x in r["badges"] if x != "finalist"] for r in board.rows}
    assert [medals[n] for n in by_final] == [["Gold"], ["Silver"], ["Bronze"], []]
    page = client.get("/e/forty/bracket/").content.decode()
    # The Final's table follows, its totals the Final's; the games are not shown as tables.
    assert page.count('class="bracket-stage') == 1 and "Not seated yet." not in page
    assert f'{by_final[0]} <span class="medal-total">({played[by_final[0]][3]})</span>' in page
    assert "Medals from the Final&#x27;s totals, lowest first." in page


@pytest.mark.parametrize("extra", [{}, {"format_medals_from": "cumulative_plus_final"}])
def test_the_results_give_the_medals_with_the_totals_they_came_from(director, client, extra):
    event = cumulative_event(
        director, "club", 12, kind="cumulative_final", format_final_size=4, **extra
    )
    played = play_games(event, director)
    finalists = sorted(played, key=lambda n: sum(played[n][:3]))[:4]
    if extra:
        medal_total = {n: sum(played[n][:3]) + played[n][3] for n in finalists}
        shown = {n: f"{sum(played[n][:3])} + {played[n][3]} = {medal_total[n]}" for n in finalists}
        source = "Medals from the cumulative total plus the Final's, lowest first."
    else:
        medal_total = {n: played[n][3] for n in finalists}
        shown = {n: str(played[n][3]) for n in finalists}
        source = "Medals from the Final's totals, lowest first."
    gold, silver, bronze = sorted(finalists, key=lambda n: medal_total[n])[:3]
    page = client.get("/e/club/results/").content.decode().replace("&#x27;", "'")
    for name in (gold, silver, bronze):
        assert f'{name} <span class="medal-total">({shown[name]})</span>' in page
    assert source in page
    board = Board()
    board.feed(page)
    assert len(board.rows) == 12  # the games in one table, the Final's standings after it
    assert page.count('class="table table-sm table-striped results-stage"') == 1
    pdf = client.get("/e/club/results.pdf").content
    texts = line_texts(pdf)
    for medal, name in zip(("Gold", "Silver", "Bronze"), (gold, silver, bronze), strict=True):
        assert f"{medal} {name} ({shown[name]})" in texts
    assert source in " ".join(texts)
    for name, totals in played.items():
        assert reads_whole(texts, name, board_numbers(totals, 3)) == 1, name


def test_a_tie_at_the_cut_is_pending_below_the_line_until_its_playoff(director, client):
    event = cumulative_event(
        director,
        "tie",
        8,
        kind="cumulative_final",
        games=1,
        format_final_size=4,
        advancement_tie="playoff",
    )
    players = names(8)
    totals = dict(zip(players, [105, 106, 107, 108, 108, 120, 121, 122], strict=True))
    game1 = seat(event)
    for table in Table.objects.filter(stage=game1):
        play_totals(table, totals)
    close_and_seat(game1, director)
    board = board_of(client, "/e/tie/bracket/")
    assert [r["name"] for r in board.rows] == players
    assert board.cut_after == players[2:3]  # three clear of the cut, two tied at it
    assert [r["name"] for r in board.rows if "finalist" in r["badges"]] == players[:3]
    assert [r["name"] for r in board.rows if "playoff pending" in r["badges"]] == players[3:5]
    assert [r["cells"][0] for r in board.rows[3:5]] == ["T4", "T4"]
    page = client.get("/e/tie/bracket/").content.decode().replace("&#x27;", "'")
    assert "Playoff for the Final's last places" in page  # its table, to be played
    texts = line_texts(client.get("/e/tie/bracket.pdf").content)
    for name in players[3:5]:
        assert reads_whole(texts, f"{name} PLAYOFF PENDING", ["108", "108"]) == 1, name


def test_a_cumulative_event_medals_from_its_totals_and_marks_who_withdrew(director, client):
    event = cumulative_event(director, "night", 12, games=3)
    played = play_games(event, director, stages=1)
    leaver = event.players.get(name=names(12)[5])
    withdraw_player(leaver, director)
    stage = event.stages.get(number=2)
    for name, total in play_stage(stage).items():
        played[name].append(total)
    stage = close_and_seat(stage, director).seated
    for name, total in play_stage(stage).items():
        played[name].append(total)
    close_and_seat(stage, director)
    board = board_of(client, "/e/night/bracket/")
    row = row_of(board, leaver.name)
    assert row["cells"][0] == "—" and "withdrew" in row["badges"]
    first = str(played[leaver.name][0])
    assert row["cells"][2:] == [first, "—", "—", "—", first]  # keeps the game played
    assert board.rows[-1]["name"] == leaver.name  # after everyone placed
    contending = sorted((n for n in played if n != leaver.name), key=lambda n: sum(played[n]))
    assert [r["name"] for r in board.rows[:11]] == contending
    medals = [r["badges"] for r in board.rows[:3]]
    assert medals == [["Gold"], ["Silver"], ["Bronze"]]
    assert not board.cut_after  # no Final, no cut
    page = client.get("/e/night/results/").content.decode()
    total = sum(played[contending[0]])
    assert f'{contending[0]} <span class="medal-total">({total})</span>' in page
    assert "Medals from the cumulative totals, lowest first." in page


def test_divisions_each_have_their_table_places_and_medals(director, client):
    event = make_event(
        director, slug="ages", engines=[1, 0], game_minutes=None, format_kind="cumulative",
        format_games=2,
    )  # fmt: skip
    make_players(event, names=names(16)[:8], division="60-69")
    make_players(event, names=names(16)[8:], division="70-79")
    played = play_games(event, director)
    board = board_of(client, "/e/ages/bracket/")
    for division, group in (("60-69", names(16)[:8]), ("70-79", names(16)[8:])):
        rows = [r for r in board.rows if r["division"] == division]
        ranked = sorted(group, key=lambda n: sum(played[n]))
        assert [r["name"] for r in rows] == ranked
        assert [r["cells"][0] for r in rows] == [str(i) for i in range(1, 9)]
        assert [r["badges"] for r in rows[:4]] == [["Gold"], ["Silver"], ["Bronze"], []]
        for r in rows:  # two games: each game's total, then the cumulative total
            assert r["cells"][2:] == [*map(str, played[r["name"]]), str(sum(played[r["name"]]))]
    pdf = client.get("/e/ages/bracket.pdf").content
    texts = line_texts(pdf)
    assert page_count(pdf) == 1
    assert sum(t.strip() in ("60-69", "70-79") for t in texts) >= 2  # each part says whose
    for name, totals in played.items():
        assert reads_whole(texts, name, board_numbers(totals, 2)) == 1, name


def test_a_game_under_way_shows_as_it_stands_and_the_games_to_play(director, client):
    event = cumulative_event(director, "live", 12, games=3)
    played = play_games(event, director, stages=1)
    game2 = event.stages.get(number=2)
    table = Table.objects.filter(stage=game2).order_by("number").first()
    players = table_sheet(table).players
    record_round(table, {p.pk: 0 if i == 0 else 5 + i for i, p in enumerate(players)}, None)
    board = board_of(client, "/e/live/bracket/")
    assert board.headers[0][2:] == ["Game 1", "Game 2", "Total"]
    assert board.heading_badges == ["under way"]
    for i, p in enumerate(players):
        row = row_of(board, p.name)
        now = 0 if i == 0 else 5 + i
        assert row["cells"][2:] == [str(played[p.name][0]), str(now), str(played[p.name][0] + now)]
    page = client.get("/e/live/bracket/").content.decode()
    assert "Still to play: Game 3" in " ".join(page.split())
    assert "Medals are awarded when the last game is closed." in page


# -- sizes: the largest type that fits, and a field too large for a page ------------------------


def synthetic_board(players: int, games: int) -> CumulativeBoard:
    stages = [Stage(name=f"Game {n}", number=n, closed=True) for n in range(1, games + 1)]
    numbers = CumulativeBoard(stages, [], [], False, [], "").numbers
    rows = [
        BoardRow(Player(name=f"Player {i:04d}"), str(i), [("123", "456")] * games, "999")
        for i in range(1, players + 1)
    ]
    assert numbers == (2 * games - 1 if games > 1 else 2)
    return CumulativeBoard(stages, [], [BoardDivision("", rows)], False, [], "")


def test_the_largest_type_that_fits_and_a_field_too_large_runs_on_at_nine_points():
    forty = views.board_layout(synthetic_board(40, 3), [], "letter")
    hundred = views.board_layout(synthetic_board(100, 3), [], "letter")
    large = views.board_layout(synthetic_board(100, 3), [], "ledger")
    assert 13 >= forty.size > hundred.size >= 6 and large.size > hundred.size
    for layout, width in ((forty, 727), (hundred, 727), (large, 1159)):
        assert not layout.run_on
        assert layout.columns * (layout.table_em + 0.8) * layout.size <= width
    crowd = views.board_layout(synthetic_board(1000, 3), [], "letter")
    assert crowd.run_on and crowd.size == 9 and crowd.columns == 1
    wide = views.results_board_layout(synthetic_board(12, 12), "letter")
    assert wide.size < 10 and wide.table_em * wide.size <= 547


def test_a_table_that_runs_on_repeats_its_heading_and_keeps_every_row_whole(
    client, forty, monkeypatch
):
    event, played = forty
    monkeypatch.setattr(views, "_BOARD_SMALLEST", 30.0)  # nothing fits one page: run on
    monkeypatch.setattr(views, "_BOARD_RUN_ON", 16.0)  # in type large enough to need pages
    pdf = client.get("/e/forty/bracket.pdf").content
    pages = page_count(pdf)
    assert pages >= 2
    words = pdf_words(pdf)
    assert [sum(w["text"] == "Player" for w in page) for page in words] == [1] * pages
    texts = line_texts(pdf)
    for name, totals in played.items():
        assert reads_whole(texts, name, board_numbers(totals, 3)) == 1, name


# -- the score sheets ------------------------------------------------------------------------------


def pdf_words(pdf: bytes) -> list[list[dict]]:
    """Each page's words with their positions."""
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        return [page.extract_words() for page in doc.pages]


def before_numbers(words: list[dict]) -> list[dict] | None:
    """The numbers a sheet gives beside "Before this game" (the label may wrap: the numbers
    are within its two lines), left to right; None when the sheet has no such line."""
    label = next((w for w in words if w["text"] == "Before"), None)
    if label is None:
        return None
    return sorted(
        (
            w
            for w in words
            if w["text"].isdigit() and label["top"] - 6 <= w["top"] <= label["top"] + 16
        ),
        key=lambda w: w["x0"],
    )


def centre_of(words: list[dict], name: str) -> float:
    """The middle of ``name`` written whole in the sheet's heading (its words in a row)."""
    parts = name.split()
    for i in range(len(words) - len(parts) + 1):
        run = words[i : i + len(parts)]
        if [w["text"] for w in run] == parts:
            return (run[0]["x0"] + run[-1]["x1"]) / 2
    raise AssertionError(f"{name} is not written whole")


@pytest.mark.parametrize("blank", [False, True])
def test_a_games_score_sheet_says_each_players_cumulative_total_before_it(director, client, blank):
    event = cumulative_event(director, "sheets", 12, games=3)
    played = play_games(event, director, stages=2)
    tail = "blank-sheets.pdf" if blank else "sheets.pdf"
    game1 = pdf_words(client.get(f"/e/sheets/1/{tail}").content)
    assert all(before_numbers(words) is None for words in game1)  # nothing before Game 1
    pages = pdf_words(client.get(f"/e/sheets/3/{tail}").content)
    tables = list(Table.objects.filter(stage__event=event, stage__number=3).order_by("number"))
    assert len(pages) == len(tables)  # still one table a page
    for table, words in zip(tables, pages, strict=True):
        numbers = before_numbers(words)
        players = table_sheet(table).players
        assert [n["text"] for n in numbers] == [str(sum(played[p.name][:2])) for p in players]
        for player, number in zip(players, numbers, strict=True):
            # under the player's name, both centred in the player's column
            centre = (number["x0"] + number["x1"]) / 2
            assert abs(centre - centre_of(words, player.name)) < 20, player.name


def test_the_final_sheet_says_the_cumulative_total_only_when_the_medals_add_it(director, client):
    for slug, extra in (("plain", {}), ("plus", {"format_medals_from": "cumulative_plus_final"})):
        event = cumulative_event(
            director, slug, 8, kind="cumulative_final", games=1, format_final_size=4, **extra
        )
        played = play_games(event, director, stages=1)
        (words,) = pdf_words(client.get(f"/e/{slug}/2/blank-sheets.pdf").content)
        numbers = before_numbers(words)
        if not extra:
            assert numbers is None
            continue
        finalists = sorted(played, key=lambda n: played[n][0])[:4]
        shown = sorted(w["text"] for w in numbers)
        assert shown == sorted(str(played[n][0]) for n in finalists)


# -- the standings export ------------------------------------------------------------------------


def test_the_standings_export_has_a_column_per_game_and_the_cumulative_total(
    director, client, director_client
):
    event = cumulative_event(director, "sheet", 12, games=3)
    played = play_games(event, director)
    for p in event.players.all():
        p.ref = f"R{p.pk}"
        p.save()
    ranked = sorted(played, key=lambda n: sum(played[n]))
    response = client.get("/e/sheet/3/standings/export/?_export=csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == [
        "Place", "Player", "Division", "Game 1", "Game 2", "Game 3", "Total", "Note",
    ]  # fmt: skip
    assert [r[1] for r in rows[1:]] == ranked
    for place, row in enumerate(rows[1:], start=1):
        totals = played[row[1]]
        assert row[3:7] == [*map(str, totals), str(sum(totals))]
        assert row[0] == str(place)
    assert [r[7] for r in rows[1:4]] == ["Gold", "Silver", "Bronze"]
    # After Game 2: its columns only, places by the total then.
    response = director_client.get("/e/sheet/2/standings/export/?_export=xlsx")
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    values = list(sheet.values)
    assert list(values[0]) == [
        "Place", "Player id", "Player", "Division", "Game 1", "Game 2", "Total", "Note",
    ]  # fmt: skip
    after2 = sorted(played, key=lambda n: sum(played[n][:2]))
    assert [v[2] for v in values[1:]] == after2
    for row in values[1:]:
        assert row[1] == f"R{event.players.get(name=row[2]).pk}"
        assert list(row[4:7]) == [*played[row[2]][:2], sum(played[row[2]][:2])]  # numbers
        assert row[7] in (None, "")  # no medal yet after Game 2


# -- a fixed number of queries whatever the event's size ------------------------------------------


def queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200
    return len(captured)


def test_the_bracket_and_results_take_as_many_queries_for_48_players_as_for_12(director, client):
    counts = {}
    for count in (12, 48):
        event = cumulative_event(
            director, f"q{count}", count, kind="cumulative_final", format_final_size=4
        )
        play_games(event, director)
        counts[count] = [queries(client, f"/e/q{count}/{page}/") for page in ("bracket", "results")]
        board = board_of(client, f"/e/q{count}/bracket/")
        assert len(board.rows) == count  # what was counted is the whole table
    assert counts[12] == counts[48]


# -- on a phone and a wide screen: accessible, no sideways scrolling ------------------------------


@pytest.mark.browser
@pytest.mark.parametrize("screen", [{"width": 1280, "height": 800}, {"width": 320, "height": 640}])
def test_the_bracket_and_results_are_accessible_on_a_phone(
    browser, live_server, transactional_db, pages, screen
):
    from tests.factories import make_director

    director = make_director("paper")
    event = cumulative_event(director, "phone", 12, kind="cumulative_final", format_final_size=4)
    play_games(event, director)
    page = pages(viewport=screen)
    for path in ("/e/phone/bracket/", "/e/phone/results/"):
        response = page.goto(live_server.url + path)
        assert response.status == 200
        b.settle([page])
        assert page.evaluate("window.__a11yState") == "done"
        assert page.locator("table.cumulative-table tbody tr[data-player]").count() == 12


@pytest.mark.parametrize("language, label", [("fr", ["12", "ex."]), ("en", ["T12"])])
def test_a_shared_place_on_the_bracket_pdf_stands_apart_from_the_name(
    director, client, language, label
):
    """Issue 45 item 11: a place shared at 12th ("12 ex." in French) was wider than the place's
    column and ran into the player's name. It stays on its player's line, left of the names'
    column, which every row shares."""
    event = cumulative_event(director, "twelfth", 13, games=3)
    players = names(13)
    totals = dict(zip(players, [*range(100, 111), 140, 140], strict=True))  # 12th and 13th tie
    game1 = seat(event)
    for table in Table.objects.filter(stage=game1):
        play_totals(table, totals)
    close_and_seat(game1, director)
    pdf = client.get("/e/twelfth/bracket.pdf", HTTP_ACCEPT_LANGUAGE=language).content
    lines = pdf_lines(pdf)
    first = {p.split()[0] for p in players}

    def name_left(line) -> float | None:
        found = [w for w in line if w["text"].replace("▸", "") in first]
        return found[0]["x0"] if found else None

    columns = {round(x) for x in map(name_left, lines) if x is not None}
    assert len(columns) == 1, columns  # every name starts at the names' column
    shared = [line for line in lines if [w["text"] for w in line[: len(label)]] == label]
    assert len(shared) == 2, [" ".join(w["text"] for w in line) for line in lines]
    for line in shared:
        place_end, name_start = line[len(label) - 1]["x1"], name_left(line)
        assert name_start is not None and place_end + 2 <= name_start, line
