"""A series' pages (issue 31 item 1): the list of series and a series' standings, its exports
and PDF (public); creating and editing a series, adding and taking out its events (its
directors)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect
from django.utils.functional import cached_property
from django.utils.translation import gettext as _
from django.views import View
from django.views.generic import CreateView, FormView, ListView, TemplateView, UpdateView

from scoring.archive import probable_people, series_events
from scoring.exports import RowsExport, export_response, requested_format
from scoring.forms.series import AddEventForm, SeriesForm
from scoring.models import Series
from scoring.printing import pdf_response, render_pdf
from scoring.series import export_rows, series_standings
from scoring.services.archive import PersonRefusal, settle_probable, settled_message
from scoring.services.series import (
    SeriesRefusal,
    add_event,
    create_series,
    remove_event,
    update_series,
)
from tournament.forms import new_key
from tournament.mixins import RefusalMixin, posted_key
from tournament.models import Event, Submission
from tournament.refusals import Refused


class SeriesMixin(RefusalMixin):
    """Loads the series from the URL once; ``director_required``: its directors only."""

    director_required = False

    @cached_property
    def series(self) -> Series:
        return get_object_or_404(Series, slug=self.kwargs["slug"])

    @cached_property
    def is_director(self) -> bool:
        return self.series.is_director(self.request.user)

    def dispatch(self, request, *args, **kwargs):
        if self.director_required and request.user.is_authenticated and not self.is_director:
            raise Refused(_("Only the series' directors can do this."))
        return super().dispatch(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx.update(series=self.series, is_director=self.is_director)
        return ctx


class SeriesDirectorMixin(LoginRequiredMixin, SeriesMixin):
    """Login first, then the series' directors only."""

    director_required = True


# -- public -----------------------------------------------------------------------------------


class SeriesListView(ListView):
    template_name = "scoring/series_list.html"
    context_object_name = "every_series"

    def get_queryset(self):
        return Series.objects.annotate(event_count=Count("entries")).order_by("name", "pk")


class SeriesView(SeriesMixin, TemplateView):
    template_name = "scoring/series.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        events = series_events(self.series)
        ctx["standings"] = series_standings(self.series, events)
        if self.is_director:
            # players of one name who are probably one person: linked in one step (issue 45)
            ctx["probable"] = probable_people(events)
            ctx["once"] = new_key()
        return ctx


class SeriesExportView(SeriesMixin, View):
    """The standings as CSV or Excel: ``?_export=csv`` or ``?_export=xlsx``."""

    def get(self, request, *args, **kwargs):
        export_format = requested_format(request)
        headers, rows = export_rows(series_standings(self.series))
        exporter = RowsExport(export_format, headers, rows, self.series.name)
        return export_response(exporter, f"{self.series.slug}-standings")


class SeriesPdfView(SeriesMixin, TemplateView):
    """The standings on paper: a page per division, the paper of the series' latest event."""

    template_name = "print/series.html"

    def render_to_response(self, context, **response_kwargs):
        events = series_events(self.series)
        standings = series_standings(self.series, events)
        # the paper of the series' latest event (print/base.html reads it from ``event``)
        context.update(standings=standings, event=events[-1] if events else None)
        return pdf_response(
            render_pdf(self.template_name, context, self.request),
            f"{self.series.slug}-standings.pdf",
        )


# -- directors --------------------------------------------------------------------------------


class SeriesCreateView(LoginRequiredMixin, PermissionRequiredMixin, RefusalMixin, CreateView):
    permission_required = "scoring.add_series"
    form_class = SeriesForm
    template_name = "scoring/series_form.html"

    def repeated(self):
        """The series a form already handled (a double click, a resent page) made, or None."""
        earlier = Submission.objects.filter(key=posted_key(self.request) or None).first()
        if earlier is not None and "series" in (earlier.outcome or {}):
            return Series.objects.filter(pk=earlier.outcome["series"]).first()
        return None

    def post(self, request, *args, **kwargs):
        # A repeat answers as the first post did, before its short name, taken by then, is
        # checked again.
        series = self.repeated()
        if series is not None:
            return redirect("series_events", series.slug)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        # The same form posted at once from another tab or a retry: the first one may have
        # committed (its key with its series) after this one looked, its short name then
        # refused here. Its answer is the first one's.
        series = self.repeated()
        if series is not None:
            return redirect("series_events", series.slug)
        return super().form_invalid(form)

    def form_valid(self, form):
        try:
            self.object = create_series(
                form.save(commit=False), self.request.user, key=form.cleaned_data["once"]
            )
        except SeriesRefusal as refusal:
            self.refused(refusal, form)
            return self.form_invalid(form)
        messages.success(self.request, _("Series created: add its events."))
        return redirect("series_events", self.object.slug)


class SeriesUpdateView(SeriesDirectorMixin, UpdateView):
    form_class = SeriesForm
    template_name = "scoring/series_form.html"

    def get_object(self):
        return self.series

    def form_valid(self, form):
        try:
            update_series(form.save(commit=False), self.request.user)
        except SeriesRefusal as refusal:
            self.refused(refusal, form)
            return self.form_invalid(form)
        messages.success(self.request, _("Series saved."))
        return redirect(self.series.get_absolute_url())


class SeriesEventsView(SeriesDirectorMixin, FormView):
    """The series' events, each with its button to take it out, and the form adding one."""

    template_name = "scoring/series_events.html"
    form_class = AddEventForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "user": self.request.user}

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["events"] = series_events(self.series)
        return ctx

    def form_valid(self, form):
        event = form.cleaned_data["event"]
        try:
            add_event(self.series, event, self.request.user)
        except SeriesRefusal as refusal:
            self.refused(refusal, form, "event")
            return self.form_invalid(form)
        messages.success(
            self.request,
            _("%(event)s is in the series; its standings count it once it is finished.")
            % {"event": event.name},
        )
        return redirect("series_events", self.series.slug)


class SeriesPeopleView(SeriesDirectorMixin, View):
    """The series page's one step for the probable matches: the names ticked are linked
    (``action=link``: each name's players are one person) or kept apart (``action=apart``)."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        same = request.POST.get("action") != "apart"
        names = [n for n in request.POST.getlist("name") if isinstance(n, str) and len(n) <= 120]
        if not names:
            messages.error(request, _("Tick at least one name."))
            return redirect(f"{self.series.get_absolute_url()}#probable")
        try:
            settled = settle_probable(self.series, names, same, request.user, posted_key(request))
        except PersonRefusal as refusal:
            self.refused(refusal)
        else:
            messages.success(request, settled_message(settled, same))
        return redirect(f"{self.series.get_absolute_url()}#probable")


class SeriesRemoveEventView(SeriesDirectorMixin, View):
    """Take an event out of the series (a repeat changes nothing)."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        event = get_object_or_404(Event, slug=self.kwargs["event"])
        try:
            removed = remove_event(self.series, event, request.user)
        except SeriesRefusal as refusal:
            self.refused(refusal)
        else:
            text = (
                _("%(event)s taken out of the series.")
                if removed
                else _("%(event)s is not in the series.")
            )
            messages.success(request, text % {"event": event.name})
        return redirect("series_events", self.series.slug)
