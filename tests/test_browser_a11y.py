"""Every page of the site, for a director and for the public, with events in every state,
on a wide screen and on a 320 px phone: no WCAG 2.2 A/AA violation that axe-core finds, and
no sideways scrolling of the page (a wide table scrolls inside its own scroller).

The checks themselves run in every page any browser test opens (tests/a11y_check.js, failed by
the ``accessible_pages`` fixture in conftest.py); this test makes sure every page is opened.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from scoring.eventfile import import_event
from scoring.models import (
    ImportJob,
    ImportStatus,
    Infraction,
    Rating,
    ReadingStatus,
    Series,
    SheetReading,
)
from scoring.services.ratings import compute_ratings
from scoring.services.series import add_event, create_series
from tests import browser as b
from tests.factories import make_director, make_event, make_players, seat
from tournament.models import Event, StageKind, Table
from tournament.services.clock import call_time, start_clock
from tournament.services.seating import seat_stage

pytestmark = pytest.mark.browser

PASSWORD = "a-Long-pass-phrase-42"
DATA = b.Path(__file__).resolve().parent / "data"
# An event in each state a tournament goes through, from event files of demo size.
FILES = {
    "rounds": "demo-event.json",  # Game 1 with rounds entered and infractions logged
    "called": "demo-event.json",  # the same with time called on Game 1's clock
    "closed": "advancement-playoff.json",  # every stage closed, a playoff played
    "playoff": "nvso-tie-for-gold-bronze-pending.json",  # a bronze playoff to play
    "medals": "playoff-medals-with-replay.json",  # medals after playoffs and a replay
}
WIDE = {"viewport": {"width": 1280, "height": 800}}
NARROW = {"viewport": {"width": 320, "height": 640}}
# The same phone with the largest text and high contrast (issue 51 item 5): the reader's choice,
# kept in cookies (tournament/views/display.py).
LARGEST = {"text_size": "largest", "contrast": "high"}

SITE = ["/", "/records/", "/accounts/login/", "/e/nowhere/"]
# A series' records, and a series that is not there (the events fixture makes "season").
SITE += ["/records/?series=season", "/records/?series=nowhere"]
SITE += ["/ratings/", "/ratings/?q=nobody+at+all"]  # the leaderboard, and a search of nobody
SITE += ["/s/", "/s/season/"]  # the series, and one's standings
EVENT = ["/e/{e}/", "/e/{e}/find/?q=Player", "/e/{e}/bracket/", "/e/{e}/results/"]
STAGE = ["/e/{e}/{s}/", "/e/{e}/{s}/seating/", "/e/{e}/{s}/clock/", "/e/{e}/{s}/table/1/"]
STAGE += ["/e/{e}/{s}/screen/"]  # the hall screen: every panel
DIRECTOR_SITE = ["/director/tables/", "/director/new/", "/director/import/"]
DIRECTOR_SITE += ["/director/import/series/"]
DIRECTOR_SITE += ["/director/s/new/", "/director/s/season/edit/", "/director/s/season/events/"]
DIRECTOR_EVENT = [
    "/director/e/{e}/edit/",
    "/director/e/{e}/players/",
    "/director/e/{e}/players/import/",
    "/director/e/{e}/desk/",
    "/director/e/{e}/delete/",
    "/director/e/{e}/scorekeepers/",
    "/director/e/{e}/history/",
    "/director/e/{e}/infractions/",
    "/director/e/{e}/ceremony/",
    "/director/e/{e}/ceremony/?step=3",  # a gold, its division's bronze and silver beneath
    "/director/e/{e}/qualifiers/",  # the qualifier and medal report
]
DIRECTOR_STAGE = [
    "/director/e/{e}/{s}/dashboard/",
    "/director/e/{e}/{s}/close/",
    "/director/e/{e}/{s}/reopen/",
    "/director/e/{e}/{s}/table/1/enter/",
    "/director/e/{e}/{s}/table/1/infraction/",
]
DIRECTOR_ROUND = [
    "/director/e/{e}/{s}/table/1/round/{r}/correct/",
    "/director/e/{e}/{s}/table/1/round/{r}/remove/",
]


@pytest.fixture
def events(browser, live_server, transactional_db, settings):
    """A director "desk" and their events, one in each state, with what the pages need."""
    director = make_director("desk", PASSWORD)
    seated = make_event(director, name="Seated Games", slug="seated")
    make_players(seated, count=18)
    game1 = seat(seated)
    start_clock(game1, director, now=timezone.now() - timedelta(minutes=57))  # its last minutes
    made = [seated]
    for slug, name in FILES.items():
        made.append(import_event((DATA / name).read_bytes(), director=director, slug=slug))
    rounds = made[1]
    rounds.table_entry = True  # its tables' phones enter rounds (the code on the sheet)
    rounds.save()
    called = made[2].stages.get(number=1)
    start_clock(called, director)
    call_time(called, director)
    # A large file's import, done and failed (one in progress reloads itself every 2 s).
    ImportJob.objects.create(by=director, status=ImportStatus.DONE, event=rounds)
    errors = [["players[3].id", '"p1" is the id of players[0] too'], ["stages", "missing"]]
    ImportJob.objects.create(by=director, status=ImportStatus.FAILED, errors=errors, error_count=3)
    # A draft seating and results held back (issue 49 item 4): "not published yet" for the
    # public; the draft's Publish button and "Release results" for its directors.
    draft = make_event(director, name="Draft Games", slug="draft")
    make_players(draft, count=8)
    seat_stage(draft.stages.get(number=1), draft.players.all(), publish=False)
    Event.objects.filter(pk=draft.pk).update(results_held=True)
    made.append(Event.objects.get(pk=draft.pk))
    read_sheets(game1.tables.get(number=1))
    season = create_series(Series(name="Season", slug="season"), director)
    add_event(season, made[3], director)  # the closed event: its records
    compute_ratings()  # as the background task does after each change
    settings.RATING_MIN_GAMES = 1  # the events' players have a game or two: a leaderboard
    return {"url": live_server.url, "director": director, "events": made}


def read_sheets(table) -> None:
    """A photo of a table's sheet read (each cell sure or to check, one saved round read
    otherwise) and one refused (another table's sheet): their pages (issue 51)."""
    seated = [s.player_id for s in table.seats.order_by("position")]
    engines = list(table.stage.event.rules.engines)

    def cell(i):
        return {"state": "number", "value": 10 + i, "confidence": 0.9, "sure": i % 3 == 0,
                "box": [0, 0, 10, 10]}  # fmt: skip

    cells = [[cell(i + j) for j in range(len(seated))] for i in range(len(engines))]
    SheetReading.objects.create(
        table=table, status=ReadingStatus.DONE, players=seated, engines=engines, cells=cells
    )
    SheetReading.objects.create(
        table=table,
        status=ReadingStatus.REFUSED,
        refusal="other_table",
        refusal_params={"table": 2, "stage": table.stage.title},
    )


def reading_pages() -> list[str]:
    return [
        f"/director/e/{r.table.stage.event.slug}/{r.table.stage.number}/table/"
        f"{r.table.number}/read/{r.pk}/"
        for r in SheetReading.objects.select_related("table__stage__event").order_by("pk")
    ]


def pages_of(events, director: bool) -> list[str]:
    """Every page of the site, for each event and each of its stages (first and last)."""
    paths = list(SITE) + (DIRECTOR_SITE if director else [])
    if director:
        paths += [job.get_absolute_url() for job in ImportJob.objects.order_by("pk")]
        paths += reading_pages()  # a sheet's photo read, to confirm; one refused
    paths.append("/t/WRONGCODE/")  # a code that opens no table
    rated = Rating.objects.select_related("player__event").order_by("-games", "pk").first()
    mine = f"/e/{rated.player.event.slug}/player/{rated.player_id}/"
    paths += [mine, f"{mine}?add=nobody+at+all"]  # their rating, a refused opponent
    for event in events:
        e = event.slug
        paths += [p.format(e=e) for p in EVENT + (DIRECTOR_EVENT if director else [])]
        player = event.players.order_by("pk").first()
        paths.append(f"/e/{e}/player/{player.pk}/")
        if director:
            paths.append(f"/director/e/{e}/players/{player.pk}/uncheck/")
            paths.append(f"/director/e/{e}/players/{player.pk}/")
        stages = list(event.stages.order_by("number"))
        for stage in {stages[0], stages[-1]}:
            s = stage.number
            table = Table.objects.filter(stage=stage, number=1).first()  # once seated
            # a one-round playoff has no clock, so no big screen of it (its address is a 404)
            clockless = stage.kind == StageKind.PLAYOFF
            paths += [
                p.format(e=e, s=s)
                for p in STAGE
                if (table or "table/" not in p) and not (clockless and p.endswith("/clock/"))
            ]
            if not director:
                continue
            paths += [p.format(e=e, s=s) for p in DIRECTOR_STAGE if table or "table/" not in p]
            if stage.kind == StageKind.PLAYOFF:
                paths.append(f"/director/e/{e}/{s}/remove-playoff/")
            first = table and table.rounds.order_by("pk").first()
            if first:
                paths += [p.format(e=e, s=s, r=first.number) for p in DIRECTOR_ROUND]
        if director:
            infraction = Infraction.objects.filter(table__stage__event=event).first()
            if infraction:
                paths.append(f"/director/e/{e}/infractions/{infraction.pk}/")
    return paths


@pytest.mark.parametrize(
    "screen, display",
    [(WIDE, {}), (NARROW, {}), (NARROW, LARGEST)],
    ids=["1280px", "320px", "320px-largest-text-high-contrast"],
)
@pytest.mark.parametrize("director", [False, True], ids=["public", "director"])
def test_every_page_is_accessible_and_fits_the_screen(events, pages, screen, display, director):
    page = pages(**screen)
    if screen is WIDE:  # the 320px pass opens these pages: no 320 px copy of each here too
        page.context.add_init_script("window.__a11yNarrowOpenedToo = true")
    page.context.add_cookies(
        [{"name": k, "value": v, "url": events["url"]} for k, v in display.items()]
    )
    if director:
        page.goto(events["url"] + "/accounts/login/")
        b.log_in(page, "desk", PASSWORD)
    paths = pages_of(events["events"], director)
    opened = []
    for path in paths:
        response = page.goto(events["url"] + path)
        b.settle([page])
        # Checked under the site's Content-Security-Policy (conftest.py fails any violation).
        checked = page.evaluate("window.__a11yState")
        policy = "script-src 'self'" in response.headers["content-security-policy"]
        opened.append((path, response.status, checked, policy))
        if display and response.status == 200:  # the page is shown as the reader chose
            assert page.locator("html.text-largest.contrast-high").count() == 1, path
    missing = ("/e/nowhere/", "/t/WRONGCODE/", "/records/?series=nowhere")
    expected = [(p, 404 if p in missing else 200, "done", True) for p in paths]
    assert opened == expected
    assert len(opened) >= (150 if director else 60)

    # A table's phone: the code on the sheet, then the table's entry.
    code = Table.objects.get(stage__event__slug="rounds", stage__number=1, number=1).code
    page.goto(f"{events['url']}/t/{code}/")
    with page.expect_navigation():
        page.locator("#table-players .join-as").first.click()  # "I hold this phone"
    assert page.url == f"{events['url']}/t/{code}/enter/"
    b.settle([page])
    assert page.evaluate("window.__a11yState") == "done"


# Served in place of the site (no Content-Security-Policy): an image with no text, and a block
# 400 px wide, which fits a wide screen and not a 320 px one.
BAD_PAGE = """<!doctype html><html lang="en"><head><title>Bad</title></head><body>
<main><h1>A bad page</h1><img src="/static/none.png"><div style="width: 400px">x</div></main>
</body></html>"""


def test_the_check_catches_a_page_that_breaks_the_standard(events, pages):
    page = pages(**WIDE)
    page.route("**/bad/", lambda route: route.fulfill(body=BAD_PAGE, content_type="text/html"))
    page.goto(events["url"] + "/bad/")
    b.settle([page])
    found, b.A11Y_PROBLEMS[:] = list(b.A11Y_PROBLEMS), []
    assert len(found) == 2, found
    assert "image-alt (critical)" in found[0]
    assert "scrolls sideways at 320 px: scrollWidth 408 > clientWidth 320" in found[1]
    assert "past the edge: div" in found[1]
