"""The public read-only API (issue 50 item 5): events, stages and their standings, results and
medals, series and ratings, as the public pages show them, in JSON under /api/.

Its documents are shaped from the same reads as the pages (a page's template, in JSON); each
comes with the key of what it depends on (an event's version, the series' events and their
versions, the ratings' state), from which its ETag is made: a client that sends it back gets
304 until something changed. Each address may ask ``API_REQUESTS_PER_MINUTE`` times a minute
(429 beyond, with Retry-After). Nothing private: no e-mail, birth date, table code or log-in;
a player is their name, club and division, as the public pages show them. The shape is
declared in scoring/openapi.py and every answer is checked against it in tests/test_api.py.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Max, Sum
from django.http import Http404, HttpResponseNotModified, JsonResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views import View

from scoring.archive import series_events
from scoring.models import Series
from scoring.openapi import document as openapi_document
from scoring.results import load_results
from scoring.series import series_standings
from scoring.views.ratings import leaderboard, page_asked, ratings_state, state_key
from scoring.views.results import medal_rows, shown_standings
from tournament.caching import version_key
from tournament.models import Event, Stage
from tournament.security import client_ip

API = "/api"


def _player(player) -> dict:
    return {"name": player.name, "club": player.club or "", "division": player.division or ""}


def events_key() -> str:
    """What the list of events depends on: which events are listed, and their versions."""
    seen = Event.objects.listed().aggregate(n=Count("pk"), last=Max("pk"), v=Sum("version"))
    return f"events.{seen['n']}.{seen['last']}.{seen['v']}.{get_language()}"


def events_document() -> dict:
    events = Event.objects.listed().order_by("-date", "name")
    return {
        "events": [
            {
                "slug": e.slug,
                "name": e.name,
                "date": e.date.isoformat(),
                "venue": e.venue or "",
                "url": f"{API}/events/{e.slug}/",
            }
            for e in events.only("slug", "name", "date", "venue")
        ]
    }


def event_key(event: Event) -> str:
    return f"{version_key(event)}.{get_language()}"


def _stage(event: Event, stage: Stage) -> dict:
    return {
        "number": stage.number,
        "title": str(stage.title),
        "kind": stage.kind,
        "division": stage.division or "",
        "closed": stage.closed,
        "published": not stage.seating_draft,
        "url": f"{API}/events/{event.slug}/stages/{stage.number}/",
    }


def event_document(event: Event) -> dict:
    stages = event.stages.select_related("playoff_table__stage", "wildcards_of").order_by("number")
    return {
        "slug": event.slug,
        "name": event.name,
        "date": event.date.isoformat(),
        "venue": event.venue or "",
        "medal_tie": event.medal_tie,
        "players": event.players.registered().count(),
        "stages": [_stage(event, s) for s in stages],
        "results": f"{API}/events/{event.slug}/results/",
        "results_published": not event.results_held,
    }


def stage_document(event: Event, stage: Stage) -> dict:
    # Not published yet (issue 49 item 4): a draft seating, or results held back: no rows.
    hidden = stage.seating_draft or event.results_held
    rows = [] if hidden else shown_standings(stage)
    return {
        **_stage(event, stage),
        "results_published": not event.results_held,
        "standings": [
            {
                "place": row.place,
                "player": _player(row.player),
                "table": row.table.number,
                "rounds": row.rounds,
                "total": row.total,
                "withdrew": row.withdrew_after is not None,
            }
            for row in rows
        ],
    }


def results_document(event: Event) -> dict:
    if event.results_held:  # not published yet (issue 49 item 4)
        return {"slug": event.slug, "published": False, "medals": []}
    results = load_results(event)  # whole sheets: the players' clubs
    return {
        "slug": event.slug,
        "published": True,
        "medals": [
            {
                "division": m["division"] or "",
                "medal": m["medal"],
                "players": [_player(p) for p in m["players"]],
                "pending": m["pending"],
                "between": [_player(p) for p in m["between"]],
                "awarded": bool(m["players"]),
                "out_of_district": [_player(p) for p in m["away"]],
            }
            for m in medal_rows(results)
        ],
    }


def series_list_key() -> str:
    seen = Series.objects.aggregate(n=Count("pk"), last=Max("pk"))
    return f"series.{seen['n']}.{seen['last']}"


def series_list_document() -> dict:
    return {
        "series": [
            {"slug": s.slug, "name": s.name, "url": f"{API}/series/{s.slug}/"}
            for s in Series.objects.order_by("name").only("slug", "name")
        ]
    }


def _number(value: int | Decimal) -> int | float:
    return float(value) if isinstance(value, Decimal) else value


def series_document(series: Series) -> tuple[str, dict]:
    """The series' standings, and the key they were computed under."""
    events = series_events(series)
    standings = series_standings(series, events)
    key = f"{series.pk}.{[(e.pk, e.version) for e in events]}.{series.scoring}"
    return key, {
        "slug": series.slug,
        "name": series.name,
        "scoring": standings.scoring,
        "events": [
            {"slug": c.event.slug, "name": c.event.name, "counted": c.counted}
            for c in standings.columns
        ],
        "divisions": [
            {
                "division": d.division or "",
                "rows": [
                    {
                        "place": r.place,
                        "shared": r.shared,
                        "name": r.name,
                        "total": _number(r.total),
                        "wins": r.wins,
                        "events": sum(cell is not None for cell in r.cells),
                    }
                    for r in d.rows
                ],
            }
            for d in standings.divisions
        ],
    }


def ratings_key(page: str) -> str:
    return f"ratings.{state_key(ratings_state())}.{page}"


def ratings_document(page: str) -> dict:
    board = leaderboard({}, page)
    shown = board["page"]
    return {
        "page": shown.number,
        "pages": shown.paginator.num_pages,
        "count": shown.paginator.count,
        "ratings": [
            {
                "place": r["place"],
                "name": r["name"],
                "club": r["club"] or "",
                "score": float(r["score"]),
                "games": int(r["games"]),
                "events": int(r["events"]),
            }
            for r in board["rows"]
        ],
    }


# -- the views ----------------------------------------------------------------------------------


def limited(request) -> bool:
    """Whether this address has asked more than its share this minute (counted in the cache,
    so across the processes of a site whose cache is Redis)."""
    key = f"api-limit:{client_ip(request)}"
    cache.add(key, 0, 60)
    try:
        return cache.incr(key) > settings.API_REQUESTS_PER_MINUTE
    except ValueError:  # expired between add and incr: a new minute
        cache.add(key, 1, 60)
        return False


def error(status: int, message: str, **headers) -> JsonResponse:
    return JsonResponse({"error": message}, status=status, headers=headers)


class ApiView(View):
    """GET (and HEAD) only; a document and its key from ``answer``; 304 when the client holds
    it; 404 and 429 as JSON; readable from any site (a federation's page, a stream overlay)."""

    http_method_names = ["get", "head", "options"]

    def answer(self) -> tuple[str, dict]:
        raise NotImplementedError

    def get(self, request, *args, **kwargs):
        if limited(request):
            return error(429, _("Too many requests: wait a minute."), **{"Retry-After": "60"})
        try:
            key, document = self.answer()
        except Http404:
            return error(404, _("Not found."))
        tag = '"' + hashlib.sha256(f"{type(self).__name__}.{key}".encode()).hexdigest()[:32] + '"'
        headers = {"ETag": tag, "Cache-Control": "no-cache", "Access-Control-Allow-Origin": "*"}
        if tag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
            response = HttpResponseNotModified()
            for name, value in headers.items():
                response[name] = value
            return response
        return JsonResponse(document, headers=headers, json_dumps_params={"ensure_ascii": False})


class IndexView(ApiView):
    def answer(self):
        return "index", {
            "events": f"{API}/events/",
            "series": f"{API}/series/",
            "ratings": f"{API}/ratings/",
            "schema": f"{API}/openapi.json",
        }


class SchemaView(ApiView):
    def answer(self):
        document = openapi_document()
        return json.dumps(document, sort_keys=True), document


class EventsView(ApiView):
    def answer(self):
        return events_key(), events_document()


class EventApiMixin:
    def event(self) -> Event:
        return get_object_or_404(Event, slug=self.kwargs["slug"])


class EventView(EventApiMixin, ApiView):
    def answer(self):
        event = self.event()
        return event_key(event), event_document(event)


class StageView(EventApiMixin, ApiView):
    def answer(self):
        event = self.event()
        stage = get_object_or_404(Stage, event=event, number=self.kwargs["stage"])
        stage.event = event
        return event_key(event), stage_document(event, stage)


class ResultsView(EventApiMixin, ApiView):
    def answer(self):
        event = self.event()
        return event_key(event), results_document(event)


class SeriesListView(ApiView):
    def answer(self):
        return series_list_key(), series_list_document()


class SeriesView(ApiView):
    def answer(self):
        return series_document(get_object_or_404(Series, slug=self.kwargs["slug"]))


class RatingsView(ApiView):
    def answer(self):
        page = page_asked(self.request)
        return ratings_key(page), ratings_document(page)
