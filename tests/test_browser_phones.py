"""Issue 28 item 19: every page reads whole on a phone (360 and 390 px) without a sideways scroll.

Secondary columns fold away (the standings' Table, Rounds played and Infractions; the player
page's Seat, With, Rounds and Infractions), names wrap between words and never inside one, the
player page's chart labels never overlap, the desk's search field shows its whole placeholder
and its buttons keep their words on one line, and a phone's entry page shows the round's engine
as the directors' pages do: "12|12".
"""

import pytest
from django.db.models import Count
from playwright.sync_api import expect

from scoring.eventfile import import_event
from scoring.services.infractions import log_infraction
from tests import browser as b
from tests.factories import make_director, make_event, make_players, play, seat
from tournament.models import Player

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"
DATA = b.Path(__file__).resolve().parent / "data"
# Two-word names, some long: a table of four shows them side by side in a 360 px grid.
NAMES = [
    "Olive Chen",
    "Bartholomew Featherstonehaugh",
    "Maximiliana Wolfeschlegel",
    "Christopher Montgomery",
    "Anastasia Vandenberghe",
    "Josephine Abercrombie",
    "Wilhelmina Kowalczykowska",
    "Alexander Oppenheimer",
    "Penelope Winterbottom",
    "Sebastian Castellanos",
    "Evangeline Rosenkrantz",
    "Frederick Brightwater",
]
WIDTHS = [360, 390]

# The words of the elements ``selector`` finds that a line break cuts in two (a hyphen is where
# a word may break: "Lefèvre-" and "Dubois" are checked apart).
BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const el of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[^\\s-]+-?/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
}"""
# How far the page reaches past the window's right edge (0 when it does not scroll sideways).
PAST_THE_EDGE = "() => document.documentElement.scrollWidth - window.innerWidth"
# How far a table reaches past its own scroller's edge (a column cut off on a phone).
TABLE_CUT = """(selector) => {
  const table = document.querySelector(selector);
  return table.scrollWidth - table.closest('.table-responsive').clientWidth;
}"""
# Pairs of the chart's texts whose boxes overlap.
OVERLAPS = """(selector) => {
  const boxes = [...document.querySelectorAll(selector)].map((t) => [t.textContent,
    t.getBoundingClientRect()]);
  const found = [];
  boxes.forEach(([a, p], i) => boxes.slice(i + 1).forEach(([c, q]) => {
    if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom)
      found.push(a + ' / ' + c);
  }));
  return found;
}"""
# How much wider the input's placeholder is than the room for text in the input.
PLACEHOLDER_CUT = """(selector) => {
  const input = document.querySelector(selector);
  const style = getComputedStyle(input);
  const context = document.createElement('canvas').getContext('2d');
  context.font = style.font;
  const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return context.measureText(input.placeholder).width - room;
}"""
# The visible buttons whose words go over more than one line (what only a screen reader
# reads, .visually-hidden, is not on any line).
WRAPPED_BUTTONS = """() => [...document.querySelectorAll('main button, main a.btn')]
  .filter((el) => el.offsetParent !== null)
  .filter((el) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const lines = new Set();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('.visually-hidden')) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) if (r.width > 1) lines.add(Math.round(r.bottom));
    }
    return lines.size > 1;
  }).map((el) => el.textContent.trim())"""


@pytest.fixture
def site(browser, live_server, transactional_db):
    """Twelve players with two-word names at three tables of Game 1 (its tables' phones enter
    rounds); Olive Chen's table has played two rounds and logged an infraction. And an event
    with medals after playoffs and a replay: a player with four games."""
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Phone Games", slug="phones", table_entry=True)
    make_players(event, names=NAMES)
    stage = seat(event)
    olive = Player.objects.get(event=event, name="Olive Chen")
    table = stage.tables.get(seats__player=olive)
    play(table, 2, user=director)
    log_infraction(table, olive, 12, "wrong_tile", "", director)
    medals = import_event(
        (DATA / "playoff-medals-with-replay.json").read_bytes(), director=director, slug="medals"
    )
    busiest = (
        Player.objects.filter(event=medals)
        .annotate(games=Count("seats"))
        .order_by("-games", "pk")
        .first()
    )
    # A medallist with a long two-word name, on the bracket and the results.
    Player.objects.filter(pk=busiest.pk).update(name="Bartholomew Featherstonehaugh")
    return {
        "url": live_server.url,
        "table": table,
        "fresh": stage.tables.exclude(pk=table.pk).first(),
        "busiest": busiest,
    }


def phone(pages, width):
    return pages(**{**b.PHONE, "viewport": {"width": width, "height": 800}})


def director_phone(site, pages, width, path):
    page = phone(pages, width)
    page.goto(f"{site['url']}/accounts/login/?next={path}")
    b.log_in(page, "desk", PASSWORD)
    return page


def reads_whole(page):
    assert page.evaluate(PAST_THE_EDGE) <= 0


@pytest.mark.parametrize("width", WIDTHS)
def test_the_standings_fold_their_secondary_columns_on_a_phone(site, pages, width):
    page = phone(pages, width)
    page.goto(f"{site['url']}/e/phones/1/")
    reads_whole(page)
    assert page.evaluate(TABLE_CUT, "table#standings") <= 0  # no column cut off
    headers = page.locator("table#standings thead th:visible").all_inner_texts()
    assert headers == ["Place", "Player", "Total"]
    assert page.evaluate(BROKEN_WORDS, "table#standings tbody td") == []
    page.screenshot(path=str(b.artifact(f"phones-standings-{width}.png")), full_page=True)
    # What folds away on a phone is on the player's own page, and on a wide screen.
    page.get_by_role("link", name="Olive Chen", exact=True).click()
    expect(page.locator("#player-games .infraction-count")).to_have_text("1")
    wide = pages(viewport={"width": 1280, "height": 800})
    wide.goto(f"{site['url']}/e/phones/1/")
    headers = wide.locator("table#standings thead th:visible").all_inner_texts()
    assert headers == ["Place", "Player", "Table", "Rounds played", "Total", "Infractions"]
    olive = wide.locator("table#standings tbody tr", has_text="Olive Chen")
    assert olive.locator("td:visible").all_inner_texts()[-1] == "1"
    wide.screenshot(path=str(b.artifact("phones-standings-1280.png")), full_page=True)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_directors_entry_grid_wraps_names_between_words(site, pages, width):
    t = site["table"]
    page = director_phone(site, pages, width, f"/director/e/phones/1/table/{t.number}/enter/")
    expect(page.locator("#round-form")).to_be_visible()
    reads_whole(page)
    assert page.evaluate(BROKEN_WORDS, "#sheet th.player-name, .round-cells label") == []
    page.screenshot(path=str(b.artifact(f"phones-entry-{width}.png")), full_page=True)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_phones_entry_page_shows_the_engine_as_a_domino(site, pages, width):
    table = site["fresh"]
    page = phone(pages, width)
    page.goto(f"{site['url']}/t/{table.code}/")
    holder = table.seats.order_by("position").first().player.name
    page.get_by_role("button", name=holder, exact=True).click()
    expect(page.locator("#round-form")).to_be_visible()
    expect(page.locator("#round-form h2 .domino")).to_have_text("12|12")
    expect(page.locator("#round-form h2")).to_have_accessible_name("Round 12-12")
    reads_whole(page)
    assert page.evaluate(BROKEN_WORDS, "#running-totals li, .round-cells label") == []
    page.screenshot(path=str(b.artifact(f"phones-terminal-{width}.png")), full_page=True)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_player_page_fits_and_its_chart_labels_never_overlap(site, pages, width):
    page = phone(pages, width)
    page.goto(f"{site['url']}/e/medals/player/{site['busiest'].pk}/")
    expect(page.locator("#games-chart")).to_be_visible()
    reads_whole(page)
    assert page.evaluate(TABLE_CUT, "table#player-games") <= 0
    assert page.locator("#games-chart svg text").count() >= 4
    assert page.evaluate(OVERLAPS, "#games-chart svg text") == []
    # Every game's name and total is still told, under the chart.
    assert (
        page.locator("#games-chart figcaption li").count()
        == page.locator("#games-chart .chart-bar").count()
    )
    page.screenshot(path=str(b.artifact(f"phones-player-{width}.png")), full_page=True)
    wide = pages(viewport={"width": 1280, "height": 800})
    wide.goto(f"{site['url']}/e/medals/player/{site['busiest'].pk}/")
    assert wide.evaluate(OVERLAPS, "#games-chart svg text") == []
    assert wide.locator("table#player-games thead th:visible").count() == 8
    wide.screenshot(path=str(b.artifact("phones-player-1280.png")), full_page=True)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_desks_search_and_buttons_fit_a_phone(site, pages, width):
    page = director_phone(site, pages, width, "/director/e/phones/desk/")
    expect(page.locator("#desk-q")).to_be_visible()
    reads_whole(page)
    assert page.evaluate(PLACEHOLDER_CUT, "#desk-q") <= 0
    assert page.evaluate(WRAPPED_BUTTONS) == []
    assert page.evaluate(BROKEN_WORDS, "#desk-list a") == []
    page.screenshot(path=str(b.artifact(f"phones-desk-{width}.png")), full_page=True)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", ["bracket", "results"])
def test_the_bracket_and_results_read_whole_on_a_phone(site, pages, width, path):
    page = phone(pages, width)
    page.goto(f"{site['url']}/e/medals/{path}/")
    reads_whole(page)
    names = ".bracket-name, .results-stage td, main a[href*='/player/']"
    assert page.locator(names).filter(has_text="Bartholomew Featherstonehaugh").count() >= 1
    assert page.evaluate(BROKEN_WORDS, names) == []
    for table in page.locator("table.results-stage").all():  # no column cut off
        assert (
            page.evaluate(
                TABLE_CUT, f"table.results-stage[data-stage='{table.get_attribute('data-stage')}']"
            )
            <= 0
        )
    page.screenshot(path=str(b.artifact(f"phones-{path}-{width}.png")), full_page=True)
