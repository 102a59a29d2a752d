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
  alone (static/js/live.js asks /e/<slug>/version.json every few seconds and, when the
  version moved, fetches each region), as the changes from the state the phone holds
  (tournament/live.py): a saved round sends a few rows, whatever the event's size.
"""

from __future__ import annotations

import hashlib
import threading

from django.conf import settings
from django.contrib import messages
from django.core.cache import caches
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.decorators import method_decorator
from django.utils.translation import get_language
from django.views import View
from django.views.decorators.cache import never_cache

from tournament import live
from tournament.models import Event


def version_key(event: Event) -> str:
    """The event's identity and version: a deleted event's id given to a new one never
    matches (the creation time differs)."""
    return f"{event.pk}.{int(event.created.timestamp() * 1_000_000)}.{event.version}"


def fragment_key(event: Event) -> str:
    """What a cached part of a public page depends on besides its own arguments."""
    return f"{version_key(event)}.{get_language()}"


def live_context(event: Event) -> dict:
    """What base.html needs to keep a page live: the version it shows and where to ask."""
    return {
        "live_refresh": settings.LIVE_REFRESH_SECONDS,
        "live_version": event.version,
        "live_version_url": reverse("event_version", args=[event.slug]),
    }


class VersionedPageMixin:
    """Conditional GET for a public page of an event (put after EventMixin)."""

    def page_etag(self) -> str | None:
        request = self.request
        if request.user.is_authenticated or len(messages.get_messages(request)):
            return None
        asked = "|".join(
            [
                request.get_full_path(),
                get_language() or "",
                request.headers.get("X-Live-Region", ""),
                request.headers.get("X-Live-State", ""),
            ]
        )
        digest = hashlib.sha256(asked.encode()).hexdigest()[:16]
        return f'"{version_key(self.event)}-{digest}"'

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
        patch_vary_headers(response, ["X-Live-Region", "X-Live-State"])
        return response

    def early_response(self) -> HttpResponse | None:
        """An answer found before the page's context is made (LiveMixin), or None."""
        return None

    def page_response(self, request, *args, **kwargs):
        """The page (or the part asked for), made from its context."""
        return super().get(request, *args, **kwargs)


class LiveMixin(VersionedPageMixin):
    """A public page whose ``live_regions`` (element id -> template) follow the event: the
    page shows each through ``{% live_region %}`` (tournament/templatetags/live_tags.py), and
    a phone asking for one (``X-Live-Region``) gets its changes since the state it holds
    (``X-Live-State``) as JSON."""

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

    def live_keys(self, region_id: str) -> tuple[str, str]:
        """The state the phone holds, and the key under which this version's state of the
        region is kept."""
        held = self.request.headers.get("X-Live-State", "")[:40]
        asked = f"{region_id}|{self.request.get_full_path()}|{get_language()}"
        return held, f"live-now:{live.digest(asked)}:{version_key(self.event)}"

    def page_response(self, request, *args, **kwargs):
        asked = request.headers.get("X-Live-Region")
        if asked not in self.live_regions or request.user.is_authenticated:
            return super().page_response(request, *args, **kwargs)
        # Not in the cache: the phones asking for a region just changed wait for the first
        # one's render instead of each rendering it (a saved round: dozens of phones within the
        # same 100 ms); live_answer then finds it in the cache.
        with one_at_a_time(self.live_keys(asked)[1]):
            return super().page_response(request, *args, **kwargs)

    def early_response(self) -> HttpResponse | None:
        """A phone's region answered from what an earlier phone's request left in the cache,
        before any of the page's queries: during play, the answer of nearly every poll."""
        asked = self.request.headers.get("X-Live-Region")
        if asked not in self.live_regions or self.request.user.is_authenticated:
            return None
        held, now_key = self.live_keys(asked)
        current = live_cache().get(now_key)
        answer = current and kept_answer(held, current)
        if not answer:
            return None
        return HttpResponse(answer, content_type="application/json")

    def live_answer(self, region_id: str, context) -> bytes:
        """The JSON a phone holding the state it names gets: its changes, computed once for
        every phone holding that state at this version of the event."""
        request = self.request
        held, now_key = self.live_keys(region_id)
        if request.user.is_authenticated:  # a director's region carries their own controls
            return live.answer(held_state(held), held, self.live_region(region_id, context))
        current = live_cache().get(now_key)
        answer = current and kept_answer(held, current)
        if answer:
            return answer
        region = self.live_region(region_id, context)
        live_cache().set(f"live-region:{region.state_id}", region, LIVE_STATE_SECONDS)
        live_cache().set(now_key, region.state_id, LIVE_STATE_SECONDS)
        return kept_answer(held, region.state_id, region)

    def render_to_response(self, context, **response_kwargs):
        asked = self.request.headers.get("X-Live-Region")
        if asked in self.live_regions:
            return HttpResponse(self.live_answer(asked, context), content_type="application/json")
        context["live_html"] = {rid: self.live_region(rid, context) for rid in self.live_regions}
        return super().render_to_response(context, **response_kwargs)


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
