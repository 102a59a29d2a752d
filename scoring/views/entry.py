"""Round entry and corrections: the writes go through scoring/services/rounds.py.

The pages work with and without their script (static/js/entry.js). The script checks a round
as it is typed (the same rules, ``tournament.game.rules.round_checks``), sends it with the form's
key and asks for JSON (``Accept: application/json``): the answer says whether the round was
saved, or why not, field by field. Without the script the form posts and redirects as usual.
"""

import re

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.dateformat import time_format
from django.utils.functional import cached_property
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views import View
from django.views.generic import FormView, TemplateView

from scoring.forms.entry import RemoveRoundForm, RoundForm
from scoring.models import Round
from scoring.results import AdvanceError, correction_effects
from scoring.services.rounds import (
    RoundRejected,
    RoundTaken,
    end_game,
    game_over_message,
    record_round,
    reopen_game,
)
from scoring.services.stages import correct_and_reseat, remove_closed_round
from scoring.sheets import load_sheets, table_sheet
from tournament.clock import entry_after_time
from tournament.game.rules import RoundErrors, round_checks
from tournament.mixins import DirectorRequiredMixin, TableMixin, posted_key
from tournament.models import Event, Stage, Table
from tournament.refusals import Refused
from tournament.text import colon, translated


def wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def taken_round(saved: Round, players) -> dict:
    """What another device saved for the round a stale page showed: by whom, when, the pips."""
    pips = {s.player_id: s.pips for s in saved.scores.all()}
    return {
        "engine": saved.engine,
        "number": saved.number,
        "by": saved.entered_by.get_username()
        if saved.entered_by
        else (_("a player's phone") if saved.entered_device else "—"),
        "at": time_format(timezone.localtime(saved.entered_at), "H:i"),
        "pips": [(p.name, pips.get(p.pk)) for p in players],
    }


def kept_seating(stage: Stage) -> str:
    """A game a correction left seated on the totals before it, as the director is told."""
    return _(
        "%(s)s keeps its seating, and the event page says it was seated on the totals before "
        "this correction."
    ) % {"s": stage.title}


class RoundPageMixin:
    """The round form's page: its script's configuration, and answers in JSON or HTML."""

    @property
    def sheet(self):
        if not hasattr(self, "_sheet"):
            self._sheet = table_sheet(self.table)
        return self._sheet

    @property
    def entry_url(self) -> str:
        return reverse("enter_round", args=[self.event.slug, self.stage.number, self.table.number])

    def script_config(self, form, engines) -> dict:
        """What static/js/entry.js needs: the checks per engine, the cells, its texts."""
        return {
            **round_checks(self.sheet.rules, engines, len(form.players), say=translated),
            "engine": form.engine,
            "plausible": form.plausible_config(),
            "cells": [form.key(p) for p in form.players],
            "names": {form.key(p): p.name for p in form.players},
            "label": _("%(s)s, table %(t)s") % {"s": self.stage.title, "t": self.table.number},
            "texts": {
                "fill": _("Enter every player's pips to save."),
                "fix": _("Fix the marked cells to save."),
                "sending": _("Sending…"),
                "waiting": _(
                    "Waiting to send (no connection): it is kept on this device and sent as "
                    "soon as the connection returns."
                ),
                "refused": _("Not saved:"),
                "saved": _("Saved."),
                "next": _("Load the next round"),
                "stale": _("This round is saved already: load the next round."),
                "colon": colon(),  # "a: b", "a : b" in French
                "tick": getattr(self, "confirmation_needed", None) or "",
            },
        }

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["entry_url"] = self.entry_url
        return ctx

    def saved_response(self, message: str):
        messages.success(self.request, message)
        if wants_json(self.request):
            return JsonResponse({"saved": True, "message": message, "next_url": self.entry_url})
        return redirect(self.entry_url)

    def refused_response(self, form, taken: dict | None = None, **extra):
        if wants_json(self.request):
            return JsonResponse(
                {
                    "saved": False,
                    "fields": {name: list(errors) for name, errors in form.errors.items()},
                    "taken": taken,
                    "questions": getattr(form, "questions", []),
                    **extra,
                }
            )
        return self.render_to_response(self.get_context_data(form=form, taken=taken, **extra))


class EnterRoundView(RoundPageMixin, LoginRequiredMixin, TableMixin, FormView):
    """The table's grid with the next round to enter, whole, in one step."""

    template_name = "scoring/enter_round.html"

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and not self.table.can_score(request.user):
            raise Refused(_("You do not keep the score of this table."))
        return super().dispatch(request, *args, **kwargs)

    @cached_property
    def after_time(self):
        """What the table may still enter once time is called (None while it is not)."""
        return entry_after_time(self.sheet)

    @property
    def confirmation_needed(self) -> str | None:
        """What the scorekeeper must tick before saving (a round typed long after the call)."""
        after = self.after_time
        return after.unconfirmed if after is not None and after.needs_confirmation else None

    def last_round(self):
        """The table's last round, which a director may remove (None before the first)."""
        return self.sheet.rounds[-1] if self.sheet.rounds else None

    def closed_reason(self) -> str | None:
        if self.stage.closed:
            return _("This stage is closed.")
        if not self.sheet.players:
            return _("Nobody is seated at this table.")
        if self.sheet.next_engine is None:
            return game_over_message(self.sheet)
        return None

    def get_form(self, form_class=None):
        if self.closed_reason():
            return None
        return RoundForm(
            players=self.sheet.next_players,
            rules=self.sheet.rules,
            engine=self.sheet.next_engine,
            choose_engine=self.sheet.is_playoff,
            number=len(self.sheet.rounds) + 1,
            after_time=self.after_time,
            **self.get_form_kwargs(),
        )

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        form = ctx.get("form")
        if form is not None:
            engines = range(self.sheet.rules.set + 1) if self.sheet.is_playoff else [form.engine]
            ctx["entry_config"] = self.script_config(form, engines)
        ctx.update(
            sheet=self.sheet,
            closed_reason=self.closed_reason(),
            can_correct=self.is_director,
            last_round=self.last_round() if self.is_director else None,
            after_time=self.after_time,
            can_end_game=self.after_time is not None
            and self.sheet.rounds
            and self.sheet.next_engine is not None
            and not self.stage.closed,
            can_reopen_game=self.is_director and self.sheet.marked_over and not self.stage.closed,
            # A scorekeeper's phone keeps its table's page for when the Wi-Fi goes (issue 33;
            # static/js/sw.js): it has no director's buttons to go stale.
            offline_keep=not self.is_director,
        )
        return ctx

    def writer(self) -> dict:
        """Who saves the round, as record_round takes it (a phone's page gives its device)."""
        return {"user": self.request.user}

    @staticmethod
    def shown_engine(form) -> int:
        """The engine the page showed (a playoff's chosen one, else the round's)."""
        shown = form.cleaned_data.get("shown_engine")
        return form.engine if shown is None else shown

    def post(self, request, *args, **kwargs):
        form = self.get_form()
        if form is None:
            if wants_json(request):
                return JsonResponse({"saved": False, "fields": {"__all__": [self.closed_reason()]}})
            messages.error(request, self.closed_reason())
            return redirect(self.entry_url)
        if not form.is_valid():
            return self.refused_response(form)
        try:
            saved = record_round(
                self.table,
                form.cleaned_data["pips"],
                **self.writer(),
                engine=self.shown_engine(form),
                number=form.cleaned_data["number"],
                key=form.cleaned_data["once"],
                played_before_call=form.cleaned_data.get("played_before_call", False),
                last=form.cleaned_data.get("last", False),
            )
        except RoundTaken as taken:
            return self.taken_response(taken)
        except RoundRejected as refusal:
            self.refused(refusal, form)
            return self.refused_response(form)
        message = _("Round %(e)s-%(e)s saved.") % {"e": saved.engine}
        if form.cleaned_data.get("last"):  # the table as saved: its game marked over now
            self.table.refresh_from_db(fields=["game_over_after"])
            message += " " + game_over_message(table_sheet(self.table))
        return self.saved_response(message)

    def taken_response(self, taken: RoundTaken):
        """Another device saved this round first: one message that says so, with what it
        saved, and the page of the next round (the script stays on its page: the typed values
        are kept, its Save disabled, the sheet reloaded)."""
        shown = taken_round(taken.saved, self.sheet.players)
        message = " ".join(
            [
                *taken.errors.whole,
                _("Saved by %(by)s at %(at)s:") % shown,
                ", ".join(f"{name} {pips}" for name, pips in shown["pips"]) + ".",
            ]
        )
        if wants_json(self.request):
            return JsonResponse(
                {"saved": False, "taken": shown, "message": message, "next_url": self.entry_url}
            )
        messages.warning(self.request, message)
        return redirect(self.entry_url)


class EndGameView(LoginRequiredMixin, TableMixin, View):
    """Once time is called: the table's game is over after its last round typed."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        if not self.table.can_score(request.user):
            raise Refused(_("You do not keep the score of this table."))
        shown = request.POST.get("rounds", "")
        try:
            if not re.fullmatch(r"[0-9]{1,3}", shown):
                raise RoundRejected(RoundErrors(whole=[_("Reload the page and try again.")]))
            table = end_game(self.table, int(shown), request.user, posted_key(request))
        except RoundRejected as refusal:
            self.refused(refusal)
        else:
            messages.success(request, game_over_message(table_sheet(table)))
        return redirect("enter_round", self.event.slug, self.stage.number, self.table.number)


class ReopenGameView(DirectorRequiredMixin, TableMixin, View):
    """A director takes back a table's "game over" mark, with a reason."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        try:
            reopen_game(self.table, request.user, request.POST.get("reason", "")[:300])
        except RoundRejected as refusal:
            self.refused(refusal)
        else:
            messages.success(request, _("The table's game is open again."))
        return redirect("enter_round", self.event.slug, self.stage.number, self.table.number)


class CorrectRoundView(RoundPageMixin, DirectorRequiredMixin, TableMixin, FormView):
    """A director corrects a saved round, with a reason; on a closed stage, after seeing what
    the correction changes (who advances, who medals)."""

    template_name = "scoring/correct_round.html"

    @cached_property
    def round(self) -> Round:
        return get_object_or_404(Round, table=self.table, number=self.kwargs["round"])

    def get_form(self, form_class=None):
        return RoundForm(
            players=self.sheet.playing(self.round.number),
            rules=self.sheet.rules,
            engine=self.round.engine,
            correction=True,
            initial_pips={s.player_id: s.pips for s in self.round.scores.all()},
            **self.get_form_kwargs(),
        )

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["round"] = self.round
        ctx["is_last"] = self.round.number == max(r.number for r in self.sheet.rounds)
        ctx["entry_config"] = self.script_config(ctx["form"], [self.round.engine])
        return ctx

    def form_invalid(self, form):
        return self.refused_response(form)

    def form_valid(self, form):
        pips = form.cleaned_data["pips"]
        previewed = ",".join(f"{pk}:{v}" for pk, v in sorted(pips.items()))
        if self.stage.closed and self.request.POST.get("previewed") != previewed:
            # A closed stage's results are published: show what these very pips change first.
            return self.refused_response(form, **self.preview(pips, previewed))
        reseat = self.request.POST.get("reseat", "")
        try:
            done = correct_and_reseat(
                self.round,
                pips,
                self.request.user,
                form.cleaned_data["reason"],
                key=form.cleaned_data["once"],
                reseat=int(reseat) if reseat.isdigit() else None,
            )
        except (RoundRejected, AdvanceError) as refusal:
            self.refused(refusal, form)
            return self.refused_response(form)
        said = [
            ngettext(
                "Round corrected: %(n)s score changed.",
                "Round corrected: %(n)s scores changed.",
                done.changes,
            )
            % {"n": done.changes}
        ]
        if done.reseated is not None:
            said.append(
                _("%(s)s is seated again from the corrected totals.") % {"s": done.reseated.title}
            )
        said += [kept_seating(stage) for stage in done.kept]
        return self.saved_response(" ".join(said))

    def preview(self, pips: dict[int, int], previewed: str) -> dict:
        """What the correction changes (who advances, moves, sits where, medals), and the
        stage it can seat again from the corrected totals: the page's context, its JSON
        answer, and the two parts the script puts in the page."""
        effects = correction_effects(self.round, pips)
        preview = {
            "effects": effects.lines,
            "reseat": effects.reseat.title if effects.reseat else "",
            "reseat_stage": effects.reseat.pk if effects.reseat else None,
            "kept": [s.title for s in effects.kept],
            "confirming": True,
            "previewed": previewed,
        }
        return {
            **preview,
            "preview_html": render_to_string(
                "scoring/_correction_effects.html", {**preview, "stage": self.stage}
            ),
            "reseat_html": render_to_string("scoring/_correction_reseat.html", preview),
        }


class MyTablesView(LoginRequiredMixin, TemplateView):
    """A scorekeeper's home: the tables of open stages given to them, with each table's next
    round, one tap to its entry page; a director also sees the events they direct."""

    template_name = "scoring/my_tables.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        user = self.request.user
        mine = set(
            Table.objects.filter(scorekeepers=user, stage__closed=False).values_list(
                "pk", flat=True
            )
        )
        stages = Stage.objects.filter(tables__pk__in=mine).distinct().select_related("event")
        by_event: dict = {}
        for stage in stages.order_by("event__date", "event__name", "number"):
            by_event.setdefault(stage.event, []).append(stage)
        rows = []
        for event, event_stages in by_event.items():  # a few events: one set of queries each
            sheets = load_sheets(event.rules, {s.pk: s for s in event_stages})
            rows += [(event, s) for s in sheets if s.table.pk in mine]
        ctx["rows"] = rows
        ctx["directed"] = Event.objects.filter(directors=user).order_by("-date", "name")
        return ctx


class RemoveRoundView(DirectorRequiredMixin, TableMixin, FormView):
    """A director removes a table's last round, with a reason; on a closed stage the page
    first shows what that changes (who advances, who medals), as a correction does."""

    template_name = "scoring/remove_round.html"
    form_class = RemoveRoundForm

    @cached_property
    def round(self) -> Round:
        return get_object_or_404(Round, table=self.table, number=self.kwargs["round"])

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        sheet = table_sheet(self.table)
        played = next((r for r in sheet.rounds if r.number == self.round.number), None)
        ctx.update(
            round=self.round,
            pips=[(p.name, played.pips.get(p.pk)) for p in sheet.players] if played else [],
            is_last=bool(sheet.rounds) and sheet.rounds[-1].number == self.round.number,
        )
        if self.stage.closed:
            ctx["effects"] = correction_effects(self.round, None).lines
        return ctx

    def form_valid(self, form):
        try:
            kept = remove_closed_round(
                self.round,
                self.request.user,
                form.cleaned_data["reason"],
                form.cleaned_data["once"],
            )
        except RoundRejected as refusal:
            self.refused(refusal, form)
            return self.form_invalid(form)
        said = [_("Round %(e)s-%(e)s removed.") % {"e": self.round.engine}]
        said += [kept_seating(stage) for stage in kept]
        messages.success(self.request, " ".join(said))
        return redirect("enter_round", self.event.slug, self.stage.number, self.table.number)
