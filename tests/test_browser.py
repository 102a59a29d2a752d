"""A director scores a round in a real browser; the public sees it (PRODUCT.md §4).

Drives Debian's Chromium through Playwright against pytest-django's live server; see
tests/browser.py. Run only these with ``pytest -m browser``.
"""

import re

import pytest
from playwright.sync_api import expect

from scoring.models import Round, Score
from scoring.services.rounds import record_round
from tests import browser as b
from tests.factories import make_director, make_event, make_players, play, seat

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"
ENTER = "/director/e/spring/1/table/1/enter/"


@pytest.fixture
def site(browser, live_server, transactional_db):
    """Spring Games: a director "desk", 8 players seated at two tables of Game 1."""
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    make_players(event, count=8)
    stage = seat(event)
    return {
        "url": live_server.url,
        "director": director,
        "stage": stage,
        "table1": stage.tables.get(number=1),
        "table2": stage.tables.get(number=2),
    }


def seated(table):
    return [s.player for s in table.seats.select_related("player").order_by("position")]


def director_at_round_entry(site, pages):
    """Ask for table 1's score entry page, get the login form, log in, land on the page."""
    page = pages()
    page.goto(site["url"] + ENTER)
    assert "/accounts/login/" in page.url
    b.log_in(page, "desk", PASSWORD)
    assert page.url == site["url"] + ENTER
    expect(page.get_by_role("heading", name="Round 12-12")).to_be_visible()
    return page


def standings_rows(page):
    """The standings table as a list of {column header: cell text}, in display order."""
    table = page.locator("table#standings")
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    return [
        dict(zip(headers, (c.strip() for c in row.locator("td").all_inner_texts()), strict=True))
        for row in table.locator("tbody tr").all()
    ]


def test_director_saves_a_round_and_the_public_standings_show_it(site, pages):
    table1, table2 = site["table1"], site["table2"]
    # Table 2 played a blocked round (nobody at 0), so table 1's domino is the sole leader.
    record_round(
        table2, {p.pk: 5 * (i + 1) for i, p in enumerate(seated(table2))}, site["director"]
    )
    players = seated(table1)
    pips = dict(zip(players, [0, 25, 9, 41, 17][: len(players)], strict=True))

    page = director_at_round_entry(site, pages)
    for player, value in pips.items():
        page.locator(f"input[name=p{player.pk}]").fill(str(value))
    with page.expect_navigation():
        page.get_by_role("button", name="Save round 12-12").click()

    expect(page.get_by_role("alert")).to_have_text("Round 12-12 saved.")
    expect(page.get_by_role("heading", name="Round 11-11")).to_be_visible()
    saved = Round.objects.get(table=table1)
    assert (saved.engine, saved.entered_by) == (12, site["director"])
    assert {s.player_id: s.pips for s in saved.scores.all()} == {p.pk: v for p, v in pips.items()}

    public = pages()  # a new context: nobody logged in
    public.goto(site["url"] + "/e/spring/1/")
    expect(public.locator("table#standings")).to_be_visible()
    rows = standings_rows(public)
    by_name = {row["Player"]: row for row in rows}
    for player, value in pips.items():
        assert by_name[player.name]["Total"] == str(value)
        assert by_name[player.name]["Rounds played"] == "1"
    for i, player in enumerate(seated(table2)):
        assert by_name[player.name]["Total"] == str(5 * (i + 1))
    leader = min(pips, key=pips.get)
    assert (rows[0]["Place"], rows[0]["Player"]) == ("1", leader.name)
    totals = [int(row["Total"]) for row in rows]
    assert totals == sorted(totals)
    public.screenshot(path=b.artifact("standings.png"), full_page=True)


@pytest.mark.parametrize(
    "wrong, message, at_field",
    [
        pytest.param(
            {0: 2000},
            "2000 is more than the 731 pips that can be left.",
            True,
            id="above-the-bound",
        ),
        pytest.param(
            {0: 0, 1: 0, 2: 0},
            "3 players have 0: only the player who dominoed and a player holding just the "
            "double-blank can have 0.",
            False,
            id="two-zeros",
        ),
    ],
)
def test_a_wrong_round_is_explained_and_nothing_is_saved(site, pages, wrong, message, at_field):
    players = seated(site["table1"])
    values = {p: wrong.get(i, 10 + i) for i, p in enumerate(players)}

    page = director_at_round_entry(site, pages)
    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    for player, value in values.items():
        page.locator(f"input[name=p{player.pk}]").fill(str(value))
    page.locator(f"input[name=p{players[-1].pk}]").press("Enter")  # Enter in the last cell

    # Checked in the browser, before anything is sent: the save button says why it waits.
    expect(page.locator("#save-why")).to_have_text("Fix the marked cells to save.")
    expect(page.get_by_role("button", name="Save round 12-12")).to_be_disabled()
    assert posts == []
    if at_field:
        bad = page.locator(f"input[name=p{players[0].pk}]")
        expect(bad).to_have_class(re.compile(r"\bis-invalid\b"))
        feedback = page.locator(f"#{bad.get_attribute('id')} ~ .invalid-feedback")
        expect(feedback).to_have_text(message)
    else:
        expect(page.locator("#round-errors")).to_have_text(message)
    expect(page.get_by_text("saved.")).to_have_count(0)
    # Still the same round, with what was typed kept for fixing.
    expect(page.get_by_role("heading", name="Round 12-12")).to_be_visible()
    for player, value in values.items():
        expect(page.locator(f"input[name=p{player.pk}]")).to_have_value(str(value))
    assert not Round.objects.exists()
    assert not Score.objects.exists()


def test_the_public_table_sheet_shows_the_grid_on_a_phone(site, pages):
    play(site["table1"], rounds=3, user=site["director"])
    players = seated(site["table1"])

    page = pages(**b.PHONE)
    page.goto(site["url"] + "/e/spring/1/table/1/")
    grid = page.locator("table#sheet")
    expect(grid).to_be_visible()
    expect(grid.locator("th.player-name")).to_have_text([p.name for p in players])
    expect(grid.locator("tbody tr")).to_have_count(13)  # one row per engine, 12-12 to 0-0
    expect(grid.locator("tbody tr td .pips")).to_have_count(3 * len(players))
    expect(grid.locator("tfoot td.total")).to_have_count(len(players))
    # The grid fits the phone's width: no sideways scrolling of the page or of the grid.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = grid.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.screenshot(path=b.artifact("table-phone.png"), full_page=True)


def test_public_standings_update_themselves(site, pages, settings):
    settings.LIVE_REFRESH_SECONDS = 1
    page = pages()
    page.goto(f"{site['url']}/e/spring/1/")
    table = site["table1"]
    players = seated(table)
    record_round(table, dict(zip([p.pk for p in players], [0, 7, 8, 9], strict=True)), None)
    row = page.locator("#standings tr", has_text=players[3].name)
    expect(row.locator("td").nth(4)).to_have_text("9", timeout=10_000)  # its total
    expect(page.locator("#live-tables")).to_contain_text("1 round", timeout=10_000)
