"""The director's dashboard of a stage: every table as a tile (issue 16 item 2)."""

from datetime import timedelta

from django.conf import settings
from django.db.models import Count
from django.utils import timezone
from django.views.generic import TemplateView

from scoring.dashboard import clock_never_started, tiles
from scoring.models import TableDevice
from scoring.sheets import stage_sheets
from tournament.clock import stage_clock
from tournament.mixins import DirectorRequiredMixin, StageMixin


class DashboardView(DirectorRequiredMixin, StageMixin, TemplateView):
    template_name = "scoring/dashboard.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        quiet = timedelta(minutes=settings.DASHBOARD_QUIET_MINUTES)
        devices = TableDevice.objects.filter(table__stage=self.stage).values_list("table")
        sheets = stage_sheets(self.stage)
        ctx["clock_warning"] = clock_never_started(self.stage, sheets)
        ctx["tiles"] = tiles(
            sheets,
            stage_clock(self.stage),
            timezone.now(),
            quiet,
            dict(devices.annotate(n=Count("pk")).values_list("table", "n")),
        )
        ctx["quiet_minutes"] = settings.DASHBOARD_QUIET_MINUTES
        ctx["quiet_count"] = sum(t.quiet for t in ctx["tiles"])
        ctx["live_refresh"] = settings.LIVE_REFRESH_SECONDS
        return ctx
