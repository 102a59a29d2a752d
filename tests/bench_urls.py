"""The site's addresses and the benchmark's floor view (tests/bench_site.py).

The floor renders a stage's standings rows with a plain Django template and asks no query: the
rows are computed once per worker, on its first request. Requests per second of the standings
are measured against it."""

from functools import cache

from django.http import HttpResponse
from django.template import engines
from django.urls import include, path

from tests.bench import FLOOR_TEMPLATE, floor_rows
from tournament.models import Stage


@cache
def _floor(slug: str, number: int):
    stage = Stage.objects.select_related("event").get(event__slug=slug, number=number)
    return engines["django"].from_string(FLOOR_TEMPLATE), floor_rows(stage.event, stage)


def floor(request, slug: str, number: int):
    template, rows = _floor(slug, number)
    return HttpResponse(template.render({"rows": rows}))


urlpatterns = [
    path("bench-floor/<slug:slug>/<int:number>/", floor),
    path("", include("tournament.urls")),
]
