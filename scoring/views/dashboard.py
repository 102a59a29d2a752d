"""The director's dashboard of a stage: every table as a tile (issue 16 item 2)."""

from datetime import timedelta

from django.conf import settings
from django.db.models import Count
from django.shortcuts import render
from django.utils import timezone
from django.views.generic import TemplateView

from scoring.dashboard import clock_never_started, tiles
from scoring.models import InfractionReport, TableDevice
from scoring.sheets import stage_sheets
from tournament.caching import live_context
from tournament.clock import stage_clock
from tournament.mixins import DirectorRequiredMixin, StageMixin

# The part of the page swapped in when the event changes (static/js/live.js): the tiles.
LIVE_REGION = "live-dashboard"


class DashboardView(DirectorRequiredMixin, StageMixin, TemplateView):
    template_name = "scoring/dashboard.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        quiet = timedelta(minutes=settings.DASHBOARD_QUIET_MINUTES)
        devices = TableDevice.objects.filter(table__stage=self.stage).values_list("table")
        reports = InfractionReport.objects.open().filter(table__stage=self.stage)
        reports = reports.values_list("table").order_by()
        sheets = stage_sheets(self.stage)
        ctx["clock_warning"] = clock_never_started(self.stage, sheets)
        ctx["tiles"] = tiles(
            sheets,
            stage_clock(self.stage),
            timezone.now(),
            quiet,
            dict(devices.annotate(n=Count("pk")).values_list("table", "n")),
            dict(reports.annotate(n=Count("pk")).values_list("table", "n")),
        )
        ctx["quiet_minutes"] = settings.DASHBOARD_QUIET_MINUTES
        ctx["quiet_count"] = sum(t.quiet for t in ctx["tiles"])
        ctx["report_count"] = sum(t.reports for t in ctx["tiles"])
        ctx.update(live_context(self.event))
        return ctx

    def get(self, request, *args, **kwargs):
        htmx = getattr(request, "htmx", None)
        if htmx and htmx.target == LIVE_REGION:  # live.js: the event changed
            return render(request, "scoring/_dashboard_tiles.html", self.get_context_data())
        return super().get(request, *args, **kwargs)
