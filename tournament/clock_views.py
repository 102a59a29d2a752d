"""The stage clock's pages (PRODUCT.md §5): the big screen for the room and clock.json, both
public, and the directors' buttons (POST only)."""

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View
from django.views.decorators.cache import never_cache
from django.views.generic import TemplateView

from scoring.sheets import stage_sheets
from tournament.clocks import (
    ClockError,
    call_time,
    clock_time,
    pause_clock,
    read_clock,
    resume_clock,
    start_clock,
)
from tournament.mixins import DirectorRequiredMixin, StageMixin


def room_clock(stage) -> tuple:
    """The clock reading and, for the room, which tables have played all their engines."""
    sheets = stage_sheets(stage)
    reading = read_clock(stage)
    payload = {
        **reading.as_json(),
        "finished_tables": [s.table.number for s in sheets if s.players and s.all_engines_played],
        "table_count": len(sheets),
    }
    return reading, payload


@method_decorator(never_cache, name="dispatch")
class BigClockView(StageMixin, TemplateView):
    """Remaining time in digits readable across the hall; counts down in the browser."""

    template_name = "tournament/big_clock.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        reading, payload = room_clock(self.stage)
        ctx.update(
            reading=reading,
            room=payload,
            config={**reading.config(), "clock": payload},
        )
        return ctx


@method_decorator(never_cache, name="dispatch")
class ClockJsonView(StageMixin, View):
    """What every screen re-syncs from: remaining seconds, state, server time, tables done."""

    def get(self, request, *args, **kwargs):
        return JsonResponse(room_clock(self.stage)[1])


class ClockControlView(DirectorRequiredMixin, StageMixin, View):
    """Start, pause, resume or call time: the button pressed is the POSTed ``action``."""

    http_method_names = ["post"]
    buttons = {
        "start": (start_clock, gettext_lazy("Clock started at %(at)s.")),
        "pause": (pause_clock, gettext_lazy("Clock paused at %(at)s.")),
        "resume": (resume_clock, gettext_lazy("Clock resumed at %(at)s.")),
        "call_time": (call_time, gettext_lazy("Time called at %(at)s.")),
    }

    def post(self, request, *args, **kwargs):
        button = self.buttons.get(request.POST.get("action", ""))
        if button is None:
            messages.error(request, _("Unknown clock button."))
        else:
            press, done = button
            now = timezone.now()
            try:
                press(self.stage, request.user, now)
            except ClockError as error:
                messages.error(request, str(error))
            else:
                messages.success(request, done % {"at": clock_time(now)})
        return redirect("standings", self.event.slug, self.stage.number)
