"""Live pages pushed to the phones (server-sent events) instead of asked every few seconds.

A phone on a live page (static/js/live.js) opens ``/e/<slug>/stream/?page=&v=&s=``: the page it
shows, the version it shows and the state of each live region it holds, as its check would
say them (tournament/caching.py LiveMixin). The stream then sends, as ``data:`` lines, exactly
what that check would have answered, when it would have answered something new: one JSON
message per change, the regions' changes since the state the phone holds (tournament/live.py).

What it costs does not grow with the phones. One ``Hub`` per process follows every stream:

- its thread reads the followed events' versions (and the followed tables': a table's page
  changes with its own table, TableSheetView) in one or two queries once a beat, every
  ``LIVE_REFRESH_SECONDS`` on the clock's time (the same moments in every process);
- the phones on one page holding the same version and states are one question: the hub asks
  it once, as the page's own check (the site's middleware and view, answered from the cache
  when another process or phone asked it first), and writes the answer to each stream;
- a page is asked at most once a beat (the polling phones' interval: every change still shows
  within it), so that a round saved every second across the hall renders the standings once
  in three seconds, not three times;
- the site's processes share each beat's answers: the first to ask a question renders it, the
  others read its answer and the states it gave, so that each version is rendered once for
  the whole site. On one machine through files in a folder of their own (``Shared``); on a
  hosted site whose cache is Redis (``CACHE_URL``), through Redis (``CacheShared``): every
  application server on every machine.

Under `make hall` the streams are served by the hall's front (tournament/hall_front.py), one
asynchronous process that writes to each stream's connection when the hub has something for
it: a stream holds no thread there. Served by a WSGI server alone (``manage.py serve web``),
each stream holds one of its threads. A process serves ``LIVE_STREAMS`` of them, at most
``LIVE_STREAMS_PER_CLIENT`` to one address, and answers 204 beyond, as it does to a director or
a table's phone (a session: their pages carry their own controls) and whenever streams are off
(``LIVE_STREAMS`` 0, the default outside the hall): live.js then asks every few seconds, as
before. A beat that fails (the database, the shared folder) tells its streams' pages to ask
for themselves (``POLL``) and ends the streams: live.js opens one again later.
"""

from __future__ import annotations

import fcntl
import io
import json
import logging
import os
import queue
import re
import threading
import time
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest
from django.db import connections
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.urls import Resolver404, resolve
from django.utils.decorators import method_decorator
from django.utils.translation import get_language_from_request
from django.views import View
from django.views.decorators.cache import never_cache

from tournament import live
from tournament.caching import LIVE_STATE_SECONDS, live_cache, shared_reads
from tournament.folders import own_folder, runtime_folder
from tournament.models import Event, Table
from tournament.security import client_ip

log = logging.getLogger(__name__)

HEARTBEAT = 20  # seconds: a comment on a quiet stream, so that a phone gone is noticed
# What a stream's question copies of the phone's request (besides the page, its language and
# the live headers): where it was asked, as a proxy said it. Nothing of the phone itself (its
# address, its browser's languages): every phone on a page is the same question.
KEPT_ENVIRON = (
    "SCRIPT_NAME",
    "SERVER_NAME",
    "SERVER_PORT",
    "HTTP_HOST",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_HOST",
    "wsgi.url_scheme",
)
# What a stream whose beat failed is sent before it ends: its page asks for itself
# (static/js/live.js), and opens a stream again later.
POLL = b"event: poll\ndata: poll\n\n"
VERSION = re.compile(r"^\d{1,12}$")
STATES = re.compile(r"^[\w=,-]{0,400}$")


@dataclass(frozen=True)
class Page:
    """A page as a stream follows it: the request its check is asked as, and what it
    changes with (the event, and a table's own version for a table's page)."""

    event_id: int
    table_id: int | None
    regions: bool  # False: a page that only asks the version (the big screen's clock)
    path: str
    query: str
    language: str
    environ: tuple[tuple[str, str], ...]

    @cached_property
    def name(self) -> str:
        """The page as the processes' ``Shared`` answers name it."""
        return live.digest(
            repr((self.event_id, self.table_id, self.path, self.query, self.language, self.environ))
        )


@dataclass
class Question:
    """The phones on one page holding one version and the same states: asked once."""

    page: Page
    version: str
    states: str
    streams: set = field(default_factory=set)
    seen: tuple | None = None  # what the page changes with, when last asked (None: not yet)


class Stream:
    """One phone's stream: the messages the hub writes for it (None: the end), sent as they
    come: by the thread that iterates it (a WSGI server), or by the hall's front, which
    ``wake`` tells that one came."""

    def __init__(self, hub: Hub, client: str = ""):
        self.hub = hub
        self.client = client
        self.messages: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.wake = None

    def send(self, message: bytes | None) -> None:
        self.messages.put(message)
        wake = self.wake
        if wake is not None:
            wake()

    @staticmethod
    def opening() -> bytes:
        """The stream's first line: the delay a browser waits after a dropped line before it
        opens the stream again (live.js reopens it itself, with the state it holds then)."""
        return f"retry: {settings.LIVE_REFRESH_SECONDS * 1000}\n\n".encode()

    def __iter__(self):
        # A stream waits for hours: it holds none of the database's connections meanwhile
        # (its view's is closed; a test's transaction is left as it is).
        for used in connections.all(initialized_only=True):
            if not used.in_atomic_block:
                used.close()
        try:
            yield self.opening()
            while True:
                try:
                    message = self.messages.get(timeout=HEARTBEAT)
                except queue.Empty:
                    yield b":\n\n"
                    continue
                if message is None:
                    return
                yield message
        finally:
            self.hub.leave(self)


class Hub:
    """Every stream of this process and the thread that answers them (started with the first)."""

    def __init__(self, start: bool = True):
        self.start = start  # False: no thread, the caller calls tick() (the tests)
        self.lock = threading.Lock()
        self.questions: dict[tuple, Question] = {}  # (page, version, states) -> question
        self.where: dict[Stream, tuple] = {}  # stream -> its question's key
        self.thread: threading.Thread | None = None
        self.stopping = False  # the process stops: no new stream
        self.handler: WSGIHandler | None = None
        # What the thread did and the CPU it took (make bench): beats, and the checks asked
        self.ticks, self.spent, self.checks, self.checking = 0, 0.0, 0, 0.0

    def __len__(self) -> int:
        return len(self.where)

    def follow(self, page: Page, version: str, states: str, client: str = "") -> Stream | None:
        """A new stream on ``page`` for a phone holding ``version`` and ``states``; None when
        this process already serves ``LIVE_STREAMS``, or ``LIVE_STREAMS_PER_CLIENT`` to the
        ``client`` address."""
        with self.lock:
            if self.stopping or len(self.where) >= settings.LIVE_STREAMS:
                return None
            if settings.LIVE_STREAMS_PER_CLIENT and (
                sum(s.client == client for s in self.where) >= settings.LIVE_STREAMS_PER_CLIENT
            ):
                return None
            stream = Stream(self, client)
            key = (page, version, states)
            question = self.questions.get(key)
            if question is None:
                question = self.questions[key] = Question(page, version, states)
            question.streams.add(stream)
            self.where[stream] = key
            if self.start and (self.thread is None or not self.thread.is_alive()):
                self.thread = threading.Thread(target=self.run, name="live-hub", daemon=True)
                self.thread.start()
            return stream

    def leave(self, stream: Stream) -> None:
        with self.lock:
            key = self.where.pop(stream, None)
            question = self.questions.get(key) if key else None
            if question is not None:
                question.streams.discard(stream)
                if not question.streams:
                    del self.questions[key]

    def run(self) -> None:
        while True:
            every = settings.LIVE_REFRESH_SECONDS
            time.sleep(every - time.time() % every)  # the next beat: the same in every process
            self.beat(round(time.time() / every))

    def beat(self, number: int) -> None:
        """One beat as the hub's thread runs it: ``tick``, and when it fails, every stream
        told to poll (its page asks for itself; the next beat tries again for the streams
        opened since)."""
        started = time.thread_time()
        try:
            self.tick(number)
        except Exception:
            log.exception("The live streams' beat failed: their pages ask for themselves")
            shared.cache_clear()  # the next beat opens the shared folder again
            self.end_all(POLL)
        finally:
            # Between beats the thread holds no connection (nothing of the database is kept
            # open for it: a test database can be dropped, a server restarted); a test's
            # transaction is left as it is.
            for used in connections.all(initialized_only=True):
                if not used.in_atomic_block:
                    used.close()
        self.ticks += 1
        self.spent += time.thread_time() - started

    def tick(self, beat: int) -> None:
        """Ask every question whose page changed since it was last asked. At most once a beat
        (every ``LIVE_REFRESH_SECONDS``, on the clock's time): a change shows within one
        interval, and the phones on one page come to hold one version and one state."""
        with self.lock:
            questions = list(self.questions.values())
        if not questions:
            return
        seen = changes_of({q.page for q in questions})
        failed = 0
        with shared_reads():  # the bracket and the results of one version: computed once
            for question in questions:
                key = seen.get((question.page.event_id, question.page.table_id))
                if key is None or key != question.seen:
                    try:
                        self.ask(question, key, beat)
                    except Exception:  # this page's phones ask for themselves; others go on
                        log.exception("A live page's check failed: its pages ask for themselves")
                        self.end(question, POLL)
                        failed += 1
        if failed:
            shared.cache_clear()  # the next beat opens the shared folder again
        shared().forget(beat - 2)

    def ask(self, question: Question, key: tuple | None, beat: int) -> None:
        """The page's check asked as the phones would, its answer written to each stream:
        once a beat for every process of the site (``Shared``)."""
        if key is None:  # the event or the table is gone: the phones ask the page themselves
            self.end(question)
            return
        if not question.page.regions:  # version.json's answer
            version, states = str(key[0]), ""
            body = json.dumps({"version": key[0]}).encode()
        else:
            name = f"{question.page.name}.{live.digest(question.version + question.states)}.{beat}"
            with shared().lock(question.page.name):
                found = shared().read(name)
                if found is None:
                    started = time.thread_time()
                    response = self.check(question)
                    self.checks += 1
                    self.checking += time.thread_time() - started
                    if response.status_code != 200:
                        self.end(question)
                        return
                    answer = json.loads(response.content)
                    found = (key, response.content, kept_states(answer))
                    shared().write(name, *found)
                else:  # another process's answer: the states it gave, for the next beat's
                    answer = json.loads(found[1])
                    for state_id, state in found[2].items():
                        live_cache().add(f"live-state:{state_id}", state, LIVE_STATE_SECONDS)
            key, body, _ = found
            version, states = version_and_states(answer, question.states)
        if version == question.version:
            question.seen = key
            return
        message = b"data: " + body + b"\n\n"
        with self.lock:
            old = (question.page, question.version, question.states)
            if self.questions.get(old) is not question:
                return  # every stream left meanwhile
            del self.questions[old]
            new = (question.page, version, states)
            moved = self.questions.get(new)
            if moved is None:
                moved = self.questions[new] = Question(question.page, version, states)
            moved.seen = key
            for stream in question.streams:
                moved.streams.add(stream)
                self.where[stream] = new
                stream.send(message)

    def stop(self) -> None:
        """The process stops: every stream ended, and one asked for afterwards refused (204).
        Called from a signal handler (``end_all``)."""
        self.stopping = True
        self.end_all()

    def end_all(self, last: bytes | None = None) -> None:
        """Every stream ended (the process stops, or a beat failed: ``last`` is sent first).
        Called from a signal handler, so without the hub's lock: the handler may have
        interrupted the very frame that holds it (a second signal while the first one's call
        runs: Ctrl+C reaches the worker and its master's quick stop follows)."""
        for stream in list(self.where):  # one step under the GIL: a copy as it stands
            if last is not None:
                stream.send(last)
            stream.send(None)

    def end(self, question: Question, last: bytes | None = None) -> None:
        with self.lock:
            for stream in question.streams:
                if last is not None:
                    stream.send(last)
                stream.send(None)
            self.questions.pop((question.page, question.version, question.states), None)

    def check(self, question: Question):
        """The page's check, through the site's middleware and view, as a phone with no
        session asks it (X-Live-Version, X-Live-States)."""
        if self.handler is None:
            self.handler = WSGIHandler()
        page = question.page
        environ = {
            **dict(page.environ),
            "REQUEST_METHOD": "GET",
            "PATH_INFO": page.path,
            "QUERY_STRING": page.query,
            "wsgi.input": io.BytesIO(),
            "HTTP_X_LIVE_VERSION": question.version,
            "HTTP_X_LIVE_STATES": question.states,
            "HTTP_COOKIE": f"{settings.LANGUAGE_COOKIE_NAME}={page.language}",
            "REMOTE_ADDR": "127.0.0.1",  # the server itself
        }
        # get_response, not the WSGI call: no request_started or request_finished (which
        # would close this thread's database connection at every question).
        return self.handler.get_response(WSGIRequest(environ))


def version_and_states(answer: dict, held: str) -> tuple[str, str]:
    """The version a check's answer brings a phone to, and the states of its regions then
    (``held``, as the phone said them: "id=state,id=state")."""
    regions = answer.get("regions") or {}
    states = ",".join(
        f"{rid}={regions.get(rid, {}).get('state', state)}"
        for rid, _, state in (part.partition("=") for part in held.split(","))
        if rid
    )
    return str(answer.get("version")), states


def kept_states(answer: dict) -> dict[str, live.State]:
    """The states a check's answer gave its regions, as this process keeps them
    (LiveMixin.live_region): what the next beat's question holds."""
    regions = answer.get("regions") or {}
    states = {}
    for region in regions.values():
        state = live_cache().get(f"live-state:{region.get('state')}")
        if state is not None:
            states[region["state"]] = state
    return states


def changes_of(pages: set[Page]) -> dict[tuple, tuple]:
    """(event id, table id or None) -> what such a page changes with now: the event's
    version, or for a table's page what every table shows and its table's own version."""
    events = {
        pk: (version, shared)
        for pk, version, shared in Event.objects.filter(
            pk__in={p.event_id for p in pages}
        ).values_list("pk", "version", "shared_version")
    }
    tables = dict(
        Table.objects.filter(pk__in={p.table_id for p in pages if p.table_id}).values_list(
            "pk", "version"
        )
    )
    out = {}
    for page in pages:
        if page.event_id not in events:
            continue
        version, shared = events[page.event_id]
        if page.table_id is None:
            out[page.event_id, None] = (version,)
        elif page.table_id in tables:
            out[page.event_id, page.table_id] = (shared, tables[page.table_id])
    return out


class Shared:
    """The answers each beat's questions got, shared by the site's processes on this machine:
    the first process's hub to ask a question renders it, the others read its answer (a file
    each, written once, forgotten two beats later), each page's asking one process at a time
    (a lock file). Nothing is lost when it is not shared (another machine): that process
    renders its own.

    What it holds is sent to phones as HTML, and it deletes what it forgets: the folder must
    be this user's alone. It is opened once, never through a symbolic link, and only when it
    is a folder this user owns that no one else may enter (0700); every file in it is then
    reached through that open folder (``dir_fd``), never through a link. Anything else at its
    name (a file, a link, another user's folder, one open to others) is left alone: this
    process keeps its answers to itself, in memory."""

    def __init__(self, folder: Path):
        self.folder: Path | None = folder
        self.fd: int | None = None
        self.kept: dict[str, tuple] = {}  # name -> answer, when not shared
        try:
            self.fd = own_folder(folder)
        except OSError as error:
            log.warning(
                "%s is not this user's own folder (%s): the answers are not shared",
                folder,
                error.strerror or error,
            )
            self.folder = None

    def __del__(self):
        if self.fd is not None:
            with suppress(OSError):
                os.close(self.fd)

    def open(self, name: str, flags: int, mode: int = 0o600) -> int:
        return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=self.fd)

    @contextmanager
    def lock(self, name: str):
        if self.fd is None:
            yield  # one process: its hub's thread asks one question at a time
            return
        handle = self.open(f"{name}.lock", os.O_CREAT | os.O_RDWR)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield
        finally:
            os.close(handle)  # and the lock with it

    def read(self, name: str) -> tuple[tuple, bytes, dict[str, live.State]] | None:
        if self.fd is None:
            return self.kept.get(name)
        try:
            handle = self.open(name, os.O_RDONLY)
        except FileNotFoundError:
            return None
        with os.fdopen(handle, "rb") as file:
            text = file.read()
        head, _, body = text.partition(b"\n")
        key, states = json.loads(head)
        states = {
            sid: live.State(frame, digests, {k: tuple(w) for k, w in where.items()})
            for sid, (frame, digests, where) in states.items()
        }
        return tuple(key), body, states

    def write(self, name: str, key: tuple, body: bytes, states: dict[str, live.State]) -> None:
        """Written whole, then named: a reader finds it whole or not at all."""
        if self.fd is None:
            self.kept[name] = (key, body, states)
            return
        kept = {sid: [s.frame, s.digests, s.where] for sid, s in states.items()}
        scratch = f"{name}.{os.getpid()}.tmp"
        with os.fdopen(self.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "wb") as file:
            file.write(json.dumps([key, kept]).encode() + b"\n" + body)
        os.replace(scratch, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def forget(self, before: int) -> None:
        """The answers of the beats before ``before``."""
        if self.fd is None:
            for name in [n for n in self.kept if int(n.rpartition(".")[2]) < before]:
                del self.kept[name]
            return
        with os.scandir(self.fd) as entries:
            names = [entry.name for entry in entries]
        for name in names:
            beat = name.rpartition(".")[2]
            if beat.isdigit() and int(beat) < before:
                with suppress(FileNotFoundError):  # another process's hub forgot it first
                    os.unlink(name, dir_fd=self.fd)


class CacheShared:
    """The answers shared through the cache service (Redis), as ``Shared`` shares them in a
    folder: every process of the site on every machine reads the answer the first one wrote.
    Each answer is kept three beats (``forget`` has nothing to do); a page's lock is Redis's
    own, given up after ``LOCK_SECONDS`` by a process that died holding it. Redis unreachable:
    each process renders its own answers (the pages' cache fails the same way)."""

    LOCK_SECONDS = 10

    def __init__(self, cache):
        self.cache = cache

    @contextmanager
    def lock(self, name: str):
        try:
            client = self.cache._cache.get_client(write=True)
            held = client.lock(
                self.cache.make_key(f"live-lock:{name}"),
                timeout=self.LOCK_SECONDS,
                blocking_timeout=self.LOCK_SECONDS,
            )
            got = held.acquire()
        except Exception:  # noqa: BLE001 (the answer is rendered here all the same)
            log.warning("The live answers' lock in the cache failed", exc_info=True)
            got = False
        try:
            yield
        finally:
            if got:
                with suppress(Exception):  # expired meanwhile: another process has it
                    held.release()

    def read(self, name: str) -> tuple[tuple, bytes, dict[str, live.State]] | None:
        try:
            return self.cache.get(f"live-answer:{name}")
        except Exception:  # noqa: BLE001
            log.warning("The live answers' cache could not be read", exc_info=True)
            return None

    def write(self, name: str, key: tuple, body: bytes, states: dict[str, live.State]) -> None:
        seconds = 3 * settings.LIVE_REFRESH_SECONDS
        try:
            self.cache.set(f"live-answer:{name}", (tuple(key), body, states), seconds)
        except Exception:  # noqa: BLE001
            log.warning("The live answers' cache could not be written", exc_info=True)

    def forget(self, before: int) -> None:
        """Nothing: the cache forgets each answer by itself."""


_hub = Hub()


def hub() -> Hub:
    return _hub


@lru_cache(maxsize=1)
def shared() -> Shared | CacheShared:
    """Where this site's processes share their answers: the cache service when it is Redis
    (shared by every machine), else a folder, one per database, in this user's runtime folder
    (``runtime_folder``; ``LIVE_SHARED_DIR`` to choose another)."""
    if settings.CACHES["live"]["BACKEND"].endswith(".RedisCache"):
        return CacheShared(live_cache())
    database = settings.DATABASES["default"]
    site = live.digest(repr((database["ENGINE"], database["NAME"], database.get("HOST", ""))))
    folder = getattr(settings, "LIVE_SHARED_DIR", "") or runtime_folder()
    return Shared(Path(folder) / f"mt-live-{site}")


@method_decorator(never_cache, name="dispatch")
class EventStreamView(View):
    """``text/event-stream``: a live page's changes as they happen (static/js/live.js), or
    204 when this process serves no more streams, streams are off, or the phone has a
    session: it then asks every few seconds."""

    def get(self, request, slug):
        if (
            not settings.LIVE_STREAMS
            or settings.SESSION_COOKIE_NAME in request.COOKIES
            or request.user.is_authenticated
        ):
            return HttpResponse(status=204)
        page_path, _, query = request.GET.get("page", "").partition("?")
        version, states = request.GET.get("v", ""), request.GET.get("s", "")
        if (
            not page_path.startswith(f"/e/{slug}/")
            or len(page_path) > 300
            or len(query) > 300
            or not VERSION.match(version)
            or not STATES.match(states)
        ):
            return HttpResponse(status=400)
        try:
            match = resolve(page_path)
        except Resolver404:
            raise Http404 from None
        view_class = getattr(match.func, "view_class", None)
        if view_class is None or match.kwargs.get("slug") != slug:
            return HttpResponse(status=400)
        event = get_object_or_404(Event.objects.only("pk"), slug=slug)
        regions = bool(getattr(view_class, "live_regions", None))
        page = Page(
            event_id=event.pk,
            table_id=view_class.live_watch(event, match.kwargs) if regions else None,
            regions=regions,
            path=page_path,
            query=query,
            language=get_language_from_request(request),
            environ=tuple(
                (name, request.META[name]) for name in KEPT_ENVIRON if name in request.META
            ),
        )
        stream = hub().follow(page, version, states, client=client_ip(request))
        if stream is None:
            return HttpResponse(status=204)
        response = StreamingHttpResponse(stream, content_type="text/event-stream")
        response["X-Accel-Buffering"] = "no"  # a proxy passes each message on at once
        response.live_stream = stream  # the hall's front sends it itself (hall_front.py)
        return response
