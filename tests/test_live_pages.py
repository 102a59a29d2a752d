"""Public pages rendered once per change (issue 14): every kind of write shows on the next GET
(no stale cache), an unchanged page is a 304, and live pages fetch only their changed parts."""

import re

import pytest
from django.db import connection
from django.http import HttpResponse
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring.models import Round
from scoring.services.infractions import change_infraction, log_infraction
from scoring.services.rounds import (
    correct_round,
    end_game,
    remove_round,
    reopen_game,
    store_totals,
)
from scoring.sheets import table_sheet
from scoring.views.results import StandingsView
from tests.test_standings import shown_rows
from tournament.caching import LiveCheckMiddleware
from tournament.models import Table
from tournament.services.clock import call_time, start_clock
from tournament.services.seating import move_player

pytestmark = pytest.mark.django_db

PAGES = ["/e/spring/1/", "/e/spring/bracket/", "/e/spring/results/", "/e/spring/1/table/1/"]


@pytest.fixture
def played(director_client, seated):
    """Two tables of Game 1, one round entered at each through the entry form; every public
    page already rendered once (and so kept)."""
    for number, values in [(1, [0, 10, 20, 30]), (2, [5, 0, 15, 25])]:
        table = Table.objects.get(stage=seated, number=number)
        enter(director_client, table, values)
    public = Client()
    for path in PAGES:
        assert public.get(path).status_code == 200
    return seated


def enter(client, table, values):
    players = table_sheet(table).players
    url = f"/director/e/spring/1/table/{table.number}/enter/"
    form = {f"p{p.pk}": v for p, v in zip(players, values, strict=True)}
    assert client.post(url, form).status_code == 302
    return players


def standings() -> dict[str, list[str]]:
    """Player name -> the row the public standings show (place, name, table, rounds, ...)."""
    page = Client().get("/e/spring/1/").content.decode()
    return {row[1]: row for row in shown_rows(page)}


def table_one():
    return Table.objects.get(stage__event__slug="spring", number=1)


def test_a_round_saved_through_the_form_shows_on_every_page(director_client, played):
    players = enter(director_client, table_one(), [7, 0, 1, 2])
    assert standings()[players[0].name][3:5] == ["2", "7"]  # rounds played, total
    public = Client()
    sheet = public.get("/e/spring/1/table/1/").content.decode()
    assert f'data-player="{players[0].pk}">7<' in sheet
    bracket = public.get("/e/spring/bracket/").content.decode()
    results = public.get("/e/spring/results/").content.decode()
    assert f"{players[3].name}" in bracket and ">32<" in bracket  # 30 + 2
    assert '<td class="text-end">32</td>' in results


def test_a_correction_shows_at_once(director, played):
    round_ = Round.objects.get(table=table_one(), number=1)
    players = table_sheet(table_one()).players
    fixed = dict(zip([p.pk for p in players], [0, 12, 20, 30], strict=True))
    correct_round(round_, fixed, director, "Miscounted")
    assert standings()[players[1].name][4] == "12"


def test_a_removed_round_shows_at_once(director, played):
    first = table_sheet(table_one()).players[0]
    remove_round(Round.objects.get(table=table_one(), number=1), director, "Typed twice")
    assert standings()[first.name][3:5] == ["0", "—"]  # no round: no total yet


def test_an_infraction_and_its_voiding_show_at_once(director, played):
    first = table_sheet(table_one()).players[0]
    logged = log_infraction(table_one(), first, 11, "out_of_turn", "", director)
    assert standings()[first.name][5] == "1"
    change_infraction(logged, "void", "Misread", director)
    assert standings()[first.name][5] == "0"


def test_a_player_moved_shows_at_once(director, played):
    other = Table.objects.get(stage=played, number=2)
    Round.objects.filter(table__stage=played).delete()  # moves are for tables not yet playing
    store_totals(Table.objects.filter(stage=played))
    first = table_sheet(table_one()).players[0]
    move_player(played, first, other, director)
    assert standings()[first.name][2] == "2"


def test_game_over_and_reopened_show_on_the_tables(director, played):
    start_clock(played, director)
    call_time(played, director)
    end_game(table_one(), 1, director)
    tables = Client().get("/e/spring/1/").content.decode().split('id="live-tables"')[1]
    assert tables.count("finished") == 1
    reopen_game(table_one(), director, "Marked by mistake")
    tables = Client().get("/e/spring/1/").content.decode().split('id="live-tables"')[1]
    assert "finished" not in tables


@pytest.mark.parametrize("path", PAGES)
def test_an_unchanged_page_is_a_304_until_a_round_is_saved(director_client, played, path):
    public = Client()
    first = public.get(path)
    etag = first.headers["ETag"]
    assert first.status_code == 200 and "no-cache" in first.headers["Cache-Control"]
    again = public.get(path, headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["ETag"] == etag
    enter(director_client, table_one(), [7, 0, 1, 2])
    changed = public.get(path, headers={"if-none-match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_a_director_always_gets_the_page_itself(director_client, played):
    response = director_client.get("/e/spring/1/")
    assert "ETag" not in response.headers
    assert director_client.get("/e/spring/1/", headers={"if-none-match": "*"}).status_code == 200


def test_the_version_endpoint_says_when_the_event_changed(director_client, played):
    before = Client().get("/e/spring/version.json")
    assert before.headers["Cache-Control"].startswith("max-age=0")
    enter(director_client, table_one(), [7, 0, 1, 2])
    after = Client().get("/e/spring/version.json").json()["version"]
    assert after == before.json()["version"] + 1
    assert Client().get("/e/nowhere/version.json").status_code == 404


def part(path: str, region: str, state: str = "") -> dict:
    """What static/js/live.js gets for a region of a page, holding ``state`` of it."""
    headers = {"X-Live-Region": region} | ({"X-Live-State": state} if state else {})
    response = Client().get(path, headers=headers)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    return response.json()


def test_a_phone_holding_nothing_gets_only_the_part_it_asks_for(director_client, played):
    page = Client().get("/e/spring/1/").content.decode()
    assert 'id="live-standings" data-live="' in page and 'data-version-url="/e/spring/' in page
    html = part("/e/spring/1/", "live-standings")["html"]
    assert (
        html.lstrip().startswith('<div class="table-container table-responsive"')
        and "<nav" not in html
        and "<!--" not in html  # the pieces' marks are the server's alone
    )
    assert len(shown_rows(html)) == 8
    assert part("/e/spring/1/", "live-tables")["html"].count("card-body") == 2
    sheet = part("/e/spring/1/table/1/", "live-sheet")["html"]
    assert "<nav" not in sheet and "data-player=" in sheet


def test_a_name_corrected_in_the_admin_shows_at_once(played):
    from django.contrib.auth import get_user_model

    admin = Client()
    admin.force_login(get_user_model().objects.create_superuser("root", password="x-Long-42"))
    player = table_sheet(table_one()).players[0]
    form = {"name": "Renamed Player", "event": player.event_id, "ref": "", "club": ""}
    form.update(division="", checked_in="on")
    response = admin.post(f"/admin/tournament/player/{player.pk}/change/", form)
    assert response.status_code == 302
    assert "Renamed Player" in standings()
    url = f"/admin/scoring/round/{Round.objects.get(table=table_one()).pk}/delete/"
    assert admin.post(url, {"post": "yes"}).status_code == 302
    assert standings()["Renamed Player"][3] == "0"


def test_saving_the_event_never_takes_its_version_back(director, played):
    from tournament.models import Event
    from tournament.services.events import update_event

    stale = Event.objects.get(slug="spring")
    log_infraction(table_one(), table_sheet(table_one()).players[0], 11, "other", "", director)
    newer = Event.objects.get(slug="spring")
    stale.venue = "Hall B"
    update_event(stale, director)
    saved = Event.objects.get(slug="spring")
    assert saved.version == newer.version + 1
    assert saved.shared_version == newer.shared_version + 1  # what every table's page keys on


def state_of(page: str, region: str) -> str:
    found = re.search(rf'id="{region}" data-live="(\w+)"', page)
    assert found, f"no live region {region}"
    return found.group(1)


def test_a_phone_gets_the_rows_that_changed_not_the_whole_standings(director_client, played):
    page = Client().get("/e/spring/1/").content.decode()
    held = state_of(page, "live-standings")
    other = Client().get("/e/spring/1/table/2/").content.decode()
    players = enter(director_client, table_one(), [7, 0, 1, 2])
    answer = part("/e/spring/1/", "live-standings", held)
    # The four players of table 1 (their totals moved), the progress note; none of table 2.
    assert set(answer["pieces"]) == {f"p{p.pk}" for p in players} | {"progress"}
    assert "html" not in answer and "gone" not in answer
    # Places are the page's to number (from data-rank): not sent in a changed row.
    assert all("data-place></td>" in answer["pieces"][f"p{p.pk}"] for p in players)
    # Nothing changed since: a few bytes.
    again = part("/e/spring/1/", "live-standings", answer["state"])
    assert again == {"state": answer["state"]}
    # A state the server never gave (another server's, long expired): the whole region.
    assert "html" in part("/e/spring/1/", "live-standings", "0123456789abcdef01")
    # The table's own card, alone, on the tables.
    tables = part("/e/spring/1/", "live-tables", state_of(page, "live-tables"))
    assert set(tables["pieces"]) == {f"t{table_one().pk}"}
    # Another table's page: unchanged.
    sheet = part("/e/spring/1/table/2/", "live-sheet", state_of(other, "live-sheet"))
    assert set(sheet) == {"state"}


LIVE = [
    ("/e/spring/1/", "live-standings"),
    ("/e/spring/1/", "live-tables"),
    ("/e/spring/bracket/", "live-bracket"),
    ("/e/spring/results/", "live-results"),
    ("/e/spring/1/table/1/", "live-sheet"),
]
# A table's page asks its table's version too (TableSheetView.live_key).
KEY_QUERIES = {"live-sheet": 2}


@pytest.mark.parametrize("path,region", LIVE)
def test_a_second_phone_asking_the_same_is_answered_before_the_pages_queries(
    director_client, played, path, region, django_assert_num_queries
):
    """During play nearly every poll asks what another phone already asked: it is answered
    from the cache with the event's one query (and a table's), before the page's context is
    made."""
    held = state_of(Client().get(path).content.decode(), region)
    enter(director_client, table_one(), [7, 0, 1, 2])
    first = Client().get(path, headers={"X-Live-Region": region, "X-Live-State": held})
    assert first.json()["state"] != held  # table 1 changed on every page
    queries = KEY_QUERIES.get(region, 1)
    with django_assert_num_queries(queries):
        again = Client().get(path, headers={"X-Live-Region": region, "X-Live-State": held})
    assert again.content == first.content and again["ETag"] == first["ETag"]
    assert again["Content-Type"] == "application/json"
    state = first.json()["state"]
    with django_assert_num_queries(queries):  # a phone holding the new state: unchanged
        assert part(path, region, state) == {"state": state}
    # A director's region carries their own controls: never answered from it.
    with CaptureQueriesContext(connection) as queries:
        mine = director_client.get(path, headers={"X-Live-Region": region, "X-Live-State": held})
    assert mine.status_code == 200 and len(queries) > 1


def check(path: str, version, states: dict[str, str], client=None):
    """What static/js/live.js asks its page every few seconds: the version it shows and the
    state of each region it holds, in one request."""
    headers = {
        "X-Live-Version": str(version),
        "X-Live-States": ",".join(f"{region}={held}" for region, held in states.items()),
    }
    response = (client or Client()).get(path, headers=headers)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    return response


def version_of(page: str) -> int:
    return int(re.search(r'data-version="(\d+)"', page).group(1))


def test_a_pages_check_brings_every_region_in_one_request(
    director_client, played, django_assert_num_queries
):
    page = Client().get("/e/spring/1/").content.decode()
    shown = version_of(page)
    held = {region: state_of(page, region) for region in ("live-standings", "live-tables")}
    sheet = Client().get("/e/spring/1/table/2/").content.decode()
    with django_assert_num_queries(1):  # nothing changed: the event's one query
        assert check("/e/spring/1/", shown, held).json() == {"version": shown}
    enter(director_client, table_one(), [7, 0, 1, 2])
    answer = check("/e/spring/1/", shown, held).json()
    assert answer["version"] == shown + 1
    # Each region's changes, as each asked alone would get them.
    assert answer["regions"] == {
        region: part("/e/spring/1/", region, held[region]) for region in held
    }
    assert set(answer["regions"]["live-tables"]["pieces"]) == {f"t{table_one().pk}"}
    with django_assert_num_queries(1):  # the next phone in the same state: from the cache
        assert check("/e/spring/1/", shown, held).json() == answer
    # A state the server never gave: that region whole, the other its changes.
    other = check("/e/spring/1/", shown, {**held, "live-tables": "0123456789abcdef01"}).json()
    assert "html" in other["regions"]["live-tables"]
    assert other["regions"]["live-standings"] == answer["regions"]["live-standings"]
    # Another table's page, and a director's check (their own controls: rendered for them).
    table_two = {"live-sheet": state_of(sheet, "live-sheet")}
    assert check("/e/spring/1/table/2/", version_of(sheet), table_two).json() == {
        "version": version_of(sheet) + 1,
        "regions": {"live-sheet": {"state": table_two["live-sheet"]}},
    }
    mine = check("/e/spring/1/", shown, held, director_client).json()
    assert set(mine["regions"]) == set(held) and mine["version"] == shown + 1


@pytest.mark.parametrize(
    "states",
    ["", "nonsense", "=,=x,live-standings", "live-bracket=abc", "live-tables=" + "9" * 500],
)
def test_a_check_saying_nonsense_gets_the_version_or_the_whole_region(played, states):
    page = Client().get("/e/spring/1/").content.decode()
    headers = {"X-Live-Version": "not a number", "X-Live-States": states}
    response = Client().get("/e/spring/1/", headers=headers)
    assert response.status_code == 200
    answer = response.json()
    assert answer["version"] == version_of(page)
    for region, body in answer.get("regions", {}).items():
        assert region in ("live-standings", "live-tables") and "html" in body


def test_a_check_asked_again_is_answered_before_the_page_while_the_event_stays(
    director_client, played, monkeypatch, django_assert_num_queries
):
    """LiveCheckMiddleware: the second phone asking what the first asked, at the same version,
    gets the first's answer, headers and all, without the page's view; a saved round, a
    session or another language goes to the page."""
    page = Client().get("/e/spring/1/").content.decode()
    shown = version_of(page)
    held = {region: state_of(page, region) for region in ("live-standings", "live-tables")}
    enter(director_client, table_one(), [7, 0, 1, 2])
    first = check("/e/spring/1/", shown, held)
    seen = []
    original = StandingsView.get
    monkeypatch.setattr(StandingsView, "get", lambda *a, **k: seen.append(1) or original(*a, **k))
    with django_assert_num_queries(1):
        again = check("/e/spring/1/", shown, held)
    assert again.content == first.content and seen == []
    assert dict(again.items()) == dict(first.items())  # nosniff, Vary, ETag...
    english = Client(headers={"Accept-Language": "en-GB,en;q=0.8"})  # another browser, English
    assert check("/e/spring/1/", shown, held, english).content == first.content and seen == []
    # In French: the page's own answer, in French (the whole region: held in English).
    french = Client(headers={"Accept-Language": "fr"})
    answer = check("/e/spring/1/", shown, held, french).json()
    assert seen == [1] and "Joueur" in answer["regions"]["live-standings"]["html"]
    # A director (a session): the page, every time.
    check("/e/spring/1/", shown, held, director_client)
    assert seen == [1, 1]
    # A round saved since: the page again, then its answer kept for the next phone.
    enter(director_client, table_one(), [3, 3, 0, 9])
    newer = check("/e/spring/1/", shown, held)
    assert newer.json()["version"] == shown + 2 and seen == [1, 1, 1]
    assert check("/e/spring/1/", shown, held).content == newer.content and seen == [1, 1, 1]


@pytest.mark.django_db
def test_the_checks_kept_stay_within_their_bytes(monkeypatch, rf):
    """LiveCheckMiddleware keeps at most KEPT_BYTES of answers, forgetting them all at once past
    it; a question answered again (the event moved) replaces its answer, not adds to it."""
    monkeypatch.setattr(LiveCheckMiddleware, "kept", {})
    monkeypatch.setattr(LiveCheckMiddleware, "kept_bytes", 0)
    monkeypatch.setattr(LiveCheckMiddleware, "KEPT_BYTES", 250)

    def page(request):
        response = HttpResponse(b"x" * 100, content_type="application/json")
        response.live_version_key = "1.0.7"  # no event is at it: asked again, answered again
        return response

    middleware = LiveCheckMiddleware(page)

    def ask(states: str) -> None:
        request = rf.get("/e/nowhere/1/", headers={"X-Live-Version": "7", "X-Live-States": states})
        assert middleware(request).status_code == 200

    for _ in range(3):
        ask("live-standings=a")
    assert (len(LiveCheckMiddleware.kept), LiveCheckMiddleware.kept_bytes) == (1, 100)
    ask("live-standings=b")
    ask("live-standings=c")
    assert (len(LiveCheckMiddleware.kept), LiveCheckMiddleware.kept_bytes) == (3, 300)
    ask("live-standings=d")  # past 250 bytes: the three forgotten
    assert (len(LiveCheckMiddleware.kept), LiveCheckMiddleware.kept_bytes) == (1, 100)


def test_a_tables_page_is_kept_while_only_other_tables_change(
    director_client, played, django_assert_num_queries
):
    """A round saved at another table leaves a table's page as it was: its full page is a 304
    and its phones' checks are answered from the cache, with no render; its own round, and a
    change every table shows (the stage's clock), reach it at once."""
    path = "/e/spring/1/table/1/"
    first = Client().get(path)
    etag, held = first["ETag"], state_of(first.content.decode(), "live-sheet")
    assert part(path, "live-sheet", held) == {"state": held}  # a phone's check, before
    enter(director_client, Table.objects.get(stage=played, number=2), [1, 2, 0, 3])
    assert Client().get(path, headers={"if-none-match": etag}).status_code == 304
    with django_assert_num_queries(2):  # the event and the table's version
        assert part(path, "live-sheet", held) == {"state": held}
    clock = director_client.post("/director/e/spring/1/clock/", {"action": "start"})
    assert clock.status_code == 302
    again = Client().get(path, headers={"if-none-match": etag})
    assert again.status_code == 200 and again["ETag"] != etag
    etag = again["ETag"]
    players = enter(director_client, table_one(), [7, 0, 1, 2])
    answer = part(path, "live-sheet", held)
    assert answer["state"] != held and f'data-player="{players[0].pk}">7<' in str(answer)
    assert Client().get(path, headers={"if-none-match": etag}).status_code == 200


def test_the_table_verbs_are_verbs_of_the_history():
    from tournament.history import TABLE_VERBS, VERBS

    assert TABLE_VERBS <= VERBS.keys() and not any(v.startswith("infraction") for v in TABLE_VERBS)
