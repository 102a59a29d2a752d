"""The stage clock's pages (PRODUCT.md §5): the big screen for the room and clock.json, both
public, and the directors' buttons (POST only)."""

import re

from django.conf import settings
from django.contrib import messages
from django.core.cache import cache
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views import View
from django.views.decorators.cache import never_cache
from django.views.generic import TemplateView

from scoring.printing import qr_data_uri
from scoring.sheets import finished_tables
from scoring.views.hall import phone_url
from tournament.caching import version_key
from tournament.clock import clock_time, read_clock
from tournament.game.clock import ClockError
from tournament.mixins import DirectorRequiredMixin, StageMixin, posted_key
from tournament.models import Table
from tournament.services.clock import (
    add_minutes,
    call_time,
    change_table_minutes,
    pause_clock,
    resume_clock,
    start_clock,
    undo_call_time,
)


def room_clock(stage, table=None) -> tuple:
    """The clock reading and, for the room, which tables have played all their engines: counted
    once per change of the event (every screen asks every few seconds; the reading is not
    kept, it moves with time). A one-round playoff has none. With ``table``, that table's own
    clock (the minutes a director gave it), as its phone shows it."""
    if not stage.has_clock:
        raise Http404("A playoff has no clock.")
    if table is not None:
        reading = read_clock(stage, table=table)
        return reading, reading.as_json()
    finished, table_count = cache.get_or_set(
        f"finished-tables:{version_key(stage.event)}:{stage.pk}",
        lambda: finished_tables(stage),
        settings.FRAGMENT_CACHE_SECONDS,
    )
    reading = read_clock(stage)
    payload = {**reading.as_json(), "finished_tables": finished, "table_count": table_count}
    return reading, payload


@method_decorator(never_cache, name="dispatch")
class BigClockView(StageMixin, TemplateView):
    """Remaining time in digits readable across the hall; counts down in the browser."""

    template_name = "tournament/big_clock.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        reading, payload = room_clock(self.stage)
        join_url = phone_url(self.request, reverse("event", args=[self.event.slug]))
        # The finished tables' numbers, joined here: a closed stage of 1,000 tables lists them
        # all, and the template's loop costs more than the rest of the page (numbers: no
        # escaping to do).
        finished = "".join(f"<li>{int(n)}</li>" for n in payload["finished_tables"])
        ctx.update(
            reading=reading,
            room=payload,
            finished_items=mark_safe(finished),  # noqa: S308 (whole numbers only)
            config={**reading.config(), "clock": payload},
            join_url=join_url,
            join_qr=qr_data_uri(join_url),
            **reading.live,  # it asks the event's version like a live page (static/js/live.js)
        )
        return ctx


@method_decorator(never_cache, name="dispatch")
class ClockJsonView(StageMixin, View):
    """What every screen re-syncs from: remaining seconds, state, server time, tables done."""

    def get(self, request, *args, **kwargs):
        number = request.GET.get("table", "")
        table = None
        if number:  # a table's phone: its own clock
            if not re.fullmatch(r"[0-9]{1,5}", number):
                raise Http404("No such table.")
            table = get_object_or_404(Table, stage=self.stage, number=int(number))
            table.stage = self.stage
        return JsonResponse(room_clock(self.stage, table)[1])


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
        action = request.POST.get("action", "")
        if action in ("undo_call", "add_minutes"):
            self.take_back(request, action)
            return redirect("standings", self.event.slug, self.stage.number)
        button = self.buttons.get(action)
        if button is None:
            messages.error(request, _("Unknown clock button."))
        else:
            press, done = button
            now = timezone.now()
            try:
                press(self.stage, request.user, now, posted_key(request))
            except ClockError as refusal:
                self.refused(refusal)
            else:
                messages.success(request, done % {"at": clock_time(now)})
        return redirect("standings", self.event.slug, self.stage.number)

    def take_back(self, request, action: str) -> None:
        """Undo time called by mistake, or add minutes: directors only, with a reason."""
        reason = request.POST.get("reason", "")
        key = posted_key(request)
        try:
            if action == "undo_call":
                undo_call_time(self.stage, request.user, reason, key=key)
                done = _("Time called is taken back: %(left)s left, the clock runs.")
            else:
                minutes = request.POST.get("minutes", "")
                if not re.fullmatch(r"[0-9]{1,3}", minutes):
                    raise ClockError(_("Give the minutes to add as a whole number."))
                add_minutes(self.stage, request.user, int(minutes), reason, key=key)
                done = ngettext(
                    "%(m)s minute added: %(left)s left.",
                    "%(m)s minutes added: %(left)s left.",
                    int(minutes),
                ).replace("%(m)s", minutes)
        except ClockError as refusal:
            self.refused(refusal)
            return
        left = read_clock(self.stage).digits
        messages.success(request, done % {"left": left})


class TableTimeView(DirectorRequiredMixin, StageMixin, View):
    """Minutes for one table alone (a late start, a spilled set), added or taken back with a
    reason: from the stage's clock (the table's number typed) or the table's own page."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        number = request.POST.get("table", "").strip()
        minutes = request.POST.get("minutes", "").strip()
        remove = request.POST.get("action") == "remove"
        back = redirect("standings", self.event.slug, self.stage.number)
        if request.POST.get("back") == "table" and re.fullmatch(r"[0-9]{1,5}", number):
            back = redirect("enter_round", self.event.slug, self.stage.number, int(number))
        try:
            if not re.fullmatch(r"[0-9]{1,5}", number):
                raise ClockError(_("Give the table's number."))
            if not re.fullmatch(r"[0-9]{1,3}", minutes):
                raise ClockError(_("Give the minutes as a whole number."))
            table = change_table_minutes(
                self.stage,
                int(number),
                request.user,
                int(minutes),
                request.POST.get("reason", ""),
                remove=remove,
                key=posted_key(request),
            )
        except ClockError as refusal:
            self.refused(refusal)
            return back
        table.stage = self.stage
        values = {
            "t": table.number,
            "m": int(minutes),
            "left": read_clock(self.stage, table=table).digits,
        }
        if remove:
            done = ngettext(
                "Table %(t)s: %(m)s minute taken back, %(left)s left.",
                "Table %(t)s: %(m)s minutes taken back, %(left)s left.",
                int(minutes),
            )
        else:
            done = ngettext(
                "Table %(t)s: %(m)s minute added, %(left)s left.",
                "Table %(t)s: %(m)s minutes added, %(left)s left.",
                int(minutes),
            )
        messages.success(request, done % values)
        return back
