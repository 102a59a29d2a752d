"""A table's phone as its entry terminal (issue 15): the sheet's QR code opens ``/t/CODE/``,
the phone says it is at that table, then enters rounds that a second player confirms.
The rules are scoring/services/table_entry.py's; the entry page itself is EnterRoundView's."""

from functools import cached_property

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views import View

from scoring.models import InfractionKind, InfractionReport, Round
from scoring.services.infractions import InfractionRejected
from scoring.services.rounds import RoundRejected
from scoring.services.table_entry import (
    CONFIRM_DIGITS,
    WrongCode,
    awaiting,
    blocked,
    confirm_code,
    confirm_round,
    count_wrong_code,
    device_of,
    entering_phone,
    handle_report,
    join,
    keep_device,
    last_note,
    not_second_player,
    opened,
    phone_at,
    reissue_code,
    report_infraction,
    send_back,
    table_for_code,
    why_refused,
)
from scoring.sheets import table_sheet
from scoring.views.entry import EnterRoundView, wants_json
from tournament.caching import live_context
from tournament.mixins import DirectorRequiredMixin, RefusalMixin, TableMixin, posted_key
from tournament.models import StageKind
from tournament.security import client_ip

# The session's note of a confirmation code just refused, shown at that round's code field:
# {"round": its pk, "text": why}.
CONFIRM_REFUSED = "confirm_refused"


def refused_page(request, status: int, reason: str, context: dict):
    """A code that opens nothing: the entry page's script (a round it kept and sends again)
    gets the reason in JSON, to show the round as refused and stop sending it; a person gets
    the page."""
    if wants_json(request):
        return JsonResponse({"saved": False, "refused": reason}, status=status)
    return render(request, "scoring/table_code_refused.html", context, status=status)


def too_many(request):
    reason = _("Too many wrong codes from this connection: show this round to a director.")
    return refused_page(request, 429, reason, {"too_many": True})


def no_table(request, code: str):
    """A code that opens nothing: a clear page or answer. A code that was never valid for
    this phone is a guess, counted against the address; a code this phone opened before (the
    table has a new one) or still a table's (its stage closed, table entry off) is not."""
    reason = why_refused(code, request.session)
    if reason is None:
        count_wrong_code(client_ip(request))
        reason = _("No open table has this code: show this round to a director.")
    return refused_page(request, 404, reason, {"code": code[:12]})


def open_table(request, code: str):
    """The table a code opens, or the page that refuses it: an address that tried too many
    wrong codes is refused every code, even a right one (no guessing by the thousand)."""
    if blocked(client_ip(request)):
        return None, too_many(request)
    table = table_for_code(code)
    if table is None:
        return None, no_table(request, code)
    if table.stage.seating_draft:  # the phones wait for the directors' Publish
        reason = _("Seating not published yet: try again once the directors publish it.")
        return None, refused_page(request, 403, reason, {"draft": True, "reason": reason})
    return table, None


def tied_playoff_replay(table):
    """The replay a playoff's tied round created (its lowest total shared), or None."""
    stage = table.stage
    if stage.kind != StageKind.PLAYOFF:
        return None
    places = table_sheet(table).places
    if list(places.values()).count(1) < 2:
        return None
    later = stage.event.stages.filter(kind=StageKind.PLAYOFF, number__gt=stage.number)
    return later.order_by("number").last()


def back_to_table(request, table):
    """Where a phone goes after acting on its table: its entry page while the code still opens
    it; once the stage is over (a playoff decided by the round just confirmed closes itself),
    the table's public page, which shows the final sheet and result, with a thank-you."""
    if table_for_code(table.code) is not None:
        return redirect("table_terminal", table.code)
    stage = table.stage
    replay = tied_playoff_replay(table)
    if replay is not None:
        message = _("Thank you. %(s)s tied: %(r)s plays it again, at a table of its own.") % {
            "s": stage.title,
            "r": replay.title,
        }
    else:
        message = _("Thank you. %(s)s is over: here is the table's final sheet and result.") % {
            "s": stage.title
        }
    messages.info(request, message)
    return redirect("table", stage.event.slug, stage.number, table.number)


class TableCodeMixin(RefusalMixin):
    """The table a code opens (or a refusal page before anything else runs)."""

    def dispatch(self, request, *args, **kwargs):
        table, refused = open_table(request, kwargs["code"])
        if refused is not None:
            return refused
        self.table = table
        return super().dispatch(request, *args, **kwargs)


class TableCodeView(TableCodeMixin, View):
    """What a scan opens: the table's players first ("is this your table?"); the person taps
    their own name (which player holds this phone), then enters rounds. ``?change`` asks again."""

    def get(self, request, code):
        if opened(request.session, self.table) and "change" not in request.GET:
            return redirect("table_terminal", self.table.code)
        return self.page()

    def post(self, request, code):
        try:
            join(request, self.table, request.POST.get("player", ""))
        except RoundRejected as why:
            return self.page(str(why))
        response = redirect("table_terminal", self.table.code)
        keep_device(request, response)
        return response

    def page(self, error: str = ""):
        players = [s.player for s in self.table.seats.select_related("player").order_by("position")]
        context = {"table": self.table, "stage": self.table.stage, "players": players}
        return render(self.request, "scoring/table_code.html", {**context, "error": error})


class TableTerminalView(EnterRoundView):
    """The table's entry on a player's phone: one column, the round to enter, the running
    totals, the clock, and the rounds waiting for a second player."""

    template_name = "scoring/table_terminal.html"
    # The parts swapped in by htmx when the event changes (static/js/live.js): the rounds
    # waiting or confirmed, and the totals; never the round form.
    live_regions = {
        "terminal-live": "scoring/_terminal_live.html",
        "terminal-totals": "scoring/_terminal_totals.html",
    }

    def dispatch(self, request, *args, **kwargs):
        table, refused = open_table(request, kwargs["code"])
        if refused is not None:
            return refused
        if not opened(request.session, table):
            if wants_json(request):  # a round kept on a phone that has not opened the table
                reason = _("Open this table from its code first, then put the round in the form.")
                return JsonResponse({"saved": False, "refused": reason}, status=403)
            return redirect("table_code", table.code)
        # The page's table, stage and event come from the code, not from the address.
        self.__dict__.update(table=table, stage=table.stage, event=table.stage.event)
        return super(LoginRequiredMixin, self).dispatch(request, *args, **kwargs)

    @property
    def entry_url(self) -> str:
        return reverse("table_terminal", args=[self.table.code])

    @cached_property
    def phone(self):
        return phone_at(self.request, self.table)

    def writer(self) -> dict:
        return {"user": None, "device": self.phone.device, "entered": self.phone.entered()}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pips = {r.number: r.pips for r in self.sheet.rounds}
        ctx["me"] = self.phone.player
        refused = self.request.session.get(CONFIRM_REFUSED)
        if refused:  # shown once, at the code's field of its round
            del self.request.session[CONFIRM_REFUSED]
        ctx["waiting"] = [
            self.waiting_round(r, pips[r.number], refused or {})
            for r in awaiting(self.stage)
            if r.table_id == self.table.pk and r.number in pips  # saved after the sheet loaded
        ]
        ctx["code_digits"] = CONFIRM_DIGITS
        ctx["sent_back"] = last_note(self.table)
        ctx["kinds"] = InfractionKind.choices
        ctx["last_round"] = self.sheet.rounds[-1] if self.sheet.rounds else None
        ctx.update(live_context(self.event))
        return ctx

    def waiting_round(self, round, pips: dict, refused: dict) -> dict:
        """A round waiting at this table, as this phone sees it: the phone that entered it shows
        its code; another player's phone has the field to type it in (and why it was refused)."""
        not_second = not_second_player(round, self.phone)
        return {
            "round": round,
            "pips": [(p.name, pips.get(p.pk)) for p in self.sheet.players],
            "not_second": not_second,
            "code": confirm_code(round) if not_second else "",
            "entering": entering_phone(round),
            "refused": refused.get("text", "") if refused.get("round") == round.pk else "",
        }

    def get(self, request, *args, **kwargs):
        htmx = getattr(request, "htmx", None)
        if htmx and htmx.target in self.live_regions:  # live.js: the event changed
            ctx = self.get_context_data(form=None)
            return render(request, self.live_regions[htmx.target], ctx)
        return super().get(request, *args, **kwargs)


class TerminalRoundMixin(TableCodeMixin):
    """A phone's answer to a round waiting at its table: the phone must have opened it."""

    http_method_names = ["post"]

    def post(self, request, code, number):
        if not opened(request.session, self.table):
            return redirect("table_code", self.table.code)
        round = get_object_or_404(Round, table=self.table, number=number)
        if request.POST.get("round") != str(round.pk):  # sent back and entered again since
            messages.error(request, _("This round changed since the page was drawn: check it."))
            return redirect("table_terminal", self.table.code)
        try:
            self.act(round, phone_at(request, self.table))
        except RoundRejected as refusal:
            self.refused(refusal)
        return back_to_table(request, self.table)


class TerminalConfirmView(TerminalRoundMixin, View):
    """A second player confirms a round with the code the entering phone shows: a code that is
    missing, malformed or wrong is said at its field (``CONFIRM_REFUSED``); a wrong one counts
    against the address as a wrong table code does."""

    def act(self, round, phone):
        code = self.request.POST.get("code", "")[:20]
        try:
            if confirm_round(round, phone=phone, code=code):
                messages.success(
                    self.request, _("Round %(e)s-%(e)s confirmed.") % {"e": round.engine}
                )
        except WrongCode as refusal:
            if refusal.guess:
                count_wrong_code(client_ip(self.request))
            self.request.session[CONFIRM_REFUSED] = {"round": round.pk, "text": str(refusal)}


class TerminalSendBackView(TerminalRoundMixin, View):
    def act(self, round, phone):
        note = self.request.POST.get("note", "")[:300]
        send_back(round, note, phone=phone, key=posted_key(self.request))
        messages.success(
            self.request,
            _("Round %(e)s-%(e)s sent back to be entered again.") % {"e": round.engine},
        )


class DirectorConfirmView(DirectorRequiredMixin, TableMixin, View):
    """A director confirms a round entered from a phone (the table's page lists them)."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        round = get_object_or_404(Round, table=self.table, number=kwargs["round"])
        try:
            confirm_round(round, user=request.user)
        except RoundRejected as refusal:
            self.refused(refusal)
        return redirect("table", self.event.slug, self.stage.number, self.table.number)


class ReissueCodeView(DirectorRequiredMixin, TableMixin, View):
    """A director gives a table a new code (a code seen by the wrong people): phones that
    opened the old one must scan the new sheet."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        table = reissue_code(self.table, request.user)
        messages.success(
            request, _("Table %(n)s's new code: %(c)s.") % {"n": table.number, "c": table.code}
        )
        return redirect("table", self.event.slug, self.stage.number, self.table.number)


class TerminalReportView(TableCodeMixin, View):
    """A phone reports an infraction at its table; a director logs or dismisses it."""

    http_method_names = ["post"]

    def post(self, request, code):
        if not opened(request.session, self.table):
            return redirect("table_code", self.table.code)
        post = request.POST
        try:
            report_infraction(
                self.table,
                post.get("player", ""),
                post.get("kind", ""),
                post.get("note", ""),
                device_of(request.session),
                posted_key(request),
            )
        except RoundRejected as refusal:
            self.refused(refusal)
        else:
            messages.success(request, _("Reported: a director will decide."))
        return redirect("table_terminal", self.table.code)


class DirectorReportView(DirectorRequiredMixin, TableMixin, View):
    """A director logs (the event's penalty applies) or dismisses a phone's report."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        report = get_object_or_404(InfractionReport, pk=kwargs["pk"], table=self.table)
        try:
            handle_report(report, request.user, log=request.POST.get("action") == "log")
        except InfractionRejected as refusal:
            self.refused(refusal)
        report.refresh_from_db(fields=["infraction"])
        if report.infraction_id:  # the table page's alert says the penalty, as a direct log's
            return redirect(f"{self.table.get_absolute_url()}?logged={report.infraction_id}")
        return redirect("table", self.event.slug, self.stage.number, self.table.number)
