"""A series' file (docs/series-file.md): its directors download it, a director uploads one as a
new series with all its events."""

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views import View
from django.views.generic import FormView

from scoring.eventfile import dumps
from scoring.eventfile.series import (
    SeriesFileError,
    export_series,
    file_name,
    may_download,
    upload_series,
)
from scoring.forms.seriesfile import SeriesFileForm
from scoring.models import Series
from scoring.services.imports import shown_errors
from scoring.services.series import SeriesRefusal
from scoring.views.eventfile import errors_context
from tournament.refusals import Refused


class SeriesFileDownloadView(LoginRequiredMixin, View):
    """The series' settings and every event's file, for a director of the series and of each
    of its events (an event's file is its directors' only)."""

    http_method_names = ["get"]

    def get(self, request, *args, **kwargs):
        series = get_object_or_404(Series, slug=kwargs["slug"])
        if not may_download(series, request.user):
            raise Refused(
                _("Only a director of the series and of each of its events can download its file.")
            )
        return HttpResponse(
            dumps(export_series(series)),
            content_type="application/json; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{file_name(series)}"'},
        )


class SeriesFileUploadView(LoginRequiredMixin, PermissionRequiredMixin, FormView):
    """A new series from a series file, with every event in it: all or nothing, every error
    shown with its place in the file."""

    permission_required = ("scoring.add_series", "tournament.add_event")
    form_class = SeriesFileForm
    template_name = "scoring/series_import.html"

    def form_valid(self, form):
        try:
            series = upload_series(
                form.cleaned_data["file"], self.request.user, form.cleaned_data["once"]
            )
        except SeriesFileError as error:
            return self.render_to_response(
                self.get_context_data(form=form, **errors_context(*shown_errors(error)))
            )
        except SeriesRefusal as refusal:
            form.add_error(None, str(refusal))
            return self.form_invalid(form)
        count = series.entries.count()
        messages.success(
            self.request,
            ngettext(
                "%(name)s imported as a new series with %(count)s event.",
                "%(name)s imported as a new series with %(count)s events.",
                count,
            )
            % {"name": series.name, "count": count},
        )
        return redirect(series)
