"""Public pages rendered once per change, answered with 304 while unchanged, and live.

Every write bumps the event's ``version`` in its own transaction (tournament/history.py), so a
page's content is a function of the event's version (and of the request: path, query, language,
the part asked for). Three things follow:

- ``fragment_key``: the costly parts of a page (standings of 1,000 rows, the bracket, the
  results) are rendered inside ``{% cache %}`` keyed by it, through Django's cache framework
  (CACHE_URL: local memory by default, Redis when set), so that 300 phones cost one render.
- ``VersionedPageMixin``: an ETag from the version; a browser that has the page gets a 304.
  Only for visitors who are not logged in and have no message waiting: a director's page
  carries buttons, a form token and messages that are not a function of the version.
- ``LiveMixin``: the page's live regions (``live_regions``: element id -> template) are served
  without the page (static/js/live.js asks the page every few seconds whether the version
  moved, with the state of each region it holds: one request, answered from the cache before
  the page's context is made), as the changes from the state the phone holds
  (tournament/live.py): a saved round sends a few rows, whatever the event's size.
- ``LiveCheckMiddleware``: a check another phone already asked at the event's current version
  is answered again before the rest of Django's middleware, with the event's one query.
"""

from __future__ import annotations

import hashlib
import re
import threading
from contextlib import contextmanager

from django.conf import settings
from django.contrib import messages
from django.core.cache import caches
from django.core.exceptions import DisallowedHost
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.decorators import method_decorator
from django.utils.translation import get_language, get_language_from_request
from django.views import View
from django.views.decorators.cache import never_cache

from tournament import live
from tournament.display import chosen as display_chosen
from tournament.models import Event

# What a live page's requests say of the part asked for (LiveMixin): the answer varies with them.
LIVE_HEADERS = ["X-Live-Version", "X-Live-States", "X-Live-Region", "X-Live-State"]


def identity_key(event: Event) -> str:
    """The event's identity: a deleted event's id given to a new one never matches (the
    creation time differs)."""
    return f"{event.pk}.{int(event.created.timestamp() * 1_000_000)}"


def version_key(event: Event) -> str:
    """The event's identity and version."""
    return f"{identity_key(event)}.{event.version}"


def fragment_key(event: Event) -> str:
    """What a cached part of a public page depends on besides its own arguments."""
    return f"{version_key(event)}.{get_language()}"


def live_context(event: Event) -> dict:
    """What base.html needs to keep a page live: the version it shows and where to ask."""
    return {
        "live_refresh": settings.LIVE_REFRESH_SECONDS,
        "live_version": event.version,
        "live_version_url": reverse("event_version", args=[event.slug]),
        # Where a phone opens the page's stream instead (tournament/streams.py), when on.
        "live_stream_url": reverse("event_stream", args=[event.slug])
        if settings.LIVE_STREAMS
        else "",
    }


class VersionedPageMixin:
    """Conditional GET for a public page of an event (put after EventMixin)."""

    @classmethod
    def live_watch(cls, event: Event, kwargs: dict) -> int | None:
        """What a stream of the page (tournament/streams.py) follows besides the event: the
        id of the table whose own version the page changes with (TableSheetView), or None."""
        return None

    def live_key(self) -> str:
        """What the page depends on: the event's version, or something narrower that changes
        with every write the page shows (a table's page: TableSheetView)."""
        return version_key(self.event)

    def page_etag(self) -> str | None:
        request = self.request
        if request.user.is_authenticated or len(messages.get_messages(request)):
            return None
        asked = "|".join(
            [
                request.get_full_path(),
                get_language() or "",
                *display_chosen(request),  # the page's text size and contrast
                *(request.headers.get(name, "") for name in LIVE_HEADERS),
            ]
        )
        digest = hashlib.sha256(asked.encode()).hexdigest()[:16]
        return f'"{self.live_key()}-{digest}"'

    def get(self, request, *args, **kwargs):
        etag = self.page_etag()
        if etag is not None:
            unchanged = get_conditional_response(request, etag=etag)
            if unchanged is not None:
                unchanged.headers["ETag"] = etag
                return unchanged
        response = self.early_response() or self.page_response(request, *args, **kwargs)
        if etag is not None and response.status_code == 200:
            response.headers["ETag"] = etag
            patch_cache_control(response, no_cache=True)  # ask again each time: 304 or the page
        patch_vary_headers(response, LIVE_HEADERS)
        return response

    def early_response(self) -> HttpResponse | None:
        """An answer found before the page's context is made (LiveMixin), or None."""
        return None

    def page_response(self, request, *args, **kwargs):
        """The page (or the part asked for), made from its context."""
        return super().get(request, *args, **kwargs)


class LiveMixin(VersionedPageMixin):
    """A public page whose ``live_regions`` (element id -> template) follow the event: the
    page shows each through ``{% live_region %}`` (tournament/templatetags/live_tags.py).

    A phone's page asks it whether anything changed (``X-Live-Version``: the version it shows;
    ``X-Live-States``: each region's id and the state it holds, "id=state,id=state"): one
    request, answered ``{"version": n}`` while the event has not moved, else with every
    region's changes since the state held (``"regions": {id: answer}``, tournament/live.py).
    A region alone (``X-Live-Region``, ``X-Live-State``) gets its answer alone: the page asks
    so for a region the check could not bring up to date."""

    live_regions: dict[str, str] = {}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx.update(live_context(self.event))
        return ctx

    def live_region(self, region_id: str, context) -> live.Region:
        region = live.split(render_to_string(self.live_regions[region_id], context, self.request))
        # What a phone given this region will say it holds.
        live_cache().add(f"live-state:{region.state_id}", region.state, LIVE_STATE_SECONDS)
        return region

    def live_asked(self) -> dict[str, str] | None:
        """The regions asked for, each with the state the phone holds; None when the request
        asks for the page itself."""
        headers = self.request.headers
        if "X-Live-Version" in headers:
            asked = {}
            for part in headers.get("X-Live-States", "").split(",")[: len(self.live_regions)]:
                region_id, _, held = part.partition("=")
                if region_id in self.live_regions:
                    asked[region_id] = held[:40]
            return asked
        region_id = headers.get("X-Live-Region")
        if region_id not in self.live_regions:
            return None
        return {region_id: headers.get("X-Live-State", "")[:40]}

    def live_response(self, answers: dict[str, bytes]) -> HttpResponse:
        """The regions' answers as the phone asked for them: a check's, or one region's."""
        if "X-Live-Version" in self.request.headers:
            extra = self.live_extra() if answers else {}
            response = HttpResponse(
                live.check_answer(self.event.version, answers, extra),
                content_type="application/json",
            )
            # The same question at this version gets this answer (LiveCheckMiddleware).
            response.live_version_key = version_key(self.event)
            return response
        [body] = answers.values()
        return HttpResponse(body, content_type="application/json")

    def live_extra(self) -> dict:
        """What a check's answer says besides the regions when the event moved (the page's
        clock: StandingsView)."""
        return {}

    def now_key(self, region_id: str) -> str:
        """The key under which this version's state of the region is kept."""
        asked = f"{region_id}|{self.request.get_full_path()}|{get_language()}"
        return f"live-now:{live.digest(asked)}:{self.live_key()}"

    def page_response(self, request, *args, **kwargs):
        asked = self.live_asked()
        if not asked or request.user.is_authenticated:
            return super().page_response(request, *args, **kwargs)
        # Not in the cache: the phones asking for a region just changed wait for the first
        # one's render instead of each rendering it (a saved round: dozens of phones within the
        # same 100 ms); live_answer then finds it in the cache.
        with one_at_a_time(self.now_key(next(iter(asked)))):
            return super().page_response(request, *args, **kwargs)

    def early_response(self) -> HttpResponse | None:
        """A check while the event has not moved, or the regions a phone asks for answered
        from what an earlier phone's request left in the cache, before any of the page's
        queries: during play, the answer of nearly every poll."""
        asked = self.live_asked()
        if asked is None:
            return None
        if self.request.headers.get("X-Live-Version") == str(self.event.version) or not asked:
            return self.live_response({})
        if self.request.user.is_authenticated:
            return None
        answers = {}
        for region_id, held in asked.items():
            answers[region_id] = self.cached_answer(region_id, held)
            if not answers[region_id]:
                return None
        return self.live_response(answers)

    def cached_answer(self, region_id: str, held: str) -> bytes | None:
        """The answer for a phone holding ``held``, from the region's state at this version as
        an earlier request left it in the cache; None when it is not there."""
        current = live_cache().get(self.now_key(region_id))
        return current and kept_answer(held, current)

    def live_answer(self, region_id: str, held: str, context) -> bytes:
        """The JSON a phone holding state ``held`` gets: its changes, computed once for every
        phone holding that state at this version of the event."""
        if self.request.user.is_authenticated:  # a director's region carries their own controls
            return live.answer(held_state(held), held, self.live_region(region_id, context))
        answer = self.cached_answer(region_id, held)  # rendered while this one waited
        if answer:
            return answer
        region = self.live_region(region_id, context)
        live_cache().set(f"live-region:{region.state_id}", region, LIVE_STATE_SECONDS)
        live_cache().set(self.now_key(region_id), region.state_id, LIVE_STATE_SECONDS)
        return kept_answer(held, region.state_id, region)

    def render_to_response(self, context, **response_kwargs):
        asked = self.live_asked()
        if asked is not None:
            return self.live_response(
                {rid: self.live_answer(rid, held, context) for rid, held in asked.items()}
            )
        context["live_html"] = {rid: self.live_region(rid, context) for rid in self.live_regions}
        return super().render_to_response(context, **response_kwargs)


EVENT_PATH = re.compile(r"^/e/([-\w]+)/")


class LiveCheckMiddleware:
    """A live page's check (static/js/live.js; tournament/caching.py LiveMixin) asked again by
    another phone, answered here, before the rest of the middleware, while the event is at the
    version the first answer was made at: the event's one query, and the answer this process
    kept, headers and all. During play this is nearly every request of the hall's phones.

    The question is the whole of what the answer depends on: the address asked and its host,
    the version and regions' states the phone holds, its language (from its cookie or its
    browser's languages, as LocaleMiddleware chooses it).
    A request with a session (a director, a table's phone, a message waiting) goes the whole
    way, and only an answer of 200 that sets no cookie is kept."""

    # What a process keeps: forgotten all at once past either (whole regions asked with made-up
    # states weigh up to a megabyte each).
    KEPT, KEPT_BYTES = 2000, 32_000_000
    kept_bytes = 0
    # question -> (the event's version_key answered at, body, headers): one for the process,
    # whichever handler (a test client makes its own).
    kept: dict[tuple, tuple[str, bytes, list]] = {}

    def __init__(self, get_response):
        self.get_response = get_response

    def question(self, request) -> tuple | None:
        headers = request.headers
        if (
            "X-Live-Version" not in headers
            or request.method != "GET"
            or settings.SESSION_COOKIE_NAME in request.COOKIES  # messages live in the session
        ):
            return None
        try:
            host = request.get_host()
        except DisallowedHost:
            return None
        return (
            request.scheme,
            host,
            request.get_full_path(),
            headers["X-Live-Version"],
            headers.get("X-Live-States", ""),
            get_language_from_request(request),  # as LocaleMiddleware will choose it
        )

    def __call__(self, request):
        question = self.question(request)
        found = question and EVENT_PATH.match(request.path_info)
        if not found:
            return self.get_response(request)
        kept = self.kept.get(question)
        if kept is not None:
            event = Event.objects.only("created", "version").filter(slug=found.group(1)).first()
            if event is not None and version_key(event) == kept[0]:
                response = HttpResponse(kept[1])
                for header, value in kept[2]:
                    response.headers[header] = value
                return response
        response = self.get_response(request)
        answered_at = getattr(response, "live_version_key", None)
        if answered_at and response.status_code == 200 and not response.cookies:
            body = response.content
            replaced = self.kept.pop(question, None)  # its answer at an earlier version
            if replaced is not None:
                LiveCheckMiddleware.kept_bytes -= len(replaced[1])
            if len(self.kept) >= self.KEPT or LiveCheckMiddleware.kept_bytes > self.KEPT_BYTES:
                self.kept.clear()
                LiveCheckMiddleware.kept_bytes = 0
            LiveCheckMiddleware.kept_bytes += len(body)
            self.kept[question] = (answered_at, body, list(response.items()))
        return response


# How long a region's state is remembered: a phone holding an older one gets the whole region.
LIVE_STATE_SECONDS = 10 * 60


def live_cache():
    return caches["live"]


def kept_answer(held: str, current: str, region: live.Region | None = None) -> bytes | None:
    """The answer for a phone holding ``held`` when the region's state is ``current``: kept
    once computed, from the region as it is now (``region``, or as kept); None when the
    region is no longer kept."""
    if held == current:
        return live.answer(None, held, None)
    key = f"live-answer:{held}:{current}"
    answer = live_cache().get(key)
    if answer is None:
        region = region or live_cache().get(f"live-region:{current}")
        if region is None:
            return None
        answer = live.answer(held_state(held), held, region)
        live_cache().set(key, answer, LIVE_STATE_SECONDS)
    return answer


_READS = threading.local()


@contextmanager
def shared_reads():
    """Within this block, in this thread only, what ``kept_read`` is asked for is computed
    once: the streams' hub (tournament/streams.py) asks the bracket's and the results' checks
    one after the other, both made of the event's results at one version."""
    _READS.kept = {}
    try:
        yield
    finally:
        del _READS.kept


def kept_read(key: str, make):
    """``make()``, or what it made for ``key`` earlier in this thread's ``shared_reads``."""
    kept = getattr(_READS, "kept", None)
    if kept is None:
        return make()
    if key not in kept:
        kept[key] = make()
    return kept[key]


_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def one_at_a_time(key: str) -> threading.Lock:
    """A lock of this process for ``key`` (forgotten by the thousand: a lock dropped while
    held only lets a second request render what the first is rendering)."""
    with _LOCKS_GUARD:
        if len(_LOCKS) >= 1000:
            _LOCKS.clear()
        return _LOCKS.setdefault(key, threading.Lock())


def held_state(held: str) -> live.State | None:
    """The state a phone says it holds, if this server still knows it."""
    return live_cache().get(f"live-state:{held}") if held else None


@method_decorator(never_cache, name="dispatch")
class EventVersionView(View):
    """``{"version": n}``: what a live page asks every few seconds (one indexed query)."""

    def get(self, request, slug):
        event = get_object_or_404(Event.objects.only("version"), slug=slug)
        return JsonResponse({"version": event.version})
