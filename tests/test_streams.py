"""Live pages pushed to the phones (tournament/streams.py, issue 32 item 4): a phone's stream is
sent what its page's check would answer, once per beat for every phone on the page and for
every process of the site, nothing while its page is unchanged, and it is refused (204, the
page then asks as before) or rejected (400, 404) where it must be.

The hub is driven beat by beat here (``Hub(start=False)``, ``tick``): what its thread does every
LIVE_REFRESH_SECONDS. tests/test_browser_live.py follows a stream in Chromium."""

import json
import re

import pytest
from django.core.cache import caches
from django.db.models import F
from django.test import Client

from tests.test_live_pages import enter, played  # noqa: F401 (a fixture)
from tournament import streams
from tournament.caching import LiveCheckMiddleware, shared_reads
from tournament.models import Event, Table

pytestmark = pytest.mark.django_db

STANDINGS, TABLE_1 = "/e/spring/1/", "/e/spring/1/table/1/"


@pytest.fixture
def hub(monkeypatch, settings, tmp_path, seated):
    settings.LIVE_STREAMS = 3
    settings.LIVE_SHARED_DIR = str(tmp_path)
    streams.shared.cache_clear()
    made = streams.Hub(start=False)
    monkeypatch.setattr(streams, "_hub", made)
    yield made
    streams.shared.cache_clear()


def held(path: str) -> dict:
    """What live.js says of a page it just loaded: the version and each region's state."""
    page = Client().get(path).content.decode()
    version = re.search(r'<body[^>]* data-version="(\d+)"', page).group(1)
    states = ",".join(
        f"{i}={s}" for i, s in re.findall(r'id="([\w-]+)"[^>]* data-live="(\w*)"', page)
    )
    assert states
    return {"page": path, "v": version, "s": states}


def opened(path: str, client=None):
    """A phone's stream on ``path``: the response, its first line read."""
    response = (client or Client()).get("/e/spring/stream/", held(path))
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"] == "text/event-stream"
    content = iter(response.streaming_content)
    assert next(content).startswith(b"retry: ")
    response.lines = content
    return response


def leave(response) -> None:
    """The phone gone: its response closed, as the server closes it (through the test
    client's wrapper, which keeps the test's database connection open)."""
    response._iterator.close()


def sent(stream: streams.Stream) -> list[bytes]:
    out = []
    while not stream.messages.empty():
        out.append(stream.messages.get())
    return out


def counted(hub, monkeypatch) -> list:
    asked = []
    check = hub.check

    def counting(question):
        asked.append(question)
        return check(question)

    monkeypatch.setattr(hub, "check", counting)
    return asked


def test_a_saved_round_reaches_the_stream_as_the_pages_check_answers_it(hub, director_client):
    asked = held(STANDINGS)
    response = opened(STANDINGS)
    [stream] = hub.where
    hub.tick(1)
    assert sent(stream) == []  # the phone holds the page as it is
    table = Table.objects.get(stage__number=1, number=1)
    players = enter(director_client, table, [0, 10, 20, 30])
    check = Client().get(STANDINGS, HTTP_X_LIVE_VERSION=asked["v"], HTTP_X_LIVE_STATES=asked["s"])
    hub.tick(2)
    message = next(response.lines)  # what the phone's EventSource receives
    assert message == b"data: " + check.content + b"\n\n"
    answer = json.loads(message[len(b"data: ") :])
    assert answer["version"] > int(asked["v"])
    rows = "".join(answer["regions"]["live-standings"]["pieces"].values())
    assert all(p.name in rows for p in players)  # the table's four rows, not the region whole
    assert "html" not in answer["regions"]["live-standings"]
    hub.tick(3)
    assert sent(stream) == []  # nothing changed since
    leave(response)  # the phone gone: its stream leaves the hub
    assert len(hub) == 0 and not hub.questions


def test_the_phones_on_one_page_are_one_question(hub, director_client, monkeypatch):
    responses = [opened(STANDINGS) for _ in range(3)]
    assert Client().get("/e/spring/stream/", held(STANDINGS)).status_code == 204  # LIVE_STREAMS
    asked = counted(hub, monkeypatch)
    enter(director_client, Table.objects.get(stage__number=1, number=2), [5, 0, 15, 25])
    hub.tick(1)
    assert len(asked) == 1
    messages = [next(r.lines) for r in responses]
    assert messages[0] == messages[1] == messages[2]
    assert len(hub.questions) == 1  # and still one: they hold the same state
    enter(director_client, Table.objects.get(stage__number=1, number=1), [0, 10, 20, 30])
    hub.tick(2)
    assert len(asked) == 2
    assert len({next(r.lines) for r in responses}) == 1


def test_a_tables_stream_is_sent_its_own_tables_changes_only(hub, director_client, monkeypatch):
    response = opened(TABLE_1)
    [stream] = hub.where
    asked = counted(hub, monkeypatch)
    hub.tick(0)  # a new stream's question is asked once: the phone holds the page as it is
    assert len(asked) == 1 and sent(stream) == []
    asked.clear()
    enter(director_client, Table.objects.get(stage__number=1, number=2), [5, 0, 15, 25])
    hub.tick(1)
    assert asked == [] and sent(stream) == []  # another table: not even asked
    enter(director_client, Table.objects.get(stage__number=1, number=1), [0, 10, 20, 30])
    hub.tick(2)
    assert len(asked) == 1
    answer = json.loads(next(response.lines)[len(b"data: ") :])
    assert "live-sheet" in answer["regions"]


def test_the_processes_of_a_site_render_each_beat_once(hub, director_client, monkeypatch):
    """A second process (a second Hub, its own cache) reads the first's answer and the states
    it gave; at the next beat, whichever asks first computes only the changes."""
    first = opened(STANDINGS)
    second_hub = streams.Hub(start=False)
    monkeypatch.setattr(streams, "_hub", second_hub)
    second = opened(STANDINGS)
    asked_first, asked_second = counted(hub, monkeypatch), counted(second_hub, monkeypatch)
    enter(director_client, Table.objects.get(stage__number=1, number=1), [0, 10, 20, 30])
    hub.tick(7)
    caches["live"].clear()  # the second process's cache: it never saw what the first rendered
    LiveCheckMiddleware.kept.clear()
    second_hub.tick(7)
    assert len(asked_first) == 1 and asked_second == []
    assert next(first.lines) == next(second.lines)
    enter(director_client, Table.objects.get(stage__number=1, number=2), [5, 0, 15, 25])
    second_hub.tick(8)  # the second asks first this time
    assert len(asked_second) == 1
    answer = json.loads(next(second.lines)[len(b"data: ") :])
    assert "pieces" in answer["regions"]["live-standings"]  # it knew the state: changes only
    hub.tick(8)
    assert len(asked_first) == 1
    assert json.loads(next(first.lines)[len(b"data: ") :]) == answer


@pytest.fixture
def redis_live(settings):
    """The live cache in Redis (CACHE_URL=redis://..., as a hosted site runs), under a key
    prefix of this test's own."""
    import uuid

    settings.CACHES = {
        **settings.CACHES,
        "live": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:6379/0",
            "KEY_PREFIX": f"test-streams-{uuid.uuid4().hex}",
        },
    }
    streams.shared.cache_clear()
    yield caches["live"]
    caches["live"].clear()
    streams.shared.cache_clear()


def test_the_servers_of_a_hosted_site_share_each_beats_answers_through_redis(
    hub, redis_live, director_client, monkeypatch
):
    """Two application servers on two machines (two hubs, no folder in common): the second
    reads the first's answer from Redis instead of rendering the page again, and sends its
    phones the same message."""
    assert isinstance(streams.shared(), streams.CacheShared)
    first = opened(STANDINGS)
    second_hub = streams.Hub(start=False)
    monkeypatch.setattr(streams, "_hub", second_hub)
    second = opened(STANDINGS)
    asked_first, asked_second = counted(hub, monkeypatch), counted(second_hub, monkeypatch)
    enter(director_client, Table.objects.get(stage__number=1, number=1), [0, 10, 20, 30])
    hub.tick(7)
    LiveCheckMiddleware.kept.clear()  # the second server's own memory
    second_hub.tick(7)
    assert len(asked_first) == 1 and asked_second == []
    assert next(first.lines) == next(second.lines)
    assert any(b"live-answer:" in key for key in redis_live._cache.get_client().keys("*"))


def test_redis_gone_each_server_renders_its_own_answers(hub, settings, director_client):
    """The cache service unreachable: the beat goes on, each process rendering for itself."""
    settings.CACHES = {
        **settings.CACHES,
        "live": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # nothing listens there
        },
    }
    streams.shared.cache_clear()
    kept = streams.shared()
    assert isinstance(kept, streams.CacheShared)
    assert kept.read("anything.1") is None
    with kept.lock("page"):
        kept.write("anything.1", ("k",), b"{}", {})
    streams.shared.cache_clear()


def test_a_page_gone_ends_its_streams(hub, director_client):
    response = opened(TABLE_1)
    Table.objects.filter(stage__number=1, number=1).update(number=9)
    Event.objects.update(version=F("version") + 1)  # as a write does
    hub.tick(1)
    assert list(response.lines) == []  # the stream ends: the phone asks its page itself
    assert len(hub) == 0


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ({"page": "/e/other/1/", "v": "1", "s": ""}, 400),  # another event's page
        ({"page": "https://elsewhere.example/e/spring/1/", "v": "1", "s": ""}, 400),
        ({"page": STANDINGS, "v": "one", "s": ""}, 400),
        ({"page": STANDINGS, "v": "1", "s": "live-standings=<script>"}, 400),
        ({"page": STANDINGS, "v": "1" * 20, "s": ""}, 400),
        ({"page": "/e/spring/nowhere/at/all/", "v": "1", "s": ""}, 404),
        ({"page": "/e/spring/1/table/99/", "v": "1", "s": "live-sheet="}, 404),
        ({}, 400),
    ],
)
def test_a_stream_asked_wrongly_is_refused_with_a_reason_not_an_error(hub, query, status):
    assert Client().get("/e/spring/stream/", query).status_code == status
    assert len(hub) == 0


def test_an_unknown_event_has_no_stream(hub):
    response = Client().get("/e/nope/stream/", {"page": "/e/nope/1/", "v": "1", "s": ""})
    assert response.status_code == 404


def test_a_stream_is_refused_to_a_session_and_when_streams_are_off(hub, settings, director_client):
    assert director_client.get("/e/spring/stream/", held(STANDINGS)).status_code == 204
    phone = Client()
    phone.cookies[settings.SESSION_COOKIE_NAME] = "a-table-phone"
    assert phone.get("/e/spring/stream/", held(STANDINGS)).status_code == 204
    settings.LIVE_STREAMS = 0
    assert Client().get("/e/spring/stream/", held(STANDINGS)).status_code == 204
    assert len(hub) == 0


def test_the_page_names_its_stream_only_when_streams_are_on(hub, settings, director_client):
    assert 'data-stream-url="/e/spring/stream/"' in Client().get(STANDINGS).content.decode()
    assert "data-stream-url" not in director_client.get(STANDINGS).content.decode()
    settings.LIVE_STREAMS = 0
    assert "data-stream-url" not in Client().get(STANDINGS).content.decode()


def test_a_shared_folder_open_to_others_is_not_read(tmp_path):
    """Its answers are sent to phones as HTML: a folder another user could write to is not
    used (a private one instead, shared with no other process)."""
    folder = tmp_path / "open"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    (folder / "planted.1").write_text('["k", {}]\n<script>alert(1)</script>')
    kept = streams.Shared(folder)
    assert kept.folder != folder
    assert kept.read("planted.1") is None
    assert streams.Shared(tmp_path / "own").folder == tmp_path / "own"


def test_one_address_holds_a_few_streams_and_others_still_get_theirs(hub, settings):
    """One client cannot take every stream of the hall: LIVE_STREAMS_PER_CLIENT to an
    address, 204 beyond (its page asks for itself), others served as before."""
    settings.LIVE_STREAMS, settings.LIVE_STREAMS_PER_CLIENT = 10, 2
    one = [opened(STANDINGS) for _ in range(2)]
    assert Client().get("/e/spring/stream/", held(STANDINGS)).status_code == 204
    other = Client(REMOTE_ADDR="192.168.1.31")
    assert other.get("/e/spring/stream/", held(STANDINGS)).status_code == 200
    assert len(hub) == 3
    leave(one[0])
    assert Client().get("/e/spring/stream/", held(STANDINGS)).status_code == 200


def planted(plant) -> None:
    """Something put at the name of the site's shared folder before the site made it, as
    another user of the machine can in a temporary folder anyone writes to."""
    folder = streams.shared().folder  # the name the site uses
    folder.rmdir()
    plant(folder)
    streams.shared.cache_clear()  # a site started after it was planted


def test_a_file_planted_at_the_shared_folders_name_does_not_stop_the_beat(hub, director_client):
    planted(lambda folder: folder.write_text("planted"))
    response = opened(STANDINGS)
    enter(director_client, Table.objects.get(stage__number=1, number=1), [0, 10, 20, 30])
    hub.beat(2)  # as the hub's thread runs it
    assert next(response.lines).startswith(b"data: {")  # the answers kept in memory instead


def test_a_link_planted_at_the_shared_folders_name_is_never_followed(
    hub, director_client, tmp_path
):
    """Where the kernel lets links in a shared temporary folder be followed
    (fs.protected_symlinks 0), a link there must not make the beat write into, or delete
    from, the folder it names: here the site's own files, named as the answers are."""
    site = tmp_path / "site"
    site.mkdir(mode=0o700)
    (site / "scores.1").write_text("the site's own file")
    planted(lambda folder: folder.symlink_to(site))
    response = opened(STANDINGS)
    enter(director_client, Table.objects.get(stage__number=1, number=1), [0, 10, 20, 30])
    hub.beat(5)  # forgets the answers of the beats before 3
    assert next(response.lines).startswith(b"data: {")
    assert [f.name for f in site.iterdir()] == ["scores.1"]
    assert (site / "scores.1").read_text() == "the site's own file"


POLL = b"event: poll\ndata: poll\n\n"  # what static/js/live.js takes for "ask yourself"


def test_a_stream_whose_beat_fails_tells_its_page_to_poll_and_ends(hub, monkeypatch):
    response = opened(STANDINGS)

    def failing(pages):
        raise OSError("the shared folder is gone")

    monkeypatch.setattr(streams, "changes_of", failing)
    hub.beat(2)
    assert list(response.lines) == [POLL]  # then the end: the page asks for itself
    assert len(hub) == 0 and not hub.questions


def test_a_page_whose_check_fails_tells_its_own_streams_to_poll(hub, director_client, monkeypatch):
    standings, table = opened(STANDINGS), opened(TABLE_1)
    check = hub.check

    def failing_on_tables(question):
        if question.page.path == TABLE_1:
            raise OSError("no room left on the disk")
        return check(question)

    monkeypatch.setattr(hub, "check", failing_on_tables)
    enter(director_client, Table.objects.get(stage__number=1, number=1), [0, 10, 20, 30])
    hub.beat(2)
    assert list(table.lines) == [POLL]
    assert next(standings.lines).startswith(b"data: {")  # the other page is answered
    assert len(hub) == 1


@pytest.mark.usefixtures("played")
def test_a_beat_computes_the_events_results_once_for_the_bracket_and_the_results(monkeypatch):
    """Within the hub's beat (caching.shared_reads) the bracket's and the results' checks
    share the event's results at one version, and answer exactly what they answer alone."""
    from scoring.views import results as views

    def checks() -> list[bytes]:
        caches["default"].clear()
        caches["live"].clear()
        LiveCheckMiddleware.kept.clear()
        return [
            Client().get(path, HTTP_X_LIVE_VERSION="0", HTTP_X_LIVE_STATES=f"{region}=").content
            for path, region in [
                ("/e/spring/bracket/", "live-bracket"),
                ("/e/spring/results/", "live-results"),
            ]
        ]

    alone = checks()
    computed = []
    compute = views.compute_results
    monkeypatch.setattr(views, "compute_results", lambda *a: computed.append(1) or compute(*a))
    with shared_reads():
        together = checks()
    assert len(computed) == 1
    assert together == alone
    assert b"Player" in alone[0] and b"Player" in alone[1]
    checks()
    assert len(computed) == 3  # outside a beat, each computes its own


@pytest.mark.django_db(transaction=True)
def test_a_waiting_stream_holds_no_database_connection(hub):
    """200 phones' streams must not be 200 of the database's connections (PostgreSQL allows
    100 by default): the stream's thread closes its own before it waits."""
    from django.db import connection

    response = opened(STANDINGS)  # its first line read: it waits for the hub now
    assert connection.connection is None
    assert Event.objects.filter(slug="spring").exists()  # the next query opens one again
    leave(response)


def test_ending_every_stream_never_waits_on_the_hubs_lock(hub):
    """A worker told to stop ends its streams from a signal handler, which may have
    interrupted the frame holding the hub's lock (Ctrl+C reaches the worker, and its master's
    quick stop follows): waiting on that lock would hang the worker for good."""
    import threading

    response = opened(STANDINGS)
    [stream] = hub.where
    ended = threading.Event()
    with hub.lock:  # held, as by the interrupted frame
        threading.Thread(target=lambda: (hub.end_all(), ended.set()), daemon=True).start()
        assert ended.wait(30)
    assert list(response.lines) == []  # the stream ended


def test_a_stream_asked_while_the_process_stops_is_refused(hub):
    """The worker's stop ends every stream; one asked for afterwards (a connection the pool
    still had to serve) would hold the stopping process: it is told to ask instead."""
    first = opened(STANDINGS)
    hub.stop()
    assert list(first.lines) == []  # ended
    assert Client().get("/e/spring/stream/", held(STANDINGS)).status_code == 204


def test_ctrl_c_and_the_masters_quick_stop_end_the_worker_whatever_it_holds(hub):
    """Ctrl+C reaches the hall's worker (SIGINT) and its master's quick stop (SIGQUIT) right
    after. gunicorn's own handler shut its thread pool down from the signal handler: a signal
    arriving while the worker's main thread held the pool's lock (handing it a connection, or
    the first signal's shutdown under way) waited on that lock for ever, and `make hall` never
    ended (tests/test_hall.py, one run in five). The hall's handlers end the streams and the
    process without the pool's lock, and the second signal does nothing more."""
    import signal
    import threading
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    from gunicorn.workers.gthread import ThreadWorker

    from tournament import hall_server

    kept = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM)}
    worker = ThreadWorker.__new__(ThreadWorker)  # what the hook and the handlers use of one
    worker.alive, worker.tpool = True, ThreadPoolExecutor(1)
    worker.cfg = SimpleNamespace(worker_int=lambda w: None)
    stream = opened(STANDINGS)
    outcome, finished = [], threading.Event()

    def interrupted():
        """The main thread, interrupted by both signals while it holds the pool's lock."""
        try:
            with worker.tpool._shutdown_lock:
                try:
                    signal.getsignal(signal.SIGINT)(signal.SIGINT, None)
                except SystemExit:
                    outcome.append("exit")
                signal.getsignal(signal.SIGQUIT)(signal.SIGQUIT, None)
                outcome.append("second signal returned")
        except SystemExit:
            outcome.append("exit again")
        finally:
            finished.set()

    try:
        for number in (signal.SIGINT, signal.SIGQUIT):  # as gunicorn's worker sets them
            signal.signal(number, worker.handle_quit)
        signal.signal(signal.SIGTERM, worker.handle_exit)
        hall_server.post_worker_init(worker)
        threading.Thread(target=interrupted, daemon=True).start()
        assert finished.wait(30), "the worker's stop waited on its pool's lock"
        assert outcome == ["exit", "second signal returned"]
        assert worker.alive is False
        assert list(stream.lines) == []  # the stream ended
    finally:
        for number, handler in kept.items():
            signal.signal(number, handler)
        if finished.is_set():  # else its lock is held by the thread stuck on it
            worker.tpool.shutdown()
