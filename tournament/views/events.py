"""Event pages: finding one's table (public); creating,
editing, archiving and deleting an event, its scorekeepers and its history (directors)."""

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.db.models import Prefetch
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views import View
from django.views.generic import CreateView, FormView, ListView, TemplateView, UpdateView

from tournament.forms import (
    DeleteEventForm,
    EventForm,
    ScorekeeperForm,
)
from tournament.mixins import DirectorRequiredMixin, EventMixin
from tournament.models import (
    Seat,
    Table,
)
from tournament.services.events import (
    assign_scorekeeper,
    create_event,
    delete_event,
    hold_results,
    set_archived,
    update_event,
)

# -- public -----------------------------------------------------------------------------------


class FindTableView(EventMixin, TemplateView):
    template_name = "tournament/find_table.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        q = self.request.GET.get("q", "").strip()[:100]
        ctx["q"] = q
        if q:
            players = self.event.players.matching(q).alphabetical()
            # a playoff's name says the table or the stage it settles: joined, not asked per seat
            seats = Seat.objects.select_related(
                "table", "stage__playoff_table__stage", "stage__wildcards_of"
            ).order_by("stage__number")
            if not self.is_director:  # a draft seating is the directors' alone
                seats = seats.filter(stage__seating_draft=False)
            ctx["found"] = players.prefetch_related(Prefetch("seats", seats))[:50]
        return ctx


# -- directors --------------------------------------------------------------------------------


class EventCreateView(LoginRequiredMixin, PermissionRequiredMixin, CreateView):
    permission_required = "tournament.add_event"
    form_class = EventForm
    template_name = "tournament/event_form.html"

    def form_valid(self, form):
        self.object = create_event(
            form.save(commit=False), self.request.user, key=form.cleaned_data["once"]
        )
        # the stages its format starts with: a cumulative night's games, with or without a Final
        names = [s.title for s in self.object.stages.order_by("number")]
        messages.success(
            self.request,
            ngettext(
                "Event created with the stage %(stages)s.",
                "Event created with the stages %(stages)s.",
                len(names),
            )
            % {"stages": get_text_list(names, _("and"))},
        )
        return redirect("players", self.object.slug)


class EventUpdateView(DirectorRequiredMixin, EventMixin, UpdateView):
    form_class = EventForm
    template_name = "tournament/event_form.html"

    def get_object(self):
        return self.event

    def form_valid(self, form):
        update_event(form.save(commit=False), self.request.user)
        messages.success(self.request, _("Event saved."))
        return redirect(self.event.get_absolute_url())


class EventArchiveView(DirectorRequiredMixin, EventMixin, TemplateView):
    """Archive the event (off the home page's list, still public by its address) or list it
    again: setting a state, so a repeat changes nothing."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        archived = request.POST.get("archived") == "1"
        set_archived(self.event, archived, request.user)
        messages.success(
            request,
            _("Archived: the home page no longer lists it; its pages stay public.")
            if archived
            else _("Listed on the home page again."),
        )
        return redirect(self.event.get_absolute_url())


class ResultsReleaseView(DirectorRequiredMixin, EventMixin, View):
    """Release the held standings and results to the public, or hold them again (a POST from
    the results, standings or event page); back to the page it came from."""

    def post(self, request, *args, **kwargs):
        held = request.POST.get("action") == "hold"
        if hold_results(self.event, held, request.user):
            messages.success(
                request,
                _("Standings and results are held back: the public pages say not published yet.")
                if held
                else _("Standings and results are released: everyone sees them now."),
            )
        back = request.POST.get("next", "")
        if not back.startswith("/") or not url_has_allowed_host_and_scheme(back, None):
            back = reverse("results", args=[self.event.slug])
        return redirect(back)


class EventDeleteView(DirectorRequiredMixin, EventMixin, FormView):
    """Delete the event, after offering its event file (the only copy once it is gone)."""

    template_name = "tournament/event_delete.html"
    form_class = DeleteEventForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "event": self.event}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["counts"] = {
            "players": self.event.players.count(),
            "tables": Table.objects.filter(stage__event=self.event).count(),
        }
        return ctx

    def form_valid(self, form):
        name = delete_event(self.event, self.request.user, form.cleaned_data["once"])
        messages.success(self.request, _("%(name)s is deleted.") % {"name": name})
        return redirect("home")


class ScorekeepersView(DirectorRequiredMixin, EventMixin, FormView):
    """Who keeps the score of which table: a director gives tables to scorekeepers."""

    template_name = "tournament/scorekeepers.html"
    form_class = ScorekeeperForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "event": self.event}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        keepers: dict = {}
        tables = Table.objects.filter(stage__event=self.event).select_related("stage")
        for table in tables.prefetch_related("scorekeepers").order_by("stage__number", "number"):
            for user in table.scorekeepers.all():
                keepers.setdefault(user.get_username(), []).append(table)
        ctx["keepers"] = sorted(keepers.items())
        return ctx

    def form_valid(self, form):
        user, password = assign_scorekeeper(
            self.event,
            form.cleaned_data["username"],
            form.cleaned_data["tables"],
            self.request.user,
        )
        if password:
            messages.success(
                self.request,
                _(
                    "Login created for %(u)s, password %(p)s: give it to them now, it is not "
                    "shown again."
                )
                % {"u": user.get_username(), "p": password},
            )
        messages.success(
            self.request,
            ngettext(
                "%(u)s keeps the score of %(n)s table.",
                "%(u)s keeps the score of %(n)s tables.",
                len(form.cleaned_data["tables"]),
            )
            % {"u": user.get_username(), "n": len(form.cleaned_data["tables"])},
        )
        return redirect("scorekeepers", self.event.slug)


class HistoryView(DirectorRequiredMixin, EventMixin, ListView):
    """The event's history for its directors: who did what, when and why, newest first."""

    template_name = "tournament/history.html"
    context_object_name = "actions"
    paginate_by = 100

    def get_queryset(self):
        return self.event.actions.select_related("by", "stage")
