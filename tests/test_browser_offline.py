"""The table's page and the public pages offline (issue 33 item 3): the service worker
(static/js/sw.js) keeps the last copy of a page a visitor opened; a round typed offline waits on
the phone (static/js/entry.js) and is saved once when the connection returns; a director's page
is never kept."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.staticfiles import finders
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from scoring.models import Round
from tests import browser as b
from tests.factories import make_director, make_event, make_players, play, seat
from tournament.models import Event

PASSWORD = "a-Long-pass-phrase-42"
WORKER = {"service_workers": "allow"}  # blocked in other tests (tests/browser.py new_page)

# True once this page is in the hands of the worker and it and its files are kept.
KEPT = """async () => {
  if (!navigator.serviceWorker.controller) return false;
  const files = Array.from(document.querySelectorAll("script[src], link[rel=stylesheet]"))
    .map((node) => node.src || node.href);
  for (const url of [location.href.split("#")[0]].concat(files)) {
    if (!(await caches.match(url))) return false;
  }
  return true;
}"""

# Polled by Playwright (each animation frame): an async check's last answer, one at a time
# (wait_for_function takes a promise for a truthy answer).
UNTIL = """(arg) => {
  const state = window.__until;
  if (!state.running) {
    state.running = true;
    state.check(arg).then((ok) => { state.ok = ok; state.running = false; });
  }
  return state.ok === true;
}"""


def until(page, check, arg=None):
    """Wait until the async function ``check`` (JavaScript) answers true on the page."""
    page.evaluate(f"() => {{ window.__until = {{ check: {check} }}; }}")
    # A minute: the worker fetches and keeps the page's files, slow on a busy CI machine.
    page.wait_for_function(UNTIL, arg=arg, timeout=60_000)


def kept(page):
    until(page, KEPT)


def posts(page) -> list[str]:
    """The addresses of the POSTs the site answered this page (the rounds it sent), as they
    come."""
    sent = []
    page.on("requestfinished", lambda r: sent.append(r.url) if r.method == "POST" else 0)
    return sent


def reloaded_offline(page) -> None:
    """Once the page is kept, the connection goes and the page is reloaded."""
    kept(page)
    page.context.set_offline(True)
    page.reload()


def back_online(page) -> None:
    """The connection returns (and the page hears of it at once)."""
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")


@pytest.fixture
def site(browser, live_server, transactional_db):
    director = make_director("desk", PASSWORD)
    event = make_event(director, name="Spring Games", slug="spring")
    Event.objects.filter(pk=event.pk).update(table_entry=True)
    make_players(event, count=8)
    stage = seat(event)
    table = stage.tables.get(number=1)
    play(table, 11, user=director)  # 12-12 to 2-2: the phone enters 1-1
    table.refresh_from_db()
    return {"url": live_server.url, "table": table}


@pytest.mark.browser
def test_a_phone_reloads_its_table_offline_and_its_round_is_saved_once_back_online(site, pages):
    table = site["table"]
    phone = pages(**b.PHONE, **WORKER)
    sent = posts(phone)
    phone.goto(f"{site['url']}/t/{table.code}/")
    phone.locator(".join-as, button:has-text('Yes, this is our table')").first.click()
    expect(phone.get_by_role("heading", name="Round 1-1")).to_be_visible()
    joined = len(sent)
    # No connection, and the page reloaded: its last copy, with its sheet, says it is a copy.
    reloaded_offline(phone)
    expect(phone.get_by_role("heading", name="Round 1-1")).to_be_visible()
    banner = phone.get_by_role("status").filter(has_text="offline")
    expect(banner).to_have_text(
        "As of "
        + phone.evaluate("""() => new Date(document.body.dataset.offlineAt)
        .toLocaleTimeString("en", {hour: "2-digit", minute: "2-digit"})""")
        + ", offline: the last copy of this page kept on this device."
    )
    first = table.seats.select_related("player").order_by("position").first().player
    expect(phone.locator("#terminal-totals")).to_contain_text(first.name)

    # A round typed now waits on the phone.
    cells = phone.locator(".round-cells input")
    for i, value in enumerate([0, 5, 6, 7]):
        cells.nth(i).fill(str(value))
    phone.get_by_role("button", name="Save the round").click()
    expect(phone.locator("#entry-status")).to_contain_text("Waiting to send (no connection)")
    assert not Round.objects.filter(table=table, engine=1).exists()

    # The connection returns: sent, saved once, and the page is the site's again.
    back_online(phone)
    expect(phone.get_by_role("heading", name="Round 0-0")).to_be_visible()
    expect(phone.get_by_role("heading", name=re.compile(r"^Round 1-1, entered at"))).to_be_visible()
    expect(phone.locator("#offline-copy")).to_have_count(0)
    saved = Round.objects.get(table=table, engine=1)
    by_seat = {s.player_id: s.pips for s in saved.scores.all()}
    assert [by_seat[s.player_id] for s in table.seats.order_by("position")] == [0, 5, 6, 7]
    phone.reload()
    expect(phone.locator(".awaiting")).to_be_visible()
    phone.evaluate("fetch('/healthz').then((r) => r.text())")  # after any request just made
    assert Round.objects.filter(table=table, engine=1).count() == 1
    assert sent[joined:] == [phone.url]  # the round sent once, when the connection returned


@pytest.mark.browser
def test_a_scorekeepers_entry_page_reloads_offline_and_its_round_is_saved_once(site, pages):
    table = site["table"]
    keeper = get_user_model().objects.create_user("keeper", password=PASSWORD)
    table.scorekeepers.add(keeper)
    phone = pages(**b.PHONE, **WORKER)
    sent = posts(phone)
    entry = f"{site['url']}/director/e/spring/1/table/1/enter/"
    phone.goto(entry)
    b.log_in(phone, "keeper", PASSWORD)
    expect(phone.get_by_role("button", name="Save round 1-1")).to_be_visible()
    logged_in = len(sent)
    reloaded_offline(phone)
    expect(phone.get_by_role("button", name="Save round 1-1")).to_be_visible()
    expect(phone.locator("#offline-copy")).to_contain_text(", offline: the last copy")
    players = [s.player for s in table.seats.select_related("player").order_by("position")]
    for player, value in zip(players, [0, 5, 6, 7], strict=True):
        phone.locator(f"input[name=p{player.pk}]").fill(str(value))
    phone.get_by_role("button", name="Save round 1-1").click()
    expect(phone.locator("#entry-status")).to_contain_text("Waiting to send (no connection)")
    assert not Round.objects.filter(table=table, engine=1).exists()

    back_online(phone)
    expect(phone.get_by_role("button", name="Save round 0-0")).to_be_visible()
    expect(phone.locator("#offline-copy")).to_have_count(0)
    saved = Round.objects.get(table=table, engine=1)
    assert {s.player_id: s.pips for s in saved.scores.all()} == {
        p.pk: v for p, v in zip(players, [0, 5, 6, 7], strict=True)
    }
    assert saved.entered_by == keeper
    phone.evaluate("fetch('/healthz').then((r) => r.text())")  # after any request just made
    assert Round.objects.filter(table=table, engine=1).count() == 1
    assert sent[logged_in:] == [entry]  # the round sent once, when the connection returned


@pytest.mark.browser
def test_a_public_page_offline_shows_its_last_copy_as_one(site, pages):
    phone = pages(**b.PHONE, **WORKER)
    phone.goto(site["url"] + "/e/spring/1/")
    expect(phone.locator("table#standings tbody tr")).to_have_count(8)
    kept(phone)

    phone.context.set_offline(True)
    phone.reload()
    expect(phone.locator("table#standings tbody tr")).to_have_count(8)
    banner = phone.locator("#offline-copy")
    expect(banner).to_have_attribute("role", "status")
    expect(banner).to_contain_text(", offline: the last copy of this page kept on this device.")
    phone.screenshot(path=b.artifact("offline-standings.png"))

    # A page this device never opened: the browser's own error, not another page's copy.
    with pytest.raises(PlaywrightError, match="net::ERR_"):
        phone.goto(site["url"] + "/e/spring/results/")
    phone.go_back()

    # Back online: the page is the site's again, without the banner.
    phone.context.set_offline(False)
    phone.goto(site["url"] + "/e/spring/1/")
    expect(phone.locator("table#standings tbody tr")).to_have_count(8)
    expect(phone.locator("#offline-copy")).to_have_count(0)


@pytest.mark.browser
def test_a_directors_pages_are_never_kept(site, pages):
    page = pages(**WORKER)
    page.goto(site["url"] + "/e/spring/")
    kept(page)  # an anonymous copy of the event's page is kept...
    event_url = page.url
    page.goto(site["url"] + "/director/e/spring/1/table/1/enter/")
    b.log_in(page, "desk", PASSWORD)
    expect(page.get_by_role("button", name="Save round 1-1")).to_be_visible()
    entry_url = page.url
    page.goto(event_url)
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    # ...and forgotten once the page is a logged-in director's; the director's are not kept.
    until(page, "async (url) => !(await caches.match(url))", event_url)
    for url in (entry_url, event_url, site["url"] + "/accounts/login/"):
        assert page.evaluate("async (url) => Boolean(await caches.match(url))", url) is False

    page.context.set_offline(True)
    for url in (entry_url, event_url):
        with pytest.raises(PlaywrightError, match="net::ERR_"):
            page.goto(url)
        page.wait_for_load_state()
        expect(page.get_by_role("button", name="Save round 1-1")).to_have_count(0)
        expect(page.get_by_role("button", name="Log out")).to_have_count(0)


def test_the_worker_and_the_manifest_are_served_from_the_root(client, db):
    worker = client.get("/sw.js")
    assert worker.status_code == 200
    assert worker["Content-Type"].startswith("text/javascript")
    assert worker["Cache-Control"] == "no-cache"
    assert worker["Service-Worker-Allowed"] == "/"
    assert b"caches.open" in worker.content

    manifest = client.get("/manifest.webmanifest?start=/t/ABC/enter/")
    assert manifest["Content-Type"] == "application/manifest+json"
    data = manifest.json()
    assert data["start_url"] == "/t/ABC/enter/"
    assert data["display"] == "standalone"
    assert [icon["sizes"] for icon in data["icons"]] == ["192x192", "512x512"]
    for icon in data["icons"]:
        assert finders.find(icon["src"].removeprefix("/static/"))
    for elsewhere in ("https://evil.example/", "//evil.example/", "javascript:alert(1)"):
        assert client.get("/manifest.webmanifest", {"start": elsewhere}).json()["start_url"] == "/"


def test_only_a_visitors_pages_say_they_may_be_kept(client, db):
    director = make_director("desk", PASSWORD)
    make_event(director, name="Spring Games", slug="spring")
    keep = b'<meta name="offline" content="keep">'
    page = client.get("/e/spring/")
    assert keep in page.content
    assert b'rel="manifest"' in page.content
    client.force_login(director)
    assert keep not in client.get("/e/spring/").content
    assert keep not in client.get("/director/e/spring/").content


def test_a_scorekeepers_entry_page_says_it_may_be_kept_a_directors_does_not(client, site):
    keep = b'<meta name="offline" content="keep">'
    keeper = get_user_model().objects.create_user("keeper", password=PASSWORD)
    site["table"].scorekeepers.add(keeper)
    entry = "/director/e/spring/1/table/1/enter/"
    client.force_login(keeper)
    assert keep in client.get(entry).content
    assert keep not in client.get("/director/").content  # the scorekeeper's home: not kept
    client.force_login(site["table"].stage.event.directors.get())
    assert keep not in client.get(entry).content
