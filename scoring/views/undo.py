"""Director undos (issue 22): reopen a closed stage, remove a playoff created by mistake,
un-check-in a player. Each page says what the undo does, asks for a reason and confirms; the
writes are scoring/services/undo.py's and tournament/services/players.py's."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.utils.functional import cached_property
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.generic import FormView

from scoring.forms.undo import ReasonForm, ReopenStageForm
from scoring.models import Round
from scoring.services.undo import (
    UndoRefused,
    playoff_still_owed,
    remove_playoff,
    reopen_plan,
    reopen_stage,
)
from tournament.mixins import DirectorRequiredMixin, EventMixin, StageMixin
from tournament.models import Player, StageKind, Table
from tournament.services.players import UncheckRefused, seated_in, uncheck_in


class ReopenStageView(DirectorRequiredMixin, StageMixin, FormView):
    """Reopen a closed stage: the page lists the seating and playoffs that go, or, once a
    later stage has rounds, sends the director to the closed stage's corrections."""

    template_name = "scoring/reopen_stage.html"
    form_class = ReopenStageForm

    @cached_property
    def plan(self):
        return reopen_plan(self.stage)

    def get_form_kwargs(self):
        kwargs = super().get_form_kwargs()
        kwargs["label"] = gettext_lazy("Why this stage is reopened")
        kwargs.setdefault("initial", {})["shown"] = self.plan.fingerprint
        return kwargs

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["plan"] = self.plan
        if self.plan.blocked_by or self.stage.kind == StageKind.PLAYOFF:
            ctx["tables"] = Table.objects.for_stage(self.stage)
        return ctx

    def form_valid(self, form):
        try:
            done = reopen_stage(
                self.stage,
                self.request.user,
                form.cleaned_data["reason"],
                form.cleaned_data["once"],
                shown=form.cleaned_data["shown"],
            )
        except UndoRefused as refusal:
            self.refused(refusal, form)
            return self.form_invalid(form)
        if done is not None:
            message = _("%(s)s is open again: it takes rounds.") % {"s": self.stage.title}
            if done.unseated:
                message += " " + _("Seating removed: %(l)s.") % {"l": ", ".join(done.unseated)}
            if done.playoffs_removed:
                message += " " + _("Playoffs removed: %(l)s.") % {
                    "l": ", ".join(done.playoffs_removed)
                }
            messages.success(self.request, message)
        else:
            messages.info(self.request, _("%(s)s is open.") % {"s": self.stage.title})
        return redirect("advance", self.event.slug, self.stage.number)


class RemovePlayoffView(DirectorRequiredMixin, StageMixin, FormView):
    """Remove a playoff created by mistake, while it has no round."""

    template_name = "scoring/remove_playoff.html"
    form_class = ReasonForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "label": gettext_lazy("Why this playoff is removed")}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        is_playoff = self.stage.kind == StageKind.PLAYOFF
        ctx["is_playoff"] = is_playoff
        if is_playoff:
            ctx["played"] = Round.objects.filter(table__stage=self.stage).exists()
            ctx["owed"] = not ctx["played"] and playoff_still_owed(self.stage)
            ctx["players"] = [s.player for s in self.stage.seats.select_related("player")]
        return ctx

    def form_valid(self, form):
        name = self.stage.title
        try:
            removed = remove_playoff(
                self.stage,
                self.request.user,
                form.cleaned_data["reason"],
                form.cleaned_data["once"],
            )
        except UndoRefused as refusal:
            self.refused(refusal, form)
            return self.form_invalid(form)
        if removed:
            messages.success(self.request, _("%(s)s removed.") % {"s": name})
        else:
            messages.info(self.request, _("%(s)s was removed already.") % {"s": name})
        return redirect("bracket", self.event.slug)


class UncheckInView(DirectorRequiredMixin, EventMixin, FormView):
    """Take back a check-in made by mistake, before the player is seated."""

    template_name = "scoring/uncheck_in.html"
    form_class = ReasonForm

    @cached_property
    def player(self) -> Player:
        return get_object_or_404(Player, event=self.event, pk=self.kwargs["pk"])

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "label": gettext_lazy("Why the check-in is undone")}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx.update(player=self.player, seated_in=seated_in(self.player))
        return ctx

    def form_valid(self, form):
        try:
            done = uncheck_in(
                self.player,
                self.request.user,
                form.cleaned_data["reason"],
                form.cleaned_data["once"],
            )
        except UncheckRefused as refusal:
            self.refused(refusal, form)
            return self.form_invalid(form)
        if done:
            messages.success(self.request, _("%(p)s is no longer checked in.") % {"p": self.player})
        else:
            messages.info(self.request, _("%(p)s is not checked in.") % {"p": self.player})
        return redirect("players", self.event.slug)
