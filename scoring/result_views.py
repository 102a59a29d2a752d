"""Closing a stage, the bracket and the results: PRODUCT.md §6 and §7."""

from django.contrib import messages
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.generic import TemplateView

from scoring.advancement import (
    AdvanceError,
    close_stage,
    compute_results,
    incomplete_tables,
    load_results,
    next_stage_plan,
    seat_next_stage,
)
from scoring.sheets import event_sheets
from tournament.mixins import DirectorRequiredMixin, EventMixin, StageMixin
from tournament.models import StageKind


class ResultsMixin(EventMixin):
    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        results = load_results(self.event)
        ctx["results"] = results
        ctx["bracket"] = bracket(results)
        ctx["medal_rows"] = medal_rows(results)
        return ctx


def bracket(results):
    """Stages in play order, each with its tables: players with total, place and outcome."""
    medal_of = results.medal_of()
    final = results.final
    pending: dict[int, set[int]] = {}  # stage id -> players whose outcome a playoff decides
    for o in results.owed:
        stage_id = o.table.stage_id if o.table is not None else final.pk
        pending.setdefault(stage_id, set()).update(o.owed.players)
    out = []
    for stage in sorted(results.sheets, key=lambda s: s.number):
        tables = []
        for sheet in results.sheets[stage]:
            adv = results.advancement.get(sheet.table.pk)
            places = sheet.places
            rows = [
                {
                    "player": p,
                    "total": sheet.totals.get(p.pk, 0),
                    "place": places.get(p.pk) if sheet.rounds else None,
                    "advanced": adv is not None and p.pk in adv.advancing,
                    "medal": medal_of.get(p.pk) if stage.kind == StageKind.FINAL else None,
                    "pending": p.pk in pending.get(stage.pk, ()),
                }
                for p in sorted(sheet.players, key=lambda p: sheet.totals.get(p.pk, 0))
            ]
            tables.append({"sheet": sheet, "rows": rows})
        out.append({"stage": stage, "tables": tables})
    return out


def medal_rows(results):
    """(division, medal, names or None, pending between names, none) for templates."""
    players = results.players
    rows = []
    for division in results.medals:
        for award in division.result.medals:
            rows.append(
                {
                    "division": division.division,
                    "medal": award.medal,
                    "players": [players[pk] for pk in award.players],
                    "pending": award.pending,
                    "between": [players[pk] for pk in award.between],
                    "none": award.none,
                }
            )
    return rows


class BracketView(ResultsMixin, TemplateView):
    template_name = "scoring/bracket.html"


class ResultsView(ResultsMixin, TemplateView):
    template_name = "scoring/results.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        from scoring.sheets import stage_standings

        results = ctx["results"]
        medal_of = results.medal_of()
        pending = {pk for o in results.owed if o.table is None for pk in o.owed.players}
        outcome = {
            pk: _("playoff pending") if pk in pending else medal_of.get(pk, "").capitalize()
            for pk in results.players
        }
        ctx["stage_standings"] = [
            (
                stage,
                [(row, outcome.get(row.player.pk, "")) for row in stage_standings(stage, sheets)],
            )
            for stage, sheets in sorted(
                results.sheets.items(), key=lambda kv: (kv[0].kind != StageKind.FINAL, kv[0].number)
            )
            if sheets and stage.kind != StageKind.PLAYOFF
        ]
        return ctx


class AdvanceView(DirectorRequiredMixin, StageMixin, TemplateView):
    """Close a stage: see who advances and the playoffs owed, then confirm; seat the next."""

    template_name = "scoring/advance.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        sheets = event_sheets(self.event)
        stage = next(s for s in sheets if s.pk == self.stage.pk)
        ctx["waiting"] = incomplete_tables(stage, sheets[stage])
        if not stage.closed:
            stage.closed = True  # preview: the results as if the director confirmed
        results = compute_results(self.event, sheets)
        ctx["preview"] = not self.stage.closed
        ctx["results"] = results
        ctx["bracket"] = [b for b in bracket(results) if b["stage"].pk == stage.pk]
        owed = results.owed_for(stage) if stage.kind != StageKind.FINAL else results.owed
        players = results.players
        ctx["owed"] = [(o, [players[pk].name for pk in o.owed.players]) for o in owed]
        ctx["medal_rows"] = medal_rows(results) if stage.kind == StageKind.FINAL else []
        try:
            target, semifinal, players = next_stage_plan(self.event, results)
            ctx["plan"] = {"stage": target, "semifinal": semifinal, "players": players}
        except AdvanceError as why:
            ctx["plan_blocked"] = str(why)
        return ctx

    def post(self, request, *args, **kwargs):
        try:
            if request.POST.get("action") == "seat_next":
                seated = seat_next_stage(self.event)
                messages.success(request, _("%(s)s seated.") % {"s": seated.name})
                return redirect("seating", self.event.slug, seated.number)
            playoffs = close_stage(self.stage, request.user)
            messages.success(request, _("%(s)s closed.") % {"s": self.stage.name})
            for playoff in playoffs:
                messages.info(request, _("Playoff created: %(s)s.") % {"s": playoff.name})
            if self.stage.kind in (StageKind.QUALIFYING, StageKind.SEMIFINAL) and not playoffs:
                seated = seat_next_stage(self.event)
                messages.success(request, _("%(s)s seated.") % {"s": seated.name})
                return redirect("seating", self.event.slug, seated.number)
        except AdvanceError as why:
            messages.error(request, str(why))
        return redirect("advance", self.event.slug, self.stage.number)
