"""Live pages send what changed (issue 32 item 1): a spectator on the standings, the bracket,
the results or a table's page receives about the same bytes per saved round at 2,000 players
as at 40 (within 1.5x + 2 KB), at most 20 KB, counted over the wire by Chromium; and the page
stays what a fresh load shows after any sequence of changes: saved rounds at any table, a
correction, a removal, a game ended and reopened, a phone offline meanwhile, a stage closed.

Rounds are saved by posting the entry form as its page does; each phone is waited on until its
page has taken the event's new version (live.js writes it on <body> once every region is
brought up to date), never on a clock. Where bytes are counted, each phone makes one check per
saved round (live.js's own, started as a tab shown again starts it) and no timed one: the
checks a slower machine would make meanwhile, answered "nothing moved", cost a second of
waiting, not a saved round, and would make the count the machine's speed.
"""

import pytest

from scoring.models import Round
from scoring.services.rounds import correct_round, end_game, remove_round, reopen_game
from scoring.services.stages import close_and_seat
from scoring.sheets import table_sheet
from tests import browser as b
from tests.concurrency import logged_in
from tests.factories import make_director, make_event, play, seat
from tournament.models import Event, Player, Table
from tournament.services.clock import call_time, start_clock

pytestmark = pytest.mark.browser

PAGES = {
    "standings": ("/e/{slug}/1/", ["live-standings", "live-tables"]),
    "bracket": ("/e/{slug}/bracket/", ["live-bracket"]),
    "results": ("/e/{slug}/results/", ["live-results"]),
    "table": ("/e/{slug}/1/table/1/", ["live-sheet"]),
}
SAVES = 6


@pytest.fixture
def fast_polls(settings):
    settings.LIVE_REFRESH_SECONDS = 1


@pytest.fixture
def no_timed_checks(settings):
    """Pages that check when the test says so (``check_now``): no timed check in an hour."""
    settings.LIVE_REFRESH_SECONDS = 3600


def event_of(director, players: int) -> Event:
    """An event of ``players`` checked in and seated at Game 1's tables."""
    event = make_event(director, name=f"Open {players}", slug=f"open-{players}")
    Player.objects.bulk_create(
        Player(event=event, name=f"Player {i:04d}", checked_in=True) for i in range(players)
    )
    seat(event)
    return event


def save_round(client, table: Table, values=None) -> None:
    """The entry form's post for the table's next round, as its page sends it."""
    sheet = table_sheet(table)
    values = values or [0, 7 + sheet.played, 12, 30 - sheet.played][: len(sheet.players)]
    form = {f"p{p.pk}": v for p, v in zip(sheet.players, values, strict=False)}
    url = f"/director/e/{table.stage.event.slug}/{table.stage.number}/table/{table.number}/enter/"
    assert client.post(url, form).status_code == 302


def region_answers(response) -> list[tuple[str, dict]]:
    """The regions' answers a response of a live page carried: a check's, or one region's."""
    headers = response.request.headers
    if headers.get("x-live-region"):
        return [(headers["x-live-region"], response.json())]
    if "x-live-version" in headers:
        return list(response.json().get("regions", {}).items())
    return []


def caught_up(phone, event: Event) -> None:
    """Wait until the phone's page shows the event's version: every region brought up."""
    version = str(Event.objects.get(pk=event.pk).version)
    # A wait, not a measure: a 2,000-player region rendered anew on a busy machine (PostgreSQL,
    # both cores taken by the suite) may take longer than Playwright's 15 s default.
    phone.wait_for_function(
        "(v) => document.body.dataset.version === v", arg=version, timeout=120_000
    )


def check_now(phone) -> None:
    """live.js's check, at once: what it does when the tab is shown again."""
    phone.evaluate("document.dispatchEvent(new Event('visibilitychange'))")


def counter(phone):
    """Bytes Chromium receives from now on for the page's live requests (headers and bodies,
    as sent): its checks and the regions that ask alone (live.js), started from now on. Not
    counted: what the page's own load may still be fetching (its styles, its icon), and
    clock.json, which the standings' clock reads when the tab is shown again, as check_now
    makes it (a saved round leaves it unread: tests/test_browser_clock.py)."""
    got = {"bytes": 0}
    started = set()
    cdp = phone.context.new_cdp_session(phone)
    cdp.send("Network.enable")

    def sent(e) -> None:
        headers = {name.lower() for name in e["request"]["headers"]}
        if headers & {"x-live-version", "x-live-region"}:
            started.add(e["requestId"])

    cdp.on("Network.requestWillBeSent", sent)

    def finished(e) -> None:
        if e["requestId"] in started:
            got["bytes"] += e["encodedDataLength"]

    cdp.on("Network.loadingFinished", finished)
    return got


def region_view(phone, region_id: str) -> dict:
    """What a reader sees of a region: its text, and its pieces in order."""
    return phone.evaluate(
        """(id) => {
            const region = document.getElementById(id);
            return {
                text: region.innerText.replace(/\\s+/g, " ").trim(),
                keys: Array.from(region.querySelectorAll("[data-k]")).map((e) => e.dataset.k),
            };
        }""",
        region_id,
    )


def same_as_fresh(pages, phone, url: str, regions: list[str]) -> None:
    fresh = pages(**b.PHONE)
    fresh.goto(url)
    for region in regions:
        assert region_view(phone, region) == region_view(fresh, region), region
    fresh.context.close()


def bytes_per_round(pages, live_server, event, director) -> dict[str, float]:
    client = logged_in(director)
    phones, counts = {}, {}
    for name, (path, _regions) in PAGES.items():
        phone = pages(**b.PHONE)
        phone.goto(live_server.url + path.format(slug=event.slug))
        phones[name] = phone
        counts[name] = counter(phone)
    tables = list(Table.objects.filter(stage__event=event).order_by("number"))
    for n in range(SAVES):
        save_round(client, tables[n % len(tables)])
        for phone in phones.values():
            check_now(phone)
            caught_up(phone, event)
    return {name: counts[name]["bytes"] / SAVES for name in PAGES}


def test_bytes_per_saved_round_do_not_grow_with_the_event(
    pages, live_server, transactional_db, no_timed_checks
):
    director = make_director("desk")
    small = bytes_per_round(pages, live_server, event_of(director, 40), director)
    large = bytes_per_round(pages, live_server, event_of(director, 2000), director)
    print("bytes per saved round, 40 / 2,000 players:", small, large)
    for name in PAGES:
        assert large[name] <= 1.5 * small[name] + 2048, (name, small[name], large[name])
        assert large[name] <= 20 * 1024, (name, large[name])


def test_a_page_stays_as_a_fresh_load_shows_it_after_any_changes(
    pages, live_server, transactional_db, fast_polls
):
    director = make_director("desk")
    event = event_of(director, 40)
    client = logged_in(director)
    phones = {}
    for name, (path, _regions) in PAGES.items():
        phones[name] = pages(**b.PHONE)
        phones[name].goto(live_server.url + path.format(slug=event.slug))
    tables = list(Table.objects.filter(stage__event=event).order_by("number"))

    def check() -> None:
        for name, (path, regions) in PAGES.items():
            caught_up(phones[name], event)
            same_as_fresh(
                pages, phones[name], live_server.url + path.format(slug=event.slug), regions
            )

    # Rounds at several tables, one of them moving a player from first to last.
    for table, values in [
        (tables[0], [0, 5, 9, 11]),
        (tables[1], [3, 0, 8, 60]),
        (tables[0], [90, 0, 2, 4]),
    ]:
        save_round(client, table, values)
    check()
    # A correction and a removal of the last round.
    players = table_sheet(tables[1]).players
    fixed = {p.pk: v for p, v in zip(players, [1, 0, 1, 1], strict=True)}
    correct_round(Round.objects.get(table=tables[1], number=1), fixed, director, "Miscounted")
    remove_round(Round.objects.get(table=tables[0], number=2), director, "Typed twice")
    check()
    # A phone offline while rounds are saved, a game ended and reopened.
    for phone in phones.values():
        phone.context.set_offline(True)
    for table in tables[2:6]:
        save_round(client, table)
    stage = tables[2].stage
    start_clock(stage, director)
    call_time(stage, director)
    end_game(tables[2], 1, director)
    reopen_game(tables[2], director, "Marked by mistake")
    save_round(client, tables[3], [40, 0, 40, 40])
    for phone in phones.values():
        phone.context.set_offline(False)
    check()
    # Time called: every game marked over, the stage closed (who advances, the next seated).
    for table in tables:
        if not table_sheet(table).played:
            play(table, 1)
        end_game(table, table_sheet(table).played, director)
    close_and_seat(stage, director)
    check()


def test_a_cumulative_events_standings_follow_by_their_changed_rows(
    pages, live_server, transactional_db, fast_polls
):
    director = make_director("desk")
    event = make_event(
        director,
        name="Club Night",
        slug="club",
        format_kind="cumulative",
        format_games=2,
        format_reseat="by_standing",
    )
    Player.objects.bulk_create(
        Player(event=event, name=f"Player {i:02d}", checked_in=True) for i in range(40)
    )
    seat(event)
    client = logged_in(director)
    watched = {
        "/e/club/1/": ["live-standings", "live-tables"],
        "/e/club/standings/": ["live-cumulative"],
    }
    answers = []
    phones = {}
    for path in watched:
        phone = pages(**b.PHONE)
        phone.on("response", lambda response: answers.extend(region_answers(response)))
        phone.goto(live_server.url + path)
        phones[path] = phone
    tables = list(Table.objects.filter(stage__event=event).order_by("number"))
    rounds = [(tables[0], [0, 5, 9, 11]), (tables[1], [3, 0, 8, 60]), (tables[0], [90, 0, 2, 4])]
    for table, values in rounds:
        save_round(client, table, values)
        for phone in phones.values():
            caught_up(phone, event)
    for path, regions in watched.items():
        same_as_fresh(pages, phones[path], live_server.url + path, regions)
    # Each round sends its rows, the table's card and the progress note, never the whole: but
    # once, the every-game table appearing at the first round (it said "no game yet").
    wholes = [region for region, answer in answers if "html" in answer]
    assert wholes in ([], ["live-cumulative"]), wholes
    assert len([a for _, a in answers if "pieces" in a]) >= 3 * 3 - 1
