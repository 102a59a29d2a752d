"""Event, player and seating pages: public pages first, then the directors'."""

import re

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.core.exceptions import ValidationError
from django.db.models import Count, Prefetch, Q
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.csrf import requires_csrf_token
from django.views.generic import CreateView, FormView, ListView, TemplateView, UpdateView
from django.views.generic.edit import FormMixin

from tournament import list_readings
from tournament.finals_store import event_plans
from tournament.forms import (
    CsvImportForm,
    DeleteEventForm,
    DeletePlayerForm,
    EventForm,
    LateArrivalForm,
    PlayerEditForm,
    PlayerForm,
    ScorekeeperForm,
    WithdrawForm,
    new_key,
)
from tournament.mixins import DirectorRequiredMixin, EventMixin, posted_key
from tournament.models import (
    Event,
    ListReading,
    ListReadingStatus,
    Player,
    Seat,
    StageKind,
    Table,
)
from tournament.refusals import detail
from tournament.registration import (
    ROLE_LABELS,
    ROLES,
    clean_mapping,
    from_stored,
    guess_mapping,
    mapping_key,
    mapping_problem,
    stored,
)
from tournament.seating import SeatingError
from tournament.services import (
    ImportChoices,
    add_player,
    adds_player,
    assign_scorekeeper,
    check_in,
    create_event,
    delete_event,
    delete_player,
    deleted_player_name,
    edit_player,
    has_played,
    import_registration,
    preview_import,
    set_archived,
    update_event,
)

# -- public -----------------------------------------------------------------------------------


class HomeView(ListView):
    template_name = "tournament/home.html"
    context_object_name = "events"

    def get_queryset(self):
        registered = Count("players", filter=Q(players__withdrawn=False))  # as Player's REGISTERED
        return Event.objects.listed().annotate(player_count=registered)


class EventHomeView(EventMixin, TemplateView):
    template_name = "tournament/event_home.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        # Two grouped counts, not one COUNT(DISTINCT) over tables x seats (seconds at 4,000).
        stages = Table.objects.filter(stage__event=self.event).values("stage").order_by()
        tables = dict(stages.annotate(n=Count("pk")).values_list("stage", "n"))
        seats = Seat.objects.filter(stage__event=self.event).values("stage").order_by()
        seated = dict(seats.annotate(n=Count("pk")).values_list("stage", "n"))
        rows = list(self.event.stages.order_by("number"))  # play order
        for s in rows:
            s.table_count, s.seat_count = tables.get(s.pk, 0), seated.get(s.pk, 0)
        ctx["stage_rows"] = rows
        ctx["counts"] = self.event.players.counts()
        ctx["backups_on"], ctx["backup_dir"] = settings.BACKUPS_ON, settings.BACKUP_DIR
        if self.is_director:
            ctx["finals_plans"] = event_plans(self.event)
        return ctx


class FindTableView(EventMixin, TemplateView):
    template_name = "tournament/find_table.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        q = self.request.GET.get("q", "").strip()[:100]
        ctx["q"] = q
        if q:
            players = self.event.players.matching(q).alphabetical()
            seats = Seat.objects.select_related("table", "stage").order_by("stage__number")
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
        messages.success(self.request, _("Event created with stages Game 1 and Final."))
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


class PlayersView(DirectorRequiredMixin, EventMixin, FormMixin, TemplateView):
    """Register players by hand, check them in and out."""

    template_name = "tournament/players.html"
    form_class = PlayerForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "event": self.event}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["players"] = self.event.players.all()
        ctx["counts"] = self.event.players.counts()
        ctx["csv_form"] = CsvImportForm()
        return ctx

    def post(self, request, *args, **kwargs):
        form = self.get_form()
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(form=form))
        form.instance.event = self.event
        try:
            player = add_player(
                form.save(commit=False), request.user, key=form.cleaned_data["once"]
            )
        except ValidationError as error:
            form.add_error(None, error)
            return self.render_to_response(self.get_context_data(form=form))
        messages.success(request, _("%(name)s added.") % {"name": player.name})
        return redirect("players", self.event.slug)


class CheckInView(DirectorRequiredMixin, EventMixin, TemplateView):
    """Check players in or out: one tap per player on the desk page, or several at once.

    Setting a state twice is setting it once: a double tap, or the same player tapped at two
    desks, checks in once (``check_in`` locks the event and changes only what differs).
    """

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        state = request.POST.get("checked_in")
        back = request.POST.get("back")
        if state not in ("0", "1"):  # checking out is asked for, never what a post falls to
            messages.error(request, _("Nothing changed: tap Check in or Undo check-in."))
            return redirect("desk" if back == "desk" else "players", self.event.slug)
        checked_in = state == "1"
        ids = request.POST.getlist("player") or [kwargs.get("pk")]
        ids = [int(i) for i in ids if re.fullmatch(r"[0-9]{1,12}", str(i))]
        count = check_in(self.event, ids, checked_in, request.user)
        if "application/json" in request.headers.get("Accept", ""):
            return JsonResponse({"changed": count, "state": checked_in, **desk_counts(self.event)})
        messages.success(request, check_in_message(self.event, ids, checked_in, count))
        if back == "desk":
            q = request.POST.get("q", "")[:100]
            url = reverse("desk", args=[self.event.slug])
            return redirect(f"{url}?q={q}" if q else url)
        return redirect(reverse("players", args=[self.event.slug]) + "#players")


def check_in_message(event: Event, ids: list[int], checked_in: bool, count: int) -> str:
    """What a check-in post says: the player's name for one tap at the desk, and a repeated
    tap says that nothing more happened."""
    name = event.players.filter(pk=ids[0]).values_list("name", flat=True).first() if ids else None
    if len(ids) != 1 or name is None:
        return (_("%(n)s checked in.") if checked_in else _("%(n)s checked out.")) % {"n": count}
    if checked_in:
        done = _("%(name)s checked in.") if count else _("%(name)s was already checked in.")
    else:
        done = _("%(name)s checked out.") if count else _("%(name)s was not checked in.")
    return done % {"name": name}


def desk_counts(event: Event) -> dict:
    """Checked in, registered (not withdrawn), withdrew, seated in the first stage."""
    first = event.stages.order_by("number").values_list("pk", flat=True).first()
    return event.players.counts(seated_in=first)


class DeskView(DirectorRequiredMixin, EventMixin, TemplateView):
    """The check-in desk: search as you type, one tap per player, the counts; made for a
    phone. Every player is on the page (the script filters them as one types); without the
    script, the search goes to the server."""

    template_name = "tournament/desk.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        q = self.request.GET.get("q", "").strip()[:100]
        players = self.event.players.matching(q).alphabetical()
        ctx.update(q=q, players=players, counts=desk_counts(self.event))
        ctx["desk_texts"] = {
            "in": _("In ✓"),
            "out": _("Check in"),
            "failed": _("Not saved: check the connection and tap again."),
            "checked_in": _("%(name)s checked in."),
            "checked_out": _("%(name)s checked out."),
        }
        return ctx


class PlayerView(DirectorRequiredMixin, EventMixin, TemplateView):
    """One player for the desk: fix the name, id, club and division; withdraw (or take it
    back); seat a late arrival."""

    template_name = "tournament/player_edit.html"

    @property
    def player(self) -> Player:
        if not hasattr(self, "_player"):
            self._player = get_object_or_404(Player, event=self.event, pk=self.kwargs["pk"])
        return self._player

    def late_stage(self):
        """The seated, open qualifying stage a player not seated in it may join."""
        return (
            self.event.stages.open()
            .filter(kind=StageKind.QUALIFYING, tables__isnull=False)
            .exclude(seats__player=self.player)
            .distinct()
            .order_by("number")
            .first()
        )

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        player = self.player
        ctx["player"] = player
        ctx.setdefault("form", PlayerEditForm(instance=player))
        ctx.setdefault("withdraw_form", WithdrawForm())
        stage = None if player.withdrawn else self.late_stage()
        if stage is not None:
            ctx["late_stage"] = stage
            ctx.setdefault("late_form", LateArrivalForm(stage=stage))
        ctx["seats"] = player.seats.select_related("stage", "table").order_by("stage__number")
        ctx["played"] = has_played(player)
        return ctx

    def post(self, request, *args, **kwargs):
        from scoring.seats import reinstate_player, seat_late_arrival, withdraw_player

        player = self.player
        if "withdraw" in request.POST:
            form = WithdrawForm(request.POST)
            if not form.is_valid():
                return self.render_to_response(self.get_context_data(withdraw_form=form))
            done = withdraw_player(
                player, request.user, form.cleaned_data["reason"], form.cleaned_data["once"]
            )
            messages.success(request, done)
        elif "reinstate" in request.POST:
            reinstate_player(player, request.user)
            messages.success(request, _("%(p)s plays again.") % {"p": player.name})
        elif "late" in request.POST:
            stage = self.late_stage()
            if stage is None:
                messages.error(request, _("No seated stage for this player to join."))
                return redirect("player_edit", self.event.slug, player.pk)
            form = LateArrivalForm(request.POST, stage=stage)
            if not form.is_valid():
                return self.render_to_response(self.get_context_data(late_form=form))
            try:
                seat = seat_late_arrival(
                    stage, player, form.cleaned_data["table"], request.user, posted_key(request)
                )
            except SeatingError as error:
                form.add_error(None, str(error))
                return self.render_to_response(self.get_context_data(late_form=form))
            messages.success(
                request,
                _("%(p)s joins table %(t)s.") % {"p": player.name, "t": seat.table.number},
            )
        else:
            form = PlayerEditForm(request.POST, instance=player)
            if not form.is_valid():
                return self.render_to_response(self.get_context_data(form=form))
            values = {f: form.cleaned_data[f] for f in ("name", "ref", "club", "division")}
            try:
                changes = edit_player(player, values, request.user, form.cleaned_data["once"])
            except ValidationError as error:
                form.add_error(None, error)
                return self.render_to_response(self.get_context_data(form=form))
            if changes:
                messages.success(request, _("Saved: %(c)s.") % {"c": "; ".join(changes)})
            else:
                messages.info(request, _("Nothing changed."))
        return redirect("player_edit", self.event.slug, player.pk)


class PlayerDeleteView(DirectorRequiredMixin, EventMixin, FormView):
    """Delete a player registered by mistake (a repeated row, a wrong name) who has never
    been seated: a confirmation page, then the deletion. A repeat of the post, or a second
    device, is told the player is deleted already; a player who has played is refused."""

    template_name = "tournament/player_delete.html"
    form_class = DeletePlayerForm

    def get(self, request, *args, **kwargs):
        player = self.event.players.filter(pk=kwargs["pk"]).first()
        if player is None:
            return self.already_deleted()
        return self.render_to_response(
            self.get_context_data(player=player, played=has_played(player))
        )

    def already_deleted(self, name: str | None = None):
        name = name if name is not None else deleted_player_name(self.event, self.kwargs["pk"])
        if name is None:
            raise Http404
        messages.info(self.request, _("%(name)s is already deleted.") % {"name": name})
        return redirect("players", self.event.slug)

    def form_valid(self, form):
        pk = self.kwargs["pk"]
        try:
            name, deleted = delete_player(
                self.event, pk, self.request.user, form.cleaned_data["once"]
            )
        except Player.DoesNotExist:
            raise Http404 from None
        except ValidationError as error:
            messages.error(self.request, " ".join(error.messages))
            return redirect("player_edit", self.event.slug, pk)
        if not deleted:
            return self.already_deleted(name)
        messages.success(self.request, _("%(name)s is deleted.") % {"name": name})
        return redirect("players", self.event.slug)


SESSION_LIST = "players-import-%s"


class CsvImportView(DirectorRequiredMixin, EventMixin, FormView):
    """Bring the registration list: upload a CSV or Excel file, or paste names. It is read and
    kept (in the director's session, until confirmed) for the preview; nothing is saved yet."""

    form_class = CsvImportForm
    template_name = "tournament/players_import.html"

    def form_valid(self, form):
        if "large" in form.cleaned_data:
            reading = list_readings.start(
                self.event, self.request.user, form.cleaned_data["large"], form.cleaned_data["once"]
            )
            return redirect("players_import_reading", self.event.slug, reading.pk)
        self.request.session[SESSION_LIST % self.event.pk] = stored(form.cleaned_data["sheet"])
        return redirect("players_import_preview", self.event.slug)

    def form_invalid(self, form):
        if form.errors:
            form.add_error(None, _("Nothing was imported: correct the file and upload it again."))
        return super().form_invalid(form)


class ListReadingView(DirectorRequiredMixin, EventMixin, TemplateView):
    """A large list read in the background: how far it got (the page reloads itself), then the
    preview, or why the list was refused and the upload form again. Only for the director who
    sent it."""

    template_name = "tournament/players_import_reading.html"

    def get(self, request, *args, **kwargs):
        reading = get_object_or_404(
            ListReading.objects.defer("data", "sheet"),
            pk=kwargs["pk"],
            event=self.event,
            by=request.user,
        )
        if reading.status == ListReadingStatus.DONE:
            sheet = list_readings.take(reading)
            if sheet is not None:
                request.session[SESSION_LIST % self.event.pk] = sheet
            return redirect("players_import_preview", self.event.slug)
        form = CsvImportForm() if reading.status == ListReadingStatus.FAILED else None
        return self.render_to_response(self.get_context_data(reading=reading, form=form))


class ImportPreviewView(DirectorRequiredMixin, EventMixin, TemplateView):
    """The list as read: which column gives what (guessed, remembered for the event), every
    row as the player it would register with its problems, duplicates and computed division;
    nothing is saved until the director confirms."""

    template_name = "tournament/players_import_preview.html"
    SHOWN = 10  # the first rows, as the file has them

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and self.is_director:
            stored = request.session.get(SESSION_LIST % self.event.pk)
            if stored is None:
                messages.info(request, _("Upload the list first."))
                return redirect("players_import", self.event.slug)
            self.sheet = from_stored(stored)
            self.dropped = stored.get("dropped", [])
        return super().dispatch(request, *args, **kwargs)

    @property
    def width(self) -> int:
        return max([len(self.sheet.header), *(len(c) for _, c in self.sheet.rows[:200])])

    def mapping(self) -> dict:
        if "map-name" in self.request.POST:
            raw = {role: self.request.POST.get(f"map-{role}") for role in ROLES}
            return clean_mapping(raw, self.width)
        remembered = self.event.import_mapping or {}
        if remembered and all(h in self.sheet.header for h in remembered.values()):
            raw = {role: self.sheet.header.index(h) for role, h in remembered.items()}
            return clean_mapping(raw, self.width)
        return guess_mapping(self.sheet.header)

    def choices(self) -> ImportChoices:
        post = self.request.POST
        lines = {line for line, _ in self.sheet.rows}

        def picked(prefix):
            return {
                int(k[len(prefix) :])
                for k in post
                if k.startswith(prefix)
                and k[len(prefix) :].isdigit()
                and int(k[len(prefix) :]) in lines
            }

        divisions = {}
        if "map-name" in post and post.get("divisions") == mapping_key(self.mapping()):
            for line in lines:
                if f"division-{line}" in post:
                    divisions[line] = post[f"division-{line}"][:60]
        return ImportChoices(
            divisions=divisions,
            add_anyway=picked("add-"),
            apply=picked("apply-"),
            skip_problems=post.get("skip_problems") == "1",
        )

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        mapping = kwargs.get("mapping") or self.mapping()
        choices = kwargs.get("choices") or self.choices()
        problem = mapping_problem(mapping)
        rows = [] if problem else preview_import(self.event, self.sheet, mapping, choices)
        columns = [
            (i, self.sheet.header[i] if i < len(self.sheet.header) else f"#{i + 1}")
            for i in range(self.width)
        ]
        ctx.update(
            sheet=self.sheet,
            dropped=self.dropped,
            columns=columns,
            first_rows=[
                (line, [cells[i] if i < len(cells) else "" for i in range(self.width)])
                for line, cells in self.sheet.rows[: self.SHOWN]
            ],
            roles=[(role, ROLE_LABELS[role], mapping[role]) for role in ROLES],
            mapping_problem=problem,
            rows=rows,
            choices=choices,
            counts={
                status: sum(1 for r in rows if r.status == status and not r.problems)
                for status in ("new", "same", "changed", "repeat")
            },
            adding=sum(1 for r in rows if adds_player(r, choices)),
            problems=[r for r in rows if r.problems],
            divisions_key=mapping_key(mapping),
            with_ages=bool(self.event.age_brackets)
            and (mapping["birth"] is not None or mapping["age"] is not None),
            once=kwargs.get("once") or new_key(),
        )
        return ctx

    def post(self, request, *args, **kwargs):
        mapping, choices = self.mapping(), self.choices()
        key = posted_key(request)
        if request.POST.get("action") != "confirm" or mapping_problem(mapping):
            return self.render_to_response(
                self.get_context_data(mapping=mapping, choices=choices, once=key)
            )
        result = import_registration(self.event, self.sheet, mapping, choices, request.user, key)
        if result.errors:
            for error in result.errors:
                messages.error(request, error)
            messages.error(request, _("Nothing was imported: fix the list or skip those rows."))
            return self.render_to_response(
                self.get_context_data(mapping=mapping, choices=choices, once=key)
            )
        request.session.pop(SESSION_LIST % self.event.pk, None)
        messages.success(
            request,
            _("%(n)s players imported, %(c)s changed, %(s)s skipped.")
            % {"n": result.created, "c": result.changed, "s": result.skipped},
        )
        return redirect("players", self.event.slug)


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


# -- refusals --------------------------------------------------------------------------------------


@requires_csrf_token  # the page's language switch posts a form
def permission_denied(request, exception):
    """The 403 page, with the site's reason when it gave one (``tournament.refusals``)."""
    return render(request, "403.html", {"detail": detail(exception)}, status=403)


@requires_csrf_token
def page_not_found(request, exception):
    """The 404 page, with the site's reason when it gave one: never Django's own words."""
    return render(request, "404.html", {"detail": detail(exception)}, status=404)
