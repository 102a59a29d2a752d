"""Score sheets, standings and round entry."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.utils.functional import cached_property
from django.utils.translation import gettext as _
from django.views.generic import FormView, TemplateView
from django_tables2 import RequestConfig

from scoring.advancement import correction_effects
from scoring.forms import RoundForm
from scoring.infraction_views import sheet_infractions
from scoring.models import Round
from scoring.printing import SHEETS_PER_PDF, table_blocks
from scoring.services import RoundRejected, correct_round, record_round
from scoring.sheets import stage_sheets, stage_standings, table_sheet
from scoring.tables import StandingsTable
from tournament.clocks import entry_after_time
from tournament.mixins import DirectorRequiredMixin, StageMixin, TableMixin


class StandingsView(StageMixin, TemplateView):
    template_name = "scoring/standings.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        sheets = stage_sheets(self.stage)
        table = StandingsTable(stage_standings(self.stage, sheets), order_by="place")
        RequestConfig(self.request, paginate=False).configure(table)
        ctx.update(table=table, sheets=sheets, live_refresh=settings.LIVE_REFRESH_SECONDS)
        if len(sheets) > SHEETS_PER_PDF:  # one PDF of every sheet would take minutes: blocks
            ctx["sheet_blocks"] = table_blocks(len(sheets))
        return ctx


class TableSheetView(TableMixin, TemplateView):
    template_name = "scoring/table_sheet.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["sheet"] = table_sheet(self.table)
        ctx["live_refresh"] = settings.LIVE_REFRESH_SECONDS
        ctx["can_score"] = self.table.can_score(self.request.user)
        ctx.update(
            sheet_infractions(self.request, ctx["sheet"], ctx["can_score"], self.is_director)
        )
        return ctx


class EnterRoundView(LoginRequiredMixin, TableMixin, FormView):
    """The table's grid with the next round to enter, whole, in one step."""

    template_name = "scoring/enter_round.html"

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and not self.table.can_score(request.user):
            raise PermissionDenied(_("You do not keep the score of this table."))
        return super().dispatch(request, *args, **kwargs)

    @property
    def sheet(self):
        if not hasattr(self, "_sheet"):
            self._sheet = table_sheet(self.table)
        return self._sheet

    @property
    def late_entry(self) -> bool:
        """Time was called and the rule allows no more rounds: only a director may add one
        that was finished before time but entered late."""
        return self.after_time is not None and not self.after_time.may_enter

    @cached_property
    def after_time(self):
        """What the table may still enter once time is called (None while it is not)."""
        return entry_after_time(self.sheet)

    def closed_reason(self) -> str | None:
        if self.stage.closed:
            return _("This stage is closed.")
        if self.sheet.next_engine is None:
            return _("Every round of this table has been entered: the game is over.")
        if not self.sheet.players:
            return _("Nobody is seated at this table.")
        if self.late_entry and not self.is_director:
            return self.after_time.message
        return None

    def get_form(self, form_class=None):
        if self.closed_reason():
            return None
        return RoundForm(
            players=self.sheet.players,
            rules=self.sheet.rules,
            engine=self.sheet.next_engine,
            choose_engine=self.sheet.is_playoff,
            **self.get_form_kwargs(),
        )

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx.update(
            sheet=self.sheet,
            closed_reason=self.closed_reason(),
            can_correct=self.is_director,
            after_time=self.after_time,
            late_entry=self.late_entry and self.is_director,
        )
        return ctx

    def post(self, request, *args, **kwargs):
        form = self.get_form()
        if form is None:
            messages.error(request, self.closed_reason())
            return redirect("enter_round", self.event.slug, self.stage.number, self.table.number)
        if not form.is_valid():
            return self.form_invalid(form)
        try:
            saved = record_round(
                self.table,
                form.cleaned_data["pips"],
                request.user,
                engine=form.engine,
                late=self.late_entry and self.is_director,
            )
        except RoundRejected as rejected:
            for message in rejected.errors.whole:
                form.add_error(None, message)
            return self.form_invalid(form)
        messages.success(request, _("Round %(e)s-%(e)s saved.") % {"e": saved.engine})
        return redirect("enter_round", self.event.slug, self.stage.number, self.table.number)


class CorrectRoundView(DirectorRequiredMixin, TableMixin, FormView):
    template_name = "scoring/correct_round.html"

    def get_round(self):
        return get_object_or_404(Round, table=self.table, number=self.kwargs["round"])

    def get_form(self, form_class=None):
        saved = self.get_round()
        sheet = table_sheet(self.table)
        return RoundForm(
            players=sheet.players,
            rules=sheet.rules,
            engine=saved.engine,
            correction=True,
            initial_pips={s.player_id: s.pips for s in saved.scores.all()},
            **self.get_form_kwargs(),
        )

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["round"] = self.get_round()
        return ctx

    def form_valid(self, form):
        pips = form.cleaned_data["pips"]
        previewed = ",".join(f"{pk}:{v}" for pk, v in sorted(pips.items()))
        if self.stage.closed and self.request.POST.get("previewed") != previewed:
            # A closed stage's results are published: show what these very pips change first.
            effects = correction_effects(self.get_round(), pips)
            return self.render_to_response(
                self.get_context_data(
                    form=form, effects=effects, confirming=True, previewed=previewed
                )
            )
        try:
            changes = correct_round(
                self.get_round(),
                form.cleaned_data["pips"],
                self.request.user,
                form.cleaned_data["reason"],
            )
        except RoundRejected as rejected:
            for message in rejected.errors.whole:
                form.add_error(None, message)
            return self.form_invalid(form)
        messages.success(
            self.request, _("Round corrected: %(n)s score(s) changed.") % {"n": len(changes)}
        )
        return redirect("enter_round", self.event.slug, self.stage.number, self.table.number)
