"""Infraction pages (PRODUCT.md §8): log one at the table, the director's log and changes,
and a player's page. The writes are scoring/services/infractions.py's."""

import re

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.generic import FormView, TemplateView

from scoring.archive import link_candidates, people_state, same_person
from scoring.charts import games_chart
from scoring.forms.infractions import ChangeInfractionForm, InfractionFilterForm, InfractionForm
from scoring.lists import InfractionLogTable, configure
from scoring.models import Infraction, InfractionReport
from scoring.services.infractions import InfractionRejected, change_infraction, log_infraction
from scoring.sheets import TableSheet, table_sheet
from scoring.views.ratings import player_rating, ratings_state, state_key
from tournament.caching import VersionedPageMixin
from tournament.game.infractions import (
    ACTION_LABELS,
    PENALTY_DRAW,
    SKIP_TURN,
    VOID,
    WARNING,
    counted,
)
from tournament.mixins import DirectorRequiredMixin, EventMixin, TableMixin
from tournament.models import Player, Table
from tournament.refusals import Refused

ALERT_CLASSES = {
    WARNING: "alert-warning",
    PENALTY_DRAW: "alert-danger",
    SKIP_TURN: "alert-danger",
    VOID: "alert-secondary",
}


def can_log(sheet: TableSheet, can_score: bool, is_director: bool) -> bool:
    """Scorekeepers log while the stage is open; directors, also once it is closed."""
    return can_score and (is_director or not sheet.table.stage.closed)


def sheet_infractions(request, sheet: TableSheet, can_score: bool, is_director: bool) -> dict:
    """The table page's part: the tally, the form to log one, the action just logged."""
    ctx = {"tally": sheet.tally()}
    if can_log(sheet, can_score, is_director):
        ctx["infraction_form"] = InfractionForm(sheet=sheet)
    logged = request.GET.get("logged", "")
    if can_score and re.fullmatch(r"[0-9]{1,18}", logged):  # not str.isdigit(): "²" is a digit
        for infraction in sheet.infractions:
            if infraction.pk == int(logged):
                ctx["logged"] = logged_alert(sheet, infraction)
    return ctx


def logged_alert(sheet: TableSheet, infraction: Infraction) -> dict:
    """What the scorekeeper applies at the table now, for the big alert."""
    players = {p.pk: p for p in sheet.players}
    mine = [i for i in sheet.infractions if i.player_id == infraction.player_id]
    upto = mine[: mine.index(infraction) + 1]
    return {
        "infraction": infraction,
        "player": players.get(infraction.player_id),
        "label": ACTION_LABELS[infraction.action].translated(),
        "alert_class": ALERT_CLASSES[infraction.action],
        "count": counted(i.action for i in upto),
    }


class LogInfractionView(LoginRequiredMixin, TableMixin, FormView):
    """A scorekeeper or director logs an infraction; the table's page then shows the action."""

    template_name = "scoring/infraction_form.html"

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and not self.table.can_score(request.user):
            raise Refused(_("You do not keep the score of this table."))
        return super().dispatch(request, *args, **kwargs)

    @cached_property
    def sheet(self) -> TableSheet:
        return table_sheet(self.table)

    def get_form(self, form_class=None):
        return InfractionForm(sheet=self.sheet, **self.get_form_kwargs())

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx.update(sheet=self.sheet, can_log=can_log(self.sheet, True, self.is_director))
        return ctx

    def form_valid(self, form):
        data = form.cleaned_data
        try:
            saved = log_infraction(
                self.table,
                data["player"],
                data["engine"],
                data["kind"],
                data["note"],
                self.request.user,
                key=data["once"],
            )
        except InfractionRejected as refusal:
            self.refused(refusal, form)
            return self.form_invalid(form)
        return redirect(f"{self.table.get_absolute_url()}?logged={saved.pk}")


class ChangeInfractionView(DirectorRequiredMixin, EventMixin, FormView):
    """A director voids an infraction or changes its action, with a reason."""

    template_name = "scoring/infraction_change.html"
    form_class = ChangeInfractionForm

    @cached_property
    def infraction(self) -> Infraction:
        return get_object_or_404(
            Infraction.objects.select_related(
                "table__stage__event", "player", "logged_by", "changed_by"
            ),
            pk=self.kwargs["pk"],
            table__stage__event=self.event,
        )

    def next_url(self) -> str:
        url = self.request.GET.get("next", "")
        if url and url_has_allowed_host_and_scheme(
            url, allowed_hosts={self.request.get_host()}, require_https=self.request.is_secure()
        ):
            return url
        return reverse("infraction_log", args=[self.event.slug])

    def get_initial(self):
        return {"action": self.infraction.action}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx.update(infraction=self.infraction, next_url=self.next_url())
        return ctx

    def form_valid(self, form):
        try:
            changed = change_infraction(
                self.infraction,
                form.cleaned_data["action"],
                form.cleaned_data["reason"],
                self.request.user,
            )
        except InfractionRejected as refusal:
            self.refused(refusal, form)
            return self.form_invalid(form)
        messages.success(
            self.request,
            _("%(player)s's infraction is now: %(action)s.")
            % {"player": changed.player.name, "action": changed.get_action_display()},
        )
        return redirect(self.next_url())


class InfractionLogView(DirectorRequiredMixin, EventMixin, TemplateView):
    """Every infraction of the event, filterable by stage, table, player and kind."""

    template_name = "scoring/infraction_log.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        # a playoff's name says the table or the stage it settles: joined, not asked per table
        tables = Table.objects.filter(stage__event=self.event).select_related(
            "stage__playoff_table__stage", "stage__wildcards_of"
        )
        form = InfractionFilterForm(
            self.request.GET,
            stages=ctx["stages"],
            tables=tables.order_by("stage__number", "number"),
            players=self.event.players.alphabetical(),
        )
        rows = Infraction.objects.filter(table__stage__event=self.event, **form.filters())
        # reported from the tables' phones, waiting for a director (first: they need one)
        reports = InfractionReport.objects.open().filter(
            table__stage__event=self.event, **form.filters()
        )
        ctx["reports"] = list(
            reports.select_related(
                "player", "table__stage__playoff_table__stage", "table__stage__wildcards_of"
            )
        )
        table = InfractionLogTable(
            rows.select_related(
                "table__stage__event",
                "table__stage__playoff_table__stage",
                "table__stage__wildcards_of",
                "player",
                "logged_by",
                "changed_by",
            ),
            order_by=("-logged_at",),
        )
        configure(self.request, table, per_page=100)
        ctx.update(table=table, filter_form=form, filtered=bool(form.filters()))
        return ctx


class PlayerGamesView(VersionedPageMixin, EventMixin, TemplateView):
    """A player's page (public): their seats, how each game stands, their infractions."""

    template_name = "scoring/player.html"

    @cached_property
    def player(self) -> Player:
        return get_object_or_404(Player, pk=self.kwargs["pk"], event=self.event)

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        player = self.player
        games = []
        # a playoff's name says the table or the stage it settles: joined, not asked per seat
        seats = player.seats.select_related(
            "table__stage__playoff_table__stage", "table__stage__wildcards_of"
        )
        if not self.is_director:  # a draft seating is the directors' alone
            seats = seats.filter(stage__seating_draft=False)
        for seat in seats.order_by("stage__number"):
            seat.table.stage.event = self.event
            sheet = table_sheet(seat.table)
            games.append(
                {
                    "stage": seat.table.stage,
                    "table": seat.table,
                    "seat": seat.position,
                    "rounds": len(sheet.rounds),
                    "total": sheet.totals.get(player.pk, 0),
                    "place": sheet.places.get(player.pk) if sheet.rounds else None,
                    "tablemates": [p for p in sheet.players if p.pk != player.pk],
                    "infractions": sheet.infraction_counts.get(player.pk, 0),
                }
            )
        infractions = player.infractions.select_related(
            "table__stage__playoff_table__stage", "table__stage__wildcards_of"
        ).order_by("table__stage__number", "logged_at", "pk")
        ctx.update(player=player, games=games, infractions=list(infractions))
        ctx["other_events"] = same_person(player)
        if self.is_director:
            user = self.request.user
            directs: dict[int, bool] = {}  # event id -> the user directs it (asked once each)

            def mine(other: Player) -> bool:
                if other.event_id not in directs:
                    directs[other.event_id] = other.event.is_director(user)
                return directs[other.event_id]

            ctx["may_unlink"] = {o.pk for o in ctx["other_events"] if mine(o)}
            ctx["link_candidates"] = [c for c in link_candidates(player) if mine(c)]
        ctx["games_chart"] = games_chart(
            [(g["stage"].title, g["total"]) for g in games if g["rounds"]]
        )
        ctx.update(
            player_rating(self.request, self.event, player, [g["tablemates"] for g in games])
        )
        return ctx

    def page_etag(self) -> str | None:
        """The event's version, the ratings' last computation and who is who across events
        (another event's change moves them)."""
        etag = super().page_etag()
        people = people_state()[:16]
        return etag and f'{etag[:-1]}-{state_key(ratings_state())}-{people}"'
