"""Event, player and seating pages: public pages first, then the directors'."""

import re

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.db.models import Count, Prefetch
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.generic import CreateView, FormView, ListView, TemplateView, UpdateView
from django.views.generic.edit import FormMixin

from scoring.printing import SHEETS_PER_PDF, table_blocks
from tournament.forms import (
    CsvImportForm,
    EventForm,
    MovePlayerForm,
    PlayerForm,
    ScorekeeperForm,
)
from tournament.mixins import DirectorRequiredMixin, EventMixin, StageMixin
from tournament.models import Event, Seat, StageKind, Table
from tournament.seating import SeatingError
from tournament.services import (
    assign_scorekeeper,
    create_event,
    import_players_csv,
    move_player,
    seat_stage,
)

# -- public -----------------------------------------------------------------------------------


class HomeView(ListView):
    template_name = "tournament/home.html"
    context_object_name = "events"

    def get_queryset(self):
        return Event.objects.annotate(player_count=Count("players"))


class EventHomeView(EventMixin, TemplateView):
    template_name = "tournament/event_home.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["stage_rows"] = self.event.stages.annotate(
            table_count=Count("tables", distinct=True), seat_count=Count("seats", distinct=True)
        )
        ctx["player_count"] = self.event.players.count()
        ctx["checked_in_count"] = self.event.players.filter(checked_in=True).count()
        return ctx


class FindTableView(EventMixin, TemplateView):
    template_name = "tournament/find_table.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        q = self.request.GET.get("q", "").strip()[:100]
        ctx["q"] = q
        if q:
            ctx["found"] = self.event.players.filter(name__icontains=q).prefetch_related(
                Prefetch(
                    "seats", Seat.objects.select_related("table", "stage").order_by("stage__number")
                )
            )[:50]
        return ctx


class SeatingView(StageMixin, TemplateView):
    """The seating list: A to Z with table numbers, then table by table."""

    template_name = "tournament/seating.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        seats = list(Seat.objects.filter(stage=self.stage).select_related("player", "table"))
        ctx["alphabetical"] = sorted(seats, key=lambda s: s.player.name.casefold())
        tables: dict[int, list[Seat]] = {}
        for seat in sorted(seats, key=lambda s: (s.table.number, s.position)):
            tables.setdefault(seat.table.number, []).append(seat)
        ctx["tables"] = sorted(tables.items())
        if len(tables) > SHEETS_PER_PDF:
            ctx["sheet_blocks"] = table_blocks(len(tables))
        if self.is_director:
            ctx["move_form"] = MovePlayerForm(stage=self.stage)
            ctx["checked_in_count"] = self.event.players.filter(checked_in=True).count()
        return ctx


# -- directors --------------------------------------------------------------------------------


class EventCreateView(LoginRequiredMixin, PermissionRequiredMixin, CreateView):
    permission_required = "tournament.add_event"
    form_class = EventForm
    template_name = "tournament/event_form.html"

    def form_valid(self, form):
        self.object = create_event(form.save(commit=False), self.request.user)
        messages.success(self.request, _("Event created with stages Game 1 and Final."))
        return redirect("players", self.object.slug)


class EventUpdateView(DirectorRequiredMixin, EventMixin, UpdateView):
    form_class = EventForm
    template_name = "tournament/event_form.html"

    def get_object(self):
        return self.event

    def form_valid(self, form):
        messages.success(self.request, _("Event saved."))
        return super().form_valid(form)


class PlayersView(DirectorRequiredMixin, EventMixin, FormMixin, TemplateView):
    """Register players by hand, check them in and out."""

    template_name = "tournament/players.html"
    form_class = PlayerForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "event": self.event}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["players"] = self.event.players.all()
        ctx["csv_form"] = CsvImportForm()
        return ctx

    def post(self, request, *args, **kwargs):
        form = self.get_form()
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(form=form))
        form.instance.event = self.event
        form.save()
        messages.success(request, _("%(name)s added.") % {"name": form.instance.name})
        return redirect("players", self.event.slug)


class CheckInView(DirectorRequiredMixin, EventMixin, TemplateView):
    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        checked_in = request.POST.get("checked_in") == "1"
        ids = request.POST.getlist("player") or [kwargs.get("pk")]
        players = self.event.players.filter(
            pk__in=[i for i in ids if re.fullmatch(r"[0-9]{1,12}", str(i))]
        )
        count = players.update(checked_in=checked_in)
        messages.success(
            request,
            (_("%(n)s checked in.") if checked_in else _("%(n)s checked out.")) % {"n": count},
        )
        return redirect(reverse("players", args=[self.event.slug]) + "#players")


class CsvImportView(DirectorRequiredMixin, EventMixin, FormView):
    form_class = CsvImportForm
    template_name = "tournament/players_import.html"

    def form_valid(self, form):
        result = import_players_csv(self.event, form.cleaned_data["file"])
        if result.errors:
            for error in result.errors:
                form.add_error("file", error)
            form.add_error(None, _("Nothing was imported: correct the file and upload it again."))
            return self.form_invalid(form)
        messages.success(self.request, _("%(n)s players imported.") % {"n": result.created})
        return redirect("players", self.event.slug)


class SeatStageView(DirectorRequiredMixin, StageMixin, TemplateView):
    """Draw the seating of a stage from the checked-in players, or move one player."""

    http_method_names = ["post"]

    def players_to_draw(self):
        """Game 1 draws the checked-in players; a later stage redraws only its own players."""
        if self.stage.kind == StageKind.QUALIFYING:
            return self.event.players.filter(checked_in=True)
        seated = self.event.players.filter(seats__stage=self.stage)
        if not seated.exists():
            raise SeatingError(
                _("%(s)s is seated from the advancers: close the previous stage first.")
                % {"s": self.stage.name}
            )
        return seated

    def post(self, request, *args, **kwargs):
        try:
            if "move" in request.POST:
                form = MovePlayerForm(request.POST, stage=self.stage)
                if not form.is_valid():
                    raise SeatingError(_("Choose a seated player and a table."))
                move_player(self.stage, form.cleaned_data["player"], form.cleaned_data["table"])
                messages.success(
                    request,
                    _("%(p)s moved to table %(t)s.")
                    % {"p": form.cleaned_data["player"], "t": form.cleaned_data["table"].number},
                )
            else:
                tables = seat_stage(self.stage, self.players_to_draw())
                messages.success(request, _("%(n)s tables drawn.") % {"n": len(tables)})
        except SeatingError as error:
            messages.error(request, str(error))
        return redirect("seating", self.event.slug, self.stage.number)


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
            form.cleaned_data["username"], form.cleaned_data["tables"]
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
            _("%(u)s keeps the score of %(n)s table(s).")
            % {"u": user.get_username(), "n": len(form.cleaned_data["tables"])},
        )
        return redirect("scorekeepers", self.event.slug)
