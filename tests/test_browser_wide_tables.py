"""Wide tables on a 360 px phone (issue 45 item 11): the standings after every game of a
cumulative event and a 7-player table's score sheet are wider than the phone. Their games (the
players' columns) scroll inside the table while the place and the player (the engine) stay at
the left and the total at the right; the page itself never scrolls sideways."""

import pytest

from scoring.models import Round
from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat
from tests.test_advancement import play_totals
from tests.test_formats_pages import cumulative_event
from tournament.models import Table

pytestmark = pytest.mark.browser

PHONE_360 = {**b.PHONE, "viewport": {"width": 360, "height": 800}}
# Where a cell is on the screen: its left and right edges.
EDGES = """(el) => { const r = el.getBoundingClientRect(); return [r.left, r.right]; }"""
SCROLL = """([selector, x]) => { document.querySelector(selector).scrollLeft = x; }"""


def in_view(page, locator, width: int) -> bool:
    left, right = locator.evaluate(EDGES)
    return 0 <= left and right <= width


def sideways(page) -> float:
    return page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")


def test_the_place_player_and_total_stay_in_view_while_the_games_scroll(
    live_server, transactional_db, pages
):
    event = cumulative_event(12)
    event.name, event.slug = "Club Night", "club"
    event.save()
    page = pages(**PHONE_360)
    page.goto(live_server.url + "/e/club/standings/")
    assert sideways(page) <= 0
    scroller = ".table-responsive:has(table.cumulative-all)"
    wide = page.evaluate(f"() => document.querySelector('{scroller}').scrollWidth")
    assert wide > 360  # two games, a game and a running total each: wider than the phone
    row = page.locator("table.cumulative-all tbody tr").first
    for x in (0, wide // 2, wide):
        page.evaluate(SCROLL, [scroller, x])
        for cell in ("td.place-col", "td.player-name", "td.total"):
            assert in_view(page, row.locator(cell), 360), (x, cell)
    page.evaluate(SCROLL, [scroller, wide])
    assert in_view(page, page.locator("table.cumulative-all thead th.total"), 360)
    page.screenshot(path=str(b.artifact("cumulative-all-360.png")), full_page=True)


NAMES = [
    "Bartholomew Featherstonehaugh",
    "Maximiliana Papadopoulou",
    "Jean-Christophe Vandenberghe",
    "Henrietta Fotheringham",
    "Konstantinos Alexandropoulos",
    "Wilhelmina Oppenheimer",
    "Gwendolyn Montgomery-Smythe",
]


def test_a_seven_player_sheet_keeps_its_engine_column_in_view(live_server, transactional_db, pages):
    director = make_director()
    event = make_event(
        director, game_minutes=None, table_size=7, tiles_drawn={"7": 11}, slug="seven"
    )
    make_players(event, NAMES)
    table = Table.objects.get(stage=seat(event))
    assert table.seats.count() == 7
    play_totals(table, {name: 10 + i for i, name in enumerate(NAMES)})
    assert Round.objects.filter(table=table).exists()
    page = pages(**PHONE_360)
    page.goto(f"{live_server.url}/e/seven/1/table/{table.number}/")
    assert sideways(page) <= 0
    scroller = ".table-responsive:has(#sheet)"
    wide = page.evaluate(f"() => document.querySelector('{scroller}').scrollWidth")
    assert wide > 360
    for x in (0, wide // 2, wide):
        page.evaluate(SCROLL, [scroller, x])
        engine = page.locator("#sheet tbody tr").first.locator("th")
        assert in_view(page, engine, 360), x
        assert in_view(page, page.locator("#sheet tfoot tr").first.locator("th"), 360), x
    page.screenshot(path=str(b.artifact("sheet-seven-360.png")), full_page=True)
