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
  alone to htmx (static/js/live.js asks /e/<slug>/version.json every few seconds and, when the
  version moved, has htmx fetch each region and swap it in place).
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.decorators import method_decorator
from django.utils.translation import get_language
from django.views import View
from django.views.decorators.cache import never_cache

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
                request.headers.get("HX-Request", ""),
                request.headers.get("HX-Target", ""),
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
        response = super().get(request, *args, **kwargs)
        if etag is not None and response.status_code == 200:
            response.headers["ETag"] = etag
            patch_cache_control(response, no_cache=True)  # ask again each time: 304 or the page
        patch_vary_headers(response, ["HX-Request", "HX-Target"])
        return response


class LiveMixin(VersionedPageMixin):
    """A public page whose ``live_regions`` are swapped in by htmx when the event changes."""

    live_regions: dict[str, str] = {}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx.update(live_context(self.event))
        return ctx

    def render_to_response(self, context, **response_kwargs):
        htmx = getattr(self.request, "htmx", None)
        region = self.live_regions.get(htmx.target) if htmx else None
        if region is not None:
            return TemplateResponse(self.request, region, context)
        return super().render_to_response(context, **response_kwargs)


@method_decorator(never_cache, name="dispatch")
class EventVersionView(View):
    """``{"version": n}``: what a live page asks every few seconds (one indexed query)."""

    def get(self, request, slug):
        event = get_object_or_404(Event.objects.only("version"), slug=slug)
        return JsonResponse({"version": event.version})
